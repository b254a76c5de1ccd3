use forms_runtime::Form;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Template
    #[form(resource)]
    template: String,
}

fn main() {}
