//! The two readers of Data arguments and host answers side by side, for the differential fuzz target and its
//! replay (`forms_test_kit::fuzz::targets::reader`). Not part of the public API.

use crate::answer::{Answers, Outcome, Source};
use crate::data::DataForm;
use crate::error::FormError;

/// `DataForm::from_json` with its tree read by serde_json alone, as before the runtime had a
/// reader of its own.
pub fn data_form_from_json_serde(text: &str) -> Result<DataForm, FormError> {
    crate::data::parse::from_json_serde(text)
}

/// The JSON tree of Data arguments read by the runtime's own reader (`None` where it gives
/// up and serde_json reads the text) and by serde_json, each written out (`Debug`) with its
/// flags, or the refusal.
#[allow(clippy::type_complexity)]
pub fn data_trees(text: &str) -> (Option<Result<String, FormError>>, Result<String, FormError>) {
    crate::data::parse::trees_both_ways(text)
}

/// `form.check_response(text)` with serde_json reading the text, as before the runtime had a
/// reader of its own.
pub fn check_response_serde<'f>(
    form: &'f DataForm,
    text: &str,
) -> Result<Outcome<Answers<'f>>, FormError> {
    form.check_slots_with(Source::Text(text), true)
}
