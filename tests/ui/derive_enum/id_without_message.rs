use forms_runtime::Form;

#[derive(Form)]
#[form(id = "format")]
enum Format {
    /// PDF
    Pdf,
    /// Web page
    Html,
}

fn main() {}
