//! A scripted MCP server over stdio for the tests of URL-mode elicitation in `forms host`.
//!
//! On 2025-11-25 (`initialize`) its tool `open` sends a URL-mode `elicitation/create`
//! (`elicitationId` `pay-1`, a URL on pay.example.com); once answered it sends
//! `notifications/elicitation/complete` for an ID it never used and then twice for `pay-1`,
//! and returns the host's response as its result text. Its tool `bad` sends a URL-mode
//! request whose URL is `javascript:`; the result text is the host's error.
//!
//! On 2026-07-28 (`server/discover`) `open` answers with an input-required result holding the
//! URL-mode request (no `elicitationId`), and answers the first two retries that accept it
//! with the same request again (the interaction is not done yet); the third retry, or one
//! that declines or cancels, completes with the list of input responses it got as its result
//! text.
//!
//! The capabilities the host advertised are the second text of every result.
//! Newline-delimited JSON-RPC.

use serde_json::{json, Value};
use std::io::{BufRead, Write};

fn send(out: &mut impl Write, message: &Value) -> std::io::Result<()> {
    writeln!(out, "{message}")?;
    out.flush()
}

fn main() -> std::io::Result<()> {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    let mut pending_call = None;
    let mut capabilities = Value::Null;
    let mut modern = false;
    let mut responses = Vec::new();
    for line in stdin.lock().lines() {
        let Ok(message) = serde_json::from_str::<Value>(&line?) else {
            continue;
        };
        let id = message.get("id").cloned();
        match message.get("method").and_then(Value::as_str) {
            Some("initialize") => {
                capabilities = message
                    .pointer("/params/capabilities")
                    .cloned()
                    .unwrap_or(Value::Null);
                send(
                    &mut out,
                    &json!({"jsonrpc": "2.0", "id": id, "result": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "url-server", "version": "1.0"}}}),
                )?
            }
            Some("server/discover") => {
                modern = true;
                capabilities = message
                    .pointer("/params/_meta/io.modelcontextprotocol~1clientCapabilities")
                    .cloned()
                    .unwrap_or(Value::Null);
                send(
                    &mut out,
                    &json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete",
                    "supportedVersions": ["2025-11-25", "2026-07-28"],
                    "capabilities": {"tools": {}}, "ttlMs": 0, "cacheScope": "private",
                    "_meta": {"io.modelcontextprotocol/serverInfo":
                        {"name": "url-server", "version": "1.0"}}}}),
                )?
            }
            Some("tools/list") => send(
                &mut out,
                &json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete",
                "ttlMs": 0, "cacheScope": "private", "tools": [
                {"name": "open", "inputSchema": {"type": "object"}},
                {"name": "bad", "inputSchema": {"type": "object"}}]}}),
            )?,
            Some("tools/call") if modern => {
                let answer = message.pointer("/params/inputResponses/pay").cloned();
                let accepted =
                    answer.as_ref().and_then(|a| a.get("action")) == Some(&json!("accept"));
                if let Some(answer) = answer {
                    responses.push(answer);
                }
                let result = if responses.is_empty() || (accepted && responses.len() < 3) {
                    json!({"resultType": "input_required",
                        "inputRequests": {"pay": {"method": "elicitation/create", "params": {
                            "mode": "url", "url": "https://pay.example.com/checkout?order=42",
                            "message": "Pay for order 42 on our payment page."}}},
                        "requestState": format!("round-{}", responses.len())})
                } else {
                    json!({"resultType": "complete", "content": [
                        {"type": "text", "text": Value::Array(responses.clone()).to_string()},
                        {"type": "text", "text": capabilities.to_string()}]})
                };
                send(
                    &mut out,
                    &json!({"jsonrpc": "2.0", "id": id, "result": result}),
                )?;
            }
            Some("tools/call") => {
                pending_call = id;
                let url = match message.pointer("/params/name").and_then(Value::as_str) {
                    Some("bad") => "javascript:alert(1)",
                    _ => "https://pay.example.com/checkout?order=42",
                };
                send(
                    &mut out,
                    &json!({"jsonrpc": "2.0", "id": "ask", "method": "elicitation/create",
                    "params": {"mode": "url", "elicitationId": "pay-1", "url": url,
                        "message": "Pay for order 42 on our payment page."}}),
                )?;
            }
            Some(_) => {}
            None => {
                let answer = message
                    .get("result")
                    .or_else(|| message.get("error"))
                    .cloned()
                    .unwrap_or(Value::Null);
                for done in ["never-asked", "pay-1", "pay-1"] {
                    send(
                        &mut out,
                        &json!({"jsonrpc": "2.0", "method": "notifications/elicitation/complete",
                        "params": {"elicitationId": done}}),
                    )?;
                }
                send(
                    &mut out,
                    &json!({"jsonrpc": "2.0", "id": pending_call.take(), "result": {
                    "content": [{"type": "text", "text": answer.to_string()},
                                {"type": "text", "text": capabilities.to_string()}]}}),
                )?;
            }
        }
    }
    Ok(())
}
