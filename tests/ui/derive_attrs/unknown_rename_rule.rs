use forms_runtime::Form;

#[derive(Form)]
#[form(message = "Set up your weekly report", rename_all = "camel")]
struct Setup {
    /// Goal
    goal_text: String,
}

fn main() {}
