use forms_runtime::{FileRef, Form};

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Data
    #[form(files, max_items = 25)]
    data: Vec<FileRef>,
}

fn main() {}
