//! Cross-checks of the forms runtime for the cargo-fuzz targets (`fuzz_targets/`): the modules
//! of `forms_test_kit::fuzz`, which the stable tests of the root package share
//! (`tests/fuzz_replay.rs` replays the committed corpus, `tests/generated.rs` runs the
//! generator under proptest, `examples/peer_generated.rs` writes generated cases for
//! `peer-check`).

pub use forms_test_kit::fuzz::{checks, corpus, gen, json, native, targets, typed};
