use forms_runtime::Form;

#[derive(Form)]
#[form(message = "Set up your weekly report", title = "Setup")]
struct Setup {
    /// Goal
    goal: String,
}

fn main() {}
