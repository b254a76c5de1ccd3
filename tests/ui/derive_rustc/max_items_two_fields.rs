// Two fields over the option count of the same enum: each assertion names its own field.
use forms_runtime::Form;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Formats
    #[form(max_items = 3)]
    formats: Vec<Format>,
    /// Other formats
    #[form(min_items = 3, max_items = 3)]
    other_formats: Vec<Format>,
}

#[derive(Form)]
enum Format {
    /// PDF
    Pdf,
    /// Web page
    Html,
}

fn main() {}
