//! `forms check --lint` through the real binary: each warning fires on the form that renders
//! badly and stays quiet on its fixed version; `forms check` without `--lint` is unchanged;
//! `forms preview` shows the same warnings in its side panel data.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

use forms_test_kit::process::output_with_stdin;
use serde_json::{json, Value};
use std::process::Command;

fn forms(args: &[&str], stdin: &str) -> (i32, String) {
    let out = output_with_stdin(
        Command::new(env!("CARGO_BIN_EXE_forms")).args(args),
        stdin.as_bytes(),
    );
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
    )
}

/// The warnings `forms check --lint` gives for `form`, as `(id, path)` pairs.
fn lint(form: &Value) -> Vec<(String, String)> {
    let (code, out) = forms(&["check", "--lint"], &form.to_string());
    assert_eq!(code, 0, "{out}");
    assert!(
        out.ends_with('\n') && !out.trim_end().contains('\n'),
        "{out}"
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    // The form is exactly what `forms check` prints.
    let (_, plain) = forms(&["check"], &form.to_string());
    assert_eq!(v["form"], serde_json::from_str::<Value>(&plain).unwrap());
    v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            for key in ["id", "path", "message", "fix"] {
                let s = w[key].as_str().unwrap();
                assert!(!s.is_empty() && !s.contains('\n'), "{key} of {w}");
            }
            (
                w["id"].as_str().unwrap().to_owned(),
                w["path"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn ids(form: &Value) -> Vec<String> {
    lint(form).into_iter().map(|(id, _)| id).collect()
}

fn one(question: Value) -> Value {
    json!({"message": "Set up the report", "questions": [
        {"id": "goal", "type": "text", "title": "Goal", "required": false}, question]})
}

fn choices(n: usize, described: bool) -> Vec<Value> {
    (0..n)
        .map(|i| {
            let mut o = json!({"id": format!("o{i}"), "title": format!("Option {i}")});
            if described {
                o["description"] = json!("What this option means");
            }
            o
        })
        .collect()
}

const PNG: &str = "https://example.com/p.png";

#[test]
fn partial_thumbnails_warns_when_only_some_options_have_one() {
    let mut opts = choices(3, true);
    opts[1]["thumbnail"] = json!({"src": PNG});
    let q = json!({"id": "cover", "type": "single_select", "title": "Cover", "required": false, "options": opts});
    assert_eq!(
        lint(&one(q.clone())),
        vec![("partial-thumbnails".to_owned(), "questions[1]".to_owned())]
    );
    let mut all = q.clone();
    for o in all["options"].as_array_mut().unwrap() {
        o["thumbnail"] = json!({"src": PNG});
    }
    assert!(ids(&one(all)).is_empty());
    let mut none = q;
    none["options"][1]
        .as_object_mut()
        .unwrap()
        .remove("thumbnail");
    assert!(ids(&one(none)).is_empty());
}

#[test]
fn title_truncates_warns_on_long_card_and_choice_titles() {
    let res = |title: &str| json!({"uri": "https://example.com/t", "name": "t", "title": title, "icons": [{"src": PNG}]});
    let long = "Spreadsheet · Quarterly revenue by region";
    let q = json!({"id": "t", "type": "resource", "title": "Templates", "required": false,
                   "options": [res("Presentation · Business review")]});
    assert!(ids(&one(q)).is_empty(), "the seed's own example title fits");
    let q = json!({"id": "t", "type": "resource", "title": "Templates", "required": false, "options": [res(long)]});
    assert_eq!(
        lint(&one(q)),
        vec![(
            "title-truncates".to_owned(),
            "questions[1].options[0]".to_owned()
        )]
    );
    // A plain choice card shows two lines: the same title fits there.
    let mut opts = choices(2, true);
    opts[0]["title"] = json!(long);
    let q = json!({"id": "c", "type": "single_select", "title": "Pick", "required": false, "options": opts});
    assert!(ids(&one(q.clone())).is_empty());
    let mut q = q;
    q["options"][0]["title"] = json!("x".repeat(120));
    assert_eq!(ids(&one(q)), vec!["title-truncates"]);
}

#[test]
fn resource_without_visual_warns_on_a_card_with_neither_icon_nor_thumbnail() {
    let q = json!({"id": "t", "type": "resources", "title": "Decks", "required": false, "options": [
        {"uri": "https://example.com/a", "name": "a", "title": "Deck A", "icons": [{"src": PNG}]},
        {"uri": "https://example.com/b", "name": "b", "title": "Deck B", "thumbnail": {"src": PNG}},
        {"uri": "https://example.com/c", "name": "c", "title": "Deck C"}]});
    assert_eq!(
        lint(&one(q)),
        vec![(
            "resource-without-visual".to_owned(),
            "questions[1].options[2]".to_owned()
        )]
    );
    let files = json!({"id": "f", "type": "files", "title": "Data", "required": false, "options": [
        {"uri": "https://example.com/f.csv", "name": "f", "title": "F"}]});
    assert_eq!(ids(&one(files)), vec!["resource-without-visual"]);
}

#[test]
fn single_text_message_differs_warns_when_the_header_repeats_nothing() {
    let form = |message: &str| {
        json!({"message": message, "questions": [
            {"id": "goal", "type": "text", "title": "What would you like to understand?", "required": false}]})
    };
    assert_eq!(
        lint(&form("Tell us about it")),
        vec![(
            "single-text-message-differs".to_owned(),
            "questions[0]".to_owned()
        )]
    );
    assert!(ids(&form("What would you like to understand?")).is_empty());
    // Two questions: a shared heading is right.
    assert!(ids(&one(
        json!({"id": "b", "type": "text", "title": "B", "required": false})
    ))
    .is_empty());
}

#[test]
fn many_options_without_descriptions_warns_above_eight() {
    let q = |opts: Vec<Value>| json!({"id": "m", "type": "multi_select", "title": "Pick", "required": false, "options": opts});
    assert!(ids(&one(q(choices(8, false)))).is_empty());
    assert_eq!(
        lint(&one(q(choices(9, false)))),
        vec![(
            "many-options-without-descriptions".to_owned(),
            "questions[1]".to_owned()
        )]
    );
    assert!(ids(&one(q(choices(12, true)))).is_empty());
}

#[test]
fn check_without_lint_is_unchanged_and_lint_refuses_what_check_refuses() {
    let form = json!({"message": "Hi", "questions": [
        {"id": "goal", "type": "text", "title": "Goal ", "required": false}]});
    // (arguments, input, exit code, output)
    let cases: [(&[&str], String, i32, &str); 2] = [
        (
            &["check"],
            form.to_string(),
            0,
            "{\"message\":\"Hi\",\"questions\":[{\"id\":\"goal\",\"type\":\"text\",\"title\":\"Goal\",\"required\":false}]}\n",
        ),
        (
            &["check", "--lint", "-"],
            r#"{"message":"Hi","questions":[]}"#.to_owned(),
            1,
            "{\"error\":{\"code\":\"invalid_arguments\",\"message\":\"questions: must have at least one question (R2)\"}}\n",
        ),
    ];
    for (args, input, code, out) in cases {
        assert_eq!(forms(args, &input), (code, out.to_owned()), "{args:?}");
    }
}

#[test]
fn preview_panel_carries_the_same_warnings_for_data_and_native_input() {
    let form = json!({"message": "Tell us", "questions": [
        {"id": "goal", "type": "text", "title": "Goal", "required": false}]});
    let (code, page) = forms(&["preview"], &form.to_string());
    assert_eq!(code, 0);
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(
        page.contains(r#""warnings":[{"id":"single-text-message-differs","path":"questions[0]""#)
    );
    let (_, native) = forms(&["native"], &form.to_string());
    let (code, page) = forms(&["preview", "-"], &native);
    assert_eq!(code, 0);
    assert!(page.contains(r#""source":"native""#));
    assert!(page.contains(r#""warnings":[{"id":"single-text-message-differs","path":"requestedSchema.properties.goal""#));
    let (code, out) = forms(&["preview"], r#"{"message":"Hi","questions":[]}"#);
    assert_eq!(code, 1);
    assert!(out.contains("(R2)"), "{out}");
    let (code, out) = forms(&["preview"], r#"{"hello":1}"#);
    assert_eq!(code, 1);
    assert!(out.contains("is neither a Data form"), "{out}");
}

#[test]
fn preview_of_a_native_request_warns_about_what_the_host_cannot_read_and_shows_the_rest() {
    let request = json!({"mode": "form", "message": "Settings", "requestedSchema": {
        "type": "object", "properties": {
            "when": {"type": "object", "title": "When"},
            "size": {"type": "string", "title": "Size",
                     "oneOf": [{"const": "s", "title": "Small"}, {"title": "No value"}]}}}});
    let (code, page) = forms(&["preview", "-"], &request.to_string());
    assert_eq!(code, 0, "{page}");
    let start = page.find("id=\"forms-data\">").unwrap() + "id=\"forms-data\">".len();
    let end = start + page[start..].find("</script>").unwrap();
    let data: Value = serde_json::from_str(&page[start..end]).unwrap();
    let warnings: Vec<(&str, &str, &str)> = data["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            (
                w["id"].as_str().unwrap(),
                w["path"].as_str().unwrap(),
                w["message"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        warnings,
        [
            (
                "unreadable-question",
                "requestedSchema.properties.when",
                "the host cannot show this field: a field of type `object`"
            ),
            (
                "unreadable-option",
                "requestedSchema.properties.size",
                "the host leaves out an option: oneOf[1] has no string `const`"
            )
        ]
    );
    // The page gets the view: both questions, in order, the unreadable one with its reason.
    let questions = data["view"]["questions"].as_array().unwrap();
    assert_eq!(questions[0]["kind"], "unreadable");
    assert_eq!(questions[0]["reason"], "a field of type `object`");
    assert_eq!(questions[1]["kind"], "single_select");
    assert_eq!(questions[1]["options"].as_array().unwrap().len(), 1);
}

#[test]
fn duplicate_option_title_warns_on_the_second_option_with_a_title() {
    let mut opts = choices(3, true);
    opts[2]["title"] = json!(" Option 0 ");
    let q = json!({"id": "m", "type": "single_select", "title": "Pick", "required": false, "options": opts});
    assert_eq!(
        lint(&one(q.clone())),
        vec![(
            "duplicate-option-title".to_owned(),
            "questions[1].options[2]".to_owned()
        )]
    );
    let mut fixed = q;
    fixed["options"][2]["title"] = json!("Option 2");
    assert!(ids(&one(fixed)).is_empty());
    // Resource cards too, by their visible title.
    let r = |uri: &str, title: &str| json!({"uri": uri, "name": "n", "title": title, "icons": [{"src": PNG}]});
    let res = json!({"id": "t", "type": "resource", "title": "Template", "required": false,
        "options": [r("https://example.com/a", "Review"), r("https://example.com/b", "Review")]});
    assert_eq!(
        lint(&one(res)),
        vec![(
            "duplicate-option-title".to_owned(),
            "questions[1].options[1]".to_owned()
        )]
    );
}
