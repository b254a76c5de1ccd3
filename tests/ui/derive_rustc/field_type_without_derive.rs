use forms_runtime::Form;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Format
    format: Format,
}

enum Format {
    Pdf,
    Html,
}

fn main() {}
