// Three fields over the option count of the same enum, by `max_items`, by `min_items` and by
// both: each assertion names its own field and points at the limit above the count.
use forms_runtime::Form;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Formats
    #[form(max_items = 3)]
    formats: Vec<Format>,
    /// Main formats
    #[form(min_items = 3)]
    main_formats: Vec<Format>,
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
