//! Timing of the benchmarks' calls.

use std::time::{Duration, Instant};

/// The fastest of `rounds` rounds of `calls` calls of `f`, per call (zero when `rounds` is 0;
/// `calls` must not be 0).
pub fn best_per_call(rounds: usize, calls: u32, mut f: impl FnMut()) -> Duration {
    (0..rounds)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..calls {
                f();
            }
            start.elapsed() / calls
        })
        .min()
        .unwrap_or_default()
}
