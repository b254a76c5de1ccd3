//! URL-mode elicitation with the official MCP TypeScript SDK's client (pinned in
//! tests/interop/package.json and package-lock.json): `@modelcontextprotocol/client` (v2),
//! and `@modelcontextprotocol/sdk` 1.x on 2025-11-25, each with a URL-mode elicitation
//! handler (tests/interop/ts_url_client.cjs) that consents and hands the URL and message to
//! this test; the person is headless Chromium (chromedriver), driven as in interop_url.rs
//! (`forms_test_kit::url_mode`): the code from the message, the form, a file added through
//! the picker, the submission.
//!
//! Each run checks what the Python SDK's run checks (a second browser without the code
//! answers nothing, a refused answer gets 422, a replayed submission is refused, the file
//! arrives as a real path with identical bytes, the typed or Data outcome), and that the TS
//! client's handler got exactly one `notifications/elicitation/complete`, with the request's
//! `elicitationId`, on 2025-11-25 (also when the client cancels the call or the ask times
//! out, after which the page is refused). On 2026-07-28 (v2 pinned, and negotiated by
//! `auto`) the SDK's own multi-round-trip driver retries with the consent: each retry before
//! the submission gets the same interaction, the one after it the result, and no completion
//! notification is sent (that generation has none).
//!
//! Needs `FORMS_INTEROP_NODE_DIR` from `.ci/interop-setup`, Node.js 20 or later (`node`, or
//! the binary `FORMS_INTEROP_NODE` names) and Debian's chromium-driver; without the folder
//! each test says loudly that it was skipped, and with `CI=true` it fails.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod interop;

use forms_test_kit::bins;
use forms_test_kit::url_mode::*;
use interop::*;
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

const V1: &str = "@modelcontextprotocol/sdk";
const V2: &str = "@modelcontextprotocol/client";

/// The TypeScript driver with `config`, on the npm folder `dir`.
fn start_node(dir: &Path, config: &Value) -> Driver {
    let node = std::env::var_os("FORMS_INTEROP_NODE").unwrap_or_else(|| "node".into());
    let mut command = Command::new(node);
    command
        .arg(interop_dir().join("ts_url_client.cjs"))
        .arg(config.to_string())
        .env("FORMS_INTEROP_NODE_DIR", dir);
    Driver::start(command)
}

/// The typed answer of `send_data` in a report.
fn typed(report: &Value) -> Value {
    let text = report["result"]["content"][0]["text"]
        .as_str()
        .expect("{report}");
    serde_json::from_str(text).unwrap()
}

/// Checks the TS client's handler got exactly one completion, with the request's
/// `elicitationId`, and that the transport carried no other.
fn check_completed_ts(report: &Value, params: &Value) {
    check_completed(report, params);
    let wire = report["wire"].as_array().unwrap();
    let sent = wire
        .iter()
        .filter(|n| n["method"] == "notifications/elicitation/complete")
        .count();
    assert_eq!(sent, 1, "{report}");
}

/// The derived form of the example `upload_server` (a `files` question, a resource card
/// with a picture, choices with pictures) over stdio on 2025-11-25, with the SDK `sdk`.
fn derived_form_over_stdio(sdk: &str) {
    let Some(dir) = node_dir() else { return };
    let scratch =
        forms_test_kit::scratch("url-ts", if sdk == V1 { "stdio-v1" } else { "stdio-v2" });
    let (file, bytes) = data_file(&scratch);
    let mut driver = start_node(
        &dir,
        &json!({"sdk": if sdk == V1 { "v1" } else { "v2" }, "mode": "legacy",
                "transport": "stdio", "command": [bins::example("upload_server")],
                "tool": "send_data"}),
    );
    let invalid = json!({"action": "accept", "content": {"format": "Docx"}});
    let (uri, params) =
        answer_in_chromium(&mut driver, &file, "#q-2", Some("Pdf"), &invalid, false);
    let report = driver.done();
    eprintln!(
        "{}: the tool call took {} ms, {} ms of it after the consent",
        report["sdk"], report["call_ms"], report["after_consent_ms"]
    );
    assert_eq!(report["sdk"], pinned_npm(sdk), "{report}");
    assert_eq!(report["protocol"], LEGACY, "{report}");
    assert!(report["error"].is_null(), "{report}");
    assert_eq!(report["requests"].as_array().unwrap().len(), 1, "{report}");
    check_completed_ts(&report, &params);
    assert_ne!(report["result"]["isError"], true, "{report}");
    let got = typed(&report);
    assert_eq!(got["format"], "Pdf", "{got}");
    assert_eq!(got["files"][0]["uri"], uri.as_str(), "{got}");
    check_copy(&uri, got["files"][0]["path"].as_str(), &bytes, &file);
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn ts_client_v2_gets_a_derived_form_with_files_whole_in_url_mode_over_stdio() {
    derived_form_over_stdio(V2);
}

#[test]
fn ts_sdk_v1_gets_a_derived_form_with_files_whole_in_url_mode_over_stdio() {
    derived_form_over_stdio(V1);
}

/// The Data tool of `forms-mcp --http --url-mode` with a `files` question, the v2 client in
/// `mode` (`legacy`: 2025-11-25; `2026-07-28`: input-required rounds).
fn data_tool_over_http(mode: &str) {
    let Some(dir) = node_dir() else { return };
    let modern = mode != "legacy";
    let scratch = forms_test_kit::scratch("url-ts", &format!("http-{mode}"));
    let (file, bytes) = data_file(&scratch);
    let server = start_http_with(60_000, &["--url-mode"]);
    let mut driver = start_node(
        &dir,
        &json!({"sdk": "v2", "mode": mode, "transport": "http", "url": server.url,
                "rounds": 100, "tool": "form_elicitation_v2_request",
                "arguments": data_form()}),
    );
    let invalid = json!({"action": "accept", "content": {"note": "x", "colour": "red"}});
    let (uri, params) = answer_in_chromium(&mut driver, &file, "#q-1", None, &invalid, modern);
    // The page was served on the MCP listener itself, under its own path.
    assert_page_on_the_listener(&params, &server.url);
    let (report, again) = driver.done_after();
    assert_eq!(report["sdk"], pinned_npm(V2), "{report}");
    assert!(report["error"].is_null(), "{report}");
    if modern {
        assert_eq!(report["protocol"], MODERN, "{report}");
        for request in &again {
            assert_eq!(*request, params, "a retry asked another interaction");
        }
        assert!(
            !report["wire"].to_string().contains("elicitation/complete"),
            "{report}"
        );
    } else {
        assert_eq!(report["protocol"], LEGACY, "{report}");
        assert!(again.is_empty(), "{report}");
        check_completed_ts(&report, &params);
    }
    let payload = &report["result"]["structuredContent"];
    assert_eq!(
        *payload,
        json!({"action": "accept", "content": {"data": [uri]}}),
        "{report}"
    );
    check_copy(&uri, None, &bytes, &file);
    eprintln!(
        "{} ({mode}, http): {} requests, the tool call took {} ms",
        report["sdk"],
        report["requests"].as_array().unwrap().len(),
        report["call_ms"]
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn ts_client_v2_answers_the_data_tool_on_the_page_over_http() {
    data_tool_over_http("legacy");
}

#[test]
fn ts_client_v2_on_2026_07_28_answers_the_data_tool_on_the_page_over_http() {
    data_tool_over_http(MODERN);
}

#[test]
fn ts_client_v2_declining_the_url_declines_the_ask() {
    let Some(dir) = node_dir() else { return };
    let driver = start_node(
        &dir,
        &json!({"sdk": "v2", "mode": "legacy", "transport": "stdio",
                "command": [bins::example("upload_server")], "tool": "send_data",
                "consent": {"action": "decline"}}),
    );
    let (report, requests) = driver.done_after();
    assert!(report["error"].is_null(), "{report}");
    assert_eq!(requests.len(), 1, "{report}");
    assert_eq!(requests[0]["mode"], "url", "{report}");
    assert_eq!(typed(&report), json!({"outcome": "Declined"}), "{report}");
    // A declined URL was never opened: no completion.
    assert!(
        !report["wire"].to_string().contains("elicitation/complete"),
        "{report}"
    );
}

/// On 2026-07-28 (the v2 client pinned to it, or negotiating it) the URL-mode request rides
/// in the input-required result; the SDK's multi-round-trip driver hands it to the same
/// handler and retries with the consent. Each retry before the submission gets the same
/// interaction (one page, one code, one elicitationId), the one after it the typed result.
fn modern_over_stdio(mode: &str) {
    let Some(dir) = node_dir() else { return };
    let scratch = forms_test_kit::scratch("url-ts", mode);
    let (file, bytes) = data_file(&scratch);
    let mut driver = start_node(
        &dir,
        &json!({"sdk": "v2", "mode": mode, "transport": "stdio", "rounds": 100,
                "command": [bins::example("upload_server")], "tool": "send_data"}),
    );
    let invalid = json!({"action": "accept", "content": {"format": "Docx"}});
    let (uri, params) =
        answer_in_chromium(&mut driver, &file, "#q-2", Some("Html"), &invalid, true);
    let (report, again) = driver.done_after();
    assert_eq!(report["sdk"], pinned_npm(V2), "{report}");
    assert_eq!(report["protocol"], MODERN, "{report}");
    assert!(report["error"].is_null(), "{report}");
    for request in &again {
        assert_eq!(*request, params, "a retry asked another interaction");
    }
    // The SDK hands the handler the request as 2026-07-28 defines it: mode, message, url.
    let mut keys: Vec<&str> = params
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    keys.sort_unstable();
    assert_eq!(keys, ["message", "mode", "url"], "{params}");
    // Every round's request reached the handler: the two before the page was opened, the
    // ones after it, and no other.
    assert_eq!(
        report["requests"].as_array().unwrap().len(),
        2 + again.len(),
        "{report}"
    );
    // 2026-07-28 has no completion notification: the complete result is the end.
    assert!(
        !report["wire"].to_string().contains("elicitation/complete"),
        "{report}"
    );
    let got = typed(&report);
    assert_eq!(got["format"], "Html", "{got}");
    assert_eq!(got["files"][0]["uri"], uri.as_str(), "{got}");
    check_copy(&uri, got["files"][0]["path"].as_str(), &bytes, &file);
    eprintln!(
        "{} ({mode}): {} rounds, {} ms from the first request to the result",
        report["sdk"],
        report["requests"].as_array().unwrap().len(),
        report["call_ms"]
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn ts_client_v2_pinned_to_2026_07_28_retries_the_same_url_interaction_until_the_page_is_submitted()
{
    modern_over_stdio(MODERN);
}

#[test]
fn ts_client_v2_auto_negotiates_2026_07_28_and_gets_the_result_after_the_page() {
    modern_over_stdio("auto");
}

/// Opens the page's URL as a browser would (a GET at its own origin); the status.
fn page_status(url: &str) -> u16 {
    let (port, secret) = parts_of(url);
    request(port, "GET", &format!("{secret}/"), "text/plain", "").0
}

/// The Data tool's form with a `files` question.
fn data_form() -> Value {
    json!({"message": "Send the quarter's data", "questions": [
        {"id": "note", "type": "text", "title": "Note", "required": false},
        {"id": "data", "type": "files", "title": "The quarter's data", "required": true,
         "accept": [".csv", "text/csv"]}]})
}

/// A Data tool ask of `forms-mcp --http --url-mode` (timeout `timeout_ms`) that ends without
/// a submission on 2025-11-25, by the client's cancellation of the tool call (`extra`:
/// `abort_after_ms`) or the server's timeout: the page, open before, is refused after (the
/// listener still up), and the client gets exactly one completion notification; returns the
/// report.
fn ended_without_submission(timeout_ms: u64, extra: Value) -> Option<Value> {
    let dir = node_dir()?;
    let server = start_http_with(timeout_ms, &["--url-mode"]);
    let mut config = json!({"sdk": "v2", "mode": "legacy", "transport": "http",
                            "url": server.url, "tool": "form_elicitation_v2_request",
                            "arguments": data_form()});
    for (k, v) in extra.as_object().unwrap() {
        config[k] = v.clone();
    }
    let mut driver = start_node(&dir, &config);
    let event = driver.next("URL-mode request");
    let params = event["params"].clone();
    let url = params["url"].as_str().unwrap().to_owned();
    assert_eq!(page_status(&url), 200, "the page was not open: {params}");
    let report = driver.done();
    check_completed_ts(&report, &params);
    let status = page_status(&url);
    assert!(
        status == 403 || status == 404 || status == 410,
        "the page answered {status} after its ask ended"
    );
    Some(report)
}

#[test]
fn ts_client_v2_cancelling_the_call_closes_the_page_and_completes_the_elicitation() {
    let Some(report) = ended_without_submission(60_000, json!({"abort_after_ms": 3000})) else {
        return;
    };
    assert!(report["result"].is_null(), "{report}");
    assert!(
        report["error"]
            .as_str()
            .is_some_and(|e| e.contains("Abort")),
        "{report}"
    );
}

#[test]
fn ts_client_v2_gets_the_timeout_and_the_completion_when_the_page_is_never_submitted() {
    let Some(report) = ended_without_submission(3000, json!({})) else {
        return;
    };
    assert!(report["error"].is_null(), "{report}");
    assert_eq!(report["result"]["isError"], true, "{report}");
    assert_eq!(
        report["result"]["structuredContent"]["error"]["code"], "timeout",
        "{report}"
    );
}
