//! Request states (protocol 2026-07-28) are single use across replicas and restarts: real
//! `forms-mcp --http` processes sharing one `FORMS_STATE_KEY` and one used-state store (a
//! PostgreSQL database, or a SQLite file given to `--state-store` or `--asks`). A state
//! answered on one replica is refused on another, and by the same server after a restart;
//! of two replicas redeeming one state at once, exactly one accepts it. Without a store the
//! set of used states lives in one process, which the first test shows.
//!
//! PostgreSQL comes from `FORMS_ASK_PG_URL` (`.ci/pg-start` starts one); without it the
//! PostgreSQL tests fail under `CI=true` and say so loudly otherwise.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod common;

use common::*;
use serde_json::{json, Value};

const KEY: &str = "8f3a9c21d4e5b6a7980f1e2d3c4b5a69788796a5b4c3d2e1f0a1b2c3d4e5f607";

use forms_test_kit::{pg_url, TempDir};

/// A `forms-mcp --http` replica with the shared key and `args` (the store).
async fn replica(args: &[&str]) -> HttpServer {
    start_http_with(60_000, args, &[("FORMS_STATE_KEY", KEY)]).await
}

/// One hand-written 2026-07-28 `tools/call` of the Data tool; returns the JSON-RPC result.
async fn call(server: &HttpServer, state: Option<&str>, answer: Option<Value>) -> Value {
    let body = modern_report_call(state, answer);
    let response = reqwest::Client::new()
        .post(&server.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "form_elicitation_v2_request")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert!(response.status().is_success(), "{}", response.status());
    let text = response.text().await.unwrap();
    let message = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
        .find(|m| m.get("id").is_some())
        .or_else(|| serde_json::from_str(text.trim()).ok())
        .unwrap_or_else(|| panic!("no JSON-RPC message in {text:?}"));
    message["result"].clone()
}

fn accept() -> Value {
    json!({"action": "accept", "content": {"format": "pdf"}})
}

/// A fresh state from `server`.
async fn state_from(server: &HttpServer) -> String {
    let result = call(server, None, None).await;
    assert_eq!(result["resultType"], "input_required", "{result}");
    result["requestState"].as_str().unwrap().to_owned()
}

/// Answers `state` on `server`: `Ok(())` if accepted, else the error code and message.
async fn answer(server: &HttpServer, state: &str) -> Result<(), (String, String)> {
    let result = call(server, Some(state), Some(accept())).await;
    let payload = &result["structuredContent"];
    if *payload == accept() {
        return Ok(());
    }
    let code = payload["error"]["code"].as_str();
    let message = payload["error"]["message"].as_str();
    match (code, message) {
        (Some(code), Some(message)) => Err((code.to_owned(), message.to_owned())),
        _ => panic!("neither the answer nor an error: {result}"),
    }
}

/// The refusal of a replayed state, as one process refuses it today.
fn assert_replay_refused(outcome: Result<(), (String, String)>, what: &str) {
    let (code, message) = outcome.expect_err(what);
    assert_eq!(code, "invalid_response", "{what}: {message}");
    assert!(message.contains("already answered"), "{what}: {message}");
}

/// Replica A issues and accepts a state; replica B refuses the replay; A refuses it too.
async fn replay_on_the_other_replica(store: &[&str]) {
    let a = replica(store).await;
    let b = replica(store).await;
    let state = state_from(&a).await;
    answer(&a, &state).await.unwrap();
    assert_replay_refused(answer(&b, &state).await, "replayed on replica B");
    assert_replay_refused(answer(&a, &state).await, "replayed on replica A");
    // A state issued by A and answered first on B is accepted there once.
    let state = state_from(&a).await;
    answer(&b, &state).await.unwrap();
    assert_replay_refused(answer(&a, &state).await, "answered on B, replayed on A");
}

/// A state answered, then the server restarted: the new process refuses the replay.
async fn replay_after_a_restart(store: &[&str]) {
    let mut first = replica(store).await;
    let state = state_from(&first).await;
    answer(&first, &state).await.unwrap();
    let unanswered = state_from(&first).await;
    first.child.kill().await.unwrap();
    let second = replica(store).await;
    assert_replay_refused(answer(&second, &state).await, "replayed after a restart");
    // A state issued before the restart and never answered still works, once.
    answer(&second, &unanswered).await.unwrap();
    assert_replay_refused(answer(&second, &unanswered).await, "answered twice");
}

/// Two replicas redeem one state at the same moment, many times: exactly one accepts.
async fn race(store: &[&str]) {
    let a = replica(store).await;
    let b = replica(store).await;
    for round in 0..20 {
        let state = state_from(if round % 2 == 0 { &a } else { &b }).await;
        let (on_a, on_b) = tokio::join!(answer(&a, &state), answer(&b, &state));
        let accepted = [&on_a, &on_b].iter().filter(|o| o.is_ok()).count();
        assert_eq!(accepted, 1, "round {round}: {on_a:?} {on_b:?}");
        let refused = if on_a.is_ok() { on_b } else { on_a };
        assert_replay_refused(refused, "the loser of the race");
    }
}

#[tokio::test]
async fn replicas_without_a_store_a_state_is_single_use_in_one_process_only() {
    // Today's default, kept: the used-state set lives in memory.
    let a = replica(&[]).await;
    let b = replica(&[]).await;
    let state = state_from(&a).await;
    answer(&a, &state).await.unwrap();
    assert_replay_refused(answer(&a, &state).await, "replayed on the same process");
    answer(&b, &state).await.unwrap();
}

#[tokio::test]
async fn replicas_postgres_a_replay_on_the_other_replica_is_refused() {
    let Some(url) = pg_url() else { return };
    replay_on_the_other_replica(&["--state-store", &url]).await;
}

#[tokio::test]
async fn replicas_postgres_a_replay_after_a_restart_is_refused() {
    let Some(url) = pg_url() else { return };
    replay_after_a_restart(&["--state-store", &url]).await;
}

#[tokio::test]
async fn replicas_postgres_racing_replicas_accept_a_state_once() {
    let Some(url) = pg_url() else { return };
    race(&["--state-store", &url]).await;
}

#[tokio::test]
async fn replicas_sqlite_a_replay_on_the_other_replica_is_refused() {
    let dir = TempDir::new("replicas");
    let db = dir.0.join("states.db").display().to_string();
    replay_on_the_other_replica(&["--state-store", &db]).await;
}

#[tokio::test]
async fn replicas_sqlite_a_replay_after_a_restart_is_refused() {
    let dir = TempDir::new("replicas");
    let db = dir.0.join("states.db").display().to_string();
    replay_after_a_restart(&["--state-store", &db]).await;
}

#[tokio::test]
async fn replicas_sqlite_racing_replicas_accept_a_state_once() {
    let dir = TempDir::new("replicas");
    let db = dir.0.join("states.db").display().to_string();
    race(&["--state-store", &db]).await;
}

#[tokio::test]
async fn replicas_the_asks_store_keeps_used_states() {
    // `--asks DB` alone: its store keeps the used states.
    let dir = TempDir::new("replicas");
    let db = dir.0.join("asks.db").display().to_string();
    let store = [
        "--asks",
        db.as_str(),
        "--principal-token",
        "ana=ana-token-0123456789",
    ];
    replay_after_a_restart(&store).await;
    if let Some(url) = pg_url() {
        let store = [
            "--asks",
            url.as_str(),
            "--principal-token",
            "ana=ana-token-0123456789",
        ];
        replay_on_the_other_replica(&store).await;
    }
}

#[tokio::test]
async fn replicas_an_unusable_state_store_stops_the_server_at_start() {
    let dir = TempDir::new("replicas");
    let foreign = dir.0.join("other.txt");
    std::fs::write(&foreign, "not a database").unwrap();
    let output = server_command(5_000)
        .args(["--http", "127.0.0.1:0", "--state-store"])
        .arg(&foreign)
        .stderr(std::process::Stdio::piped())
        .output()
        .await
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--state-store") && stderr.contains("not a SQLite database"),
        "{stderr}"
    );
}
