//! Client capability checks, read through rmcp's typed [`ClientCapabilities`].

use rmcp::model::ClientCapabilities;

/// The extension key of the host's native forms.
pub const EXTENSION: &str = "openai/elicitation";

/// Whether `caps` advertise `extensions["openai/elicitation"].form` (present and neither
/// `null` nor `false`).
pub(crate) fn legacy_form_support(caps: Option<&ClientCapabilities>) -> bool {
    caps.is_some_and(native_forms)
}

/// Whether `caps` advertise both `elicitation.form` and
/// `extensions["openai/elicitation"].form`, as the multi-round-trip transport needs.
pub(crate) fn input_round_form_support(caps: Option<&ClientCapabilities>) -> bool {
    caps.is_some_and(|caps| core_forms(caps) && native_forms(caps))
}

/// `elicitation.form`: rmcp reads it as a typed capability, absent for a missing key or
/// `null`.
fn core_forms(caps: &ClientCapabilities) -> bool {
    caps.elicitation
        .as_ref()
        .is_some_and(|elicitation| elicitation.form.is_some())
}

/// `extensions["openai/elicitation"].form`: the extension's settings are a JSON object, and
/// its `form` member counts unless it is `null` or `false`.
fn native_forms(caps: &ClientCapabilities) -> bool {
    caps.extensions
        .as_ref()
        .and_then(|extensions| extensions.get(EXTENSION))
        .and_then(|settings| settings.get("form"))
        .is_some_and(|form| {
            !matches!(
                form,
                serde_json::Value::Null | serde_json::Value::Bool(false)
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn caps(value: serde_json::Value) -> ClientCapabilities {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn reads_the_typed_fields() {
        let native = json!({"openai/elicitation": {"form": {}}});
        let both = caps(json!({"elicitation": {"form": {}}, "extensions": native}));
        assert!(legacy_form_support(Some(&both)));
        assert!(input_round_form_support(Some(&both)));
        let extension_only = caps(json!({"extensions": native}));
        assert!(legacy_form_support(Some(&extension_only)));
        assert!(!input_round_form_support(Some(&extension_only)));
        let core_only = caps(json!({"elicitation": {"form": {}}}));
        assert!(!legacy_form_support(Some(&core_only)));
        assert!(!input_round_form_support(Some(&core_only)));
        for form in [json!(null), json!(false)] {
            let off = caps(json!({"elicitation": {"form": {}},
                "extensions": {"openai/elicitation": {"form": form}}}));
            assert!(!legacy_form_support(Some(&off)), "{form}");
            assert!(!input_round_form_support(Some(&off)), "{form}");
        }
        for form in [json!(true), json!({"files": true})] {
            let on = caps(json!({"extensions": {"openai/elicitation": {"form": form}}}));
            assert!(legacy_form_support(Some(&on)), "{form}");
        }
        let no_form = caps(json!({"extensions": {"openai/elicitation": {}}}));
        assert!(!legacy_form_support(Some(&no_form)));
        let null_core = caps(json!({"elicitation": {"form": null}, "extensions": native}));
        assert!(!input_round_form_support(Some(&null_core)));
        assert!(!legacy_form_support(None));
        assert!(!input_round_form_support(None));
    }
}
