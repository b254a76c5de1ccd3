use forms_runtime::Form;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// How many?
    count: u32,
}

fn main() {}
