use forms_runtime::Form;

#[derive(Form)]
#[form(message = "Set up your weekly report", message = "Again")]
struct Setup {
    /// Goal
    #[form(id = "goal", id = "aim")]
    goal: String,
    /// Aim
    aim: String,
    /// Template
    #[form(resource)]
    template: Vec<String>,
}

fn main() {}
