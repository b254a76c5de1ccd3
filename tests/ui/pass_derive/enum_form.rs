//! A fieldless enum with a `message` is a one-question form of its own.
#![deny(warnings)]

use forms_runtime::{Form, FormChoice, Outcome};

/// Which format the report uses.
#[derive(Form, Debug, PartialEq)]
#[form(message = "Which report format?", rename_all = "kebab-case")]
pub enum ReportFormat {
    /// PDF
    ///
    /// Printable, paginated.
    PrintablePdf,
    #[form(title = "Web page", thumbnail = "data:image/png;base64,iVBORw0KGgo=")]
    WebPage,
}

fn main() {
    let form = ReportFormat::build(()).unwrap();
    assert_eq!(form.data().questions()[0].id, "report_format");
    assert_eq!(ReportFormat::WebPage.id(), "web-page");
    let answer = r#"{"action":"accept","content":{"report_format":"printable-pdf"}}"#;
    assert_eq!(
        form.decode(answer).unwrap(),
        Outcome::Accepted(ReportFormat::PrintablePdf)
    );
}
