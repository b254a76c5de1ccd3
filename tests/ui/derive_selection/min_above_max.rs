use forms_runtime::Form;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Sections
    #[form(min_items = 3, max_items = 2)]
    sections: Vec<Section>,
}

#[derive(Form)]
enum Section {
    A,
    B,
    C,
    D,
}

fn main() {}
