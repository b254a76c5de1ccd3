//! A scripted MCP server over stdio for the `forms host` tests: its one tool `ask` first
//! sends the host a malformed `openai/elicitation/create` (a number as the message), then a
//! good one, and returns both answers as its result text. Newline-delimited JSON-RPC
//! ([`forms_test_kit::scripted`]).

use forms_test_kit::scripted::{serve, tools, Peer, Script};
use serde_json::{json, Value};

/// The host's responses so far.
struct Malformed {
    answers: Vec<Value>,
}

impl Script for Malformed {
    fn call(&mut self, peer: &mut Peer, _request: &Value) -> std::io::Result<()> {
        peer.ask(
            &json!({"jsonrpc": "2.0", "id": "bad", "method": "openai/elicitation/create",
            "params": {"message": 5, "requestedSchema": {"type": "object", "properties": {}}}}),
        )
    }

    fn answered(&mut self, peer: &mut Peer, response: &Value) -> std::io::Result<()> {
        self.answers.push(response.clone());
        if response.get("id") == Some(&json!("bad")) {
            peer.send(
                &json!({"jsonrpc": "2.0", "id": "good", "method": "openai/elicitation/create",
                "params": {"mode": "form", "message": "Your name?", "requestedSchema": {
                    "type": "object", "properties": {"name": {"type": "string", "title": "Name"}}}}}),
            )
        } else {
            let text = Value::Array(self.answers.clone()).to_string();
            peer.finish(json!([{"type": "text", "text": text}]))
        }
    }
}

fn main() -> std::io::Result<()> {
    serve(
        &json!({"name": "malformed", "version": "1"}),
        &tools(&["ask"]),
        &mut Malformed {
            answers: Vec::new(),
        },
    )
}
