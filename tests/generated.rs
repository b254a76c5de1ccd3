//! Property tests over generated forms and answers (the generator of `forms-test-kit/src/fuzz/gen.rs`, driven
//! by proptest's bytes, which it shrinks on failure):
//!
//! - generated valid Data forms (all six question kinds, limits and lengths at their edges,
//!   JavaScript whitespace around trimmed labels, any key order and text style) are accepted
//!   with the generated model, and their native requests satisfy N1–N10 as asserted here
//!   (`forms-test-kit/src/fuzz/native.rs`), not as the compiler writes them;
//! - synthesized valid answers are accepted;
//! - every single mutation that breaks a V rule is refused with `invalid_response` citing it.
//!
//! `examples/peer_generated.rs` writes the same generated forms and answers for `peer-check`.

use forms_test_kit::fuzz as forms_fuzz;

use arbitrary::Unstructured;
use forms_fuzz::gen::Gen;
use forms_fuzz::json::Json;
use forms_fuzz::native::{self, Check};
use forms_fuzz::targets::{expect_refused_answer, expect_valid_answer, expect_valid_form};
use forms_runtime::data::{ChoiceOption, FormSpec, Image, Question, QuestionSpec, ResourceOption};
use forms_runtime::{DataForm, Outcome};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

/// Characters long strings of a generated form may take in all (small forms: fast cases).
const BUDGET: usize = 3_000;

/// `cases` cases from a fixed seed, so that `cargo test` is deterministic; set
/// `PROPTEST_RNG_SEED` (and `PROPTEST_CASES`) to explore further.
fn config(cases: u32) -> ProptestConfig {
    let base = ProptestConfig::default();
    let env = |name: &str| std::env::var_os(name).is_some();
    ProptestConfig {
        cases: if env("PROPTEST_CASES") {
            base.cases
        } else {
            cases
        },
        rng_seed: if env("PROPTEST_RNG_SEED") {
            base.rng_seed
        } else {
            RngSeed::Fixed(0x0f0f_5eed)
        },
        failure_persistence: None,
        ..base
    }
}

fn bytes() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..2_048)
}

/// Generates a valid form (with a question of type `kind` when given) from `bytes`, asserts it
/// is accepted with the generated model and passes every cross-check, and hands it on.
fn with_form(
    bytes: &[u8],
    kind: Option<&'static str>,
    f: impl FnOnce(&mut Gen<'_, '_>, &DataForm),
) {
    let mut u = Unstructured::new(bytes);
    let mut g = Gen::new(&mut u, BUDGET);
    let (json, spec) = g.form_including(kind);
    let style = g.style();
    let text = json.write(&style);
    let form = expect_valid_form(&json, &spec, &text).expect("a small generated form fits R4");
    f(&mut g, &form);
}

/// Asserts the native rule `check` on a generated form with a question of type `kind`.
fn native_rule(bytes: &[u8], kind: Option<&'static str>, check: Check) {
    let mut u = Unstructured::new(bytes);
    let mut g = Gen::new(&mut u, BUDGET);
    let (json, _) = g.form_including(kind);
    let form = DataForm::from_json(&json.compact()).unwrap_or_else(|e| panic!("{e}"));
    if let Err(e) = check(&form, &native::native_of(&form)) {
        panic!(
            "{e}\nform: {}\nnative: {}",
            form.to_json(),
            form.native_json()
        );
    }
}

/// Generates a form with a question the rule `rule` covers, a valid accepted answer, and a
/// mutation of it that breaks `rule`, which must be refused citing it.
fn broken(bytes: &[u8], kind: Option<&'static str>, rule: &str) {
    with_form(bytes, kind, |g, form| {
        let mut broken = 0;
        for _ in 0..12 {
            let response = g.answer(form);
            if let Some((bad, rules)) = g.break_rule(form, &response, rule) {
                expect_refused_answer(form, &bad, &rules);
                broken += 1;
                if broken == 3 {
                    break;
                }
            }
        }
        // Declined answers and limits that leave nothing to break are skipped, never all.
        assert!(broken > 0 || bytes.len() < 64, "no mutation breaks {rule}");
    });
}

proptest! {
    #![proptest_config(config(64))]

    #[test]
    fn r1_r27_generated_valid_forms_are_accepted_as_generated(b in bytes()) {
        with_form(&b, None, |_, _| {});
    }

    #[test]
    fn n1_envelope_properties_in_question_order_and_required_list(b in bytes()) {
        native_rule(&b, None, native::n1);
    }

    #[test]
    fn n2_text_has_title_description_and_max_length(b in bytes()) {
        native_rule(&b, Some("text"), native::n2);
    }

    #[test]
    fn n3_single_select_is_a_string_with_one_of(b in bytes()) {
        native_rule(&b, Some("single_select"), native::n3);
    }

    #[test]
    fn n4_multi_select_is_an_array_with_any_of_and_limits(b in bytes()) {
        native_rule(&b, Some("multi_select"), native::n4);
    }

    #[test]
    fn n5_resource_is_a_uri_string_with_resource_input(b in bytes()) {
        native_rule(&b, Some("resource"), native::n5);
    }

    #[test]
    fn n6_resources_are_uris_with_explicit_selection(b in bytes()) {
        native_rule(&b, Some("resources"), native::n6);
    }

    #[test]
    fn n7_files_have_user_options_and_accept(b in bytes()) {
        native_rule(&b, Some("files"), native::n7);
    }

    #[test]
    fn n8_resource_options_keep_fields_thumbnail_in_meta(b in bytes()) {
        let kind = ["resource", "resources", "files"][usize::from(b.first().copied().unwrap_or(0)) % 3];
        native_rule(&b, Some(kind), native::n8);
    }

    #[test]
    fn n9_no_default_and_limits_written_out(b in bytes()) {
        native_rule(&b, None, native::n9);
    }

    #[test]
    fn n10_message_emptied_only_for_a_lone_text_repeating_it(b in bytes()) {
        native_rule(&b, Some("text"), native::n10);
    }

    #[test]
    fn v2_v7_synthesized_valid_answers_are_accepted(b in bytes()) {
        with_form(&b, None, |g, form| {
            for _ in 0..4 {
                expect_valid_answer(form, &g.answer(form));
            }
        });
    }

    #[test]
    fn v1_a_response_of_another_shape_is_refused(b in bytes()) {
        broken(&b, None, "V1");
    }

    #[test]
    fn v2_unknown_keys_and_missing_required_answers_are_refused(b in bytes()) {
        broken(&b, None, "V2");
    }

    #[test]
    fn v3_text_too_long_blank_when_required_or_not_a_string_is_refused(b in bytes()) {
        broken(&b, Some("text"), "V3");
    }

    #[test]
    fn v4_choices_not_exact_distinct_ids_within_limits_are_refused(b in bytes()) {
        let kind = if b.first().copied().unwrap_or(0) % 2 == 0 { "single_select" } else { "multi_select" };
        broken(&b, Some(kind), "V4");
    }

    #[test]
    fn v5_resource_not_one_exact_offered_uri_is_refused(b in bytes()) {
        broken(&b, Some("resource"), "V5");
    }

    #[test]
    fn v6_resources_and_files_breaking_identity_or_limits_are_refused(b in bytes()) {
        let kind = if b.first().copied().unwrap_or(0) % 2 == 0 { "resources" } else { "files" };
        broken(&b, Some(kind), "V6");
    }
}

proptest! {
    #![proptest_config(config(48))]

    /// Decline and cancel, with or without `_meta`, never carry answers.
    #[test]
    fn v8_decline_and_cancel_yield_no_answers(b in bytes(), cancel in any::<bool>(), meta in any::<bool>()) {
        with_form(&b, None, |_, form| {
            let action = if cancel { "cancel" } else { "decline" };
            let mut r = Json::obj([("action", Json::str(action))]);
            if meta {
                r.set("_meta", Json::obj([("reason", Json::str("closed"))]));
            }
            let outcome = form.check_response(&r.compact()).unwrap();
            assert_eq!(outcome.action(), action);
            assert!(outcome.accepted().is_none());
            let r = Json::obj([("action", Json::str(action)), ("content", Json::obj([("x", Json::str("y"))]))]);
            assert!(form.check_response(&r.compact()).is_err(), "{action} with content is accepted");
        });
    }
}

// ------------------------------------------------------------------- R4 at the exact edge

/// A valid form of exactly `target` UTF-16 units of compact JSON as `JSON.stringify` writes
/// the text given: a choice option's image under the `preview` alias, labels padded with
/// JavaScript whitespace, non-BMP characters, and raster data URIs filling the rest.
fn form_of_length(target: usize) -> (Json, FormSpec) {
    let data_uri = |n: usize| format!("data:image/png;base64,{}", "iVBO".repeat(n / 4));
    let head = "data:image/png;base64,".len();
    let emoji = "😀".repeat(30); // 60 UTF-16 units, 30 characters
    let build = |srcs: &[String], tail: usize| {
        let preview = Image::new("https://example.com/p.png");
        let choice = ChoiceOption {
            id: "a".into(),
            title: emoji.clone(),
            description: Some("x".repeat(tail)),
            thumbnail: Some(preview.clone()),
        };
        let mut options = Vec::new();
        let mut options_json = Vec::new();
        for (i, chunk) in srcs.chunks(3).enumerate() {
            let mut o =
                ResourceOption::new(format!("https://example.com/r/{i}"), "n", "Document · T");
            o.icons = Some(
                chunk
                    .iter()
                    .take(2)
                    .map(|s| Image::new(s.as_str()))
                    .collect(),
            );
            o.thumbnail = chunk.get(2).map(|s| Image::new(s.as_str()));
            let mut j = Json::obj([
                ("uri", Json::str(o.uri.as_str())),
                ("name", Json::str(" n\u{feff}")),
                ("title", Json::str("Document · T")),
                (
                    "icons",
                    Json::Arr(
                        chunk
                            .iter()
                            .take(2)
                            .map(|s| Json::obj([("src", Json::str(s.as_str()))]))
                            .collect(),
                    ),
                ),
            ]);
            if let Some(s) = chunk.get(2) {
                j.set("thumbnail", Json::obj([("src", Json::str(s.as_str()))]));
            }
            options.push(o);
            options_json.push(j);
        }
        let json = Json::obj([
            ("message", Json::str("Pick")),
            (
                "questions",
                Json::Arr(vec![
                    Json::obj([
                        ("id", Json::str("c")),
                        ("type", Json::str("single_select")),
                        ("title", Json::str("\u{2028}Choose ")),
                        ("required", Json::Bool(true)),
                        (
                            "options",
                            Json::Arr(vec![Json::obj([
                                ("id", Json::str("a")),
                                ("title", Json::str(emoji.as_str())),
                                ("description", Json::str("x".repeat(tail))),
                                (
                                    "preview",
                                    Json::obj([("src", Json::str(preview.src.as_str()))]),
                                ),
                            ])]),
                        ),
                    ]),
                    Json::obj([
                        ("id", Json::str("r")),
                        ("type", Json::str("resources")),
                        ("title", Json::str("Resources")),
                        ("required", Json::Bool(false)),
                        ("options", Json::Arr(options_json)),
                    ]),
                ]),
            ),
        ]);
        let spec = FormSpec {
            message: "Pick".into(),
            questions: vec![
                Question {
                    id: "c".into(),
                    title: "Choose".into(),
                    description: None,
                    required: true,
                    kind: QuestionSpec::SingleSelect {
                        options: vec![choice],
                    },
                },
                Question {
                    id: "r".into(),
                    title: "Resources".into(),
                    description: None,
                    required: false,
                    kind: QuestionSpec::Resources {
                        options: options
                            .into_iter()
                            .map(|mut o| {
                                o.name = "n".into();
                                o
                            })
                            .collect(),
                        min_items: None,
                        max_items: None,
                    },
                },
            ],
        };
        (json, spec)
    };
    let full = data_uri(262_144 - head);
    let mut srcs: Vec<String> = Vec::new();
    // Whole images while they fit, then one sized to land within 4 units (base64 grows by
    // 4), then the description's length makes up the rest.
    loop {
        let mut next = srcs.clone();
        next.push(full.clone());
        if build(&next, 0).0.js_len() + 64 > target {
            break;
        }
        srcs = next;
    }
    srcs.push(data_uri(0));
    let room = target - build(&srcs, 0).0.js_len();
    *srcs.last_mut().unwrap() = data_uri(room / 4 * 4);
    let tail = target - build(&srcs, 0).0.js_len();
    let (json, mut spec) = build(&srcs, tail);
    if let QuestionSpec::SingleSelect { options } = &mut spec.questions[0].kind {
        options[0].description = Some("x".repeat(tail));
    }
    (json, spec)
}

/// R4 measures the arguments as given, with `JSON.stringify`: a form of exactly 1,048,576
/// UTF-16 units is accepted (whatever `preview` and padded labels become when normalized),
/// one unit more is refused.
#[test]
fn r4_exactly_one_mib_of_compact_json_is_accepted_one_unit_more_is_refused() {
    for target in [1_048_576, 1_048_577] {
        let (json, spec) = form_of_length(target);
        assert_eq!(json.js_len(), target);
        let text = json.compact();
        let form = expect_valid_form(&json, &spec, &text);
        assert_eq!(form.is_some(), target == 1_048_576, "at {target} units");
        if let Some(form) = form {
            let outcome = form
                .check_response(r#"{"action":"accept","content":{"c":"a"}}"#)
                .unwrap();
            assert!(matches!(outcome, Outcome::Accepted(_)));
        }
    }
}
