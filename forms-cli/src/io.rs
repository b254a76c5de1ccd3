//! What every command shares: where an input comes from, the two documents it reads, what it
//! prints, and the usage error.

use forms_runtime::rules::Rule;
use forms_runtime::{DataForm, Finding, FormError, JsonPath};
use serde::ser::Error as _;
use serde::Serialize;
use serde_json::Value;
use std::ffi::{OsStr, OsString};
use std::io::{Read, Write};
use std::path::PathBuf;

/// The most bytes a `FILE` (or standard input) of `forms check`, `native`, `preview` and
/// `answer` may hold: 16 MiB, room for a Data form at its 1 MiB limit (R4 counts its compact
/// JSON) written out with generous indentation, or any native request or response a host
/// would send.
pub const INPUT_BYTES_MAX: usize = 16 * 1024 * 1024;

/// Where an input comes from: a missing `FILE`, or `-`, is standard input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// Standard input.
    Stdin,
    /// A file.
    File(PathBuf),
}

impl Input {
    /// The input an optional `FILE` argument names.
    pub fn from_arg(arg: Option<OsString>) -> Input {
        match arg {
            None => Input::Stdin,
            Some(a) if a == "-" => Input::Stdin,
            Some(a) => Input::File(PathBuf::from(a)),
        }
    }

    /// All of the input's bytes, at most [`INPUT_BYTES_MAX`]: an unreadable file or standard
    /// input, or one longer than that (read no further than one byte past it), is a usage
    /// error.
    pub fn read(&self) -> Result<Vec<u8>, Usage> {
        let limit = u64::try_from(INPUT_BYTES_MAX)
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        let mut buf = Vec::new();
        let (read, name) = match self {
            Input::Stdin => (
                std::io::stdin().lock().take(limit).read_to_end(&mut buf),
                "standard input".to_owned(),
            ),
            Input::File(path) => (
                std::fs::File::open(path).and_then(|f| f.take(limit).read_to_end(&mut buf)),
                path.display().to_string(),
            ),
        };
        read.map_err(|e| Usage(format!("cannot read {name}: {e}")))?;
        if buf.len() > INPUT_BYTES_MAX {
            return Err(Usage(format!(
                "{name} is longer than {INPUT_BYTES_MAX} bytes (16 MiB), the most a form or a \
                 response this command reads may be"
            )));
        }
        Ok(buf)
    }
}

/// A usage error found after the command line was parsed (an unreadable file, a value the
/// parser cannot judge alone): the message printed above the command's usage, exit 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Usage(pub String);

/// What a command prints on standard output.
pub enum Printed {
    /// A result, exit 0, printed through [`print_line`].
    Done(Value),
    /// A document of this program's own that is not a JSON line (a completion script, the
    /// preview page, whose embedded form is a [`json_line`]), exit 0.
    Own(String),
    /// A contract failure, printed as `{"error":{"code":…,"message":…}}`, exit 1.
    Failed(FormError),
    /// The result could not be written where the command was told to write it (an
    /// unwritable `--out`): the message on standard error without the usage, exit 2, as when
    /// standard output cannot be written.
    Unwritten(String),
}

/// `value` as the JSON value to print (through [`print_line`]). The values printed here hold only strings, numbers,
/// booleans, sequences and string-keyed maps, so this cannot fail in practice; should it,
/// the failure is reported as a contract error instead of a panic.
pub fn to_json<T: Serialize>(value: &T, what: Document) -> Printed {
    match serde_json::to_value(value) {
        Ok(s) => Printed::Done(s),
        Err(e) => Printed::Failed(what.error(format!("cannot serialize the result: {e}"))),
    }
}

/// The two documents the command reads, each with its error code and the rule that text
/// which is not JSON at all breaks.
#[derive(Clone, Copy)]
pub enum Document {
    /// The Data arguments (a form): `invalid_arguments`.
    Arguments,
    /// A host response: `invalid_response`.
    Response,
}

impl Document {
    /// The contract error reporting `problem` with this document as a whole.
    pub fn error(self, problem: String) -> FormError {
        match self {
            Document::Arguments => FormError::invalid_arguments(Finding::new(
                JsonPath::arguments(),
                Some(Rule::R3),
                problem,
            )),
            Document::Response => FormError::invalid_response(Finding::new(
                JsonPath::response(),
                Some(Rule::V1),
                problem,
            )),
        }
    }
}

/// Decodes `bytes` as UTF-8, or reports that the document is not UTF-8.
pub fn utf8(bytes: &[u8], what: Document) -> Result<&str, FormError> {
    std::str::from_utf8(bytes).map_err(|e| {
        what.error(format!(
            "is not valid UTF-8 (invalid byte at offset {})",
            e.valid_up_to()
        ))
    })
}

/// Reads and validates the Data arguments from `input`.
pub fn load_form(input: &Input) -> Result<Result<DataForm, FormError>, Usage> {
    let bytes = input.read()?;
    Ok(utf8(&bytes, Document::Arguments).and_then(DataForm::from_json))
}

/// Whether `c` is written as a `\uXXXX` escape in every JSON line `forms` prints: a C0
/// control, DEL, a C1 control (U+0080–U+009F: among them CSI U+009B, OSC U+009D and ST
/// U+009C, which a terminal obeys like `ESC [`, `ESC ]` and `ESC \`), or a bidirectional
/// control (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), which reorders the text
/// around it. `serde_json` escapes C0 controls but writes the others raw.
pub fn is_escaped(c: char) -> bool {
    matches!(
        c,
        '\u{0}'..='\u{1f}'
            | '\u{7f}'..='\u{9f}'
            | '\u{61c}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
    )
}

/// Writes `text` with each character [`is_escaped`] names as `\uXXXX`, and `\t`, `\n`, `\r`
/// (in JSON text, whitespace between tokens) as a space when `whitespace` is set.
fn write_escaped<W: ?Sized + Write>(
    out: &mut W,
    text: &str,
    whitespace: bool,
) -> std::io::Result<()> {
    let mut rest = 0;
    for (i, c) in text.char_indices() {
        if !is_escaped(c) {
            continue;
        }
        out.write_all(text.get(rest..i).unwrap_or_default().as_bytes())?;
        match c {
            '\t' | '\n' | '\r' if whitespace => out.write_all(b" ")?,
            c => write!(out, "\\u{:04x}", u32::from(c))?,
        }
        rest = i + c.len_utf8();
    }
    out.write_all(text.get(rest..).unwrap_or_default().as_bytes())
}

/// The formatter of [`json_line`]: compact JSON whose strings (values and object keys) hold
/// no character a terminal would obey.
struct TerminalSafe;

impl serde_json::ser::Formatter for TerminalSafe {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        write_escaped(writer, fragment, false)
    }

    fn write_char_escape<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        char_escape: serde_json::ser::CharEscape,
    ) -> std::io::Result<()> {
        use serde_json::ser::CharEscape;
        let c: u8 = match char_escape {
            CharEscape::Quote => return writer.write_all(b"\\\""),
            CharEscape::ReverseSolidus => return writer.write_all(b"\\\\"),
            CharEscape::Solidus => return writer.write_all(b"\\/"),
            CharEscape::LineFeed => return writer.write_all(b"\\n"),
            CharEscape::Tab => return writer.write_all(b"\\t"),
            CharEscape::Backspace => 0x08,
            CharEscape::FormFeed => 0x0c,
            CharEscape::CarriageReturn => 0x0d,
            CharEscape::AsciiControl(c) => c,
        };
        write!(writer, "\\u{c:04x}")
    }

    /// Embedded JSON text (a `RawValue`): valid JSON holds DEL, C1 and bidirectional
    /// controls only inside strings, where an escape means the same, and tab, newline and
    /// carriage return only between tokens, where a space does.
    fn write_raw_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        write_escaped(writer, fragment, true)
    }
}

/// `value` as one line of compact JSON that is safe to print on a terminal: every character
/// [`is_escaped`] names, inside a string or an object key, is written as `\uXXXX`
/// (newline and tab inside strings as `\n` and `\t`), so the line parses back to the same
/// value and holds no byte below 0x20, no DEL, no C1 control and no bidirectional control.
/// Every JSON line any `forms` command prints is made here.
///
/// ```text
/// json_line(&json!({"t": "\u{9b}2J\u{202e}"})) == Ok(r#"{"t":"\u009b2J\u202e"}"#)
/// ```
pub fn json_line<T: Serialize + ?Sized>(value: &T) -> Result<String, serde_json::Error> {
    let mut out = Vec::with_capacity(128);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, TerminalSafe);
    value.serialize(&mut ser)?;
    // The serializer writes UTF-8 only; should that ever change, the bytes are refused
    // rather than printed.
    String::from_utf8(out).map_err(|e| serde_json::Error::custom(e.to_string()))
}

/// JSON text another part of the program made (the runtime's normalized form, its native
/// request, an error payload) as a value, for [`print_line`]; text that is not JSON is
/// reported as a contract error of `what`.
pub fn parse_json(text: &str, what: Document) -> Printed {
    match serde_json::from_str(text) {
        Ok(value) => Printed::Done(value),
        Err(e) => Printed::Failed(what.error(format!("cannot serialize the result: {e}"))),
    }
}

/// Writes `value` as a [`json_line`] and a newline to standard output: the one way a `forms`
/// command prints a JSON line.
pub fn print_line(value: &Value) -> std::io::Result<()> {
    let line = json_line(value).map_err(std::io::Error::other)?;
    let mut out = std::io::stdout().lock();
    out.write_all(line.as_bytes())?;
    out.write_all(b"\n")?;
    out.flush()
}

/// An argument as text, for a message (bytes that are not UTF-8 shown as U+FFFD).
pub fn lossy(arg: &OsStr) -> String {
    arg.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use serde_json::value::RawValue;

    #[test]
    fn json_line_escapes_terminal_controls_of_every_class_in_strings_and_keys() {
        // The classes and their edges.
        let escaped = [
            0x00, 0x07, 0x08, 0x0c, 0x0d, 0x1b, 0x1f, 0x7f, 0x80, 0x85, 0x9b, 0x9c, 0x9d, 0x9f,
            0x61c, 0x200e, 0x200f, 0x202a, 0x202e, 0x2066, 0x2069,
        ];
        let kept = [
            0x20, 0x7e, 0xa0, 0xe9, 0x61b, 0x61d, 0x200d, 0x2010, 0x2028, 0x2029, 0x202f, 0x2065,
            0x206a, 0x1f642,
        ];
        for c in escaped.iter().filter_map(|&c| char::from_u32(c)) {
            assert!(is_escaped(c), "{c:?}");
        }
        for c in kept.iter().filter_map(|&c| char::from_u32(c)) {
            assert!(!is_escaped(c), "{c:?}");
        }
        // Every code point, as an object key and as a string value: the line holds no
        // character a terminal obeys, writes each escaped one as `\uXXXX` (newline and tab
        // as `\n` and `\t`), and parses back to the same value.
        for c in (0..=0x10ffff_u32).filter_map(char::from_u32) {
            let text = format!("a{c}b");
            let value = json!({ text.clone(): [text.clone()] });
            let line = json_line(&value).unwrap();
            assert!(!line.chars().any(is_escaped), "{c:?} -> {line:?}");
            let shown = match c {
                '\n' => r"a\nb".to_owned(),
                '\t' => r"a\tb".to_owned(),
                '"' => r#"a\"b"#.to_owned(),
                '\\' => r"a\\b".to_owned(),
                c if is_escaped(c) => format!("a\\u{:04x}b", u32::from(c)),
                _ => text.clone(),
            };
            assert_eq!(line, format!(r#"{{"{shown}":["{shown}"]}}"#), "{c:?}");
            assert_eq!(
                serde_json::from_str::<Value>(&line).unwrap(),
                value,
                "{c:?}"
            );
        }
        // The attack's payload: CSI, OSC … ST, RLO and DEL.
        let value = json!({"title": "T\u{9b}31m\u{202e}\u{7f}", "body": "\u{9d}52;c;aGk=\u{9c}"});
        let line = json_line(&value).unwrap();
        assert_eq!(
            line,
            r#"{"title":"T\u009b31m\u202e\u007f","body":"\u009d52;c;aGk=\u009c"}"#
        );
        // Embedded JSON text (a RawValue) is escaped too, its whitespace made spaces.
        let raw =
            RawValue::from_string("{\n\t\"k\u{9b}\": \"\u{202e}\u{7f}\"\r\n}".into()).unwrap();
        #[derive(Serialize)]
        struct Embedding<'a> {
            raw: &'a RawValue,
        }
        let line = json_line(&Embedding { raw: &raw }).unwrap();
        assert_eq!(line, r#"{"raw":{  "k\u009b": "\u202e\u007f"  }}"#);
        assert_eq!(
            serde_json::from_str::<Value>(&line).unwrap(),
            json!({"raw": {"k\u{9b}": "\u{202e}\u{7f}"}})
        );
    }
}
