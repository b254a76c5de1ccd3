//! The Data contract (model-facing): strict model types, parsing and validation (R1–R27).

mod model;
mod parse;
mod validate;

pub use model::{ChoiceOption, FormSpec, Image, Question, QuestionSpec, ResourceOption};
pub(crate) use validate::Violations;

use crate::error::FormError;
use forms_rules::SelectionLimits;

/// Limits of one question with their defaults filled in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Resolved {
    pub(crate) max_length: u32,
    pub(crate) min_items: u32,
    pub(crate) max_items: u32,
}

/// A validated Data form. It can only be made by [`DataForm::new`] or
/// [`DataForm::from_json`], so every value of this type satisfies rules R1–R27.
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataForm {
    spec: FormSpec,
    resolved: Vec<Resolved>,
}

impl DataForm {
    /// Validates `spec` against rules R1–R27 and returns the form, or one
    /// `invalid_arguments` error that lists every violation with its JSON path and rule.
    /// Titles and resource names are trimmed.
    pub fn new(spec: FormSpec) -> Result<DataForm, FormError> {
        validate::validate(spec)
    }

    pub(crate) fn from_parts(spec: FormSpec, resolved: Vec<Resolved>) -> DataForm {
        DataForm { spec, resolved }
    }

    /// The form header.
    pub fn message(&self) -> &str {
        &self.spec.message
    }

    /// The questions, in display order.
    pub fn questions(&self) -> &[Question] {
        &self.spec.questions
    }

    /// The whole validated model.
    pub fn spec(&self) -> &FormSpec {
        &self.spec
    }

    /// The position of the question with `id`.
    pub fn question_index(&self, id: &str) -> Option<usize> {
        self.spec.questions.iter().position(|q| q.id == id)
    }

    /// The `maxLength` of the text question at `index`, default applied (R11); `None` when
    /// there is no such text question.
    pub fn max_length(&self, index: usize) -> Option<u32> {
        let q = self.spec.questions.get(index)?;
        match q.kind {
            QuestionSpec::Text { .. } => self.resolved.get(index).map(|r| r.max_length),
            _ => None,
        }
    }

    /// The selection limits of the array question at `index`, defaults applied (R18, R19);
    /// `None` when there is no such array question.
    pub fn selection_limits(&self, index: usize) -> Option<SelectionLimits> {
        let q = self.spec.questions.get(index)?;
        if !q.kind.kind().is_array() {
            return None;
        }
        self.resolved.get(index).map(|r| SelectionLimits {
            min_items: r.min_items,
            max_items: r.max_items,
        })
    }
}
