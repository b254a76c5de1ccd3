use forms_runtime::Form;

#[derive(Form)]
#[form(message = "Set up your weekly report", crate = "not a path")]
struct Setup {
    /// Goal
    goal: String,
}

fn main() {}
