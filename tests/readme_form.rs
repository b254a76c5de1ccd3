//! `docs/report-form.json`, the form `forms preview` shows in the guide's screenshots
//! (docs/03-the-forms-command.md), is the guide's `ReportSetup` form
//! (docs/01-forms-as-types.md): the same struct, derived and built with the same template.

use forms_runtime::data::{Image, ResourceOption};
use forms_runtime::{DataForm, FileRef, Form, Url};

#[allow(dead_code)]
#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct ReportSetup {
    /// What would you like to understand?
    goal: Option<String>,
    #[form(title = "Report format")]
    format: Format,
    #[form(title = "Sections", max_items = 3)]
    sections: Vec<Section>,
    #[form(resource, title = "Relevant report templates")]
    template: Option<Url>,
    #[form(files, title = "Upload your data", accept = [".csv", "text/csv"])]
    data: Vec<FileRef>,
}

#[derive(Form, Debug)]
enum Format {
    #[form(title = "PDF", description = "Printable, paginated")]
    Pdf,
    #[form(title = "Web page")]
    Html,
}

#[derive(Form, Debug)]
#[form(rename_all = "snake_case")]
enum Section {
    /// Executive summary
    Summary,
    Trends,
    NextSteps,
}

#[test]
fn docs_report_form_is_the_readme_report_setup() {
    let mut review = ResourceOption::new(
        "https://example.com/verified-business-review",
        "business-review",
        "Presentation · Business review",
    );
    review.thumbnail = Some(Image::new("https://example.com/verified-slide-preview.png"));
    let form = ReportSetup::build(ReportSetupParts {
        template: vec![review],
    })
    .unwrap();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/report-form.json");
    let docs = DataForm::from_json(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(docs.to_json(), form.data().to_json());
}
