//! The `forms` command end to end: every command, every exit status, standard input, input
//! that is not UTF-8, oversized, deeply nested and empty input.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod commands;
mod controls;

use forms_test_kit::answers::REFUSED_TEMPLATE_ANSWERS;
use forms_test_kit::forms::template_form;
use forms_test_kit::process::{output_with_stdin, Run};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::Command;

/// The failures of the `forms` command line.
trait Failures {
    fn contract_error(&self, code: &str) -> String;
    fn usage_error(&self);
}

impl Failures for Run {
    /// Asserts a contract failure with `code` and returns its message.
    fn contract_error(&self, code: &str) -> String {
        self.assert_code(1);
        let v = self.json();
        let error = v["error"]
            .as_object()
            .unwrap_or_else(|| panic!("no error: {v}"));
        assert_eq!(error.len(), 2, "{v}");
        assert_eq!(v.as_object().unwrap().len(), 1, "{v}");
        assert_eq!(error["code"], code, "{v}");
        error["message"].as_str().unwrap().to_owned()
    }

    /// Asserts a usage error: the message, then the usage of `forms` or of the command.
    fn usage_error(&self) {
        self.assert_code(2);
        assert!(self.stdout.is_empty(), "stdout: {}", self.stdout);
        assert!(
            self.stderr.contains("Usage: forms"),
            "stderr: {}",
            self.stderr
        );
    }
}

fn forms(args: &[&str], stdin: &[u8]) -> Run {
    Run::of(output_with_stdin(
        Command::new(env!("CARGO_BIN_EXE_forms")).args(args),
        stdin,
    ))
}

/// Writes `contents` to a fresh file for this test and returns its path.
fn file(name: &str, contents: &[u8]) -> String {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("forms-cli");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path.to_str().unwrap().to_owned()
}

fn template_file(name: &str) -> String {
    file(name, template_form().to_string().as_bytes())
}

fn invalid_form() -> Value {
    let mut v = template_form();
    v["questions"][0]["id"] = json!("9template");
    v
}

const ACCEPT: &str =
    r#"{"action":"accept","content":{"template":"https://example.com/verified-business-review"}}"#;

// ---- check ----

#[test]
fn check_prints_the_normalized_form_from_a_file() {
    let run = forms(&["check", &template_file("check.json")], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json(), template_form());
    assert!(run.stderr.is_empty());
}

#[test]
fn check_reads_standard_input_when_no_file_or_dash_is_given() {
    let mut form = template_form();
    form["questions"][0]["title"] = json!("  Relevant report templates  ");
    let input = form.to_string();
    for args in [&["check"][..], &["check", "-"]] {
        let run = forms(args, input.as_bytes());
        assert_eq!(run.code, 0, "{}", run.stderr);
        // Titles are normalized (trimmed).
        assert_eq!(run.json(), template_form(), "{args:?}");
    }
}

#[test]
fn check_output_is_compact() {
    let pretty = serde_json::to_string_pretty(&template_form()).unwrap();
    let run = forms(&["check"], pretty.as_bytes());
    assert_eq!(run.code, 0, "{}", run.stderr);
    // One line, no insignificant whitespace, fields in the contract's order.
    let expected = concat!(
        r#"{"message":"Choose a report template","questions":[{"id":"template","type":"resource","#,
        r#""title":"Relevant report templates","required":false,"options":[{"#,
        r#""uri":"https://example.com/verified-business-review","name":"business-review","#,
        r#""title":"Presentation · Business review","#,
        r#""mimeType":"application/vnd.openxmlformats-officedocument.presentationml.presentation","#,
        r#""icons":[{"src":"https://example.com/verified-presentation-logo.png"}],"#,
        r#""thumbnail":{"src":"https://example.com/verified-slide-preview.png"}}]}]}"#,
        "\n"
    );
    assert_eq!(run.stdout, expected);
}

#[test]
fn check_reports_a_contract_failure_on_stdout_with_exit_1() {
    let run = forms(&["check"], invalid_form().to_string().as_bytes());
    let message = run.contract_error("invalid_arguments");
    assert!(message.contains("questions[0].id"), "{message}");
    assert!(message.contains("R6"), "{message}");
}

#[test]
fn check_refuses_input_that_is_not_utf8() {
    let mut bytes = template_form().to_string().into_bytes();
    let at = bytes.len() - 10;
    bytes[at] = 0xff;
    let run = forms(&["check"], &bytes);
    let message = run.contract_error("invalid_arguments");
    assert!(message.contains("UTF-8"), "{message}");
    let run = forms(&["check", &file("latin1.json", &bytes)], b"");
    run.contract_error("invalid_arguments");
}

#[test]
fn check_refuses_empty_input() {
    forms(&["check"], b"").contract_error("invalid_arguments");
    forms(&["check", &file("empty.json", b"")], b"").contract_error("invalid_arguments");
    forms(&["check"], b"  \n").contract_error("invalid_arguments");
}

#[test]
fn check_refuses_a_2_mib_input_without_crashing() {
    let mut form = template_form();
    form["message"] = json!("m".repeat(2 * 1024 * 1024));
    let run = forms(&["check"], form.to_string().as_bytes());
    let message = run.contract_error("invalid_arguments");
    assert!(message.contains("R4"), "{message}");
    // Whitespace alone is as large; it is not a form either.
    let run = forms(&["check"], &vec![b' '; 2 * 1024 * 1024]);
    run.contract_error("invalid_arguments");
}

#[test]
fn check_refuses_100k_nested_input_without_crashing() {
    let depth = 100_000;
    let arrays = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    forms(&["check"], arrays.as_bytes()).contract_error("invalid_arguments");
    let objects = format!(
        "{{\"message\":{}{}",
        "{\"a\":".repeat(depth),
        "}".repeat(depth + 1)
    );
    forms(&["check"], objects.as_bytes()).contract_error("invalid_arguments");
    let open = "[".repeat(depth);
    forms(&["native"], open.as_bytes()).contract_error("invalid_arguments");
}

// ---- native ----

#[test]
fn native_prints_the_request_params() {
    let run = forms(&["native", &template_file("native.json")], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v = run.json();
    assert_eq!(v["mode"], "form");
    assert_eq!(v["message"], "Choose a report template");
    let schema = &v["requestedSchema"];
    assert_eq!(schema["type"], "object");
    let template = &schema["properties"]["template"];
    assert_eq!(template["type"], "string");
    assert_eq!(template["format"], "uri");
    assert_eq!(template["x-openai-input"]["type"], "resource");
    assert_eq!(
        template["x-openai-input"]["options"][0]["_meta"]["openai/thumbnail"]["src"],
        "https://example.com/verified-slide-preview.png"
    );
    assert!(schema.get("required").is_none());
    // The same from standard input.
    let stdin = forms(&["native", "-"], template_form().to_string().as_bytes());
    assert_eq!(stdin.code, 0);
    assert_eq!(stdin.stdout, run.stdout);
}

#[test]
fn native_reports_a_contract_failure_with_exit_1() {
    let run = forms(&["native"], invalid_form().to_string().as_bytes());
    run.contract_error("invalid_arguments");
    forms(&["native"], b"").contract_error("invalid_arguments");
    forms(&["native"], b"\xc3\x28").contract_error("invalid_arguments");
}

// ---- answer ----

#[test]
fn answer_prints_the_checked_payload() {
    let form = template_file("answer-form.json");
    let run = forms(&["answer", "--form", &form], ACCEPT.as_bytes());
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, format!("{ACCEPT}\n"));
    let resp = file("accept.json", ACCEPT.as_bytes());
    let run = forms(&["answer", &resp, &format!("--form={form}")], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, format!("{ACCEPT}\n"));
    // Skipping the optional resource leaves the key out.
    let run = forms(
        &["answer", "--form", &form, "-"],
        br#"{"action":"accept","content":{}}"#,
    );
    assert_eq!(run.json(), json!({"action": "accept", "content": {}}));
    for action in ["decline", "cancel"] {
        let run = forms(
            &["answer", "--form", &form],
            format!(r#"{{"action":"{action}"}}"#).as_bytes(),
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_eq!(run.json(), json!({ "action": action }));
    }
}

#[test]
fn answer_reads_the_form_from_standard_input() {
    let resp = file("accept-2.json", ACCEPT.as_bytes());
    let run = forms(
        &["answer", "--form", "-", &resp],
        template_form().to_string().as_bytes(),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, format!("{ACCEPT}\n"));
}

#[test]
fn answer_reports_an_invalid_response_with_exit_1() {
    let form = template_file("answer-form-2.json");
    // Also an empty standard input.
    for bad in REFUSED_TEMPLATE_ANSWERS.into_iter().chain([""]) {
        let run = forms(&["answer", "--form", &form], bad.as_bytes());
        run.contract_error("invalid_response");
    }
    let run = forms(
        &["answer", "--form", &form],
        b"{\"action\":\"decl\xffine\"}",
    );
    let message = run.contract_error("invalid_response");
    assert!(message.contains("UTF-8"), "{message}");
}

#[test]
fn answer_reports_a_bad_form_as_invalid_arguments() {
    let bad = file("bad-form.json", invalid_form().to_string().as_bytes());
    let run = forms(&["answer", "--form", &bad], ACCEPT.as_bytes());
    let message = run.contract_error("invalid_arguments");
    assert!(message.contains("R6"), "{message}");
    let latin1 = file("bad-form-latin1.json", b"{\"message\":\"caf\xe9\"}");
    let run = forms(&["answer", "--form", &latin1], ACCEPT.as_bytes());
    run.contract_error("invalid_arguments");
    let empty = file("empty-form.json", b"");
    forms(&["answer", "--form", &empty], ACCEPT.as_bytes()).contract_error("invalid_arguments");
}

// ---- descriptor ----

#[test]
fn descriptor_prints_the_tool_descriptor() {
    let run = forms(&["descriptor"], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let expected = serde_json::to_string(&forms_runtime::mcp::tool_descriptor()).unwrap();
    assert_eq!(run.stdout, format!("{expected}\n"));
    let v = run.json();
    assert_eq!(v["name"], "form_elicitation_v2_request");
    assert_eq!(v["annotations"]["readOnlyHint"], true);
    assert!(v.get("outputSchema").is_none());
}

// ---- usage ----

#[test]
fn help_prints_usage_on_stdout_with_exit_0() {
    for args in [&["--help"][..], &["-h"], &["help"]] {
        let run = forms(args, b"");
        assert_eq!(run.code, 0, "{args:?}");
        assert!(run.stdout.contains("Usage: forms"), "{}", run.stdout);
        for cmd in commands::COMMANDS {
            assert!(
                run.stdout.contains(&format!("  {cmd} ")),
                "{cmd}: {}",
                run.stdout
            );
        }
    }
    let run = forms(&["check", "--help"], b"");
    assert_eq!(run.code, 0);
    assert!(run.stdout.contains("Usage: forms check"), "{}", run.stdout);
    assert!(run.stdout.contains("--lint"), "{}", run.stdout);
}

#[test]
fn usage_errors_exit_2_with_usage_on_stderr() {
    let form = template_file("usage-form.json");
    let cases: Vec<Vec<&str>> = vec![
        vec![],
        vec!["frobnicate"],
        vec!["check", "a.json", "b.json"],
        vec!["check", "--pretty"],
        vec!["native", "-x"],
        vec!["descriptor", "extra"],
        vec!["answer"],
        vec!["answer", "--form"],
        vec!["answer", "--form", &form, "r1.json", "r2.json"],
        vec!["answer", "--form", &form, "--verbose"],
        vec!["answer", "--form", "-"],
        vec!["check", "/nonexistent/forms/input.json"],
        vec!["native", "/nonexistent/forms/input.json"],
        vec!["answer", "--form", "/nonexistent/forms/form.json"],
        vec!["answer", "--form", &form, "/nonexistent/forms/resp.json"],
    ];
    for args in cases {
        let run = forms(&args, ACCEPT.as_bytes());
        run.usage_error();
    }
}

/// Every usage error of `answer` writes its usage one way: `[RESP|-]` for the optional
/// response, also when the response was given and `--form` is missing.
#[test]
fn answer_usage_reads_the_same_in_every_error() {
    let form = template_file("usage-style-form.json");
    let want = "Usage: forms answer --form <FILE> [RESP|-]";
    for args in [
        vec!["answer"],
        vec!["answer", "resp.json"],
        vec!["answer", "--form", &form, "r1.json", "r2.json"],
        vec!["answer", "--form", "-", "-"],
    ] {
        let run = forms(&args, b"");
        run.usage_error();
        assert!(run.stderr.contains(want), "{args:?}: {}", run.stderr);
        assert!(!run.stderr.contains("<RESP"), "{args:?}: {}", run.stderr);
    }
}

/// An `--out` that cannot be written is not a usage error: the message alone on standard
/// error, nothing on standard output, exit 2 as for an unwritable standard output.
#[test]
fn preview_to_an_unwritable_out_reports_the_write_failure_without_usage() {
    let form = template_file("unwritable-out-form.json");
    let dir = env!("CARGO_TARGET_TMPDIR");
    let out = format!("{dir}/no-such-dir/page.html");
    let run = forms(&["preview", &form, "--out", &out], b"");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(
        run.stderr
            .starts_with(&format!("forms: cannot write {out}: ")),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("Usage:"), "{}", run.stderr);
    // The same command with a writable path succeeds with its JSON line.
    let good = format!("{dir}/unwritable-out-page.html");
    let run = forms(&["preview", &form, "--out", &good], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["page"], good);
}

#[test]
fn a_directory_is_an_unreadable_file() {
    let dir = env!("CARGO_TARGET_TMPDIR");
    forms(&["check", dir], b"").usage_error();
}

/// A form holding CSI, OSC … ST, RLO and DEL (the payload of issue 22's attack on another
/// person's terminal) passes through `check`, `check --lint`, `native`, `answer` and their
/// contract errors: each prints one line holding none of them raw, with the same text.
#[test]
fn check_native_answer_and_errors_escape_terminal_controls_in_the_form() {
    let hostile = controls::form();
    let form = file("controls.json", hostile.to_string().as_bytes());
    let run = forms(&["check", &form], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let checked = controls::assert_escaped("check", run.stdout.as_bytes());
    assert_eq!(checked, hostile);

    let run = forms(&["check", "--lint", &form], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report = controls::assert_escaped("check --lint", run.stdout.as_bytes());
    assert_eq!(report["form"], hostile);

    let run = forms(&["native", &form], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let native = controls::assert_escaped("native", run.stdout.as_bytes());
    assert_eq!(native["message"], hostile["message"]);

    let run = forms(
        &["answer", "--form", &form],
        br#"{"action":"accept","content":{"pick":"a"}}"#,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    controls::assert_escaped("answer", run.stdout.as_bytes());

    // A contract error quoting the form's text (an unknown property named with the payload).
    let mut bad = hostile.clone();
    bad["questions"][0][controls::TITLE] = json!(controls::BODY);
    let run = forms(&["check", "-"], bad.to_string().as_bytes());
    assert_eq!(run.code, 1, "{}", run.stdout);
    let error = controls::assert_escaped("check (refused)", run.stdout.as_bytes());
    let message = error["error"]["message"].as_str().unwrap();
    // (The runtime's messages quote foreign text with its escapes shown: `\u{9b}`.)
    assert!(message.contains(r"Deploy\u{9b}31m"), "{message:?}");

    // The preview page (HTML, not a JSON line) embeds the form's text escaped as well.
    let run = forms(&["preview", &form], b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let page = run.stdout.as_bytes();
    for (i, &b) in page.iter().enumerate() {
        assert!(
            b >= 0x20 || b == b'\n' || b == b'\t',
            "byte {b:#04x} at {i}"
        );
        assert_ne!(b, 0x7f, "DEL at {i}");
        assert!(
            !(b == 0xc2 && matches!(page.get(i + 1), Some(0x80..=0x9f))),
            "a C1 control at {i}"
        );
        assert!(
            page.get(i..i + 3) != Some(&[0xe2, 0x80, 0xae][..]),
            "RLO at {i}"
        );
    }
    assert!(run.stdout.contains(r"Pick\u009b2K\u202e\u007f"));
}
