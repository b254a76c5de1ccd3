use forms_runtime::Form;

type Text = String;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Goal
    goal: Text,
}

fn main() {}
