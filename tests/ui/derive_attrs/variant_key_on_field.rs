use forms_runtime::Form;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Goal
    #[form(thumbnail = "https://example.com/goal.png")]
    goal: String,
}

fn main() {}
