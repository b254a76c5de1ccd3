//! Decoding an accepted answer to a 12-question derived form (all six question kinds, every
//! answer rule checked) against `serde_json::from_str` of the same JSON into a plain
//! `#[derive(Deserialize)]` struct of `String` / `Vec<String>` fields, which checks nothing.
//!
//! It is also compared with the usual generic pipeline: validating the answer's content with
//! the `jsonschema` crate against the form's native `requestedSchema`, then deserializing the
//! same plain struct with serde.
//!
//! Run with `cargo bench --bench decode`; the last lines print the ratios typed / plain and
//! jsonschema pipeline / typed, all measured in the same run.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

use criterion::{black_box, Criterion};
use forms_runtime::data::{Image, ResourceOption};
use forms_runtime::{FileRef, Form, Outcome, TypedForm};
use forms_test_kit::timing::best_per_call;
use std::time::Duration;
use url::Url;

mod answer;
use answer::{PlainResponse, ANSWER};

#[derive(Form, Debug)]
#[form(message = "Set up your weekly report")]
#[allow(dead_code)]
struct Report {
    /// What would you like to understand?
    goal: String,
    /// Anything else we should know?
    #[form(max_length = 2000)]
    notes: Option<String>,
    /// Who reads the report?
    audience: String,
    /// Report format
    format: Format,
    /// Tone
    tone: Option<Tone>,
    /// Sections
    #[form(max_items = 5)]
    sections: Vec<Section>,
    /// Regions
    #[form(required)]
    regions: Vec<Region>,
    /// Relevant report templates
    #[form(resource)]
    template: Option<Url>,
    /// Dashboard to link
    #[form(resource)]
    dashboard: Url,
    /// Example reports
    #[form(resources, max_items = 3)]
    examples: Vec<Url>,
    /// Upload your data
    #[form(files, offered, accept = [".csv", "text/csv"])]
    data: Vec<FileRef>,
    /// Appendix files
    #[form(files)]
    appendix: Vec<FileRef>,
}

#[derive(Form, Debug)]
#[form(rename_all = "snake_case")]
enum Format {
    /// PDF
    Pdf,
    /// Web page
    WebPage,
    /// Slides
    Slides,
}

#[derive(Form, Debug)]
#[form(rename_all = "snake_case")]
enum Tone {
    /// Formal
    Formal,
    /// Casual
    Casual,
}

#[derive(Form, Debug)]
#[form(rename_all = "snake_case")]
enum Section {
    /// Executive summary
    ExecutiveSummary,
    /// Revenue
    Revenue,
    /// Churn
    Churn,
    /// Retention cohorts
    RetentionCohorts,
    /// Pipeline
    Pipeline,
    /// Outlook
    Outlook,
}

#[derive(Form, Debug)]
#[form(rename_all = "kebab-case")]
enum Region {
    /// North America
    NorthAmerica,
    /// Europe, Middle East and Africa
    Emea,
    /// Asia Pacific
    Apac,
    /// Latin America
    Latam,
}

fn resource(uri: &str, name: &str, title: &str) -> ResourceOption {
    let mut r = ResourceOption::new(uri, name, title);
    r.icons = Some(vec![Image::new("https://example.com/icons/doc.png")]);
    r
}

fn form() -> TypedForm<Report> {
    let templates = vec![
        resource(
            "https://docs.example.com/templates/business-review",
            "business-review",
            "Presentation · Business review",
        ),
        resource(
            "https://docs.example.com/templates/weekly-update",
            "weekly-update",
            "Document · Weekly update",
        ),
        resource(
            "https://docs.example.com/templates/board-pack",
            "board-pack",
            "Presentation · Board pack",
        ),
    ];
    let dashboards = vec![
        resource(
            "https://sites.example.com/growth-dashboard",
            "growth",
            "Site · Growth dashboard",
        ),
        resource(
            "https://sites.example.com/churn-dashboard",
            "churn",
            "Site · Churn dashboard",
        ),
    ];
    let examples = (1..=6)
        .map(|i| {
            resource(
                &format!("https://docs.example.com/reports/2024-w{i:02}"),
                &format!("report-{i}"),
                &format!("Document · Weekly report {i}"),
            )
        })
        .collect();
    Report::build(ReportParts {
        template: templates,
        dashboard: dashboards,
        examples,
        data: vec![resource(
            "https://drive.example.com/files/q2-sales.csv",
            "q2-sales",
            "Spreadsheet · Q2 sales",
        )],
    })
    .unwrap()
}

fn typed(form: &TypedForm<Report>) -> Report {
    match form.decode(black_box(ANSWER)).unwrap() {
        Outcome::Accepted(r) => r,
        other => panic!("{other:?}"),
    }
}

/// The answer checker with serde_json reading the text, as before the runtime's own reader.
fn checker_serde(form: &TypedForm<Report>) -> Outcome<forms_runtime::Answers<'_>> {
    forms_runtime::__private::reader::check_response_serde(form.data(), black_box(ANSWER)).unwrap()
}

fn plain() -> PlainResponse {
    serde_json::from_str(black_box(ANSWER)).unwrap()
}

/// Generic validation: parse the answer, validate its content against the native
/// `requestedSchema` with `jsonschema`, then deserialize the plain struct.
fn schema_pipeline(validator: &jsonschema::Validator) -> PlainResponse {
    let value: serde_json::Value = serde_json::from_str(black_box(ANSWER)).unwrap();
    assert!(validator.is_valid(&value["content"]));
    serde_json::from_value(value).unwrap()
}

fn main() {
    let form = form();
    let r = typed(&form);
    assert_eq!(r.sections.len(), 4);
    assert_eq!(r.data.len(), 2);

    let schema = serde_json::to_value(form.data().native().requested_schema()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert_eq!(schema_pipeline(&validator).content.sections.len(), 4);

    // `FORMS_PROFILE=typed|plain|checker|checker_serde|jsonschema` runs only that side, 2,000,000 times
    // (or `FORMS_PROFILE_ITERS`),
    // for a profiler (`perf record`, `perf stat`), and measures nothing.
    if let Ok(side) = std::env::var("FORMS_PROFILE") {
        let iters = std::env::var("FORMS_PROFILE_ITERS")
            .ok()
            .and_then(|n| n.parse().ok());
        for _ in 0..iters.unwrap_or(2_000_000) {
            match side.as_str() {
                "typed" => drop(black_box(typed(&form))),
                "plain" => drop(black_box(plain())),
                "checker" => drop(black_box(form.data().check_response(ANSWER).unwrap())),
                "checker_serde" => drop(black_box(checker_serde(&form))),
                _ => drop(black_box(schema_pipeline(&validator))),
            }
        }
        return;
    }

    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("decode");
    group.bench_function("typed (derive, all rules)", |b| b.iter(|| typed(&form)));
    group.bench_function("serde_json plain struct", |b| b.iter(plain));
    group.bench_function("answer checker only (untyped)", |b| {
        b.iter(|| black_box(form.data().check_response(black_box(ANSWER)).unwrap()))
    });
    group.bench_function("jsonschema validation + serde plain struct", |b| {
        b.iter(|| schema_pipeline(&validator))
    });
    group.finish();
    c.final_summary();

    // Interleaved rounds so both sides see the same machine state.
    let (mut t, mut p, mut k, mut j) = (Duration::MAX, Duration::MAX, Duration::MAX, Duration::MAX);
    let mut s = Duration::MAX;
    for _ in 0..5 {
        s = s.min(best_per_call(5, 20_000, || {
            black_box(checker_serde(&form));
        }));
        t = t.min(best_per_call(5, 20_000, || {
            black_box(typed(&form));
        }));
        p = p.min(best_per_call(5, 20_000, || {
            black_box(plain());
        }));
        k = k.min(best_per_call(5, 20_000, || {
            black_box(form.data().check_response(black_box(ANSWER)).unwrap());
        }));
        j = j.min(best_per_call(5, 20_000, || {
            black_box(schema_pipeline(&validator));
        }));
    }
    let ratio = |a: Duration| a.as_secs_f64() / p.as_secs_f64();
    println!(
        "answer checker only / serde_json plain: {:.2}x ({k:?} per answer)",
        ratio(k)
    );
    println!(
        "answer checker with serde_json's reader / serde_json plain: {:.2}x ({s:?} per answer)",
        ratio(s)
    );
    println!(
        "decode ratio typed / serde_json plain: {:.2}x ({t:?} vs {p:?} per answer; target <= 1.00x)",
        ratio(t)
    );
    println!(
        "decode ratio jsonschema + serde / typed: {:.2}x faster ({j:?} vs {t:?} per answer; target >= 2.50x)",
        j.as_secs_f64() / t.as_secs_f64()
    );
}
