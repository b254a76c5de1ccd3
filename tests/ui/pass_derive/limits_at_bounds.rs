//! Every limit exactly at its bound compiles.
#![deny(warnings)]

use forms_runtime::{FileRef, Form, StaticForm};

/// Twenty-four options, the most a choice question may have (R12).
#[derive(Form, Debug)]
pub enum Letter {
    A,
    B,
    C,
    D,
    E,
    F,
    G,
    H,
    I,
    J,
    K,
    L,
    M,
    N,
    O,
    P,
    Q,
    R,
    S,
    T,
    U,
    V,
    W,
    X,
}

/// Twelve questions, the most a form may have (R2).
#[derive(Form)]
#[form(
    message = "MMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMM"
)]
pub struct AtTheLimits {
    #[form(
        id = "goooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooal",
        title = "TTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTT",
        max_length = 16000
    )]
    pub q1: String,
    /// Shortest limit
    #[form(max_length = 1)]
    pub q2: Option<String>,
    /// All letters, all required
    #[form(required, min_items = 24, max_items = 24)]
    pub q3: Vec<Letter>,
    /// At most one letter
    #[form(max_items = 1)]
    pub q4: Vec<Letter>,
    /// Any number of files
    #[form(files, min_items = 0, max_items = 24, accept = [".a", ".b", ".c", ".d", ".e", ".f", ".g", ".h", ".i", ".j", ".k", "image/*"])]
    pub q5: Vec<FileRef>,
    /// Six
    pub q6: Option<String>,
    /// Seven
    pub q7: Option<String>,
    /// Eight
    pub q8: Option<String>,
    /// Nine
    pub q9: Option<String>,
    /// Ten
    pub q10: Option<String>,
    /// Eleven
    pub q11: Option<Letter>,
    /// Twelve
    pub q12: Letter,
}

fn main() {
    let form = AtTheLimits::form();
    assert_eq!(form.data().questions().len(), 12);
    assert_eq!(form.data().max_length(0), Some(16000));
}
