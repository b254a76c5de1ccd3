use forms_runtime::Form;

#[derive(Form)]
enum Format {
    /// PDF
    #[form(thumbnail = "https://example.com/pdf.png?token=abc")]
    Pdf,
    /// Web page
    Html,
}

fn main() {}
