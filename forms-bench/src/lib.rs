//! Benchmarks of the forms workspace that compare it with heavier libraries; see
//! `benches/decode.rs` and BENCHMARKS.md. Run them with `cargo bench`.
