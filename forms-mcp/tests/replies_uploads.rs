//! A durable form's `files` answer over MCP (issue 22, finding 4): a responder driving the
//! real `forms-mcp --asks DB` process with `ask_respond` cannot hand the requester a path
//! (`file:///etc/shadow` is refused with how to send the file, nothing stored); it sends the
//! bytes as `uploads`, within their limit, and the requester's decode gets a file of its own
//! with exactly those bytes. On SQLite, and on PostgreSQL when `FORMS_ASK_PG_URL` is set.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::*;
use forms_ask::upload::base64_encode;
use forms_ask::{Asks, ConversationId, FormRequest, Principal, RequestId, UPLOAD_BYTES_MAX};
use forms_runtime::{FileRef, Form, StaticForm};
use rmcp::service::RunningService;
use rmcp::RoleClient;
use serde_json::{json, Value};

type Client = RunningService<RoleClient, Host>;

/// A form with one `files` question, as the requester's Rust side declares it.
#[derive(Form, Debug, PartialEq)]
#[form(message = "Send the quarter's report")]
struct Report {
    #[form(files, title = "The report")]
    data: Vec<FileRef>,
}

async fn stdio_as(db: &str, who: &str) -> Client {
    let mut command = server_command(5_000);
    command.args(["--asks", db, "--principal", who]);
    connect_command(Host::answering(json!({"action": "decline"})), command).await
}

/// Runs `f` on a blocking thread with an engine on `db` (the requester's own program).
async fn with_asks<T: Send + 'static>(db: &str, f: impl FnOnce(Asks) -> T + Send + 'static) -> T {
    let db = db.to_owned();
    tokio::task::spawn_blocking(move || f(Asks::open_location(&db).unwrap()))
        .await
        .unwrap()
}

fn bytes(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 131 % 251) as u8).collect()
}

async fn uploads_over_mcp(db: String) {
    let t = tag();
    let (conversation, agent_name, ana_name) = (
        format!("chat-{t}"),
        format!("agent-{t}"),
        format!("ana-{t}"),
    );
    {
        let (c, a, b) = (conversation.clone(), agent_name.clone(), ana_name.clone());
        with_asks(&db, move |asks| {
            let c = ConversationId::new(c).unwrap();
            asks.join(&c, &Principal::new(a).unwrap()).unwrap();
            asks.join(&c, &Principal::new(b).unwrap()).unwrap();
        })
        .await;
    }
    let agent = stdio_as(&db, &agent_name).await;
    let ana = stdio_as(&db, &ana_name).await;

    // The tool's schema documents the uploads and how the answer names them.
    let tools = ana.list_all_tools().await.unwrap();
    let respond = tools.iter().find(|t| t.name == "ask_respond").unwrap();
    let schema = Value::Object((*respond.input_schema).clone());
    let uploads = &schema["properties"]["uploads"];
    assert_eq!(uploads["type"], "array", "{schema}");
    assert_eq!(uploads["items"]["required"], json!(["name", "data"]));
    assert!(
        uploads["description"]
            .as_str()
            .unwrap()
            .contains("upload:<name>"),
        "{uploads}"
    );

    let form: Value = serde_json::from_str(&Report::form().data().to_json()).unwrap();
    let opened = call_ask(
        &agent,
        "ask_open",
        json!({"conversation": conversation, "key": "open-1", "body": "Send the report",
               "form": form}),
    )
    .await;
    assert_eq!(code(&opened), None, "{opened}");
    let id = opened["id"].as_str().unwrap().to_owned();
    let stored = |db: String, id: String| async move {
        with_asks(&db, move |asks| {
            asks.store()
                .uploads(&RequestId::new(id).unwrap())
                .unwrap()
                .len()
        })
        .await
    };

    // A path is refused, saying how to send the file; nothing is stored.
    for (i, path) in ["file:///etc/shadow", "file:///root/.ssh/id_ed25519"]
        .iter()
        .enumerate()
    {
        let refused = call_ask(
            &ana,
            "ask_respond",
            json!({"id": id, "version": 1, "outcome": "answered", "key": format!("p{i}"),
                   "answer": {"action": "accept", "content": {"data": [path]}}}),
        )
        .await;
        assert_eq!(code(&refused), Some("invalid_response"), "{refused}");
        let message = refused["error"]["message"].as_str().unwrap();
        assert!(message.contains("takes no paths"), "{message}");
        assert!(message.contains("`uploads`"), "{message}");
        assert!(message.contains("upload:<name>"), "{message}");
    }
    let shown = call_ask(&ana, "ask_show", json!({"id": id})).await;
    assert_eq!(
        (shown["state"].as_str(), shown["version"].as_u64()),
        (Some("open"), Some(1))
    );
    assert_eq!(stored(db.clone(), id.clone()).await, 0);

    // Over the limit: refused, nothing stored.
    let big = base64_encode(&vec![7; UPLOAD_BYTES_MAX + 1]);
    let refused = call_ask(
        &ana,
        "ask_respond",
        json!({"id": id, "version": 1, "outcome": "answered", "key": "big",
               "answer": {"action": "accept", "content": {"data": ["upload:big.csv"]}},
               "uploads": [{"name": "big.csv", "data": big}]}),
    )
    .await;
    assert_eq!(code(&refused), Some("invalid_arguments"), "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains(&UPLOAD_BYTES_MAX.to_string()),
        "{refused}"
    );
    let shown = call_ask(&ana, "ask_show", json!({"id": id})).await;
    assert_eq!(shown["state"], "open", "{shown}");
    assert_eq!(stored(db.clone(), id.clone()).await, 0);

    // A few KiB, sent as bytes: accepted, saved under the store's URI.
    let sent = bytes(4 * 1024 + 3);
    let done = call_ask(
        &ana,
        "ask_respond",
        json!({"id": id, "version": 1, "outcome": "answered", "key": "ok",
               "answer": {"action": "accept", "content": {"data": ["upload:report.csv"]}},
               "uploads": [{"name": "report.csv", "data": base64_encode(&sent)}]}),
    )
    .await;
    assert_eq!(code(&done), None, "{done}");
    assert_eq!(done["state"], "resolved");
    assert_eq!(
        done["response"]["content"]["data"][0],
        json!(format!("file:///forms-ask/uploads/{id}/0/report.csv"))
    );
    assert_eq!(stored(db.clone(), id.clone()).await, 1);

    // The requester's program decodes it into a directory of its own.
    let mine = TempDir::new("mcp-asks");
    let dir = mine.0.join("requester-files");
    let (agent_p, id2, dir2) = (agent_name.clone(), id.clone(), dir.clone());
    let report = with_asks(&db, move |asks| {
        let me = asks.as_principal(&Principal::new(agent_p).unwrap());
        let pending = FormRequest::<Report>::resume(&me, &RequestId::new(id2).unwrap())
            .unwrap()
            .uploads_dir(dir2);
        pending.show(&me).unwrap().accepted().unwrap().data.clone()
    })
    .await;
    assert_eq!(report.len(), 1);
    let path = report[0].local_path().unwrap();
    assert!(path.starts_with(&dir), "{}", path.display());
    assert_eq!(std::fs::read(path).unwrap(), sent);

    agent.cancel().await.unwrap();
    ana.cancel().await.unwrap();
}

on_both_stores!(#[flavor = "multi_thread"] uploads_over_mcp => uploads_over_mcp_sqlite, uploads_over_mcp_postgres);
