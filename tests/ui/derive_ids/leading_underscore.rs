use forms_runtime::Form;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// What would you like to understand?
    _goal: String,
}

fn main() {}
