//! The deep fuzz targets (`mcp_edge`, `asks_model`): their bodies, shared by the cargo-fuzz
//! crate (`fuzz/`) and the root package's replay of their committed corpus
//! (`tests/fuzz_replay.rs`). Feature `fuzz-deep`.

pub mod asks_model;
pub mod mcp_edge;
