//! The derived forms equal to the conformance corpus cases `101-derived-report-setup`,
//! `104-derived-all-kinds` and `110-derived-answers-setup`, built with their run-time parts:
//! the derive tests of the root package and the typed fuzz cross-check (`fuzz::typed`) use
//! the same types.

use forms_runtime::data::{Image, ResourceOption};
use forms_runtime::{FileRef, Form, TypedForm, Url};
use std::collections::{BTreeSet, HashSet};

/// The report format: one choice of two, with a title and a description.
#[derive(Form, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    #[form(title = "PDF", description = "Printable, paginated")]
    Pdf,
    #[form(title = "Web page")]
    Html,
}

/// The report sections: kebab-case ids, a description, an `id =` and a thumbnail.
#[derive(Form, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[form(rename_all = "kebab-case")]
pub enum Section {
    /// Executive summary
    ExecutiveSummary,
    /// Regional breakdown
    ///
    /// Revenue and churn per region.
    RegionalBreakdown,
    /// Outlook
    Outlook,
    #[form(
        id = "appendix",
        title = "Appendix",
        thumbnail = "https://example.com/appendix.png"
    )]
    Extra,
}

/// The design's example (`101-derived-report-setup`).
#[derive(Form, Debug, PartialEq)]
#[form(message = "Set up your weekly report")]
pub struct ReportSetup {
    /// What would you like to understand?
    pub goal: Option<String>,
    #[form(title = "Report format")]
    pub format: Format,
    #[form(title = "Sections", max_items = 3)]
    pub sections: Vec<Section>,
    #[form(resource, title = "Relevant report templates")]
    pub template: Option<Url>,
    #[form(files, offered, title = "Upload your data", accept = [".csv", "text/csv"])]
    pub data: Vec<FileRef>,
}

/// One field of each shape the derive supports (`104-derived-all-kinds`).
#[derive(Form, Debug, PartialEq)]
#[form(message = "Everything at once", rename_all = "camelCase")]
pub struct AllKinds {
    /// Project name
    pub project_name: String,
    /// Notes
    ///
    /// Anything else we should know.
    #[form(max_length = 200)]
    pub extra_notes: Option<String>,
    #[form(title = "Format")]
    pub format: Format,
    #[form(title = "Fallback format")]
    pub fallback: Option<Format>,
    #[form(title = "Sections (list)", required, min_items = 2, max_items = 4)]
    pub section_list: Vec<Section>,
    #[form(title = "Sections (ordered set)")]
    pub section_tree: BTreeSet<Section>,
    #[form(title = "Sections (hash set)", id = "hashed")]
    pub section_hash: HashSet<Section>,
    #[form(resource, title = "Template")]
    pub template: Url,
    #[form(resources, title = "Examples", min_items = 1, max_items = 2)]
    pub examples: Vec<Url>,
    #[form(files, title = "Attachments", required, max_items = 3)]
    pub attachments: Vec<FileRef>,
    #[form(files, title = "Images", accept = ["image/*"])]
    pub r#images: Vec<FileRef>,
}

/// The formats of `Setup`: lowercase ids.
#[derive(Form, Debug, Clone, Copy, PartialEq, Eq)]
#[form(rename_all = "lowercase")]
pub enum Kind {
    /// PDF
    Pdf,
    /// Web page
    Html,
    /// Slides
    Slides,
}

/// Limits on every kind (`110-derived-answers-setup`).
#[derive(Form, Debug, PartialEq)]
#[form(message = "Set up your weekly report")]
pub struct Setup {
    /// Goal
    #[form(max_length = 10)]
    pub goal: String,
    /// Notes
    pub notes: Option<String>,
    /// Format
    pub format: Kind,
    /// Other formats
    #[form(required, max_items = 2)]
    pub others: Vec<Kind>,
    /// Template
    #[form(resource)]
    pub template: Option<Url>,
    /// Examples
    #[form(resources, max_items = 2)]
    pub examples: Vec<Url>,
    /// Data
    #[form(files, offered, max_items = 2)]
    pub data: Vec<FileRef>,
}

/// The resource options of the `template` and `examples` questions: two templates, one with
/// every optional member.
pub fn templates() -> Vec<ResourceOption> {
    let mut review = ResourceOption::new(
        "https://example.com/templates/business-review",
        "business-review",
        "Presentation · Business review",
    );
    review.mime_type = Some("application/pdf".into());
    review.icons = Some(vec![Image::new("https://example.com/pdf-logo.png")]);
    review.thumbnail = Some(Image::new("https://example.com/review.png"));
    vec![
        review,
        ResourceOption::new(
            "https://example.com/templates/weekly",
            "weekly",
            "Document · Weekly update",
        ),
    ]
}

/// `ReportSetup` with its parts: the templates and one offered file.
pub fn report_setup() -> TypedForm<ReportSetup> {
    ReportSetup::build(ReportSetupParts {
        template: templates(),
        data: vec![ResourceOption::new(
            "https://example.com/files/q2.csv",
            "q2",
            "Spreadsheet · Q2 sales",
        )],
    })
    .unwrap()
}

/// `AllKinds` with its parts: the templates as both resource questions' options.
pub fn all_kinds() -> TypedForm<AllKinds> {
    AllKinds::build(AllKindsParts {
        template: templates(),
        examples: templates(),
    })
    .unwrap()
}

/// `Setup` with its parts: two templates, three examples, one offered file.
pub fn answers_setup() -> TypedForm<Setup> {
    let r = |u: &str| ResourceOption::new(u, "n", "Document · T");
    Setup::build(SetupParts {
        template: vec![r("https://example.com/t1"), r("https://example.com/t2")],
        examples: vec![
            r("https://example.com/e1"),
            r("https://example.com/e2"),
            r("https://example.com/e3"),
        ],
        data: vec![r("https://example.com/d1")],
    })
    .unwrap()
}
