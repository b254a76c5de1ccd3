use forms_runtime::Form;

#[derive(Form)]
#[form(message = "")]
struct Setup {
    /// Goal
    #[form(id = "_goal", max_length = 0)]
    goal: String,
    #[form(title = "   ", colour = "red")]
    notes: Option<String>,
    /// Formats
    #[form(min_items = 2, max_items = 1, accept = [".csv"])]
    formats: Vec<Format>,
    /// Count
    count: u32,
}

#[derive(Form)]
enum Format {
    /// PDF
    Pdf,
    /// Web page
    Html,
}

fn main() {}
