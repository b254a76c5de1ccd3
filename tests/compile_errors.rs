//! Compile-time checks of `#[derive(Form)]` and `form!`: one concept per file under
//! `tests/ui/derive_*` and `tests/ui/form_macro`, with the expected compiler output beside it.
//! Regenerate with `TRYBUILD=overwrite` and read every changed `.stderr` like code.
//! `tests/ui/derive_rustc` holds the errors that come from rustc itself (trait bounds, const
//! evaluation) and `tests/ui/form_macro/types` run-time values of the wrong type (rustc's trait
//! errors, worded by our `#[diagnostic::on_unimplemented]` notes): their wording may change
//! between compilers.
//!
//! All in one batch of compile-fail cases only: trybuild then checks them in one cargo run,
//! each case compiled once (a batch that also holds a passing case is built case by case).
//! The derives that must compile, `tests/ui/pass_derive`, are test targets of their own
//! (Cargo.toml, `pass_derive_*`), built with the other tests.

#[test]
fn compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/derive_*/*.rs");
    // Our own messages.
    t.compile_fail("tests/ui/form_macro/*.rs");
    t.compile_fail("tests/ui/form_macro/types/*.rs");
}
