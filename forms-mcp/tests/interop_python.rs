//! The official MCP Python SDK (PyPI `mcp`, pinned in tests/interop/requirements.txt) as the
//! client of the built `forms-mcp`, over stdio and streamable HTTP: the high-level `Client`
//! in its default protocol mode and in legacy mode, and `ClientSession` pinned to each
//! protocol generation. Each run checks accept, decline, cancel, an invalid answer, a client
//! without the extension and a timeout (tests/interop/python_client.py).
//!
//! Needs `FORMS_INTEROP_PY` from `.ci/interop-setup`; without it each test says loudly that
//! it was skipped, and with `CI=true` it fails.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

#[path = "interop/harness.rs"]
mod harness;

use harness::*;
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
