//! Examples of the contract text, verbatim, shared by the tests that check them.
#![allow(dead_code)]

/// The six question types of the contract, in its order.
pub const QUESTION_TYPES: [&str; 6] = [
    "text",
    "single_select",
    "multi_select",
    "resource",
    "resources",
    "files",
];

/// The report-template example of the contract text: one optional `resource` question.
pub const TEMPLATE_EXAMPLE: &str = r#"{
  "message": "Choose a report template",
  "questions": [
    {
      "id": "template",
      "type": "resource",
      "title": "Relevant report templates",
      "required": false,
      "options": [
        {
          "uri": "https://example.com/verified-business-review",
          "name": "business-review",
          "title": "Presentation · Business review",
          "mimeType": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
          "icons": [{ "src": "https://example.com/verified-presentation-logo.png" }],
          "thumbnail": { "src": "https://example.com/verified-slide-preview.png" }
        }
      ]
    }
  ]
}"#;
