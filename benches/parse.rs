//! Parsing Data arguments: `DataForm::from_json` of a typical 93 KB form (12 questions × 24
//! options) against parsing the same text into a `serde_json::Value` (which checks nothing),
//! and the cost of refusing the slowest hostile inputs we could construct against accepting
//! the largest valid form (just under 1 MiB).
//!
//! Run with `cargo bench --bench parse`; the last lines print each ratio, both sides measured
//! in the same run.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

#[path = "support/inputs.rs"]
mod inputs;

use criterion::{black_box, Criterion};
use forms_runtime::DataForm;
use std::time::{Duration, Instant};

/// The fastest of several rounds, per call.
fn best_per_call(rounds: usize, calls: u32, mut f: impl FnMut()) -> Duration {
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

fn value(text: &str) -> serde_json::Value {
    serde_json::from_str(black_box(text)).unwrap()
}

fn main() {
    let typical = inputs::typical_form();
    let largest = inputs::largest_valid_form();
    let hostile = inputs::hostile_inputs();
    DataForm::from_json(&typical).unwrap();
    DataForm::from_json(&largest).unwrap();
    for (name, text) in &hostile {
        assert!(text.len() <= inputs::MIB, "{name}");
        assert!(DataForm::from_json(text).is_err(), "{name}");
    }
    let parsed = value(&typical);

    let mut c = Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    let mut group = c.benchmark_group("parse 93 KB form");
    group.bench_function("DataForm::from_json", |b| {
        b.iter(|| DataForm::from_json(black_box(&typical)).unwrap())
    });
    group.bench_function("DataForm::from_value", |b| {
        b.iter(|| DataForm::from_value(black_box(&parsed)).unwrap())
    });
    group.bench_function("serde_json::Value", |b| b.iter(|| value(&typical)));
    group.finish();
    let mut group = c.benchmark_group("answer 1 MiB input");
    group.bench_function("largest valid form", |b| {
        b.iter(|| DataForm::from_json(black_box(&largest)).unwrap())
    });
    group.bench_function(hostile[0].0, |b| {
        b.iter(|| DataForm::from_json(black_box(&hostile[0].1)).unwrap_err())
    });
    group.finish();
    c.final_summary();

    // Interleaved rounds so both sides see the same machine state.
    let (mut j, mut v, mut p) = (Duration::MAX, Duration::MAX, Duration::MAX);
    for _ in 0..5 {
        j = j.min(best_per_call(5, 200, || {
            black_box(DataForm::from_json(black_box(&typical)).unwrap());
        }));
        v = v.min(best_per_call(5, 200, || {
            black_box(DataForm::from_value(black_box(&parsed)).unwrap());
        }));
        p = p.min(best_per_call(5, 200, || {
            black_box(value(&typical));
        }));
    }
    println!(
        "typical form: {} bytes, 12 questions x 24 options",
        typical.len()
    );
    let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
    println!(
        "parse ratio from_value / serde_json::Value parse: {:.2}x ({v:?} vs {p:?})",
        ratio(v, p)
    );
    println!(
        "parse ratio from_json / serde_json::Value parse: {:.2}x ({j:?} vs {p:?}; target <= 1.50x)",
        ratio(j, p)
    );

    let mut valid = Duration::MAX;
    let mut worst = vec![Duration::ZERO; hostile.len()];
    for round in 0..3 {
        valid = valid.min(best_per_call(3, 5, || {
            black_box(DataForm::from_json(black_box(&largest)).unwrap());
        }));
        for (k, (_, text)) in hostile.iter().enumerate() {
            let t = best_per_call(3, 5, || {
                black_box(DataForm::from_json(black_box(text)).unwrap_err());
            });
            worst[k] = if round == 0 { t } else { worst[k].min(t) };
        }
    }
    println!(
        "largest valid form: {} bytes, accepted in {valid:?}",
        largest.len()
    );
    let mut slowest: f64 = 0.0;
    for ((name, text), t) in hostile.iter().zip(&worst) {
        let r = ratio(*t, valid);
        slowest = slowest.max(r);
        println!(
            "refusal ratio {name} ({} bytes) / largest valid: {r:.2}x ({t:?})",
            text.len()
        );
    }
    println!(
        "refusal ratio slowest hostile input / largest valid: {slowest:.2}x (target <= 3.00x)"
    );
}
