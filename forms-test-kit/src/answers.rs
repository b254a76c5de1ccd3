//! Host responses the answer rules refuse, shared by the tests of every answer path.

/// Responses to [`crate::forms::template_form`] that its answer rules refuse: an option it
/// does not offer, an empty or a null choice, an unknown key, an unknown action, and text
/// that is not JSON.
pub const REFUSED_TEMPLATE_ANSWERS: [&str; 6] = [
    r#"{"action":"accept","content":{"template":"https://example.com/other"}}"#,
    r#"{"action":"accept","content":{"template":""}}"#,
    r#"{"action":"accept","content":{"template":null}}"#,
    r#"{"action":"accept","content":{"unknown":"x"}}"#,
    r#"{"action":"maybe"}"#,
    "not json",
];
