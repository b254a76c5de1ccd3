use forms_runtime::Form;

#[derive(Form)]
#[form(message = "Which format?", id = "-format")]
enum Format {
    /// PDF
    Pdf,
    /// Web page
    Html,
}

fn main() {}
