//! Cross-checks of the forms runtime for the cargo-fuzz targets (`fuzz_targets/`): the modules
//! of `forms_test_kit::fuzz`, which the stable tests of the root package share
//! (`tests/fuzz_replay.rs` replays the committed corpus, `tests/generated.rs` runs the
//! generator under proptest, `examples/peer_generated.rs` writes generated cases for
//! `peer-check`). The deep targets `mcp_edge` and `asks_model` run the modules of
//! `forms_test_kit::fuzz_deep`, whose committed corpus `tests/fuzz_replay.rs` replays too.

pub use forms_test_kit::fuzz::{checks, corpus, gen, json, native, targets, typed};
pub use forms_test_kit::fuzz_deep::{asks_model, mcp_edge};
