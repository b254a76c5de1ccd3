//! Hosts with core elicitation only: the official MCP Python SDK's `elicitation_callback`
//! and the TypeScript SDK v2 client's `elicitation/create` handler, advertising
//! `capabilities.elicitation.form` and no `openai/elicitation` extension, on both protocol
//! generations (the Client's `legacy` mode: 2025-11-25, mid-call; `auto`: 2026-07-28, input
//! requests). Over stdio against the example `report_server`, whose `weekly_report` tool
//! asks a derived form; over streamable HTTP against `forms-mcp --core-fallback`, whose Data
//! tool asks the same two questions. Each run checks the core schema the host received, an
//! accepted answer decoded, a decline, and answers the form contract refuses (an option not
//! offered, an unknown key, a text too long, a value of the wrong type).
//!
//! Needs `FORMS_INTEROP_PY` / `FORMS_INTEROP_NODE_DIR` from `.ci/interop-setup`; without
//! them each test says loudly that it was skipped, and with `CI=true` it fails.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

use forms_test_kit::bins;
mod interop;

use interop::*;
use serde_json::{json, Value};
use std::path::PathBuf;

/// The example's binary, built on demand.
fn report_server() -> PathBuf {
    bins::example("report_server")
}

/// The host's answers, for a form whose format options are `[pdf, html]`.
fn answers([pdf, html]: [&str; 2]) -> Value {
    json!({
        "accept": {"action": "accept", "content": {"format": html, "goal": "churn"}},
        "decline": {"action": "decline"},
        "not_offered": {"action": "accept", "content": {"format": "docx"}},
        "unknown_key": {"action": "accept", "content": {"format": pdf, "colour": "red"}},
        "too_long": {"action": "accept", "content": {"format": pdf, "goal": "x".repeat(4001)}},
        "wrong_type": {"action": "accept", "content": {"format": [pdf]}},
        "missing_required": {"action": "accept", "content": {"goal": "churn"}},
        "case_differs": {"action": "accept", "content": {"format": pdf.to_uppercase()}},
    })
}

/// Where a run goes: the derived form over stdio, or the Data tool over HTTP.
enum Server {
    Derived,
    Data(HttpServer),
}

impl Server {
    fn http() -> Server {
        Server::Data(start_http_with(30_000, &["--core-fallback"]))
    }

    fn config(&self) -> Value {
        match self {
            Server::Derived => json!({
                "transport": "stdio",
                "command": [report_server()],
                "tool": "weekly_report",
                "arguments": {},
            }),
            Server::Data(server) => json!({
                "transport": "http",
                "url": server.url,
                "tool": "form_elicitation_v2_request",
                "arguments": report_form(),
            }),
        }
    }

    /// The option ids of the format question: the derived enum's variant names, or the
    /// Data form's ids.
    fn options(&self) -> [&'static str; 2] {
        match self {
            Server::Derived => ["Pdf", "Html"],
            Server::Data(_) => ["pdf", "html"],
        }
    }

    /// What an accepted answer gives: the example's text, or the Data tool's payload.
    fn accepted(&self) -> Value {
        match self {
            Server::Derived => json!("Weekly report as a web page about churn."),
            Server::Data(_) => json!({"action": "accept",
                "content": {"goal": "churn", "format": "html"}}),
        }
    }
}

/// The tool result's payload: `structuredContent` when there is one (the contract's
/// envelope), else the text of `content[0]`.
fn payload(result: &Value) -> Value {
    match result.get("structuredContent") {
        Some(structured) => structured.clone(),
        None => json!(result["content"][0]["text"]),
    }
}

fn check(report: &Value, server: &Server, protocol: &str) {
    let cases = &report["cases"];
    let mut problems = Vec::new();
    for (name, case) in cases.as_object().unwrap() {
        let label = format!("{} {name}", report["sdk"]);
        if case["protocol"] != protocol {
            problems.push(format!(
                "{label}: protocol {} (want {protocol})",
                case["protocol"]
            ));
        }
        if !case["error"].is_null() {
            problems.push(format!("{label}: the SDK raised {}", case["error"]));
            continue;
        }
        // The host saw one core request carrying the compiled schema, and nothing native.
        let requests = case["requests"].as_array().unwrap();
        if requests.len() != 1 {
            problems.push(format!("{label}: {} requests", requests.len()));
            continue;
        }
        let request = &requests[0];
        let schema = &request["requestedSchema"];
        let text = request.to_string();
        if text.contains("x-openai") || text.contains("openai/elicitation") {
            problems.push(format!("{label}: native keys in {text}"));
        }
        let goal = &schema["properties"]["goal"];
        let format = &schema["properties"]["format"];
        let options: Vec<&Value> = format["oneOf"]
            .as_array()
            .map(|o| o.iter().map(|o| &o["const"]).collect())
            .unwrap_or_default();
        if goal["type"] != "string"
            || goal["maxLength"] != 4000
            || goal.get("minLength").is_some()
            || format["type"] != "string"
            || options
                != server
                    .options()
                    .map(|o| json!(o))
                    .iter()
                    .collect::<Vec<_>>()
            || format["oneOf"][0]["title"]
                .as_str()
                .is_none_or(str::is_empty)
            || schema["required"] != json!(["format"])
        {
            problems.push(format!("{label}: core schema {schema}"));
        }
        let result = &case["result"];
        let got = payload(result);
        let want = match name.as_str() {
            "accept" => Some(server.accepted()),
            "decline" => Some(match server {
                Server::Derived => json!("The person chose to decline the form."),
                Server::Data(_) => json!({"action": "decline"}),
            }),
            _ => None,
        };
        match want {
            Some(want) if got != want => {
                problems.push(format!("{label}: {got} (want {want})"));
            }
            Some(_) => {}
            None => {
                if got["error"]["code"] != "invalid_response" || result["isError"] != true {
                    problems.push(format!("{label}: not refused: {result}"));
                }
            }
        }
    }
    let expected = answers(server.options());
    assert_eq!(
        cases.as_object().unwrap().len(),
        expected.as_object().unwrap().len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn run_python(mode: &str, server: Server, protocol: &str) {
    let Some(python) = python() else { return };
    let mut config = server.config();
    config["mode"] = json!(mode);
    config["answers"] = answers(server.options());
    let report = run_driver(&python, "python_core_client.py", &[], &config);
    check(&report, &server, protocol);
}

fn run_ts(mode: &str, server: Server, protocol: &str) {
    let Some(node_dir) = node_dir() else { return };
    let mut config = server.config();
    config["mode"] = json!(mode);
    config["answers"] = answers(server.options());
    let node = std::env::var_os("FORMS_INTEROP_NODE").unwrap_or_else(|| "node".into());
    let report = run_driver(
        std::path::Path::new(&node),
        "ts_core_client.cjs",
        &[("FORMS_INTEROP_NODE_DIR", &node_dir)],
        &config,
    );
    check(&report, &server, protocol);
}

#[test]
fn python_core_host_on_2025_11_25_over_stdio() {
    run_python("legacy", Server::Derived, LEGACY);
}

#[test]
fn python_core_host_on_2026_07_28_over_stdio() {
    run_python("auto", Server::Derived, MODERN);
}

#[test]
fn python_core_host_on_2025_11_25_over_http() {
    run_python("legacy", Server::http(), LEGACY);
}

#[test]
fn python_core_host_on_2026_07_28_over_http() {
    run_python("auto", Server::http(), MODERN);
}

#[test]
fn ts_core_host_on_2025_11_25_over_stdio() {
    run_ts("legacy", Server::Derived, LEGACY);
}

#[test]
fn ts_core_host_on_2026_07_28_over_stdio() {
    run_ts("auto", Server::Derived, MODERN);
}

#[test]
fn ts_core_host_on_2025_11_25_over_http() {
    run_ts("legacy", Server::http(), LEGACY);
}

#[test]
fn ts_core_host_on_2026_07_28_over_http() {
    run_ts("auto", Server::http(), MODERN);
}
