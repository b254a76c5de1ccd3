//! Scripted MCP servers over stdio, for the tests of hosts (`forms host`): one loop reads
//! newline-delimited JSON-RPC from stdin and answers `initialize` (protocol 2025-11-25) and
//! `tools/list`; a [`Script`] says what the server is called, which tools it has, what a
//! `tools/call` sends the host and what the server does with the host's responses.
//!
//! A line that is not JSON is passed over; a request or notification the loop does not know
//! goes to [`Script::other`] (by default, passed over).

use serde_json::{json, Value};
use std::io::{BufRead, Stdout, Write};

/// The protocol version a scripted server answers `initialize` with.
pub const PROTOCOL: &str = "2025-11-25";

/// What one scripted server does with `tools/call` and the host's responses; [`serve`] runs
/// it. Each handler answers through the [`Peer`].
pub trait Script {
    /// Answers a `tools/call`.
    fn call(&mut self, peer: &mut Peer, request: &Value) -> std::io::Result<()>;

    /// Handles the host's response (a message without a method) to a request of the server.
    fn answered(&mut self, peer: &mut Peer, response: &Value) -> std::io::Result<()>;

    /// Sees the `initialize` request before the server answers it.
    fn initialize(&mut self, _request: &Value) {}

    /// Handles any other request or notification: by default, passes it over.
    fn other(&mut self, _peer: &mut Peer, _method: &str, _request: &Value) -> std::io::Result<()> {
        Ok(())
    }
}

/// The tools of a `tools/list` result, one `{"name", "inputSchema": {"type": "object"}}` a
/// name.
pub fn tool_list(names: &[&str]) -> Vec<Value> {
    names
        .iter()
        .map(|name| json!({"name": name, "inputSchema": {"type": "object"}}))
        .collect()
}

/// The `tools/list` result `{"tools": …}` of the tools `names`.
pub fn tools(names: &[&str]) -> Value {
    json!({"tools": tool_list(names)})
}

/// The host's answer in a response: its `result`, else its `error`, else `null`.
pub fn answer_of(response: &Value) -> Value {
    response
        .get("result")
        .or_else(|| response.get("error"))
        .cloned()
        .unwrap_or(Value::Null)
}

/// The server's side of the conversation: its stdout, the ID of the message being handled,
/// and the `tools/call` that waits for the host's answer.
pub struct Peer {
    out: Stdout,
    current: Option<Value>,
    pending_call: Option<Value>,
}

impl Peer {
    /// Writes one message and a newline, and flushes.
    pub fn send(&mut self, message: &Value) -> std::io::Result<()> {
        writeln!(self.out, "{message}")?;
        self.out.flush()
    }

    /// Answers the request being handled with `result`.
    pub fn reply(&mut self, result: Value) -> std::io::Result<()> {
        let id = self.current.clone();
        self.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}))
    }

    /// Holds the `tools/call` being handled open and sends the host `request`.
    pub fn ask(&mut self, request: &Value) -> std::io::Result<()> {
        self.pending_call = self.current.clone();
        self.send(request)
    }

    /// Completes the held `tools/call` with the result `{"content": content}`.
    pub fn finish(&mut self, content: Value) -> std::io::Result<()> {
        let id = self.pending_call.take();
        self.send(&json!({"jsonrpc": "2.0", "id": id, "result": {"content": content}}))
    }
}

/// Runs `script` on stdin and stdout until stdin ends: `initialize` gets `server_info`,
/// `tools/list` gets `tools_list` (see [`tools`]).
pub fn serve(
    server_info: &Value,
    tools_list: &Value,
    script: &mut impl Script,
) -> std::io::Result<()> {
    let stdin = std::io::stdin();
    let mut peer = Peer {
        out: std::io::stdout(),
        current: None,
        pending_call: None,
    };
    for line in stdin.lock().lines() {
        let Ok(message) = serde_json::from_str::<Value>(&line?) else {
            continue;
        };
        peer.current = message.get("id").cloned();
        match message.get("method").and_then(Value::as_str) {
            Some("initialize") => {
                script.initialize(&message);
                peer.reply(json!({"protocolVersion": PROTOCOL,
                    "capabilities": {"tools": {}},
                    "serverInfo": server_info}))?;
            }
            Some("tools/list") => peer.reply(tools_list.clone())?,
            Some("tools/call") => script.call(&mut peer, &message)?,
            Some(method) => script.other(&mut peer, method, &message)?,
            None => script.answered(&mut peer, &message)?,
        }
    }
    Ok(())
}
