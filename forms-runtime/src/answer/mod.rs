//! Host answers: checking a response against its form (rules V1–V8) and the tool-result
//! payload.
//!
//! [`DataForm::check_response`] reads the host's JSON text in one streaming pass: content keys
//! are matched against the question ids and choices against the offered option ids as they
//! are read, no `serde_json::Value` tree is built, and only the answers' own strings and
//! vectors are allocated. Any failure is one `invalid_response` [`FormError`] whose findings
//! name each problem's path and rule; no partial answers are returned.
//!
//! ```
//! use forms_runtime::data::{ChoiceOption, FormSpec, Question, QuestionSpec};
//! use forms_runtime::{DataForm, Outcome};
//!
//! let choice = |id: &str, title: &str| ChoiceOption {
//!     id: id.into(),
//!     title: title.into(),
//!     description: None,
//!     thumbnail: None,
//! };
//! let form = DataForm::new(FormSpec {
//!     message: "Set up your weekly report".into(),
//!     questions: vec![Question {
//!         id: "format".into(),
//!         title: "Report format".into(),
//!         description: None,
//!         required: true,
//!         kind: QuestionSpec::SingleSelect {
//!             options: vec![choice("pdf", "PDF"), choice("html", "Web page")],
//!         },
//!     }],
//! })?;
//!
//! let outcome = form.check_response(r#"{"action":"accept","content":{"format":"pdf"}}"#)?;
//! // The tool-result payload, content keys in question order.
//! assert_eq!(
//!     serde_json::to_string(&outcome).unwrap(),
//!     r#"{"action":"accept","content":{"format":"pdf"}}"#
//! );
//! let Outcome::Accepted(answers) = outcome else { unreachable!() };
//! assert_eq!(answers.choice("format"), Some("pdf"));
//!
//! assert_eq!(form.check_response(r#"{"action":"decline"}"#)?, Outcome::Declined);
//!
//! let err = form
//!     .check_response(r#"{"action":"accept","content":{"format":"pdfx"}}"#)
//!     .unwrap_err();
//! assert_eq!(err.code(), forms_runtime::ErrorCode::InvalidResponse);
//! assert_eq!(err.message(), r#"content.format: "pdfx" is not an offered option id (V4)"#);
//! # Ok::<(), forms_runtime::FormError>(())
//! ```

mod seed;
mod ser;

use crate::data::{DataForm, QuestionSpec};
use crate::error::{Finding, FormError, JsonPath};
use forms_rules::Rule;
use serde::de::DeserializeSeed;

pub(crate) use seed::{Action, Sink};

/// What the person did with a form, once the host's response passed every rule: the one
/// three-way result of the untyped path ([`DataForm::check_response`] gives
/// `Outcome<Answers>`) and the typed one ([`TypedForm::decode`](crate::TypedForm::decode)
/// gives `Outcome<T>`).
///
/// `Outcome<Answers>` serializes as the tool-result payload (`{"action":"accept",
/// "content":{…}}`, `{"action":"decline"}`, `{"action":"cancel"}`), ready for
/// [`ToolResult::from_outcome`](crate::mcp::ToolResult::from_outcome).
///
/// ```
/// use forms_runtime::data::{FormSpec, Question, QuestionSpec};
/// use forms_runtime::{DataForm, Outcome};
///
/// let form = DataForm::new(FormSpec {
///     message: "What would you like to understand?".into(),
///     questions: vec![Question {
///         id: "goal".into(),
///         title: "What would you like to understand?".into(),
///         description: None,
///         required: false,
///         kind: QuestionSpec::Text { max_length: None },
///     }],
/// })?;
/// let outcome = form.check_response(r#"{"action":"cancel","_meta":{"reason":"closed"}}"#)?;
/// assert!(matches!(outcome, Outcome::Cancelled));
/// assert_eq!(serde_json::to_string(&outcome).unwrap(), r#"{"action":"cancel"}"#);
/// # Ok::<(), forms_runtime::FormError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome<T> {
    /// The person submitted the form; the answers passed every rule.
    Accepted(T),
    /// The person declined. No answers (V8).
    Declined,
    /// The person cancelled. No answers (V8).
    Cancelled,
}

impl<T> Outcome<T> {
    /// The wire name of the action: `"accept"`, `"decline"` or `"cancel"`.
    pub fn action(&self) -> &'static str {
        match self {
            Outcome::Accepted(_) => "accept",
            Outcome::Declined => "decline",
            Outcome::Cancelled => "cancel",
        }
    }

    /// The answers of an accepted form; `None` for decline and cancel.
    pub fn accepted(self) -> Option<T> {
        match self {
            Outcome::Accepted(t) => Some(t),
            Outcome::Declined | Outcome::Cancelled => None,
        }
    }

    /// A borrowed view: `Outcome<&T>`.
    pub fn as_ref(&self) -> Outcome<&T> {
        match self {
            Outcome::Accepted(t) => Outcome::Accepted(t),
            Outcome::Declined => Outcome::Declined,
            Outcome::Cancelled => Outcome::Cancelled,
        }
    }

    /// Maps the answers of an accepted form with `f`.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Outcome<U> {
        match self {
            Outcome::Accepted(t) => Outcome::Accepted(f(t)),
            Outcome::Declined => Outcome::Declined,
            Outcome::Cancelled => Outcome::Cancelled,
        }
    }
}

/// The answers of an accepted response: one slot per question, in question order, `None`
/// where the question was left unanswered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answers<'f> {
    form: &'f DataForm,
    slots: Vec<Option<Answer>>,
}

/// One question's answer. Every `usize` is an index into the question's options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Answer {
    /// A `text` answer, as given (possibly empty when the question is optional).
    Text(String),
    /// A `single_select` answer: the chosen option.
    Choice(usize),
    /// A `multi_select` answer: the chosen options, in the order given.
    Choices(Vec<usize>),
    /// A `resource` answer: the chosen offered resource.
    Resource(usize),
    /// A `resources` answer: the chosen offered resources, in the order given.
    Resources(Vec<usize>),
    /// A `files` answer: offered resources and user-added files, in the order given.
    Files(Vec<FileAnswer>),
}

/// One item of a `files` answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FileAnswer {
    /// An offered resource, by its index in the question's options.
    Offered(usize),
    /// A file the person added (rule R27).
    Local {
        /// The `file:` URI as the host sent it.
        uri: String,
        /// The absolute local path, percent-decoded.
        path: String,
    },
}

/// A borrowed view of one item of a `files` answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileRefView<'a> {
    /// An offered resource.
    Offered {
        /// Its URI.
        uri: &'a str,
    },
    /// A file the person added.
    Local {
        /// The `file:` URI as the host sent it.
        uri: &'a str,
        /// The absolute local path, percent-decoded.
        path: &'a str,
    },
}

impl<'a> FileRefView<'a> {
    /// The URI as it appears in the answer.
    pub fn uri(&self) -> &'a str {
        match *self {
            FileRefView::Offered { uri } | FileRefView::Local { uri, .. } => uri,
        }
    }
}

impl<'f> Answers<'f> {
    /// The form the answers belong to.
    pub fn form(&self) -> &'f DataForm {
        self.form
    }

    fn get(&self, question_index: usize) -> Option<&Answer> {
        self.slots.get(question_index)?.as_ref()
    }

    /// Whether the question with `id` was answered.
    pub fn is_answered(&self, id: &str) -> bool {
        self.form
            .question_index(id)
            .is_some_and(|i| self.get(i).is_some())
    }

    /// How many questions were answered.
    pub fn answered(&self) -> usize {
        self.slots.iter().filter(|s| s.is_some()).count()
    }

    fn indexed(&self, id: &str) -> Option<(&'f QuestionSpec, &Answer)> {
        let i = self.form.question_index(id)?;
        let q = self.form.questions().get(i)?;
        Some((&q.kind, self.get(i)?))
    }

    /// The `text` answer to `id`.
    pub fn text(&self, id: &str) -> Option<&str> {
        match self.indexed(id)? {
            (_, Answer::Text(t)) => Some(t),
            _ => None,
        }
    }

    /// The chosen option id of the `single_select` question `id`.
    pub fn choice(&self, id: &str) -> Option<&'f str> {
        match self.indexed(id)? {
            (q, Answer::Choice(i)) => q.choice_options().get(*i).map(|o| o.id.as_str()),
            _ => None,
        }
    }

    /// The chosen option ids of the `multi_select` question `id`, in the order given.
    pub fn choices(&self, id: &str) -> Option<Vec<&'f str>> {
        match self.indexed(id)? {
            (q, Answer::Choices(list)) => {
                let options = q.choice_options();
                list.iter()
                    .map(|i| options.get(*i).map(|o| o.id.as_str()))
                    .collect()
            }
            _ => None,
        }
    }

    /// The chosen offered URI of the `resource` question `id`.
    pub fn resource(&self, id: &str) -> Option<&'f str> {
        match self.indexed(id)? {
            (q, Answer::Resource(i)) => q.resource_options().get(*i).map(|o| o.uri.as_str()),
            _ => None,
        }
    }

    /// The chosen offered URIs of the `resources` question `id`, in the order given.
    pub fn resources(&self, id: &str) -> Option<Vec<&'f str>> {
        match self.indexed(id)? {
            (q, Answer::Resources(list)) => {
                let options = q.resource_options();
                list.iter()
                    .map(|i| options.get(*i).map(|o| o.uri.as_str()))
                    .collect()
            }
            _ => None,
        }
    }

    /// The items of the `files` question `id`, in the order given.
    pub fn files(&self, id: &str) -> Option<Vec<FileRefView<'_>>> {
        match self.indexed(id)? {
            (q, Answer::Files(list)) => {
                let options = q.resource_options();
                list.iter()
                    .map(|f| match f {
                        FileAnswer::Offered(i) => options.get(*i).map(|o| FileRefView::Offered {
                            uri: o.uri.as_str(),
                        }),
                        FileAnswer::Local { uri, path } => Some(FileRefView::Local {
                            uri: uri.as_str(),
                            path: path.as_str(),
                        }),
                    })
                    .collect()
            }
            _ => None,
        }
    }
}

/// The sink of the untyped checker: one slot per question.
struct SlotSink<'f> {
    form: &'f DataForm,
    slots: Vec<Option<Answer>>,
}

impl SlotSink<'_> {
    fn set(&mut self, q: usize, answer: Answer) -> bool {
        match self.slots.get_mut(q) {
            Some(slot) => {
                *slot = Some(answer);
                true
            }
            None => false,
        }
    }

    fn list(&mut self, q: usize) -> Option<&mut Answer> {
        self.slots.get_mut(q)?.as_mut()
    }
}

impl seed::Sink for SlotSink<'_> {
    fn clear(&mut self) {
        self.slots.iter_mut().for_each(|slot| *slot = None);
    }

    fn text(&mut self, q: usize, v: String) -> bool {
        self.set(q, Answer::Text(v))
    }

    fn choice(&mut self, q: usize, option: usize) -> bool {
        self.set(q, Answer::Choice(option))
    }

    fn resource(&mut self, q: usize, option: usize) -> bool {
        self.set(q, Answer::Resource(option))
    }

    fn array(&mut self, q: usize) -> bool {
        let empty = match self.form.questions().get(q).map(|q| &q.kind) {
            Some(QuestionSpec::MultiSelect { .. }) => Answer::Choices(Vec::new()),
            Some(QuestionSpec::Resources { .. }) => Answer::Resources(Vec::new()),
            Some(QuestionSpec::Files { .. }) => Answer::Files(Vec::new()),
            _ => return false,
        };
        self.set(q, empty)
    }

    fn choice_item(&mut self, q: usize, option: usize) -> bool {
        match self.list(q) {
            Some(Answer::Choices(list)) => {
                list.push(option);
                true
            }
            _ => false,
        }
    }

    fn resource_item(&mut self, q: usize, option: usize) -> bool {
        match self.list(q) {
            Some(Answer::Resources(list)) => {
                list.push(option);
                true
            }
            _ => false,
        }
    }

    fn file_offered(&mut self, q: usize, option: usize) -> bool {
        match self.list(q) {
            Some(Answer::Files(list)) => {
                list.push(FileAnswer::Offered(option));
                true
            }
            _ => false,
        }
    }

    fn file_local(&mut self, q: usize, uri: String, path: String) -> bool {
        match self.list(q) {
            Some(Answer::Files(list)) => {
                list.push(FileAnswer::Local { uri, path });
                true
            }
            _ => false,
        }
    }

    fn local_given(&self, q: usize, path: &str) -> bool {
        match self.slots.get(q) {
            Some(Some(Answer::Files(list))) => list
                .iter()
                .any(|f| matches!(f, FileAnswer::Local { path: p, .. } if p == path)),
            _ => false,
        }
    }
}

/// A response to check: JSON text or an already-parsed value.
#[derive(Clone, Copy)]
pub(crate) enum Source<'a> {
    Text(&'a str),
    Value(&'a serde_json::Value),
}

impl DataForm {
    /// Checks a host response given as JSON text against this form (rules V1–V8), in one
    /// streaming pass: no `serde_json::Value` tree is built.
    ///
    /// Any failure, including text that is not JSON, is one `invalid_response` error whose
    /// message names the path and the rule (`content.format: "pdfx" is not an offered option
    /// id (V4)`); no answer is returned with it.
    ///
    /// The check stops at the first failure; once a response is refused, it is read again
    /// part by part so that the error lists every problem, in document order, up to
    /// [`FINDINGS_MAX`](crate::error::FINDINGS_MAX) (the rest are counted in
    /// [`FormError::more_findings`]): one finding per top-level key, per `content` entry,
    /// per item of an array answer and per required question left out. Items past
    /// `maxItems + 1` are only counted by the answer's count finding; a response or `content`
    /// that is not an object is one finding; text that stops being JSON after the first
    /// problem gives that problem and the syntax error.
    ///
    /// ```
    /// use forms_runtime::data::{FormSpec, Question, QuestionSpec};
    /// use forms_runtime::DataForm;
    ///
    /// let text = |id: &str| Question {
    ///     id: id.into(),
    ///     title: id.into(),
    ///     description: None,
    ///     required: true,
    ///     kind: QuestionSpec::Text { max_length: None },
    /// };
    /// let form = DataForm::new(FormSpec {
    ///     message: "About you".into(),
    ///     questions: vec![text("name"), text("city")],
    /// })?;
    /// let err = form
    ///     .check_response(r#"{"action":"accept","content":{"name":" ","age":3}}"#)
    ///     .unwrap_err();
    /// let found: Vec<String> = err.findings().iter().map(|f| f.to_string()).collect();
    /// assert_eq!(
    ///     found,
    ///     [
    ///         "content.name: is required and must contain a non-whitespace character (V3)",
    ///         r#"content: "age" is not a question id of the form (V2)"#,
    ///         "content.city: is required and was not answered (V2)",
    ///     ]
    /// );
    /// assert_eq!(err.more_findings(), 0);
    /// # Ok::<(), forms_runtime::FormError>(())
    /// ```
    pub fn check_response(&self, text: &str) -> Result<Outcome<Answers<'_>>, FormError> {
        self.check_slots(Source::Text(text))
    }

    /// Checks an already-parsed host response; the same checks and messages as
    /// [`DataForm::check_response`] (duplicate keys cannot be seen in a parsed value).
    pub fn check_response_value(
        &self,
        value: &serde_json::Value,
    ) -> Result<Outcome<Answers<'_>>, FormError> {
        self.check_slots(Source::Value(value))
    }

    fn check_slots(&self, source: Source<'_>) -> Result<Outcome<Answers<'_>>, FormError> {
        self.check_slots_with(source, false)
    }

    /// [`DataForm::check_response`] with serde_json reading the text (`serde`), or the
    /// runtime's own reader first.
    pub(crate) fn check_slots_with(
        &self,
        source: Source<'_>,
        serde: bool,
    ) -> Result<Outcome<Answers<'_>>, FormError> {
        let mut sink = SlotSink {
            form: self,
            slots: std::iter::repeat_with(|| None)
                .take(self.questions().len())
                .collect(),
        };
        let checked = if serde {
            self.check_into_serde(source, &mut sink)
        } else {
            self.check_into(source, &mut sink)
        };
        Ok(match checked? {
            Action::Accept => Outcome::Accepted(Answers {
                form: self,
                slots: sink.slots,
            }),
            Action::Decline => Outcome::Declined,
            Action::Cancel => Outcome::Cancelled,
        })
    }

    /// Checks a response and hands every checked answer to `sink`. The sink's contents are
    /// meaningful only when the result is `Ok(Action::Accept)`.
    pub(crate) fn check_into<S: seed::Sink>(
        &self,
        source: Source<'_>,
        sink: &mut S,
    ) -> Result<Action, FormError> {
        if let Source::Text(text) = source {
            // The runtime's own reader first; where it stops without a refusal of the
            // seeds (text that is not JSON, or anything else it leaves to serde_json),
            // serde_json reads the text again from the start, into an emptied sink.
            let ctx = seed::Ctx::new(self);
            let seed = seed::ResponseSeed {
                ctx: &ctx,
                sink: &mut *sink,
            };
            let mut de = crate::json::de::Deserializer::new(text);
            match seed.deserialize(&mut de).and_then(|r| de.end().map(|()| r)) {
                Ok(action) => return Ok(action),
                Err(_) => {
                    if let Some(first) = ctx.take_failure() {
                        return Err(seed::refusal(self, source, first));
                    }
                }
            }
            sink.clear();
        }
        self.check_into_serde(source, sink)
    }

    /// [`DataForm::check_into`] with serde_json reading the text: the reference the runtime's
    /// own reader is checked against.
    pub(crate) fn check_into_serde<S: seed::Sink>(
        &self,
        source: Source<'_>,
        sink: &mut S,
    ) -> Result<Action, FormError> {
        let ctx = seed::Ctx::new(self);
        let seed = seed::ResponseSeed { ctx: &ctx, sink };
        let result = match source {
            Source::Text(text) => {
                let mut de = serde_json::Deserializer::from_str(text);
                seed.deserialize(&mut de).and_then(|r| de.end().map(|()| r))
            }
            Source::Value(value) => seed.deserialize(value),
        };
        result.map_err(|e| match ctx.take_failure() {
            // Refused for certain: now collect every other problem.
            Some(first) => seed::refusal(self, source, first),
            None => FormError::invalid_response(not_json(source, &e)),
        })
    }
}

/// The finding for a response the checker could not read at all: text that is not JSON (or a
/// value the deserializer refused before any rule was checked).
fn not_json(source: Source<'_>, e: &serde_json::Error) -> Finding {
    match source {
        Source::Text(text) if !e.is_data() => Finding::new(
            JsonPath::response(),
            Some(Rule::V1),
            crate::syntax::not_json(text, e),
        ),
        _ => Finding::new(JsonPath::response(), Some(Rule::V1), e.to_string()),
    }
}
