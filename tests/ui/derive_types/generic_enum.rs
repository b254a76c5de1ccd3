use forms_runtime::Form;

#[derive(Form)]
enum Choice<T> {
    /// First
    First,
    /// Second
    Second(T),
}

fn main() {}
