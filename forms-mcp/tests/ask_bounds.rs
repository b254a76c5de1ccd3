//! What one `ask_*` call may cost, whatever the store holds: a real `forms-mcp --http
//! --asks DB` process over a conversation holding 150 form requests of about 1 MiB each
//! (SQLite, and PostgreSQL when `FORMS_ASK_PG_URL` is set), listed by eight concurrent
//! callers, members and a token holder who is not one, while another principal reads a
//! request. A list reads only the entries it returns (never a form or a response), a caller
//! with nothing to see is refused before any read, and a log is read a page at a time.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::*;
use forms_ask::{Asks, ConversationId, NewRequest, Principal, Quotas};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// How many form requests the conversation holds.
const STORED: usize = 150;

/// One question of the large form: 24 options with long titles and descriptions (choice
/// questions) or long URIs (resource questions).
fn question(q: usize) -> Value {
    let options: Vec<Value> = (0..24)
        .map(|i| {
            if q.is_multiple_of(2) {
                json!({
                    "id": format!("q{q}_option_{i}"),
                    "title": format!("Option {i} {}", "t".repeat(440)),
                    "description": "d".repeat(1_000),
                })
            } else {
                json!({
                    "uri": format!("https://docs.example.com/q{q}/{i}/{}", "p".repeat(4_500)),
                    "name": format!("template-{q}-{i}"),
                    "title": format!("Template {i}"),
                    "description": "d".repeat(1_000),
                })
            }
        })
        .collect();
    let kind = if q.is_multiple_of(2) {
        "single_select"
    } else {
        "resource"
    };
    json!({
        "id": format!("question_{q}"),
        "type": kind,
        "title": format!("Question {q}"),
        "required": false,
        "options": options,
    })
}

/// A valid form of just under 1 MiB.
fn large_form() -> Value {
    json!({
        "message": "Set up your weekly report",
        "questions": (0..12).map(question).collect::<Vec<_>>(),
    })
}

/// The server's resident and peak memory in KiB.
fn memory_kib(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let field = |name: &str| -> u64 {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap()
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// Stores `copies` copies of request `id` (document, list columns and names), each under
/// the ID `{id}-{n}`.
fn copy_request(db: &str, id: &str, copies: usize) {
    let copies = i64::try_from(copies).unwrap();
    let names = "INSERT INTO request_names (conversation, principal, request_id)
        SELECT m.conversation, m.principal, m.request_id || '-' || n
        FROM request_names m, numbers WHERE m.request_id = $1";
    if db.starts_with("postgres") {
        let requests = "INSERT INTO requests (id, conversation, version, state, doc, brief,
                            has_form, response_action, updated_at, expires_at, requester)
            SELECT r.id || '-' || n, r.conversation, r.version, r.state,
                   replace(r.doc, r.id, r.id || '-' || n),
                   replace(r.brief, r.id, r.id || '-' || n),
                   r.has_form, r.response_action, r.updated_at, r.expires_at, r.requester
            FROM requests r, numbers WHERE r.id = $1";
        let mut c = postgres::Client::connect(db, postgres::NoTls).unwrap();
        for sql in [requests, names] {
            let sql = format!("WITH numbers AS (SELECT generate_series(1, $2::bigint) AS n) {sql}");
            c.execute(&sql, &[&id, &copies]).unwrap();
        }
    } else {
        let requests = "INSERT INTO requests (id, conversation, version, state, doc)
            SELECT r.id || '-' || n, r.conversation, r.version, r.state,
                   replace(r.doc, r.id, r.id || '-' || n)
            FROM requests r, numbers WHERE r.id = $1";
        let listing = "INSERT INTO listing (id, state, brief, has_form, response_action,
                           updated_at, expires_at, requester)
            SELECT l.id || '-' || n, l.state, replace(l.brief, l.id, l.id || '-' || n),
                   l.has_form, l.response_action, l.updated_at, l.expires_at, l.requester
            FROM listing l, numbers WHERE l.id = $1";
        let c = rusqlite::Connection::open(db).unwrap();
        for sql in [requests, listing, names] {
            let sql = format!(
                "WITH RECURSIVE numbers(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM numbers
                                                WHERE n < ?2) {}",
                sql.replace("$1", "?1")
            );
            c.execute(&sql, rusqlite::params![id, copies]).unwrap();
        }
    }
}

async fn lists_cost_what_they_return(db: String) {
    let t = tag();
    let (conversation, agent, ana, bob, eve) = (
        format!("chat-{t}"),
        format!("agent-{t}"),
        format!("ana-{t}"),
        format!("bob-{t}"),
        format!("eve-{t}"),
    );
    // The stored requests, through the library (the attack is on what a call reads, not on
    // how they got there); on a thread of its own, as the PostgreSQL client runs its own
    // runtime.
    let small = {
        let (db, conversation) = (db.clone(), conversation.clone());
        let (agent, ana, bob) = (agent.clone(), ana.clone(), bob.clone());
        std::thread::spawn(move || {
            let asks = Asks::open_location(&db).unwrap().with_quotas(Quotas {
                open_requests: STORED + 1,
                ..Quotas::default()
            });
            let chat = ConversationId::new(conversation).unwrap();
            for p in [&agent, &ana, &bob] {
                asks.join(&chat, &Principal::new(p.as_str()).unwrap())
                    .unwrap();
            }
            let me = asks.as_principal(&Principal::new(agent).unwrap());
            let form = large_form();
            let data = forms_runtime::DataForm::from_value(&form).unwrap();
            assert!(serde_json::to_vec(&form).unwrap().len() > 1_000_000);
            // One form request opened through the engine, copied into the rest straight in
            // the database (opening each through the engine takes most of a second in a
            // debug build).
            let big = me
                .open(
                    &chat,
                    NewRequest::question("Fill in the weekly report").form(&data),
                    "big",
                )
                .unwrap();
            copy_request(&db, big.id.as_str(), STORED - 1);
            me.open(&chat, NewRequest::question("Lunch?"), "small")
                .unwrap()
                .id
        })
        .join()
        .unwrap()
    };

    let tokens: Vec<(String, String)> = [&agent, &ana, &bob, &eve]
        .iter()
        .map(|p| (p.to_string(), format!("tok-{p}")))
        .collect();
    let pairs = tokens
        .iter()
        .map(|(p, tok)| format!("{p}={tok}"))
        .collect::<Vec<_>>()
        .join(" ");
    let server = start_http_with(
        5_000,
        &["--asks", &db],
        &[("FORMS_ASK_PRINCIPAL_TOKENS", pairs.as_str())],
    )
    .await;
    let pid = server.child.id().unwrap();
    let host = || Host::answering(json!({"action": "decline"}));
    let connect = |who: &str| {
        let token = format!("tok-{who}");
        let server = &server;
        async move { connect_http_as(host(), server, Some(&token)).await }
    };

    // What a list gives: the member's 151 requests, none with its form.
    let bob_client = connect(&bob).await;
    let listed = call_ask(
        &bob_client,
        "ask_list",
        json!({"conversation": conversation, "limit": 500}),
    )
    .await;
    let requests = listed["requests"]
        .as_array()
        .unwrap_or_else(|| panic!("{listed}"));
    assert_eq!(requests.len(), STORED + 1);
    assert!(requests
        .iter()
        .all(|r| r.get("form").is_none() && r.get("has_form").is_some()));
    // A token holder with nothing to see in the conversation is refused.
    let eve_client = connect(&eve).await;
    let refused = call_ask(
        &eve_client,
        "ask_list",
        json!({"conversation": conversation, "limit": 1}),
    )
    .await;
    assert_eq!(code(&refused), Some("not_member"), "{refused}");
    let (before, _) = memory_kib(pid);

    // Eight concurrent listers, four members and four of eve, five lists each, while ana
    // reads the small request.
    let mut listers = Vec::new();
    for n in 0_u32..8 {
        let who = if n.is_multiple_of(2) {
            bob.clone()
        } else {
            eve.clone()
        };
        let client = connect(&who).await;
        let conversation = conversation.clone();
        listers.push(tokio::spawn(async move {
            for _ in 0..5 {
                let r = call_ask(
                    &client,
                    "ask_list",
                    json!({"conversation": conversation, "limit": 500}),
                )
                .await;
                assert!(r.get("requests").is_some() || code(&r) == Some("not_member"));
            }
            client.cancel().await.unwrap();
        }));
    }
    let ana_client = connect(&ana).await;
    let mut shows = Vec::new();
    let started = Instant::now();
    while listers.iter().any(|l| !l.is_finished()) && started.elapsed() < Duration::from_secs(60) {
        let t0 = Instant::now();
        let shown = call_ask(&ana_client, "ask_show", json!({"id": small.as_str()})).await;
        shows.push(t0.elapsed());
        assert_eq!(shown["body"], "Lunch?", "{shown}");
    }
    for l in listers {
        l.await.unwrap();
    }
    let (after, peak) = memory_kib(pid);
    shows.sort();
    let median = shows.get(shows.len() / 2).copied().unwrap_or_default();
    println!(
        "server memory: {before} KiB before the lists, {after} KiB after, peak {peak} KiB; \
         ask_show during them: {} calls, median {median:?}",
        shows.len()
    );
    // Each list of 151 entries reads a few hundred KiB: eight at once add at most tens of
    // MiB (a list that loaded the conversation would add about 150 MiB each).
    assert!(
        peak.saturating_sub(before) < 48 * 1024,
        "the lists raised the server's peak memory from {before} to {peak} KiB"
    );
    assert!(
        median < Duration::from_millis(500),
        "ask_show took {median:?} (median) while the lists ran"
    );

    // The log of a request is read a page at a time.
    let agent_client = connect(&agent).await;
    for i in 0..3 {
        let r = call_ask(
            &agent_client,
            "ask_message",
            json!({"id": small.as_str(), "text": format!("note {i}"), "key": format!("m{i}")}),
        )
        .await;
        assert_eq!(r["event"], "message", "{r}");
    }
    let mut after: Option<String> = None;
    let mut seen = Vec::new();
    for _ in 0..10 {
        let mut args = json!({"id": small.as_str(), "limit": 2});
        if let Some(cursor) = &after {
            args["after"] = json!(cursor);
        }
        let page = call_ask(&agent_client, "ask_log", args).await;
        let events = page["events"].as_array().unwrap();
        assert!(events.len() <= 2, "{page}");
        seen.extend(
            events
                .iter()
                .map(|e| e["event"].as_str().unwrap().to_owned()),
        );
        match page["next"].as_str() {
            Some(next) => after = Some(next.to_owned()),
            None => break,
        }
    }
    assert_eq!(seen, ["opened", "message", "message", "message"]);
    let bad = call_ask(
        &agent_client,
        "ask_log",
        json!({"id": small.as_str(), "limit": 201}),
    )
    .await;
    assert_eq!(code(&bad), Some("invalid_arguments"), "{bad}");
    cancel_all([bob_client, eve_client, ana_client, agent_client]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_list_sqlite_costs_what_it_returns_whatever_the_conversation_holds() {
    let dir = TempDir::new("mcp-asks");
    lists_cost_what_they_return(dir.db()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_list_postgres_costs_what_it_returns_whatever_the_conversation_holds() {
    if let Some(url) = pg_url() {
        lists_cost_what_they_return(url).await;
    }
}
