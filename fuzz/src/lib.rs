//! Cross-checks of the forms runtime, shared by the cargo-fuzz targets (`fuzz_targets/`) and by
//! the stable tests of the root package, which include this file with `#[path]`
//! (`tests/fuzz_replay.rs` replays the committed corpus, `tests/generated.rs` runs the
//! generator under proptest, `examples/peer_generated.rs` writes generated cases for
//! `peer-check`).
//!
//! A failed check panics with a message that names the input and what disagreed: that is how
//! libFuzzer and the test harness see a finding. Modules refer to each other through `super::`
//! so that the files compile as a module of another crate too.
#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

pub mod checks;
pub mod corpus;
pub mod gen;
pub mod json;
pub mod native;
pub mod targets;
pub mod typed;
