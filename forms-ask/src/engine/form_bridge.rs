//! The bridge to Data forms: a question's form checked when it is opened, read back from a
//! request, and an answer checked against it.

use crate::error::{AskError, StoreError};
use crate::model::{Request, RequestId};
use crate::upload::{StoredUpload, Upload};
use forms_runtime::{DataForm, ErrorCode, FormError};

/// A form's arguments checked with rules R1–R27 and normalized as the runtime writes them.
pub(super) fn normalized_form(value: &serde_json::Value) -> Result<serde_json::Value, AskError> {
    let form = DataForm::from_value(value).map_err(AskError::Form)?;
    serde_json::from_str(&form.to_json())
        .map_err(|e| AskError::Store(StoreError::Corrupt(format!("a normalized form: {e}"))))
}

/// The stored form of a request, read back.
pub(crate) fn stored_form(r: &Request) -> Result<Option<DataForm>, AskError> {
    r.form
        .as_ref()
        .map(|value| {
            DataForm::from_value(value).map_err(|e| {
                AskError::Store(StoreError::Corrupt(format!(
                    "the form of request {}: {e}",
                    r.id
                )))
            })
        })
        .transpose()
}

/// A host response checked against a stored form (rules V1–V8), as the JSON value given,
/// with the files sent with it: a `files` answer names uploads (made the store's URIs) or
/// offered URIs, never a path (see [`crate::upload`]).
pub(super) fn checked_response(
    form: &serde_json::Value,
    id: &RequestId,
    text: &str,
    uploads: &[Upload],
) -> Result<(serde_json::Value, Vec<StoredUpload>), AskError> {
    let form = DataForm::from_value(form)
        .map_err(|e| AskError::Store(StoreError::Corrupt(format!("a stored form: {e}"))))?;
    if let Some((response, stored)) = crate::upload::prepare(&form, id, text, uploads)? {
        form.check_response_value(&response)
            .map_err(AskError::Form)?;
        return Ok((response, stored));
    }
    form.check_response(text).map_err(AskError::Form)?;
    let response = serde_json::from_str(text).map_err(|e| {
        AskError::Form(FormError::new(
            ErrorCode::InvalidResponse,
            format!("the response is not JSON: {e}"),
        ))
    })?;
    Ok((response, Vec::new()))
}
