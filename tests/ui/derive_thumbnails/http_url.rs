use forms_runtime::Form;

#[derive(Form)]
enum Format {
    /// PDF
    #[form(thumbnail = "http://example.com/pdf.png")]
    Pdf,
    /// Web page
    Html,
}

fn main() {}
