//! `#[derive(Form)]`: every derived form compiles to the same Data form and native request as
//! the equivalent Data JSON run through the runtime (derive and runtime cannot drift; that JSON
//! is the `form` of a conformance corpus case, `tests/corpus/1NN-derived-*.json`, so its host
//! responses are also checked by `tests/conformance.rs` and by the peer check), every
//! field kind round-trips through a host answer, and run-time parts are validated.

use forms_runtime::data::ResourceOption;
use forms_runtime::{
    DataForm, ErrorCode, FileRef, Form, FormChoice, Outcome, StaticForm, TypedForm,
};
use std::collections::HashSet;
use std::path::Path;
use url::Url;

// The derived forms of the corpus cases 101 and 104, shared with the typed fuzz cross-check.
use forms_test_kit::derived::{all_kinds, report_setup, Format, ReportSetup, Section};

/// Asserts that `form` is the form the runtime builds from `json`, both as Data and as the
/// native request.
fn assert_same<T>(form: &TypedForm<T>, json: &str) {
    let runtime = DataForm::from_json(json).expect("the equivalent Data JSON is valid");
    assert_eq!(
        form.data(),
        &runtime,
        "Data form differs from the runtime's"
    );
    assert_eq!(
        form.data().native_json(),
        runtime.native_json(),
        "native request differs"
    );
}

mod common;
use common::corpus_form;

fn accepted<T: std::fmt::Debug>(o: Outcome<T>) -> T {
    match o {
        Outcome::Accepted(t) => t,
        other => panic!("expected an accepted answer, got {other:?}"),
    }
}

// ---------------------------------------------------------------- the design's example

#[test]
fn report_setup_matches_the_runtime() {
    assert_same(&report_setup(), &corpus_form("101-derived-report-setup"));
}

#[test]
fn report_setup_round_trip() {
    let form = report_setup();
    let answer = r#"{"action":"accept","content":{
        "goal":"Why did churn rise in EMEA?",
        "format":"Html",
        "sections":["outlook","executive-summary"],
        "template":"https://example.com/templates/weekly",
        "data":["https://example.com/files/q2.csv","file:///home/me/q3%20sales.csv"]}}"#;
    let setup = accepted(form.decode(answer).unwrap());
    assert_eq!(
        setup,
        ReportSetup {
            goal: Some("Why did churn rise in EMEA?".into()),
            format: Format::Html,
            sections: vec![Section::Outlook, Section::ExecutiveSummary],
            template: Some(Url::parse("https://example.com/templates/weekly").unwrap()),
            data: vec![
                FileRef::Offered(Url::parse("https://example.com/files/q2.csv").unwrap()),
                FileRef::Local {
                    uri: "file:///home/me/q3%20sales.csv".into(),
                    path: "/home/me/q3 sales.csv".into(),
                },
            ],
        }
    );
    assert_eq!(
        setup.data[1].local_path(),
        Some(Path::new("/home/me/q3 sales.csv"))
    );
    assert_eq!(setup.data[0].local_path(), None);
    assert_eq!(setup.data[0].uri(), "https://example.com/files/q2.csv");
}

#[test]
fn skipped_optional_questions_decode_to_empty_values() {
    let form = report_setup();
    let setup = accepted(
        form.decode(r#"{"action":"accept","content":{"format":"Pdf"}}"#)
            .unwrap(),
    );
    assert_eq!(setup.goal, None);
    assert_eq!(setup.format, Format::Pdf);
    assert!(setup.sections.is_empty());
    assert_eq!(setup.template, None);
    assert!(setup.data.is_empty());
}

#[test]
fn decode_value_gives_the_same_result() {
    let form = report_setup();
    let text = r#"{"action":"accept","content":{"format":"Pdf","sections":["appendix"]}}"#;
    let value: serde_json::Value = serde_json::from_str(text).unwrap();
    assert_eq!(
        form.decode_value(&value).unwrap(),
        form.decode(text).unwrap()
    );
    let bad = serde_json::json!({"action":"accept","content":{"format":"pdf"}});
    assert_eq!(
        form.decode_value(&bad).unwrap_err().code(),
        ErrorCode::InvalidResponse
    );
}

#[test]
fn offered_urls_are_parsed_once_when_the_form_is_built() {
    let form = report_setup();
    let urls = form.offered(3);
    assert_eq!(urls.len(), 2);
    assert_eq!(urls[1].as_str(), "https://example.com/templates/weekly");
    assert!(form.offered(0).is_empty());
    assert!(form.offered(99).is_empty());
}

// ---------------------------------------------------------------- choice enums

#[test]
fn form_choice_metadata() {
    assert_eq!(Section::COUNT, 4);
    assert_eq!(Section::OPTIONS.len(), 4);
    assert_eq!(Section::from_index(1), Some(Section::RegionalBreakdown));
    assert_eq!(Section::from_index(4), None);
    assert_eq!(Section::Extra.index(), 3);
    assert_eq!(Section::Extra.id(), "appendix");
    assert_eq!(Section::RegionalBreakdown.id(), "regional-breakdown");
    let meta = Section::RegionalBreakdown.meta().unwrap();
    assert_eq!(meta.title, "Regional breakdown");
    assert_eq!(meta.description, Some("Revenue and churn per region."));
    assert_eq!(
        Section::Extra.meta().unwrap().thumbnail,
        Some("https://example.com/appendix.png")
    );
    assert_eq!(Format::Pdf.id(), "Pdf");
}

/// An enum is also a one-question form of its own.
#[derive(Form, Debug, PartialEq)]
#[form(message = "Which report format?", rename_all = "lowercase")]
enum ReportFormat {
    /// PDF
    Pdf,
    /// Web page
    Html,
}

#[test]
fn enum_form_matches_the_runtime() {
    let form = ReportFormat::form();
    assert_same(&form, &corpus_form("102-derived-enum-report-format"));
    let r = form
        .decode(r#"{"action":"accept","content":{"report_format":"html"}}"#)
        .unwrap();
    assert_eq!(r, Outcome::Accepted(ReportFormat::Html));
}

#[derive(Form, Debug, PartialEq)]
#[form(
    message = "Pick a tone",
    id = "tone",
    description = "Applies to every section."
)]
enum Tone {
    #[form(title = "Formal")]
    Formal,
    #[form(title = "Casual")]
    Casual,
}

#[test]
fn enum_form_with_its_own_id_and_description() {
    let form = Tone::form();
    assert_same(&form, &corpus_form("103-derived-enum-tone"));
    assert_eq!(
        form.decode(r#"{"action":"accept","content":{"tone":"Casual"}}"#)
            .unwrap(),
        Outcome::Accepted(Tone::Casual)
    );
}

// ---------------------------------------------------------------- every field kind

#[test]
fn all_kinds_match_the_runtime() {
    assert_same(&all_kinds(), &corpus_form("104-derived-all-kinds"));
}

#[test]
fn all_kinds_round_trip() {
    let form = all_kinds();
    let answer = r#"{"action":"accept","content":{
        "projectName":"Atlas",
        "extraNotes":"",
        "format":"Pdf",
        "fallback":"Html",
        "sectionList":["appendix","outlook","executive-summary"],
        "sectionTree":["outlook","executive-summary"],
        "hashed":["regional-breakdown"],
        "template":"https://example.com/templates/business-review",
        "examples":["https://example.com/templates/weekly","https://example.com/templates/business-review"],
        "attachments":["file://localhost/tmp/a.txt"],
        "images":[]}}"#;
    let all = accepted(form.decode(answer).unwrap());
    assert_eq!(all.project_name, "Atlas");
    assert_eq!(all.extra_notes.as_deref(), Some(""));
    assert_eq!(all.format, Format::Pdf);
    assert_eq!(all.fallback, Some(Format::Html));
    assert_eq!(
        all.section_list,
        [Section::Extra, Section::Outlook, Section::ExecutiveSummary]
    );
    assert_eq!(
        all.section_tree.into_iter().collect::<Vec<_>>(),
        [Section::ExecutiveSummary, Section::Outlook]
    );
    assert_eq!(
        all.section_hash,
        HashSet::from([Section::RegionalBreakdown])
    );
    assert_eq!(
        all.template.as_str(),
        "https://example.com/templates/business-review"
    );
    assert_eq!(
        all.examples.iter().map(Url::as_str).collect::<Vec<_>>(),
        [
            "https://example.com/templates/weekly",
            "https://example.com/templates/business-review"
        ]
    );
    assert_eq!(
        all.attachments,
        [FileRef::Local {
            uri: "file://localhost/tmp/a.txt".into(),
            path: "/tmp/a.txt".into()
        }]
    );
    assert!(all.images.is_empty());
}

#[test]
fn declined_and_cancelled_forms_carry_no_answers() {
    let form = all_kinds();
    let d = form.decode(r#"{"action":"decline"}"#).unwrap();
    assert_eq!(d, Outcome::Declined);
    assert_eq!(d.action(), "decline");
    assert!(d.accepted().is_none());
    let c = form.decode(r#"{"action":"cancel"}"#).unwrap();
    assert_eq!(c, Outcome::Cancelled);
    assert_eq!(c.action(), "cancel");
}

// ---------------------------------------------------------------- static forms

#[derive(Form, Debug)]
#[form(message = "What would you like to understand?")]
#[allow(dead_code)]
struct Goal {
    /// What would you like to understand?
    goal: String,
}

#[test]
fn static_forms_are_built_once() {
    let a = Goal::form();
    let b = Goal::form();
    assert!(
        std::ptr::eq(a.data().native_json(), b.data().native_json()),
        "the second call must share the first form"
    );
    assert!(std::ptr::eq(a.data(), b.data()));
}

#[test]
fn single_text_question_matches_the_runtime_header_rule() {
    // N10: a single text question whose title equals the message gets an empty native header.
    let form = Goal::form();
    assert_same(&form, &corpus_form("105-derived-static-goal"));
    let native: serde_json::Value = serde_json::from_str(form.data().native_json()).unwrap();
    assert_eq!(native["message"], "");
}

// ---------------------------------------------------------------- IDs and names

/// Raw identifiers are unwrapped; `id` overrides `rename_all`.
#[derive(Form, Debug)]
#[form(message = "Naming", rename_all = "SCREAMING-KEBAB-CASE")]
struct Naming {
    /// Type
    r#type: String,
    /// Kept
    #[form(id = "kept_as_is")]
    kept_field: String,
    /// Renamed
    some_long_name: Option<String>,
}

#[test]
fn ids_follow_rename_all_and_raw_identifiers() {
    let form = Naming::form();
    assert_same(&form, &corpus_form("106-derived-naming"));
    let ids: Vec<&str> = form
        .data()
        .questions()
        .iter()
        .map(|q| q.id.as_str())
        .collect();
    assert_eq!(ids, ["TYPE", "kept_as_is", "SOME-LONG-NAME"]);
    let n = accepted(
        form.decode(
            r#"{"action":"accept","content":{"TYPE":"a","kept_as_is":"b","SOME-LONG-NAME":"c"}}"#,
        )
        .unwrap(),
    );
    assert_eq!(
        (
            n.r#type.as_str(),
            n.kept_field.as_str(),
            n.some_long_name.as_deref()
        ),
        ("a", "b", Some("c"))
    );
}

/// The doc comment: first line is the title, the rest (paragraphs kept) the description.
#[derive(Form, Debug)]
#[form(message = "Docs")]
#[allow(dead_code)]
struct Docs {
    ///   What is the goal?
    /// The question we should answer,
    /// in one sentence.
    ///
    /// Keep it short.
    goal: String,
    /// Ignored title line
    #[form(title = "Explicit title", description = "Explicit description")]
    other: String,
}

#[test]
fn doc_comments_give_title_and_description() {
    let form = Docs::form();
    assert_same(&form, &corpus_form("107-derived-doc-comments"));
    let q = &form.data().questions()[0];
    assert_eq!(q.title, "What is the goal?");
    assert_eq!(
        q.description.as_deref(),
        Some("The question we should answer, in one sentence.\n\nKeep it short.")
    );
    let q = &form.data().questions()[1];
    assert_eq!(q.title, "Explicit title");
    assert_eq!(q.description.as_deref(), Some("Explicit description"));
}

// ---------------------------------------------------------------- `crate = "…"`

mod reexport {
    pub use forms_runtime as forms;
}

#[derive(Form, Debug)]
#[form(message = "Via a re-export", crate = "crate::reexport::forms")]
#[allow(dead_code)]
struct ViaReexport {
    /// Goal
    goal: String,
}

#[test]
fn crate_attribute_names_the_runtime_path() {
    let form = ViaReexport::form();
    assert_same(&form, &corpus_form("108-derived-via-reexport"));
    assert_eq!(form.data().message(), "Via a re-export");
}

// ---------------------------------------------------------------- run-time parts

#[derive(Form, Debug)]
#[form(message = "Pick templates")]
#[allow(dead_code)]
struct Picks {
    #[form(resource, title = "Main template")]
    main: Url,
    #[form(resources, title = "Others", max_items = 2)]
    others: Vec<Url>,
}

fn resource(uri: &str) -> ResourceOption {
    ResourceOption::new(uri, "name", "Document · Title")
}

#[test]
fn picks_match_the_runtime() {
    let form = Picks::build(PicksParts {
        main: vec![resource("https://example.com/a")],
        others: vec![
            resource("https://example.com/a"),
            resource("https://example.com/b"),
        ],
    })
    .unwrap();
    assert_same(&form, &corpus_form("109-derived-picks"));
    let p = accepted(
        form.decode(
            r#"{"action":"accept","content":{"main":"https://example.com/a",
                "others":["https://example.com/b","https://example.com/a"]}}"#,
        )
        .unwrap(),
    );
    assert_eq!(p.main.as_str(), "https://example.com/a");
    assert_eq!(
        p.others.iter().map(Url::as_str).collect::<Vec<_>>(),
        ["https://example.com/b", "https://example.com/a"]
    );
}

#[test]
fn r14_resource_parts_need_an_option() {
    let err = Picks::build(PicksParts {
        main: vec![],
        others: vec![
            resource("https://example.com/a"),
            resource("https://example.com/b"),
        ],
    })
    .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArguments);
    assert!(
        err.message()
            .contains("questions[0] (field `main`).options: must have at least 1 option"),
        "{}",
        err.message()
    );
    assert!(err.message().contains("(R14)"), "{}", err.message());
    // One option is enough.
    Picks::build(PicksParts {
        main: vec![resource("https://example.com/a")],
        others: vec![
            resource("https://example.com/a"),
            resource("https://example.com/b"),
        ],
    })
    .unwrap();
}

#[test]
fn r20_resources_bound_within_the_run_time_option_count() {
    // `max_items = 2` needs at least two offered resources.
    let err = Picks::build(PicksParts {
        main: vec![resource("https://example.com/a")],
        others: vec![resource("https://example.com/a")],
    })
    .unwrap_err();
    assert!(err.message().contains("questions[1]"), "{}", err.message());
    assert!(err.message().contains("(R20)"), "{}", err.message());
}

#[test]
fn r24_r26_resource_uris_are_validated_when_the_form_is_built() {
    let err = Picks::build(PicksParts {
        main: vec![resource("templates/relative")],
        others: vec![
            resource("https://example.com/a?token=abc"),
            resource("https://example.com/b"),
        ],
    })
    .unwrap_err();
    // Each finding names the question's Rust field, in the message and as data.
    assert!(
        err.message()
            .contains("questions[0] (field `main`).options[0].uri: \"templates/relative\""),
        "{}",
        err.message()
    );
    let findings = err.findings();
    assert_eq!(findings.len(), 2, "{}", err.message());
    assert_eq!(findings[0].path.to_string(), "questions[0].options[0].uri");
    assert_eq!(findings[0].field.as_deref(), Some("main"));
    assert_eq!(findings[0].rule, Some(forms_runtime::rules::Rule::R24));
    assert_eq!(findings[1].path.question_index(), Some(1));
    assert_eq!(findings[1].field.as_deref(), Some("others"));
    assert_eq!(findings[1].rule, Some(forms_runtime::rules::Rule::R26));
}

#[test]
fn r5_resource_uris_unique_in_a_question() {
    let err = Picks::build(PicksParts {
        main: vec![
            resource("https://example.com/a"),
            resource("https://example.com/a"),
        ],
        others: vec![
            resource("https://example.com/a"),
            resource("https://example.com/b"),
        ],
    })
    .unwrap_err();
    assert!(
        err.message()
            .contains("questions[0] (field `main`).options[1].uri"),
        "{}",
        err.message()
    );
    assert!(err.message().contains("(R5)"), "{}", err.message());
}

/// A form whose optional run-time questions may have nothing to offer.
#[derive(Form, Debug)]
#[form(message = "Pick what the search found")]
struct Found {
    /// Goal
    goal: String,
    /// Template
    #[form(resource)]
    template: Option<Url>,
    /// Related documents
    #[form(resources)]
    related: Vec<Url>,
    /// Why
    why: String,
}

#[test]
fn r14_an_optional_resource_with_no_options_is_left_out_and_decodes_as_none() {
    let form = Found::build(FoundParts {
        template: vec![],
        related: vec![resource("https://example.com/a")],
    })
    .expect("an optional question with nothing to offer is left out, not refused");
    let ids: Vec<&str> = form
        .data()
        .questions()
        .iter()
        .map(|q| q.id.as_str())
        .collect();
    assert_eq!(ids, ["goal", "related", "why"]);
    assert!(!form.data().native_json().contains("template"));

    let found = accepted(
        form.decode(
            r#"{"action":"accept","content":{"goal":"ship","related":["https://example.com/a"],"why":"asked"}}"#,
        )
        .unwrap(),
    );
    assert_eq!(found.goal, "ship");
    assert_eq!(found.template, None);
    assert_eq!(
        found.related,
        [Url::parse("https://example.com/a").unwrap()]
    );
    assert_eq!(found.why, "asked");

    // The left-out question cannot be answered; a finding after it still names its field.
    let err = form
        .decode(r#"{"action":"accept","content":{"goal":"ship","template":"https://example.com/a","why":"asked"}}"#)
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidResponse);
    assert!(err.message().contains("template"), "{}", err.message());
    let err = form
        .decode(r#"{"action":"accept","content":{"goal":"ship","why":" "}}"#)
        .unwrap_err();
    assert_eq!(err.findings()[0].field.as_deref(), Some("why"), "{err:?}");

    // Both left out: the text questions alone.
    let form = Found::build(FoundParts {
        template: vec![],
        related: vec![],
    })
    .unwrap();
    assert_eq!(form.data().questions().len(), 2);
    let found = accepted(
        form.decode(r#"{"action":"accept","content":{"goal":"g","why":"w"}}"#)
            .unwrap(),
    );
    assert_eq!((found.template, found.related.len()), (None, 0));
}

#[test]
fn r15_a_required_resources_question_with_no_options_is_the_authors_error() {
    #[derive(Form, Debug)]
    #[form(message = "Pick")]
    #[allow(dead_code)]
    struct Needed {
        #[form(resources, required, title = "Sources")]
        sources: Vec<Url>,
    }
    let err = Needed::build(NeededParts { sources: vec![] }).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArguments);
    assert!(
        err.message().contains("field `sources`"),
        "{}",
        err.message()
    );
    assert!(err.message().contains("(R15)"), "{}", err.message());
}
