//! `forms fill FILE`: answer a form in the terminal, one question at a time, and print the
//! host response (`{"action":"accept","content":…}`) on standard output.
//!
//! The form is read as `forms preview` reads it (a Data form, validated and compiled by the
//! runtime, or a native request, bare or as a whole JSON-RPC request). The screen goes to
//! `/dev/tty` (standard error when that cannot be opened), so standard output holds only the
//! response line. Keys are read from standard input, which must be a terminal; it is put in
//! raw mode (through `crossterm`) for the session and restored afterwards.
//!
//! Keys: Enter goes to the next question (refused while a limit is broken) and, on the last
//! screen, submits; ← goes back; ↑/↓ move between options, Space or a digit 1–9 picks
//! (toggles, for a multiple choice); `a` adds a local file by path where the question allows
//! user files; `y` / `n` answer a yes-or-no question; Ctrl-D declines; Ctrl-C cancels. A
//! terminal that goes away (hung up, unreadable) is not an answer: `fill` fails (exit 2) and
//! prints no response.
//!
//! Besides the native form's own fields, the fields of a core elicitation are asked too:
//! `integer` and `number` (typed, checked against `minimum` / `maximum`) and `boolean`; a
//! field's `default` is filled in beforehand.
//!
//! Every piece of text that did not come from this program (the form's message, titles,
//! descriptions and option labels, typed text, file names, error messages) reaches the
//! terminal through [`visible`], which shows control characters as escapes instead of letting
//! the terminal obey them: a form cannot write the clipboard (OSC 52), erase lines or move
//! the cursor. The screen is composed as a `Screen`, whose only way to take text that is
//! not a `'static` literal of this program is `Screen::text`.
//!
//! The terminal (raw mode, keys, drawing) is in `term`, one widget per kind of question in
//! `widgets`, and the form loop here.

mod term;
mod widgets;

use crate::cli::FillArgs;
use crate::io::{utf8, Document, Input, Printed, Usage};
use forms_runtime::native::NativeView;
use serde_json::{json, Map, Value};
use std::io::IsTerminal;
use term::{Key, Screen, Terminal};
use widgets::{review_screen, Form, Question, State, Step};

/// Runs `forms fill`: the response line on standard output (exit 0, also for a decline or a
/// cancel), a contract failure of the form (exit 1), or a usage error (exit 2), among them
/// standard input not being a terminal and the terminal going away.
pub fn run(args: &FillArgs) -> Result<Printed, Usage> {
    if !std::io::stdin().is_terminal() {
        return Err(Usage(
            "`fill` needs a terminal on standard input to read the answers from; \
             to answer from a file use `forms answer`"
                .into(),
        ));
    }
    let bytes = Input::File(args.input.clone()).read()?;
    let text = match utf8(&bytes, Document::Arguments) {
        Ok(t) => t,
        Err(e) => return Ok(Printed::Failed(e)),
    };
    let read = match crate::preview::read(text) {
        Ok(read) => read,
        Err(e) => return Ok(Printed::Failed(e)),
    };
    let response = fill_view(&read.view, &[]).map_err(|e| Usage(e.to_string()))?;
    if let Some(form) = read.data {
        // The runtime's own check: a response this command builds must pass it.
        if let Err(e) = form.check_response(&response.to_string()) {
            return Ok(Printed::Failed(e));
        }
    }
    Ok(Printed::Done(response))
}

/// Why a form could not be filled in: the terminal failed or went away (nothing was answered,
/// so nothing is to be submitted), or the request holds a field the terminal cannot ask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FillError(pub String);

impl std::fmt::Display for FillError {
    /// The message as it may be printed: it can quote the form, so it passes through
    /// [`visible`].
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&visible(&self.0))
    }
}

pub use forms_runtime::rules::visible::visible;

/// Asks the form `view` in the terminal on standard input and returns the host response:
/// `{"action":"accept","content":{…}}`, `{"action":"decline"}` or `{"action":"cancel"}`.
/// `asker` (label and text, in order: the server that asks, or a request's requester, title
/// and deadline) heads every screen, so the person always sees who asks; `forms fill` of a
/// file has none.
pub fn fill_view(view: &NativeView, asker: &[(String, String)]) -> Result<Value, FillError> {
    let mut form = Form::from_view(view)?;
    form.asker = asker.to_vec();
    if !std::io::stdin().is_terminal() {
        return Err(FillError(
            "answering in the terminal needs a terminal on standard input".into(),
        ));
    }
    let mut term = Terminal::open()?;
    let result = session(&form, &mut term);
    term.restore();
    result
}

/// A URL-mode request, as the terminal asks the person's consent to open it: who asks
/// (`asker`), the server's message, the full URL in three parts with its host (`url.1`)
/// highlighted, and warnings. `y` consents (`{"action":"accept"}`; the caller opens the URL),
/// `n` or Ctrl-D declines, Ctrl-C cancels; any other key asks again.
#[cfg(feature = "host")]
pub fn consent_url(
    asker: &[(String, String)],
    message: &str,
    url: (&str, &str, &str),
    warnings: &[String],
) -> Result<Value, FillError> {
    if !std::io::stdin().is_terminal() {
        return Err(FillError(
            "answering in the terminal needs a terminal on standard input".into(),
        ));
    }
    let mut s = Screen::default();
    for (label, text) in asker {
        s.code("\x1b[2m")
            .text(label)
            .code(": ")
            .text(text)
            .code("\x1b[0m\n");
    }
    s.code("\n\x1b[1m").text(message).code("\x1b[0m\n\n");
    s.code("The server asks you to open this page, on \x1b[1m")
        .text(url.1)
        .code("\x1b[0m:\n\n  ");
    s.text(url.0)
        .code("\x1b[1;4;7m")
        .text(url.1)
        .code("\x1b[0m")
        .text(url.2)
        .code("\n\n");
    for warning in warnings {
        s.code("\x1b[33mWarning: ").text(warning).code("\x1b[0m\n");
    }
    s.code("Open it in your browser? y yes · n no (decline) · Ctrl-C cancel\n");
    let mut term = Terminal::open()?;
    let result = (|| loop {
        term.draw(&s)?;
        match term.key()? {
            Key::Char('y' | 'Y') => return Ok(json!({"action": "accept"})),
            Key::Char('n' | 'N') | Key::Decline => return Ok(json!({"action": "decline"})),
            Key::Interrupt => return Ok(json!({"action": "cancel"})),
            _ => {}
        }
    })();
    term.restore();
    result
}

fn session(form: &Form, term: &mut Terminal) -> Result<Value, FillError> {
    let mut states: Vec<State> = form.questions.iter().map(Question::initial).collect();
    let mut index = 0;
    let mut status = String::new();
    loop {
        let screen = match (form.questions.get(index), states.get(index)) {
            (Some(q), Some(st)) => q.screen(form, index, st, &status),
            _ => review_screen(form, &states, &status),
        };
        term.draw(&screen)?;
        status.clear();
        let key = term.key()?;
        match key {
            Key::Interrupt => {
                term.draw(&Screen::of("Cancelled.\n"))?;
                return Ok(json!({"action": "cancel"}));
            }
            Key::Decline => {
                term.draw(&Screen::of("Declined.\n"))?;
                return Ok(json!({"action": "decline"}));
            }
            _ => {}
        }
        let step = match (form.questions.get(index), states.get_mut(index)) {
            (Some(q), Some(st)) => q.handle(st, key, &mut status),
            _ => match key {
                Key::Enter => {
                    let broken = form
                        .questions
                        .iter()
                        .zip(&states)
                        .position(|(q, st)| q.problem(st).is_some());
                    match broken {
                        Some(i) => {
                            index = i;
                            status = "fix this answer before submitting".into();
                            Step::Stay
                        }
                        None => {
                            let mut content = Map::new();
                            for (q, st) in form.questions.iter().zip(&states) {
                                if let Some(v) = q.answer(st) {
                                    content.insert(q.id.clone(), v);
                                }
                            }
                            term.draw(&Screen::of("Submitted.\n"))?;
                            return Ok(json!({"action": "accept", "content": content}));
                        }
                    }
                }
                Key::Left | Key::Backspace => Step::Back,
                _ => Step::Stay,
            },
        };
        match step {
            Step::Stay => {}
            Step::Next => index += 1,
            Step::Back => index = index.saturating_sub(1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use forms_runtime::rules::visible::{is_hidden, visible_json};
    use std::borrow::Cow;

    #[test]
    fn visible_escapes_every_control_but_newline_and_tab() {
        let plain = "Ada 🙂 Lovelace\n\tline two — ok";
        assert!(matches!(visible(plain), Cow::Borrowed(t) if t == plain));
        let cases = [
            ("\u{1b}]52;c;aGk=\u{7}", r"\u{1b}]52;c;aGk=\u{7}"),
            ("\u{1b}[2K\u{1b}[1A", r"\u{1b}[2K\u{1b}[1A"),
            ("a\rb", r"a\u{d}b"),
            ("\u{0}\u{8}\u{b}\u{c}\u{1f}", r"\u{0}\u{8}\u{b}\u{c}\u{1f}"),
            ("del\u{7f}", r"del\u{7f}"),
            (
                "c1 \u{80} \u{85} \u{9b}2J \u{9d}52 \u{9f}",
                r"c1 \u{80} \u{85} \u{9b}2J \u{9d}52 \u{9f}",
            ),
            (
                "\u{202a}\u{202b}\u{202c}\u{202d}\u{202e}",
                r"\u{202a}\u{202b}\u{202c}\u{202d}\u{202e}",
            ),
            (
                "\u{2066}x\u{2067}\u{2068}\u{2069}",
                r"\u{2066}x\u{2067}\u{2068}\u{2069}",
            ),
            (
                "kept: \u{a0}\u{200e}\u{2028}é",
                "kept: \u{a0}\u{200e}\u{2028}é",
            ),
        ];
        for (foreign, shown) in cases {
            assert_eq!(visible(foreign), shown, "{foreign:?}");
        }
        // Every character of every code point's escape is printable.
        for c in (0..=0x10ffff_u32).filter_map(char::from_u32) {
            let text = c.to_string();
            let out = visible(&text);
            assert!(!out.chars().any(is_hidden), "{c:?} -> {out:?}");
            if is_hidden(c) {
                assert_eq!(out, format!("\\u{{{:x}}}", u32::from(c)));
            } else {
                assert_eq!(out, text);
            }
        }
    }

    // `forms host --trace`'s escaper (forms-host), which the JSON lines on standard output no
    // longer use (they are `io::json_line`'s).
    #[test]
    fn visible_json_keeps_the_value_and_escapes_what_serde_json_leaves_raw() {
        let value = json!({"a\u{9b}": ["\u{1b}]52;c;aGk=\u{7}", "\u{7f}\u{85}\u{202e}x\u{2069}"],
            "n": 1.5, "ok": "é 🙂\n\t"});
        let text = value.to_string();
        // serde_json escapes C0 itself, not DEL, C1 or bidirectional controls.
        assert!(
            text.contains('\u{9b}') && !text.contains('\u{1b}'),
            "{text}"
        );
        let shown = visible_json(&text);
        assert!(!shown.chars().any(is_hidden), "{shown}");
        assert!(
            shown.contains(r"\u009b") && shown.contains(r"\u202e"),
            "{shown}"
        );
        assert_eq!(serde_json::from_str::<Value>(&shown).unwrap(), value);
        let clean = json!({"a": "é 🙂"}).to_string();
        assert!(matches!(visible_json(&clean), Cow::Borrowed(_)));
    }
}
