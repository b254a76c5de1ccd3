//! Cross-checks of the forms runtime, shared by the cargo-fuzz targets (`fuzz/fuzz_targets/`,
//! through the `forms-fuzz` crate, which re-exports these modules) and by the stable tests of
//! the root package (`tests/fuzz_replay.rs` replays the committed corpus, `tests/generated.rs`
//! runs the generator under proptest, `examples/peer_generated.rs` writes generated cases for
//! `peer-check`). Built with the kit's `fuzz` feature.
//!
//! A failed check panics with a message that names the input and what disagreed: that is how
//! libFuzzer and the test harness see a finding.

pub mod checks;
pub mod corpus;
pub mod gen;
pub mod json;
pub mod native;
pub mod targets;
pub mod typed;
