//! Forms on hosts without the extension: a form compiled to a core MCP `elicitation/create`
//! request (the restricted schema of the MCP specification), for clients that advertise
//! `capabilities.elicitation` (form mode) but not `extensions["openai/elicitation"].form`.
//!
//! How each Data question maps onto a core `requestedSchema` property, and what a core host
//! cannot show, is stated once, in the guide: `docs/04-mcp-serving-and-asking.md`, "Forms on
//! hosts with core elicitation only"; `params_json` below builds exactly that mapping.
//!
//! A core answer has the shape of a native one: `{"action":"accept","content":{id: string |
//! [string…]}}` with option IDs for choices and offered URIs for resources, exactly the
//! values a native answer holds. So the answer goes, as the host sent it, to the same
//! answer checker (rules V1–V8) and the same typed decoding as a native answer.

use forms_runtime::data::{ChoiceOption, QuestionSpec, ResourceOption};
use forms_runtime::{DataForm, ErrorCode, FormError};
use rmcp::model::{ClientCapabilities, ElicitRequestParams};
use serde_json::{json, Map, Value};

/// The method of a core elicitation request.
pub(crate) const METHOD: &str = "elicitation/create";

/// Whether `caps` advertise core form elicitation: `elicitation.form`, or an `elicitation`
/// object naming no mode (which the specification reads as form mode only).
pub(crate) fn core_form_support(caps: Option<&ClientCapabilities>) -> bool {
    caps.and_then(|caps| caps.elicitation.as_ref())
        .is_some_and(|elicitation| elicitation.form.is_some() || elicitation.url.is_none())
}

/// Whether a core form carries `form` whole: no `files` question, no resource question
/// (its cards: name, description, type, icons and thumbnail), no option with a description
/// or a picture. A form that is not is asked in URL mode where the client has it.
pub(crate) fn fully_carried(form: &DataForm) -> bool {
    form.questions().iter().all(|q| match &q.kind {
        QuestionSpec::Text { .. } => true,
        QuestionSpec::SingleSelect { options } | QuestionSpec::MultiSelect { options, .. } => {
            options
                .iter()
                .all(|o| o.description.is_none() && o.thumbnail.is_none())
        }
        QuestionSpec::Resource { .. }
        | QuestionSpec::Resources { .. }
        | QuestionSpec::Files { .. } => false,
    })
}

/// The core `elicitation/create` params of `form`:
/// `{"mode":"form","message":…,"requestedSchema":{…}}`.
///
/// Errors: a `files` question → `unsupported_client` naming it.
pub(crate) fn params_json(form: &DataForm) -> Result<Value, FormError> {
    let mut properties = Map::new();
    for (index, q) in form.questions().iter().enumerate() {
        let mut property = Map::new();
        let head = |property: &mut Map<String, Value>, ty: &str| {
            property.insert("type".into(), json!(ty));
            property.insert("title".into(), json!(q.title));
            if let Some(description) = &q.description {
                property.insert("description".into(), json!(description));
            }
        };
        let limits = |property: &mut Map<String, Value>| {
            if let Some(limits) = form.selection_limits(index) {
                property.insert("minItems".into(), json!(limits.min_items));
                property.insert("maxItems".into(), json!(limits.max_items));
            }
        };
        match &q.kind {
            QuestionSpec::Text { .. } => {
                head(&mut property, "string");
                if q.required {
                    property.insert("minLength".into(), json!(1));
                }
                if let Some(max) = form.max_length(index) {
                    property.insert("maxLength".into(), json!(max));
                }
            }
            QuestionSpec::SingleSelect { options } => {
                head(&mut property, "string");
                property.insert("oneOf".into(), choices(options));
            }
            QuestionSpec::MultiSelect { options, .. } => {
                head(&mut property, "array");
                limits(&mut property);
                property.insert("items".into(), json!({"anyOf": choices(options)}));
            }
            QuestionSpec::Resource { options } => {
                head(&mut property, "string");
                property.insert("oneOf".into(), resources(options));
            }
            QuestionSpec::Resources { options, .. } => {
                head(&mut property, "array");
                limits(&mut property);
                property.insert("items".into(), json!({"anyOf": resources(options)}));
            }
            QuestionSpec::Files { .. } => {
                return Err(FormError::new(
                    ErrorCode::UnsupportedClient,
                    format!(
                        "questions[{index}] ({:?}) is a files question, which only a host with \
                         capabilities.extensions[\"openai/elicitation\"].form can show; this \
                         client advertised core elicitation only",
                        q.id
                    ),
                ));
            }
        }
        properties.insert(q.id.clone(), Value::Object(property));
    }
    let required: Vec<&str> = form
        .questions()
        .iter()
        .filter(|q| q.required)
        .map(|q| q.id.as_str())
        .collect();
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), json!(required));
    }
    Ok(json!({
        "mode": "form",
        "message": form.message(),
        "requestedSchema": schema,
    }))
}

/// The core params of `form` as rmcp's typed elicitation request params.
pub(crate) fn params(form: &DataForm) -> Result<ElicitRequestParams, FormError> {
    serde_json::from_value(params_json(form)?)
        .map_err(|e| FormError::new(ErrorCode::TransportError, e.to_string()))
}

fn choices(options: &[ChoiceOption]) -> Value {
    options
        .iter()
        .map(|o| json!({"const": o.id, "title": o.title}))
        .collect()
}

fn resources(options: &[ResourceOption]) -> Value {
    options
        .iter()
        .map(|o| json!({"const": o.uri, "title": o.title}))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn form(questions: Value) -> DataForm {
        DataForm::from_value(&json!({"message": "Set up", "questions": questions})).unwrap()
    }

    #[test]
    fn compiles_every_carried_kind_and_keeps_it_through_rmcp() {
        let form = form(json!([
            {"id": "goal", "type": "text", "title": "Goal", "required": true,
             "description": "What to learn"},
            {"id": "note", "type": "text", "title": "Note", "required": false, "maxLength": 20},
            {"id": "format", "type": "single_select", "title": "Format", "required": true,
             "options": [{"id": "pdf", "title": "PDF", "description": "dropped",
                          "thumbnail": {"src": "https://example.com/p.png"}},
                         {"id": "html", "title": "Web page"}]},
            {"id": "parts", "type": "multi_select", "title": "Parts", "required": false,
             "minItems": 1, "maxItems": 2,
             "options": [{"id": "a", "title": "A"}, {"id": "b", "title": "B"}]},
            {"id": "template", "type": "resource", "title": "Template", "required": false,
             "options": [{"uri": "https://example.com/t/1", "name": "t1", "title": "One",
                          "icons": [{"src": "https://example.com/i.png"}]}]},
            {"id": "sources", "type": "resources", "title": "Sources", "required": true,
             "options": [{"uri": "https://example.com/s/1", "name": "s1", "title": "S1"},
                         {"uri": "https://example.com/s/2", "name": "s2", "title": "S2"}]}
        ]));
        let expected = json!({"mode": "form", "message": "Set up", "requestedSchema": {
            "type": "object",
            "properties": {
                "goal": {"type": "string", "title": "Goal", "description": "What to learn",
                         "minLength": 1, "maxLength": 4000},
                "note": {"type": "string", "title": "Note", "maxLength": 20},
                "format": {"type": "string", "title": "Format",
                           "oneOf": [{"const": "pdf", "title": "PDF"},
                                     {"const": "html", "title": "Web page"}]},
                "parts": {"type": "array", "title": "Parts", "minItems": 1, "maxItems": 2,
                          "items": {"anyOf": [{"const": "a", "title": "A"},
                                              {"const": "b", "title": "B"}]}},
                "template": {"type": "string", "title": "Template",
                             "oneOf": [{"const": "https://example.com/t/1", "title": "One"}]},
                "sources": {"type": "array", "title": "Sources", "minItems": 1, "maxItems": 2,
                            "items": {"anyOf": [
                                {"const": "https://example.com/s/1", "title": "S1"},
                                {"const": "https://example.com/s/2", "title": "S2"}]}}
            },
            "required": ["goal", "format", "sources"]
        }});
        let compiled = params_json(&form).unwrap();
        assert_eq!(compiled, expected);
        // rmcp's typed request carries every key, in question order.
        let typed = serde_json::to_value(params(&form).unwrap()).unwrap();
        assert_eq!(typed, expected);
        let order: Vec<&String> = typed["requestedSchema"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(
            order,
            ["goal", "note", "format", "parts", "template", "sources"]
        );
    }

    #[test]
    fn a_files_question_is_unsupported_and_named() {
        let form = form(json!([
            {"id": "goal", "type": "text", "title": "Goal", "required": false},
            {"id": "uploads", "type": "files", "title": "Uploads", "required": false}
        ]));
        let error = params_json(&form).unwrap_err();
        assert_eq!(error.code(), ErrorCode::UnsupportedClient);
        assert!(
            error.message().contains("questions[1] (\"uploads\")"),
            "{error:?}"
        );
    }

    #[test]
    fn reads_core_form_support_as_the_specification_does() {
        let caps = |v: Value| serde_json::from_value::<ClientCapabilities>(v).unwrap();
        assert!(core_form_support(Some(&caps(
            json!({"elicitation": {"form": {}}})
        ))));
        assert!(core_form_support(Some(&caps(json!({"elicitation": {}})))));
        assert!(core_form_support(Some(&caps(
            json!({"elicitation": {"form": {}, "url": {}}})
        ))));
        assert!(!core_form_support(Some(&caps(
            json!({"elicitation": {"url": {}}})
        ))));
        assert!(!core_form_support(Some(&caps(json!({})))));
        assert!(!core_form_support(None));
    }
}
