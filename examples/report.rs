//! A weekly-report setup form, end to end: the Data arguments a model sends, the native
//! request a host renders, a simulated host answer and the checked answers, and one answer the
//! runtime refuses.
//!
//! Run it with `cargo run --example report`.

use forms_runtime::data::QuestionSpec;
use forms_runtime::{Answer, Answers, DataForm, FileAnswer, Response};
use std::error::Error;

/// The Data arguments: the contract's report-template question plus four more.
const FORM: &str = r#"{
  "message": "Set up your weekly report",
  "questions": [
    {
      "id": "goal",
      "type": "text",
      "title": "What would you like to understand?",
      "required": false,
      "maxLength": 500
    },
    {
      "id": "format",
      "type": "single_select",
      "title": "Report format",
      "required": true,
      "options": [
        { "id": "pdf", "title": "PDF", "description": "Printable, paginated" },
        { "id": "html", "title": "Web page" }
      ]
    },
    {
      "id": "sections",
      "type": "multi_select",
      "title": "Sections to include",
      "description": "Pick up to three.",
      "required": false,
      "maxItems": 3,
      "options": [
        { "id": "summary", "title": "Executive summary" },
        { "id": "trends", "title": "Trends" },
        { "id": "risks", "title": "Risks" },
        { "id": "next_steps", "title": "Next steps" }
      ]
    },
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
        },
        {
          "uri": "https://example.com/verified-weekly-update",
          "name": "weekly-update",
          "title": "Document · Weekly update",
          "icons": [{ "src": "https://example.com/verified-document-logo.png" }]
        }
      ]
    },
    {
      "id": "data",
      "type": "files",
      "title": "Upload your data",
      "required": false,
      "accept": [".csv", "text/csv"]
    }
  ]
}"#;

/// What a host might send back after the person submits the form.
const SUBMITTED: &str = r#"{
  "action": "accept",
  "content": {
    "goal": "Why did churn rise in March?",
    "format": "pdf",
    "sections": ["summary", "trends"],
    "template": "https://example.com/verified-business-review",
    "data": ["file:///home/ana/exports/churn%20march.csv"]
  }
}"#;

/// An answer the runtime refuses: `docx` is not one of the offered formats.
const REFUSED: &str = r#"{"action":"accept","content":{"format":"docx"}}"#;

fn heading(title: &str) {
    println!("\n== {title}\n");
}

/// A readable rendering of one answer, using the option titles the person saw.
fn describe(kind: &QuestionSpec, answer: &Answer) -> String {
    let choice = |i: &usize| {
        kind.choice_options()
            .get(*i)
            .map_or_else(String::new, |o| format!("{} ({})", o.title, o.id))
    };
    let resource = |i: &usize| {
        kind.resource_options()
            .get(*i)
            .map_or_else(String::new, |o| format!("{} <{}>", o.title, o.uri))
    };
    match answer {
        Answer::Text(text) => format!("{text:?}"),
        Answer::Choice(i) => choice(i),
        Answer::Choices(list) => list.iter().map(choice).collect::<Vec<_>>().join(", "),
        Answer::Resource(i) => resource(i),
        Answer::Resources(list) => list.iter().map(resource).collect::<Vec<_>>().join(", "),
        Answer::Files(list) => list
            .iter()
            .map(|f| match f {
                FileAnswer::Offered(i) => resource(i),
                FileAnswer::Local { path, .. } => format!("local file {path}"),
            })
            .collect::<Vec<_>>()
            .join(", "),
    }
}

fn print_answers(answers: &Answers<'_>) {
    let form = answers.form();
    for (question, slot) in form.questions().iter().zip(answers.slots()) {
        let value = slot
            .as_ref()
            .map_or_else(|| "(skipped)".to_owned(), |a| describe(&question.kind, a));
        println!("  {:<36} {value}", question.title);
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    heading("1. Check the Data arguments (forms check)");
    let form = DataForm::from_json(FORM)?;
    println!(
        "valid: {:?} with {} questions",
        form.message(),
        form.questions().len()
    );
    for q in form.questions() {
        println!(
            "  {:<10} {:<14} required={:<5} {}",
            q.id,
            q.kind.kind().as_str(),
            q.required,
            q.title
        );
    }

    heading("2. The native request the host renders (forms native)");
    println!("{}", serde_json::to_string_pretty(&form.native())?);

    heading("3. A simulated host answer");
    println!("{SUBMITTED}");

    heading("4. The checked answers (forms answer)");
    let response = form.check_response(SUBMITTED)?;
    match &response {
        Response::Accept(answers) => print_answers(answers),
        other => println!("  no answers: the person chose {}", other.action()),
    }
    println!("\ntool result: {}", serde_json::to_string(&response)?);

    heading("5. An answer the runtime refuses");
    println!("{REFUSED}");
    match form.check_response(REFUSED) {
        Ok(response) => {
            return Err(format!("expected a refusal, got {}", response.action()).into());
        }
        Err(error) => println!("\nrefused: {}", serde_json::to_string(&error.payload())?),
    }
    Ok(())
}
