//! `forms fill FILE`: answer a form in the terminal, one question at a time, and print the
//! host response (`{"action":"accept","content":…}`) on standard output.
//!
//! The form is read as `forms preview` reads it (a Data form, validated and compiled by the
//! runtime, or a native request, bare or as a whole JSON-RPC request). The screen goes to
//! `/dev/tty` (standard error when that cannot be opened), so standard output holds only the
//! response line. Keys are read from standard input, which must be a terminal; it is put in
//! raw mode with `stty` for the session and restored afterwards.
//!
//! Keys: Enter goes to the next question (refused while a limit is broken) and, on the last
//! screen, submits; ← goes back; ↑/↓ move between options, Space or a digit 1–9 picks
//! (toggles, for a multiple choice); `a` adds a local file by path where the question allows
//! user files; `y` / `n` answer a yes-or-no question; Ctrl-D declines; Ctrl-C cancels.
//!
//! Besides the native form's own fields, the fields of a core elicitation are asked too:
//! `integer` and `number` (typed, checked against `minimum` / `maximum`) and `boolean`; a
//! field's `default` is filled in beforehand.
//!
//! Every piece of text that did not come from this program (the form's message, titles,
//! descriptions and option labels, typed text, file names, error messages) reaches the
//! terminal through [`visible`], which shows control characters as escapes instead of letting
//! the terminal obey them: a form cannot write the clipboard (OSC 52), erase lines or move
//! the cursor. The screen is composed as a [`Screen`], whose only way to take text that is
//! not a `'static` literal of this program is [`Screen::text`].

use crate::cli::FillArgs;
use crate::io::{utf8, Document, Input, Printed, Usage};
use crate::lint::NativeView;
use forms_runtime::rules::{char_len, is_js_blank};
use forms_runtime::Url;
use serde_json::{json, Map, Value};
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Runs `forms fill`: the response line on standard output (exit 0, also for a decline or a
/// cancel), a contract failure of the form (exit 1), or a usage error (exit 2), among them
/// standard input not being a terminal.
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
    let (params, data) = match crate::preview::native_params(text) {
        Ok(p) => p,
        Err(e) => return Ok(Printed::Failed(e)),
    };
    let response = fill_native(&params).map_err(|e| Usage(e.to_string()))?;
    if let Some(form) = data {
        // The runtime's own check: a response this command builds must pass it.
        if let Err(e) = form.check_response(&response) {
            return Ok(Printed::Failed(e));
        }
    }
    Ok(Printed::Done(visible_json(&response).into_owned()))
}

/// Why a form could not be filled in: the terminal failed, or the request holds a field the
/// terminal cannot ask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FillError(pub String);

impl std::fmt::Display for FillError {
    /// The message as it may be printed: it can quote the form, so it passes through
    /// [`visible`].
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&visible(&self.0))
    }
}

pub use forms_runtime::rules::visible::{visible, visible_json};

/// A screen being composed. The program's own text and escape sequences (bold, colors, the
/// cursor) are `'static` literals, added with [`Screen::code`]; everything else (the form's
/// text, typed text, file names, error messages, counts) is added with [`Screen::text`],
/// which passes it through [`visible`]. No other text reaches the terminal.
#[derive(Debug, Default)]
struct Screen(String);

impl Screen {
    /// This program's own text or escape sequence.
    fn code(&mut self, ours: &'static str) -> &mut Screen {
        self.0.push_str(ours);
        self
    }

    /// Any other text, neutralized.
    fn text(&mut self, foreign: &str) -> &mut Screen {
        self.0.push_str(&visible(foreign));
        self
    }

    /// A one-line screen of this program's own words.
    fn of(ours: &'static str) -> Screen {
        let mut s = Screen::default();
        s.code(ours);
        s
    }
}

/// Asks the native request `params` (`{mode, message, requestedSchema}`) in the terminal on
/// standard input and returns the host response JSON: `{"action":"accept","content":{…}}`,
/// `{"action":"decline"}` or `{"action":"cancel"}`.
pub fn fill_native(params: &str) -> Result<String, FillError> {
    let form = read_form(params)?;
    if !std::io::stdin().is_terminal() {
        return Err(FillError(
            "answering in the terminal needs a terminal on standard input".into(),
        ));
    }
    let mut term = Terminal::open()?;
    let result = session(&form, &mut term);
    term.restore();
    result.map(|r| r.to_string())
}

/// One option of a choice, resource or file question.
#[derive(Debug, Clone)]
struct Opt {
    value: String,
    label: String,
    note: Option<String>,
}

/// A question that lets the person add local files or directories.
#[derive(Debug, Clone)]
struct Picker {
    directory: bool,
    accept: Vec<String>,
}

#[derive(Debug, Clone)]
enum Kind {
    Text {
        min: usize,
        max: Option<usize>,
    },
    Choice {
        options: Vec<Opt>,
        multi: bool,
        min: usize,
        max: Option<usize>,
        picker: Option<Picker>,
    },
    /// A core `integer` or `number` field, typed and checked when leaving it.
    Number {
        integer: bool,
        min: Option<f64>,
        max: Option<f64>,
    },
    /// A core `boolean` field: yes or no.
    Boolean,
}

#[derive(Debug, Clone)]
struct Question {
    id: String,
    title: String,
    description: Option<String>,
    required: bool,
    kind: Kind,
    /// The field's `default`, filled in before the person answers.
    default: Option<Value>,
}

struct Form {
    message: String,
    questions: Vec<Question>,
}

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn usize_of(v: &Value, key: &str) -> Option<usize> {
    v.get(key)
        .and_then(Value::as_u64)
        .and_then(|n| usize::try_from(n).ok())
}

fn list(v: Option<&Value>) -> &[Value] {
    v.and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn choice_options(list: &[Value]) -> Vec<Opt> {
    list.iter()
        .filter_map(|o| {
            let value = str_of(o, "const")?.to_owned();
            let label = str_of(o, "title").unwrap_or(&value).to_owned();
            Some(Opt {
                value,
                label,
                note: str_of(o, "description").map(str::to_owned),
            })
        })
        .collect()
}

/// The options of an `enum`, titled by `enumNames` where the legacy core schema gives them.
fn enum_options(list: &[Value], names: &[Value]) -> Vec<Opt> {
    list.iter()
        .enumerate()
        .filter_map(|(i, v)| Some((i, v.as_str()?)))
        .map(|(i, s)| Opt {
            value: s.to_owned(),
            label: names.get(i).and_then(Value::as_str).unwrap_or(s).to_owned(),
            note: None,
        })
        .collect()
}

fn read_form(params: &str) -> Result<Form, FillError> {
    let view = NativeView::from_json(params)
        .map_err(|e| FillError(format!("not a native form request: {e}")))?;
    let whole: Value = serde_json::from_str(params)
        .map_err(|e| FillError(format!("not a native form request: {e}")))?;
    let required: Vec<&str> = list(whole.pointer("/requestedSchema/required"))
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let mut questions = Vec::new();
    for (id, p) in &view.schema.properties.0 {
        let title = str_of(p, "title").unwrap_or(id).to_owned();
        let ty = str_of(p, "type").unwrap_or("");
        let is_required = required.contains(&id.as_str());
        let kind = if let Some(input) = p.get("x-openai-input").filter(|i| i.is_object()) {
            let options = list(input.get("options"))
                .iter()
                .filter_map(|r| {
                    let value = str_of(r, "uri")?.to_owned();
                    let label = str_of(r, "title")
                        .filter(|t| !is_js_blank(t))
                        .or_else(|| str_of(r, "name"))
                        .unwrap_or(&value)
                        .to_owned();
                    Some(Opt {
                        value,
                        label,
                        note: str_of(r, "mimeType").map(str::to_owned),
                    })
                })
                .collect();
            let picker = input
                .get("userOptions")
                .filter(|u| u.is_object())
                .map(|u| Picker {
                    directory: str_of(u, "kind") == Some("directory"),
                    accept: list(u.get("accept"))
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect(),
                });
            Kind::Choice {
                options,
                multi: ty == "array",
                min: usize_of(p, "minItems").unwrap_or(0),
                max: usize_of(p, "maxItems"),
                picker,
            }
        } else if ty == "string" && p.get("oneOf").is_some() {
            Kind::Choice {
                options: choice_options(list(p.get("oneOf"))),
                multi: false,
                min: 0,
                max: None,
                picker: None,
            }
        } else if ty == "string" && p.get("enum").is_some() {
            Kind::Choice {
                options: enum_options(list(p.get("enum")), list(p.get("enumNames"))),
                multi: false,
                min: 0,
                max: None,
                picker: None,
            }
        } else if ty == "string" {
            Kind::Text {
                min: usize_of(p, "minLength").unwrap_or(0),
                max: usize_of(p, "maxLength"),
            }
        } else if ty == "array" {
            let items = p.get("items");
            let options = match items.and_then(|i| i.get("anyOf")) {
                Some(any) => choice_options(list(Some(any))),
                None => enum_options(list(items.and_then(|i| i.get("enum"))), &[]),
            };
            Kind::Choice {
                options,
                multi: true,
                min: usize_of(p, "minItems").unwrap_or(0),
                max: usize_of(p, "maxItems"),
                picker: None,
            }
        } else if ty == "integer" || ty == "number" {
            Kind::Number {
                integer: ty == "integer",
                min: p.get("minimum").and_then(Value::as_f64),
                max: p.get("maximum").and_then(Value::as_f64),
            }
        } else if ty == "boolean" {
            Kind::Boolean
        } else {
            return Err(FillError(format!(
                "requestedSchema.properties.{id}: a field of type `{ty}` cannot be asked in the terminal"
            )));
        };
        questions.push(Question {
            id: id.clone(),
            title,
            description: str_of(p, "description").map(str::to_owned),
            required: is_required,
            kind,
            default: p.get("default").cloned(),
        });
    }
    if questions.is_empty() {
        return Err(FillError("the form has no questions".into()));
    }
    Ok(Form {
        message: view.message.as_str().unwrap_or("").to_owned(),
        questions,
    })
}

/// A key read from the terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Char(char),
    Enter,
    Backspace,
    Up,
    Down,
    Left,
    Right,
    Interrupt,
    Decline,
    End,
    Other,
}

/// The terminal in raw mode; the screen is written to `/dev/tty` or standard error.
struct Terminal {
    saved: Option<String>,
    out: Box<dyn Write>,
}

fn stty(args: &[&str]) -> Result<String, FillError> {
    let out = Command::new("stty")
        .args(args)
        .stdin(Stdio::inherit())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| FillError(format!("cannot run stty: {e}")))?;
    if !out.status.success() {
        return Err(FillError(format!("stty {} failed", args.join(" "))));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

impl Terminal {
    fn open() -> Result<Terminal, FillError> {
        let out: Box<dyn Write> = match std::fs::OpenOptions::new().write(true).open("/dev/tty") {
            Ok(f) => Box::new(f),
            Err(_) => Box::new(std::io::stderr()),
        };
        let saved = stty(&["-g"])?;
        stty(&["raw", "-echo"])?;
        Ok(Terminal {
            saved: Some(saved),
            out,
        })
    }

    fn restore(&mut self) {
        if let Some(saved) = self.saved.take() {
            // Best effort: the answer is already decided; `stty sane` is the fallback.
            if stty(&[&saved]).is_err() {
                let _ = stty(&["sane"]);
            }
            let _ = self.out.write_all(b"\x1b[?25h");
            let _ = self.out.flush();
        }
    }

    fn byte(&mut self) -> Option<u8> {
        let mut b = [0u8; 1];
        match std::io::stdin().lock().read(&mut b) {
            Ok(1) => Some(b[0]),
            _ => None,
        }
    }

    fn key(&mut self) -> Key {
        let Some(b) = self.byte() else {
            return Key::End;
        };
        match b {
            0x03 => Key::Interrupt,
            0x04 => Key::Decline,
            b'\r' | b'\n' => Key::Enter,
            0x7f | 0x08 => Key::Backspace,
            0x1b => match self.byte() {
                Some(b'[' | b'O') => {
                    let mut last = self.byte();
                    // Parameters such as `3~` (Delete) or `1;5A`: read to the final byte.
                    while let Some(c) = last {
                        if !(c.is_ascii_digit() || c == b';') {
                            break;
                        }
                        last = self.byte();
                    }
                    match last {
                        Some(b'A') => Key::Up,
                        Some(b'B') => Key::Down,
                        Some(b'C') => Key::Right,
                        Some(b'D') => Key::Left,
                        _ => Key::Other,
                    }
                }
                _ => Key::Other,
            },
            b if b < 0x20 => Key::Other,
            b if b < 0x80 => Key::Char(char::from(b)),
            lead => {
                let len = match lead {
                    0xc0..=0xdf => 2,
                    0xe0..=0xef => 3,
                    0xf0..=0xf7 => 4,
                    _ => return Key::Other,
                };
                let mut buf = vec![lead];
                for _ in 1..len {
                    match self.byte() {
                        Some(c) => buf.push(c),
                        None => return Key::End,
                    }
                }
                std::str::from_utf8(&buf)
                    .ok()
                    .and_then(|s| s.chars().next())
                    .map_or(Key::Other, Key::Char)
            }
        }
    }

    fn draw(&mut self, screen: &Screen) -> Result<(), FillError> {
        let text = format!("\x1b[2J\x1b[H{}", screen.0.replace('\n', "\r\n"));
        self.out
            .write_all(text.as_bytes())
            .and_then(|()| self.out.flush())
            .map_err(|e| FillError(format!("cannot write to the terminal: {e}")))
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        self.restore();
    }
}

/// The answer being built for one question.
#[derive(Debug, Clone, Default)]
struct State {
    text: String,
    selected: Vec<usize>,
    cursor: usize,
    /// Options added by path (appended to the question's own).
    added: Vec<Opt>,
    /// A path being typed, while adding a file.
    path: Option<String>,
    /// The answer to a yes-or-no question, once given.
    flag: Option<bool>,
}

enum Step {
    Stay,
    Next,
    Back,
}

fn plural(n: usize, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// A typed number, read as the answer of an `integer` (a whole number) or `number` field.
fn parse_number(text: &str, integer: bool) -> Option<Value> {
    let text = text.trim();
    if let Ok(n) = text.parse::<i64>() {
        return Some(Value::from(n));
    }
    if integer {
        return None;
    }
    text.parse::<f64>()
        .ok()
        .filter(|n| n.is_finite())
        .and_then(serde_json::Number::from_f64)
        .map(Value::Number)
}

/// `min`–`max` in words: "1–10", "at least 0", "at most 5", or nothing.
fn range_words(min: Option<f64>, max: Option<f64>) -> Option<String> {
    match (min, max) {
        (Some(lo), Some(hi)) => Some(format!("{lo}–{hi}")),
        (Some(lo), None) => Some(format!("at least {lo}")),
        (None, Some(hi)) => Some(format!("at most {hi}")),
        (None, None) => None,
    }
}

impl Question {
    /// The answer before the person touches it: the field's `default`, when it fits.
    fn initial(&self) -> State {
        let mut state = State::default();
        match (&self.kind, &self.default) {
            (Kind::Text { .. }, Some(Value::String(text))) => state.text = text.clone(),
            (Kind::Number { integer, .. }, Some(Value::Number(n)))
                if !*integer || n.is_i64() || n.is_u64() =>
            {
                state.text = n.to_string();
            }
            (Kind::Boolean, Some(Value::Bool(b))) => state.flag = Some(*b),
            (Kind::Choice { multi: false, .. }, Some(Value::String(value))) => {
                if let Some(i) = self.options(&state).iter().position(|o| &o.value == value) {
                    state.selected = vec![i];
                    state.cursor = i;
                }
            }
            _ => {}
        }
        state
    }

    fn options<'a>(&'a self, state: &'a State) -> Vec<&'a Opt> {
        match &self.kind {
            Kind::Text { .. } | Kind::Number { .. } | Kind::Boolean => Vec::new(),
            Kind::Choice { options, .. } => options.iter().chain(state.added.iter()).collect(),
        }
    }

    /// The lower and upper bound on the number of picks of a choice question.
    fn bounds(&self) -> (usize, Option<usize>) {
        match &self.kind {
            Kind::Text { .. } | Kind::Number { .. } | Kind::Boolean => (0, None),
            Kind::Choice {
                multi: true,
                min,
                max,
                ..
            } => {
                let min = if self.required { (*min).max(1) } else { *min };
                (min, *max)
            }
            Kind::Choice { .. } => (usize::from(self.required), Some(1)),
        }
    }

    /// What keeps the answer from being submitted, if anything.
    fn problem(&self, state: &State) -> Option<String> {
        match &self.kind {
            Kind::Text { min, max } => {
                let n = char_len(&state.text);
                if self.required && is_js_blank(&state.text) {
                    Some("an answer is required".into())
                } else if n > 0 && n < *min {
                    Some(format!("must be at least {}", plural(*min, "character")))
                } else if max.is_some_and(|m| n > m) {
                    Some(format!(
                        "must be at most {}",
                        plural(max.unwrap_or(0), "character")
                    ))
                } else {
                    None
                }
            }
            Kind::Number { integer, min, max } => {
                if state.text.trim().is_empty() {
                    return self.required.then(|| "an answer is required".into());
                }
                let Some(n) = parse_number(&state.text, *integer).and_then(|v| v.as_f64()) else {
                    return Some(if *integer {
                        "type a whole number".into()
                    } else {
                        "type a number".into()
                    });
                };
                match (min, max) {
                    (Some(lo), _) if n < *lo => Some(format!("must be at least {lo}")),
                    (_, Some(hi)) if n > *hi => Some(format!("must be at most {hi}")),
                    _ => None,
                }
            }
            Kind::Boolean => (self.required && state.flag.is_none())
                .then(|| "answer y for yes or n for no".into()),
            Kind::Choice { multi, .. } => {
                let (min, max) = self.bounds();
                let n = state.selected.len();
                if n < min {
                    Some(if *multi {
                        format!("choose at least {min}")
                    } else {
                        "a choice is required".into()
                    })
                } else if max.is_some_and(|m| n > m) {
                    Some(format!("choose at most {}", max.unwrap_or(0)))
                } else {
                    None
                }
            }
        }
    }

    fn answer(&self, state: &State) -> Option<Value> {
        match &self.kind {
            Kind::Text { .. } if state.text.is_empty() => None,
            Kind::Text { .. } => Some(Value::String(state.text.clone())),
            Kind::Number { integer, .. } => parse_number(&state.text, *integer),
            Kind::Boolean => state.flag.map(Value::Bool),
            Kind::Choice { multi, .. } => {
                let options = self.options(state);
                let values: Vec<Value> = state
                    .selected
                    .iter()
                    .filter_map(|&i| options.get(i))
                    .map(|o| Value::String(o.value.clone()))
                    .collect();
                match (*multi, values.len()) {
                    (_, 0) => None,
                    (true, _) => Some(Value::Array(values)),
                    (false, _) => values.into_iter().next(),
                }
            }
        }
    }

    fn summary(&self, state: &State) -> String {
        match &self.kind {
            Kind::Text { .. } if state.text.is_empty() => "(no answer)".into(),
            Kind::Text { .. } => state.text.clone(),
            Kind::Number { .. } if state.text.trim().is_empty() => "(no answer)".into(),
            Kind::Number { .. } => state.text.trim().to_owned(),
            Kind::Boolean => match state.flag {
                Some(true) => "yes".into(),
                Some(false) => "no".into(),
                None => "(no answer)".into(),
            },
            Kind::Choice { .. } => {
                let options = self.options(state);
                let labels: Vec<&str> = state
                    .selected
                    .iter()
                    .filter_map(|&i| options.get(i))
                    .map(|o| o.label.as_str())
                    .collect();
                if labels.is_empty() {
                    "(none)".into()
                } else {
                    labels.join(", ")
                }
            }
        }
    }

    fn hint(&self) -> String {
        match &self.kind {
            Kind::Text { max, .. } => match max {
                Some(m) => format!("type your answer (at most {})", plural(*m, "character")),
                None => "type your answer".into(),
            },
            Kind::Number { integer, min, max } => {
                let what = if *integer {
                    "a whole number"
                } else {
                    "a number"
                };
                match range_words(*min, *max) {
                    Some(range) => format!("type {what} ({range})"),
                    None => format!("type {what}"),
                }
            }
            Kind::Boolean => "y yes · n no · Space switches".into(),
            Kind::Choice {
                multi,
                picker,
                options,
                ..
            } => {
                let (min, max) = self.bounds();
                let mut hint = if *multi {
                    let range = match max {
                        Some(m) if m == min => format!("choose {min}"),
                        Some(m) => format!("choose {min}–{m}"),
                        None => format!("choose at least {min}"),
                    };
                    format!("{range}; Space or 1–9 toggles")
                } else if self.required {
                    "choose one; Space or 1–9 picks".into()
                } else {
                    "choose one or none; Space or 1–9 picks".into()
                };
                if let Some(p) = picker {
                    let what = if p.directory { "a folder" } else { "a file" };
                    hint.push_str(&format!("; a adds {what} by path"));
                    if !p.accept.is_empty() {
                        hint.push_str(&format!(" (accepted: {})", p.accept.join(", ")));
                    }
                } else if options.is_empty() {
                    hint.push_str("; nothing to choose from");
                }
                hint
            }
        }
    }

    fn screen(&self, form: &Form, index: usize, state: &State, status: &str) -> Screen {
        let mut s = header(form);
        s.text(&format!(
            "Question {} of {}\n",
            index + 1,
            form.questions.len()
        ))
        .code("\x1b[1m")
        .text(&self.title)
        .code(if self.required { " *" } else { "" })
        .code("\x1b[0m\n");
        if let Some(d) = &self.description {
            s.text(d).code("\n");
        }
        s.code("\n");
        match &self.kind {
            Kind::Text { max, .. } => {
                let n = char_len(&state.text);
                s.code("> ").text(&state.text).code("\x1b[7m \x1b[0m\n");
                match max {
                    Some(m) => s.text(&format!("{n}/{m}\n")),
                    None => s.text(&format!("{n}\n")),
                };
            }
            Kind::Number { .. } => {
                s.code("> ").text(&state.text).code("\x1b[7m \x1b[0m\n");
            }
            Kind::Boolean => {
                let mark = |on: bool| if on { "(o)" } else { "( )" };
                s.code("  ")
                    .code(mark(state.flag == Some(true)))
                    .code(" Yes    ")
                    .code(mark(state.flag == Some(false)))
                    .code(" No\n");
            }
            Kind::Choice { multi, .. } => {
                for (i, o) in self.options(state).iter().enumerate() {
                    let on = state.selected.contains(&i);
                    let mark = match (*multi, on) {
                        (true, true) => "[x]",
                        (true, false) => "[ ]",
                        (false, true) => "(o)",
                        (false, false) => "( )",
                    };
                    let pointer = if i == state.cursor { "> " } else { "  " };
                    s.code(pointer)
                        .code(mark)
                        .text(&format!(" {}. ", i + 1))
                        .text(&o.label);
                    if let Some(note) = &o.note {
                        s.code(" — ").text(note);
                    }
                    s.code("\n");
                }
                if let Some(p) = &state.path {
                    s.code("\nPath: ").text(p).code("\x1b[7m \x1b[0m\n");
                }
            }
        }
        s.code("\n").text(&self.hint()).code("\n");
        s.code(if state.path.is_some() {
            "Enter adds the file · empty path returns"
        } else {
            "Enter next"
        })
        .code(if index > 0 { " · ← back" } else { "" })
        .code(" · Ctrl-D decline · Ctrl-C cancel\n");
        status_line(&mut s, status);
        s
    }

    /// Handles one key; `status` receives a message when the key was refused.
    fn handle(&self, state: &mut State, key: Key, status: &mut String) -> Step {
        match &self.kind {
            Kind::Text { max, .. } => match key {
                Key::Char(c) => {
                    if max.is_some_and(|m| char_len(&state.text) >= m) {
                        *status = format!(
                            "at most {} — the limit is reached",
                            plural(max.unwrap_or(0), "character")
                        );
                    } else {
                        state.text.push(c);
                    }
                    Step::Stay
                }
                Key::Backspace => {
                    state.text.pop();
                    Step::Stay
                }
                Key::Enter => self.leave(state, status),
                Key::Left => Step::Back,
                _ => Step::Stay,
            },
            Kind::Number { .. } => match key {
                Key::Char(c) => {
                    state.text.push(c);
                    Step::Stay
                }
                Key::Backspace => {
                    state.text.pop();
                    Step::Stay
                }
                Key::Enter => self.leave(state, status),
                Key::Left => Step::Back,
                _ => Step::Stay,
            },
            Kind::Boolean => match key {
                Key::Char('y' | 'Y' | '1') => {
                    state.flag = Some(true);
                    Step::Stay
                }
                Key::Char('n' | 'N' | '2') => {
                    state.flag = Some(false);
                    Step::Stay
                }
                Key::Char(' ') | Key::Up | Key::Down | Key::Right => {
                    state.flag = Some(state.flag != Some(true));
                    Step::Stay
                }
                Key::Char(c) => {
                    *status = format!("{c} is not an answer: type y for yes or n for no");
                    Step::Stay
                }
                Key::Enter => self.leave(state, status),
                Key::Left => Step::Back,
                _ => Step::Stay,
            },
            Kind::Choice { .. } if state.path.is_some() => {
                self.path_key(state, key, status);
                Step::Stay
            }
            Kind::Choice { multi, picker, .. } => {
                let count = self.options(state).len();
                match key {
                    Key::Up => {
                        state.cursor = state.cursor.saturating_sub(1);
                        Step::Stay
                    }
                    Key::Down => {
                        if state.cursor + 1 < count {
                            state.cursor += 1;
                        }
                        Step::Stay
                    }
                    Key::Char(' ') => {
                        self.pick(state, state.cursor, *multi, status);
                        Step::Stay
                    }
                    Key::Char(c @ '1'..='9') => {
                        let i = usize::from(c as u8 - b'1');
                        if i < count {
                            state.cursor = i;
                            self.pick(state, i, *multi, status);
                        } else {
                            *status = format!("there is no option {c}");
                        }
                        Step::Stay
                    }
                    Key::Char('a' | '+') if picker.is_some() => {
                        state.path = Some(String::new());
                        Step::Stay
                    }
                    Key::Enter => self.leave(state, status),
                    Key::Left => Step::Back,
                    _ => Step::Stay,
                }
            }
        }
    }

    fn leave(&self, state: &State, status: &mut String) -> Step {
        match self.problem(state) {
            Some(p) => {
                *status = format!("cannot go on: {p}");
                Step::Stay
            }
            None => Step::Next,
        }
    }

    fn pick(&self, state: &mut State, i: usize, multi: bool, status: &mut String) {
        if let Some(at) = state.selected.iter().position(|&s| s == i) {
            state.selected.remove(at);
            return;
        }
        if !multi {
            state.selected = vec![i];
            return;
        }
        let (_, max) = self.bounds();
        if let Some(m) = max.filter(|&m| state.selected.len() >= m) {
            *status = format!("choose at most {m}: clear one first");
            return;
        }
        state.selected.push(i);
    }

    fn path_key(&self, state: &mut State, key: Key, status: &mut String) {
        let Some(path) = state.path.as_mut() else {
            return;
        };
        match key {
            Key::Char(c) => path.push(c),
            Key::Backspace => {
                path.pop();
            }
            Key::Enter if path.is_empty() => state.path = None,
            Key::Enter => {
                let typed = path.clone();
                match self.add_path(state, &typed) {
                    Ok(()) => state.path = None,
                    Err(e) => *status = e,
                }
            }
            _ => {}
        }
    }

    /// Checks that `typed` names an existing file (or folder) the question accepts and
    /// picks it as an absolute, percent-encoded `file://` URI.
    fn add_path(&self, state: &mut State, typed: &str) -> Result<(), String> {
        let Kind::Choice {
            multi,
            picker: Some(picker),
            ..
        } = &self.kind
        else {
            return Err("this question takes no files".into());
        };
        let expanded = match typed.strip_prefix("~/") {
            Some(rest) => std::env::var_os("HOME")
                .map(|h| Path::new(&h).join(rest))
                .unwrap_or_else(|| PathBuf::from(typed)),
            None => PathBuf::from(typed),
        };
        let absolute =
            std::fs::canonicalize(&expanded).map_err(|e| format!("cannot use {typed}: {e}"))?;
        if picker.directory && !absolute.is_dir() {
            return Err(format!("{typed} is not a folder"));
        }
        if !picker.directory && !absolute.is_file() {
            return Err(format!("{typed} is not a file"));
        }
        if !accepted(&picker.accept, &absolute) {
            return Err(format!(
                "{typed} is not among the accepted types: {}",
                picker.accept.join(", ")
            ));
        }
        let uri = Url::from_file_path(&absolute)
            .map_err(|()| format!("cannot turn {} into a file:// URI", absolute.display()))?
            .to_string();
        let existing = self.options(state).iter().position(|o| o.value == uri);
        let index = match existing {
            Some(i) => i,
            None => {
                let (_, max) = self.bounds();
                if *multi && max.is_some_and(|m| state.selected.len() >= m) {
                    return Err(format!(
                        "choose at most {}: clear one first",
                        max.unwrap_or(0)
                    ));
                }
                state.added.push(Opt {
                    value: uri,
                    label: absolute.display().to_string(),
                    note: Some("added".into()),
                });
                self.options(state).len() - 1
            }
        };
        state.cursor = index;
        if !state.selected.contains(&index) {
            let mut ignored = String::new();
            self.pick(state, index, *multi, &mut ignored);
            if !ignored.is_empty() {
                return Err(ignored);
            }
        }
        Ok(())
    }
}

/// Whether `path` passes an `accept` filter ([`forms_runtime::rules::accepts`]): extensions are
/// checked on the name; a path typed in a terminal has no known type, so a MIME type entry
/// takes every file.
fn accepted(accept: &[String], path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    forms_runtime::rules::accepts(accept, &name, None)
}

/// The form's message in bold, the top of every screen.
fn header(form: &Form) -> Screen {
    let mut s = Screen::default();
    if !form.message.is_empty() {
        s.code("\x1b[1m").text(&form.message).code("\x1b[0m\n\n");
    }
    s
}

/// Why the last key was refused, in red.
fn status_line(s: &mut Screen, status: &str) {
    if !status.is_empty() {
        s.code("\n\x1b[31m").text(status).code("\x1b[0m\n");
    }
}

fn review_screen(form: &Form, states: &[State], status: &str) -> Screen {
    let mut s = header(form);
    s.code("Review your answers\n\n");
    for (q, st) in form.questions.iter().zip(states) {
        s.text(&q.title).code(": ").text(&q.summary(st)).code("\n");
    }
    s.code("\nEnter submit · ← back · Ctrl-D decline · Ctrl-C cancel\n");
    status_line(&mut s, status);
    s
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
        let key = term.key();
        match key {
            Key::Interrupt | Key::End => {
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
    #![allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )]
    use super::*;
    use forms_runtime::rules::visible::is_hidden;
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

    /// The native params of a form whose every piece of text is `text`.
    fn form_with(text: &str) -> String {
        json!({"mode": "form", "message": format!("M{text}"), "requestedSchema": {
            "type": "object", "required": ["pick"], "properties": {
                "pick": {"type": "string", "title": format!("T{text}"),
                    "description": format!("D{text}"),
                    "oneOf": [{"const": "a", "title": format!("L{text}"), "description": format!("N{text}")},
                              {"const": format!("v{text}")}]},
                "files": {"type": "array", "title": format!("F{text}"), "items": {"type": "string"},
                    "x-openai-input": {"type": "resource",
                        "options": [{"uri": "https://e.com/1", "name": format!("R{text}")}],
                        "userOptions": {"kind": "file", "accept": [format!(".c{text}")]}}},
                "count": {"type": "integer", "title": format!("C{text}"), "default": 3},
                "ok": {"type": "boolean", "title": format!("B{text}")}}}})
        .to_string()
    }

    #[test]
    fn every_screen_shows_foreign_escapes_as_text_and_keeps_its_own() {
        let payload = "\u{1b}]52;c;aGk=\u{7}\u{1b}[2K\u{1b}[1A\u{9b}\u{202e}";
        let hostile = read_form(&form_with(payload)).unwrap();
        let benign = read_form(&form_with("")).unwrap();
        let screens = |form: &Form, typed: &str| {
            let mut all = Vec::new();
            let mut states: Vec<State> = form.questions.iter().map(Question::initial).collect();
            for (i, (q, st)) in form.questions.iter().zip(states.iter_mut()).enumerate() {
                st.text.push_str(typed);
                st.selected = vec![0];
                st.path = Some(format!("/tmp/p{typed}"));
                all.push(q.screen(form, i, st, &format!("status{typed}")).0);
            }
            all.push(review_screen(form, &states, &format!("status{typed}")).0);
            all
        };
        let ours = screens(&benign, "");
        let theirs = screens(&hostile, payload);
        for (clean, shown) in ours.iter().zip(&theirs) {
            // The program's own escape sequences are all there, and no other.
            assert_eq!(
                clean.matches('\u{1b}').count(),
                shown.matches('\u{1b}').count()
            );
            assert!(
                !shown.chars().any(|c| is_hidden(c) && c != '\u{1b}'),
                "{shown:?}"
            );
            assert!(shown.contains(r"\u{1b}]52;c;aGk=\u{7}\u{1b}[2K\u{1b}[1A\u{9b}\u{202e}"));
        }
        let first = &theirs[0];
        for label in ["M", "T", "D", "L", "N", "v", "status"] {
            assert!(
                first.contains(&format!("{label}\\u{{1b}}]52")),
                "{label}: {first}"
            );
        }
        assert!(theirs[1].contains(r"R\u{1b}]52") && theirs[1].contains(r".c\u{1b}]52"));
        assert!(theirs[1].contains(r"Path: /tmp/p\u{1b}]52"));
        let message = FillError(format!("field x{payload}")).to_string();
        assert!(!message.chars().any(is_hidden), "{message:?}");
    }

    fn core_form() -> Form {
        read_form(
            &json!({"message": "Settings", "requestedSchema": {"type": "object",
                "required": ["count", "agree"], "properties": {
                    "count": {"type": "integer", "minimum": 1, "maximum": 10},
                    "ratio": {"type": "number", "minimum": 0, "maximum": 1.5, "default": 0.5},
                    "agree": {"type": "boolean"},
                    "news": {"type": "boolean", "default": true},
                    "size": {"type": "string", "enum": ["s", "m"], "enumNames": ["Small", "Medium"],
                        "default": "m"}}}})
            .to_string(),
        )
        .unwrap()
    }

    #[test]
    fn core_numbers_are_parsed_and_checked_against_their_bounds() {
        let form = core_form();
        let [count, ratio, ..] = &form.questions[..] else {
            panic!("five questions")
        };
        let with = |text: &str| State {
            text: text.into(),
            ..State::default()
        };
        assert_eq!(
            count.problem(&with("")).as_deref(),
            Some("an answer is required")
        );
        for bad in ["x", "7.5", "1e1", " - 3"] {
            assert_eq!(
                count.problem(&with(bad)).as_deref(),
                Some("type a whole number")
            );
        }
        assert_eq!(
            count.problem(&with("0")).as_deref(),
            Some("must be at least 1")
        );
        assert_eq!(
            count.problem(&with("11")).as_deref(),
            Some("must be at most 10")
        );
        assert_eq!(count.problem(&with(" 10 ")), None);
        assert_eq!(count.answer(&with("-0")), Some(json!(0)));
        assert_eq!(count.answer(&with("7")), Some(json!(7)));
        assert_eq!(count.hint(), "type a whole number (1–10)");
        assert_eq!(ratio.initial().text, "0.5");
        assert_eq!(ratio.problem(&with("")), None);
        assert_eq!(ratio.answer(&with("")), None);
        for bad in ["NaN", "inf", "1,5", "0x1"] {
            assert_eq!(
                ratio.problem(&with(bad)).as_deref(),
                Some("type a number"),
                "{bad}"
            );
        }
        assert_eq!(
            ratio.problem(&with("1.6")).as_deref(),
            Some("must be at most 1.5")
        );
        assert_eq!(
            ratio.problem(&with("-0.1")).as_deref(),
            Some("must be at least 0")
        );
        assert_eq!(ratio.answer(&with("1")), Some(json!(1)));
        assert_eq!(ratio.answer(&with(".25")), Some(json!(0.25)));
        assert_eq!(ratio.hint(), "type a number (0–1.5)");
    }

    #[test]
    fn core_booleans_need_y_or_n_when_required_and_defaults_are_filled_in() {
        let form = core_form();
        let [_, _, agree, news, size] = &form.questions[..] else {
            panic!("five questions")
        };
        let mut state = agree.initial();
        assert_eq!(state.flag, None);
        assert!(agree.problem(&state).is_some());
        let mut status = String::new();
        assert!(matches!(
            agree.handle(&mut state, Key::Enter, &mut status),
            Step::Stay
        ));
        assert_eq!(status, "cannot go on: answer y for yes or n for no");
        agree.handle(&mut state, Key::Char('x'), &mut status);
        assert_eq!(status, "x is not an answer: type y for yes or n for no");
        assert_eq!(state.flag, None);
        agree.handle(&mut state, Key::Char('n'), &mut status);
        assert_eq!(agree.answer(&state), Some(json!(false)));
        agree.handle(&mut state, Key::Char(' '), &mut status);
        assert_eq!(agree.answer(&state), Some(json!(true)));
        assert_eq!(agree.summary(&state), "yes");
        assert_eq!(news.answer(&news.initial()), Some(json!(true)));
        assert_eq!(news.problem(&State::default()), None);
        assert_eq!(news.answer(&State::default()), None);
        let chosen = size.initial();
        assert_eq!(size.answer(&chosen), Some(json!("m")));
        assert_eq!(size.summary(&chosen), "Medium");
    }

    #[test]
    fn accept_filter_checks_extensions_only() {
        let a = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(accepted(&a(&[".csv"]), Path::new("/x/Data.CSV")));
        assert!(!accepted(&a(&[".csv"]), Path::new("/x/data.txt")));
        assert!(accepted(&a(&[".csv", "image/*"]), Path::new("/x/a.png")));
        assert!(accepted(&[], Path::new("/x/a")));
    }
}
