//! Error accumulation: every mistake of an item is collected and reported in one compile, in
//! the order of the source.

use proc_macro2::TokenStream;
use quote::ToTokens;
use std::cell::RefCell;
use std::fmt::Display;

/// Collects the errors of one macro invocation.
///
/// It must be consumed by [`Ctxt::into_compile_errors`] (or, in tests, `messages`): dropping
/// it unchecked would lose the errors, and panics instead, as serde's `Ctxt` does.
pub(crate) struct Ctxt {
    /// `None` once the errors have been taken.
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    pub(crate) fn new() -> Self {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    fn push(&self, err: syn::Error) {
        if let Some(errors) = self.errors.borrow_mut().as_mut() {
            errors.push(err);
        }
    }

    /// Records an error spanned at `tokens`.
    pub(crate) fn error_spanned_by<T: ToTokens, M: Display>(&self, tokens: T, message: M) {
        self.push(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// Records an error at `span`.
    pub(crate) fn error_at<M: Display>(&self, span: proc_macro2::Span, message: M) {
        self.push(syn::Error::new(span, message));
    }

    /// Records a parse error.
    pub(crate) fn syn_error(&self, err: syn::Error) {
        self.push(err);
    }

    /// The recorded errors in source order, leaving the context checked.
    ///
    /// The stages record errors stage by stage (every attribute is parsed before any rule is
    /// checked), so they are sorted here by where they start. Errors at the same place keep
    /// the order they were recorded in. On a compiler without span locations (before Rust
    /// 1.88) every position reads as line 0 and the recorded order is kept.
    fn take(&self) -> Vec<syn::Error> {
        let mut errors = self.errors.borrow_mut().take().unwrap_or_default();
        errors.sort_by_key(|e| {
            let start = e.span().start();
            (start.line, start.column)
        });
        errors
    }

    /// All errors as `compile_error!` invocations, or `None` when there are none.
    pub(crate) fn into_compile_errors(self) -> Option<TokenStream> {
        let errors = self.take();
        if errors.is_empty() {
            return None;
        }
        Some(errors.iter().map(syn::Error::to_compile_error).collect())
    }
}

impl Drop for Ctxt {
    // Dropping a context whose errors were never taken is a bug of this crate, not of the
    // user's input: it would compile a form that has mistakes. Like serde's `Ctxt`, fail loudly
    // so that the macro's own tests catch it; never while already unwinding.
    #[allow(clippy::panic)]
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            panic!("forms-macros: a Ctxt was dropped without its errors being checked");
        }
    }
}

#[cfg(test)]
impl Ctxt {
    /// The recorded messages, in source order (for tests).
    pub(crate) fn messages(self) -> Vec<String> {
        self.take().iter().map(ToString::to_string).collect()
    }
}
