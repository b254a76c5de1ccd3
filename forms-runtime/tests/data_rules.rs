//! One test per Data rule (R1–R27), each with passing and failing input at the limit, through
//! the JSON entry points (`DataForm::from_json`, `DataForm::from_value`) and, where it applies,
//! `DataForm::new`. Plus the normalized output.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod seeds;

use forms_runtime::data::{FormSpec, Image, QuestionSpec};
use forms_runtime::rules::{self, Rule, SelectionLimits};
use forms_runtime::{DataForm, ErrorCode, FormError};
use serde_json::{json, Value};

// ---------------------------------------------------------------------------------------------
// Helpers.

fn form(questions: Vec<Value>) -> Value {
    json!({ "message": "Set up your report", "questions": questions })
}

fn text_q(id: &str) -> Value {
    json!({ "id": id, "type": "text", "title": "What would you like to understand?", "required": false })
}

fn choices(n: usize) -> Value {
    (0..n)
        .map(|i| json!({ "id": format!("o{i}"), "title": format!("Option {i}") }))
        .collect()
}

fn resources(n: usize) -> Value {
    (0..n)
        .map(|i| {
            json!({
                "uri": format!("https://example.com/r/{i}"),
                "name": format!("r{i}"),
                "title": format!("Document · {i}")
            })
        })
        .collect()
}

fn choice_q(kind: &str, n: usize) -> Value {
    json!({ "id": "pick", "type": kind, "title": "Pick", "required": false, "options": choices(n) })
}

fn resource_q(kind: &str, n: usize) -> Value {
    json!({ "id": "pick", "type": kind, "title": "Pick", "required": false, "options": resources(n) })
}

/// Parses `v` through both entry points, checking they agree.
fn parse(v: &Value) -> Result<DataForm, FormError> {
    let from_text = DataForm::from_json(&v.to_string());
    let from_value = DataForm::from_value(v);
    assert_eq!(from_text, from_value, "from_json and from_value disagree");
    from_text
}

fn accepted(v: &Value) -> DataForm {
    parse(v).unwrap_or_else(|e| panic!("expected the form to be accepted: {}", e.message()))
}

/// The rule tag of the entry of `message` that starts with `path: `.
fn rule_at(message: &str, path: &str) -> Option<String> {
    let needle = format!("{path}: ");
    for (i, _) in message.match_indices(&needle) {
        if i != 0 && !message[..i].ends_with("; ") {
            continue;
        }
        let rest = &message[i + needle.len()..];
        let mut from = 0;
        while let Some(open) = rest[from..].find(" (") {
            let start = from + open + 2;
            if let Some(len) = rest[start..].find(')') {
                let tag = &rest[start..start + len];
                let mut chars = tag.chars();
                if matches!(chars.next(), Some('R' | 'V'))
                    && !tag[1..].is_empty()
                    && tag[1..].bytes().all(|b| b.is_ascii_digit())
                {
                    return Some(tag.to_owned());
                }
            }
            from = start;
        }
    }
    None
}

/// Asserts that `v` is refused with `invalid_arguments` and an entry at `path` naming `rule`;
/// returns the message.
fn refused(v: &Value, path: &str, rule: Rule) -> String {
    let err = parse(v).expect_err("expected the form to be refused");
    assert_refused(&err, path, rule);
    err.message().to_owned()
}

fn assert_refused(err: &FormError, path: &str, rule: Rule) {
    assert_eq!(err.code(), ErrorCode::InvalidArguments, "{}", err.message());
    assert_eq!(
        rule_at(err.message(), path).as_deref(),
        Some(rule.as_str()),
        "expected `{path}: … ({rule})` in: {}",
        err.message()
    );
}

/// Sets the value at `pointer`, adding the last key to its object when it is not there.
fn set(v: &mut Value, pointer: &str, value: Value) {
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    match v.pointer_mut(parent) {
        Some(Value::Object(map)) => {
            map.insert(key.to_owned(), value);
        }
        Some(Value::Array(items)) => items[key.parse::<usize>().unwrap()] = value,
        _ => panic!("no container at {parent}"),
    }
}

fn remove(v: &mut Value, pointer: &str, key: &str) {
    v.pointer_mut(pointer)
        .and_then(Value::as_object_mut)
        .unwrap_or_else(|| panic!("no object at {pointer}"))
        .remove(key);
}

fn chars(n: usize) -> String {
    "x".repeat(n)
}

#[test]
fn rule_at_reads_the_entry_of_a_path() {
    let m = "message: must not be empty (R1); questions[0].id: \"9x\" must start (R6)";
    assert_eq!(rule_at(m, "message").as_deref(), Some("R1"));
    assert_eq!(rule_at(m, "questions[0].id").as_deref(), Some("R6"));
    assert_eq!(rule_at(m, "id"), None);
    assert_eq!(rule_at(m, "questions[0]"), None);
}

// ---------------------------------------------------------------------------------------------
// R1–R27.

#[test]
fn r1_message_1_to_80_characters_not_blank() {
    let mut v = form(vec![text_q("goal")]);
    set(&mut v, "/message", json!(chars(80)));
    accepted(&v);
    // Characters, not bytes: 80 `é` are 160 bytes.
    set(&mut v, "/message", json!("é".repeat(80)));
    accepted(&v);
    set(&mut v, "/message", json!(chars(81)));
    let m = refused(&v, "message", Rule::R1);
    assert!(m.contains("found 81"), "{m}");
    for blank in ["", "   ", "\t\n"] {
        set(&mut v, "/message", json!(blank));
        refused(&v, "message", Rule::R1);
    }
    set(&mut v, "/message", json!(["x"]));
    refused(&v, "message", Rule::R1);
    remove(&mut v, "", "message");
    let m = refused(&v, "message", Rule::R1);
    assert!(m.contains("message: is required but missing (R1)"), "{m}");
}

#[test]
fn r2_questions_1_to_12_in_display_order() {
    let twelve: Vec<Value> = (0..12).map(|i| text_q(&format!("q{i}"))).rev().collect();
    let f = accepted(&form(twelve.clone()));
    let ids: Vec<&str> = f.questions().iter().map(|q| q.id.as_str()).collect();
    let expected: Vec<String> = (0..12).rev().map(|i| format!("q{i}")).collect();
    assert_eq!(ids, expected, "display order is kept");
    let out: Value = serde_json::from_str(&f.to_json()).unwrap();
    assert_eq!(out["questions"][0]["id"], "q11");
    assert_eq!(out["questions"][11]["id"], "q0");

    let mut thirteen = twelve;
    thirteen.push(text_q("q12"));
    let m = refused(&form(thirteen), "questions", Rule::R2);
    assert!(m.contains("at most 12 questions, found 13"), "{m}");
    refused(&form(vec![]), "questions", Rule::R2);
    refused(
        &json!({"message": "m", "questions": {}}),
        "questions",
        Rule::R2,
    );
    refused(&json!({"message": "m"}), "questions", Rule::R2);
}

#[test]
fn r3_every_object_is_strict() {
    let mut base = form(vec![
        resource_q("resources", 2),
        choice_q("single_select", 2),
        text_q("goal"),
    ]);
    base["questions"][1]["id"] = json!("format");
    accepted(&base);
    let cases: &[(&str, &str, &str)] = &[
        ("", "_meta", "_meta"),
        ("/questions/0", "userOptions", "questions[0].userOptions"),
        (
            "/questions/0",
            "x-openai-input",
            "questions[0].x-openai-input",
        ),
        (
            "/questions/0",
            "openai/thumbnail",
            "questions[0][\"openai/thumbnail\"]",
        ),
        (
            "/questions/0/options/1",
            "size",
            "questions[0].options[1].size",
        ),
        (
            "/questions/0/options/1",
            "_meta",
            "questions[0].options[1]._meta",
        ),
        (
            "/questions/1/options/0",
            "value",
            "questions[1].options[0].value",
        ),
        ("/questions/2", "options", "questions[2].options"),
        ("/questions/2", "placeholder", "questions[2].placeholder"),
        ("/questions/1", "accept", "questions[1].accept"),
        ("/questions/1", "maxLength", "questions[1].maxLength"),
    ];
    for (pointer, key, path) in cases {
        let mut v = base.clone();
        v.pointer_mut(pointer)
            .and_then(Value::as_object_mut)
            .unwrap()
            .insert((*key).to_owned(), json!([]));
        let m = refused(&v, path, Rule::R3);
        assert!(m.contains(&format!("{path}: is not ")), "{m}");
    }
    // An image is strict too.
    let mut v = base.clone();
    set(
        &mut v,
        "/questions/0/options/0/thumbnail",
        json!({"src": "https://example.com/a.png", "sizes": ["48x48"]}),
    );
    let m = refused(&v, "questions[0].options[0].thumbnail.sizes", Rule::R3);
    assert!(m.contains("it takes only `src`, `mimeType`"), "{m}");
    // Several unknown properties are all reported at once.
    let mut v = base;
    v["extra"] = json!(1);
    v["questions"][2]["hint"] = json!("h");
    let m = refused(&v, "extra", Rule::R3);
    assert_eq!(
        rule_at(&m, "questions[2].hint").as_deref(),
        Some("R3"),
        "{m}"
    );
}

/// A form whose compact JSON is exactly `total` UTF-16 code units: a `resources` question
/// with five options whose thumbnails are long data URIs, and a description exercising
/// escapes and characters outside the Basic Multilingual Plane.
fn form_of_size(total: usize) -> Value {
    let mut options = resources(5);
    for o in options.as_array_mut().unwrap() {
        o["thumbnail"] = json!({ "src": format!("data:image/png;base64,{}", "A".repeat(200_000)) });
    }
    // 2 units each for `"`, `\` and `\n` (escaped), 6 for U+0001 (`\u0001`), 2 for `😀`.
    let description = "quote \" backslash \\ newline \n control \u{1} emoji 😀 é";
    let mut v = json!({
        "message": "Choose report templates",
        "questions": [{
            "id": "templates", "type": "resources", "title": "  Relevant report templates  ",
            "description": description, "required": false, "options": options
        }]
    });
    let now = serde_json::to_string(&v).unwrap().encode_utf16().count();
    assert!(now <= total);
    // Lengthen the last thumbnail's base64 data, keeping it a valid length (never 1 mod 4);
    // a unit left over goes to the option's title.
    let mut grow = total - now;
    let last = &mut v["questions"][0]["options"][4];
    let src = last["thumbnail"]["src"].as_str().unwrap().to_owned();
    if (200_000 + grow) % 4 == 1 {
        grow -= 1;
        last["title"] = json!(format!("{}x", last["title"].as_str().unwrap()));
    }
    last["thumbnail"]["src"] = json!(format!("{src}{}", "A".repeat(grow)));
    assert_eq!(
        serde_json::to_string(&v).unwrap().encode_utf16().count(),
        total
    );
    v
}

#[test]
fn r4_arguments_at_most_1_mib_of_compact_json() {
    const MIB: usize = 1_048_576;
    let at_limit = form_of_size(MIB);
    let f = accepted(&at_limit);
    // Pretty-printed text is longer, but the compact serialization is what counts.
    let pretty = serde_json::to_string_pretty(&at_limit).unwrap();
    assert!(pretty.len() > MIB);
    assert_eq!(DataForm::from_json(&pretty).unwrap(), f);
    // `\u` escapes in the text are measured as the characters they stand for.
    let escaped = serde_json::to_string(&at_limit)
        .unwrap()
        .replace("Choose", r"\u0043hoose");
    assert_eq!(DataForm::from_json(&escaped).unwrap(), f);

    let over = form_of_size(MIB + 1);
    let m = refused(&over, "arguments", Rule::R4);
    assert!(m.contains("found 1048577"), "{m}");
    // One more unit in the message alone also tips it over.
    let mut over_by_message = at_limit.clone();
    set(
        &mut over_by_message,
        "/message",
        json!("Choose report templates!"),
    );
    refused(&over_by_message, "arguments", Rule::R4);

    // Forms built in Rust are measured too, before trimming (the title has spaces).
    DataForm::new(f.spec().clone()).unwrap_or_else(|e| panic!("{}", e.message()));
    let mut spec: FormSpec = f.spec().clone();
    spec.questions[0].title = "  Relevant report templates  ".into();
    DataForm::new(spec.clone()).unwrap();
    spec.questions[0].title.push(' ');
    let err = DataForm::new(spec).unwrap_err();
    assert_refused(&err, "arguments", Rule::R4);
    assert!(err.message().contains("found 1048577"), "{}", err.message());
}

#[test]
fn r5_ids_and_uris_unique() {
    let mut v = form(vec![text_q("goal"), text_q("other")]);
    accepted(&v);
    set(&mut v, "/questions/1/id", json!("goal"));
    refused(&v, "questions[1].id", Rule::R5);

    // The same option id in two questions is fine; twice in one question is not.
    let mut a = choice_q("single_select", 2);
    a["id"] = json!("a");
    let mut b = choice_q("multi_select", 2);
    b["id"] = json!("b");
    let mut v = form(vec![a, b]);
    accepted(&v);
    set(&mut v, "/questions/1/options/1/id", json!("o0"));
    refused(&v, "questions[1].options[1].id", Rule::R5);

    let mut v = form(vec![resource_q("resources", 3)]);
    accepted(&v);
    set(
        &mut v,
        "/questions/0/options/2/uri",
        json!("https://example.com/r/0"),
    );
    refused(&v, "questions[0].options[2].uri", Rule::R5);
}

#[test]
fn r6_id_syntax() {
    let mut v = form(vec![
        text_q("a"),
        text_q("b"),
        text_q("c"),
        choice_q("single_select", 2),
    ]);
    set(
        &mut v,
        "/questions/0/id",
        json!(format!("a{}", "b".repeat(63))),
    );
    set(&mut v, "/questions/1/id", json!("A-b_c9"));
    accepted(&v);
    set(&mut v, "/questions/3/options/0/id", json!("9x"));
    let m = refused(&v, "questions[3].options[0].id", Rule::R6);
    assert!(
        m.contains(r#"questions[3].options[0].id: "9x" must start with an ASCII letter (R6)"#),
        "{m}"
    );
    set(&mut v, "/questions/3/options/0/id", json!("o0"));
    set(
        &mut v,
        "/questions/0/id",
        json!(format!("a{}", "b".repeat(64))),
    );
    let m = refused(&v, "questions[0].id", Rule::R6);
    assert!(m.contains("found 65"), "{m}");
    for bad in ["", "_x", "a b", "é", "a.b"] {
        set(&mut v, "/questions/0/id", json!(bad));
        refused(&v, "questions[0].id", Rule::R6);
    }
    remove(&mut v, "/questions/0", "id");
    refused(&v, "questions[0].id", Rule::R6);
}

#[test]
fn r7_type_is_one_of_six() {
    let mut qs = vec![
        text_q("a"),
        choice_q("single_select", 1),
        choice_q("multi_select", 1),
        resource_q("resource", 1),
        resource_q("resources", 1),
        json!({"id": "f", "type": "files", "title": "Upload your data", "required": false}),
    ];
    for (i, q) in qs.iter_mut().enumerate() {
        q["id"] = json!(format!("q{i}"));
    }
    let f = accepted(&form(qs));
    let kinds: Vec<&str> = f
        .questions()
        .iter()
        .map(|q| q.kind.kind().as_str())
        .collect();
    assert_eq!(kinds, seeds::QUESTION_TYPES);
    let mut v = form(vec![text_q("goal")]);
    for bad in ["date", "Text", "select", ""] {
        set(&mut v, "/questions/0/type", json!(bad));
        let m = refused(&v, "questions[0].type", Rule::R7);
        assert!(m.contains("must be one of `text`"), "{m}");
    }
    set(&mut v, "/questions/0/type", json!(1));
    refused(&v, "questions[0].type", Rule::R7);
    remove(&mut v, "/questions/0", "type");
    refused(&v, "questions[0].type", Rule::R7);
}

#[test]
fn r8_title_trimmed_nonempty_at_most_80() {
    let mut v = form(vec![text_q("goal")]);
    set(&mut v, "/questions/0/title", json!(chars(80)));
    accepted(&v);
    // Surrounding whitespace is trimmed before counting, and in the normalized output.
    set(
        &mut v,
        "/questions/0/title",
        json!(format!("  {}\n", chars(80))),
    );
    let f = accepted(&v);
    assert_eq!(f.questions()[0].title, chars(80));
    set(&mut v, "/questions/0/title", json!(chars(81)));
    let m = refused(&v, "questions[0].title", Rule::R8);
    assert!(m.contains("at most 80 characters, found 81"), "{m}");
    set(&mut v, "/questions/0/title", json!("  "));
    refused(&v, "questions[0].title", Rule::R8);
    set(&mut v, "/questions/0/title", json!(42));
    let m = refused(&v, "questions[0].title", Rule::R8);
    assert!(
        m.contains("questions[0].title: expected a string, found a number (R8)"),
        "{m}"
    );
}

#[test]
fn r9_description_at_most_2000() {
    let mut v = form(vec![text_q("goal")]);
    set(&mut v, "/questions/0/description", json!(chars(2000)));
    accepted(&v);
    set(&mut v, "/questions/0/description", json!(chars(2001)));
    let m = refused(&v, "questions[0].description", Rule::R9);
    assert!(m.contains("found 2001"), "{m}");
    set(&mut v, "/questions/0/description", Value::Null);
    refused(&v, "questions[0].description", Rule::R9);
}

#[test]
fn r10_required_is_an_explicit_boolean() {
    let mut v = form(vec![text_q("goal")]);
    for b in [true, false] {
        set(&mut v, "/questions/0/required", json!(b));
        assert_eq!(accepted(&v).questions()[0].required, b);
    }
    for bad in [json!("true"), json!(1), Value::Null, json!([])] {
        set(&mut v, "/questions/0/required", bad);
        let m = refused(&v, "questions[0].required", Rule::R10);
        assert!(m.contains("no default"), "{m}");
    }
    remove(&mut v, "/questions/0", "required");
    let m = refused(&v, "questions[0].required", Rule::R10);
    assert!(m.contains("explicit `required` boolean"), "{m}");
}

#[test]
fn r11_text_max_length_1_to_16000_default_4000() {
    let mut v = form(vec![text_q("goal")]);
    assert_eq!(accepted(&v).max_length(0), Some(4000));
    for ok in [1, 16_000] {
        set(&mut v, "/questions/0/maxLength", json!(ok));
        assert_eq!(accepted(&v).max_length(0), Some(ok));
    }
    // An integral number in any notation is the integer.
    let text = v
        .to_string()
        .replace(r#""maxLength":16000"#, r#""maxLength":1.6e4"#);
    assert_eq!(
        DataForm::from_json(&text).unwrap().max_length(0),
        Some(16_000)
    );
    for (bad, shown) in [
        (json!(0), "0"),
        (json!(16_001), "16001"),
        (json!(-1), "-1"),
        (json!(1e30), "1e+30"),
        (json!(u64::MAX), "18446744073709551615"),
    ] {
        set(&mut v, "/questions/0/maxLength", bad);
        let m = refused(&v, "questions[0].maxLength", Rule::R11);
        assert!(
            m.contains(&format!("from 1 to 16000, found {shown} (R11)")),
            "{m}"
        );
    }
    set(&mut v, "/questions/0/maxLength", json!(4.5));
    let m = refused(&v, "questions[0].maxLength", Rule::R11);
    assert!(m.contains("must be an integer, found 4.5"), "{m}");
    set(&mut v, "/questions/0/maxLength", json!("100"));
    refused(&v, "questions[0].maxLength", Rule::R11);
}

#[test]
fn r12_single_select_1_to_24_options() {
    accepted(&form(vec![choice_q("single_select", 1)]));
    accepted(&form(vec![choice_q("single_select", 24)]));
    let m = refused(
        &form(vec![choice_q("single_select", 25)]),
        "questions[0].options",
        Rule::R12,
    );
    assert!(m.contains("at most 24 options, found 25"), "{m}");
    refused(
        &form(vec![choice_q("single_select", 0)]),
        "questions[0].options",
        Rule::R12,
    );
    let mut v = form(vec![choice_q("single_select", 1)]);
    remove(&mut v, "/questions/0", "options");
    refused(&v, "questions[0].options", Rule::R12);
}

#[test]
fn r13_multi_select_1_to_24_options_with_limits() {
    let mut q = choice_q("multi_select", 24);
    q["minItems"] = json!(2);
    q["maxItems"] = json!(24);
    let f = accepted(&form(vec![q]));
    assert_eq!(
        f.selection_limits(0),
        Some(SelectionLimits {
            min_items: 2,
            max_items: 24
        })
    );
    accepted(&form(vec![choice_q("multi_select", 1)]));
    refused(
        &form(vec![choice_q("multi_select", 25)]),
        "questions[0].options",
        Rule::R13,
    );
    refused(
        &form(vec![choice_q("multi_select", 0)]),
        "questions[0].options",
        Rule::R13,
    );
}

#[test]
fn r14_resource_1_to_24_options() {
    accepted(&form(vec![resource_q("resource", 1)]));
    accepted(&form(vec![resource_q("resource", 24)]));
    refused(
        &form(vec![resource_q("resource", 25)]),
        "questions[0].options",
        Rule::R14,
    );
    refused(
        &form(vec![resource_q("resource", 0)]),
        "questions[0].options",
        Rule::R14,
    );
    // Choice options are not resource options.
    let mut v = form(vec![resource_q("resource", 1)]);
    set(&mut v, "/questions/0/options", choices(1));
    refused(&v, "questions[0].options[0].uri", Rule::R24);
}

#[test]
fn r15_resources_1_to_24_options_with_limits() {
    let mut q = resource_q("resources", 24);
    q["minItems"] = json!(1);
    q["maxItems"] = json!(3);
    accepted(&form(vec![q]));
    accepted(&form(vec![resource_q("resources", 1)]));
    refused(
        &form(vec![resource_q("resources", 25)]),
        "questions[0].options",
        Rule::R15,
    );
    refused(
        &form(vec![resource_q("resources", 0)]),
        "questions[0].options",
        Rule::R15,
    );
}

#[test]
fn r16_files_0_to_24_options_limits_and_accept() {
    let bare =
        json!({"id": "data", "type": "files", "title": "Upload your data", "required": false});
    let f = accepted(&form(vec![bare.clone()]));
    assert!(f.questions()[0].kind.resource_options().is_empty());
    let mut q = resource_q("files", 24);
    q["minItems"] = json!(0);
    q["maxItems"] = json!(24);
    q["accept"] = json!([".csv", "text/csv"]);
    accepted(&form(vec![q]));
    accepted(&form(vec![resource_q("files", 0)]));
    let m = refused(
        &form(vec![resource_q("files", 25)]),
        "questions[0].options",
        Rule::R16,
    );
    assert!(m.contains("found 25"), "{m}");
}

#[test]
fn r17_selection_limits_only_on_array_kinds() {
    for kind in ["multi_select", "resources", "files"] {
        let mut q = if kind == "multi_select" {
            choice_q(kind, 2)
        } else {
            resource_q(kind, 2)
        };
        q["minItems"] = json!(1);
        q["maxItems"] = json!(2);
        accepted(&form(vec![q]));
    }
    for (kind, key) in [
        ("single_select", "minItems"),
        ("resource", "maxItems"),
        ("text", "maxItems"),
        ("text", "minItems"),
    ] {
        let mut q = match kind {
            "single_select" => choice_q(kind, 2),
            "resource" => resource_q(kind, 2),
            _ => text_q("goal"),
        };
        q[key] = json!(1);
        let path = format!("questions[0].{key}");
        let m = refused(&form(vec![q]), &path, Rule::R17);
        assert!(
            m.contains(&format!("`{kind}` questions take no minItems or maxItems")),
            "{m}"
        );
    }
}

#[test]
fn r18_min_items_0_to_24_not_zero_when_required() {
    // Defaults: 1 when required, 0 otherwise.
    let mut q = choice_q("multi_select", 3);
    assert_eq!(
        accepted(&form(vec![q.clone()]))
            .selection_limits(0)
            .unwrap()
            .min_items,
        0
    );
    q["required"] = json!(true);
    assert_eq!(
        accepted(&form(vec![q.clone()]))
            .selection_limits(0)
            .unwrap()
            .min_items,
        1
    );
    q["minItems"] = json!(0);
    let m = refused(&form(vec![q.clone()]), "questions[0].minItems", Rule::R18);
    assert!(
        m.contains("at least 1 when the question is required"),
        "{m}"
    );
    q["required"] = json!(false);
    accepted(&form(vec![q]));
    // 24 is the most, on files (not bounded by the option count).
    let mut f =
        json!({"id": "data", "type": "files", "title": "Upload", "required": true, "minItems": 24});
    assert_eq!(
        accepted(&form(vec![f.clone()]))
            .selection_limits(0)
            .unwrap()
            .min_items,
        24
    );
    f["minItems"] = json!(25);
    let m = refused(&form(vec![f.clone()]), "questions[0].minItems", Rule::R18);
    assert!(m.contains("from 0 to 24, found 25"), "{m}");
    f["minItems"] = json!(-1);
    let m = refused(&form(vec![f.clone()]), "questions[0].minItems", Rule::R18);
    assert!(m.contains("found -1"), "{m}");
    f["minItems"] = json!(1.5);
    refused(&form(vec![f]), "questions[0].minItems", Rule::R18);
}

#[test]
fn r19_max_items_1_to_24_default_option_count_or_24() {
    let q = choice_q("multi_select", 3);
    assert_eq!(
        accepted(&form(vec![q.clone()]))
            .selection_limits(0)
            .unwrap()
            .max_items,
        3
    );
    let files = json!({"id": "data", "type": "files", "title": "Upload", "required": false});
    assert_eq!(
        accepted(&form(vec![files.clone()]))
            .selection_limits(0)
            .unwrap()
            .max_items,
        24
    );
    let mut f = files;
    for ok in [1, 24] {
        f["maxItems"] = json!(ok);
        assert_eq!(
            accepted(&form(vec![f.clone()]))
                .selection_limits(0)
                .unwrap()
                .max_items,
            ok
        );
    }
    for (bad, shown) in [(0, "0"), (25, "25"), (-3, "-3")] {
        f["maxItems"] = json!(bad);
        let m = refused(&form(vec![f.clone()]), "questions[0].maxItems", Rule::R19);
        assert!(m.contains(&format!("from 1 to 24, found {shown}")), "{m}");
    }
}

#[test]
fn r20_bounds_within_option_count() {
    // min > max.
    let mut q = resource_q("files", 0);
    q["minItems"] = json!(3);
    q["maxItems"] = json!(3);
    accepted(&form(vec![q.clone()]));
    q["maxItems"] = json!(2);
    let m = refused(&form(vec![q]), "questions[0]", Rule::R20);
    assert!(
        m.contains("minItems (3) must not exceed maxItems (2)"),
        "{m}"
    );
    // Bounds above the option count: refused for multi_select and resources, allowed for files.
    for kind in ["multi_select", "resources"] {
        let mut q = if kind == "multi_select" {
            choice_q(kind, 3)
        } else {
            resource_q(kind, 3)
        };
        q["minItems"] = json!(3);
        q["maxItems"] = json!(3);
        accepted(&form(vec![q.clone()]));
        q["maxItems"] = json!(4);
        refused(&form(vec![q.clone()]), "questions[0]", Rule::R20);
        q["maxItems"] = json!(3);
        q["minItems"] = json!(4);
        refused(&form(vec![q]), "questions[0]", Rule::R20);
    }
    let mut q = resource_q("files", 3);
    q["minItems"] = json!(4);
    q["maxItems"] = json!(10);
    accepted(&form(vec![q]));
}

#[test]
fn r21_no_default_and_no_preselection() {
    let base = form(vec![choice_q("single_select", 2), resource_q("files", 2)]);
    let mut base = base;
    base["questions"][1]["id"] = json!("data");
    accepted(&base);
    for (pointer, key, path) in [
        ("/questions/0", "default", "questions[0].default"),
        ("/questions/1", "selection", "questions[1].selection"),
        ("/questions/1", "default", "questions[1].default"),
        (
            "/questions/0/options/0",
            "default",
            "questions[0].options[0].default",
        ),
        ("", "default", "default"),
    ] {
        let mut v = base.clone();
        v.pointer_mut(pointer)
            .and_then(Value::as_object_mut)
            .unwrap()
            .insert(key.to_owned(), json!("o0"));
        let m = refused(&v, path, Rule::R21);
        assert!(m.contains("preselection"), "{m}");
    }
}

#[test]
fn r22_files_accept_1_to_12_extensions_or_mime_types() {
    let mut q = json!({"id": "data", "type": "files", "title": "Upload", "required": false});
    let twelve = [
        ".csv",
        ".tsv",
        ".xlsx",
        ".json",
        "text/csv",
        "image/*",
        "application/pdf",
        ".tar.gz",
        "text/plain",
        ".md",
        "image/png",
        ".c++",
    ];
    q["accept"] = json!(twelve);
    accepted(&form(vec![q.clone()]));
    let mut thirteen = twelve.to_vec();
    thirteen.push(".txt");
    q["accept"] = json!(thirteen);
    let m = refused(&form(vec![q.clone()]), "questions[0].accept", Rule::R22);
    assert!(m.contains("found 13"), "{m}");
    q["accept"] = json!([]);
    refused(&form(vec![q.clone()]), "questions[0].accept", Rule::R22);
    for (list, path) in [
        (json!(["csv"]), "questions[0].accept[0]"),
        (json!([".csv", "*/*"]), "questions[0].accept[1]"),
        (json!([".csv", ".CSV"]), "questions[0].accept[1]"),
        (json!(["text/csv", "Text/CSV"]), "questions[0].accept[1]"),
        (json!([".csv, .tsv"]), "questions[0].accept[0]"),
        (json!([".csv", 3]), "questions[0].accept[1]"),
    ] {
        q["accept"] = list;
        refused(&form(vec![q.clone()]), path, Rule::R22);
    }
}

#[test]
fn r23_choice_option_fields_and_preview_alias() {
    let mut v = form(vec![choice_q("single_select", 2)]);
    set(&mut v, "/questions/0/options/0/title", json!(chars(500)));
    set(
        &mut v,
        "/questions/0/options/0/description",
        json!(chars(1000)),
    );
    accepted(&v);
    set(&mut v, "/questions/0/options/0/title", json!(chars(501)));
    set(
        &mut v,
        "/questions/0/options/0/description",
        json!(chars(1001)),
    );
    let m = refused(&v, "questions[0].options[0].title", Rule::R23);
    assert_eq!(
        rule_at(&m, "questions[0].options[0].description").as_deref(),
        Some("R23"),
        "{m}"
    );
    set(&mut v, "/questions/0/options/0/title", json!(" \t "));
    refused(&v, "questions[0].options[0].title", Rule::R23);

    // `preview` is the older name of `thumbnail`: stored and written as `thumbnail`.
    let mut v = form(vec![choice_q("single_select", 2)]);
    let image = json!({"src": "https://example.com/pdf.png", "mimeType": "image/png"});
    set(&mut v, "/questions/0/options/0/preview", image.clone());
    let f = accepted(&v);
    assert_eq!(
        f.questions()[0].kind.choice_options()[0].thumbnail,
        Some(Image {
            src: "https://example.com/pdf.png".into(),
            mime_type: Some("image/png".into())
        })
    );
    let out: Value = serde_json::from_str(&f.to_json()).unwrap();
    assert_eq!(out["questions"][0]["options"][0]["thumbnail"], image);
    assert!(out["questions"][0]["options"][0].get("preview").is_none());
    // A bad preview is reported under the name the input used.
    set(
        &mut v,
        "/questions/0/options/0/preview/src",
        json!("http://example.com/pdf.png"),
    );
    refused(&v, "questions[0].options[0].preview.src", Rule::R25);
    // Both together are refused.
    set(&mut v, "/questions/0/options/0/preview", image.clone());
    set(&mut v, "/questions/0/options/0/thumbnail", image);
    let m = refused(&v, "questions[0].options[0].preview", Rule::R23);
    assert!(m.contains("together with `thumbnail`"), "{m}");
}

#[test]
fn r24_resource_option_fields() {
    let mut v = form(vec![resource_q("resource", 1)]);
    let o = "/questions/0/options/0";
    let uri = format!(
        "https://example.com/{}",
        chars(8192 - "https://example.com/".len())
    );
    set(&mut v, &format!("{o}/uri"), json!(uri));
    set(&mut v, &format!("{o}/name"), json!(chars(500)));
    set(&mut v, &format!("{o}/title"), json!(chars(500)));
    set(&mut v, &format!("{o}/description"), json!(chars(1000)));
    set(&mut v, &format!("{o}/mimeType"), json!(chars(100)));
    set(
        &mut v,
        &format!("{o}/icons"),
        json!([{"src": "https://example.com/a.png"}, {"src": "data:image/webp;base64,UklGRg=="}]),
    );
    set(
        &mut v,
        &format!("{o}/thumbnail"),
        json!({"src": "https://example.com/t.png"}),
    );
    accepted(&v);

    let base = v.clone();
    let p = "questions[0].options[0]";
    let cases: Vec<(&str, Value, String)> = vec![
        ("uri", json!(format!("{uri}x")), format!("{p}.uri")),
        ("uri", json!("templates/review"), format!("{p}.uri")),
        ("uri", json!("https://example.com/a b"), format!("{p}.uri")),
        ("name", json!(chars(501)), format!("{p}.name")),
        ("name", json!(" "), format!("{p}.name")),
        ("title", json!(chars(501)), format!("{p}.title")),
        (
            "description",
            json!(chars(1001)),
            format!("{p}.description"),
        ),
        ("mimeType", json!(chars(101)), format!("{p}.mimeType")),
        (
            "icons",
            json!([{"src": "https://e.com/a.png"}, {"src": "https://e.com/b.png"}, {"src": "https://e.com/c.png"}]),
            format!("{p}.icons"),
        ),
    ];
    for (key, value, path) in cases {
        let mut v = base.clone();
        set(&mut v, &format!("{o}/{key}"), value);
        refused(&v, &path, Rule::R24);
    }
    let mut v = base;
    remove(&mut v, o, "name");
    refused(&v, &format!("{p}.name"), Rule::R24);
}

#[test]
fn r25_images_https_or_raster_data_uris() {
    let mut v = form(vec![resource_q("resource", 1)]);
    let t = "/questions/0/options/0/thumbnail";
    let path = "questions[0].options[0].thumbnail.src";
    let prefix = "data:image/png;base64,";
    let at_limit = format!("{prefix}{}", "A".repeat(262_144 - prefix.len()));
    set(&mut v, t, json!({"src": at_limit, "mimeType": chars(100)}));
    accepted(&v);
    set(&mut v, t, json!({"src": format!("{at_limit}A")}));
    let m = refused(&v, path, Rule::R25);
    assert!(m.contains("found 262145"), "{m}");
    set(
        &mut v,
        t,
        json!({"src": "https://example.com/a.png", "mimeType": chars(101)}),
    );
    refused(&v, "questions[0].options[0].thumbnail.mimeType", Rule::R25);
    for ok in [
        "https://example.com/a.png",
        "data:image/jpeg;base64,/9j/4AAQ",
        "data:image/jpg;base64,/9j/",
        "data:image/gif;base64,R0lGOD==",
        "data:image/avif;base64,AAAA",
    ] {
        set(&mut v, t, json!({"src": ok}));
        accepted(&v);
    }
    for bad in [
        "http://example.com/a.png",
        "file:///home/me/a.png",
        "data:image/svg+xml;base64,PHN2Zz4=",
        "data:image/png,rawbytes",
        "data:image/png;base64,",
        "data:image/png;base64,AA===",
        "ftp://example.com/a.png",
        "/relative.png",
        "https:///nohost.png",
    ] {
        set(&mut v, t, json!({"src": bad}));
        refused(&v, path, Rule::R25);
    }
    remove(&mut v, t, "src");
    refused(&v, path, Rule::R25);
    set(&mut v, t, json!("https://example.com/a.png"));
    refused(&v, "questions[0].options[0].thumbnail", Rule::R25);
}

#[test]
fn r26_no_credentials_in_urls() {
    let mut v = form(vec![resource_q("resource", 1)]);
    let uri = "/questions/0/options/0/uri";
    let t = "/questions/0/options/0/thumbnail";
    let uri_path = "questions[0].options[0].uri";
    let src_path = "questions[0].options[0].thumbnail.src";
    set(
        &mut v,
        uri,
        json!("https://example.com/doc?id=7&page=2#section"),
    );
    accepted(&v);
    for bad in [
        "https://user:pass@example.com/doc",
        "https://user@example.com/doc",
        "https://example.com/doc?token=abc",
        "https://example.com/doc?Access_Token=abc",
        "https://example.com/doc?a=1&%74oken=abc",
        "https://example.com/doc#access_token=abc",
        "https://example.com/doc?X-Amz-Signature=abc",
        "https://example.com/doc?api_key",
        // The image exception never applies to a resource's identity URI.
        "https://sdmntprwestus.oaiusercontent.com/doc?sig=abc",
    ] {
        set(&mut v, uri, json!(bad));
        refused(&v, uri_path, Rule::R26);
    }
    set(&mut v, uri, json!("https://example.com/doc"));
    // Images: `sig` is allowed on sdmntpr*.oaiusercontent.com only, and nothing else is.
    for ok in [
        "https://sdmntprwestus.oaiusercontent.com/files/a.png?se=2026&sig=abc%3D",
        "https://SDMNTPR.oaiusercontent.com/a.png?SIG=abc",
        "https://sdmntpr2eastus9.OAIUSERCONTENT.com/a.png?sig=x",
    ] {
        set(&mut v, t, json!({"src": ok}));
        accepted(&v);
    }
    for bad in [
        "https://sdmntprwestus.oaiusercontent.com/a.png?sig=abc&token=x",
        "https://sdmntprwestus.oaiusercontent.com/a.png?sig=abc#access_token=x",
        "https://sdmntpr-x.oaiusercontent.com/a.png?sig=abc",
        "https://files.oaiusercontent.com/a.png?sig=abc",
        "https://sdmntprwestus.oaiusercontent.com.evil.com/a.png?sig=abc",
        "https://example.com/a.png?sig=abc",
        "https://me:secret@example.com/a.png",
    ] {
        set(&mut v, t, json!({"src": bad}));
        refused(&v, src_path, Rule::R26);
    }
}

#[test]
fn r27_user_added_file_uris() {
    for (ok, path) in [
        ("file:///home/me/data.csv", "/home/me/data.csv"),
        (
            "file://localhost/home/me/q3%20sales.csv",
            "/home/me/q3 sales.csv",
        ),
        ("FILE://LOCALHOST/C:/Users/me/a.csv", "/C:/Users/me/a.csv"),
    ] {
        assert_eq!(rules::check_file_uri(ok).unwrap().path, path);
    }
    for bad in [
        "file://server/share/x.csv",
        "file://user@localhost/x.csv",
        "file://localhost:8080/x.csv",
        "file:///x.csv?raw=1",
        "file:///x.csv#part",
        "file:relative/x.csv",
        "file:x.csv",
        "file://",
        "https://example.com/x.csv",
        "/home/me/x.csv",
        "file:///x%00y",
        "file:///a b.csv",
    ] {
        let v = rules::check_file_uri(bad).expect_err(bad);
        assert_eq!(v.rule, Rule::R27, "{bad}");
        assert!(v.to_string().ends_with("(R27)"), "{v}");
        assert!(!v.problem.is_empty());
    }
}

// ---------------------------------------------------------------------------------------------
// Errors reported together, and the normalized output.

#[test]
fn every_violation_is_reported_at_once() {
    let mut v = form(vec![text_q("goal"), choice_q("multi_select", 2)]);
    set(&mut v, "/message", json!(""));
    set(&mut v, "/questions/0/title", json!(5));
    set(&mut v, "/questions/0/default", json!("x"));
    set(&mut v, "/questions/1/options/1/id", json!("o0"));
    set(&mut v, "/questions/1/maxItems", json!(30));
    let m = refused(&v, "message", Rule::R1);
    for (path, rule) in [
        ("questions[0].title", "R8"),
        ("questions[0].default", "R21"),
        ("questions[1].options[1].id", "R5"),
        ("questions[1].maxItems", "R19"),
    ] {
        assert_eq!(rule_at(&m, path).as_deref(), Some(rule), "{path} in {m}");
    }
}

#[test]
fn normalized_output_has_canonical_key_order_and_round_trips() {
    let text = r#"{"questions":[
        {"required":true,"options":[
            {"thumbnail":{"mimeType":"image/png","src":"https://e.com/p.png"},"description":"Printable","title":" PDF ","id":"pdf"},
            {"title":"Web page","id":"html"}],
         "maxItems":2,"minItems":1,"title":"Formats","description":"Pick","type":"multi_select","id":"formats"},
        {"maxLength":1e3,"required":false,"title":"Goal","type":"text","id":"goal"},
        {"accept":[".csv"],"options":[
            {"thumbnail":{"src":"https://e.com/t.png"},"icons":[{"src":"https://e.com/i.png"}],"mimeType":"text/csv","description":"Q3","title":"Sheet · Q3","name":" q3 ","uri":"https://e.com/q3"}],
         "maxItems":3,"required":false,"title":"Upload","type":"files","id":"data"},
        {"required":false,"title":"More","type":"files","id":"more"}],
      "message":"Set up"}"#;
    let f = DataForm::from_json(text).unwrap();
    let expected = concat!(
        r#"{"message":"Set up","questions":["#,
        r#"{"id":"formats","type":"multi_select","title":"Formats","description":"Pick","required":true,"options":["#,
        r#"{"id":"pdf","title":"PDF","description":"Printable","thumbnail":{"src":"https://e.com/p.png","mimeType":"image/png"}},"#,
        r#"{"id":"html","title":"Web page"}],"minItems":1,"maxItems":2},"#,
        r#"{"id":"goal","type":"text","title":"Goal","required":false,"maxLength":1000},"#,
        r#"{"id":"data","type":"files","title":"Upload","required":false,"options":["#,
        r#"{"uri":"https://e.com/q3","name":"q3","title":"Sheet · Q3","description":"Q3","mimeType":"text/csv","icons":[{"src":"https://e.com/i.png"}],"thumbnail":{"src":"https://e.com/t.png"}}],"maxItems":3,"accept":[".csv"]},"#,
        r#"{"id":"more","type":"files","title":"More","required":false}]}"#,
    );
    assert_eq!(f.to_json(), expected);
    assert_eq!(serde_json::to_string(&f).unwrap(), expected);
    assert_eq!(serde_json::to_string(f.spec()).unwrap(), expected);
    let again = DataForm::from_json(&f.to_json()).unwrap();
    assert_eq!(again, f);
    assert_eq!(again.to_json(), expected);
    // Omitted optionals stay omitted: no maxLength or limits are filled in.
    let plain = accepted(&form(vec![text_q("goal"), choice_q("multi_select", 2)]));
    let out: Value = serde_json::from_str(&plain.to_json()).unwrap();
    assert!(out["questions"][0].get("maxLength").is_none());
    assert!(out["questions"][1].get("minItems").is_none());
    assert!(out["questions"][1].get("maxItems").is_none());
    assert_eq!(DataForm::from_json(&plain.to_json()).unwrap(), plain);
}

#[test]
fn built_forms_round_trip_through_json() {
    let f = accepted(&form(vec![resource_q("resources", 3), text_q("goal")]));
    let rebuilt = DataForm::new(f.spec().clone()).unwrap();
    assert_eq!(rebuilt, f);
    assert_eq!(DataForm::from_json(&rebuilt.to_json()).unwrap(), f);
    match &f.questions()[0].kind {
        QuestionSpec::Resources { options, .. } => assert_eq!(options.len(), 3),
        other => panic!("unexpected {other:?}"),
    }
}
