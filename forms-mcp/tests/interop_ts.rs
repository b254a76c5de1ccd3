//! The official MCP TypeScript SDKs (pinned in tests/interop/package.json and
//! package-lock.json) as the client of the built `forms-mcp`, over stdio and streamable
//! HTTP: `@modelcontextprotocol/sdk` 1.x (protocol 2025-11-25), and the v2 client
//! `@modelcontextprotocol/client` pinned to 2026-07-28, in `auto` negotiation, and in its
//! default `legacy` mode. Each run checks accept, decline, cancel, an invalid answer, a
//! client without the extension and a timeout (tests/interop/ts_client.cjs).
//!
//! Needs `FORMS_INTEROP_NODE_DIR` from `.ci/interop-setup` and Node.js 20 or later (`node`, or
//! the binary `FORMS_INTEROP_NODE` names); without the folder each test says loudly that it
//! was skipped, and with `CI=true` it fails.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod interop;

use interop::*;
use serde_json::json;
use std::path::Path;

const V1: &str = "@modelcontextprotocol/sdk";
const V2: &str = "@modelcontextprotocol/client";

fn run(sdk: &str, mode: &str, transport: Transport, protocol: &str) {
    let Some(dir) = node_dir() else { return };
    let mut config = transport.config();
    config["sdk"] = json!(if sdk == V1 { "v1" } else { "v2" });
    config["mode"] = json!(mode);
    config["timeout_ms"] = json!(SHORT_TIMEOUT_MS);
    config["arguments"] = report_form();
    let node = std::env::var_os("FORMS_INTEROP_NODE").unwrap_or_else(|| "node".into());
    let report = run_driver(
        Path::new(&node),
        "ts_client.cjs",
        &[("FORMS_INTEROP_NODE_DIR", &dir)],
        &config,
    );
    check_report(&report, &pinned_npm(sdk), protocol);
}

#[test]
fn ts_sdk_v1_on_2025_11_25_over_stdio() {
    run(V1, "legacy", Transport::Stdio, LEGACY);
}

#[test]
fn ts_sdk_v1_on_2025_11_25_over_http() {
    run(V1, "legacy", Transport::http(), LEGACY);
}

#[test]
fn ts_client_v2_pinned_to_2026_07_28_over_stdio() {
    run(V2, MODERN, Transport::Stdio, MODERN);
}

#[test]
fn ts_client_v2_pinned_to_2026_07_28_over_http() {
    run(V2, MODERN, Transport::http(), MODERN);
}

#[test]
fn ts_client_v2_auto_negotiates_2026_07_28_over_stdio() {
    run(V2, "auto", Transport::Stdio, MODERN);
}

#[test]
fn ts_client_v2_auto_negotiates_2026_07_28_over_http() {
    run(V2, "auto", Transport::http(), MODERN);
}

#[test]
fn ts_client_v2_legacy_mode_on_2025_11_25_over_stdio() {
    run(V2, "legacy", Transport::Stdio, LEGACY);
}

#[test]
fn ts_client_v2_legacy_mode_on_2025_11_25_over_http() {
    run(V2, "legacy", Transport::http(), LEGACY);
}
