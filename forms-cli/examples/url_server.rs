//! A scripted MCP server over stdio for the tests of URL-mode elicitation in `forms host`
//! (protocol 2025-11-25). Its tool `open` sends a URL-mode `elicitation/create`
//! (`elicitationId` `pay-1`, a URL on pay.example.com); once answered it sends
//! `notifications/elicitation/complete` for an ID it never used and then for `pay-1`, and
//! returns the host's response as its result text. Its tool `bad` sends a URL-mode request
//! whose URL is `javascript:`; the result text is the host's error. The capabilities the
//! host advertised are the second text of every result. Newline-delimited JSON-RPC.

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
            Some("tools/list") => send(
                &mut out,
                &json!({"jsonrpc": "2.0", "id": id, "result": {"tools": [
                {"name": "open", "inputSchema": {"type": "object"}},
                {"name": "bad", "inputSchema": {"type": "object"}}]}}),
            )?,
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
