use forms_runtime::Form;

#[derive(Form)]
enum Format {
    /// PDF
    #[form(thumbnail = "data:image/svg+xml;base64,PHN2Zz4=")]
    Pdf,
    /// Web page
    Html,
}

fn main() {}
