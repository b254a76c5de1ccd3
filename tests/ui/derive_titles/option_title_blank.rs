use forms_runtime::Form;

#[derive(Form)]
enum Format {
    #[form(title = " ")]
    Pdf,
    /// Web page
    Html,
}

fn main() {}
