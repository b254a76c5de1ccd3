use forms_runtime::Form;

// Every unsupported field type is reported in the first compile.
#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Count
    count: Option<u32>,
    /// Goal
    goal: &'static str,
    /// Tags
    tags: Vec<String>,
}

fn main() {}
