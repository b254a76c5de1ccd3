//! Forms that wait over MCP: real `forms-mcp --asks DB` processes on one SQLite file (and on
//! PostgreSQL when `FORMS_ASK_PG_URL` is set; without it those cases say loudly that they
//! were skipped, and with `CI=true` they fail), driven by an rmcp client over stdio.
//! `ask_open` takes a `form`, `ask_respond` the host response as its `answer` (checked with
//! V1–V8), `ask_show` / `ask_wait` give the saved response; the answer is decoded into the
//! Rust type by a process that did not open the request. The durable delivery of the typed
//! asking API ([`forms_mcp::durable`]) hands a form to the store and reads the decoded
//! answer that a real `forms-mcp` process saved.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod common;

use common::*;
use forms_ask::{Asks, ConversationId, FormRequest, NewRequest, Principal, RequestId};
use forms_mcp::durable::{waiting_result, DurableForms};
use forms_runtime::{Form, Outcome, StaticForm};
use rmcp::model::CallToolRequestParams;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The release checklist, as the Rust side declares it.
#[derive(Form, Debug, PartialEq)]
#[form(message = "Release checklist")]
struct Checklist {
    /// Changelog written?
    changelog: Done,
    /// Platforms tested
    #[form(max_items = 2)]
    platforms: Vec<Platform>,
    /// Anything else?
    notes: Option<String>,
}

#[derive(Form, Debug, PartialEq)]
enum Done {
    Yes,
    No,
}

#[derive(Form, Debug, PartialEq)]
#[form(rename_all = "snake_case")]
enum Platform {
    Linux,
    Mac,
    Windows,
}

/// The engine on `db`, opened on a thread of its own (the synchronous PostgreSQL client
/// runs its own runtime, which may not start inside the test's).
fn open_asks(db: &str) -> Asks {
    let db = db.to_owned();
    std::thread::spawn(move || Asks::open_location(&db).unwrap())
        .join()
        .unwrap()
}

/// `who` answers version 1 of request `id` with `answer`, under retry key `key`; the payload.
async fn answer_v1(
    who: &rmcp::service::RunningService<rmcp::RoleClient, Host>,
    id: &(impl serde::Serialize + ?Sized),
    key: &str,
    answer: Value,
) -> Value {
    call_ask(
        who,
        "ask_respond",
        json!({"id": id, "version": 1, "outcome": "answered", "key": key, "answer": answer}),
    )
    .await
}

/// The checklist's Data form arguments, as a model would write them.
fn checklist_form() -> Value {
    serde_json::from_str(&Checklist::form().data().to_json()).unwrap()
}

async fn forms_over_mcp(db: String) {
    let chat = Chat::new(db.clone());
    let agent = chat.stdio_as(&chat.agent).await;
    let ana = chat.stdio_as(&chat.ana).await;
    let bob = chat.stdio_as(&chat.bob).await;

    // The schemas stay closed and carry the new arguments.
    let tools = agent.list_all_tools().await.unwrap();
    let schema = |name: &str| {
        let tool = tools.iter().find(|t| t.name == name).unwrap();
        Value::Object((*tool.input_schema).clone())
    };
    assert_eq!(schema("ask_open")["additionalProperties"], false);
    assert_eq!(schema("ask_open")["properties"]["form"]["type"], "object");
    assert_eq!(schema("ask_respond")["additionalProperties"], false);
    assert_eq!(
        schema("ask_respond")["properties"]["answer"]["anyOf"][1]["required"],
        json!(["action"])
    );

    // An invalid form is refused with the findings, and nothing is opened.
    let refused = call_ask(
        &agent,
        "ask_open",
        json!({"conversation": chat.conversation, "body": "Fill this in", "key": "bad",
               "form": {"message": "Pick", "questions": [
                   {"id": "9x", "type": "text", "title": "Goal", "required": false}]}}),
    )
    .await;
    assert_eq!(code(&refused), Some("invalid_arguments"), "{refused}");
    assert!(
        refused["error"]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["rule"] == "R6" && f["path"] == "questions[0].id"),
        "{refused}"
    );
    let listed = call_ask(
        &agent,
        "ask_list",
        json!({"conversation": chat.conversation}),
    )
    .await;
    assert_eq!(listed["requests"], json!([]), "{listed}");

    let opened = call_ask(
        &agent,
        "ask_open",
        json!({"conversation": chat.conversation, "key": "open-1",
               "body": "When you are back, fill in the release checklist",
               "form": checklist_form()}),
    )
    .await;
    assert_eq!(code(&opened), None, "{opened}");
    assert_eq!(opened["kind"], "question");
    assert_eq!(opened["form"], checklist_form());
    let id = opened["id"].as_str().unwrap().to_owned();

    // The requester waits in its own process.
    let waiting = spawn_ask_wait(agent.peer().clone(), id.clone());
    tokio::time::sleep(Duration::from_millis(300)).await;

    // A wrong answer (a third platform, over max_items 2: V4) is refused with the findings.
    let wrong = answer_v1(
        &ana,
        &id,
        "a1",
        json!({"action": "accept", "content": {"changelog": "Yes",
                          "platforms": ["linux", "mac", "windows"]}}),
    )
    .await;
    assert_eq!(code(&wrong), Some("invalid_response"), "{wrong}");
    assert_eq!(wrong["error"]["findings"][0]["rule"], "V4", "{wrong}");
    assert_eq!(
        wrong["error"]["findings"][0]["path"], "content.platforms",
        "{wrong}"
    );
    let unchanged = call_ask(&ana, "ask_show", json!({"id": id})).await;
    assert_eq!(unchanged, opened, "nothing changed");

    let answer = json!({"action": "accept", "content": {"changelog": "No",
                         "platforms": ["mac"], "notes": "docs pending"}});
    let won = call_ask(
        &ana,
        "ask_respond",
        json!({"id": id, "version": 1, "outcome": "answered", "key": "a2", "answer": answer}),
    )
    .await;
    assert_eq!(code(&won), None, "{won}");
    assert_eq!(won["state"], "resolved");
    assert_eq!(won["outcome"], "answered");
    assert_eq!(won["response"], answer);
    assert_woken(waiting, &won, "the waiter gets the saved response").await;

    // A late responder gets the conflict carrying the winner's saved answer.
    let late = answer_v1(&bob, &id, "b1", json!({"action": "decline"})).await;
    assert_eq!(code(&late), Some("conflict"), "{late}");
    assert_eq!(late["error"]["latest"]["response"], answer);

    // The asking process restarts: a new one shows the stored response.
    agent.cancel().await.unwrap();
    let agent = chat.stdio_as(&chat.agent).await;
    assert_eq!(call_ask(&agent, "ask_show", json!({"id": id})).await, won);

    // And the Rust side, in this process, decodes it into the type.
    let decoded = {
        let (db, agent_name, id) = (db.clone(), chat.agent.clone(), id.clone());
        std::thread::spawn(move || {
            let asks = Asks::open_location(&db).unwrap();
            let me = asks.as_principal(&Principal::new(agent_name).unwrap());
            let pending =
                FormRequest::<Checklist>::resume(&me, &RequestId::new(id).unwrap()).unwrap();
            pending.show(&me).unwrap().outcome
        })
        .join()
        .unwrap()
    };
    assert_eq!(
        decoded,
        Some(Outcome::Accepted(Checklist {
            changelog: Done::No,
            platforms: vec![Platform::Mac],
            notes: Some("docs pending".into()),
        }))
    );

    // An object answers only a question carrying a form.
    let plain = call_ask(
        &agent,
        "ask_open",
        json!({"conversation": chat.conversation, "key": "open-plain", "body": "Name?"}),
    )
    .await;
    let object = answer_v1(
        &ana,
        &plain["id"],
        "p1",
        json!({"action": "accept", "content": {}}),
    )
    .await;
    assert_eq!(code(&object), Some("invalid_arguments"), "{object}");
    assert_eq!(
        call_ask(&ana, "ask_show", json!({"id": plain["id"]})).await["state"],
        "open"
    );

    // A text answer to a form is read as the host response's JSON text.
    let second = call_ask(
        &agent,
        "ask_open",
        json!({"conversation": chat.conversation, "key": "open-2",
               "body": "Checklist again", "form": checklist_form()}),
    )
    .await;
    let not_json = answer_v1(&ana, &second["id"], "t1", json!("yes")).await;
    assert_eq!(code(&not_json), Some("invalid_response"), "{not_json}");
    let declined = answer_v1(&ana, &second["id"], "t2", json!("{\"action\":\"decline\"}")).await;
    assert_eq!(
        declined["response"],
        json!({"action": "decline"}),
        "{declined}"
    );

    cancel_all([agent, ana, bob]).await;
}

on_both_stores!(forms_over_mcp => forms_over_mcp_sqlite, forms_over_mcp_postgres);

/// The typed asking API's durable delivery: the form is handed to the store (the tool call
/// returns the request ID at once), a real `forms-mcp` process answers it as the person, and
/// a later read decodes the answer.
async fn durable_delivery(db: String) {
    let chat = Chat::new(db.clone());
    let asks = open_asks(&db);
    let durable = DurableForms::new(Arc::new(asks));
    let agent = Principal::new(chat.agent.as_str()).unwrap();
    let conversation = ConversationId::new(chat.conversation.as_str()).unwrap();
    // The checklist handed over under one retry key.
    let hand_over = || async {
        let question = NewRequest::question("When you are back, fill in the release checklist");
        durable
            .hand_over(
                &Checklist::form(),
                &conversation,
                &agent,
                question,
                "durable-1",
            )
            .await
            .unwrap()
    };
    let started = Instant::now();
    let pending = hand_over().await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "it does not block"
    );
    let handed = payload(&waiting_result(&pending));
    assert_eq!(handed["status"], "waiting");
    let id = handed["id"].as_str().unwrap().to_owned();
    assert_eq!(id, pending.id().as_str());

    // Nothing yet.
    let now = durable
        .read::<Checklist>(&agent, pending.id(), Duration::ZERO)
        .await
        .unwrap();
    assert_eq!((now.request.state.as_str(), now.outcome), ("open", None));

    // A later read waits while the person answers through a real server process.
    let reading = {
        let (durable, agent, id) = (durable.clone(), agent.clone(), pending.id().clone());
        tokio::spawn(async move {
            durable
                .read::<Checklist>(&agent, &id, Duration::from_secs(20))
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let ana = chat.stdio_as(&chat.ana).await;
    let done = answer_v1(
        &ana,
        &id,
        "a1",
        json!({"action": "accept", "content": {"changelog": "Yes",
                          "platforms": ["linux"]}}),
    )
    .await;
    assert_eq!(code(&done), None, "{done}");
    let reply = reading.await.unwrap().unwrap();
    assert_eq!(
        reply.outcome,
        Some(Outcome::Accepted(Checklist {
            changelog: Done::Yes,
            platforms: vec![Platform::Linux],
            notes: None,
        }))
    );
    // A retried hand-over with the same key opens nothing new.
    let again = hand_over().await;
    assert_eq!(again.id(), pending.id());
    ana.cancel().await.unwrap();
    // Dropped on the runtime: the engine goes to a thread of its own.
    drop(durable);
}

on_both_stores!(#[flavor = "multi_thread"] durable_delivery => durable_delivery_sqlite, durable_delivery_postgres);

/// A tool server embedding the typed asking API: the tool `checklist` asks the form live or
/// hands it to the store, as its `durable` argument says (the choice is per call); the tool
/// `checklist_result` reads the decoded answer of a handed-over one later.
#[derive(Clone)]
struct ChecklistTools {
    asker: forms_mcp::FormAsker,
    durable: DurableForms,
    conversation: ConversationId,
    agent: Principal,
}

impl rmcp::ServerHandler for ChecklistTools {
    fn get_info(&self) -> rmcp::model::ServerConfig {
        rmcp::model::ServerConfig::new(
            rmcp::model::ServerCapabilities::builder()
                .enable_tools()
                .build(),
        )
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        ctx: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, rmcp::ErrorData> {
        use forms_mcp::durable::{Asking, Delivery};
        use rmcp::model::CallToolResult;
        let args = request.arguments.clone().unwrap_or_default();
        let decoded = |c: &Checklist| format!("{c:?}");
        Ok(match request.name.as_ref() {
            "checklist" => {
                let delivery = if args.get("durable") == Some(&json!(true)) {
                    Delivery::durable(
                        self.conversation.clone(),
                        self.agent.clone(),
                        NewRequest::question("When you are back, fill in the release checklist"),
                        args["key"].as_str().unwrap_or("checklist"),
                    )
                } else {
                    Delivery::Live
                };
                let call = forms_mcp::FormCall::new(&request, &ctx);
                match self
                    .durable
                    .ask::<Checklist>(&self.asker, &call, delivery)
                    .await
                {
                    Asking::Waiting(pending) => waiting_result(&pending).into(),
                    Asking::Done(Ok(Outcome::Accepted(c))) => {
                        CallToolResult::structured(json!({"live": decoded(&c)})).into()
                    }
                    Asking::Done(Ok(other)) => {
                        CallToolResult::structured(json!({"live": other.action()})).into()
                    }
                    Asking::Done(Err(e)) => forms_mcp::error_response(&e),
                    Asking::InputRequired(result) => result.into(),
                    Asking::Refused(e) => {
                        CallToolResult::structured_error(forms_ask::wire::error(&e)).into()
                    }
                }
            }
            "checklist_result" => {
                let id = RequestId::new(args["id"].as_str().unwrap_or("")).unwrap();
                match self
                    .durable
                    .read::<Checklist>(&self.agent, &id, Duration::from_secs(10))
                    .await
                {
                    Ok(reply) => CallToolResult::structured(json!({
                        "state": reply.request.state,
                        "decoded": reply.accepted().map(decoded),
                    }))
                    .into(),
                    Err(e) => CallToolResult::structured_error(forms_ask::wire::error(&e)).into(),
                }
            }
            _ => return Err(rmcp::ErrorData::invalid_params("no such tool", None)),
        })
    }
}

/// Per call, through a real MCP session (an rmcp client and this tool server over a pipe):
/// one call asks live and the host answers at once; the next hands the form to the store and
/// returns its ID; a real `forms-mcp` process answers as the person; a later call reads the
/// decoded answer.
async fn delivery_chosen_per_call(db: String) {
    use rmcp::ServiceExt;
    let chat = Chat::new(db.clone());
    let asks = open_asks(&db);
    let tools = ChecklistTools {
        asker: forms_mcp::FormAsker::new(Duration::from_secs(5)),
        durable: DurableForms::new(Arc::new(asks)),
        conversation: ConversationId::new(chat.conversation.as_str()).unwrap(),
        agent: Principal::new(chat.agent.as_str()).unwrap(),
    };
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_io);
    let server = tokio::spawn(async move {
        let running = tools
            .serve(forms_mcp::transport::capture(server_read, server_write))
            .await
            .unwrap();
        let _ = running.waiting().await;
    });
    let host = Host::answering(json!({"action": "accept",
        "content": {"changelog": "Yes", "platforms": ["windows"]}}));
    let client = host
        .clone()
        .serve(tokio::io::split(client_io))
        .await
        .unwrap();
    let call = |arguments: Value| {
        let client = client.peer().clone();
        async move {
            let Value::Object(map) = arguments else {
                panic!()
            };
            payload(
                &client
                    .call_tool(CallToolRequestParams::new("checklist").with_arguments(map))
                    .await
                    .unwrap(),
            )
        }
    };

    // Live: the host is asked now and the call returns the typed answer.
    let live = call(json!({"durable": false})).await;
    assert_eq!(
        live["live"],
        format!(
            "{:?}",
            Checklist {
                changelog: Done::Yes,
                platforms: vec![Platform::Windows],
                notes: None
            }
        ),
        "{live}"
    );
    assert_eq!(host.requests().len(), 1);

    // Durable: nothing is asked of the host; the model gets the request ID at once.
    let started = Instant::now();
    let handed = call(json!({"durable": true, "key": "per-call-1"})).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(handed["status"], "waiting", "{handed}");
    assert_eq!(host.requests().len(), 1, "the host was not asked");
    let id = handed["id"].as_str().unwrap().to_owned();

    let ana = chat.stdio_as(&chat.ana).await;
    let done = answer_v1(
        &ana,
        &id,
        "a1",
        json!({"action": "accept", "content": {"changelog": "No",
                          "platforms": ["linux", "mac"], "notes": "tomorrow"}}),
    )
    .await;
    assert_eq!(code(&done), None, "{done}");

    let read = payload(
        &client
            .peer()
            .call_tool(
                CallToolRequestParams::new("checklist_result")
                    .with_arguments(json!({"id": id}).as_object().unwrap().clone()),
            )
            .await
            .unwrap(),
    );
    assert_eq!(read["state"], "resolved", "{read}");
    assert_eq!(
        read["decoded"],
        format!(
            "{:?}",
            Checklist {
                changelog: Done::No,
                platforms: vec![Platform::Linux, Platform::Mac],
                notes: Some("tomorrow".into())
            }
        )
    );
    ana.cancel().await.unwrap();
    client.cancel().await.unwrap();
    server.await.unwrap();
}

on_both_stores!(#[flavor = "multi_thread"] delivery_chosen_per_call => delivery_chosen_per_call_sqlite, delivery_chosen_per_call_postgres);
