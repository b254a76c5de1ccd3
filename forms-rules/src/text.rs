//! Whitespace as the contract's adapter sees it: JavaScript's `String.prototype.trim`.
//!
//! The adapter is JavaScript, so "trimmed" and "not blank" (R1, R8, R23, R24, V3) use the
//! ECMAScript whitespace set, which differs from Rust's [`str::trim`] on two characters:
//! U+FEFF ZERO WIDTH NO-BREAK SPACE is whitespace for JavaScript and not for Rust, and U+0085
//! NEXT LINE is whitespace for Rust and not for JavaScript.

/// Whether `c` is whitespace for JavaScript's `String.prototype.trim`: a WhiteSpace (TAB,
/// VT, FF, SP, U+00A0 NO-BREAK SPACE, U+FEFF ZERO WIDTH NO-BREAK SPACE, and every other
/// character of Unicode category Zs) or a LineTerminator (LF, CR, U+2028, U+2029).
///
/// ```
/// use forms_rules::is_js_whitespace;
/// assert!(is_js_whitespace('\u{feff}'));
/// assert!(!is_js_whitespace('\u{85}'));
/// assert!(is_js_whitespace('\u{3000}'));
/// ```
pub const fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        // WhiteSpace: TAB, VT, FF, SP, NBSP, ZWNBSP.
        '\u{9}' | '\u{b}' | '\u{c}' | ' ' | '\u{a0}' | '\u{feff}'
        // LineTerminator: LF, CR, LINE SEPARATOR, PARAGRAPH SEPARATOR.
        | '\n' | '\r' | '\u{2028}' | '\u{2029}'
        // The rest of Unicode category Zs (Space_Separator).
        | '\u{1680}' | '\u{2000}'..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}'
    )
}

/// `s` without leading and trailing JavaScript whitespace ([`is_js_whitespace`]): what
/// `s.trim()` gives in JavaScript.
///
/// ```
/// assert_eq!(forms_rules::js_trim("\u{feff} Title \u{3000}"), "Title");
/// assert_eq!(forms_rules::js_trim("\u{85}Title"), "\u{85}Title");
/// ```
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

/// `s` without leading JavaScript whitespace (`trimStart`).
pub fn js_trim_start(s: &str) -> &str {
    s.trim_start_matches(is_js_whitespace)
}

/// `s` without trailing JavaScript whitespace (`trimEnd`).
pub fn js_trim_end(s: &str) -> &str {
    s.trim_end_matches(is_js_whitespace)
}

/// Whether `s` is empty or only JavaScript whitespace: `s.trim() === ""` in JavaScript.
///
/// ```
/// assert!(forms_rules::is_js_blank("\u{feff}"));
/// assert!(!forms_rules::is_js_blank("\u{85}"));
/// ```
pub fn is_js_blank(s: &str) -> bool {
    s.chars().all(is_js_whitespace)
}

/// A JSON parser's syntax error message, reworded when it is about a lone UTF-16 surrogate
/// escape (`"\ud800"`): JSON text that names half of a surrogate pair is not Unicode text, and
/// is refused with a message that says so. serde_json reports these as "unexpected end of
/// hex escape" (a leading surrogate not followed by a `\u` escape) and "lone leading
/// surrogate in hex escape"; the position that follows is kept. Other messages are returned
/// unchanged.
///
/// ```
/// assert_eq!(
///     forms_rules::describe_json_error("unexpected end of hex escape at line 1 column 8"),
///     "a lone surrogate: a \\uD800–\\uDFFF escape without its pair is not a Unicode \
///      character at line 1 column 8"
/// );
/// assert_eq!(forms_rules::describe_json_error("EOF while parsing"), "EOF while parsing");
/// ```
pub fn describe_json_error(message: &str) -> std::borrow::Cow<'_, str> {
    const LONE: &str =
        "a lone surrogate: a \\uD800–\\uDFFF escape without its pair is not a Unicode character";
    for serde_json_says in [
        "unexpected end of hex escape",
        "lone leading surrogate in hex escape",
    ] {
        if let Some(rest) = message.strip_prefix(serde_json_says) {
            return format!("{LONE}{rest}").into();
        }
    }
    message.into()
}
