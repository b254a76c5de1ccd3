//! A weekly-report setup form, end to end, declared as a Rust type: the derived Data form, the
//! native request a host renders, a simulated host answer decoded into `ReportSetup`, an answer
//! the runtime refuses, and a decline. Part two runs the same runtime on a form that arrives as
//! JSON, as a model sends it to the `form_elicitation_v2_request` tool.
//!
//! Run it with `cargo run --example report`.

use forms_runtime::data::{Image, ResourceOption};
use forms_runtime::{DataForm, FileRef, Form, FormChoice, Outcome};
use std::error::Error;
use url::Url;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct ReportSetup {
    /// What would you like to understand?
    goal: Option<String>,
    #[form(title = "Report format")]
    format: Format,
    #[form(title = "Sections", max_items = 3)]
    sections: Vec<Section>,
    #[form(resource, title = "Relevant report templates")]
    template: Option<Url>,
    #[form(files, offered, title = "Upload your data", accept = [".csv", "text/csv"])]
    data: Vec<FileRef>,
}

#[derive(Form, Debug)]
enum Format {
    #[form(title = "PDF", description = "Printable, paginated")]
    Pdf,
    #[form(title = "Web page")]
    Html,
}

#[derive(Form, Debug)]
#[form(rename_all = "snake_case")]
enum Section {
    /// Executive summary
    Summary,
    /// Trends
    Trends,
    /// Risks
    Risks,
    /// Next steps
    NextSteps,
}

/// What discovery found before the form is built: templates and files to offer.
fn parts() -> ReportSetupParts {
    let mut review = ResourceOption::new(
        "https://example.com/verified-business-review",
        "business-review",
        "Presentation · Business review",
    );
    review.mime_type =
        Some("application/vnd.openxmlformats-officedocument.presentationml.presentation".into());
    review.icons = Some(vec![Image::new(
        "https://example.com/verified-presentation-logo.png",
    )]);
    review.thumbnail = Some(Image::new("https://example.com/verified-slide-preview.png"));
    let mut weekly = ResourceOption::new(
        "https://example.com/verified-weekly-update",
        "weekly-update",
        "Document · Weekly update",
    );
    weekly.icons = Some(vec![Image::new(
        "https://example.com/verified-document-logo.png",
    )]);
    let export = ResourceOption::new(
        "https://example.com/files/q1-churn.csv",
        "q1-churn",
        "Spreadsheet · Q1 churn",
    );
    ReportSetupParts {
        template: vec![review, weekly],
        data: vec![export],
    }
}

/// What a host might send back: one offered template, one offered file, one file the person added.
const SUBMITTED: &str = r#"{"action":"accept","content":{
  "goal": "Why did churn rise in March?",
  "format": "Pdf",
  "sections": ["summary", "trends"],
  "template": "https://example.com/verified-business-review",
  "data": ["https://example.com/files/q1-churn.csv", "file:///home/ana/exports/churn%20march.csv"]
}}"#;

/// `Docx` was never offered, so the whole answer is refused.
const REFUSED: &str = r#"{"action":"accept","content":{"format":"Docx"}}"#;

/// A form written by a model: the arguments of `form_elicitation_v2_request`.
const MODEL_FORM: &str = r#"{"message":"Which quarter should I analyze?","questions":[
  {"id":"quarter","type":"single_select","title":"Quarter","required":true,
   "options":[{"id":"q1","title":"Q1"},{"id":"q2","title":"Q2"}]}]}"#;

fn heading(title: &str) {
    println!("\n== {title}\n");
}

fn title<C: FormChoice>(choice: &C) -> &'static str {
    choice.meta().map_or("", |m| m.title)
}

fn show(setup: &ReportSetup) {
    println!("goal      {:?}", setup.goal);
    println!("format    {:?} ({})", setup.format, title(&setup.format));
    for s in &setup.sections {
        println!("section   {s:?} ({})", title(s));
    }
    let template = setup.template.as_ref().map(Url::as_str);
    println!("template  {}", template.unwrap_or("(skipped)"));
    for file in &setup.data {
        match file {
            FileRef::Offered(url) => println!("data      offered {url}"),
            FileRef::Local { path, .. } => println!("data      local file {}", path.display()),
        }
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    heading("1. The Data form derived from ReportSetup (normalized, as `forms check` gives it)");
    let form = ReportSetup::build(parts())?;
    println!("{}", serde_json::to_string_pretty(form.data())?);

    heading("2. The native request the host renders (as `forms native` gives it)");
    println!("{}", serde_json::to_string_pretty(&form.data().native())?);

    heading("3. A simulated host answer");
    println!("{SUBMITTED}");

    heading("4. Decoded into ReportSetup");
    match form.decode(SUBMITTED)? {
        Outcome::Accepted(setup) => show(&setup),
        other => println!("no answers: the person chose {}", other.action()),
    }

    heading("5. An answer the runtime refuses");
    println!("{REFUSED}");
    match form.decode(REFUSED) {
        Ok(outcome) => return Err(format!("expected a refusal, got {}", outcome.action()).into()),
        Err(error) => println!("\nrefused: {}", error.to_json()),
    }

    heading("6. A decline");
    let declined = form.decode(r#"{"action":"decline"}"#)?;
    if let Outcome::Declined = declined {
        println!("Outcome::Declined: the form yields no answers (V8)");
    }

    heading("7. Part two: a form that arrives as JSON (the model's tool arguments)");
    let model_form = DataForm::from_json(MODEL_FORM)?;
    println!("native:  {}", model_form.native_json());
    let response =
        model_form.check_response(r#"{"action":"accept","content":{"quarter":"q2"}}"#)?;
    println!("answer:  {}", serde_json::to_string(&response)?);
    let bad = MODEL_FORM.replace(r#""required":true"#, r#""required":true,"default":"q1""#);
    if let Err(error) = DataForm::from_json(&bad) {
        println!("refused: {}", error.to_json());
    }
    Ok(())
}
