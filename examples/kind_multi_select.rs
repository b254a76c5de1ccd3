//! A `multi_select` question: `Vec<E>`, `BTreeSet<E>` or `HashSet<E>` of an enum deriving
//! `Form`. Optional unless `required`; `min_items` / `max_items` bound the answer, and the
//! bounds are checked against the enum's option count when the crate compiles.
//!
//! Run with `cargo run --example kind_multi_select`.

use forms_runtime::{Form, FormError, Outcome, StaticForm};
use std::collections::BTreeSet;

/// A section of the report.
#[derive(Form, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[form(rename_all = "kebab-case")]
enum Section {
    /// Executive summary
    ExecutiveSummary,
    /// Regional breakdown
    RegionalBreakdown,
    /// Churn
    Churn,
    /// Outlook
    Outlook,
}

#[derive(Form, Debug)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Sections to include
    #[form(required, max_items = 3)]
    sections: Vec<Section>,
    /// Sections to highlight
    highlights: BTreeSet<Section>,
}

fn main() -> Result<(), FormError> {
    let form = Setup::form();
    println!("native request: {}", form.data().native_json());

    let response = r#"{"action":"accept","content":{
        "sections":["outlook","executive-summary"],
        "highlights":["churn"]}}"#;
    if let Outcome::Accepted(setup) = form.decode(response)? {
        println!(
            "sections: {:?}, highlights: {:?}",
            setup.sections, setup.highlights
        );
    }

    // Four sections exceed `max_items = 3` (rule V4).
    let too_many = r#"{"action":"accept","content":{
        "sections":["outlook","executive-summary","churn","regional-breakdown"]}}"#;
    if let Err(e) = form.decode(too_many) {
        println!("refused: {e}");
    }
    Ok(())
}
