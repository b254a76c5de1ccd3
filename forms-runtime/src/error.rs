//! Errors: the contract's six codes, [`FormError`], and the [`Finding`]s it carries, each at
//! a structured [`JsonPath`].
//!
//! This module uses nothing else of the crate, so every other module can depend on it.

use forms_rules::Rule;
use serde::ser::{SerializeStruct, Serializer};
use serde::Serialize;
use std::fmt;

/// The six error codes of the contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorCode {
    /// Input failed the advertised contract, uniqueness, size, or selection-limit checks.
    InvalidArguments,
    /// The host did not advertise native form support.
    UnsupportedClient,
    /// Submitted values or the host response failed validation; no answers were applied.
    InvalidResponse,
    /// The tool request was interrupted before a valid submission.
    RequestCancelled,
    /// The submission did not arrive within the configured request timeout.
    Timeout,
    /// Elicitation failed before a valid response arrived.
    TransportError,
}

impl ErrorCode {
    /// The code as it appears on the wire (`"invalid_arguments"`).
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArguments => "invalid_arguments",
            ErrorCode::UnsupportedClient => "unsupported_client",
            ErrorCode::InvalidResponse => "invalid_response",
            ErrorCode::RequestCancelled => "request_cancelled",
            ErrorCode::Timeout => "timeout",
            ErrorCode::TransportError => "transport_error",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One step of a [`JsonPath`]: a property name or an array index.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PathSegment {
    /// A property of an object.
    Key(String),
    /// An element of an array.
    Index(usize),
}

/// Where a finding sits in the JSON it was found in: the name of the document (`arguments`
/// for Data arguments, `response` for a host response) and the steps from its root.
///
/// It displays as the contract's messages write it: `questions[2].options[0].id`,
/// `content.goal`, `arguments["odd key"]`, and the document's name for the root itself.
///
/// ```
/// use forms_runtime::{JsonPath, PathSegment};
/// let path = JsonPath::arguments().key("questions").index(2).key("id");
/// assert_eq!(path.to_string(), "questions[2].id");
/// assert_eq!(path.segments()[1], PathSegment::Index(2));
/// assert_eq!(path.question_index(), Some(2));
/// assert_eq!(JsonPath::response().to_string(), "response");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct JsonPath {
    document: &'static str,
    segments: Vec<PathSegment>,
}

/// Property names longer than this are shortened when a path is displayed.
const KEY_SHOWN_MAX: usize = forms_rules::SHOWN_CHARS_MAX;

impl JsonPath {
    /// The root of the Data arguments (`{message, questions}`).
    pub fn arguments() -> JsonPath {
        JsonPath {
            document: "arguments",
            segments: Vec::new(),
        }
    }

    /// The root of a host response (`{action, content}`).
    pub fn response() -> JsonPath {
        JsonPath {
            document: "response",
            segments: Vec::new(),
        }
    }

    /// This path extended by the property `key`.
    pub fn key(mut self, key: impl Into<String>) -> JsonPath {
        self.segments.push(PathSegment::Key(key.into()));
        self
    }

    /// This path extended by the array index `index`.
    pub fn index(mut self, index: usize) -> JsonPath {
        self.segments.push(PathSegment::Index(index));
        self
    }

    /// Extends this path by the property `key`, in place.
    pub fn push_key(&mut self, key: impl Into<String>) {
        self.segments.push(PathSegment::Key(key.into()));
    }

    /// Extends this path by the array index `index`, in place.
    pub fn push_index(&mut self, index: usize) {
        self.segments.push(PathSegment::Index(index));
    }

    /// The steps from the document's root; empty for the root itself.
    pub fn segments(&self) -> &[PathSegment] {
        &self.segments
    }

    /// Mutable access to the steps, for callers that rename a step.
    pub fn segments_mut(&mut self) -> &mut Vec<PathSegment> {
        &mut self.segments
    }

    /// The document's name: `arguments` or `response`.
    pub fn document(&self) -> &'static str {
        self.document
    }

    /// The index of the question this path is in: `Some(2)` for `questions[2]…` of the
    /// arguments; `None` elsewhere.
    pub fn question_index(&self) -> Option<usize> {
        match self.segments.as_slice() {
            [PathSegment::Key(k), PathSegment::Index(i), ..] if k == "questions" => Some(*i),
            _ => None,
        }
    }

    /// The id of the question this path of a response is in: `Some("goal")` for
    /// `content.goal…`; `None` elsewhere.
    pub fn answer_id(&self) -> Option<&str> {
        match self.segments.as_slice() {
            [PathSegment::Key(c), PathSegment::Key(id), ..]
                if c == "content" && self.document == "response" =>
            {
                Some(id)
            }
            _ => None,
        }
    }

    /// Writes the path, with `note` (such as `` (field `template`) ``) after the first
    /// `after` steps.
    fn write(&self, f: &mut fmt::Formatter<'_>, note: Option<(usize, &str)>) -> fmt::Result {
        if self.segments.is_empty() {
            return f.write_str(self.document);
        }
        for (i, segment) in self.segments.iter().enumerate() {
            match segment {
                PathSegment::Key(k) if is_plain(k) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    write_shortened(f, k)?;
                }
                PathSegment::Key(k) => {
                    if i == 0 {
                        f.write_str(self.document)?;
                    }
                    f.write_str("[\"")?;
                    for c in shortened(k) {
                        write!(f, "{}", c.escape_debug())?;
                    }
                    f.write_str("\"]")?;
                }
                PathSegment::Index(n) => {
                    if i == 0 {
                        f.write_str(self.document)?;
                    }
                    write!(f, "[{n}]")?;
                }
            }
            if let Some((after, text)) = note {
                if i + 1 == after {
                    f.write_str(text)?;
                }
            }
        }
        Ok(())
    }
}

fn is_plain(key: &str) -> bool {
    !key.is_empty()
        && key
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'$'))
}

/// The characters of `key` as a path shows them: at most [`KEY_SHOWN_MAX`], then `…`.
fn shortened(key: &str) -> impl Iterator<Item = char> + '_ {
    let long = key.chars().nth(KEY_SHOWN_MAX).is_some();
    key.chars().take(KEY_SHOWN_MAX).chain(long.then_some('…'))
}

fn write_shortened(f: &mut fmt::Formatter<'_>, key: &str) -> fmt::Result {
    shortened(key).try_for_each(|c| fmt::Write::write_char(f, c))
}

impl fmt::Display for JsonPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, None)
    }
}

/// One problem found in a form or a response: where, which rule, and what is wrong.
///
/// It displays as one clause of the error message:
/// `questions[0].id: "9x" must start with an ASCII letter (R6)`. For a form declared by a
/// Rust type, the question's field is named too:
/// ``questions[3] (field `template`).options[0].uri: …``.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Finding {
    /// Where the problem is.
    pub path: JsonPath,
    /// The Rust field that declared the question at `path`, for a form declared by a Rust
    /// type: set on the findings of its build (`questions[i]…`) and of
    /// [`TypedForm::decode`](crate::TypedForm::decode) (`content.<id>…`); `None` for a
    /// [`DataForm`](crate::DataForm) and for findings about no one question (`response`,
    /// `content`, `message`).
    pub field: Option<String>,
    /// The contract rule that failed. Input that is not JSON at all breaks the shape rule of
    /// its document: `R3` for a form, `V1` for a response. `None` only for findings the
    /// contract's rules do not cover.
    pub rule: Option<Rule>,
    /// What is wrong, worded to follow the path (`"9x" must start with an ASCII letter`).
    pub problem: String,
}

impl Finding {
    /// A finding of `rule` at `path`.
    pub fn new(path: JsonPath, rule: Option<Rule>, problem: impl Into<String>) -> Finding {
        Finding {
            path,
            field: None,
            rule,
            problem: problem.into(),
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.field {
            Some(field) if self.path.question_index().is_some() => {
                self.path
                    .write(f, Some((2, &format!(" (field `{field}`)"))))?;
            }
            _ => self.path.write(f, None)?,
        }
        write!(f, ": {}", self.problem)?;
        match self.rule {
            Some(rule) => write!(f, " ({rule})"),
            None => Ok(()),
        }
    }
}

/// The most findings an error's message spells out; the rest are counted.
pub const MESSAGE_FINDINGS_MAX: usize = 50;

/// The most findings a check of the Data arguments, or of a host response, collects. Past this it only counts them
/// (and when the structure and types alone have more problems than this, it stops before
/// checking values), so refusing an input costs about as much as accepting one. The error
/// says how many more there were: [`FormError::more_findings`].
pub const FINDINGS_MAX: usize = 100;

/// An error of the contract: one of the six [`ErrorCode`]s, the [`Finding`]s behind it, and
/// a message for a person or a model to read.
///
/// The message joins the findings with `; ` (`questions[3].options[0].id: "9x" must start
/// with an ASCII letter (R6)`); a program reads [`FormError::findings`] instead of parsing
/// it. Errors that are not about the input's content (a timeout, a closed transport) carry a
/// message and no findings.
///
/// `Debug` shows the same text as `Display`, so `fn main() -> Result<(), FormError>` (or a
/// `?` into `Box<dyn Error>`) prints a readable error.
///
/// ```
/// use forms_runtime::{DataForm, ErrorCode};
/// use forms_runtime::rules::Rule;
///
/// let err = DataForm::from_json(r#"{"message":"Hi","questions":[]}"#).unwrap_err();
/// assert_eq!(err.code(), ErrorCode::InvalidArguments);
/// assert_eq!(err.message(), "questions: must have at least one question (R2)");
/// let finding = &err.findings()[0];
/// assert_eq!(finding.rule, Some(Rule::R2));
/// assert_eq!(finding.path.to_string(), "questions");
/// assert_eq!(
///     err.to_json(),
///     r#"{"error":{"code":"invalid_arguments","message":"questions: must have at least one question (R2)"}}"#
/// );
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct FormError {
    code: ErrorCode,
    message: String,
    findings: Vec<Finding>,
    more: usize,
    more_at_least: bool,
}

impl FormError {
    /// An error with `code` and a free-form `message` and no findings (a timeout, a
    /// transport failure).
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        FormError {
            code,
            message: message.into(),
            findings: Vec::new(),
            more: 0,
            more_at_least: false,
        }
    }

    /// An error made of `findings`, plus `more` findings that were not collected (a
    /// checker stops after a bounded number). The message spells out at most
    /// [`MESSAGE_FINDINGS_MAX`] findings and counts the rest.
    pub fn from_findings(code: ErrorCode, findings: Vec<Finding>, more: usize) -> Self {
        FormError::counted(code, findings, more, false)
    }

    /// Like [`FormError::from_findings`], for a checker that stopped before checking
    /// everything: `more` is a lower bound, and the message says "and at least N more
    /// problems".
    pub fn from_findings_at_least(code: ErrorCode, findings: Vec<Finding>, more: usize) -> Self {
        FormError::counted(code, findings, more, true)
    }

    fn counted(code: ErrorCode, findings: Vec<Finding>, more: usize, at_least: bool) -> Self {
        use fmt::Write as _;
        let mut message = String::new();
        for (i, finding) in findings.iter().take(MESSAGE_FINDINGS_MAX).enumerate() {
            if i > 0 {
                message.push_str("; ");
            }
            let _ = write!(message, "{finding}");
        }
        let unspelled = findings.len().saturating_sub(MESSAGE_FINDINGS_MAX) + more;
        if unspelled > 0 {
            let _ = write!(
                message,
                "; and {}{unspelled} more problem{}",
                if at_least && more > 0 {
                    "at least "
                } else {
                    ""
                },
                if unspelled == 1 { "" } else { "s" }
            );
        }
        FormError {
            code,
            message,
            findings,
            more,
            more_at_least: at_least && more > 0,
        }
    }

    /// An `invalid_arguments` error of one finding.
    pub fn invalid_arguments(finding: Finding) -> Self {
        FormError::from_findings(ErrorCode::InvalidArguments, vec![finding], 0)
    }

    /// An `invalid_response` error of one finding.
    pub fn invalid_response(finding: Finding) -> Self {
        FormError::from_findings(ErrorCode::InvalidResponse, vec![finding], 0)
    }

    /// Which of the six codes.
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// What was wrong, for a person or a model to read.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The problems found, in document order; empty for errors that are not about the
    /// input's content.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// How many further problems exist beyond [`FormError::findings`] (the checker stopped
    /// collecting at [`FINDINGS_MAX`]). For a refused response, every failing part is a
    /// finding (see [`DataForm::check_response`](crate::DataForm::check_response)), so 0 means
    /// nothing else is wrong, except the items of an array answer past `maxItems + 1`, which
    /// only its count finding reports.
    pub fn more_findings(&self) -> usize {
        self.more
    }

    /// Whether [`FormError::more_findings`] is a lower bound: the checker stopped before
    /// checking everything (see [`FINDINGS_MAX`]).
    pub fn more_findings_is_lower_bound(&self) -> bool {
        self.more_at_least
    }

    /// Names the Rust field of each question in the findings' text: `fields[i]` declared
    /// question `i`. Used for forms declared by a Rust type.
    pub fn with_fields(mut self, fields: &[&str]) -> Self {
        for finding in &mut self.findings {
            if let Some(name) = finding.path.question_index().and_then(|i| fields.get(i)) {
                finding.field = Some((*name).to_owned());
            }
        }
        if self.findings.is_empty() {
            return self;
        }
        FormError::counted(self.code, self.findings, self.more, self.more_at_least)
    }

    /// Names the Rust field of each finding of a response: `field_of(path)` is the field
    /// that declared the question answered at `path`. The message is unchanged: its paths
    /// (`content.<id>`) already name the question.
    pub(crate) fn with_answer_fields<'a>(
        mut self,
        field_of: impl Fn(&JsonPath) -> Option<&'a str>,
    ) -> Self {
        for finding in &mut self.findings {
            finding.field = field_of(&finding.path).map(str::to_owned);
        }
        self
    }

    /// The tool-result payload, `{"error":{"code":…,"message":…}}`, as a JSON value.
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::json!({"error": {"code": self.code.as_str(), "message": self.message}})
    }

    /// The tool-result payload, `{"error":{"code":…,"message":…}}`, as compact JSON text.
    pub fn to_json(&self) -> String {
        self.to_value().to_string()
    }
}

/// Serializes as the inner object of the payload: `{"code":…,"message":…}`.
impl Serialize for FormError {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("FormError", 2)?;
        st.serialize_field("code", &self.code)?;
        st.serialize_field("message", &self.message)?;
        st.end()
    }
}

impl fmt::Display for FormError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl fmt::Debug for FormError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for FormError {}
