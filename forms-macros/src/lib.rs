//! The `#[derive(Form)]` and `form!` macros. Use them through `forms_runtime`, which
//! re-exports both; this crate's items are not meant to be named directly.
#![forbid(unsafe_code)]

#[allow(dead_code)]
mod ctxt;
