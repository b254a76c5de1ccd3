//! A validated form with its native request computed once.

use crate::answer::Response;
use crate::data::DataForm;
use crate::error::FormError;
use std::sync::Arc;

/// A validated [`DataForm`] together with its native request JSON, compiled once.
///
/// Cloning is cheap (one reference count): a form built at start-up can be handed to every
/// request without recompiling it. Every value of this type went through
/// [`DataForm::new`] or [`DataForm::from_json`], so it satisfies rules R1–R27.
///
/// ```
/// use forms_runtime::data::{FormSpec, Question, QuestionSpec};
/// use forms_runtime::{DataForm, PreparedForm};
///
/// let form = PreparedForm::new(DataForm::new(FormSpec {
///     message: "What would you like to understand?".into(),
///     questions: vec![Question {
///         id: "goal".into(),
///         title: "What would you like to understand?".into(),
///         description: None,
///         required: false,
///         kind: QuestionSpec::Text { max_length: None },
///     }],
/// })?);
/// let copy = form.clone();
/// assert_eq!(copy.native_json(), form.native_json());
/// assert_eq!(form.data().questions().len(), 1);
/// # Ok::<(), forms_runtime::FormError>(())
/// ```
#[derive(Debug, Clone)]
pub struct PreparedForm {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    data: DataForm,
    native_json: String,
}

impl PreparedForm {
    /// Compiles the native request of `data` (rules N1–N10) and keeps both.
    pub fn new(data: DataForm) -> PreparedForm {
        let native_json = data.native_json();
        PreparedForm {
            inner: Arc::new(Inner { data, native_json }),
        }
    }

    /// The validated Data form.
    pub fn data(&self) -> &DataForm {
        &self.inner.data
    }

    /// The native request params (`{"mode":"form","message":…,"requestedSchema":…}`) as
    /// compact JSON, computed when the form was prepared.
    pub fn native_json(&self) -> &str {
        &self.inner.native_json
    }

    /// Checks a host response given as JSON text against the form (rules V1–V8); see
    /// [`DataForm::check_response`].
    pub fn check_response(&self, response: &str) -> Result<Response<'_>, FormError> {
        self.inner.data.check_response(response)
    }

    /// Checks an already-parsed host response; see [`DataForm::check_response_value`].
    pub fn check_response_value(
        &self,
        response: &serde_json::Value,
    ) -> Result<Response<'_>, FormError> {
        self.inner.data.check_response_value(response)
    }
}

impl From<DataForm> for PreparedForm {
    fn from(data: DataForm) -> Self {
        PreparedForm::new(data)
    }
}

impl PartialEq for PreparedForm {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner) || self.inner.data == other.inner.data
    }
}

impl Eq for PreparedForm {}
