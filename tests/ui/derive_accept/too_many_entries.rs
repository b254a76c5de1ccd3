use forms_runtime::{FileRef, Form};

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Data
    #[form(files, accept = [".a", ".b", ".c", ".d", ".e", ".f", ".g", ".h", ".i", ".j", ".k", ".l", ".m"])]
    data: Vec<FileRef>,
}

fn main() {}
