//! Compile-time checks of `#[derive(Form)]`: one concept per file under `tests/ui/derive_*`,
//! with the expected compiler output beside it. Regenerate with `TRYBUILD=overwrite` and read
//! every changed `.stderr` like code. `tests/ui/derive_rustc` holds the errors that come from
//! rustc itself (trait bounds, const evaluation): their wording may change between compilers.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

#[test]
fn derive_ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/derive_*/*.rs");
    t.pass("tests/ui/pass_derive/*.rs");
}
