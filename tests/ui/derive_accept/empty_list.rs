use forms_runtime::{FileRef, Form};

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Data
    #[form(files, accept = [])]
    data: Vec<FileRef>,
}

fn main() {}
