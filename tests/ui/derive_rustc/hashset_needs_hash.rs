use forms_runtime::Form;
use std::collections::HashSet;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Formats
    formats: HashSet<Format>,
}

#[derive(Form, PartialEq)]
enum Format {
    /// PDF
    Pdf,
    /// Web page
    Html,
}

fn main() {}
