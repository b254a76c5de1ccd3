//! `form!`: a Data form written inline in the contract's own vocabulary.
//!
//! Three stages, one file each: [`parse`] reads the tokens into a tree of values shaped like
//! the Data JSON; [`check`] (with [`options`], [`value`] and [`fields`]) runs every literal
//! through the `forms_rules` function the runtime uses and builds the [`ir`]; [`expand`] emits
//! the code that builds and validates the `FormSpec`. Errors of all stages are collected in
//! one [`Ctxt`] and reported together.

mod check;
mod expand;
mod fields;
mod ir;
mod options;
mod parse;
mod value;

use crate::ctxt::Ctxt;
use proc_macro2::TokenStream;

/// Expands one `form! { … }` invocation.
pub(crate) fn expand(input: TokenStream) -> TokenStream {
    let cx = Ctxt::new();
    let top = parse::parse_input(&cx, input);
    let form = check::form(&cx, &top);
    match (cx.into_compile_errors(), form) {
        (None, Some(form)) => expand::form(&form, !top.has_interp()),
        (Some(errors), _) => expand::fallback(errors),
        (None, None) => expand::fallback(
            syn::Error::new(proc_macro2::Span::call_site(), "invalid form").to_compile_error(),
        ),
    }
}
