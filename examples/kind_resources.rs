//! A `resources` question: `Vec<Url>` with `#[form(resources)]`; several offered resources,
//! distinct, within `min_items` / `max_items`.
//!
//! Run with `cargo run --example kind_resources`.

use forms_runtime::data::ResourceOption;
use forms_runtime::{Form, FormError, Outcome};
use url::Url;

#[derive(Form, Debug)]
#[form(message = "Which past reports should I follow?")]
struct Examples {
    /// Example reports
    #[form(resources, min_items = 1, max_items = 2)]
    reports: Vec<Url>,
}

fn main() -> Result<(), FormError> {
    let offered = (1..=4)
        .map(|week| {
            ResourceOption::new(
                format!("https://example.com/reports/2024-w{week:02}"),
                format!("report-w{week:02}"),
                format!("Document · Weekly report, week {week}"),
            )
        })
        .collect();
    let form = Examples::build(ExamplesParts { reports: offered })?;
    println!("native request: {}", form.data().native_json());

    let response = r#"{"action":"accept","content":{"reports":[
        "https://example.com/reports/2024-w03","https://example.com/reports/2024-w01"]}}"#;
    if let Outcome::Accepted(examples) = form.decode(response)? {
        for url in &examples.reports {
            println!("follow: {url}");
        }
    }

    // The same resource twice is refused (rule V6).
    let twice = r#"{"action":"accept","content":{"reports":[
        "https://example.com/reports/2024-w03","https://example.com/reports/2024-w03"]}}"#;
    if let Err(e) = form.decode(twice) {
        println!("refused: {e}");
    }
    Ok(())
}
