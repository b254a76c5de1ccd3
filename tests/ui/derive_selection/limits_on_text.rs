use forms_runtime::Form;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Goal
    #[form(max_items = 2)]
    goal: String,
}

fn main() {}
