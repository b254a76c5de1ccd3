use forms_runtime::Form;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Goal
    goal: String,
}

fn main() {
    let _ = Setup::build(SetupParts { goal: vec![] });
}
