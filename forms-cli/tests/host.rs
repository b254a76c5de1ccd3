//! `forms host` as a person runs it: the real `forms` binary hosts real server processes
//! (the project's `forms-mcp`, the example `report_server`, a scripted malformed server) over
//! stdio and streamable HTTP, on both protocol generations, answering through `--answer`
//! and through the preview page in headless Chromium.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod browser;
mod page_host;

use page_host::Host;

use forms_test_kit::forms::report_form;
use forms_test_kit::process::Server;
use forms_test_kit::{example, forms_mcp};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

fn scratch(name: &str) -> PathBuf {
    forms_test_kit::scratch("host", name)
}

use forms_test_kit::interop::{LEGACY, MODERN};

fn forms_host(dir: &Path, answer: &Value, args: &[&str]) -> Command {
    let file = dir.join("answer.json");
    std::fs::write(&file, answer.to_string()).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_forms"));
    command
        .arg("host")
        .arg("--answer")
        .arg(format!("@{}", file.display()))
        .args(args)
        .env("DATA_FORMS_TIMEOUT_MS", "10000");
    command
}

fn run(mut command: Command) -> (Value, String, Output) {
    let output = command.stdin(Stdio::null()).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "forms host failed: {stderr}");
    let stdout: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {stderr}"));
    (stdout, stderr, output)
}

/// The tool result's `structuredContent`, after checking `content[0].text` holds the same.
fn payload(result: &Value) -> Value {
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, result["structuredContent"]);
    text
}

fn data_call(dir: &Path, protocol: &str, answer: &Value) -> Command {
    let args = dir.join("args.json");
    std::fs::write(&args, report_form().to_string()).unwrap();
    let args = format!("@{}", args.display());
    let mut command = forms_host(
        dir,
        answer,
        &[
            "--protocol",
            protocol,
            "--trace",
            "--call",
            "form_elicitation_v2_request",
            "--args",
            &args,
        ],
    );
    command.arg("--").arg(forms_mcp());
    command
}

/// Runs the data call on `protocol` (in a scratch folder named `name`), checks that the
/// answer came back as its result, and returns the host's trace.
fn trace_of_answered_call(name: &str, protocol: &str, answer: &Value) -> String {
    let dir = scratch(name);
    let (result, stderr, _) = run(data_call(&dir, protocol, answer));
    assert_eq!(payload(&result), *answer);
    stderr
}

/// The messages of a `--trace` log sent in `direction` whose text contains `needle`.
fn traced_with(stderr: &str, direction: &str, needle: &str) -> Vec<Value> {
    traced(stderr, direction)
        .into_iter()
        .filter(|m| m.to_string().contains(needle))
        .collect()
}

#[test]
fn host_answers_forms_mcp_mid_call_on_the_legacy_protocol() {
    let answer = json!({"action": "accept", "content": {"format": "html", "goal": "churn"}});
    let stderr = trace_of_answered_call("legacy", LEGACY, &answer);
    // The trace shows the advertised capabilities and the mid-call request.
    let init = traced_with(&stderr, ">>", "\"initialize\"")
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no initialize in the trace: {stderr}"));
    assert_eq!(init["params"]["protocolVersion"], LEGACY);
    assert_eq!(
        init["params"]["capabilities"]["elicitation"]["form"],
        json!({})
    );
    assert_eq!(
        init["params"]["capabilities"]["extensions"]["openai/elicitation"]["form"],
        json!({})
    );
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("<< ") && l.contains("\"openai/elicitation/create\"")),
        "{stderr}"
    );
    assert!(!stderr.contains("input_required"), "{stderr}");
}

#[test]
fn host_answers_forms_mcp_input_required_rounds_on_2026_07_28() {
    let answer = json!({"action": "accept", "content": {"format": "pdf"}});
    let stderr = trace_of_answered_call("modern", MODERN, &answer);
    let round = traced_with(&stderr, "<<", "input_required")
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no input-required round in the trace: {stderr}"));
    let request = &round["result"]["inputRequests"]["form"]["params"];
    assert_eq!(
        request["_meta"]["openai/elicitation"]["requestedSchema"]["properties"]["format"]["oneOf"]
            [1]["const"],
        "html"
    );
    // The retry carries the answer as sent.
    let retry = traced_with(&stderr, ">>", "inputResponses")
        .pop()
        .unwrap_or_else(|| panic!("no retry in the trace: {stderr}"));
    assert_eq!(retry["params"]["inputResponses"]["form"], answer);
    assert!(
        !stderr.contains("\"openai/elicitation/create\""),
        "{stderr}"
    );
}

#[test]
fn host_declines_and_lists_tools() {
    let dir = scratch("list");
    for protocol in [LEGACY, MODERN] {
        let (result, _, _) = run(data_call(&dir, protocol, &json!({"action": "decline"})));
        assert_eq!(payload(&result), json!({"action": "decline"}), "{protocol}");
        let mut list = forms_host(
            &dir,
            &json!({"action": "decline"}),
            &["--protocol", protocol],
        );
        list.arg("--").arg(forms_mcp());
        let (tools, _, _) = run(list);
        assert_eq!(
            tools["tools"][0]["name"], "form_elicitation_v2_request",
            "{protocol}"
        );
    }
}

fn start_http() -> Server {
    Server::http(&forms_mcp(), &[], &[("DATA_FORMS_TIMEOUT_MS", "10000")])
}

#[test]
fn host_answers_forms_mcp_over_streamable_http_on_both_protocols() {
    let server = start_http();
    let dir = scratch("http");
    for (protocol, format) in [(LEGACY, "pdf"), (MODERN, "html")] {
        let answer = json!({"action": "accept", "content": {"format": format}});
        let (result, _, _) = run(forms_host(
            &dir,
            &answer,
            &[
                "--url",
                &server.url,
                "--protocol",
                protocol,
                "--call",
                "form_elicitation_v2_request",
                "--args",
                &report_form().to_string(),
            ],
        ));
        assert_eq!(payload(&result), answer, "{protocol}");
    }
}

#[test]
fn host_runs_the_example_report_server_on_both_protocols() {
    let dir = scratch("example");
    for (protocol, format, says) in [(LEGACY, "Html", "web page"), (MODERN, "Pdf", "PDF")] {
        let answer =
            json!({"action": "accept", "content": {"goal": "churn by region", "format": format}});
        let mut command = forms_host(
            &dir,
            &answer,
            &["--protocol", protocol, "--call", "weekly_report"],
        );
        command.arg("--").arg(example("report_server"));
        let (result, _, _) = run(command);
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains(says) && text.contains("churn by region"),
            "{protocol}: {text}"
        );
        assert_ne!(result["isError"], true, "{protocol}: {result}");
    }
    // An array answers the forms in order; a missing tool is a clear failure.
    let mut command = forms_host(&dir, &json!([]), &["--call", "no_such_tool"]);
    command.arg("--").arg(example("report_server"));
    let output = command.output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no tool `no_such_tool`") && stderr.contains("weekly_report"),
        "{stderr}"
    );
}

#[test]
fn host_survives_a_malformed_elicitation_with_a_clear_message() {
    let dir = scratch("malformed");
    let answer = json!({"action": "accept", "content": {"name": "Ada"}});
    let mut command = forms_host(&dir, &answer, &["--call", "ask"]);
    command.arg("--").arg(example("malformed_server"));
    let (result, stderr, _) = run(command);
    assert!(
        stderr.contains(
            "malformed openai/elicitation/create request: `message` is a number, not a string"
        ),
        "{stderr}"
    );
    // The server got a JSON-RPC error for the bad request, then the answer to the good one.
    let seen: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(seen[0]["error"]["code"], -32602);
    assert_eq!(seen[1]["result"], answer);
}

#[test]
fn host_answers_through_the_page_in_headless_chromium() {
    let b = browser::Browser::start();
    for (protocol, option) in [(LEGACY, "html"), (MODERN, "pdf")] {
        let host = Host::start(protocol, &report_form(), &[]);
        let url = host.url.clone();
        assert!(url.starts_with("http://127.0.0.1:"), "{url}");
        b.open_url(&url);
        assert_eq!(b.text_of("h1"), "Set up your weekly report", "{protocol}");
        b.click_on(&format!("label[data-option={option}]"));
        b.type_into(&b.find("textarea"), "churn");
        b.click_on("#forms-submit");
        assert_eq!(
            host.result(),
            json!({"action": "accept", "content": {"goal": "churn", "format": option}}),
            "{protocol}"
        );
        // The page says the host took the response.
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        let sent = "return document.getElementById('forms-result').getAttribute('data-forms-sent')";
        while b.js(sent, vec![]) != json!("yes") {
            assert!(
                std::time::Instant::now() < deadline,
                "the page did not report the send"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// The messages of a `--trace` log sent in `direction` (`>>` to the server, `<<` from it).
fn traced(stderr: &str, direction: &str) -> Vec<Value> {
    stderr
        .lines()
        .filter_map(|line| line.strip_prefix(direction))
        .filter_map(|line| serde_json::from_str(line.trim_start()).ok())
        .collect()
}

/// The form requests of a `--trace` log: mid-call requests and input-required rounds.
fn form_requests(stderr: &str) -> Vec<(String, Value)> {
    let mut found = Vec::new();
    for message in traced(stderr, "<<") {
        if let Some(method) = message["method"].as_str() {
            if method.contains("elicitation") {
                found.push((method.to_owned(), message["params"].clone()));
            }
        }
        if let Some(requests) = message["result"]["inputRequests"].as_object() {
            for request in requests.values() {
                let method = request["method"].as_str().unwrap_or_default().to_owned();
                found.push((method, request["params"].clone()));
            }
        }
    }
    found
}

/// `--core-only` withholds the extension: the example's derived form and the Data tool (with
/// `--core-fallback`) reach the host as core `elicitation/create` requests, on both protocol
/// generations; without `--core-fallback` the Data tool answers `unsupported_client`.
#[test]
fn host_core_only_is_asked_through_core_elicitation_on_both_protocols() {
    let dir = scratch("core-only");
    for protocol in [LEGACY, MODERN] {
        // The example's derived form.
        let answer =
            json!({"action": "accept", "content": {"goal": "churn by region", "format": "Html"}});
        let mut command = forms_host(
            &dir,
            &answer,
            &[
                "--core-only",
                "--trace",
                "--protocol",
                protocol,
                "--call",
                "weekly_report",
            ],
        );
        command.arg("--").arg(example("report_server"));
        let (result, stderr, _) = run(command);
        assert_eq!(
            result["content"][0]["text"], "Weekly report as a web page about churn by region.",
            "{protocol}: {result}"
        );
        // The host never advertised the extension; the form came as a core request.
        let sent = traced(&stderr, ">>");
        assert!(sent.len() >= 3, "{protocol}: {stderr}");
        for sent in sent {
            assert!(
                !sent.to_string().contains("openai/elicitation"),
                "{protocol}: {sent}"
            );
        }
        let requests = form_requests(&stderr);
        assert_eq!(requests.len(), 1, "{protocol}: {stderr}");
        let (method, params) = &requests[0];
        assert_eq!(method, "elicitation/create", "{protocol}");
        assert!(
            params.pointer("/_meta/openai~1elicitation").is_none(),
            "{params}"
        );
        assert_eq!(
            params["requestedSchema"]["properties"]["format"]["oneOf"],
            json!([{"const": "Pdf", "title": "PDF"}, {"const": "Html", "title": "Web page"}]),
            "{protocol}: {params}"
        );
        assert_eq!(params["requestedSchema"]["required"], json!(["format"]));

        // The Data tool, opted into the core schema.
        let answer = json!({"action": "accept", "content": {"format": "pdf", "goal": "churn"}});
        let form = dir.join("args.json");
        std::fs::write(&form, report_form().to_string()).unwrap();
        let form = format!("@{}", form.display());
        let data_tool = [
            "--core-only",
            "--trace",
            "--protocol",
            protocol,
            "--call",
            "form_elicitation_v2_request",
            "--args",
            &form,
        ];
        let mut command = forms_host(&dir, &answer, &data_tool);
        command.arg("--").arg(forms_mcp()).arg("--core-fallback");
        let (result, stderr, _) = run(command);
        assert_eq!(payload(&result), answer, "{protocol}: {stderr}");
        let requests = form_requests(&stderr);
        assert_eq!(requests.len(), 1, "{protocol}: {stderr}");
        assert_eq!(requests[0].0, "elicitation/create");
        assert_eq!(
            requests[0].1["requestedSchema"]["properties"]["goal"],
            json!({"type": "string", "title": "What would you like to understand?",
                   "maxLength": 4000}),
            "{protocol}"
        );

        // Without --core-fallback the Data tool keeps its contract.
        let mut command = forms_host(&dir, &answer, &data_tool);
        command.arg("--").arg(forms_mcp());
        let (result, _, _) = run(command);
        assert_eq!(
            payload(&result)["error"]["code"],
            "unsupported_client",
            "{protocol}"
        );
    }
}
