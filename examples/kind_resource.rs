//! A `resource` question: `Url` (required) or `Option<Url>` (optional) with
//! `#[form(resource)]`. The offered resources come from discovery at run time, through the
//! derived `<Name>Parts` struct, and are validated when the form is built.
//!
//! Run with `cargo run --example kind_resource`.

use forms_runtime::data::{Image, ResourceOption};
use forms_runtime::{Form, FormError, Outcome};
use url::Url;

#[derive(Form, Debug)]
#[form(message = "Choose a report template")]
struct TemplateChoice {
    /// Relevant report templates
    #[form(resource)]
    template: Option<Url>,
}

fn main() -> Result<(), FormError> {
    let mut review = ResourceOption::new(
        "https://example.com/templates/business-review",
        "business-review",
        "Presentation · Business review",
    );
    review.icons = Some(vec![Image::new("https://example.com/icons/slides.png")]);
    review.thumbnail = Some(Image::new(
        "https://example.com/previews/business-review.png",
    ));
    let weekly = ResourceOption::new(
        "https://example.com/templates/weekly-update",
        "weekly-update",
        "Document · Weekly update",
    );

    let form = TemplateChoice::build(TemplateChoiceParts {
        template: vec![review, weekly],
    })?;
    println!("native request: {}", form.data().native_json());

    let response = r#"{"action":"accept","content":{"template":"https://example.com/templates/weekly-update"}}"#;
    if let Outcome::Accepted(choice) = form.decode(response)? {
        println!("template: {:?}", choice.template.map(|u| u.to_string()));
    }

    // Skipping leaves the key out; an empty string is not an answer (rule V5).
    let skipped = r#"{"action":"accept","content":{}}"#;
    println!(
        "skipped: {:?}",
        form.decode(skipped)?.accepted().map(|c| c.template)
    );
    let empty = r#"{"action":"accept","content":{"template":""}}"#;
    if let Err(e) = form.decode(empty) {
        println!("refused: {e}");
    }

    // Run-time options obey the same rules as any Data form (here R26: no credentials).
    let leaky = ResourceOption::new("https://example.com/t?token=abc", "t", "Document · T");
    if let Err(e) = TemplateChoice::build(TemplateChoiceParts {
        template: vec![leaky],
    }) {
        println!("refused parts: {e}");
    }
    Ok(())
}
