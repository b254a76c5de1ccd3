use forms_runtime::Form;

#[derive(Form)]
enum Format {
    #[form(title = "PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file PDF file abcdef")]
    Pdf,
    /// Web page
    Html,
}

fn main() {}
