//! Names of the standard derives and traits that are not the standard ones, in scope where the
//! forms are declared: derives imported as `Debug` and `Clone` (the `use derive_more::Debug`
//! pattern). The generated `<Name>Parts` struct and the rest of the derive's output name every
//! derive and trait by its absolute path, so neither is picked up, and the crate compiles
//! without a warning. (A `macro_rules!` named `Debug` does not shadow a derive, so it is not
//! a case.)
#![deny(warnings, missing_docs)]

/// Another crate's derives under the standard names.
pub mod other_derives {
    /// A derive called `Debug` that is not `core::fmt::Debug`: here the forms derive itself,
    /// which would fail on a `<Name>Parts` struct (it has no `message`).
    pub use forms_runtime::Form as Debug;
    /// A derive and a trait called `Clone` that are not `core::clone::Clone`.
    pub use forms_runtime::Form as Clone;
}

/// Forms declared where `Debug` and `Clone` name the derives above.
pub mod imported {
    use crate::other_derives::{Clone, Debug};

    /// A choice enum, derived through the imported `Debug` (which is the forms derive).
    #[derive(
        Debug,
        ::core::fmt::Debug,
        ::core::clone::Clone,
        ::core::marker::Copy,
        ::core::cmp::PartialEq,
        ::core::cmp::Eq,
    )]
    pub enum Format {
        /// PDF
        Pdf,
        /// Slides
        Slides,
    }

    /// A form with run-time parts, so that `ReportParts` is generated here.
    #[derive(forms_runtime::Form)]
    #[form(message = "Report")]
    pub struct Report {
        /// Format
        pub format: Format,
        /// Template
        #[form(resource)]
        pub template: Url,
        /// Sources
        #[form(resources, max_items = 2)]
        pub sources: Vec<Url>,
    }

    /// A form derived through the imported `Clone` (again the forms derive).
    #[derive(Clone)]
    #[form(message = "Upload")]
    pub struct Upload {
        /// Data
        #[form(files, offered)]
        pub data: Vec<forms_runtime::FileRef>,
    }

    use forms_runtime::Url;
}

fn main() {
    use forms_runtime::data::ResourceOption;
    use forms_runtime::Form as _;
    let option = |uri: &str| ResourceOption::new(uri, "t", "Doc · T");
    let parts = imported::ReportParts {
        template: vec![option("https://example.com/t")],
        sources: vec![
            option("https://example.com/a"),
            option("https://example.com/b"),
        ],
    };
    // The parts struct has the standard `Debug` and `Clone`.
    let copy = ::core::clone::Clone::clone(&parts);
    assert!(format!("{parts:?}").contains("ReportParts"));
    let form = imported::Report::build(copy).unwrap();
    let answer = r#"{"action":"accept","content":{"format":"Slides",
        "template":"https://example.com/t","sources":["https://example.com/b"]}}"#;
    let report = form.decode(answer).unwrap().accepted().unwrap();
    assert_eq!(report.format, imported::Format::Slides);
    assert_eq!(report.sources.len(), 1);

    let upload = imported::Upload::build(imported::UploadParts { data: vec![] }).unwrap();
    let _ = format!("{:?}", imported::UploadParts { data: vec![] });
    let _ = upload;
}
