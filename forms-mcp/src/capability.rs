//! Client capability checks.

use rmcp::model::ClientCapabilities;

/// The extension key of the host's native forms.
pub const EXTENSION: &str = "openai/elicitation";

/// Whether `caps` advertise `extensions["openai/elicitation"].form` (present and neither
/// `null` nor `false`).
pub(crate) fn legacy_form_support(caps: Option<&ClientCapabilities>) -> bool {
    let Some(caps) = caps else { return false };
    let Ok(value) = serde_json::to_value(caps) else {
        return false;
    };
    truthy(value.pointer("/extensions/openai~1elicitation/form"))
}

/// Whether `caps` advertise both `elicitation.form` and
/// `extensions["openai/elicitation"].form`, as the multi-round-trip transport needs.
pub(crate) fn mrtr_form_support(caps: Option<&ClientCapabilities>) -> bool {
    let Some(caps) = caps else { return false };
    let Ok(value) = serde_json::to_value(caps) else {
        return false;
    };
    truthy(value.pointer("/elicitation/form"))
        && truthy(value.pointer("/extensions/openai~1elicitation/form"))
}

fn truthy(value: Option<&serde_json::Value>) -> bool {
    !matches!(
        value,
        None | Some(serde_json::Value::Null) | Some(serde_json::Value::Bool(false))
    )
}
