//! A `single_select` question: a field whose type is an enum deriving `Form` (`E` required,
//! `Option<E>` optional). Each variant is one option; the answer is the variant itself.
//!
//! Run with `cargo run --example kind_single_select`.

use forms_runtime::{Form, FormChoice, FormError, Outcome, StaticForm};

/// The report's format.
#[derive(Form, Debug, Clone, Copy, PartialEq, Eq)]
#[form(rename_all = "snake_case")]
enum Format {
    #[form(title = "PDF", description = "Printable, paginated")]
    Pdf,
    /// Web page
    WebPage,
    #[form(title = "Slides", thumbnail = "https://example.com/slides.png")]
    Slides,
}

#[derive(Form, Debug)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Report format
    format: Format,
    /// Format for the appendix
    appendix_format: Option<Format>,
}

/// An enum with a `message` is also a one-question form of its own.
#[derive(Form, Debug)]
#[form(message = "How formal should the report be?")]
enum Tone {
    /// Formal
    Formal,
    /// Casual
    Casual,
}

fn main() -> Result<(), FormError> {
    println!(
        "{} options, ids {:?}",
        Format::COUNT,
        Format::OPTIONS.iter().map(|o| o.id).collect::<Vec<_>>()
    );

    let form = Setup::form();
    println!("native request: {}", form.data().native_json());
    let response = r#"{"action":"accept","content":{"format":"web_page"}}"#;
    if let Outcome::Accepted(setup) = form.decode(response)? {
        println!(
            "format: {:?} (id {}), appendix: {:?}",
            setup.format,
            setup.format.id(),
            setup.appendix_format
        );
    }

    let tone = Tone::form();
    let response = r#"{"action":"accept","content":{"tone":"Casual"}}"#;
    println!("tone: {:?}", tone.decode(response)?.accepted());

    // Only exact option ids are accepted (rule V4).
    let wrong = r#"{"action":"accept","content":{"format":"Web page"}}"#;
    if let Err(e) = form.decode(wrong) {
        println!("refused: {e}");
    }
    Ok(())
}
