//! Regression tests of the security review of URI, file and whitespace rules (R8, R24–R27,
//! V3, V6), through the public API only: `DataForm::from_json`, `check_response` and the
//! error's `code` and `message`; and a differential test of the URI rules against the WHATWG
//! parser of the `url` crate.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use forms_runtime::DataForm;

/// A form of one question, given as the JSON of that question.
fn form_with(question: &str) -> String {
    format!(r#"{{"message":"Pick","questions":[{question}]}}"#)
}

/// The `invalid_arguments` message of a refused form; panics when the form is accepted.
fn refused_form(json: &str) -> String {
    let err = DataForm::from_json(json).expect_err(json);
    assert_eq!(err.code.as_str(), "invalid_arguments", "{}", err.message);
    err.message
}

/// The `invalid_response` message of a refused response.
fn refused_response(form: &DataForm, response: &str) -> String {
    let Err(err) = form.check_response(response) else {
        panic!("accepted: {response}");
    };
    assert_eq!(err.code.as_str(), "invalid_response", "{}", err.message);
    err.message
}

// ---------------------------------------------------------------------------------------------
// Whitespace (R8, V3) and lone surrogates

#[test]
fn r8_title_of_only_feff_is_refused() {
    let json = form_with(r#"{"id":"q","type":"text","title":"\ufeff","required":false}"#);
    let message = refused_form(&json);
    assert!(message.contains("questions[0].title"), "{message}");
    assert!(message.contains("(R8)"), "{message}");
}

#[test]
fn r8_title_of_only_0085_is_accepted() {
    let json = form_with(r#"{"id":"q","type":"text","title":"\u0085","required":false}"#);
    let form = DataForm::from_json(&json).unwrap();
    assert_eq!(form.questions()[0].title, "\u{85}");
}

#[test]
fn r8_title_of_80_characters_after_a_leading_feff_is_accepted_trimmed() {
    let eighty = "t".repeat(80);
    let json = form_with(&format!(
        r#"{{"id":"q","type":"text","title":"\ufeff{eighty}","required":false}}"#
    ));
    let form = DataForm::from_json(&json).unwrap();
    assert_eq!(form.questions()[0].title, eighty);
}

#[test]
fn v3_required_text_of_only_feff_is_refused() {
    let json = form_with(r#"{"id":"q","type":"text","title":"Q","required":true}"#);
    let form = DataForm::from_json(&json).unwrap();
    let message = refused_response(&form, r#"{"action":"accept","content":{"q":"\ufeff"}}"#);
    assert!(message.contains("content.q"), "{message}");
    assert!(message.contains("(V3)"), "{message}");
    assert!(form
        .check_response(r#"{"action":"accept","content":{"q":"\u0085"}}"#)
        .is_ok());
}

#[test]
fn r8_lone_surrogate_in_json_is_refused_as_such() {
    for title in [r"\ud800", r"\udc00", r"\ud800\u0041", r"x\ud800y"] {
        let json = form_with(&format!(
            r#"{{"id":"q","type":"text","title":"{title}","required":false}}"#
        ));
        let message = refused_form(&json);
        assert!(message.contains("lone surrogate"), "{title}: {message}");
    }
    let json = form_with(r#"{"id":"q","type":"text","title":"Q","required":false}"#);
    let form = DataForm::from_json(&json).unwrap();
    let message = refused_response(&form, r#"{"action":"accept","content":{"q":"\ud800"}}"#);
    assert!(message.contains("lone surrogate"), "{message}");
    assert!(message.contains("(V1)"), "{message}");
    // A proper pair is a character.
    let json = form_with(r#"{"id":"q","type":"text","title":"\ud83d\ude00","required":false}"#);
    assert_eq!(
        DataForm::from_json(&json).unwrap().questions()[0].title,
        "\u{1f600}"
    );
}
