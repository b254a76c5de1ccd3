//! The questions of `forms fill`, one widget per kind of answer: text, a number, yes or no,
//! and a choice among options, resources or added local files. Each widget reads keys into
//! its [`State`], says what keeps its answer from being submitted, and draws its screen.

use super::term::{Key, Screen};
use super::FillError;
use forms_runtime::native::{
    ChoiceView, NativeQuestion, NativeView, QuestionKind, ResourceView, UserFiles,
};
use forms_runtime::rules::{char_len, is_js_blank};
use forms_runtime::Url;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// One option offered by a choice, resource or file question: the value it answers with, its
/// label and a note (a description, or a resource's MIME type).
#[derive(Debug, Clone)]
pub(super) struct OfferedOption {
    value: String,
    label: String,
    note: Option<String>,
}

/// A question that lets the person add local files or directories.
#[derive(Debug, Clone)]
pub(super) struct Picker {
    directory: bool,
    accept: Vec<String>,
}

#[derive(Debug, Clone)]
pub(super) enum Kind {
    Text {
        min: usize,
        max: Option<usize>,
    },
    Choice {
        options: Vec<OfferedOption>,
        multi: bool,
        min: usize,
        max: Option<usize>,
        picker: Option<Picker>,
        /// Every option starts picked (`"selection":"implicit"`).
        implicit: bool,
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

/// One question, as the terminal asks it.
#[derive(Debug, Clone)]
pub(super) struct Question {
    pub(super) id: String,
    title: String,
    description: Option<String>,
    required: bool,
    kind: Kind,
    /// The field's `default`, filled in before the person answers.
    default: Option<Value>,
}

/// A form, as the terminal asks it.
pub(super) struct Form {
    /// Who asks: label and text, shown above the message on every screen.
    pub(super) asker: Vec<(String, String)>,
    pub(super) message: String,
    pub(super) questions: Vec<Question>,
}

impl Form {
    /// The form of a native request, as the terminal asks it; an error names a question the
    /// terminal cannot ask.
    pub(super) fn from_view(view: &NativeView) -> Result<Form, FillError> {
        let mut questions = Vec::with_capacity(view.questions.len());
        for q in &view.questions {
            questions.push(Question::from_view(q)?);
        }
        if questions.is_empty() {
            return Err(FillError("the form has no questions".into()));
        }
        Ok(Form {
            asker: Vec::new(),
            message: view.message().to_owned(),
            questions,
        })
    }
}

fn limit(n: Option<u64>) -> Option<usize> {
    n.and_then(|n| usize::try_from(n).ok())
}

fn offered(value: &str, label: &str, note: &Option<String>) -> OfferedOption {
    OfferedOption {
        value: value.to_owned(),
        label: label.to_owned(),
        note: note.clone(),
    }
}

fn choice_options(options: &[ChoiceView]) -> Vec<OfferedOption> {
    let offer = |o: &ChoiceView| offered(&o.value, o.label(), &o.description);
    options.iter().map(offer).collect()
}

fn resource_options(options: &[ResourceView]) -> Vec<OfferedOption> {
    let offer = |r: &ResourceView| offered(&r.uri, r.label(), &r.mime_type);
    options.iter().map(offer).collect()
}

/// A choice of one of `options` (none when optional), files added with `picker`.
fn one_of(options: Vec<OfferedOption>, picker: Option<Picker>) -> Kind {
    Kind::Choice {
        options,
        multi: false,
        min: 0,
        max: None,
        picker,
        implicit: false,
    }
}

/// A choice of several of `options`, within `(min_items, max_items)`, files added with
/// `picker`; `implicit` as the question's `selection` says.
fn several_of(
    options: Vec<OfferedOption>,
    (min_items, max_items): (Option<u64>, Option<u64>),
    picker: Option<Picker>,
    implicit: bool,
) -> Kind {
    Kind::Choice {
        options,
        multi: true,
        min: limit(min_items).unwrap_or(0),
        max: limit(max_items),
        picker,
        implicit,
    }
}

fn picker(files: &Option<UserFiles>) -> Option<Picker> {
    files.as_ref().map(|f| Picker {
        directory: f.directory,
        accept: f.accept.clone(),
    })
}

impl Question {
    fn from_view(q: &NativeQuestion) -> Result<Question, FillError> {
        let kind = match &q.kind {
            QuestionKind::Text {
                min_length,
                max_length,
                ..
            } => Kind::Text {
                min: limit(*min_length).unwrap_or(0),
                max: limit(*max_length),
            },
            QuestionKind::SingleSelect { options, .. } => one_of(choice_options(options), None),
            QuestionKind::MultiSelect {
                options,
                min_items,
                max_items,
                ..
            } => several_of(
                choice_options(options),
                (*min_items, *max_items),
                None,
                false,
            ),
            QuestionKind::Resource { options, files } => {
                one_of(resource_options(options), picker(files))
            }
            QuestionKind::Resources {
                options,
                files,
                min_items,
                max_items,
                selection,
            } => several_of(
                resource_options(options),
                (*min_items, *max_items),
                picker(files),
                selection.as_deref() == Some("implicit"),
            ),
            QuestionKind::Number {
                integer,
                minimum,
                maximum,
            } => Kind::Number {
                integer: *integer,
                min: *minimum,
                max: *maximum,
            },
            QuestionKind::Boolean => Kind::Boolean,
            QuestionKind::Unreadable { reason } => {
                return Err(FillError(format!(
                    "requestedSchema.properties.{}: {reason} cannot be asked in the terminal",
                    q.id
                )))
            }
        };
        Ok(Question {
            id: q.id.clone(),
            title: q
                .title
                .as_deref()
                .filter(|t| !t.is_empty())
                .unwrap_or(&q.id)
                .to_owned(),
            description: q.description.clone(),
            required: q.required,
            kind,
            default: q.default.clone(),
        })
    }
}

/// The answer being built for one question.
#[derive(Debug, Clone, Default)]
pub(super) struct State {
    text: String,
    selected: Vec<usize>,
    cursor: usize,
    /// Options added by path (appended to the question's own).
    added: Vec<OfferedOption>,
    /// A path being typed, while adding a file.
    path: Option<String>,
    /// The answer to a yes-or-no question, once given.
    flag: Option<bool>,
}

pub(super) enum Step {
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
    pub(super) fn initial(&self) -> State {
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
            (
                Kind::Choice {
                    multi: true, max, ..
                },
                Some(Value::Array(values)),
            ) => {
                let offered = self.options(&state);
                let picked: Vec<usize> = values
                    .iter()
                    .filter_map(Value::as_str)
                    .filter_map(|v| offered.iter().position(|o| o.value == v))
                    .fold(Vec::new(), |mut picked, i| {
                        if !picked.contains(&i) {
                            picked.push(i);
                        }
                        picked
                    });
                if picked.len() <= max.unwrap_or(usize::MAX) {
                    state.selected = picked;
                }
            }
            (
                Kind::Choice {
                    options,
                    implicit: true,
                    max,
                    ..
                },
                _,
            ) => {
                state.selected = (0..options.len().min(max.unwrap_or(usize::MAX))).collect();
            }
            _ => {}
        }
        state
    }

    fn options<'a>(&'a self, state: &'a State) -> Vec<&'a OfferedOption> {
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
    pub(super) fn problem(&self, state: &State) -> Option<String> {
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

    pub(super) fn answer(&self, state: &State) -> Option<Value> {
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

    pub(super) fn screen(&self, form: &Form, index: usize, state: &State, status: &str) -> Screen {
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

    /// Handles one key on a line of typed text holding at most `max` characters (`None`: any
    /// number).
    fn edit(&self, state: &mut State, key: Key, status: &mut String, max: Option<usize>) -> Step {
        match key {
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
        }
    }

    /// Handles one key; `status` receives a message when the key was refused.
    pub(super) fn handle(&self, state: &mut State, key: Key, status: &mut String) -> Step {
        match &self.kind {
            Kind::Text { max, .. } => self.edit(state, key, status, *max),
            Kind::Number { .. } => self.edit(state, key, status, None),
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
                state.added.push(OfferedOption {
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

/// Who asks (dim, one line each) and the form's message in bold, the top of every screen.
fn header(form: &Form) -> Screen {
    let mut s = Screen::default();
    for (label, text) in &form.asker {
        s.code("\x1b[2m")
            .text(label)
            .code(": ")
            .text(text)
            .code("\x1b[0m\n");
    }
    if !form.asker.is_empty() {
        s.code("\n");
    }
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

/// The last screen: every answer, before Submit.
pub(super) fn review_screen(form: &Form, states: &[State], status: &str) -> Screen {
    let mut s = header(form);
    s.code("Review your answers\n\n");
    for (q, st) in form.questions.iter().zip(states) {
        s.text(&q.title).code(": ").text(&q.summary(st)).code("\n");
    }
    s.code("\nEnter submit · ← back · Ctrl-D decline · Ctrl-C cancel\n");
    status_line(&mut s, status);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fill::FillError;
    use forms_runtime::rules::visible::is_hidden;
    use serde_json::json;

    fn read_form(params: &str) -> Result<Form, FillError> {
        let view = NativeView::from_json(params).map_err(|e| FillError(e.to_string()))?;
        Form::from_view(&view)
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
        // (question, the problem shown, what was typed)
        let problems: [(&Question, Option<&str>, &[&str]); 9] = [
            (count, Some("an answer is required"), &[""]),
            (
                count,
                Some("type a whole number"),
                &["x", "7.5", "1e1", " - 3"],
            ),
            (count, Some("must be at least 1"), &["0"]),
            (count, Some("must be at most 10"), &["11"]),
            (count, None, &[" 10 "]),
            (ratio, None, &[""]),
            (ratio, Some("type a number"), &["NaN", "inf", "1,5", "0x1"]),
            (ratio, Some("must be at most 1.5"), &["1.6"]),
            (ratio, Some("must be at least 0"), &["-0.1"]),
        ];
        for (question, problem, typed) in problems {
            for typed in typed {
                assert_eq!(
                    question.problem(&with(typed)).as_deref(),
                    problem,
                    "{}: {typed:?}",
                    question.id
                );
            }
        }
        assert_eq!(count.answer(&with("-0")), Some(json!(0)));
        assert_eq!(count.answer(&with("7")), Some(json!(7)));
        assert_eq!(count.hint(), "type a whole number (1–10)");
        assert_eq!(ratio.initial().text, "0.5");
        assert_eq!(ratio.answer(&with("")), None);
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
    fn an_implicit_selection_starts_with_every_option_picked() {
        let form = read_form(
            &json!({"message": "Sources", "requestedSchema": {"type": "object", "properties": {
                "docs": {"type": "array", "title": "Docs", "maxItems": 5, "x-openai-input": {
                    "type": "resource", "selection": "implicit", "options": [
                        {"uri": "https://e.com/1", "name": "one"},
                        {"uri": "https://e.com/2", "name": "two"}]}},
                "pick": {"type": "array", "title": "Pick", "x-openai-input": {
                    "type": "resource", "selection": "explicit", "options": [
                        {"uri": "https://e.com/3", "name": "three"}]}}}}})
            .to_string(),
        )
        .unwrap();
        let [docs, pick] = &form.questions[..] else {
            panic!("two questions")
        };
        assert_eq!(
            docs.answer(&docs.initial()),
            Some(json!(["https://e.com/1", "https://e.com/2"]))
        );
        assert_eq!(pick.answer(&pick.initial()), None);
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
