// Another type already has the name `ReportParts` where the form is declared: one error, at
// the form, that names the clash and the way out (`#[form(parts = "…")]`), not rustc's
// "defined multiple times" plus follow-on errors.
use forms_runtime::{Form, Url};

/// Not the generated struct.
pub struct ReportParts;

/// A form whose parts struct would be `ReportParts`.
#[derive(Form)]
#[form(message = "Report")]
pub struct Report {
    /// Template
    #[form(resource)]
    pub template: Url,
}

fn main() {
    let _ = ReportParts;
}
