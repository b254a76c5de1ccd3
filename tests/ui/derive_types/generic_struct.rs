use forms_runtime::Form;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup<T> {
    /// Goal
    goal: String,
    /// Extra
    extra: Option<T>,
}

fn main() {}
