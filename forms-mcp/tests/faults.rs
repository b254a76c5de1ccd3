//! Bad input and faults over stdio, driven with raw JSON-RPC lines: the server keeps serving
//! and never panics.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

use serde_json::{json, Value};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

struct Raw {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Lines<BufReader<ChildStdout>>,
}

impl Raw {
    async fn start(timeout_ms: &str) -> Raw {
        let mut child = Command::new(env!("CARGO_BIN_EXE_forms-mcp"))
            .env("DATA_FORMS_TIMEOUT_MS", timeout_ms)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut raw = Raw {
            child,
            stdin,
            lines,
        };
        raw.send(
            &json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"extensions": {"openai/elicitation": {"form": {}}}},
            "clientInfo": {"name": "raw-host", "version": "1"}}}),
        )
        .await;
        let reply = raw.recv().await;
        assert_eq!(reply["id"], "init", "{reply}");
        raw.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        raw
    }

    async fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).await.unwrap();
        stdin.write_all(b"\n").await.unwrap();
        stdin.flush().await.unwrap();
    }

    async fn send(&mut self, message: &Value) {
        self.send_line(&message.to_string()).await;
    }

    async fn recv(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(10), self.lines.next_line())
            .await
            .expect("no message in time")
            .unwrap()
            .expect("the server closed stdout");
        serde_json::from_str(&line).unwrap()
    }

    /// The next message that is a request from the server (skipping error replies to
    /// garbage).
    async fn recv_request(&mut self) -> Value {
        loop {
            let message = self.recv().await;
            if message.get("method").is_some() {
                return message;
            }
        }
    }

    /// The reply with `id`, skipping other messages.
    async fn recv_reply(&mut self, id: &Value) -> Value {
        loop {
            let message = self.recv().await;
            if &message["id"] == id && message.get("method").is_none() {
                return message;
            }
        }
    }

    async fn call(&mut self, id: i64, message: &str) {
        self.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "form_elicitation_v2_request",
            "arguments": {"message": message, "questions": [
                {"id": "goal", "type": "text", "title": "Goal", "required": true,
                 "maxLength": 100}]}}}),
        )
        .await;
    }

    /// A whole accepted call: the server's request answered with `goal`.
    async fn accepted_call(&mut self, id: i64, goal: &str) -> Value {
        self.call(id, "Tell me").await;
        let request = self.recv_request().await;
        assert_eq!(request["method"], "openai/elicitation/create");
        self.send(&json!({"jsonrpc": "2.0", "id": request["id"],
            "result": {"action": "accept", "content": {"goal": goal}}}))
            .await;
        self.recv_reply(&json!(id)).await
    }
}

fn structured(reply: &Value) -> &Value {
    &reply["result"]["structuredContent"]
}

#[tokio::test]
async fn garbage_on_stdin_and_replies_to_unknown_ids_leave_the_server_serving() {
    let mut raw = Raw::start("5000").await;
    for line in [
        "garbage",
        "{not json",
        "[]",
        "{}",
        r#"{"jsonrpc":"2.0","id":777,"result":{"action":"accept","content":{"goal":"x"}}}"#,
        r#"{"jsonrpc":"2.0","id":778,"error":{"code":-1,"message":"x"}}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"no/such/method"}"#,
        "\u{0}\u{1}\u{2}",
    ] {
        raw.send_line(line).await;
    }
    let reply = raw.accepted_call(1, "still here").await;
    assert_eq!(
        structured(&reply),
        &json!({"action": "accept", "content": {"goal": "still here"}})
    );
}

#[tokio::test]
async fn a_host_answering_twice_is_heard_once() {
    let mut raw = Raw::start("5000").await;
    raw.call(1, "Tell me").await;
    let request = raw.recv_request().await;
    for goal in ["first", "second"] {
        raw.send(&json!({"jsonrpc": "2.0", "id": request["id"],
            "result": {"action": "accept", "content": {"goal": goal}}}))
            .await;
    }
    let reply = raw.recv_reply(&json!(1)).await;
    assert_eq!(
        structured(&reply),
        &json!({"action": "accept", "content": {"goal": "first"}})
    );
    let reply = raw.accepted_call(2, "next").await;
    assert_eq!(structured(&reply)["content"]["goal"], "next");
}

#[tokio::test]
async fn v3_a_host_answer_of_10_mb_is_an_invalid_response_and_the_server_keeps_serving() {
    let mut raw = Raw::start("5000").await;
    raw.call(1, "Tell me").await;
    let request = raw.recv_request().await;
    let huge = "x".repeat(10 * 1024 * 1024);
    raw.send(&json!({"jsonrpc": "2.0", "id": request["id"],
        "result": {"action": "accept", "content": {"goal": huge}}}))
        .await;
    let reply = raw.recv_reply(&json!(1)).await;
    assert_eq!(reply["result"]["isError"], true);
    assert_eq!(structured(&reply)["error"]["code"], "invalid_response");
    let message = structured(&reply)["error"]["message"].as_str().unwrap();
    assert!(message.contains("(V3)"), "{message}");
    assert!(
        message.len() < 1_000,
        "the message does not echo the answer"
    );
    let reply = raw.accepted_call(2, "next").await;
    assert_eq!(structured(&reply)["content"]["goal"], "next");
}

#[tokio::test]
async fn a_host_that_disconnects_mid_call_stops_the_server_cleanly() {
    let mut raw = Raw::start("5000").await;
    raw.call(1, "Tell me").await;
    let _ = raw.recv_request().await;
    drop(raw.stdin.take());
    let status = tokio::time::timeout(Duration::from_secs(10), raw.child.wait())
        .await
        .unwrap()
        .unwrap();
    let mut stderr = String::new();
    use tokio::io::AsyncReadExt;
    raw.child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .await
        .unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(status.code().is_some(), "killed by a signal: {status}");
}

#[test]
fn an_invalid_timeout_stops_the_server_at_start() {
    for value in ["0", "1500001", "abc", "", "15m"] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_forms-mcp"))
            .env("DATA_FORMS_TIMEOUT_MS", value)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(!output.status.success(), "{value:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("DATA_FORMS_TIMEOUT_MS"), "{stderr}");
        assert!(stderr.contains("from 1 to 1500000"), "{stderr}");
    }
}

#[test]
fn help_documents_both_transports_and_the_environment() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_forms-mcp"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(output.status.success());
    let help = String::from_utf8_lossy(&output.stdout);
    for needle in [
        "stdio",
        "--http",
        "/mcp",
        "DATA_FORMS_TIMEOUT_MS",
        "1500000",
    ] {
        assert!(help.contains(needle), "{needle}: {help}");
    }
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_forms-mcp"))
        .arg("--bogus")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}
