//! A crate whose root defines its own `Form`, `Result`, `Option`, `Vec`, `String` and
//! `serde`: the derive's output names none of them, and compiles without a warning or a
//! missing doc.
#![deny(warnings, missing_docs)]

/// The crate's own `Form`.
pub trait Form {}
/// The crate's own `Result`.
pub struct Result;
/// The crate's own `Option`.
pub struct Option;
/// The crate's own `Vec`.
pub struct Vec;
/// The crate's own `serde`.
pub mod serde {}

/// Choices.
#[derive(forms_runtime::Form, Debug, PartialEq, Eq)]
#[form(message = "Pick one")]
pub enum Choice {
    /// First
    First,
    /// Second
    Second,
}

/// A form among the look-alikes.
#[derive(forms_runtime::Form)]
#[form(message = "Shadowed names")]
pub struct Shadowed {
    /// Goal
    pub goal: std::string::String,
    /// Choices
    #[form(max_items = 2)]
    pub choices: std::vec::Vec<Choice>,
    /// Files
    #[form(files)]
    pub files: std::vec::Vec<forms_runtime::FileRef>,
}

fn main() {
    use forms_runtime::StaticForm as _;
    let form = Shadowed::form();
    let answer = r#"{"action":"accept","content":{"goal":"g","choices":["Second"]}}"#;
    let shadowed = form.decode(answer).unwrap().accepted().unwrap();
    assert_eq!(shadowed.choices, [Choice::Second]);
    assert!(shadowed.files.is_empty());
    assert_eq!(shadowed.goal, "g");
    let _ = Choice::form();
}
