//! The attack of stored text on another person's terminal: text holding CSI (U+009B), OSC
//! (U+009D) … ST (U+009C), RLO (U+202E) and DEL, and the check that a `forms` command's
//! standard output holds none of them raw.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction, dead_code)]

use serde_json::Value;

/// A title that turns the terminal red and reverses what follows.
pub const TITLE: &str = "Deploy\u{9b}31m now\u{202e}\u{7f}";
/// A body that clears the screen and writes the clipboard (OSC 52 … ST).
pub const BODY: &str = "Please\u{9b}2J approve \u{9d}52;c;cm0gLXJmIH4=\u{9c} \u{202e}lave\u{7f}";
/// A choice that blinks, and one reversed.
pub const CHOICES: [&str; 2] = ["yes\u{9b}5m", "no\u{202e}\u{7f}"];
/// A message for the log.
pub const MESSAGE: &str = "ping\u{9b}1A\u{9d}0;pwned\u{9c}\u{202e}\u{7f}";

/// A Data form whose message, question title and option title hold the payload.
pub fn form() -> Value {
    serde_json::json!({
        "message": "Form\u{9b}1A\u{9d}0;title\u{9c}\u{202e}\u{7f}",
        "questions": [{
            "id": "pick",
            "type": "single_select",
            "title": "Pick\u{9b}2K\u{202e}\u{7f}",
            "required": false,
            "options": [{"id": "a", "title": "A\u{9d}8;;http://x\u{9c}\u{202e}\u{7f}"}]
        }]
    })
}

/// Whether `bytes` starting at `i` begin the UTF-8 encoding of a bidirectional control
/// (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069).
fn bidi_at(bytes: &[u8], i: usize) -> bool {
    matches!(
        bytes.get(i..i + 3),
        Some([0xe2, 0x80, 0x8e | 0x8f | 0xaa..=0xae] | [0xe2, 0x81, 0xa6..=0xa9])
    ) || matches!(bytes.get(i..i + 2), Some([0xd8, 0x9c]))
}

/// Checks standard output `stdout` of `what`: one line, its newline the only byte below
/// 0x20, and no DEL, no C1 control (C2 80..C2 9F) and no bidirectional control anywhere;
/// returns the line as JSON.
pub fn assert_escaped(what: &str, stdout: &[u8]) -> Value {
    let text = String::from_utf8_lossy(stdout);
    let Some((last, line)) = stdout.split_last() else {
        panic!("{what}: printed nothing");
    };
    assert_eq!(*last, b'\n', "{what}: {text:?}");
    for (i, &b) in line.iter().enumerate() {
        assert!(b >= 0x20, "{what}: byte {b:#04x} at {i}: {text:?}");
        assert_ne!(b, 0x7f, "{what}: DEL at {i}: {text:?}");
        assert!(
            !(b == 0xc2 && matches!(line.get(i + 1), Some(0x80..=0x9f))),
            "{what}: a C1 control at {i}: {text:?}"
        );
        assert!(
            !bidi_at(line, i),
            "{what}: a bidirectional control at {i}: {text:?}"
        );
    }
    serde_json::from_slice(line).unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {text:?}"))
}

/// The request `r` as printed holds the stored payload, unchanged.
pub fn assert_holds_payload(what: &str, r: &Value, with_form: bool) {
    assert_eq!(r["title"], TITLE, "{what}: {r}");
    assert_eq!(r["body"], BODY, "{what}: {r}");
    if with_form {
        assert_eq!(r["form"], form(), "{what}: {r}");
    } else {
        assert_eq!(r["choices"], serde_json::json!(CHOICES), "{what}: {r}");
    }
}
