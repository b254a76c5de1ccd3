//! The native request rules N1–N10, asserted on a compiled form's `native_json()` against the
//! form's own model, written here independently of the runtime's compiler.

use super::json::{js_trim, Json};
use forms_runtime::data::{ChoiceOption, Image, Question, QuestionSpec, ResourceOption};
use forms_runtime::DataForm;

/// A rule's check: `Err` says what broke it.
pub type Check = fn(&DataForm, &Json) -> Result<(), String>;

/// Every rule with its check, in order.
pub const RULES: &[(&str, Check)] = &[
    ("N1", n1),
    ("N2", n2),
    ("N3", n3),
    ("N4", n4),
    ("N5", n5),
    ("N6", n6),
    ("N7", n7),
    ("N8", n8),
    ("N9", n9),
    ("N10", n10),
];

macro_rules! ensure {
    ($cond:expr, $($msg:tt)*) => {
        if !$cond {
            return Err(format!($($msg)*));
        }
    };
}

/// Parses `form.native_json()` (it must be JSON without repeated keys).
pub fn native_of(form: &DataForm) -> Json {
    match super::json::parse(form.native_json()) {
        super::json::Parsed::Value(v) => v,
        other => panic!(
            "native_json is not strict JSON ({other:?}): {}",
            form.native_json()
        ),
    }
}

/// Runs every rule; panics naming the first that fails.
pub fn check_all(form: &DataForm) {
    let native = native_of(form);
    for (rule, check) in RULES {
        if let Err(e) = check(form, &native) {
            panic!(
                "{rule}: {e}\nform: {}\nnative: {}",
                form.to_json(),
                form.native_json()
            );
        }
    }
}

fn property<'a>(native: &'a Json, id: &str) -> Result<&'a Json, String> {
    native
        .get("requestedSchema")
        .and_then(|s| s.get("properties"))
        .and_then(|p| p.get(id))
        .ok_or_else(|| format!("no property {id}"))
}

fn only_keys(v: &Json, allowed: &[&str], what: &str) -> Result<(), String> {
    for k in v.keys() {
        ensure!(allowed.contains(&k), "{what}: unexpected key {k:?}");
    }
    ensure!(matches!(v, Json::Obj(_)), "{what}: not an object");
    Ok(())
}

fn eq_str(v: Option<&Json>, want: Option<&str>, what: &str) -> Result<(), String> {
    ensure!(
        v.and_then(Json::as_str) == want && v.is_some() == want.is_some(),
        "{what}: {v:?}, expected {want:?}"
    );
    Ok(())
}

fn eq_num(v: Option<&Json>, want: u64, what: &str) -> Result<(), String> {
    ensure!(
        v.and_then(Json::as_u64) == Some(want),
        "{what}: {v:?}, expected {want}"
    );
    Ok(())
}

/// The common part of every property: `title` (trimmed, as the spec holds it) and an optional
/// `description`.
fn head(p: &Json, q: &Question, what: &str) -> Result<(), String> {
    eq_str(p.get("title"), Some(&q.title), &format!("{what}.title"))?;
    ensure!(
        js_trim(&q.title) == q.title,
        "{what}: the model's title is not trimmed"
    );
    eq_str(
        p.get("description"),
        q.description.as_deref(),
        &format!("{what}.description"),
    )
}

/// (minItems, maxItems) with the defaults of R18 and R19 applied.
pub fn limits(q: &Question) -> (u64, u64) {
    let (min, max) = q.kind.given_limits();
    let count = match q.kind {
        QuestionSpec::Files { .. } => 24,
        _ => q.kind.option_count() as u64,
    };
    (
        min.map_or(u64::from(q.required), u64::from),
        max.map_or(count, u64::from),
    )
}

/// N1: the envelope, one property per question in order, and the `required` list.
pub fn n1(form: &DataForm, native: &Json) -> Result<(), String> {
    ensure!(
        native.keys() == ["mode", "message", "requestedSchema"],
        "envelope keys {:?}",
        native.keys()
    );
    eq_str(native.get("mode"), Some("form"), "mode")?;
    ensure!(
        native.get("message").and_then(Json::as_str).is_some(),
        "message is not a string"
    );
    let schema = native.get("requestedSchema").unwrap();
    only_keys(
        schema,
        &["type", "properties", "required"],
        "requestedSchema",
    )?;
    eq_str(schema.get("type"), Some("object"), "requestedSchema.type")?;
    let ids: Vec<&str> = form.questions().iter().map(|q| q.id.as_str()).collect();
    let props = schema.get("properties").ok_or("no properties")?;
    ensure!(
        props.keys() == ids,
        "property order {:?}, questions {ids:?}",
        props.keys()
    );
    let required: Vec<&str> = form
        .questions()
        .iter()
        .filter(|q| q.required)
        .map(|q| q.id.as_str())
        .collect();
    match schema.get("required") {
        None => ensure!(
            required.is_empty(),
            "no required list, expected {required:?}"
        ),
        Some(r) => {
            ensure!(
                !required.is_empty(),
                "an empty required list is written out"
            );
            ensure!(
                r.as_strs() == Some(required.clone()),
                "required {r:?}, expected {required:?}"
            );
        }
    }
    Ok(())
}

/// N2: text.
pub fn n2(form: &DataForm, native: &Json) -> Result<(), String> {
    for q in form.questions() {
        if let QuestionSpec::Text { max_length } = q.kind {
            let p = property(native, &q.id)?;
            only_keys(p, &["type", "title", "description", "maxLength"], &q.id)?;
            eq_str(p.get("type"), Some("string"), &q.id)?;
            head(p, q, &q.id)?;
            eq_num(
                p.get("maxLength"),
                u64::from(max_length.unwrap_or(4000)),
                &q.id,
            )?;
        }
    }
    Ok(())
}

fn image(v: Option<&Json>, want: Option<&Image>, what: &str) -> Result<(), String> {
    match (v, want) {
        (None, None) => Ok(()),
        (Some(v), Some(img)) => {
            only_keys(v, &["src", "mimeType"], what)?;
            eq_str(v.get("src"), Some(&img.src), what)?;
            eq_str(v.get("mimeType"), img.mime_type.as_deref(), what)
        }
        _ => Err(format!("{what}: {v:?}, expected {want:?}")),
    }
}

/// `v`, an array of `n` entries (one for each of the model's `n` items).
fn array_of<'a>(v: Option<&'a Json>, n: usize, what: &str) -> Result<&'a [Json], String> {
    let list = v
        .and_then(Json::as_array)
        .ok_or(format!("{what}: not an array"))?;
    ensure!(
        list.len() == n,
        "{what}: {} entries for {n} items",
        list.len()
    );
    Ok(list)
}

fn choices(list: Option<&Json>, options: &[ChoiceOption], what: &str) -> Result<(), String> {
    let list = array_of(list, options.len(), what)?;
    for (i, (c, o)) in list.iter().zip(options).enumerate() {
        let w = format!("{what}[{i}]");
        only_keys(
            c,
            &["const", "title", "description", "x-openai-thumbnail"],
            &w,
        )?;
        eq_str(c.get("const"), Some(&o.id), &w)?;
        eq_str(c.get("title"), Some(&o.title), &w)?;
        ensure!(
            js_trim(&o.title) == o.title,
            "{w}: the model's title is not trimmed"
        );
        eq_str(c.get("description"), o.description.as_deref(), &w)?;
        image(
            c.get("x-openai-thumbnail"),
            o.thumbnail.as_ref(),
            &format!("{w}.x-openai-thumbnail"),
        )?;
    }
    Ok(())
}

/// N3: single_select (a `preview` is in the model as `thumbnail`, so it is checked here too).
pub fn n3(form: &DataForm, native: &Json) -> Result<(), String> {
    for q in form.questions() {
        if let QuestionSpec::SingleSelect { options } = &q.kind {
            let p = property(native, &q.id)?;
            only_keys(p, &["type", "title", "description", "oneOf"], &q.id)?;
            eq_str(p.get("type"), Some("string"), &q.id)?;
            head(p, q, &q.id)?;
            choices(p.get("oneOf"), options, &format!("{}.oneOf", q.id))?;
        }
    }
    Ok(())
}

/// The members of a native array property (multi_select, resources, files); the URI arrays
/// add `x-openai-input`.
const ARRAY_MEMBERS: [&str; 6] = [
    "type",
    "title",
    "description",
    "items",
    "minItems",
    "maxItems",
];

/// N4: multi_select.
pub fn n4(form: &DataForm, native: &Json) -> Result<(), String> {
    for q in form.questions() {
        if let QuestionSpec::MultiSelect { options, .. } = &q.kind {
            let p = property(native, &q.id)?;
            only_keys(p, &ARRAY_MEMBERS, &q.id)?;
            eq_str(p.get("type"), Some("array"), &q.id)?;
            head(p, q, &q.id)?;
            let items = p.get("items").ok_or("no items")?;
            only_keys(items, &["type", "anyOf"], &format!("{}.items", q.id))?;
            eq_str(items.get("type"), Some("string"), &q.id)?;
            choices(
                items.get("anyOf"),
                options,
                &format!("{}.items.anyOf", q.id),
            )?;
            let (min, max) = limits(q);
            eq_num(p.get("minItems"), min, &format!("{}.minItems", q.id))?;
            eq_num(p.get("maxItems"), max, &format!("{}.maxItems", q.id))?;
        }
    }
    Ok(())
}

fn input<'a>(p: &'a Json, q: &Question, extra: &[&str]) -> Result<&'a Json, String> {
    let input = p
        .get("x-openai-input")
        .ok_or(format!("{}: no x-openai-input", q.id))?;
    let mut allowed = vec!["type", "options"];
    allowed.extend_from_slice(extra);
    only_keys(input, &allowed, &format!("{}.x-openai-input", q.id))?;
    eq_str(input.get("type"), Some("resource"), &q.id)?;
    let n = input
        .get("options")
        .and_then(Json::as_array)
        .map(<[Json]>::len);
    ensure!(
        n == Some(q.kind.option_count()),
        "{}: {n:?} native options",
        q.id
    );
    Ok(input)
}

/// N5: resource.
pub fn n5(form: &DataForm, native: &Json) -> Result<(), String> {
    for q in form.questions() {
        if let QuestionSpec::Resource { .. } = &q.kind {
            let p = property(native, &q.id)?;
            only_keys(
                p,
                &["type", "format", "title", "description", "x-openai-input"],
                &q.id,
            )?;
            eq_str(p.get("type"), Some("string"), &q.id)?;
            eq_str(p.get("format"), Some("uri"), &q.id)?;
            head(p, q, &q.id)?;
            input(p, q, &[])?;
        }
    }
    Ok(())
}

fn array_of_uris(p: &Json, q: &Question) -> Result<(), String> {
    only_keys(
        p,
        &[&ARRAY_MEMBERS[..], &["x-openai-input"]].concat(),
        &q.id,
    )?;
    eq_str(p.get("type"), Some("array"), &q.id)?;
    head(p, q, &q.id)?;
    let items = p.get("items").ok_or("no items")?;
    ensure!(
        items == &Json::obj([("type", Json::str("string")), ("format", Json::str("uri"))]),
        "{}.items: {items:?}",
        q.id
    );
    let (min, max) = limits(q);
    eq_num(p.get("minItems"), min, &format!("{}.minItems", q.id))?;
    eq_num(p.get("maxItems"), max, &format!("{}.maxItems", q.id))
}

/// N6: resources.
pub fn n6(form: &DataForm, native: &Json) -> Result<(), String> {
    for q in form.questions() {
        if let QuestionSpec::Resources { .. } = &q.kind {
            let p = property(native, &q.id)?;
            array_of_uris(p, q)?;
            let input = input(p, q, &["selection"])?;
            eq_str(input.get("selection"), Some("explicit"), &q.id)?;
        }
    }
    Ok(())
}

/// N7: files.
pub fn n7(form: &DataForm, native: &Json) -> Result<(), String> {
    for q in form.questions() {
        if let QuestionSpec::Files { accept, .. } = &q.kind {
            let p = property(native, &q.id)?;
            array_of_uris(p, q)?;
            let input = input(p, q, &["selection", "userOptions"])?;
            eq_str(input.get("selection"), Some("explicit"), &q.id)?;
            let user = input
                .get("userOptions")
                .ok_or(format!("{}: no userOptions", q.id))?;
            only_keys(user, &["kind", "accept"], &format!("{}.userOptions", q.id))?;
            eq_str(user.get("kind"), Some("file"), &q.id)?;
            let got = user.get("accept").map(|a| a.as_strs());
            let want = accept
                .as_ref()
                .map(|a| Some(a.iter().map(String::as_str).collect()));
            ensure!(
                got == want,
                "{}.userOptions.accept: {got:?}, expected {want:?}",
                q.id
            );
        }
    }
    Ok(())
}

fn resource(v: &Json, o: &ResourceOption, what: &str) -> Result<(), String> {
    let allowed = [
        "uri",
        "name",
        "title",
        "description",
        "mimeType",
        "icons",
        "_meta",
    ];
    only_keys(v, &allowed, what)?;
    eq_str(v.get("uri"), Some(&o.uri), what)?;
    eq_str(v.get("name"), Some(&o.name), what)?;
    eq_str(v.get("title"), Some(&o.title), what)?;
    ensure!(
        js_trim(&o.name) == o.name && js_trim(&o.title) == o.title,
        "{what}: the model's name or title is not trimmed"
    );
    eq_str(v.get("description"), o.description.as_deref(), what)?;
    eq_str(v.get("mimeType"), o.mime_type.as_deref(), what)?;
    match (v.get("icons"), &o.icons) {
        (None, None) => {}
        (Some(list), Some(icons)) => {
            let list = array_of(Some(list), icons.len(), &format!("{what}.icons"))?;
            for (i, (v, img)) in list.iter().zip(icons).enumerate() {
                image(Some(v), Some(img), &format!("{what}.icons[{i}]"))?;
            }
        }
        (got, want) => return Err(format!("{what}.icons: {got:?}, expected {want:?}")),
    }
    match (v.get("_meta"), &o.thumbnail) {
        (None, None) => Ok(()),
        (Some(meta), Some(img)) => {
            ensure!(
                meta.keys() == ["openai/thumbnail"],
                "{what}._meta keys {:?}",
                meta.keys()
            );
            image(
                meta.get("openai/thumbnail"),
                Some(img),
                &format!("{what}._meta"),
            )
        }
        (got, want) => Err(format!("{what}._meta: {got:?}, thumbnail {want:?}")),
    }
}

/// N8: resource options keep their fields; a thumbnail moves to `_meta["openai/thumbnail"]`.
pub fn n8(form: &DataForm, native: &Json) -> Result<(), String> {
    for q in form.questions() {
        let options = q.kind.resource_options();
        if !matches!(
            q.kind,
            QuestionSpec::Resource { .. }
                | QuestionSpec::Resources { .. }
                | QuestionSpec::Files { .. }
        ) {
            continue;
        }
        let list = property(native, &q.id)?
            .get("x-openai-input")
            .and_then(|i| i.get("options"))
            .and_then(Json::as_array)
            .ok_or(format!("{}: no native options", q.id))?;
        ensure!(
            list.len() == options.len(),
            "{}: {} native options",
            q.id,
            list.len()
        );
        for (i, (v, o)) in list.iter().zip(options).enumerate() {
            resource(v, o, &format!("{}.options[{i}]", q.id))?;
        }
    }
    Ok(())
}

/// N9: no `default` anywhere, and the limits with defaults are written out (the values are
/// checked by N2, N4, N6 and N7).
pub fn n9(form: &DataForm, native: &Json) -> Result<(), String> {
    ensure!(
        !native.has_key_anywhere("default"),
        "a default in the native request"
    );
    for q in form.questions() {
        let p = property(native, &q.id)?;
        let keys: &[&str] = match q.kind {
            QuestionSpec::Text { .. } => &["maxLength"],
            QuestionSpec::SingleSelect { .. } | QuestionSpec::Resource { .. } => &[],
            _ => &["minItems", "maxItems"],
        };
        for k in keys {
            ensure!(p.get(k).is_some(), "{}: {k} is not written out", q.id);
        }
    }
    Ok(())
}

/// N10: a lone text question whose title repeats the message empties the native message.
pub fn n10(form: &DataForm, native: &Json) -> Result<(), String> {
    let repeats = match form.questions() {
        [q] => {
            matches!(q.kind, QuestionSpec::Text { .. })
                && js_trim(&q.title) == js_trim(form.message())
        }
        _ => false,
    };
    let want = if repeats { "" } else { form.message() };
    eq_str(native.get("message"), Some(want), "message")?;
    if let [q] = form.questions() {
        eq_str(
            property(native, &q.id)?.get("title"),
            Some(&q.title),
            "the lone title",
        )?;
    }
    Ok(())
}
