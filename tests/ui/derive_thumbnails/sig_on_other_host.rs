use forms_runtime::Form;

#[derive(Form)]
enum Format {
    /// PDF
    #[form(thumbnail = "https://images.example.com/pdf.png?sig=abc")]
    Pdf,
}

fn main() {}
