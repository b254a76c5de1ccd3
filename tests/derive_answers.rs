//! Every answer rule (V1–V8) applies through the typed path: `TypedForm::decode` refuses what
//! the runtime's answer checker refuses, with `invalid_response`, and returns no value.

use forms_runtime::{ErrorCode, FileRef, Outcome};
use url::Url;

// The derived form of the corpus case 110, shared with the typed fuzz cross-check: `Setup`,
// whose choice questions are of `Kind` (`pdf`, `html`, `slides`).
use forms_test_kit::derived::{answers_setup as form, Kind as Format, Setup};

mod common;
use common::corpus_form;

/// An accepted response: a valid base content with the members of `extra` added or replaced.
fn accept(extra: &str) -> String {
    let mut content = serde_json::json!({"goal": "Churn", "format": "pdf", "others": ["html"]});
    let extra: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&format!("{{{extra}}}")).unwrap();
    for (k, v) in extra {
        content[k] = v;
    }
    serde_json::json!({"action": "accept", "content": content}).to_string()
}

fn ok(response: &str) -> Setup {
    match form().decode(response) {
        Ok(Outcome::Accepted(s)) => s,
        other => panic!("expected acceptance of {response}, got {other:?}"),
    }
}

/// Asserts an `invalid_response` error that names `rule`.
fn refused(response: &str, rule: &str) {
    match form().decode(response) {
        Err(e) => {
            assert_eq!(e.code(), ErrorCode::InvalidResponse, "{e}");
            assert!(e.message().contains(rule), "{rule} not in {}", e.message());
        }
        Ok(o) => panic!("expected {rule} to refuse {response}, got {o:?}"),
    }
}

#[test]
fn the_form_matches_the_runtime() {
    let runtime =
        forms_runtime::DataForm::from_json(&corpus_form("110-derived-answers-setup")).unwrap();
    let form = form();
    assert_eq!(form.data(), &runtime);
    assert_eq!(form.data().native_json(), runtime.native_json());
}

#[test]
fn v1_response_shape() {
    assert_eq!(ok(&accept("")).goal, "Churn");
    assert_eq!(
        form().decode(r#"{"action":"decline"}"#).unwrap(),
        Outcome::Declined
    );
    assert_eq!(
        form().decode(r#"{"action":"cancel"}"#).unwrap(),
        Outcome::Cancelled
    );
    refused(r#"{"action":"maybe"}"#, "V1");
    refused(r#"{"content":{}}"#, "V1");
    refused(r#"["accept"]"#, "V1");
    refused("not json", "V1");
    refused(
        r#"{"action":"accept","content":{"goal":"x","format":"pdf","others":["html"]}} trailing"#,
        "V1",
    );
}

#[test]
fn v2_keys_are_question_ids_and_required_questions_are_answered() {
    refused(&accept(r#""unknown":"x""#), "V2");
    refused(
        r#"{"action":"accept","content":{"format":"pdf","others":["html"]}}"#,
        "V2",
    );
    refused(
        r#"{"action":"accept","content":{"goal":"a","others":["html"]}}"#,
        "V2",
    );
    refused(
        r#"{"action":"accept","content":{"goal":"a","format":"pdf"}}"#,
        "V2",
    );
    // Everything required present: accepted.
    let s = ok(r#"{"action":"accept","content":{"goal":"a","format":"pdf","others":["html"]}}"#);
    assert_eq!(s.format, Format::Pdf);
}

#[test]
fn v3_text_length_and_nonblank_required_text() {
    // max_length = 10: ten characters pass, eleven fail; counted in characters, not bytes.
    assert_eq!(
        ok(&accept(r#""goal":"éééééééééé""#)).goal.chars().count(),
        10
    );
    refused(&accept(r#""goal":"ééééééééééé""#), "V3");
    refused(&accept(r#""goal":"   ""#), "V3");
    refused(&accept(r#""goal":7"#), "V3");
    // Optional text has the default limit of 4,000.
    let long = "x".repeat(4000);
    assert_eq!(
        ok(&accept(&format!(r#""notes":"{long}""#)))
            .notes
            .unwrap()
            .len(),
        4000
    );
    refused(&accept(&format!(r#""notes":"{long}x""#)), "V3");
}

#[test]
fn v4_choices_are_exact_distinct_option_ids_within_the_limits() {
    assert_eq!(ok(&accept(r#""format":"slides""#)).format, Format::Slides);
    refused(&accept(r#""format":"PDF""#), "V4");
    refused(&accept(r#""format":["pdf"]"#), "V4");
    assert_eq!(
        ok(&accept(r#""others":["slides","pdf"]"#)).others,
        [Format::Slides, Format::Pdf]
    );
    refused(&accept(r#""others":["pdf","pdf"]"#), "V4");
    refused(&accept(r#""others":["pdf","html","slides"]"#), "V4");
    refused(&accept(r#""others":[]"#), "V4");
    refused(&accept(r#""others":["word"]"#), "V4");
}

#[test]
fn v5_one_exact_offered_uri_and_no_empty_values() {
    let s = ok(&accept(r#""template":"https://example.com/t2""#));
    assert_eq!(s.template.unwrap().as_str(), "https://example.com/t2");
    assert_eq!(ok(&accept("")).template, None);
    refused(&accept(r#""template":"https://example.com/t3""#), "V5");
    refused(&accept(r#""template":"https://example.com/T1""#), "V5");
    refused(&accept(r#""template":"""#), "V5");
    refused(&accept(r#""template":[]"#), "V5");
    refused(&accept(r#""template":null"#), "V5");
}

#[test]
fn v6_resources_and_files_are_distinct_offered_or_local_uris_within_the_limits() {
    let s = ok(&accept(
        r#""examples":["https://example.com/e3","https://example.com/e1"]"#,
    ));
    assert_eq!(
        s.examples.iter().map(Url::as_str).collect::<Vec<_>>(),
        ["https://example.com/e3", "https://example.com/e1"]
    );
    refused(
        &accept(r#""examples":["https://example.com/e1","https://example.com/e1"]"#),
        "V6",
    );
    refused(
        &accept(
            r#""examples":["https://example.com/e1","https://example.com/e2","https://example.com/e3"]"#,
        ),
        "V6",
    );
    refused(&accept(r#""examples":["https://example.com/x"]"#), "V6");

    let s = ok(&accept(
        r#""data":["https://example.com/d1","file:///srv/x.csv"]"#,
    ));
    assert_eq!(
        s.data,
        [
            FileRef::Offered(Url::parse("https://example.com/d1").unwrap()),
            FileRef::Local {
                uri: "file:///srv/x.csv".into(),
                path: "/srv/x.csv".into()
            }
        ]
    );
    refused(&accept(r#""data":["file:///a","file:///a"]"#), "V6");
    refused(
        &accept(r#""data":["file:///a","file:///b","file:///c"]"#),
        "V6",
    );
    refused(&accept(r#""data":["https://example.com/other"]"#), "V6");
    // A user-added file must satisfy R27.
    refused(&accept(r#""data":["file:///a?x=1"]"#), "R27");
    refused(&accept(r#""data":["file://server/share/a"]"#), "R27");
}

#[test]
fn v7_optional_text_and_arrays_may_be_empty_or_omitted() {
    let s = ok(&accept(r#""notes":"","examples":[],"data":[]"#));
    assert_eq!(s.notes.as_deref(), Some(""));
    assert!(s.examples.is_empty() && s.data.is_empty());
    let s = ok(&accept(""));
    assert_eq!(s.notes, None);
    assert!(s.examples.is_empty() && s.data.is_empty());
    // A required array is not optional: see v4 (`others: []` refused).
}

#[test]
fn v8_decline_and_cancel_never_yield_answers() {
    for action in ["decline", "cancel"] {
        let o = form()
            .decode(&format!(r#"{{"action":"{action}"}}"#))
            .unwrap();
        assert_eq!(o.action(), action);
        assert!(o.accepted().is_none());
        // Content alongside decline or cancel is not an answer either.
        let r = form().decode(&format!(
            r#"{{"action":"{action}","content":{{"goal":"x","format":"pdf","others":["html"]}}}}"#
        ));
        assert!(!matches!(r, Ok(Outcome::Accepted(_))), "{r:?}");
    }
}

/// The issue's answer with four problems (a blank required text, an option that does not
/// exist, too many items, an unknown key): every one is a finding, in document order, and the
/// three about a question name the Rust field that declared it.
#[test]
fn a_refused_answer_lists_every_problem_with_its_field() {
    let response = r#"{"action":"accept","content":{"goal":"  ","format":"poster","others":["pdf","html","slides"],"colour":"red"}}"#;
    let e = form().decode(response).unwrap_err();
    let found: Vec<(Option<&str>, String, String)> = e
        .findings()
        .iter()
        .map(|f| {
            (
                f.field.as_deref(),
                f.path.to_string(),
                f.rule.map(|r| r.to_string()).unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (Some("goal"), "content.goal".to_owned(), "V3".to_owned()),
            (Some("format"), "content.format".to_owned(), "V4".to_owned()),
            (Some("others"), "content.others".to_owned(), "V4".to_owned()),
            (None, "content".to_owned(), "V2".to_owned()),
        ],
        "{e}"
    );
    assert_eq!(e.more_findings(), 0);
    // The typed and the untyped checker give the same message.
    let untyped = form().data().check_response(response).unwrap_err();
    assert_eq!(untyped.message(), e.message());
    assert!(untyped.findings().iter().all(|f| f.field.is_none()));
}
