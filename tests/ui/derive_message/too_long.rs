use forms_runtime::Form;

#[derive(Form)]
#[form(message = "A weekly report about churn, revenue and retention, split by region and team!!!!!")]
struct Setup {
    /// Goal
    goal: String,
}

fn main() {}
