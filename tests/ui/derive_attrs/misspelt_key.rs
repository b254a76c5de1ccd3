// A misspelt key gets a suggestion, and is not also reported as the key it stands for
// missing: no "needs a message", "needs a title" or "add `#[form(resource)]`".
use forms_runtime::{FileRef, Form};
use url::Url;

#[derive(Form)]
#[form(mesage = "Set up your weekly report")]
struct Setup {
    #[form(titel = "Goal")]
    goal: String,
    /// Template
    #[form(resorce)]
    template: Url,
    /// Data
    #[form(file)]
    data: Vec<FileRef>,
}

fn main() {}
