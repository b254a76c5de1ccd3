//! The generated `<Name>Parts` struct: it is the form's `Form::Parts` (which rustdoc shows on
//! the form's page), `#[form(parts = "…")]` renames it when another type has the name, and it
//! works for a private form used from a child module and for a form declared in a function.
#![deny(warnings, missing_docs)]

use forms_runtime::data::ResourceOption;
use forms_runtime::{Form, Url};

/// The crate's own type called `ReportParts`.
pub struct ReportParts;

/// A form whose parts struct is renamed, since `ReportParts` is taken.
#[derive(Form)]
#[form(message = "Report", parts = "ReportOptions")]
pub struct Report {
    /// Template
    #[form(resource)]
    pub template: Url,
}

/// `Report`'s parts are the renamed struct.
pub fn report_parts(parts: <Report as Form>::Parts) -> ReportOptions {
    parts
}

mod private {
    use forms_runtime::Form;

    /// A private form.
    // Built here, never decoded: nothing reads its field.
    #[allow(dead_code)]
    #[derive(Form)]
    #[form(message = "Setup")]
    pub(crate) struct Setup {
        /// Sources
        #[form(resources, max_items = 1)]
        pub(crate) sources: Vec<forms_runtime::Url>,
    }

    pub(crate) mod child {
        /// Named from a child module.
        pub(crate) fn parts(uri: &str) -> super::SetupParts {
            super::SetupParts {
                sources: vec![forms_runtime::data::ResourceOption::new(
                    uri, "s", "Doc · S",
                )],
            }
        }
    }
}

fn main() {
    let option = ResourceOption::new("https://example.com/t", "t", "Doc · T");
    let form = Report::build(report_parts(ReportOptions {
        template: vec![option],
    }))
    .unwrap();
    assert_eq!(form.data().questions().len(), 1);
    let _ = ReportParts;

    let setup = private::Setup::build(private::child::parts("https://example.com/s")).unwrap();
    assert_eq!(setup.data().questions().len(), 1);

    // A form declared in a function body.
    #[derive(Form)]
    #[form(message = "Local")]
    struct Local {
        /// Files
        #[form(files, offered)]
        files: Vec<forms_runtime::FileRef>,
    }
    let local = Local::build(LocalParts { files: vec![] }).unwrap();
    let answer = r#"{"action":"accept","content":{"files":["file:///tmp/a.csv"]}}"#;
    let got = local.decode(answer).unwrap().accepted().unwrap();
    assert_eq!(got.files.len(), 1);
}
