use forms_runtime::Form;

#[derive(Form)]

struct Setup {
    /// Goal
    goal: String,
}

fn main() {}
