//! Parsing Data arguments: `DataForm::from_json` of a typical 93 KB form (12 questions × 24
//! options) against parsing the same text into a `serde_json::Value` (which checks nothing),
//! and the cost of refusing the slowest hostile inputs we could construct against accepting
//! the largest valid form (just under 1 MiB).
//!
//! Run with `cargo bench --bench parse`; the last lines print each ratio, both sides measured
//! in the same run.

use forms_test_kit::inputs;
use forms_test_kit::timing::best_per_call;

use criterion::{black_box, Criterion};
use forms_runtime::__private::reader::data_form_from_json_serde as from_json_serde;
use forms_runtime::DataForm;
use std::time::Duration;

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

    // `FORMS_PROFILE=from_json|from_value|largest|N` (N: the index of a hostile input) runs
    // only that input, a fixed number of times (10,000 for the typical form, 2,000 for the
    // others, or `FORMS_PROFILE_ITERS`), for a profiler (`perf record`, `perf stat`), and measures nothing.
    if let Ok(side) = std::env::var("FORMS_PROFILE") {
        let typical_side = matches!(side.as_str(), "from_json" | "from_value");
        let iters = std::env::var("FORMS_PROFILE_ITERS")
            .ok()
            .and_then(|n| n.parse().ok());
        for _ in 0..iters.unwrap_or(if typical_side { 10_000 } else { 2_000 }) {
            match side.as_str() {
                "from_json" => drop(black_box(DataForm::from_json(&typical))),
                "from_value" => drop(black_box(DataForm::from_value(&parsed))),
                "largest" => drop(black_box(DataForm::from_json(&largest))),
                n => {
                    let k: usize = n.parse().unwrap_or(0);
                    drop(black_box(DataForm::from_json(&hostile[k].1)));
                }
            }
        }
        return;
    }

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

    // Interleaved rounds so both sides see the same machine state; each ratio is the median
    // of the ratios of its rounds (the machine may be shared).
    let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
    };
    let (mut j, mut v, mut p) = (Duration::MAX, Duration::MAX, Duration::MAX);
    let (mut jr, mut vr, mut sr) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..9 {
        let tj = best_per_call(3, 100, || {
            black_box(DataForm::from_json(black_box(&typical)).unwrap());
        });
        let ts = best_per_call(3, 100, || {
            black_box(from_json_serde(black_box(&typical)).unwrap());
        });
        sr.push(ratio(ts, tj));
        let tv = best_per_call(3, 100, || {
            black_box(DataForm::from_value(black_box(&parsed)).unwrap());
        });
        let tp = best_per_call(3, 100, || {
            black_box(value(&typical));
        });
        jr.push(ratio(tj, tp));
        vr.push(ratio(tv, tp));
        (j, v, p) = (j.min(tj), v.min(tv), p.min(tp));
    }
    println!(
        "typical form: {} bytes, 12 questions x 24 options",
        typical.len()
    );
    println!(
        "parse ratio from_value / serde_json::Value parse: {:.2}x (best {v:?} vs {p:?})",
        median(vr)
    );
    println!(
        "parse ratio from_json / serde_json::Value parse: {:.2}x (best {j:?} vs {p:?}; target <= 1.20x)",
        median(jr)
    );
    println!(
        "from_json with serde_json's reader / with the own reader: {:.2}x",
        median(sr)
    );

    let mut valid = Duration::MAX;
    let mut ratios = vec![Vec::new(); hostile.len()];
    let mut floors = vec![Vec::new(); hostile.len()];
    let mut best = vec![Duration::MAX; hostile.len()];
    let mut befores = vec![Vec::new(); hostile.len()];
    for _ in 0..7 {
        let tv = best_per_call(3, 5, || {
            black_box(DataForm::from_json(black_box(&largest)).unwrap());
        });
        valid = valid.min(tv);
        for (k, (_, text)) in hostile.iter().enumerate() {
            let t = best_per_call(3, 5, || {
                black_box(DataForm::from_json(black_box(text)).unwrap_err());
            });
            // The floor: serde_json only reading the text (IgnoredAny), which any parser built
            // on it pays.
            let read = best_per_call(3, 5, || {
                black_box(serde_json::from_str::<serde::de::IgnoredAny>(black_box(text)).unwrap());
            });
            let before = best_per_call(3, 5, || {
                black_box(from_json_serde(black_box(text)).unwrap_err());
            });
            befores[k].push(ratio(before, tv));
            ratios[k].push(ratio(t, tv));
            floors[k].push(ratio(read, tv));
            best[k] = best[k].min(t);
        }
    }
    println!(
        "largest valid form: {} bytes, accepted in {valid:?} (best)",
        largest.len()
    );
    let mut slowest: f64 = 0.0;
    for (((((name, text), r), floor), t), before) in hostile
        .iter()
        .zip(ratios)
        .zip(floors)
        .zip(&best)
        .zip(befores)
    {
        let r = median(r);
        slowest = slowest.max(r);
        println!(
            "refusal ratio {name} ({} bytes) / largest valid: {r:.2}x (best {t:?}; serde_json \
             only reading it: {:.2}x; with serde_json's reader: {:.2}x)",
            text.len(),
            median(floor),
            median(before)
        );
    }
    println!(
        "refusal ratio slowest hostile input / largest valid: {slowest:.2}x (target <= 3.00x)"
    );
}
