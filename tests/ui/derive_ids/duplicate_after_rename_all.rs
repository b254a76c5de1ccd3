use forms_runtime::Form;

#[derive(Form)]
#[form(message = "Set up your weekly report", rename_all = "lowercase")]
struct Setup {
    /// First goal
    goal_a: String,
    /// Second goal
    goala: String,
}

fn main() {}
