use forms_runtime::Form;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Sections
    #[form(required = true)]
    sections: Vec<Format>,
}

#[derive(Form)]
enum Format {
    /// PDF
    Pdf,
    /// Web page
    Html,
}

fn main() {}
