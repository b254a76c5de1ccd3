use forms_runtime::Form;

#[derive(Form)]
#[form(rename_all = "snake")]
enum Format {
    #[form(id = "9")]
    Pdf,
    #[form(title = "", thumbnail = "http://example.com/x.png")]
    Html,
    /// Slides
    #[form(id = "9")]
    Slides(u8),
}

fn main() {}
