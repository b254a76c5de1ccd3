// `PDF` is the point of this case: a variant named as an acronym.
#![allow(clippy::upper_case_acronyms)]
// A variant without a title or doc comment is titled with its name as words; `rename_all`
// changes only its ID.
use forms_runtime::{Form, FormChoice};

#[derive(Form)]
#[form(rename_all = "kebab-case")]
enum Region {
    NorthAmerica,
    HtmlPage,
    PDF,
    /// Elsewhere
    RestOfWorld,
}

fn main() {
    let got: Vec<(&str, &str)> = Region::OPTIONS.iter().map(|o| (o.id, o.title)).collect();
    assert_eq!(
        got,
        [
            ("north-america", "North America"),
            ("html-page", "Html Page"),
            ("pdf", "PDF"),
            ("rest-of-world", "Elsewhere"),
        ]
    );
}
