//! Rules V1–V8: checking host responses against a form.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

use forms_runtime::data::{ChoiceOption, FormSpec, Question, QuestionSpec, ResourceOption};
use forms_runtime::{Answers, DataForm, ErrorCode, FileRefView, FormError, Outcome};

// ---------------------------------------------------------------------------------------------
// Building forms.

fn question(id: &str, required: bool, kind: QuestionSpec) -> Question {
    Question {
        id: id.into(),
        title: format!("Question {id}"),
        description: None,
        required,
        kind,
    }
}

fn text(id: &str, required: bool, max_length: Option<u32>) -> Question {
    question(id, required, QuestionSpec::Text { max_length })
}

fn choices(ids: &[&str]) -> Vec<ChoiceOption> {
    ids.iter()
        .map(|id| ChoiceOption {
            id: (*id).into(),
            title: format!("Option {id}"),
            description: None,
            thumbnail: None,
        })
        .collect()
}

fn resources_of(uris: &[&str]) -> Vec<ResourceOption> {
    uris.iter()
        .enumerate()
        .map(|(i, uri)| ResourceOption::new(*uri, format!("r{i}"), format!("Resource {i}")))
        .collect()
}

fn single(id: &str, required: bool, ids: &[&str]) -> Question {
    question(
        id,
        required,
        QuestionSpec::SingleSelect {
            options: choices(ids),
        },
    )
}

fn multi(id: &str, required: bool, ids: &[&str], min: Option<u32>, max: Option<u32>) -> Question {
    question(
        id,
        required,
        QuestionSpec::MultiSelect {
            options: choices(ids),
            min_items: min,
            max_items: max,
        },
    )
}

fn resource(id: &str, required: bool, uris: &[&str]) -> Question {
    question(
        id,
        required,
        QuestionSpec::Resource {
            options: resources_of(uris),
        },
    )
}

fn resources(
    id: &str,
    required: bool,
    uris: &[&str],
    min: Option<u32>,
    max: Option<u32>,
) -> Question {
    question(
        id,
        required,
        QuestionSpec::Resources {
            options: resources_of(uris),
            min_items: min,
            max_items: max,
        },
    )
}

fn files(id: &str, required: bool, uris: &[&str], min: Option<u32>, max: Option<u32>) -> Question {
    question(
        id,
        required,
        QuestionSpec::Files {
            options: resources_of(uris),
            min_items: min,
            max_items: max,
            accept: None,
        },
    )
}

fn form(questions: Vec<Question>) -> DataForm {
    DataForm::new(FormSpec {
        message: "Answer these".into(),
        questions,
    })
    .unwrap()
}

// ---------------------------------------------------------------------------------------------
// Checking, over text and over a parsed value.

/// Checks `text` with `check_response`, and, when it parses, with `check_response_value` too;
/// both must give the same outcome and the same message.
fn check<'f>(form: &'f DataForm, text: &str) -> Result<Outcome<Answers<'f>>, FormError> {
    let streamed = form.check_response(text);
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(text) {
        let parsed = form.check_response_value(&value);
        assert_eq!(streamed, parsed, "text and value checks disagree on {text}");
    }
    if let Err(e) = &streamed {
        assert_eq!(e.code(), ErrorCode::InvalidResponse, "{text}");
    }
    streamed
}

fn accepted<'f>(form: &'f DataForm, text: &str) -> Outcome<Answers<'f>> {
    match check(form, text) {
        Ok(r) => r,
        Err(e) => panic!("refused {text}: {}", e.message()),
    }
}

/// Asserts `text` is refused with `invalid_response` and a message that contains `needle`.
fn refused(form: &DataForm, text: &str, needle: &str) -> String {
    match check(form, text) {
        Ok(r) => panic!("accepted {text}: {r:?}"),
        Err(e) => {
            assert!(
                e.message().contains(needle),
                "message for {text} is {:?}, wanted {needle:?}",
                e.message()
            );
            e.message().to_owned()
        }
    }
}

fn accept_with(content: &str) -> String {
    format!(r#"{{"action":"accept","content":{content}}}"#)
}

fn payload(r: &Outcome<Answers<'_>>) -> String {
    serde_json::to_string(r).unwrap()
}

// ---------------------------------------------------------------------------------------------
// V1: the response's shape.

#[test]
fn v1_accept_decline_cancel_and_meta() {
    let f = form(vec![text("goal", false, None)]);
    for (text, action) in [
        (r#"{"action":"accept","content":{}}"#, "accept"),
        (r#"{"action":"accept"}"#, "accept"),
        (r#"{"content":{},"action":"accept"}"#, "accept"),
        (r#"{"action":"decline"}"#, "decline"),
        (r#"{"action":"cancel"}"#, "cancel"),
        (
            r#"{"action":"decline","_meta":{"x":[1,{"y":null}]}}"#,
            "decline",
        ),
        (
            r#"{"_meta":{},"action":"accept","content":{"goal":"x"}}"#,
            "accept",
        ),
        (" \n{ \"action\" : \"cancel\" }\t", "cancel"),
    ] {
        assert_eq!(accepted(&f, text).action(), action, "{text}");
    }
    // Accept without content is empty content.
    let r = accepted(&f, r#"{"action":"accept"}"#);
    assert_eq!(r.as_ref().accepted().unwrap().answered(), 0);
}

#[test]
fn v1_refuses_every_other_shape() {
    let f = form(vec![text("goal", false, None)]);
    for (text, needle) in [
        ("", "is not valid JSON"),
        ("accept", "is not valid JSON"),
        ("{", "is not valid JSON"),
        (r#"{"action":"accept"} x"#, "is not valid JSON"),
        (r#"{"action":"accept"}{}"#, "is not valid JSON"),
        (r#"{"action":"accept",}"#, "is not valid JSON"),
        ("null", "response: must be an object"),
        ("[]", "response: must be an object"),
        (r#""accept""#, "response: must be an object"),
        ("1", "response: must be an object"),
        ("{}", "`action` is missing"),
        (r#"{"content":{}}"#, "`action` is missing"),
        (
            r#"{"action":"Accept"}"#,
            r#"action: "Accept" is not one of"#,
        ),
        (r#"{"action":"ok"}"#, "is not one of"),
        (r#"{"action":""}"#, "is not one of"),
        (r#"{"action":null}"#, "action: must be"),
        (r#"{"action":["accept"]}"#, "action: must be"),
        (r#"{"action":"accept","extra":1}"#, r#"unknown key "extra""#),
        (
            r#"{"action":"accept","Content":{}}"#,
            r#"unknown key "Content""#,
        ),
        (
            r#"{"action":"accept","content":null}"#,
            "content: must be an object",
        ),
        (
            r#"{"action":"accept","content":[]}"#,
            "content: must be an object",
        ),
        (
            r#"{"action":"accept","content":"goal"}"#,
            "content: must be an object",
        ),
        (
            r#"{"action":"accept","content":7}"#,
            "content: must be an object",
        ),
        (
            r#"{"action":"decline","content":{}}"#,
            "carries no content; decline and cancel never yield answers (V1)",
        ),
        (
            r#"{"content":{},"action":"cancel"}"#,
            "carries no content; decline and cancel never yield answers (V1)",
        ),
        (
            r#"{"action":"accept","_meta":null}"#,
            "_meta: must be an object",
        ),
        (
            r#"{"action":"accept","_meta":[]}"#,
            "_meta: must be an object",
        ),
    ] {
        let m = refused(&f, text, needle);
        assert!(m.contains("(V1"), "{m}");
    }
}

#[test]
fn v1_refuses_duplicate_keys() {
    let f = form(vec![text("goal", false, None)]);
    for text in [
        r#"{"action":"accept","action":"accept"}"#,
        r#"{"action":"decline","action":"accept","content":{}}"#,
        r#"{"action":"accept","content":{},"content":{}}"#,
        r#"{"action":"accept","_meta":{},"_meta":{}}"#,
    ] {
        // A parsed value cannot hold duplicate keys, so only the text path sees them.
        let e = f.check_response(text).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidResponse);
        assert!(
            e.message().contains("more than once (V1)"),
            "{}",
            e.message()
        );
    }
}

// ---------------------------------------------------------------------------------------------
// V2: content keys and required questions.

#[test]
fn v2_keys_are_question_ids_and_required_questions_are_answered() {
    let f = form(vec![
        text("goal", false, None),
        single("format", true, &["pdf", "html"]),
    ]);
    let r = accepted(&f, &accept_with(r#"{"format":"pdf"}"#));
    assert_eq!(r.as_ref().accepted().unwrap().choice("format"), Some("pdf"));
    assert_eq!(r.as_ref().accepted().unwrap().text("goal"), None);

    let m = refused(
        &f,
        &accept_with(r#"{"format":"pdf","colour":"red"}"#),
        r#"content: "colour" is not a question id"#,
    );
    assert!(m.ends_with("(V2)"), "{m}");
    // Ids are exact: no case folding.
    refused(
        &f,
        &accept_with(r#"{"Format":"pdf"}"#),
        "is not a question id of the form (V2)",
    );
    refused(
        &f,
        &accept_with(r#"{"goal":"x"}"#),
        "content.format: is required and was not answered (V2)",
    );
    refused(
        &f,
        r#"{"action":"accept"}"#,
        "content.format: is required and was not answered (V2)",
    );
    refused(
        &f,
        &accept_with("{}"),
        "content.format: is required and was not answered (V2)",
    );
}

#[test]
fn v2_refuses_duplicate_content_keys() {
    let f = form(vec![
        text("goal", false, None),
        single("format", true, &["pdf", "html"]),
    ]);
    let e = f
        .check_response(&accept_with(r#"{"format":"pdf","format":"html"}"#))
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidResponse);
    assert_eq!(e.message(), "content.format: is given more than once (V2)");
    // One of each is fine.
    assert!(f
        .check_response(&accept_with(r#"{"format":"pdf","goal":"x"}"#))
        .is_ok());
}

// ---------------------------------------------------------------------------------------------
// V3: text.

#[test]
fn v3_text_max_length_counts_unicode_scalar_values() {
    let f = form(vec![text("goal", false, Some(5))]);
    // Five scalar values, ten UTF-16 code units, twenty bytes: at the limit.
    let r = accepted(&f, &accept_with(r#"{"goal":"😀😀😀😀😀"}"#));
    assert_eq!(
        r.as_ref().accepted().unwrap().text("goal"),
        Some("😀😀😀😀😀")
    );
    accepted(&f, &accept_with(r#"{"goal":"héllo"}"#));
    // Escapes count as the characters they stand for.
    let r = accepted(&f, &accept_with(r#"{"goal":"caf\u00e9\n"}"#));
    assert_eq!(r.as_ref().accepted().unwrap().text("goal"), Some("café\n"));
    accepted(&f, &accept_with(r#"{"goal":"\ud83d\ude00abcd"}"#));
    // One over.
    refused(
        &f,
        &accept_with(r#"{"goal":"😀😀😀😀😀😀"}"#),
        "content.goal: must be at most 5 characters, found 6 (V3)",
    );
    refused(
        &f,
        &accept_with(r#"{"goal":"héllo!"}"#),
        "content.goal: must be at most 5 characters, found 6 (V3)",
    );
    // A combining accent is a scalar value of its own.
    refused(
        &f,
        &accept_with("{\"goal\":\"he\u{301}llo\"}"),
        "found 6 (V3)",
    );
}

#[test]
fn v3_text_default_max_length_is_4000() {
    let f = form(vec![text("goal", true, None)]);
    let at = "é".repeat(4000);
    accepted(&f, &accept_with(&format!(r#"{{"goal":"{at}"}}"#)));
    let over = "é".repeat(4001);
    refused(
        &f,
        &accept_with(&format!(r#"{{"goal":"{over}"}}"#)),
        "content.goal: must be at most 4000 characters, found 4001 (V3)",
    );
}

#[test]
fn v3_required_text_needs_a_non_whitespace_character() {
    let f = form(vec![text("goal", true, None)]);
    for blank in ["", " ", "\\t\\n ", "\u{3000}"] {
        refused(
            &f,
            &accept_with(&format!(r#"{{"goal":"{blank}"}}"#)),
            "content.goal: is required and must contain a non-whitespace character (V3)",
        );
    }
    let r = accepted(&f, &accept_with(r#"{"goal":" a "}"#));
    assert_eq!(r.as_ref().accepted().unwrap().text("goal"), Some(" a "));
}

#[test]
fn v3_text_must_be_a_string() {
    let f = form(vec![text("goal", false, None)]);
    for (value, found) in [
        ("null", "null"),
        ("true", "a boolean"),
        ("12", "a number"),
        ("-1.5", "a number"),
        (r#"["x"]"#, "an array"),
        (r#"{"x":"y"}"#, "an object"),
    ] {
        refused(
            &f,
            &accept_with(&format!(r#"{{"goal":{value}}}"#)),
            &format!("content.goal: must be a string, found {found} (V3)"),
        );
    }
}

// ---------------------------------------------------------------------------------------------
// V4: single_select and multi_select.

#[test]
fn v4_single_select_takes_one_exact_option_id() {
    let f = form(vec![single("format", false, &["pdf", "html"])]);
    let r = accepted(&f, &accept_with(r#"{"format":"html"}"#));
    assert_eq!(
        r.as_ref().accepted().unwrap().choice("format"),
        Some("html")
    );

    let m = refused(&f, &accept_with(r#"{"format":"pdfx"}"#), "");
    assert_eq!(
        m,
        r#"content.format: "pdfx" is not an offered option id (V4)"#
    );
    for bad in [r#""PDF""#, r#""pdf ""#, r#""""#, r#""Option pdf""#] {
        refused(
            &f,
            &accept_with(&format!(r#"{{"format":{bad}}}"#)),
            "is not an offered option id (V4)",
        );
    }
    for (bad, found) in [
        (r#"["pdf"]"#, "an array"),
        ("null", "null"),
        ("0", "a number"),
        (r#"{"id":"pdf"}"#, "an object"),
    ] {
        refused(
            &f,
            &accept_with(&format!(r#"{{"format":{bad}}}"#)),
            &format!("content.format: must be one option id (a string), found {found} (V4)"),
        );
    }
}

#[test]
fn v4_multi_select_limits_at_the_edges() {
    let f = form(vec![multi(
        "sections",
        true,
        &["a", "b", "c", "d"],
        Some(2),
        Some(3),
    )]);
    refused(
        &f,
        &accept_with(r#"{"sections":["a"]}"#),
        "content.sections: must have at least 2 items, found 1 (V4)",
    );
    let r = accepted(&f, &accept_with(r#"{"sections":["c","a"]}"#));
    assert_eq!(
        r.as_ref().accepted().unwrap().choices("sections"),
        Some(vec!["c", "a"])
    );
    accepted(&f, &accept_with(r#"{"sections":["a","b","d"]}"#));
    refused(
        &f,
        &accept_with(r#"{"sections":["a","b","c","d"]}"#),
        "content.sections: must have at most 3 items, found 4 (V4)",
    );
    refused(
        &f,
        &accept_with(r#"{"sections":[]}"#),
        "must have at least 2 items, found 0 (V4)",
    );
    // Items past the limit are counted, whatever they are.
    refused(
        &f,
        &accept_with(r#"{"sections":["a","b","c","d",1,null,[[]]]}"#),
        "content.sections: must have at most 3 items, found 7 (V4)",
    );
    // Text that is not JSON is reported as such, even past the limit.
    refused(
        &f,
        &accept_with(r#"{"sections":["a","b","c","d",}"#),
        "response: is not valid JSON",
    );
}

#[test]
fn v4_multi_select_default_limits() {
    // Required: minItems defaults to 1, maxItems to the option count.
    let f = form(vec![multi("sections", true, &["a", "b", "c"], None, None)]);
    refused(
        &f,
        &accept_with(r#"{"sections":[]}"#),
        "must have at least 1 item, found 0 (V4)",
    );
    accepted(&f, &accept_with(r#"{"sections":["b"]}"#));
    accepted(&f, &accept_with(r#"{"sections":["a","b","c"]}"#));
}

#[test]
fn v4_multi_select_items_are_distinct_exact_ids() {
    let f = form(vec![multi("sections", false, &["a", "b", "c"], None, None)]);
    refused(
        &f,
        &accept_with(r#"{"sections":["a","b","a"]}"#),
        r#"content.sections[2]: "a" is given more than once; items must be distinct (V4)"#,
    );
    refused(
        &f,
        &accept_with(r#"{"sections":["a","B"]}"#),
        r#"content.sections[1]: "B" is not an offered option id (V4)"#,
    );
    refused(
        &f,
        &accept_with(r#"{"sections":["a",null]}"#),
        "content.sections[1]: must be an option id (a string), found null (V4)",
    );
    refused(
        &f,
        &accept_with(r#"{"sections":[["a"]]}"#),
        "content.sections[0]: must be an option id (a string), found an array (V4)",
    );
    for (bad, found) in [
        (r#""a""#, "a string"),
        ("null", "null"),
        ("{}", "an object"),
    ] {
        refused(
            &f,
            &accept_with(&format!(r#"{{"sections":{bad}}}"#)),
            &format!("content.sections: must be an array of option ids, found {found} (V4)"),
        );
    }
}

// ---------------------------------------------------------------------------------------------
// V5: resource.

const R1: &str = "https://example.com/verified-business-review";
const R2: &str = "https://example.com/weekly-update";
const R3: &str = "https://example.com/growth";

#[test]
fn v5_resource_takes_one_exact_offered_uri() {
    let f = form(vec![resource("template", false, &[R1, R2])]);
    let r = accepted(&f, &accept_with(&format!(r#"{{"template":"{R2}"}}"#)));
    assert_eq!(
        r.as_ref().accepted().unwrap().resource("template"),
        Some(R2)
    );
    // Skipping leaves the key out.
    let r = accepted(&f, &accept_with("{}"));
    assert_eq!(r.as_ref().accepted().unwrap().resource("template"), None);

    refused(
        &f,
        &accept_with(r#"{"template":""}"#),
        r#"content.template: "" is not an offered URI (V5)"#,
    );
    refused(
        &f,
        &accept_with(r#"{"template":"https://example.com/verified-business-review/"}"#),
        "is not an offered URI (V5)",
    );
    refused(
        &f,
        &accept_with(r#"{"template":"HTTPS://example.com/verified-business-review"}"#),
        "is not an offered URI (V5)",
    );
    for (bad, found) in [
        ("null", "null"),
        ("[]", "an array"),
        (&format!(r#"["{R1}"]"#), "an array"),
    ] {
        refused(
            &f,
            &accept_with(&format!(r#"{{"template":{bad}}}"#)),
            &format!(
                "content.template: must be one offered URI (a string); to skip the question, \
                 leave its key out, found {found} (V5)"
            ),
        );
    }
}

// ---------------------------------------------------------------------------------------------
// V6: resources and files.

#[test]
fn v6_resources_distinct_offered_uris_within_limits() {
    let f = form(vec![resources("docs", true, &[R1, R2, R3], None, Some(2))]);
    let r = accepted(&f, &accept_with(&format!(r#"{{"docs":["{R3}","{R1}"]}}"#)));
    assert_eq!(
        r.as_ref().accepted().unwrap().resources("docs"),
        Some(vec![R3, R1])
    );
    accepted(&f, &accept_with(&format!(r#"{{"docs":["{R2}"]}}"#)));
    refused(
        &f,
        &accept_with(&format!(r#"{{"docs":["{R1}","{R2}","{R3}"]}}"#)),
        "content.docs: must have at most 2 items, found 3 (V6)",
    );
    refused(
        &f,
        &accept_with(r#"{"docs":[]}"#),
        "content.docs: must have at least 1 item, found 0 (V6)",
    );
    refused(
        &f,
        &accept_with(&format!(r#"{{"docs":["{R1}","{R1}"]}}"#)),
        "content.docs[1]: \"https://example.com/verified-business-r\"… is given more than once",
    );
    refused(
        &f,
        &accept_with(r#"{"docs":["file:///home/me/a.csv"]}"#),
        r#"content.docs[0]: "file:///home/me/a.csv" is not an offered URI (V6)"#,
    );
    refused(
        &f,
        &accept_with(&format!(r#"{{"docs":"{R1}"}}"#)),
        "content.docs: must be an array of offered URIs, found a string (V6)",
    );
}

#[test]
fn v6_files_offered_or_user_added_file_uris() {
    let offered = "file:///srv/shared/offered.csv";
    let f = form(vec![files("data", false, &[R1, offered], None, Some(3))]);
    let r = accepted(
        &f,
        &accept_with(&format!(
            r#"{{"data":["{R1}","file:///home/me/q3%20sales.csv","{offered}"]}}"#
        )),
    );
    let answers = r.as_ref().accepted().unwrap();
    assert_eq!(
        answers.files("data").unwrap(),
        vec![
            FileRefView::Offered { uri: R1 },
            FileRefView::Local {
                uri: "file:///home/me/q3%20sales.csv",
                path: "/home/me/q3 sales.csv"
            },
            // An offered URI is matched first, even when it is a file: URI.
            FileRefView::Offered { uri: offered },
        ]
    );
    accepted(
        &f,
        &accept_with(r#"{"data":["file://localhost/tmp/x.csv"]}"#),
    );
    refused(
        &f,
        &accept_with(r#"{"data":["file:///a","file:///b","file:///c","file:///d"]}"#),
        "content.data: must have at most 3 items, found 4 (V6)",
    );
    refused(
        &f,
        &accept_with(r#"{"data":["file:///a","file:///a"]}"#),
        r#"content.data[1]: "file:///a" is given more than once; items must be distinct (V6)"#,
    );
    // The same local file under another spelling of its URI is a repeat too.
    refused(
        &f,
        &accept_with(r#"{"data":["file:///a","file://localhost/a"]}"#),
        r#"content.data[1]: "file://localhost/a" is given more than once; items must be distinct (V6)"#,
    );
    refused(
        &f,
        &accept_with(r#"{"data":["file:///ab","file:///a%62"]}"#),
        r#"content.data[1]: "file:///a%62" is given more than once"#,
    );
    accepted(&f, &accept_with(r#"{"data":["file:///a","file:///A"]}"#));
    refused(
        &f,
        &accept_with(&format!(r#"{{"data":["{R1}","{R1}"]}}"#)),
        "is given more than once",
    );
    for bad in [
        "https://example.com/other",
        "file://server/share/x.csv",
        "file:///home/me/x.csv?raw=1",
        "file:///home/me/x.csv#top",
        "file://user@localhost/x.csv",
        "file:relative/x.csv",
        "/home/me/x.csv",
        "",
    ] {
        refused(
            &f,
            &accept_with(&format!(r#"{{"data":["{bad}"]}}"#)),
            "is not an offered URI, and as a user-added file it",
        );
    }
    let m = refused(
        &f,
        &accept_with(r#"{"data":["file://server/x"]}"#),
        "see R27 (V6)",
    );
    assert!(m.starts_with("content.data[0]: "), "{m}");
}

#[test]
fn v6_files_limits_with_defaults() {
    // Required files with no offered options: minItems 1, maxItems 24.
    let f = form(vec![files("data", true, &[], None, None)]);
    refused(
        &f,
        &accept_with(r#"{"data":[]}"#),
        "must have at least 1 item, found 0 (V6)",
    );
    let at: Vec<String> = (0..24).map(|i| format!("\"file:///f{i}\"")).collect();
    accepted(
        &f,
        &accept_with(&format!(r#"{{"data":[{}]}}"#, at.join(","))),
    );
    let over: Vec<String> = (0..25).map(|i| format!("\"file:///f{i}\"")).collect();
    refused(
        &f,
        &accept_with(&format!(r#"{{"data":[{}]}}"#, over.join(","))),
        "content.data: must have at most 24 items, found 25 (V6)",
    );
}

// ---------------------------------------------------------------------------------------------
// V7: optional text and arrays may be empty or omitted.

#[test]
fn v7_optional_answers_may_be_empty_or_omitted() {
    let f = form(vec![
        text("goal", false, None),
        multi("sections", false, &["a", "b", "c"], Some(2), None),
        resources("docs", false, &[R1], None, None),
        files("data", false, &[], None, None),
    ]);
    let r = accepted(
        &f,
        &accept_with(r#"{"goal":"","sections":[],"docs":[],"data":[]}"#),
    );
    let answers = r.as_ref().accepted().unwrap();
    assert_eq!(answers.text("goal"), Some(""));
    assert_eq!(answers.choices("sections"), Some(vec![]));
    assert_eq!(answers.resources("docs"), Some(vec![]));
    assert_eq!(answers.files("data"), Some(vec![]));
    // Kept as given in the payload.
    assert_eq!(
        payload(&r),
        r#"{"action":"accept","content":{"goal":"","sections":[],"docs":[],"data":[]}}"#
    );
    let r = accepted(&f, &accept_with("{}"));
    assert_eq!(payload(&r), r#"{"action":"accept","content":{}}"#);
    // Not empty: the bounds apply.
    refused(
        &f,
        &accept_with(r#"{"sections":["a"]}"#),
        "content.sections: must have at least 2 items, found 1 (V4)",
    );
    accepted(&f, &accept_with(r#"{"sections":["a","c"]}"#));
    // A required array is never empty.
    let g = form(vec![multi("sections", true, &["a", "b"], None, None)]);
    refused(&g, &accept_with(r#"{"sections":[]}"#), "at least 1 item");
    refused(
        &g,
        &accept_with("{}"),
        "is required and was not answered (V2)",
    );
    // Whitespace-only optional text is kept.
    let r = accepted(&f, &accept_with(r#"{"goal":"  "}"#));
    assert_eq!(r.as_ref().accepted().unwrap().text("goal"), Some("  "));
}

// ---------------------------------------------------------------------------------------------
// V8: decline and cancel never yield answers.

#[test]
fn v8_decline_and_cancel_yield_no_answers() {
    let f = form(vec![single("format", true, &["pdf", "html"])]);
    for (text, want) in [
        (r#"{"action":"decline"}"#, Outcome::Declined),
        (r#"{"action":"cancel"}"#, Outcome::Cancelled),
    ] {
        let r = accepted(&f, text);
        assert_eq!(r, want);
        assert!(r.as_ref().accepted().is_none());
        assert!(r.clone().accepted().is_none());
    }
    assert_eq!(payload(&Outcome::Declined), r#"{"action":"decline"}"#);
    assert_eq!(payload(&Outcome::Cancelled), r#"{"action":"cancel"}"#);
    // Content with a decline or cancel is refused, even when the content would be valid.
    refused(
        &f,
        r#"{"action":"decline","content":{"format":"pdf"}}"#,
        r#"content: a "decline" response carries no content; decline and cancel never yield answers (V1)"#,
    );
    refused(
        &f,
        r#"{"content":{"format":"pdf"},"action":"cancel"}"#,
        r#"content: a "cancel" response carries no content; decline and cancel never yield answers (V1)"#,
    );
    // Required questions do not apply to a decline.
    accepted(&f, r#"{"action":"decline","_meta":{"reason":"busy"}}"#);
}

// ---------------------------------------------------------------------------------------------
// The payload, errors and robustness.

fn report_form() -> DataForm {
    form(vec![
        text("zeta", false, None),
        single("format", true, &["pdf", "html"]),
        multi(
            "sections",
            false,
            &["summary", "charts", "appendix"],
            None,
            Some(2),
        ),
        resource("template", false, &[R1, R2]),
        resources("docs", false, &[R1, R2, R3], None, None),
        files("data", false, &[R3], None, None),
        text("alpha", false, Some(10)),
    ])
}

#[test]
fn payload_keys_follow_question_order() {
    let f = report_form();
    let text = format!(
        r#"{{"_meta":{{"k":1}},"content":{{"alpha":"a\"b","data":["file:///tmp/a%20b.csv","{R3}"],"docs":["{R2}","{R1}"],"template":"{R1}","sections":["charts","summary"],"format":"html","zeta":"héllo"}},"action":"accept"}}"#
    );
    let r = accepted(&f, &text);
    assert_eq!(
        payload(&r),
        format!(
            r#"{{"action":"accept","content":{{"zeta":"héllo","format":"html","sections":["charts","summary"],"template":"{R1}","docs":["{R2}","{R1}"],"data":["file:///tmp/a%20b.csv","{R3}"],"alpha":"a\"b"}}}}"#
        )
    );
    // `Answers` serializes as the payload's `content`.
    let answers = r.as_ref().accepted().unwrap();
    let content = format!(
        r#"{{"action":"accept","content":{}}}"#,
        serde_json::to_string(answers).unwrap()
    );
    assert_eq!(content, payload(&r));
    // Unanswered questions are omitted.
    let r = accepted(&f, &accept_with(r#"{"alpha":"x","format":"pdf"}"#));
    assert_eq!(
        payload(&r),
        r#"{"action":"accept","content":{"format":"pdf","alpha":"x"}}"#
    );
    let answers = r.accepted().unwrap();
    assert_eq!(answers.answered(), 2);
    assert!(answers.is_answered("format") && answers.is_answered("alpha"));
    assert!(!answers.is_answered("zeta") && !answers.is_answered("sections"));
}

#[test]
fn accessors_check_the_question_kind() {
    let f = report_form();
    let r = accepted(
        &f,
        &accept_with(&format!(
            r#"{{"format":"pdf","zeta":"z","template":"{R2}","data":["{R3}"]}}"#
        )),
    );
    let a = r.as_ref().accepted().unwrap();
    assert_eq!(a.form().questions().len(), 7);
    assert_eq!(a.text("zeta"), Some("z"));
    assert_eq!(a.text("format"), None);
    assert_eq!(a.choice("zeta"), None);
    assert_eq!(a.choices("format"), None);
    assert_eq!(a.resource("template"), Some(R2));
    assert_eq!(a.resources("template"), None);
    assert_eq!(a.files("data").unwrap()[0].uri(), R3);
    assert_eq!(a.text("missing"), None);
    assert!(a.is_answered("format"));
    assert_eq!(a.answered(), 4);
}

#[test]
fn errors_carry_no_partial_answers() {
    let f = report_form();
    let text = accept_with(r#"{"zeta":"secret plan","sections":["summary"],"format":"pdfx"}"#);
    let e = check(&f, &text).unwrap_err();
    assert_eq!(
        e.message(),
        r#"content.format: "pdfx" is not an offered option id (V4)"#
    );
    assert!(!e.message().contains("secret"));
    assert!(!e.message().contains("summary"));
    // The error payload is the error alone.
    assert_eq!(
        e.to_json(),
        r#"{"error":{"code":"invalid_response","message":"content.format: \"pdfx\" is not an offered option id (V4)"}}"#
    );
    // A too-long text is reported by its length, never repeated.
    let long = "s".repeat(11);
    let e = check(
        &f,
        &accept_with(&format!(r#"{{"format":"pdf","alpha":"{long}"}}"#)),
    )
    .unwrap_err();
    assert!(!e.message().contains(&long), "{}", e.message());
}

#[test]
fn long_values_are_shortened_in_messages() {
    let f = form(vec![single("format", false, &["pdf"])]);
    let long = "x".repeat(5000);
    let e = check(&f, &accept_with(&format!(r#"{{"format":"{long}"}}"#))).unwrap_err();
    assert!(e.message().len() < 300, "{}", e.message());
    assert!(e.message().contains("…"), "{}", e.message());
    assert!(e.message().ends_with("(V4)"), "{}", e.message());
}

#[test]
fn hostile_inputs_are_refused_without_panicking() {
    let f = report_form();
    let deep_array = "[".repeat(100_000);
    let deep_object = "{\"a\":".repeat(100_000);
    let cases = [
        deep_array.clone(),
        deep_object.clone(),
        format!("{deep_array}{}", "]".repeat(100_000)),
        format!(r#"{{"action":"accept","_meta":{deep_array}"#),
        format!(
            r#"{{"action":"accept","_meta":{{"x":{deep_array}{}}}}}"#,
            "]".repeat(100_000)
        ),
        format!(r#"{{"action":"accept","content":{{"zeta":{deep_array}"#),
        format!(r#"{{"action":"accept","content":{{"sections":{deep_array}"#),
        format!(r#"{{"action":"accept","content":{deep_object}"#),
        // Lone surrogates, escaped (a &str cannot hold a raw one).
        r#"{"action":"accept","content":{"zeta":"\ud800"}}"#.to_owned(),
        r#"{"action":"accept","content":{"zeta":"a\udc00b"}}"#.to_owned(),
        r#"{"action":"accept","content":{"\ud800":"x"}}"#.to_owned(),
        r#"{"action":"\udfff"}"#.to_owned(),
        // Bad escapes and control characters.
        r#"{"action":"accept","content":{"zeta":"\x"}}"#.to_owned(),
        "{\"action\":\"accept\",\"content\":{\"zeta\":\"a\u{1}b\"}}".to_owned(),
        "\u{feff}{\"action\":\"cancel\"}".to_owned(),
    ];
    for text in &cases {
        let e = check(&f, text).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidResponse);
        assert!(e.message().len() < 1000, "{}", e.message());
    }
    // 2 MiB of garbage: pseudo-random printable and multibyte characters.
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut garbage = String::new();
    while garbage.len() < 2 * 1024 * 1024 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let c = match state % 8 {
            0 => '{',
            1 => '"',
            2 => '[',
            3 => 'é',
            4 => '😀',
            _ => char::from(b' ' + (state >> 8) as u8 % 95),
        };
        garbage.push(c);
    }
    for text in [
        garbage.clone(),
        format!(r#"{{"action":"accept","content":{{"zeta":"{garbage}"#),
        format!(r#"{{"action":"accept","_meta":{garbage}"#),
    ] {
        let e = check(&f, &text).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidResponse);
        assert!(e.message().len() < 1000);
    }
}

#[test]
fn value_and_text_checks_agree() {
    let f = report_form();
    let inputs = [
        r#"{"action":"accept","content":{"format":"pdf"}}"#.to_owned(),
        r#"{"action":"accept","content":{"format":"html","zeta":""}}"#.to_owned(),
        r#"{"action":"decline"}"#.to_owned(),
        r#"{"action":"accept","content":{"format":"pdf","sections":["summary","charts","appendix"]}}"#.to_owned(),
        r#"{"action":"accept","content":{"format":"pdf","data":["file:///x","file:///x"]}}"#.to_owned(),
        r#"{"action":"accept","content":{"format":"pdf","data":[1]}}"#.to_owned(),
        r#"{"action":"accept","content":{"format":"pdf","template":null}}"#.to_owned(),
        r#"{"action":"accept","content":{"format":"pdf","nope":null}}"#.to_owned(),
        r#"{"action":"accept","content":{}}"#.to_owned(),
        r#"{"action":"maybe"}"#.to_owned(),
        r#"[1,2]"#.to_owned(),
        format!(r#"{{"action":"accept","content":{{"format":"pdf","docs":["{R1}","{R3}"],"template":"{R2}"}}}}"#),
    ];
    for text in &inputs {
        let value: serde_json::Value = serde_json::from_str(text).unwrap();
        let a = f.check_response(text);
        let b = f.check_response_value(&value);
        assert_eq!(a, b, "{text}");
    }
}

// ---------------------------------------------------------------------------------------------
// A refusal lists every problem.

/// The findings of a refusal as `path (rule)`.
fn findings_of(form: &DataForm, text: &str) -> (Vec<String>, usize) {
    let e = form.check_response(text).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidResponse);
    let list = e
        .findings()
        .iter()
        .map(|f| format!("{} ({})", f.path, f.rule.unwrap()))
        .collect();
    (list, e.more_findings())
}

#[test]
fn a_refusal_lists_every_problem_in_document_order() {
    let f = form(vec![
        text("goal", true, None),
        single("format", true, &["pdf", "html"]),
        multi("sections", false, &["a", "b", "c", "d"], None, Some(2)),
        text("notes", true, None),
    ]);
    let four = r#"{"action":"accept","content":{"goal":" ","format":"poster","sections":["a","b","c"],"colour":"red"}}"#;
    assert_eq!(
        findings_of(&f, four),
        (
            vec![
                "content.goal (V3)".to_owned(),
                "content.format (V4)".to_owned(),
                "content.sections (V4)".to_owned(),
                "content (V2)".to_owned(),
                "content.notes (V2)".to_owned(),
            ],
            0
        )
    );
    // The text and the value give the same findings.
    let value: serde_json::Value = serde_json::from_str(four).unwrap();
    let from_value = f.check_response_value(&value).unwrap_err();
    assert_eq!(from_value.findings().len(), 5);
    // Each bad item of an array answer, its count, the top-level keys.
    let items = r#"{"action":"accept","content":{"goal":"x","format":"pdf","notes":"n","sections":["z","a","a"]},"extra":1,"_meta":3}"#;
    assert_eq!(
        findings_of(&f, items).0,
        [
            "content.sections[0] (V4)",
            "content.sections (V4)",
            "response (V1)",
            "_meta (V1)",
        ]
    );
    // A decline with content cites one rule; a missing action is reported with the rest.
    let e = f
        .check_response(r#"{"action":"decline","content":{},"x":1}"#)
        .unwrap_err();
    assert_eq!(
        e.message(),
        r#"content: a "decline" response carries no content; decline and cancel never yield answers (V1); response: unknown key "x"; a response has only `action`, `content` and `_meta` (V1)"#
    );
    assert_eq!(
        findings_of(&f, r#"{"content":{"goal":7}}"#).0,
        ["content.goal (V3)", "response (V1)"]
    );
    // Text that stops being JSON after the first problem: that problem and the syntax error.
    let (list, more) = findings_of(&f, r#"{"action":"accept","content":{"goal":5,"#);
    assert_eq!(
        (list, more),
        (
            vec!["content.goal (V3)".to_owned(), "response (V1)".to_owned()],
            0
        )
    );
}

#[test]
fn a_refusal_lists_at_most_findings_max_and_counts_the_rest() {
    use forms_runtime::error::FINDINGS_MAX;
    let f = form(vec![text("goal", true, None)]);
    let keys: Vec<String> = (0..FINDINGS_MAX + 50)
        .map(|i| format!(r#""k{i}":1"#))
        .collect();
    let text = format!(r#"{{"action":"accept","content":{{{}}}}}"#, keys.join(","));
    let e = f.check_response(&text).unwrap_err();
    assert_eq!(e.findings().len(), FINDINGS_MAX);
    // 150 unknown keys and the unanswered required question.
    assert_eq!(e.more_findings(), 51);
    assert!(!e.more_findings_is_lower_bound());
    assert!(
        e.message().ends_with("; and 101 more problems"),
        "{}",
        e.message()
    );
}
