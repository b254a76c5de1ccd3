//! Error accumulation: every mistake of an item is collected and reported in one compile.

use proc_macro2::TokenStream;
use quote::ToTokens;
use std::cell::RefCell;
use std::fmt::Display;

/// Collects the errors of one macro invocation.
#[derive(Default)]
pub(crate) struct Ctxt {
    errors: RefCell<Vec<syn::Error>>,
}

impl Ctxt {
    pub(crate) fn new() -> Self {
        Ctxt::default()
    }

    /// Records an error spanned at `tokens`.
    pub(crate) fn error_spanned_by<T: ToTokens, M: Display>(&self, tokens: T, message: M) {
        self.errors
            .borrow_mut()
            .push(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// Records an error at `span`.
    pub(crate) fn error_at<M: Display>(&self, span: proc_macro2::Span, message: M) {
        self.errors
            .borrow_mut()
            .push(syn::Error::new(span, message));
    }

    /// Records a parse error.
    pub(crate) fn syn_error(&self, err: syn::Error) {
        self.errors.borrow_mut().push(err);
    }

    /// Whether anything has been recorded.
    pub(crate) fn has_errors(&self) -> bool {
        !self.errors.borrow().is_empty()
    }

    /// All errors as `compile_error!` invocations, or `None` when there are none.
    pub(crate) fn into_compile_errors(self) -> Option<TokenStream> {
        let errors = self.errors.into_inner();
        if errors.is_empty() {
            return None;
        }
        Some(errors.iter().map(syn::Error::to_compile_error).collect())
    }
}

#[cfg(test)]
impl Ctxt {
    /// The recorded messages, in order (for tests).
    pub(crate) fn messages(self) -> Vec<String> {
        self.errors
            .into_inner()
            .iter()
            .map(ToString::to_string)
            .collect()
    }
}
