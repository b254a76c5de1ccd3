use forms_runtime::Form;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Goal
    goal: String,
    /// Other goal
    #[form(id = "goal")]
    other_goal: String,
}

fn main() {}
