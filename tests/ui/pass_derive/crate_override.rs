//! `crate = "…"` reaches the runtime through another path, here a re-export.
#![deny(warnings)]

mod outer {
    pub use forms_runtime as runtime;
}

use outer::runtime::Form;

/// A form whose generated code names `crate::outer::runtime`.
#[derive(Form)]
#[form(message = "Through a re-export", crate = "crate::outer::runtime")]
pub struct Reexported {
    /// Goal
    pub goal: Option<String>,
}

fn main() {
    let form = Reexported::build(()).unwrap();
    assert_eq!(form.data().message(), "Through a re-export");
}
