//! The official MCP Python SDK (PyPI `mcp`, pinned in tests/interop/requirements.txt) as the
//! client of the built `forms-mcp`, over stdio and streamable HTTP: the high-level `Client`
//! in its default protocol mode and in legacy mode, and `ClientSession` pinned to each
//! protocol generation. Each run checks accept, decline, cancel, an invalid answer, a client
//! without the extension and a timeout (tests/interop/python_client.py).
//!
//! Needs `FORMS_INTEROP_PY` from `.ci/interop-setup`; without it each test says loudly that
//! it was skipped, and with `CI=true` it fails.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod interop;

use interop::*;
use serde_json::json;

fn run(api: &str, transport: Transport, protocol: &str) {
    let Some(python) = python() else { return };
    let mut config = transport.config();
    config["api"] = json!(api);
    config["timeout_ms"] = json!(SHORT_TIMEOUT_MS);
    config["arguments"] = report_form();
    let report = run_driver(&python, "python_client.py", &[], &config);
    check_report(&report, &pinned_python("mcp"), protocol);
}

#[test]
fn python_client_default_mode_negotiates_2026_07_28_over_stdio() {
    run("client", Transport::Stdio, MODERN);
}

#[test]
fn python_client_default_mode_negotiates_2026_07_28_over_http() {
    run("client", Transport::http(), MODERN);
}

#[test]
fn python_client_legacy_mode_answers_mid_call_over_stdio() {
    run("client-legacy", Transport::Stdio, LEGACY);
}

#[test]
fn python_client_legacy_mode_answers_mid_call_over_http() {
    run("client-legacy", Transport::http(), LEGACY);
}

#[test]
fn python_session_on_2025_11_25_answers_mid_call_over_stdio() {
    run("session-2025-11-25", Transport::Stdio, LEGACY);
}

#[test]
fn python_session_on_2025_11_25_answers_mid_call_over_http() {
    run("session-2025-11-25", Transport::http(), LEGACY);
}

#[test]
fn python_session_on_2026_07_28_drives_the_rounds_over_stdio() {
    run("session-2026-07-28", Transport::Stdio, MODERN);
}

#[test]
fn python_session_on_2026_07_28_drives_the_rounds_over_http() {
    run("session-2026-07-28", Transport::http(), MODERN);
}

/// A form request through the `ask_*` tools, driven by the Python SDK's `Client` as the
/// requester and as the person (two `forms-mcp --asks` processes on one SQLite file): the
/// form is stored, an answer its rules refuse is `invalid_response` with nothing saved, the
/// accepted host response is saved as given and read back by the requester.
fn form_request(mode: &str, protocol: &str) {
    let Some(python) = python() else { return };
    let tag = format!(
        "{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    );
    let dir = std::env::temp_dir().join(format!("forms-interop-asks-{tag}"));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("asks.db").display().to_string();
    let (conversation, agent, ana) = (
        format!("chat-{tag}"),
        format!("agent-{tag}"),
        format!("ana-{tag}"),
    );
    let asks = forms_ask::Asks::open_location(&db).unwrap();
    for p in [&agent, &ana] {
        asks.join(
            &forms_ask::ConversationId::new(conversation.as_str()).unwrap(),
            &forms_ask::Principal::new(p.as_str()).unwrap(),
        )
        .unwrap();
    }
    drop(asks);
    let accepted = json!({"action": "accept", "content": {"format": "html", "goal": "Churn"}});
    let config = json!({
        "server": env!("CARGO_BIN_EXE_forms-mcp"), "db": db, "conversation": conversation,
        "requester": agent, "person": ana, "form": report_form(), "mode": mode,
        "refused": {"action": "accept", "content": {"format": "docx"}},
        "accepted": accepted,
    });
    let report = run_driver(&python, "python_asks_client.py", &[], &config);
    assert_eq!(report["protocol"], protocol, "{report}");
    let step = |name: &str| {
        let result = &report["steps"][name];
        let text: serde_json::Value =
            serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(text, result["structuredContent"], "{name}: {result}");
        if protocol == MODERN {
            assert_eq!(result["resultType"], "complete", "{name}: {result}");
        }
        result["structuredContent"].clone()
    };
    let opened = step("open");
    assert_eq!(opened["state"], "open", "{opened}");
    assert_eq!(opened["form"], report_form(), "{opened}");
    let refused = step("refused");
    assert_eq!(refused["error"]["code"], "invalid_response", "{refused}");
    assert_eq!(report["steps"]["refused"]["isError"], true, "{report}");
    let answered = step("accepted");
    assert_eq!(answered["state"], "resolved", "{answered}");
    assert_eq!(answered["version"], 2, "{answered}");
    let shown = step("show");
    assert_eq!(shown["response"], accepted, "{shown}");
    assert_eq!(shown["responder"], ana.as_str(), "{shown}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn python_client_opens_and_answers_a_form_request_on_2026_07_28() {
    form_request("auto", MODERN);
}

#[test]
fn python_client_opens_and_answers_a_form_request_on_2025_11_25() {
    form_request("legacy", LEGACY);
}
