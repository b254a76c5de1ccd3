use forms_runtime::Form;

#[derive(Form)]
#[form(message = "   ")]
struct Setup {
    /// Goal
    goal: String,
}

fn main() {}
