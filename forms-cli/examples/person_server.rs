//! A scripted MCP server over stdio for the tests of the pages and terminal screens a person
//! answers on (`forms host`, protocol 2025-11-25). Its one tool `ask` sends the host a core
//! `elicitation/create` whose fields carry SEP-1034 defaults (string, integer, number, enum,
//! boolean, and a list of picks), number bounds, titled enums (`oneOf` of `{const,title}`,
//! `items.anyOf`) and legacy `enumNames`, and returns the host's response (or error) as its
//! result text. Its `serverInfo` title holds markup, which a page must show as text.
//! Newline-delimited JSON-RPC.

use serde_json::{json, Value};
use std::io::{BufRead, Write};

fn send(out: &mut impl Write, message: &Value) -> std::io::Result<()> {
    writeln!(out, "{message}")?;
    out.flush()
}

/// The form: every field optional, so that accepting it as shown answers its defaults.
fn form() -> Value {
    json!({"jsonrpc": "2.0", "id": "ask", "method": "elicitation/create", "params": {
        "mode": "form",
        "message": "Your profile",
        "requestedSchema": {"type": "object", "properties": {
            "name": {"type": "string", "title": "Name", "default": "John Doe"},
            "age": {"type": "integer", "title": "Age", "minimum": 0, "maximum": 150, "default": 30},
            "score": {"type": "number", "title": "Score", "minimum": 0, "maximum": 100,
                "default": 95.5},
            "status": {"type": "string", "title": "Status", "enum": ["active", "inactive", "pending"],
                "default": "active"},
            "size": {"type": "string", "title": "Size", "enum": ["s", "m", "l"],
                "enumNames": ["Small", "Medium", "Large"], "default": "m"},
            "plan": {"type": "string", "title": "Plan", "oneOf": [
                {"const": "free", "title": "Free plan"}, {"const": "pro", "title": "Pro plan"}],
                "default": "pro"},
            "days": {"type": "array", "title": "Days", "items": {"anyOf": [
                {"const": "mon", "title": "Monday"}, {"const": "tue", "title": "Tuesday"},
                {"const": "wed", "title": "Wednesday"}]}, "default": ["mon", "wed"]},
            "verified": {"type": "boolean", "title": "Verified", "default": true}}}}})
}

fn main() -> std::io::Result<()> {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
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
                "serverInfo": {"name": "person-server", "title": "Profiles <b>desk</b>",
                    "version": "2.5.0"}}}),
            )?,
            Some("tools/list") => send(
                &mut out,
                &json!({"jsonrpc": "2.0", "id": id, "result": {"tools": [
                {"name": "ask", "inputSchema": {"type": "object"}}]}}),
            )?,
            Some("tools/call") => {
                pending_call = id;
                send(&mut out, &form())?;
            }
            Some(_) => {}
            None => {
                // The host's response to the form: the result (or error) as the tool's text.
                let answer = message
                    .get("result")
                    .or_else(|| message.get("error"))
                    .cloned()
                    .unwrap_or(Value::Null);
                send(
                    &mut out,
                    &json!({"jsonrpc": "2.0", "id": pending_call.take(), "result": {
                    "content": [{"type": "text", "text": answer.to_string()}]}}),
                )?;
            }
        }
    }
    Ok(())
}
