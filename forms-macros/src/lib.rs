//! The `#[derive(Form)]` and `form!` macros. Use them through `forms_runtime`, which
//! re-exports both; this crate's items are not meant to be named directly.
//!
//! The derive runs in stages, one file each: `attr` (typed attribute slots), `ast` (the
//! item as an IR), `check` (the contract's rules, through `forms_rules`), `expand` (code
//! generation) and `fallback` (stub impls when there were errors). `ctxt` collects every
//! error of an item so that all are reported in one compile; `wording` gives every rule's
//! message the same shape in the derive and in `form!`.
#![forbid(unsafe_code)]

mod ast;
mod attr;
mod case;
mod check;
#[allow(dead_code)]
mod ctxt;
mod expand;
mod fallback;
mod inline;
#[cfg(test)]
mod tests;
mod wording;

/// Derives `Form` for a struct (one question per field) or a fieldless enum (one choice
/// option per variant); see `forms_runtime::Form`.
#[proc_macro_derive(Form, attributes(form))]
pub fn derive_form(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand::derive(&input).into()
}

/// The implementation of `forms_runtime::form!`, which passes the runtime's path (`$crate`)
/// before the form; see that macro for the documentation.
#[proc_macro]
pub fn form(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    inline::expand(input.into()).into()
}
