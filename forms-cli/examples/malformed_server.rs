//! A scripted MCP server over stdio for the `forms host` tests: its one tool `ask` first
//! sends the host a malformed `openai/elicitation/create` (a number as the message), then a
//! good one, and returns both answers as its result text. Newline-delimited JSON-RPC.

use serde_json::{json, Value};
use std::io::{BufRead, Write};

fn send(out: &mut impl Write, message: &Value) -> std::io::Result<()> {
    writeln!(out, "{message}")?;
    out.flush()
}

fn main() -> std::io::Result<()> {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    let mut answers = Vec::new();
    let mut pending_call = None;
    for line in stdin.lock().lines() {
        let Ok(message) = serde_json::from_str::<Value>(&line?) else {
            continue;
        };
        let id = message.get("id").cloned();
        match message.get("method").and_then(Value::as_str) {
            Some("initialize") => send(
                &mut out,
                &json!({"jsonrpc": "2.0", "id": id, "result": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "malformed", "version": "1"}}}),
            )?,
            Some("tools/list") => send(
                &mut out,
                &json!({"jsonrpc": "2.0", "id": id, "result": {
                "tools": [{"name": "ask", "inputSchema": {"type": "object"}}]}}),
            )?,
            Some("tools/call") => {
                pending_call = id;
                send(
                    &mut out,
                    &json!({"jsonrpc": "2.0", "id": "bad", "method": "openai/elicitation/create",
                    "params": {"message": 5, "requestedSchema": {"type": "object", "properties": {}}}}),
                )?;
            }
            Some(_) => {}
            None => {
                // A response to one of our requests.
                answers.push(message.clone());
                if message.get("id") == Some(&json!("bad")) {
                    send(
                        &mut out,
                        &json!({"jsonrpc": "2.0", "id": "good", "method": "openai/elicitation/create",
                        "params": {"mode": "form", "message": "Your name?", "requestedSchema": {
                            "type": "object", "properties": {"name": {"type": "string", "title": "Name"}}}}}),
                    )?;
                } else {
                    let text = Value::Array(answers.clone()).to_string();
                    send(
                        &mut out,
                        &json!({"jsonrpc": "2.0", "id": pending_call.take(), "result": {
                        "content": [{"type": "text", "text": text}]}}),
                    )?;
                }
            }
        }
    }
    Ok(())
}
