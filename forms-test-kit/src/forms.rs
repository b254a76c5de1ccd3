//! The example forms the tests ask (as the JSON arguments of the Data tool).

use serde_json::{json, Value};

/// The report form: a text question (`goal`, optional) and a required single-select
/// (`format`: `pdf`, `html`).
pub fn report_form() -> Value {
    json!({"message": "Set up your weekly report", "questions": [
        {"id": "goal", "type": "text", "title": "What would you like to understand?",
         "required": false},
        {"id": "format", "type": "single_select", "title": "Report format", "required": true,
         "options": [{"id": "pdf", "title": "PDF"}, {"id": "html", "title": "Web page"}]}
    ]})
}

/// An accepted answer to [`report_form`]: `goal` and `format` as given.
pub fn report_answer(goal: &str, format: &str) -> Value {
    json!({"action": "accept", "content": {"goal": goal, "format": format}})
}

/// A form with a required `files` question (`data`, at most 2 `.csv` files) and an optional
/// text question.
pub fn files_form() -> Value {
    json!({"message": "Share the numbers", "questions": [
        {"id": "data", "type": "files", "title": "Sales data", "required": true,
         "maxItems": 2, "accept": [".csv"]},
        {"id": "goal", "type": "text", "title": "Anything else?", "required": false}
    ]})
}

/// The report-template example of the contract text: one optional `resource` question
/// (`template`) offering one presentation with an icon and a thumbnail.
pub fn template_form() -> Value {
    let option = json!({"uri": "https://example.com/verified-business-review",
        "name": "business-review", "title": "Presentation · Business review",
        "mimeType": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "icons": [{"src": "https://example.com/verified-presentation-logo.png"}],
        "thumbnail": {"src": "https://example.com/verified-slide-preview.png"}});
    json!({"message": "Choose a report template", "questions": [{
        "id": "template", "type": "resource", "title": "Relevant report templates",
        "required": false, "options": [option]}]})
}
