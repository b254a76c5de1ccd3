use forms_runtime::Form;

#[derive(Form)]
enum Format {
    /// PDF
    #[form(thumbnail = "https://sdmntprwestus.oaiusercontent.com/pdf.png?sig=abc&token=def")]
    Pdf,
}

fn main() {}
