use forms_runtime::Form;

#[derive(Form)]
enum Format {
    /// PDF
    #[form(description = "Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable Printable x")]
    Pdf,
    /// Web page
    Html,
}

fn main() {}
