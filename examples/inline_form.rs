//! An inline form with `form!`: literal parts checked at compile time, templates supplied at
//! run time, the native request printed, and a host answer read through the generic accessors.
//!
//! Run with `cargo run --example inline_form`.

use forms_runtime::data::{Image, ResourceOption};
use forms_runtime::{form, FormError, Outcome};

fn main() -> Result<(), FormError> {
    // Found by discovery before the form is built; validated when it is.
    let mut review = ResourceOption::new(
        "https://example.com/templates/business-review",
        "business-review",
        "Presentation · Business review",
    );
    review.thumbnail = Some(Image::new(
        "https://example.com/previews/business-review.png",
    ));
    let templates = vec![review];

    let form = form! {
        message: "Set up your weekly report",
        questions: [
            { id: "goal", type: text, title: "What would you like to understand?",
              required: false, maxLength: 2000 },
            { id: "format", type: single_select, title: "Report format", required: true,
              options: [ { id: "pdf", title: "PDF", description: "Printable" },
                         { id: "html", title: "Web page" } ] },
            { id: "template", type: resource, title: "Relevant report templates",
              required: false, options: {templates} },
            { id: "data", type: files, title: "Upload your data", required: false,
              accept: [".csv", "text/csv"] },
        ],
    }?;

    println!("native request: {}", form.native_json());

    let reply = r#"{"action":"accept","content":{
        "goal":"Why did sales dip in March?",
        "format":"pdf",
        "template":"https://example.com/templates/business-review",
        "data":["file:///home/me/sales.csv"]}}"#;
    match form.check_response(reply)? {
        Outcome::Accepted(answers) => {
            println!("goal:     {}", answers.text("goal").unwrap_or("(skipped)"));
            println!("format:   {}", answers.choice("format").unwrap_or("(none)"));
            println!(
                "template: {}",
                answers.resource("template").unwrap_or("(none)")
            );
            for file in answers.files("data").unwrap_or_default() {
                println!("file:     {}", file.uri());
            }
        }
        other => println!("no answers: {}", other.action()),
    }
    Ok(())
}
