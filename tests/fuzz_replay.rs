//! Replays the committed fuzz corpus (`fuzz/corpus/<target>/*`) through the same cross-checks
//! the cargo-fuzz targets run (`forms_test_kit::fuzz`), on stable Rust: a regression that a
//! fuzzer once reached fails `cargo test` without nightly.

use forms_test_kit::fuzz as forms_fuzz;

use std::path::Path;

/// Runs `target` on every file of `fuzz/corpus/<name>`; returns what it returned for each.
fn replay<T>(name: &str, target: fn(&[u8]) -> T) -> Vec<T> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(name);
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    paths.sort();
    let mut outcomes = Vec::with_capacity(paths.len());
    for p in &paths {
        let data = std::fs::read(p).unwrap();
        let outcome = std::panic::catch_unwind(|| target(&data));
        match outcome {
            Ok(outcome) => outcomes.push(outcome),
            Err(_) => panic!(
                "fuzz/corpus/{name}/{} fails",
                p.file_name().unwrap().to_string_lossy()
            ),
        }
    }
    assert!(
        paths.len() >= 10,
        "only {} inputs in fuzz/corpus/{name}",
        paths.len()
    );
    outcomes
}

#[test]
fn fuzz_corpus_data_form_text_value_and_round_trip_agree() {
    replay("data_form", forms_fuzz::targets::data_form);
}

#[test]
fn fuzz_corpus_answer_text_value_and_payload_agree() {
    replay("answer", forms_fuzz::targets::answer);
}

#[test]
fn fuzz_corpus_typed_decode_agrees_with_the_checker() {
    replay("typed", forms_fuzz::targets::typed);
}

#[test]
fn fuzz_corpus_structured_inputs_get_their_expected_verdicts() {
    replay("structured", forms_fuzz::targets::structured);
}

/// The inputs `fuzz/seed.py` seeds the targets with: every form and response of
/// `tests/corpus` (not committed under `fuzz/corpus`, which keeps only what the fuzzers added).
#[test]
fn fuzz_seeds_every_corpus_form_and_response_pass_the_cross_checks() {
    let mut inputs = 0;
    for case in forms_fuzz::corpus::cases() {
        forms_fuzz::targets::data_form(case.form_text.as_bytes());
        for (response, verdict) in &case.responses {
            let input = format!("{}\n{response}", case.name);
            forms_fuzz::targets::answer(input.as_bytes());
            let checked = forms_fuzz::checks::check_answer_text(&case.form, response);
            assert_eq!(checked.is_ok(), *verdict, "{}: {response}", case.name);
            if forms_fuzz::typed::NAMES.contains(&case.name.as_str()) {
                forms_fuzz::targets::typed(input.as_bytes());
            }
            inputs += 1;
        }
    }
    assert!(inputs >= 200, "only {inputs} corpus responses");
}

/// The answer and typed targets pick their form by a first line naming a corpus case: every
/// case of `tests/corpus` is reachable, and each derived form equals its case.
#[test]
fn fuzz_inputs_name_every_corpus_form() {
    for case in forms_fuzz::corpus::cases() {
        let input = format!("{}\n{{}}", case.name);
        let (picked, rest) = forms_fuzz::corpus::pick(input.as_bytes());
        assert_eq!(picked.name, case.name);
        assert_eq!(rest, b"{}");
    }
    for i in 0..3 {
        assert_eq!(
            forms_fuzz::typed::data(i),
            &forms_fuzz::corpus::case(forms_fuzz::typed::NAMES[i]).form
        );
    }
}

/// Every committed `mcp_edge` input gets valid JSON-RPC from the server, which ends when
/// the client closes; and together they reach deep states, not only refusals of garbage:
/// asks answered on both generations, input-required results with request states, the
/// tool's own error payloads and JSON-RPC errors.
#[test]
fn fuzz_corpus_mcp_edge_gets_valid_json_rpc_and_reaches_asks_on_both_generations() {
    let mut total = forms_test_kit::fuzz_deep::mcp_edge::Counts::default();
    for c in replay("mcp_edge", forms_test_kit::fuzz_deep::mcp_edge::run_counted) {
        total.lines += c.lines;
        total.errors += c.errors;
        total.asked += c.asked;
        total.input_required += c.input_required;
        total.accepted_legacy += c.accepted_legacy;
        total.accepted_modern += c.accepted_modern;
        total.tool_errors += c.tool_errors;
    }
    assert!(total.asked > 0, "{total:?}");
    assert!(total.input_required > 0, "{total:?}");
    assert!(total.accepted_legacy > 0, "{total:?}");
    assert!(total.accepted_modern > 0, "{total:?}");
    assert!(total.tool_errors > 0, "{total:?}");
    assert!(total.errors > 0, "{total:?}");
}

/// Every committed `asks_model` input's operations agree with the model, and together they
/// reach every verdict the model decides: each write going through, each refusal code and
/// action refusal, replayed and reused retry keys, races.
#[test]
fn fuzz_corpus_asks_model_agrees_with_the_model_and_reaches_every_verdict() {
    let mut total = forms_test_kit::fuzz_deep::asks_model::Counts::new();
    for counts in replay(
        "asks_model",
        forms_test_kit::fuzz_deep::asks_model::run_counted,
    ) {
        for (k, n) in counts {
            *total.entry(k).or_default() += n;
        }
    }
    for verdict in [
        "open:ok",
        "open:not_member",
        "open:quota_exceeded",
        "open:retry_key_reused",
        "respond:ok",
        "respond:not_found",
        "respond:not_eligible",
        "respond:conflict",
        "respond:invalid_outcome",
        "respond:invalid_answer",
        "respond:replayed",
        "cancel:ok",
        "cancel:not_requester",
        "cancel:conflict",
        "supersede:ok",
        "redeem:ok",
        "redeem:replayed",
        "redeem:not_allowed",
        "redeem:NotApproved",
        "redeem:NoAction",
        "redeem:NotExecutor",
        "redeem:Mismatch(\"the arguments\")",
        "report:ok",
        "report:not_allowed",
        "report:NotRedeemed",
        "report:NotExecutor",
        "cancel:replayed",
        "open:invalid_input",
        "open:replayed",
        "show:ok",
        "show:not_allowed",
        "list:ok",
        "race:ok",
    ] {
        assert!(
            total.contains_key(verdict),
            "no input reaches {verdict}: {total:?}"
        );
    }
}

#[test]
fn fuzz_corpus_reader_agrees_with_serde_json() {
    replay("reader", forms_fuzz::targets::reader);
}

/// The runtime's own JSON reader against serde_json on every corpus form, every hostile
/// input of the refusal-cost tests, and texts made to sit on each edge of what the own reader
/// reads itself (it must decide all the valid forms and hostile inputs without serde_json).
#[test]
fn reader_agrees_with_serde_json_on_the_corpus_the_hostile_inputs_and_its_edges() {
    use forms_fuzz::checks::check_readers_agree;
    let mut forms = 0;
    for case in forms_fuzz::corpus::cases() {
        assert!(check_readers_agree(&case.form_text), "{}", case.name);
        let pretty = serde_json::to_string_pretty(&case.form).unwrap();
        assert!(check_readers_agree(&pretty), "{}", case.name);
        forms += 1;
    }
    assert!(forms >= 50, "only {forms} corpus forms");
    for (name, text) in forms_test_kit::inputs::hostile_inputs() {
        assert!(check_readers_agree(&text), "{name}");
    }
    assert!(check_readers_agree(
        &forms_test_kit::inputs::largest_valid_form()
    ));

    let q = |rest: &str| {
        format!(r#"{{"message":"m","questions":[{{"id":"a","type":"text","title":"T"{rest}}}]}}"#)
    };
    let deep = |n: usize, inner: &str| format!("{}{inner}{}", "[".repeat(n), "]".repeat(n));
    let many = |n: usize, item: &str| vec![item; n].join(",");
    let edges = [
        // Repeated keys, the refusal's line and column after whitespace and newlines.
        q(r#","title":"U""#),
        q(",\n  \"id\"  \n :\"b\""),
        q(",\"id\"\t\r\n"),
        q(",\"i\\u0064\":\"b\""),
        format!(
            r#"{{"message":"m","questions":[{{"id":"a","type":"text","title":"T",{}}}]}}"#,
            (0..20)
                .map(|i| format!("\"k{i}\":1"))
                .chain(["\"k3\":2".to_owned()])
                .collect::<Vec<_>>()
                .join(",")
        ),
        // Escapes, surrogates (a lone one is refused where a value is read whole, passed over
        // where it is ignored), control characters.
        q(r#","description":"caf\u00e9 \ud83d\ude00 \"q\" \\ \/ \b\f\n\r\t""#),
        q(r#","description":"\ud800""#),
        q(r#","description":"\udc00x""#),
        q(&format!(r#","options":[{}]"#, many(130, r#""\ud800""#))),
        q(&format!(r#","options":[{},"\ud800"]"#, many(128, "0"))),
        q(",\"description\":\"tab\there\""),
        // Numbers: floats, -0, big integers, out of range where read whole and where ignored.
        q(r#","maxLength":100.0"#),
        q(r#","maxLength":-0"#),
        q(r#","maxLength":1e2"#),
        q(r#","maxLength":18446744073709551616"#),
        q(r#","maxLength":-9223372036854775809"#),
        q(r#","maxLength":1e400"#),
        q(&format!(r#","options":[{},1e400]"#, many(128, "0"))),
        q(&format!(r#","options":[{},01]"#, many(128, "0"))),
        // Nesting: at serde_json's limit where read whole, past it where ignored.
        q(&format!(r#","x":{}"#, deep(115, "0"))),
        q(&format!(r#","x":{}"#, deep(130, "0"))),
        q(&format!(
            r#","options":[{},{}]"#,
            many(128, "0"),
            deep(300, "")
        )),
        deep(127, ""),
        deep(128, ""),
        // Arrays and objects cut at the kept count, trailing commas, the end of the text.
        q(&format!(r#","options":[{}]"#, many(128, "{}"))),
        q(&format!(r#","options":[{}]"#, many(129, "{}"))),
        q(&format!(r#","options":[{},]"#, many(200, "1"))),
        q(&format!(r#","options":[{}"#, many(200, "1"))),
        format!(
            r#"{{"message":"m","questions":[{{"id":"a","type":"text","title":"T",{}}}]}}"#,
            (0..200)
                .map(|i| match i {
                    0..130 => format!("\"k{i}\":1"),
                    _ => format!("\"k{i}\":[1e400,{{\"a\":\"\\ud800\"}}]"),
                })
                .chain(["\"title\":\"again\"".to_owned()])
                .collect::<Vec<_>>()
                .join(",")
        ),
        // Not JSON at all.
        String::new(),
        " \n".to_owned(),
        "\u{feff}{}".to_owned(),
        "{} x".to_owned(),
        "nul".to_owned(),
        "[1 2]".to_owned(),
        r#"{"a" 1}"#.to_owned(),
        r#"{"a":1,}"#.to_owned(),
        r#"{1:2}"#.to_owned(),
    ];
    let mut decided = 0;
    for text in &edges {
        decided += usize::from(check_readers_agree(text));
    }
    assert!(decided >= 18, "the own reader decided only {decided} edges");
}

/// The own reader against serde_json on responses made to sit on the edges of what it reads
/// itself: escapes and surrogates in keys and values, `_meta` read as ignored values (its keys
/// still read whole), repeated keys, numbers, nesting, and text that is not JSON.
#[test]
fn reader_agrees_with_serde_json_on_answer_edges() {
    let case = forms_fuzz::corpus::cases()
        .iter()
        .find(|c| c.name == "derived-all-kinds")
        .expect("the corpus has derived-all-kinds");
    let valid = case
        .responses
        .iter()
        .find(|(_, ok)| *ok)
        .map(|(r, _)| r.clone())
        .expect("an accepted response");
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let mut edges = vec![
        valid.clone(),
        serde_json::to_string_pretty(&serde_json::from_str::<serde_json::Value>(&valid).unwrap())
            .unwrap(),
        valid.replacen("\"action\"", "\"\\u0061ction\"", 1),
        valid.replacen('{', r#"{"_meta":{"k":"\ud800","n":1e400,"d":DEEP},"#, 1),
        valid.replacen('{', r#"{"_meta":{"\ud800":1},"#, 1),
        valid.replacen('{', r#"{"action":"accept","#, 1),
        valid.replacen('{', r#"{"action":"\u0061ccept","#, 1),
        valid.replacen("\"content\":{", "\"content\":{\"x\":1,", 1),
        format!("{valid} "),
        format!("{valid} x"),
        format!("{valid},"),
        valid.replacen("}}", "},}", 1),
        valid.replacen(':', " :\n ", 3),
        r#"{"action":"decline"}"#.to_owned(),
        r#"{"action":"decline","content":{}}"#.to_owned(),
        r#"{"action":"cancel","_meta":{"a":[1,2,{"b":null}]}}"#.to_owned(),
        r#"{"action":"accept","content":"#.to_owned(),
        r#"{"action":1e400}"#.to_owned(),
        r#"{"action":-0}"#.to_owned(),
        r#"{"action":"accept\ud800"}"#.to_owned(),
        "[]".to_owned(),
        String::new(),
        "\u{feff}{}".to_owned(),
    ];
    for edge in &mut edges {
        *edge = edge.replace("DEEP", &deep(100));
    }
    for text in &edges {
        let _ = forms_fuzz::checks::check_answer_text(&case.form, text);
    }
}
