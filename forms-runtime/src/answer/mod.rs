//! Host answers: checking a response against its form (rules V1–V8) and the tool-result
//! payload.
//!
//! [`DataForm::check_response`] reads the host's JSON text in one streaming pass: content keys
//! are matched against the question ids and choices against the offered option ids as they
//! are read, no `serde_json::Value` tree is built, and only the answers' own strings and
//! vectors are allocated. Any failure is one `invalid_response` [`FormError`] naming the path
//! and the rule; no partial answers are returned.
//!
//! ```
//! use forms_runtime::data::{ChoiceOption, FormSpec, Question, QuestionSpec};
//! use forms_runtime::{DataForm, Response};
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
//! let response = form.check_response(r#"{"action":"accept","content":{"format":"pdf"}}"#)?;
//! let answers = response.answers().expect("an accepted response");
//! assert_eq!(answers.choice("format"), Some("pdf"));
//! // The tool-result payload, content keys in question order.
//! assert_eq!(
//!     serde_json::to_string(&response).unwrap(),
//!     r#"{"action":"accept","content":{"format":"pdf"}}"#
//! );
//!
//! assert_eq!(form.check_response(r#"{"action":"decline"}"#)?, Response::Decline);
//!
//! let err = form
//!     .check_response(r#"{"action":"accept","content":{"format":"pdfx"}}"#)
//!     .unwrap_err();
//! assert_eq!(err.code, forms_runtime::ErrorCode::InvalidResponse);
//! assert_eq!(err.message, r#"content.format: "pdfx" is not an offered option id (V4)"#);
//! # Ok::<(), forms_runtime::FormError>(())
//! ```

mod seed;
mod ser;

use crate::data::{DataForm, QuestionSpec};
use crate::error::FormError;
use forms_rules::Rule;
use serde::de::DeserializeSeed;

pub(crate) use seed::{Action, Sink};

/// A checked host response. It serializes as the tool-result payload
/// (`{"action":"accept","content":{…}}`, `{"action":"decline"}`, `{"action":"cancel"}`), ready
/// for [`ToolResult::answer`](crate::ToolResult::answer).
///
/// ```
/// use forms_runtime::data::{FormSpec, Question, QuestionSpec};
/// use forms_runtime::{DataForm, ToolResult};
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
/// let response = form.check_response(r#"{"action":"cancel","_meta":{"reason":"closed"}}"#)?;
/// let result = serde_json::to_value(ToolResult::answer(&response)).unwrap();
/// assert_eq!(result["structuredContent"], serde_json::json!({"action": "cancel"}));
/// # Ok::<(), forms_runtime::FormError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Response<'f> {
    /// The person submitted the form; the answers satisfy every rule.
    Accept(Answers<'f>),
    /// The person declined to answer. No answers (V8).
    Decline,
    /// The person cancelled. No answers (V8).
    Cancel,
}

impl<'f> Response<'f> {
    /// The wire name of the action: `"accept"`, `"decline"` or `"cancel"`.
    pub fn action(&self) -> &'static str {
        match self {
            Response::Accept(_) => "accept",
            Response::Decline => "decline",
            Response::Cancel => "cancel",
        }
    }

    /// The answers of an accepted response; `None` for decline and cancel.
    pub fn answers(&self) -> Option<&Answers<'f>> {
        match self {
            Response::Accept(a) => Some(a),
            Response::Decline | Response::Cancel => None,
        }
    }

    /// The answers of an accepted response, by value; `None` for decline and cancel.
    pub fn into_answers(self) -> Option<Answers<'f>> {
        match self {
            Response::Accept(a) => Some(a),
            Response::Decline | Response::Cancel => None,
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
pub enum Answer {
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
pub enum FileAnswer {
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

    /// The answer to the question at `question_index`; `None` when unanswered.
    pub fn get(&self, question_index: usize) -> Option<&Answer> {
        self.slots.get(question_index)?.as_ref()
    }

    /// The answer to the question with `id`; `None` when unanswered or no such question.
    pub fn answer(&self, id: &str) -> Option<&Answer> {
        self.get(self.form.question_index(id)?)
    }

    /// One slot per question, in question order.
    pub fn slots(&self) -> &[Option<Answer>] {
        &self.slots
    }

    /// The slots, by value (one per question, in question order).
    pub fn into_slots(self) -> Vec<Option<Answer>> {
        self.slots
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
    pub fn check_response(&self, text: &str) -> Result<Response<'_>, FormError> {
        self.check_slots(Source::Text(text))
    }

    /// Checks an already-parsed host response; the same checks and messages as
    /// [`DataForm::check_response`] (duplicate keys cannot be seen in a parsed value).
    pub fn check_response_value(
        &self,
        value: &serde_json::Value,
    ) -> Result<Response<'_>, FormError> {
        self.check_slots(Source::Value(value))
    }

    fn check_slots(&self, source: Source<'_>) -> Result<Response<'_>, FormError> {
        let mut sink = SlotSink {
            form: self,
            slots: std::iter::repeat_with(|| None)
                .take(self.questions().len())
                .collect(),
        };
        Ok(match self.check_into(source, &mut sink)? {
            Action::Accept => Response::Accept(Answers {
                form: self,
                slots: sink.slots,
            }),
            Action::Decline => Response::Decline,
            Action::Cancel => Response::Cancel,
        })
    }

    /// Checks a response and hands every checked answer to `sink`. The sink's contents are
    /// meaningful only when the result is `Ok(Action::Accept)`.
    pub(crate) fn check_into<S: seed::Sink>(
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
        result.map_err(|e| failure(&ctx, &e))
    }
}

/// The `invalid_response` error for a failed check: the recorded rule failure, else the
/// deserializer's own error (text that is not JSON).
fn failure(ctx: &seed::Ctx<'_>, e: &serde_json::Error) -> FormError {
    let message = match ctx.take_failure() {
        Some(m) => m,
        None if e.is_data() => format!("response: {e} ({})", Rule::V1),
        None => format!(
            "response: is not valid JSON: {} ({})",
            forms_rules::describe_json_error(&e.to_string()),
            Rule::V1
        ),
    };
    FormError::invalid_response(message)
}
