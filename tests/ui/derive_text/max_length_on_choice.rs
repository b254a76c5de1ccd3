use forms_runtime::Form;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Format
    #[form(max_length = 10)]
    format: Format,
}

#[derive(Form)]
enum Format {
    /// PDF
    Pdf,
    /// Web page
    Html,
}

fn main() {}
