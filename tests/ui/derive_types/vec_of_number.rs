// A collection of an unsupported type: the help names the collection shapes.
use forms_runtime::Form;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Sizes
    sizes: Vec<u32>,
}

fn main() {}
