// Six mistakes, reported from top to bottom: the attribute parser and the rule checks run in
// separate passes, but the errors come out in the order of the source.
use forms_runtime::Form;

#[derive(Form)]
#[form(message = "")]
struct Setup {
    /// Goal
    #[form(max_length = 0)]
    goal: String,
    /// Notes
    #[form(colour = "red")]
    notes: String,
    #[form(id = "9notes")]
    more_notes: String,
    /// Count
    count: u32,
}

fn main() {}
