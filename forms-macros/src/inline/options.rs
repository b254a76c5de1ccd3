//! Choice options (R23), resource options (R24), images (R25, R26) and the uniqueness of
//! literal option IDs and URIs within a question (R5).

use super::fields::{report, violation, Fields};
use super::ir::{Choice, Image, Options, Resource, Slot, Str};
use super::parse::{Entry, Object, Value};
use super::value::{list, missing, string, verdict};
use crate::ctxt::Ctxt;
use crate::wording;
use forms_rules::{self as rules, QuestionKind, Rule, Violation};
use rules::keys::{
    CHOICE_OPTION as CHOICE_KEYS, IMAGE as IMAGE_KEYS, RESOURCE_OPTION as RESOURCE_KEYS,
};

/// The `options` of a question of `kind`: a written list whose count is checked (R12–R16),
/// or one run-time `Vec`. Also returns the number of options when the list is written out.
pub(crate) fn options<T>(
    cx: &Ctxt,
    e: &Entry,
    kind: QuestionKind,
    item: fn(&Ctxt, &Object) -> Option<T>,
    noun: &str,
) -> Result<(Options<T>, Option<usize>), ()> {
    let expected = format!("a list of {noun}s `[{{ … }}, …]` or a run-time `Vec` in braces");
    let items = match list(cx, e, &expected)? {
        Slot::Interp(g) => return Ok((Slot::Interp(g), None)),
        Slot::Lit(items) => items,
    };
    let mut out = Vec::with_capacity(items.len());
    let mut ok = true;
    for v in items {
        match v {
            Value::Object(o) => match item(cx, o) {
                Some(t) => out.push(Slot::Lit(t)),
                None => ok = false,
            },
            Value::Interp(g) => out.push(Slot::Interp(g.clone())),
            Value::Invalid(_) => ok = false,
            other => {
                ok = false;
                cx.error_at(
                    other.span(),
                    format!(
                        "expected {noun} `{{ … }}` or a run-time value in braces, found {}",
                        other.describe()
                    ),
                );
            }
        }
    }
    let count = items.len();
    let mut count_ok = true;
    if let Err(v) = rules::check_option_count(kind, count) {
        violation(cx, e.key_span, &format!("a `{kind}` question"), v);
        count_ok = false;
    }
    if !ok {
        return Err(());
    }
    Ok((Slot::Lit(out), count_ok.then_some(count)))
}

/// R5: reports each literal value that an earlier item of the same list already has, naming
/// the earlier item by its place (`list[0]`). Items written at run time are checked when the
/// form is built.
pub(crate) fn unique<'a>(
    cx: &Ctxt,
    keys: impl Iterator<Item = Option<&'a Str>>,
    what: &str,
    list: &str,
    scope: &str,
) {
    let literals: Vec<(usize, &Str)> = keys
        .enumerate()
        .filter_map(|(i, s)| s.map(|s| (i, s)))
        .collect();
    let values = literals.iter().map(|(_, s)| s.value.as_str());
    for (at, first) in rules::repeated_keys(values) {
        if let (Some((_, s)), Some((i, _))) = (literals.get(at), literals.get(first)) {
            let earlier = format!("`{list}[{i}]`");
            cx.error_at(s.span, wording::duplicate(what, &s.value, &earlier, scope));
        }
    }
}

/// A choice option written as an object (R23).
pub(crate) fn choice(cx: &Ctxt, o: &Object) -> Option<Choice> {
    let f = Fields::new(cx, o, "a choice option", CHOICE_KEYS);
    let id = string(cx, &f, "id", "option id", rules::check_id);
    let title = string(cx, &f, "title", "option title", |s| {
        verdict(rules::check_option_title(s))
    });
    let description = string(
        cx,
        &f,
        "description",
        "option description",
        rules::check_option_description,
    );
    let (thumbnail_entry, preview_entry) = (f.take("thumbnail"), f.take("preview"));
    let thumbnail = image_under(cx, thumbnail_entry);
    let preview = image_under(cx, preview_entry);
    let thumbnail = match (thumbnail_entry, preview_entry, thumbnail, preview) {
        (Some(_), Some(p), _, _) => {
            report(
                cx,
                p.key_span,
                "choice option has both `thumbnail` and `preview`".to_owned(),
                Violation::new(
                    Rule::R23,
                    "`preview` is the older alias of `thumbnail`; give one of them",
                ),
            );
            Err(())
        }
        (_, _, Ok(t), Ok(p)) => Ok(t.or(p)),
        _ => Err(()),
    };
    let open = f.finish(cx);
    let need = |got: Result<Option<Slot<Str>>, ()>, key: &str, why: &str| match got {
        Ok(Some(s)) => Some(s),
        Ok(None) => {
            missing(cx, &open, "choice option", key, Rule::R23, why);
            None
        }
        Err(()) => None,
    };
    let id = need(id, "id", "every option needs an ID");
    let title = need(title, "title", "every option needs a title");
    Some(Choice {
        id: id?,
        title: title?,
        description: description.ok()?,
        thumbnail: thumbnail.ok()?,
    })
}

/// A resource option written as an object (R24, R26).
pub(crate) fn resource(cx: &Ctxt, o: &Object) -> Option<Resource> {
    let f = Fields::new(cx, o, "a resource option", RESOURCE_KEYS);
    let uri = string(cx, &f, "uri", "resource uri", |s| {
        verdict(rules::check_resource_uri(s))
    });
    let name = string(cx, &f, "name", "resource name", |s| {
        verdict(rules::check_resource_label(s))
    });
    let title = string(cx, &f, "title", "resource title", |s| {
        verdict(rules::check_resource_label(s))
    });
    let description = string(
        cx,
        &f,
        "description",
        "resource description",
        rules::check_resource_description,
    );
    let mime_type = string(
        cx,
        &f,
        "mimeType",
        "resource mimeType",
        rules::check_resource_mime_type,
    );
    let icons = icons(cx, f.take("icons"));
    let thumbnail = image_under(cx, f.take("thumbnail"));
    let open = f.finish(cx);
    let need = |got: Result<Option<Slot<Str>>, ()>, key: &str, why: &str| match got {
        Ok(Some(s)) => Some(s),
        Ok(None) => {
            missing(cx, &open, "resource option", key, Rule::R24, why);
            None
        }
        Err(()) => None,
    };
    let uri = need(uri, "uri", "every resource option needs its identity URI");
    let name = need(name, "name", "every resource option needs a logical name");
    let title = need(
        title,
        "title",
        "every resource option needs a display title",
    );
    Some(Resource {
        uri: uri?,
        name: name?,
        title: title?,
        description: description.ok()?,
        mime_type: mime_type.ok()?,
        icons: icons.ok()?,
        thumbnail: thumbnail.ok()?,
    })
}

fn icons(cx: &Ctxt, e: Option<&Entry>) -> Result<Option<Slot<Vec<Slot<Image>>>>, ()> {
    let Some(e) = e else { return Ok(None) };
    let items = match list(
        cx,
        e,
        "a list of images `[{ src: … }]` or a run-time `Vec<Image>`",
    )? {
        Slot::Interp(g) => return Ok(Some(Slot::Interp(g))),
        Slot::Lit(items) => items,
    };
    let mut ok = true;
    if let Err(v) = rules::check_icon_count(items.len()) {
        violation(cx, e.key_span, "a resource option", v);
        ok = false;
    }
    let mut out = Vec::with_capacity(items.len());
    for v in items {
        match image(cx, v, "icon") {
            Ok(i) => out.push(i),
            Err(()) => ok = false,
        }
    }
    if ok {
        Ok(Some(Slot::Lit(out)))
    } else {
        Err(())
    }
}

fn image_under(cx: &Ctxt, e: Option<&Entry>) -> Result<Option<Slot<Image>>, ()> {
    match e {
        None => Ok(None),
        Some(e) => image(cx, &e.value, &e.key).map(Some),
    }
}

/// An image (R25, R26): `{ src: …, mimeType: … }` or a run-time `Image`.
fn image(cx: &Ctxt, v: &Value, what: &str) -> Result<Slot<Image>, ()> {
    let o = match v {
        Value::Object(o) => o,
        Value::Interp(g) => return Ok(Slot::Interp(g.clone())),
        Value::Invalid(_) => return Err(()),
        other => {
            cx.error_at(
                other.span(),
                format!(
                    "`{what}` takes an image `{{ src: \"…\" }}` or a run-time `Image` in \
                     braces, found {}",
                    other.describe()
                ),
            );
            return Err(());
        }
    };
    let f = Fields::new(cx, o, "an image", IMAGE_KEYS);
    let src = string(cx, &f, "src", "image src", rules::check_image_src);
    let mime_type = string(
        cx,
        &f,
        "mimeType",
        "image mimeType",
        rules::check_image_mime_type,
    );
    let open = f.finish(cx);
    let src = match src? {
        Some(s) => s,
        None => {
            missing(
                cx,
                &open,
                "image",
                "src",
                Rule::R25,
                "an image needs an HTTPS URL or a data URI",
            );
            return Err(());
        }
    };
    Ok(Slot::Lit(Image {
        src,
        mime_type: mime_type?,
    }))
}
