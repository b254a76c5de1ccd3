use forms_runtime::Form;

#[derive(Form)]
enum Format {
    /// PDF
    #[form(thumbnail = "https://me:secret@example.com/pdf.png")]
    Pdf,
    /// Web page
    Html,
}

fn main() {}
