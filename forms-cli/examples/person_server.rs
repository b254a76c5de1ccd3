//! A scripted MCP server over stdio for the tests of the pages and terminal screens a person
//! answers on (`forms host`, protocol 2025-11-25). Its one tool `ask` sends the host a core
//! `elicitation/create` whose fields carry SEP-1034 defaults (string, integer, number, enum,
//! boolean, and a list of picks), number bounds, titled enums (`oneOf` of `{const,title}`,
//! `items.anyOf`) and legacy `enumNames`, and returns the host's response (or error) as its
//! result text. Its `serverInfo` title holds markup, which a page must show as text.
//! Newline-delimited JSON-RPC ([`forms_test_kit::scripted`]).

use forms_test_kit::scripted::{answer_of, serve, tools, Peer, Script};
use serde_json::{json, Value};

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

struct Person;

impl Script for Person {
    fn call(&mut self, peer: &mut Peer, _request: &Value) -> std::io::Result<()> {
        peer.ask(&form())
    }

    /// The host's response to the form: the result (or error) as the tool's text.
    fn answered(&mut self, peer: &mut Peer, response: &Value) -> std::io::Result<()> {
        peer.finish(json!([{"type": "text", "text": answer_of(response).to_string()}]))
    }
}

fn main() -> std::io::Result<()> {
    let info =
        json!({"name": "person-server", "title": "Profiles <b>desk</b>", "version": "2.5.0"});
    serve(&info, &tools(&["ask"]), &mut Person)
}
