use forms_runtime::Form;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Tags
    tags: Vec<String>,
}

fn main() {}
