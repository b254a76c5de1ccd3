use forms_runtime::Form;

#[derive(Form)]
enum Format {
    /// PDF
    #[form(max_length = 3)]
    Pdf,
    /// Web page
    Html,
}

fn main() {}
