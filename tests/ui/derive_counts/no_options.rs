use forms_runtime::Form;

#[derive(Form)]
enum Nothing {}

fn main() {}
