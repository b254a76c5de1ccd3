use forms_runtime::Form;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Goal
    #[form(id = "goal.text")]
    goal: String,
}

fn main() {}
