use forms_runtime::Form;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Formats
    #[form(required, min_items = 3, max_items = 3)]
    formats: Vec<Format>,
}

#[derive(Form)]
enum Format {
    /// PDF
    Pdf,
    /// Web page
    Html,
}

fn main() {}
