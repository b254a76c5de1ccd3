//! A deprecated form struct, a deprecated choice enum and a deprecated variant: the derive's
//! output uses them as the built-in derives do, without a "use of deprecated" warning, so a
//! crate that denies warnings still compiles.
#![deny(warnings, missing_docs)]

/// A choice enum with one deprecated variant.
#[derive(forms_runtime::Form, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Format {
    /// PDF
    Pdf,
    /// Slides
    #[deprecated(note = "use `Pdf`")]
    Slides,
}

/// A deprecated choice enum with a message (its own one-question form).
#[deprecated(note = "ask with `Report`")]
#[derive(forms_runtime::Form, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[form(message = "Pick a size")]
pub enum Size {
    /// Small
    Small,
    /// Large
    Large,
}

/// A deprecated form struct.
#[deprecated(note = "use `Report` instead")]
#[derive(forms_runtime::Form, Debug, Clone)]
#[form(message = "Old report")]
pub struct OldReport {
    /// Format
    pub format: Format,
    /// Formats
    #[form(max_items = 2)]
    pub formats: Vec<Format>,
    /// Template
    #[form(resource)]
    pub template: Option<forms_runtime::Url>,
}

/// A current form that still offers the deprecated choice enum.
#[derive(forms_runtime::Form, Debug, Clone)]
#[form(message = "Report")]
pub struct Report {
    /// Format
    pub format: Format,
    // The user's own use of the deprecated type is allowed here; the derive's copies of the
    // type raise nothing either.
    /// Sizes
    #[allow(deprecated)]
    pub sizes: std::collections::BTreeSet<Size>,
}

#[allow(deprecated)]
fn main() {
    use forms_runtime::{Form as _, StaticForm as _};
    let old = OldReport::build(OldReportParts {
        template: vec![forms_runtime::data::ResourceOption::new(
            "https://example.com/t",
            "t",
            "Doc · T",
        )],
    })
    .unwrap();
    let answer = r#"{"action":"accept","content":{"format":"Slides","formats":["Pdf"]}}"#;
    let got = old.decode(answer).unwrap().accepted().unwrap();
    assert_eq!(got.format, Format::Slides);
    let size = Size::form();
    let got = size
        .decode(r#"{"action":"accept","content":{"size":"Large"}}"#)
        .unwrap()
        .accepted()
        .unwrap();
    assert_eq!(got, Size::Large);
    let _ = Report::form();
}
