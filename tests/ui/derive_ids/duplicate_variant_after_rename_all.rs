use forms_runtime::Form;

#[derive(Form)]
#[form(rename_all = "lowercase")]
enum Format {
    /// PDF
    Pdf,
    /// PDF for print
    PDF,
}

fn main() {}
