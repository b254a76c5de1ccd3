//! A `text` question: `String` is required, `Option<String>` optional; `max_length` bounds
//! the answer (default 4,000 characters).
//!
//! Run with `cargo run --example kind_text`.

use forms_runtime::{Form, FormError, Outcome, StaticForm};

/// What the agent needs to know before it starts.
#[derive(Form, Debug)]
#[form(message = "Before I start")]
struct Brief {
    /// What would you like to understand?
    goal: String,
    /// Anything else I should know?
    ///
    /// Deadlines, audiences, things to avoid.
    #[form(max_length = 500)]
    notes: Option<String>,
}

fn main() -> Result<(), FormError> {
    let form = Brief::form();
    println!("native request: {}", form.data().native_json());

    // What the host sends back when the person submits the form.
    let response = r#"{"action":"accept","content":{"goal":"Why did churn rise in EMEA?"}}"#;
    match form.decode(response)? {
        Outcome::Accepted(brief) => println!("goal: {:?}, notes: {:?}", brief.goal, brief.notes),
        other => println!("no answer: {}", other.action()),
    }

    // Required text must contain a non-whitespace character (rule V3).
    let blank = r#"{"action":"accept","content":{"goal":"   "}}"#;
    if let Err(e) = form.decode(blank) {
        println!("refused: {e}");
    }
    Ok(())
}
