use forms_runtime::Form;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Goal
    #[form(description = "Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. Context. abc")]
    goal: String,
}

fn main() {}
