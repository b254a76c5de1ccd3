//! How text that is not JSON at all is described, in the same words for Data arguments and
//! host responses.

/// `is not valid JSON: <why>`: the text is empty (or only JSON whitespace), starts with a byte order mark, holds a lone
/// UTF-16 surrogate escape, or the parser's own account with its line and column.
pub(crate) fn not_json(text: &str, e: &serde_json::Error) -> String {
    let why = if text.starts_with('\u{feff}') {
        "the text starts with a byte order mark (U+FEFF)".to_owned()
    } else if text.trim_matches([' ', '\t', '\n', '\r']).is_empty() {
        "the text is empty".to_owned()
    } else {
        forms_rules::describe_json_error(&e.to_string()).into_owned()
    };
    format!("is not valid JSON: {why}")
}
