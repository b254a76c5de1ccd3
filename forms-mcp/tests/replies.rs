//! The requested-reply tools end to end: real `forms-mcp --asks DB` processes on one SQLite
//! file (and on PostgreSQL when `FORMS_ASK_PG_URL` is set; without it those cases say loudly
//! that they were skipped, and with `CI=true` they fail), driven by an rmcp client over stdio
//! and over HTTP. The principal comes from the session: one per stdio process, one per
//! bearer token over HTTP; never from the arguments.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod common;

use common::*;
use forms_ask::{Asks, ConversationId, Principal};
use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest, ServerResult};
use rmcp::service::PeerRequestOptions;
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use tokio::sync::oneshot::error::TryRecvError;

fn open_args(chat: &Chat, key: &str) -> Value {
    json!({"conversation": chat.conversation, "kind": "approval",
           "body": "Deploy 1.4 to staging?", "key": key})
}

/// Rule 1 across processes: an approval opened by one server process is answered from a
/// second process acting as another principal; a third, late, gets a conflict carrying the
/// winner's state; a waiter in the first process is woken by the response.
async fn respond_across_processes(db: String) {
    let chat = Chat::new(db);
    let agent = chat.stdio_as(&chat.agent).await;
    let ana = chat.stdio_as(&chat.ana).await;
    let bob = chat.stdio_as(&chat.bob).await;

    let r = call_ask(&agent, "ask_open", open_args(&chat, "open-1")).await;
    assert_eq!(code(&r), None, "{r}");
    assert_eq!(r["requester"], chat.agent.as_str(), "{r}");
    assert_eq!(r["state"], "open");
    assert_eq!(r["version"], 1);
    assert_eq!(r["deadline"], Value::Null);
    let id = r["id"].as_str().unwrap().to_owned();
    let mut audience: Vec<&str> = r["audience"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    audience.sort_unstable();
    assert_eq!(audience, [chat.ana.as_str(), chat.bob.as_str()]);
    // A retry with the same key replays the first result.
    assert_eq!(
        call_ask(&agent, "ask_open", open_args(&chat, "open-1")).await,
        r
    );

    // The requester waits in its own process; the response comes from another.
    let waiting = spawn_ask_wait(agent.peer().clone(), id.clone());
    tokio::time::sleep(Duration::from_millis(300)).await;
    let won = call_ask(
        &ana,
        "ask_respond",
        json!({"id": id, "version": 1, "outcome": "approved", "key": "answer-ana"}),
    )
    .await;
    assert_eq!(code(&won), None, "{won}");
    assert_eq!(won["state"], "resolved");
    assert_eq!(won["outcome"], "approved");
    assert_eq!(won["responder"], chat.ana.as_str());
    assert_eq!(won["version"], 2);

    assert_woken(waiting, &won, "the waiter sees the response").await;

    // The late third responder: a conflict carrying the winner's state.
    let late = call_ask(
        &bob,
        "ask_respond",
        json!({"id": id, "version": 1, "outcome": "denied", "key": "answer-bob"}),
    )
    .await;
    assert_eq!(code(&late), Some("conflict"), "{late}");
    assert_eq!(late["error"]["latest"], won);
    // Nothing was overwritten.
    assert_eq!(call_ask(&bob, "ask_show", json!({"id": id})).await, won);
    let log = call_ask(&agent, "ask_log", json!({"id": id})).await;
    let events: Vec<(&str, &str)> = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["event"].as_str().unwrap(), e["actor"].as_str().unwrap()))
        .collect();
    assert_eq!(
        events,
        [
            ("opened", chat.agent.as_str()),
            ("responded", chat.ana.as_str())
        ]
    );
    cancel_all([agent, ana, bob]).await;
}

on_both_stores!(respond_across_processes => r1_respond_sqlite_second_process_wins_third_gets_conflict_with_winner_state, r1_respond_postgres_second_process_wins_third_gets_conflict_with_winner_state);

#[tokio::test]
async fn the_principal_is_never_an_argument_every_schema_is_closed() {
    let dir = TempDir::new("mcp-asks");
    let chat = Chat::new(dir.db());
    let agent = chat.stdio_as(&chat.agent).await;
    let tools = agent.list_all_tools().await.unwrap();
    // rmcp's router lists its tools by name.
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "ask_cancel",
            "ask_join",
            "ask_list",
            "ask_log",
            "ask_members",
            "ask_message",
            "ask_open",
            "ask_redeem",
            "ask_remove",
            "ask_replace",
            "ask_report",
            "ask_respond",
            "ask_restore",
            "ask_revoke",
            "ask_show",
            "ask_supersede",
            "ask_wait",
            "form_elicitation_v2_request",
        ]
    );
    for tool in tools.iter().filter(|t| t.name.starts_with("ask_")) {
        let schema = Value::Object((*tool.input_schema).clone());
        assert_eq!(schema["type"], "object", "{}", tool.name);
        assert_eq!(schema["additionalProperties"], false, "{}", tool.name);
        for name in ["principal", "as", "actor", "requester", "responder"] {
            assert!(
                schema["properties"].get(name).is_none(),
                "{} names {name}",
                tool.name
            );
        }
    }
    let r = call_ask(&agent, "ask_open", open_args(&chat, "o1")).await;
    let id = r["id"].as_str().unwrap().to_owned();
    // The requester tries to answer its own approval by naming another principal.
    for (field, value) in [
        ("principal", json!(chat.ana)),
        ("as", json!(chat.ana)),
        ("responder", json!(chat.ana)),
    ] {
        let mut arguments = json!({"id": id, "version": 1, "outcome": "approved", "key": "a1"});
        arguments[field] = value;
        let refused = call_ask(&agent, "ask_respond", arguments).await;
        assert_eq!(code(&refused), Some("invalid_arguments"), "{refused}");
        let message = refused["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("unknown field") && message.contains(field),
            "{message}"
        );
    }
    let mut arguments = open_args(&chat, "o2");
    arguments["requester"] = json!(chat.ana);
    let refused = call_ask(&agent, "ask_open", arguments).await;
    assert_eq!(code(&refused), Some("invalid_arguments"), "{refused}");
    // Nothing changed, and without the argument the requester is still not eligible.
    assert_eq!(call_ask(&agent, "ask_show", json!({"id": id})).await, r);
    let own = call_ask(
        &agent,
        "ask_respond",
        json!({"id": id, "version": 1, "outcome": "approved", "key": "a2"}),
    )
    .await;
    assert_eq!(code(&own), Some("not_eligible"), "{own}");
    agent.cancel().await.unwrap();
}

#[tokio::test]
async fn r4_r5_r6_r7_cancel_replace_supersede_redeem_report_and_log_over_stdio() {
    let dir = TempDir::new("mcp-asks");
    let chat = Chat::new(dir.db());
    let agent = chat.stdio_as(&chat.agent).await;
    let ana = chat.stdio_as(&chat.ana).await;

    // Cancel: only the requester, with the current version.
    let r = call_ask(&agent, "ask_open", open_args(&chat, "o1")).await;
    let id = r["id"].as_str().unwrap().to_owned();
    let no = call_ask(
        &ana,
        "ask_cancel",
        json!({"id": id, "version": 1, "key": "c1"}),
    )
    .await;
    assert_eq!(code(&no), Some("not_requester"), "{no}");
    let stale = call_ask(
        &agent,
        "ask_cancel",
        json!({"id": id, "version": 7, "key": "c1"}),
    )
    .await;
    assert_eq!(code(&stale), Some("conflict"), "{stale}");
    assert_eq!(stale["error"]["latest"], r);
    let cancelled = call_ask(
        &agent,
        "ask_cancel",
        json!({"id": id, "version": 1, "key": "c2"}),
    )
    .await;
    assert_eq!(cancelled["state"], "cancelled", "{cancelled}");

    // Replace: {previous, replacement}; the same key replays the same pair.
    let r = call_ask(&agent, "ask_open", open_args(&chat, "o2")).await;
    let id = r["id"].as_str().unwrap().to_owned();
    let replace = json!({"id": id, "version": 1, "body": "Deploy 1.5 to staging?", "key": "r1"});
    let pair = call_ask(&agent, "ask_replace", replace.clone()).await;
    assert_eq!(pair["previous"]["state"], "superseded", "{pair}");
    assert_eq!(pair["replacement"]["state"], "open");
    assert_eq!(pair["replacement"]["replaces"], id.as_str());
    assert_eq!(pair["replacement"]["body"], "Deploy 1.5 to staging?");
    assert_eq!(call_ask(&agent, "ask_replace", replace).await, pair);
    let new_id = pair["replacement"]["id"].as_str().unwrap().to_owned();
    // A response to the superseded request is a conflict.
    let late = call_ask(
        &ana,
        "ask_respond",
        json!({"id": id, "version": 1, "outcome": "approved", "key": "x1"}),
    )
    .await;
    assert_eq!(code(&late), Some("conflict"), "{late}");
    let superseded = call_ask(
        &agent,
        "ask_supersede",
        json!({"id": new_id, "version": 1, "key": "s1"}),
    )
    .await;
    assert_eq!(superseded["state"], "superseded", "{superseded}");

    // A bound action: approved, redeemed once, its execution reported.
    let action = json!({"executor": chat.agent, "resource_version": "v7",
                        "arguments": {"env": "staging"}, "operation_key": "op-1"});
    let mut open = open_args(&chat, "o3");
    open["action"] = action.clone();
    let r = call_ask(&agent, "ask_open", open).await;
    assert!(r["deadline"].is_string(), "{r}");
    let id = r["id"].as_str().unwrap().to_owned();
    call_ask(
        &ana,
        "ask_respond",
        json!({"id": id, "version": 1, "outcome": "approved", "key": "a3"}),
    )
    .await;
    let mut other = action.clone();
    other["resource_version"] = json!("v8");
    let refused = call_ask(
        &agent,
        "ask_redeem",
        json!({"id": id, "action": other, "key": "rd1"}),
    )
    .await;
    assert_eq!(code(&refused), Some("action_refused"), "{refused}");
    let redeemed = call_ask(
        &agent,
        "ask_redeem",
        json!({"id": id, "action": action, "key": "rd2"}),
    )
    .await;
    assert_eq!(
        redeemed["redemption"]["by"],
        chat.agent.as_str(),
        "{redeemed}"
    );
    let again = call_ask(
        &agent,
        "ask_redeem",
        json!({"id": id, "action": action, "key": "rd3"}),
    )
    .await;
    assert_eq!(code(&again), Some("action_refused"), "{again}");
    let unknown = call_ask(
        &agent,
        "ask_report",
        json!({"id": id, "operation_key": "op-1", "status": "unknown", "key": "rp1"}),
    )
    .await;
    assert_eq!(unknown["execution"]["status"], "unknown", "{unknown}");
    let done = call_ask(
        &agent,
        "ask_report",
        json!({"id": id, "operation_key": "op-1", "status": "succeeded",
               "detail": "job 81", "key": "rp2"}),
    )
    .await;
    assert_eq!(done["execution"]["status"], "succeeded", "{done}");
    let msg = call_ask(
        &ana,
        "ask_message",
        json!({"id": id, "text": "Thanks", "key": "m1"}),
    )
    .await;
    assert_eq!(msg["event"], "message", "{msg}");
    let log = call_ask(&ana, "ask_log", json!({"id": id})).await;
    let events: Vec<&str> = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(
        events,
        [
            "opened",
            "responded",
            "redeemed",
            "execution_reported",
            "execution_reported",
            "message"
        ]
    );
    // A wait with a timeout on an open request only stops waiting.
    let r = call_ask(&agent, "ask_open", open_args(&chat, "o4")).await;
    let start = Instant::now();
    let still = call_ask(
        &agent,
        "ask_wait",
        json!({"id": r["id"], "timeout_seconds": 0.3}),
    )
    .await;
    assert!(start.elapsed() >= Duration::from_millis(300));
    assert_eq!(still, r);
    let bad = call_ask(
        &agent,
        "ask_wait",
        json!({"id": r["id"], "timeout_seconds": 10_000}),
    )
    .await;
    assert_eq!(code(&bad), Some("invalid_arguments"), "{bad}");
    cancel_all([agent, ana]).await;
}

#[tokio::test]
async fn http_two_bearer_tokens_act_as_two_principals_and_no_token_is_refused() {
    let dir = TempDir::new("mcp-asks");
    let chat = Chat::new(dir.db());
    let agent_token = format!("tok-agent-{}", tag());
    let ana_token = format!("tok-ana-{}", tag());
    // One token on the command line, the other in the environment.
    let server = start_http_with(
        5_000,
        &[
            "--asks",
            &chat.db,
            "--principal-token",
            &format!("{}={agent_token}", chat.agent),
        ],
        &[(
            "FORMS_ASK_PRINCIPAL_TOKENS",
            &format!("{}={ana_token}", chat.ana),
        )],
    )
    .await;
    let host = || Host::answering(json!({"action": "decline"}));
    let agent = connect_http_as(host(), &server, Some(&agent_token)).await;
    let ana = connect_http_as(host(), &server, Some(&ana_token)).await;
    let nobody = connect_http(host(), &server).await;
    let stranger = connect_http_as(host(), &server, Some("tok-unknown")).await;

    let r = call_ask(&agent, "ask_open", open_args(&chat, "o1")).await;
    assert_eq!(r["requester"], chat.agent.as_str(), "{r}");
    let id = r["id"].as_str().unwrap().to_owned();
    for client in [&nobody, &stranger] {
        for (tool, arguments) in [
            ("ask_show", json!({"id": id})),
            (
                "ask_respond",
                json!({"id": id, "version": 1, "outcome": "denied", "key": "n1"}),
            ),
            ("ask_open", open_args(&chat, "n2")),
        ] {
            let refused = call_ask(client, tool, arguments).await;
            assert_eq!(code(&refused), Some("unauthenticated"), "{tool}: {refused}");
        }
    }
    // The requester's token cannot answer; the other token can.
    let own = call_ask(
        &agent,
        "ask_respond",
        json!({"id": id, "version": 1, "outcome": "approved", "key": "a1"}),
    )
    .await;
    assert_eq!(code(&own), Some("not_eligible"), "{own}");
    let won = call_ask(
        &ana,
        "ask_respond",
        json!({"id": id, "version": 1, "outcome": "approved", "key": "a1"}),
    )
    .await;
    assert_eq!(won["responder"], chat.ana.as_str(), "{won}");
    assert_eq!(won["state"], "resolved");
    assert_eq!(call_ask(&agent, "ask_show", json!({"id": id})).await, won);
    cancel_all([agent, ana, nobody, stranger]).await;
}

#[tokio::test]
async fn asks_options_are_checked_at_start() {
    let dir = TempDir::new("mcp-asks");
    let db = dir.db();
    let cases: [&[&str]; 5] = [
        &["--asks", &db],
        &["--principal", "ana"],
        &["--http", "127.0.0.1:0", "--asks", &db],
        &["--http", "127.0.0.1:0", "--asks", &db, "--principal", "ana"],
        &[
            "--asks",
            &db,
            "--principal",
            "ana",
            "--principal-token",
            "x",
        ],
    ];
    for args in cases {
        let out = server_command(5_000)
            .args(args)
            .env_remove("FORMS_ASK_PRINCIPAL")
            .env_remove("FORMS_ASK_PRINCIPAL_TOKENS")
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .output()
            .await
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.starts_with("forms-mcp: "), "{args:?}: {stderr}");
    }
    // A damaged database is refused at start.
    let bad = dir.0.join("notes.db");
    std::fs::write(&bad, "not a database\n".repeat(300)).unwrap();
    let out = server_command(5_000)
        .args(["--asks", bad.to_str().unwrap(), "--principal", "ana"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("notes.db"), "{stderr}");
}

#[tokio::test]
async fn the_tools_work_the_same_on_protocol_2026_07_28() {
    let dir = TempDir::new("mcp-asks");
    let chat = Chat::new(dir.db());
    let modern = || Host::answering(json!({"action": "decline"})).modern();
    let agent = chat.stdio_host(modern(), &chat.agent).await;
    let ana = chat.stdio_host(modern(), &chat.ana).await;
    let r = call_ask(&agent, "ask_open", open_args(&chat, "o1")).await;
    assert_eq!(r["state"], "open", "{r}");
    let won = call_ask(
        &ana,
        "ask_respond",
        json!({"id": r["id"], "version": 1, "outcome": "denied", "key": "a1"}),
    )
    .await;
    assert_eq!(won["outcome"], "denied", "{won}");
    assert_eq!(won["responder"], chat.ana.as_str());
    cancel_all([agent, ana]).await;
}

/// A cancelled `ask_wait` gives its wait back at once: with every wait the engine allows
/// a principal held, one more is refused; once the held calls are cancelled, the next wait
/// runs, long before the held ones would have timed out.
#[tokio::test]
async fn a_cancelled_ask_wait_releases_its_wait() {
    let dir = TempDir::new("mcp-asks");
    let chat = Chat::new(dir.db());
    let agent = chat.stdio_as(&chat.agent).await;
    let r = call_ask(&agent, "ask_open", open_args(&chat, "o1")).await;
    let id = r["id"].as_str().unwrap().to_owned();
    let wait = |timeout: u64| {
        let arguments = json!({"id": id, "timeout_seconds": timeout});
        ClientRequest::CallToolRequest(CallToolRequest::new(
            CallToolRequestParams::new("ask_wait")
                .with_arguments(arguments.as_object().unwrap().clone()),
        ))
    };
    let try_wait = || async {
        let ServerResult::CallToolResult(result) = agent.send_request(wait(0)).await.unwrap()
        else {
            panic!("not a complete tool result")
        };
        serde_json::to_value(&result).unwrap()["structuredContent"].clone()
    };
    let hold = || async {
        agent
            .send_cancellable_request(wait(900), PeerRequestOptions::no_options())
            .await
            .unwrap()
    };
    let mut held = Vec::new();
    for _ in 0..forms_ask::WAITS_PER_PRINCIPAL {
        held.push(hold().await);
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let refused = try_wait().await;
        if refused["error"]["code"] == "too_many_waits" {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the held waits never filled: {refused}"
        );
        // A probe the server took before every held wait was registered used a slot for a
        // moment, and a held wait arriving then was refused: send that one again.
        for handle in held.iter_mut() {
            if !matches!(handle.rx.try_recv(), Err(TryRecvError::Empty)) {
                *handle = hold().await;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for handle in held {
        handle.cancel(Some("closed".into())).await.unwrap();
    }
    loop {
        let seen = try_wait().await;
        if seen["id"] == id.as_str() {
            assert_eq!(seen["state"], "open", "{seen}");
            break;
        }
        assert_eq!(seen["error"]["code"], "too_many_waits", "{seen}");
        assert!(
            Instant::now() < deadline,
            "cancelled waits were kept: {seen}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    agent.cancel().await.unwrap();
}

// ------------------------------------------------------------ one surface with the CLI

/// The shared description's schemas, `ask_list`, the membership tools (managers only, each
/// change in the log) and an expiry with an offset, through real `forms-mcp` processes.
async fn one_surface(db: String) {
    let chat = Chat::new(db.clone());
    let t = tag();
    let (mgr, eve) = (format!("mgr-{t}"), format!("eve-{t}"));
    {
        let (db, conversation, mgr) = (db.clone(), chat.conversation.clone(), mgr.clone());
        std::thread::spawn(move || {
            let asks = Asks::open_location(&db).unwrap();
            asks.join_as_manager(
                &ConversationId::new(conversation).unwrap(),
                &Principal::new(mgr).unwrap(),
            )
            .unwrap();
        })
        .join()
        .unwrap();
    }
    let agent = chat.stdio_as(&chat.agent).await;
    let ana = chat.stdio_as(&chat.ana).await;
    let manager = chat.stdio_as(&mgr).await;

    // The schemas carry the library's limits.
    let tools = agent.list_all_tools().await.unwrap();
    let schema = |name: &str| {
        let tool = tools.iter().find(|t| t.name == name).unwrap();
        Value::Object((*tool.input_schema).clone())
    };
    assert_eq!(
        schema("ask_open")["properties"]["body"]["maxLength"],
        forms_ask::BODY_CHARS_MAX
    );
    assert_eq!(
        schema("ask_open")["properties"]["expires_at"]["format"],
        "date-time"
    );
    assert_eq!(
        schema("ask_wait")["properties"]["timeout_seconds"]["maximum"],
        forms_ask::WAIT_SECONDS_MAX
    );
    assert_eq!(
        schema("ask_join")["required"],
        json!(["conversation", "principals"])
    );

    // An expiry with an offset is the same instant as its UTC form.
    let mut arguments = open_args(&chat, "x1");
    arguments["expires_at"] = json!("2099-01-01T02:00:00+02:00");
    let far = call_ask(&agent, "ask_open", arguments).await;
    assert_eq!(code(&far), Some("invalid_input"), "{far}"); // more than 90 days ahead: read, then judged
    let soon = forms_ask::Timestamp::from_millis(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64
            + 86_400_000,
    );
    let utc = forms_ask::Timestamp::from_millis(soon.millis() / 1000 * 1000).to_string();
    let (date, time) = utc.trim_end_matches('Z').split_once('T').unwrap();
    let (h, rest) = time.split_once(':').unwrap();
    let h: i64 = h.parse().unwrap();
    let local = if h >= 1 {
        format!("{date}T{:02}:{rest}-01:00", h - 1)
    } else {
        format!("{date}T{:02}:{rest}+01:00", h + 1)
    };
    let utc_ms = forms_ask::Timestamp::parse(&local).unwrap().millis();
    assert!((utc_ms - soon.millis()).abs() < 3_700_000);
    let mut arguments = open_args(&chat, "x2");
    arguments["expires_at"] = json!(local);
    let dated = call_ask(&agent, "ask_open", arguments).await;
    assert_eq!(
        dated["deadline"],
        json!(forms_ask::Timestamp::from_millis(utc_ms).to_string()),
        "{dated}"
    );

    // ask_list: the caller's requests, open ones first.
    let first = call_ask(&agent, "ask_open", open_args(&chat, "l1")).await;
    call_ask(
        &ana,
        "ask_respond",
        json!({"id": first["id"], "version": 1, "outcome": "approved", "key": "r1"}),
    )
    .await;
    let listed = call_ask(&ana, "ask_list", json!({"conversation": chat.conversation})).await;
    let states: Vec<&str> = listed["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["open", "resolved"], "{listed}");
    assert_eq!(listed["requests"][1]["id"], first["id"]);
    let limited = call_ask(
        &ana,
        "ask_list",
        json!({"conversation": chat.conversation, "limit": 1}),
    )
    .await;
    assert_eq!(limited["requests"].as_array().unwrap().len(), 1);
    let over = call_ask(
        &ana,
        "ask_list",
        json!({"conversation": chat.conversation, "limit": forms_ask::LIST_MAX + 1}),
    )
    .await;
    assert_eq!(code(&over), Some("invalid_arguments"), "{over}");

    // Membership: refused to members who do not manage, done by the manager and logged.
    for tool in ["ask_join", "ask_remove", "ask_revoke", "ask_restore"] {
        let refused = call_ask(
            &ana,
            tool,
            json!({"conversation": chat.conversation, "principals": [chat.bob]}),
        )
        .await;
        assert_eq!(code(&refused), Some("not_manager"), "{tool}: {refused}");
    }
    let both = |tool: &'static str, who: &str| {
        (
            tool,
            json!({"conversation": chat.conversation, "principals": [who]}),
        )
    };
    for (tool, arguments) in [
        both("ask_join", &eve),
        both("ask_revoke", &chat.bob),
        both("ask_restore", &chat.bob),
        both("ask_remove", &eve),
    ] {
        let done = call_ask(&manager, tool, arguments).await;
        assert!(done.get("error").is_none(), "{tool}: {done}");
    }
    let log = call_ask(
        &ana,
        "ask_members",
        json!({"conversation": chat.conversation}),
    )
    .await;
    let events: Vec<(String, String, Value)> = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["principal"].as_str().unwrap().to_owned(),
                e["event"].as_str().unwrap().to_owned(),
                e["actor"].clone(),
            )
        })
        .collect();
    let m = json!(mgr);
    assert_eq!(
        events[3..],
        [
            (mgr.clone(), "joined_as_manager".to_owned(), Value::Null),
            (eve.clone(), "joined".to_owned(), m.clone()),
            (chat.bob.clone(), "contact_revoked".to_owned(), m.clone()),
            (chat.bob.clone(), "contact_restored".to_owned(), m.clone()),
            (eve.clone(), "removed".to_owned(), m),
        ],
        "{log}"
    );
    // A manager names no managers over MCP: there is no such argument.
    let refused = call_ask(
        &manager,
        "ask_join",
        json!({"conversation": chat.conversation, "principals": [eve], "role": "manager"}),
    )
    .await;
    assert_eq!(code(&refused), Some("invalid_arguments"), "{refused}");
    cancel_all([agent, ana, manager]).await;
}

on_both_stores!(one_surface => one_surface_sqlite, one_surface_postgres);
