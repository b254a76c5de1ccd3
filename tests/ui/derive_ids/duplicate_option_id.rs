use forms_runtime::Form;

#[derive(Form)]
enum Format {
    /// PDF
    Pdf,
    /// PDF again
    #[form(id = "Pdf")]
    PdfA4,
}

fn main() {}
