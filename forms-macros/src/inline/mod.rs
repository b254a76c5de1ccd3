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
    let (krate, input) = split_krate(input);
    let cx = Ctxt::new();
    let top = parse::parse_input(&cx, input);
    let form = check::form(&cx, &top);
    match (cx.into_compile_errors(), form) {
        (None, Some(form)) => expand::form(&form, !top.has_interp(), &krate),
        (Some(errors), _) => expand::fallback(errors, &krate),
        (None, None) => expand::fallback(
            syn::Error::new(proc_macro2::Span::call_site(), "invalid form").to_compile_error(),
            &krate,
        ),
    }
}

/// The runtime's path and the form: `forms_runtime::form!` passes `$crate ;` before the
/// form, so a renamed dependency works; called without it, the path is `::forms_runtime`.
fn split_krate(input: TokenStream) -> (TokenStream, TokenStream) {
    let tokens: Vec<proc_macro2::TokenTree> = input.into_iter().collect();
    let semi = tokens
        .iter()
        .position(|t| matches!(t, proc_macro2::TokenTree::Punct(p) if p.as_char() == ';'));
    match semi {
        Some(i) => {
            let mut tokens = tokens.into_iter();
            let krate: TokenStream = tokens.by_ref().take(i).collect();
            let form: TokenStream = tokens.skip(1).collect();
            (krate, form)
        }
        None => (quote::quote!(::forms_runtime), tokens.into_iter().collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::expand;
    use quote::quote;

    fn errors_of(input: proc_macro2::TokenStream) -> Vec<String> {
        let out = expand(input).to_string();
        out.split("compile_error")
            .skip(1)
            .map(|s| s.split('"').nth(1).unwrap_or_default().to_owned())
            .collect()
    }

    #[test]
    fn r4_literal_text_beyond_one_mib_is_refused() {
        // Each description is at most 2,000 characters (R9); 12 questions of 24 options with
        // 1,000-character descriptions make about 288,000; images take the rest.
        let src = format!("data:image/png;base64,{}", "A".repeat(262_000));
        let options = (0..4).map(|i| {
            let id = format!("o{i}");
            quote!({ id: #id, title: "Option", thumbnail: { src: #src } })
        });
        let options: Vec<_> = options.collect();
        let question = |n: usize| {
            let id = format!("q{n}");
            let options = options.clone();
            quote!({ id: #id, type: single_select, title: "Pick", required: false,
                     options: [ #(#options),* ] })
        };
        let big = [question(0), question(1)];
        let errors = errors_of(quote!(message: "Hello", questions: [ #(#big),* ]));
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains("see rule R4"), "{errors:?}");
        // Half of it fits.
        let half = [question(0)];
        assert!(errors_of(quote!(message: "Hello", questions: [ #(#half),* ])).is_empty());
    }

    #[test]
    fn all_mistakes_reported_together() {
        let errors = errors_of(quote!(
            message: "",
            questions: [ { id: "9x", type: text, title: "", required: 1 } ],
            extra: 1,
        ));
        let rules: Vec<&str> = errors
            .iter()
            .map(|e| e.rsplit("see rule ").next().unwrap_or_default())
            .collect();
        assert_eq!(rules, ["R1", "R6", "R8", "R10", "R3"], "{errors:?}");
    }

    #[test]
    fn keys_after_a_failed_option_list_are_still_judged() {
        let errors = errors_of(quote!(
            message: "Pick",
            questions: [
                { id: "s", type: resources, title: "Sources", required: false, maxItems: 30 },
                { id: "d", type: files, title: "Data", required: false,
                  options: [ { uri: "relative", name: "n", title: "t" } ], accept: ["csv"] },
            ],
        ));
        assert_eq!(errors.len(), 4, "{errors:?}");
        assert!(errors[0].contains("missing `options`"), "{errors:?}");
        assert!(
            errors[1].contains("`maxItems` must be an integer from 1 to 24"),
            "{errors:?}"
        );
        assert!(errors[2].contains("resource uri `relative`"), "{errors:?}");
        assert!(errors[3].contains("accept entry `csv`"), "{errors:?}");
        assert!(
            !errors.iter().any(|e| e.contains("unknown key")),
            "{errors:?}"
        );
    }
}
