// The name chosen with `#[form(parts = "…")]` is taken by an import: the one error points at
// the attribute's value.
mod other {
    pub struct ReportOptions;
}
use other::ReportOptions;

/// A form whose parts struct is named by the attribute.
#[derive(forms_runtime::Form)]
#[form(message = "Report", parts = "ReportOptions")]
pub struct Report {
    /// Sources
    #[form(resources)]
    pub sources: Vec<forms_runtime::Url>,
}

fn main() {
    let _ = ReportOptions;
}
