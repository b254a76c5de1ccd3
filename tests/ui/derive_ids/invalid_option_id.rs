use forms_runtime::Form;

#[derive(Form)]
enum Format {
    /// PDF
    #[form(id = "9pdf")]
    Pdf,
    /// Web page
    Html,
}

fn main() {}
