use forms_runtime::{FileRef, Form};

use url::Url;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Template
    #[form(resource)]
    template: Option<Url>,
    /// Data
    #[form(files, offered)]
    data: Vec<FileRef>,
}

fn main() {
    let _ = Setup::build(SetupParts { template: vec![] });
}
