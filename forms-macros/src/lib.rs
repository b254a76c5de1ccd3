// The front page opens with the crate's README (its example a doctest), then the details.
#![doc = include_str!("../README.md")]
//!
//! # In detail
//!
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
mod ctxt;
mod expand;
mod fallback;
mod inline;
#[cfg(test)]
mod tests;
mod wording;

/// Derives `Form` for a struct (one question per field) or a fieldless enum (one choice
/// option per variant); see `forms_runtime::Form`.
///
/// # Compile errors, in two waves
///
/// The derive reports every mistake of an item together, in source order: attribute syntax,
/// unknown keys (with a suggestion when a known key is close: `titel` → `title`), field
/// types, and every contract rule that the item alone decides. A misspelt key is not also
/// reported as missing.
///
/// Two kinds of mistake are found by rustc after the derive has run, so they arrive in a
/// second compile wave, once the first is fixed:
///
/// - a choice field whose type does not derive `Form` (a trait bound, reported at the field's
///   type);
/// - a selection limit against another type's option count (`max_items = 5` on a
///   `Vec<Section>` whose enum has four variants, rule R20). The count belongs to `Section`'s
///   own derive, so the check is a constant assertion, and rustc evaluates constants only
///   after type checking has succeeded. Its error reads `evaluation panicked: `max_items` (5)
///   of question `sections` must not exceed the number of options of `Section`; see rule R20`
///   (worded by `forms_rules`, as the same rule is at run time) and names the failing
///   constant after the same sentence.
///
/// # The generated `<Name>Parts` struct
///
/// A struct with `resource` or `resources` questions, or `files` questions marked
/// `offered`, has options known only at run time. The derive then generates a struct
/// `<Name>Parts` next to it, with the struct's visibility and one public
/// `Vec<ResourceOption>` field per such question, named after the field; it is the form's
/// `Form::Parts` (rustdoc shows it on the form's page, in the `Form` impl) and
/// `Form::build` takes it. Leaving a field out is a compile error. Every other form has
/// `Parts = ()` and implements `StaticForm`.
///
/// `#[form(parts = "ReportOptions")]` gives the struct another name. When another type of
/// the generated name is already in scope where the form is declared, the derive reports it
/// as one error that says so and suggests that attribute:
///
/// ```text
/// error[E0277]: a type named `ReportParts` already exists here, so `#[derive(Form)]` on
///               `Report` cannot give its generated parts struct that name
///   = note: name the generated struct with `#[form(parts = "…")]` on `Report`, or rename
///           the other `ReportParts`
/// ```
///
/// The struct is defined in a private module named after the form (`__forms_parts_Report`)
/// and brought into scope with a glob import, which is what lets the derive find the clash;
/// rustc's own messages about the struct (a missing field) name it by that path.
///
/// # The runtime's path
///
/// Generated code names the runtime `::forms_runtime`. A crate that depends on it under
/// another name (`fr = { package = "forms-runtime", … }`) or through a facade crate says so
/// with `#[form(crate = "::fr")]` on the struct or enum. When the crate's `Cargo.toml`
/// renames the dependency directly, the derive sees it and asks for that attribute; other
/// setups get rustc's "unresolved import `forms_runtime`" error.
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
