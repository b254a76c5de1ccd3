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
//! Newline-delimited JSON-RPC ([`forms_test_kit::scripted`]).

use forms_test_kit::scripted::{answer_of, serve, tool_list, Peer, Script};
use serde_json::{json, Value};

const MESSAGE: &str = "Pay for order 42 on our payment page.";
const URL: &str = "https://pay.example.com/checkout?order=42";

fn server_info() -> Value {
    json!({"name": "url-server", "version": "1.0"})
}

#[derive(Default)]
struct UrlServer {
    /// The capabilities the host advertised.
    capabilities: Value,
    /// Whether the host spoke 2026-07-28 (`server/discover`).
    modern: bool,
    /// The input responses of the 2026-07-28 retries.
    responses: Vec<Value>,
}

impl UrlServer {
    /// A 2026-07-28 `tools/call`: input required until the interaction is done.
    fn modern_call(&mut self, request: &Value) -> Value {
        let answer = request.pointer("/params/inputResponses/pay").cloned();
        let accepted = answer.as_ref().and_then(|a| a.get("action")) == Some(&json!("accept"));
        if let Some(answer) = answer {
            self.responses.push(answer);
        }
        if self.responses.is_empty() || (accepted && self.responses.len() < 3) {
            json!({"resultType": "input_required",
                "inputRequests": {"pay": {"method": "elicitation/create", "params": {
                    "mode": "url", "url": URL, "message": MESSAGE}}},
                "requestState": format!("round-{}", self.responses.len())})
        } else {
            json!({"resultType": "complete", "content": [
                {"type": "text", "text": Value::Array(self.responses.clone()).to_string()},
                {"type": "text", "text": self.capabilities.to_string()}]})
        }
    }
}

impl Script for UrlServer {
    fn initialize(&mut self, request: &Value) {
        self.capabilities = request
            .pointer("/params/capabilities")
            .cloned()
            .unwrap_or(Value::Null);
    }

    fn other(&mut self, peer: &mut Peer, method: &str, request: &Value) -> std::io::Result<()> {
        if method != "server/discover" {
            return Ok(());
        }
        self.modern = true;
        self.capabilities = request
            .pointer("/params/_meta/io.modelcontextprotocol~1clientCapabilities")
            .cloned()
            .unwrap_or(Value::Null);
        peer.reply(json!({"resultType": "complete",
            "supportedVersions": ["2025-11-25", "2026-07-28"],
            "capabilities": {"tools": {}}, "ttlMs": 0, "cacheScope": "private",
            "_meta": {"io.modelcontextprotocol/serverInfo": server_info()}}))
    }

    fn call(&mut self, peer: &mut Peer, request: &Value) -> std::io::Result<()> {
        if self.modern {
            let result = self.modern_call(request);
            return peer.reply(result);
        }
        let url = match request.pointer("/params/name").and_then(Value::as_str) {
            Some("bad") => "javascript:alert(1)",
            _ => URL,
        };
        peer.ask(
            &json!({"jsonrpc": "2.0", "id": "ask", "method": "elicitation/create",
            "params": {"mode": "url", "elicitationId": "pay-1", "url": url,
                "message": MESSAGE}}),
        )
    }

    fn answered(&mut self, peer: &mut Peer, response: &Value) -> std::io::Result<()> {
        for done in ["never-asked", "pay-1", "pay-1"] {
            peer.send(
                &json!({"jsonrpc": "2.0", "method": "notifications/elicitation/complete",
                "params": {"elicitationId": done}}),
            )?;
        }
        peer.finish(json!([
            {"type": "text", "text": answer_of(response).to_string()},
            {"type": "text", "text": self.capabilities.to_string()}]))
    }
}

fn main() -> std::io::Result<()> {
    let tools = json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "private",
        "tools": tool_list(&["open", "bad"])});
    serve(&server_info(), &tools, &mut UrlServer::default())
}
