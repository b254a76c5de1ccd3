use forms_runtime::Form;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    #[form(title = "What would you like to understand about the churn of our customers in the last qu")]
    goal: String,
}

fn main() {}
