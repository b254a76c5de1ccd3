use forms_runtime::Form;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    #[form(title = 5)]
    goal: String,
}

fn main() {}
