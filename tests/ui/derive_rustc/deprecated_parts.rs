// A deprecated form's `<Name>Parts` is deprecated with it: the user's own use of it is
// reported (once, at the use), and nothing inside the derive's output is.
#![deny(deprecated)]

#[deprecated(note = "use `Report`")]
#[derive(forms_runtime::Form)]
#[form(message = "Old report")]
pub struct OldReport {
    /// Template
    #[form(resource)]
    pub template: forms_runtime::Url,
}

fn main() {
    let _ = OldReportParts { template: vec![] };
}
