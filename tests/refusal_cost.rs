//! Refusing must be cheap: any input of at most 1 MiB (R4) is answered in a bounded multiple
//! of the time the largest valid form takes, and a refusal lists at most
//! `forms_runtime::error::FINDINGS_MAX` findings and counts the rest.
//!
//! The time bound here is generous (10×, both sides measured in this run, in whatever profile
//! the tests are built); `cargo bench --bench parse` measures the real ratios.

use forms_test_kit::inputs;

use forms_runtime::error::{FINDINGS_MAX, MESSAGE_FINDINGS_MAX};
use forms_runtime::{DataForm, ErrorCode, FormError};
use std::time::{Duration, Instant};

fn refused(text: &str) -> FormError {
    match DataForm::from_json(text) {
        Ok(_) => panic!("accepted: {}…", text.get(..200).unwrap_or(text)),
        Err(e) => e,
    }
}

/// The fastest of `rounds` runs of `f`.
fn best(rounds: usize, mut f: impl FnMut()) -> Duration {
    (0..rounds)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

#[test]
fn r4_any_input_up_to_1_mib_is_answered_within_10x_the_largest_valid_form() {
    let largest = inputs::largest_valid_form();
    assert!(largest.encode_utf16().count() <= inputs::MIB);
    let valid = best(5, || {
        DataForm::from_json(&largest).unwrap_or_else(|e| panic!("{e}"));
    });
    let mut report = Vec::new();
    for (name, text) in inputs::hostile_inputs() {
        assert!(text.len() <= inputs::MIB, "{name}");
        let mut err = None;
        let took = best(3, || err = Some(refused(&text)));
        let err = err.unwrap_or_else(|| unreachable!());
        assert_eq!(err.code(), ErrorCode::InvalidArguments, "{name}");
        assert!(err.findings().len() <= FINDINGS_MAX, "{name}");
        assert!(
            err.message().len() < 40_000,
            "{name}: {}",
            err.message().len()
        );
        let ratio = took.as_secs_f64() / valid.as_secs_f64();
        report.push(format!("{name}: {took:?} = {ratio:.1}x"));
        assert!(
            ratio <= 10.0,
            "{name} took {took:?}, {ratio:.1}x the largest valid form ({valid:?})\n{}",
            report.join("\n")
        );
    }
    println!("largest valid form: {valid:?}\n{}", report.join("\n"));
}

/// A choice question whose `n` options all have the bad ID `9x…` (R6).
fn bad_ids(questions: usize, options: usize) -> String {
    let qs: Vec<String> = (0..questions)
        .map(|q| {
            let opts: Vec<String> = (0..options)
                .map(|i| format!(r#"{{"id":"9x{q}_{i}","title":"Option {i}"}}"#))
                .collect();
            format!(
                r#"{{"id":"q{q}","type":"single_select","title":"Question {q}","required":false,"options":[{}]}}"#,
                opts.join(",")
            )
        })
        .collect();
    format!(r#"{{"message":"Pick","questions":[{}]}}"#, qs.join(","))
}

#[test]
fn r6_findings_past_the_bound_are_counted_exactly() {
    // 12 × 24 bad IDs: 288 findings, every value checked.
    let err = refused(&bad_ids(12, 24));
    assert_eq!(err.findings().len(), FINDINGS_MAX);
    assert_eq!(err.more_findings(), 288 - FINDINGS_MAX);
    assert!(!err.more_findings_is_lower_bound());
    // The first FINDINGS_MAX in document order are kept.
    let first = &err.findings()[0];
    assert_eq!(first.path.to_string(), "questions[0].options[0].id");
    let last = &err.findings()[FINDINGS_MAX - 1];
    assert_eq!(last.path.to_string(), "questions[4].options[3].id");
    assert!(err.findings().iter().all(|f| f.problem.contains("9x")));
    let unspelled = FINDINGS_MAX - MESSAGE_FINDINGS_MAX + err.more_findings();
    assert!(
        err.message()
            .ends_with(&format!("; and {unspelled} more problems")),
        "{}",
        err.message()
    );
}

#[test]
fn r6_under_the_bound_nothing_is_counted() {
    // 4 × 24 bad IDs: 96 findings, all kept (the message spells out the first 50).
    let err = refused(&bad_ids(4, 24));
    assert_eq!(err.findings().len(), 96);
    assert_eq!(err.more_findings(), 0);
    assert!(err.message().ends_with("; and 46 more problems"));
    // 4 × 25: 100 bad IDs and 4 questions with too many options (R13), 4 past the bound;
    // the counts of options come first in each question, so they are among those kept.
    let err = refused(&bad_ids(4, 25));
    assert_eq!(err.findings().len(), FINDINGS_MAX);
    assert_eq!(err.more_findings(), 4);
    let counts = err
        .findings()
        .iter()
        .filter(|f| f.problem.contains("must have at most 24 options"))
        .count();
    assert_eq!(counts, 4);
}

#[test]
fn r23_a_structure_with_too_many_problems_stops_before_the_values() {
    // 110 options of the wrong type: more structural findings than the bound, so the values
    // are not checked and the count is a lower bound; the count of options is still given.
    let text = format!(
        r#"{{"message":"m","questions":[{{"id":"q","type":"single_select","title":"T","required":false,"options":[{}]}}]}}"#,
        vec!["0"; 110].join(",")
    );
    let err = refused(&text);
    assert_eq!(err.findings().len(), FINDINGS_MAX);
    assert!(err.more_findings_is_lower_bound());
    assert!(err.more_findings() >= 11);
    assert!(err
        .message()
        .contains("questions[0].options: must have at most 24 options, found 110"));
    assert!(
        err.message().contains("; and at least "),
        "{}",
        err.message()
    );
}

#[test]
fn r13_a_long_array_is_counted_whole() {
    // Far more options than any form may have: the count is the real one, though only the
    // first ones are looked at.
    let err = refused(&inputs::hostile_inputs()[0].1);
    let count = err
        .findings()
        .iter()
        .find(|f| f.path.to_string() == "questions[0].options")
        .unwrap_or_else(|| panic!("{}", err.message()));
    assert!(count.problem.contains("found 399"), "{}", count.problem);
    assert!(err.more_findings_is_lower_bound());
}

#[test]
fn r3_contract_properties_past_many_unknown_ones_are_still_read() {
    // An object with more properties than the tree keeps still has its `id`, `type`, `title`
    // and `required` read: only the unknown properties are reported.
    let junk: Vec<String> = (0..300).map(|i| format!(r#""junk{i}":[1,2]"#)).collect();
    let text = format!(
        r#"{{"message":"m","questions":[{{{},"id":"goal","type":"text","title":"Goal","required":true}}]}}"#,
        junk.join(",")
    );
    let err = refused(&text);
    assert!(err
        .findings()
        .iter()
        .all(|f| f.path.to_string().starts_with("questions[0].junk")));
    assert!(!err.message().contains("missing"), "{}", err.message());
    // A contract property repeated past them is still a duplicate (R3).
    let text = text.replace(r#""required":true"#, r#""required":true,"id":"again""#);
    let err = refused(&text);
    assert!(
        err.message().contains("repeats a property name"),
        "{}",
        err.message()
    );
}
