//! The Data contract (model-facing): strict model types, parsing and validation (R1–R27).

mod findings;
mod model;
pub(crate) mod parse;
mod serialize;
mod size;
mod validate;

pub use model::{ChoiceOption, FormSpec, Image, Question, QuestionSpec, ResourceOption};

use crate::error::FormError;
use forms_rules::SelectionLimits;
use std::fmt;
use std::sync::Arc;
use std::sync::OnceLock;

/// Limits of one question with their defaults filled in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Resolved {
    pub(crate) max_length: u32,
    pub(crate) min_items: u32,
    pub(crate) max_items: u32,
}

/// A validated Data form. It can only be made by [`DataForm::new`], [`DataForm::from_json`]
/// or [`DataForm::from_value`], so every value of this type satisfies rules R1–R27.
///
/// Cloning is cheap (one reference count), and the native request is compiled once, the
/// first time it is asked for: a form built at start-up can be handed to every request.
///
/// ```
/// use forms_runtime::data::{FormSpec, Question, QuestionSpec};
/// use forms_runtime::DataForm;
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
/// assert_eq!(form.max_length(0), Some(4000));
/// # Ok::<(), forms_runtime::FormError>(())
/// ```
#[derive(Clone)]
pub struct DataForm {
    inner: Arc<Inner>,
}

struct Inner {
    spec: FormSpec,
    resolved: Vec<Resolved>,
    native_json: OnceLock<String>,
    /// Per question, the decoded local path of each offered option a user could also add as
    /// a file (R27), for telling one file named twice in an answer (V6); computed the first
    /// time an answer needs it.
    offered_paths: OnceLock<Vec<Vec<Option<String>>>>,
}

impl PartialEq for DataForm {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
            || (self.inner.spec == other.inner.spec && self.inner.resolved == other.inner.resolved)
    }
}

impl Eq for DataForm {}

impl fmt::Debug for DataForm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DataForm")
            .field("message", &self.inner.spec.message)
            .field("questions", &self.inner.spec.questions)
            .finish()
    }
}

impl DataForm {
    /// Validates `spec` against rules R1–R27 and returns the form, or one
    /// `invalid_arguments` error that lists the violations with their JSON paths and rules
    /// (the first [`FINDINGS_MAX`](crate::error::FINDINGS_MAX) in document order; the rest
    /// are counted). Titles and resource names are trimmed.
    pub fn new(spec: FormSpec) -> Result<DataForm, FormError> {
        validate::validate(spec)
    }

    pub(crate) fn from_parts(spec: FormSpec, resolved: Vec<Resolved>) -> DataForm {
        DataForm {
            inner: Arc::new(Inner {
                spec,
                resolved,
                native_json: OnceLock::new(),
                offered_paths: OnceLock::new(),
            }),
        }
    }

    /// The native `openai/elicitation/create` params (rules N1–N10) as compact JSON text,
    /// compiled the first time they are asked for and kept; see [`DataForm::native`] for the
    /// typed view.
    pub fn native_json(&self) -> &str {
        self.inner.native_json.get_or_init(|| {
            // These types serialize only strings, integers, sequences and string-keyed maps,
            // so serialization to a string cannot fail.
            serde_json::to_string(&self.native()).unwrap_or_default()
        })
    }

    /// The decoded local path of the offered option `option` of the `files` question
    /// `question`, when its URI is a `file:` URI a user could add (R27).
    pub(crate) fn offered_path(&self, question: usize, option: usize) -> Option<&str> {
        let paths = self.inner.offered_paths.get_or_init(|| {
            self.inner
                .spec
                .questions
                .iter()
                .map(|q| match &q.kind {
                    QuestionSpec::Files { options, .. } => options
                        .iter()
                        .map(|o| {
                            // Only `file:` URIs can name a local file; skip the others cheaply.
                            o.uri
                                .get(..5)
                                .is_some_and(|s| s.eq_ignore_ascii_case("file:"))
                                .then(|| forms_rules::check_file_uri(&o.uri).ok())
                                .flatten()
                                .map(|f| f.path)
                        })
                        .collect(),
                    _ => Vec::new(),
                })
                .collect()
        });
        paths.get(question)?.get(option)?.as_deref()
    }

    /// The form header.
    pub fn message(&self) -> &str {
        &self.inner.spec.message
    }

    /// The questions, in display order.
    pub fn questions(&self) -> &[Question] {
        &self.inner.spec.questions
    }

    /// The whole validated model.
    pub fn spec(&self) -> &FormSpec {
        &self.inner.spec
    }

    /// The position of the question with `id`.
    pub fn question_index(&self, id: &str) -> Option<usize> {
        self.inner.spec.questions.iter().position(|q| q.id == id)
    }

    /// The `maxLength` of the text question at `index`, default applied (R11); `None` when
    /// there is no such text question.
    pub fn max_length(&self, index: usize) -> Option<u32> {
        let q = self.inner.spec.questions.get(index)?;
        match q.kind {
            QuestionSpec::Text { .. } => self.inner.resolved.get(index).map(|r| r.max_length),
            _ => None,
        }
    }

    /// The selection limits of the array question at `index`, defaults applied (R18, R19);
    /// `None` when there is no such array question.
    pub fn selection_limits(&self, index: usize) -> Option<SelectionLimits> {
        let q = self.inner.spec.questions.get(index)?;
        if !q.kind.kind().is_array() {
            return None;
        }
        self.inner.resolved.get(index).map(|r| SelectionLimits {
            min_items: r.min_items,
            max_items: r.max_items,
        })
    }
}

impl DataForm {
    /// Parses Data arguments from JSON text strictly and validates them against rules
    /// R1–R27; on failure returns one `invalid_arguments` error listing the problems as
    /// `path: problem (Rule)`: the first [`FINDINGS_MAX`](crate::error::FINDINGS_MAX) in
    /// document order, with a count of the rest ([`FormError::more_findings`]).
    ///
    /// Refusing costs about as much as accepting: arrays and objects far larger or deeper than
    /// any valid form are read to their end but only their first elements are kept, and once
    /// the structure and types alone have more problems than the bound the values are not
    /// checked (the count of further problems is then a lower bound,
    /// [`FormError::more_findings_is_lower_bound`]).
    ///
    /// Strict means: text that cannot fit in 1 MiB is refused before parsing (R4); every
    /// object refuses unknown properties (R3) and **duplicate keys** (R3); `null` is refused
    /// for every field, optional ones included; integer fields take integral numbers only
    /// (`1e2` is 100, `4.5` is refused); a choice option's `preview` is read as `thumbnail`
    /// (both together are an R23 error). Syntax errors, nesting deeper than 127 levels, lone
    /// surrogates, a byte order mark and trailing characters are refused with their line and
    /// column.
    ///
    /// ```
    /// use forms_runtime::{DataForm, ErrorCode};
    ///
    /// let form = DataForm::from_json(
    ///     r#"{"message":"Pick one","questions":[{"id":"format","type":"single_select",
    ///        "title":"Report format","required":true,
    ///        "options":[{"id":"pdf","title":"PDF"},{"id":"html","title":"Web page"}]}]}"#,
    /// )?;
    /// assert_eq!(form.questions()[0].kind.choice_options().len(), 2);
    ///
    /// let err = DataForm::from_json(
    ///     r#"{"message":"Pick one","questions":[{"id":"9x","type":"text",
    ///        "title":"Goal","required":false,"default":"x"}]}"#,
    /// )
    /// .unwrap_err();
    /// assert_eq!(err.code(), ErrorCode::InvalidArguments);
    /// assert!(err.message().contains(r#"questions[0].id: "9x" must start with an ASCII letter (R6)"#));
    /// assert!(err.message().contains("questions[0].default: is not accepted"));
    /// # Ok::<(), forms_runtime::FormError>(())
    /// ```
    pub fn from_json(text: &str) -> Result<DataForm, FormError> {
        parse::from_json(text)
    }

    /// Validates Data arguments already parsed into a [`serde_json::Value`], with the same
    /// checks as [`DataForm::from_json`] (a `Value` cannot hold duplicate keys; nesting deeper
    /// than 127 levels is refused).
    ///
    /// ```
    /// use forms_runtime::DataForm;
    /// let value = serde_json::json!({
    ///     "message": "What would you like to understand?",
    ///     "questions": [{"id": "goal", "type": "text",
    ///                    "title": "What would you like to understand?", "required": false}]
    /// });
    /// let form = DataForm::from_value(&value)?;
    /// assert_eq!(form.max_length(0), Some(4000));
    /// # Ok::<(), forms_runtime::FormError>(())
    /// ```
    pub fn from_value(value: &serde_json::Value) -> Result<DataForm, FormError> {
        parse::from_value(value)
    }

    /// [`DataForm::from_value`] of an object given as its members (the `arguments` of a tool
    /// call, as MCP libraries hand them over), with no copy into a `Value`.
    ///
    /// ```
    /// use forms_runtime::DataForm;
    /// let value = serde_json::json!({
    ///     "message": "What would you like to understand?",
    ///     "questions": [{"id": "goal", "type": "text",
    ///                    "title": "What would you like to understand?", "required": false}]
    /// });
    /// let members = value.as_object().unwrap();
    /// assert_eq!(DataForm::from_object(members)?, DataForm::from_value(&value)?);
    /// # Ok::<(), forms_runtime::FormError>(())
    /// ```
    pub fn from_object(
        members: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<DataForm, FormError> {
        parse::from_object(members)
    }

    /// The normalized Data arguments as compact JSON: keys in canonical order, titles and
    /// resource names trimmed, `preview` written as `thumbnail`, and optional fields that were
    /// not given left out (no default is filled in). `DataForm::from_json(&form.to_json())`
    /// gives back an equal form.
    ///
    /// ```
    /// use forms_runtime::DataForm;
    /// let form = DataForm::from_json(
    ///     r#"{"questions":[{"required":false,"title":" Goal ","type":"text","id":"goal"}],
    ///        "message":"Tell me"}"#,
    /// )?;
    /// assert_eq!(
    ///     form.to_json(),
    ///     r#"{"message":"Tell me","questions":[{"id":"goal","type":"text","title":"Goal","required":false}]}"#
    /// );
    /// assert_eq!(DataForm::from_json(&form.to_json())?, form);
    /// # Ok::<(), forms_runtime::FormError>(())
    /// ```
    pub fn to_json(&self) -> String {
        serialize::to_json(self)
    }
}
