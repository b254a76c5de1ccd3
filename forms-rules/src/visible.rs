//! Text from a form or a server made safe to print on a terminal, for `forms host`'s trace
//! and error lines and for the terminal filler of `forms fill` / `forms host --terminal`
//! (both read it as `forms_runtime::rules::visible`).

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether the terminal would obey `c` instead of showing it: a control character (C0, DEL,
/// C1) other than newline and tab, or a bidirectional embedding, override or isolate
/// (U+202A–U+202E, U+2066–U+2069), which reorders the text around it.
pub fn is_hidden(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` made safe to print on a terminal: each control character but newline and tab, and
/// each bidirectional embedding, override or isolate, is shown as its escape (`\u{1b}`,
/// `\u{9b}`, `\u{202e}`), so the terminal shows it instead of obeying it. Text from a form,
/// a server or a file name passes through this before it is printed.
///
/// ```text
/// visible("\u{1b}]52;c;aGk=\u{7}") == r"\u{1b}]52;c;aGk=\u{7}"
/// ```
pub fn visible(text: &str) -> Cow<'_, str> {
    escape_hidden(text, |out, c| write!(out, "\\u{{{c:x}}}"))
}

/// Compact JSON text made safe to print on a terminal, with the same value: the characters
/// [`visible`] escapes and `serde_json` leaves raw in strings (DEL, C1 controls, bidirectional
/// controls) are written as JSON escapes (`\u009b`). In valid JSON such characters can only
/// stand inside strings, where an escape means the same character.
pub fn visible_json(json: &str) -> Cow<'_, str> {
    escape_hidden(json, |out, c| write!(out, "\\u{c:04x}"))
}

/// `text` with each character [`is_hidden`] holds for written by `escape` (given its code
/// point); borrowed when there is none.
fn escape_hidden(
    text: &str,
    escape: impl Fn(&mut String, u32) -> std::fmt::Result,
) -> Cow<'_, str> {
    if !text.chars().any(is_hidden) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_hidden(c) {
            let _ = escape(&mut out, u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}
