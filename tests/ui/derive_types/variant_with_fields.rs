use forms_runtime::Form;

#[derive(Form)]
enum Format {
    /// PDF
    Pdf { pages: u32 },
    /// Web page
    Html(String),
    /// Slides
    Slides,
}

fn main() {}
