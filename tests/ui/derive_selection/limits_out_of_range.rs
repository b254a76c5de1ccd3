// R18 and R19 on three fields of one form, all reported by the one compile: a negative
// `min_items`, a required question whose `min_items` is 0, and a `max_items` of 0.
use forms_runtime::Form;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Formats
    #[form(min_items = -1)]
    formats: Vec<Format>,
    /// Required formats
    #[form(required, min_items = 0)]
    required_formats: Vec<Format>,
    /// Other formats
    #[form(max_items = 0)]
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
