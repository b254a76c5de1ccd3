//! The scripted host of the end-to-end tests: an rmcp client that advertises native form
//! support (or not) and answers `openai/elicitation/create` from a script.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction, dead_code)]

use rmcp::model::{
    CallToolRequestParams, CallToolResult, CancelledNotificationParam, ClientCapabilities,
    ClientConfig, CustomRequest, CustomResult, ElicitRequestParams, ElicitResult, ErrorCode,
    Implementation, ProtocolVersion,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::{ClientHandler, ErrorData as McpError, RoleClient, ServiceExt};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::process::Command;
use tokio::sync::Notify;

/// What the host does with one elicitation request.
pub enum Reply {
    /// Answers with this JSON result.
    Answer(Value),
    /// Answers with a JSON-RPC error.
    Error(i32, &'static str),
    /// Never answers.
    Hang,
}

type Script = dyn Fn(&Value) -> Reply + Send + Sync;

/// A scripted host.
#[derive(Clone)]
pub struct Host {
    script: Arc<Script>,
    caps: Value,
    /// The params of every elicitation request received.
    pub seen: Arc<Mutex<Vec<(String, Value)>>>,
    /// Every `notifications/cancelled` received.
    pub cancelled: Arc<Mutex<Vec<CancelledNotificationParam>>>,
    /// Signalled on each request and each cancellation.
    pub event: Arc<Notify>,
    /// The protocol version the host asks for.
    pub protocol: ProtocolVersion,
}

/// Capabilities of a host with native forms.
pub fn native_caps() -> Value {
    json!({"elicitation": {"form": {}}, "extensions": {"openai/elicitation": {"form": {}}}})
}

/// Capabilities of a host with the core elicitation only.
pub fn core_caps() -> Value {
    json!({"elicitation": {"form": {}}})
}

impl Host {
    pub fn new(caps: Value, script: impl Fn(&Value) -> Reply + Send + Sync + 'static) -> Host {
        Host {
            script: Arc::new(script),
            caps,
            seen: Arc::default(),
            cancelled: Arc::default(),
            event: Arc::default(),
            protocol: ProtocolVersion::V_2025_11_25,
        }
    }

    /// The same host on protocol 2026-07-28 (multi-round-trip requests).
    pub fn modern(mut self) -> Host {
        self.protocol = ProtocolVersion::V_2026_07_28;
        self
    }

    /// A host that answers every request with `answer`.
    pub fn answering(answer: Value) -> Host {
        Host::new(native_caps(), move |_| Reply::Answer(answer.clone()))
    }

    pub fn requests(&self) -> Vec<(String, Value)> {
        self.seen.lock().unwrap().clone()
    }
}

impl ClientHandler for Host {
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        ctx: RequestContext<RoleClient>,
    ) -> Result<CustomResult, McpError> {
        let params = request.params.clone().unwrap_or(Value::Null);
        self.seen
            .lock()
            .unwrap()
            .push((request.method.clone(), params.clone()));
        self.event.notify_waiters();
        match (self.script)(&params) {
            Reply::Answer(value) => Ok(CustomResult::new(value)),
            Reply::Error(code, message) => Err(McpError::new(ErrorCode(code), message, None)),
            Reply::Hang => {
                tokio::select! {
                    () = ctx.ct.cancelled() => {}
                    () = tokio::time::sleep(Duration::from_secs(60)) => {}
                }
                Err(McpError::internal_error("cancelled", None))
            }
        }
    }

    async fn on_cancelled(
        &self,
        params: CancelledNotificationParam,
        _ctx: NotificationContext<RoleClient>,
    ) {
        self.cancelled.lock().unwrap().push(params);
        self.event.notify_waiters();
    }

    fn get_info(&self) -> ClientConfig {
        let caps: ClientCapabilities = serde_json::from_value(self.caps.clone()).unwrap();
        ClientConfig::new(caps, Implementation::new("scripted-host", "1"))
            .with_protocol_version(self.protocol.clone())
    }

    /// A multi-round-trip input request, fulfilled by the script (the automatic rounds of
    /// rmcp's `call_tool`).
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        ctx: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        let mut params = serde_json::to_value(&request).unwrap();
        // rmcp hands the request's `_meta` to the handler in its context.
        params["_meta"] = serde_json::to_value(&ctx.meta).unwrap();
        self.seen
            .lock()
            .unwrap()
            .push(("elicitation/create".to_owned(), params.clone()));
        self.event.notify_waiters();
        match (self.script)(&params) {
            Reply::Answer(value) => Ok(serde_json::from_value(value).unwrap()),
            Reply::Error(code, message) => Err(McpError::new(ErrorCode(code), message, None)),
            Reply::Hang => Err(McpError::internal_error("no answer", None)),
        }
    }
}

/// The `forms-mcp` binary with `DATA_FORMS_TIMEOUT_MS=timeout_ms`.
pub fn server_command(timeout_ms: u64) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_forms-mcp"));
    command
        .env("DATA_FORMS_TIMEOUT_MS", timeout_ms.to_string())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true);
    command
}

/// Connects `host` to a fresh `forms-mcp` child process over stdio.
pub async fn connect_stdio(host: Host, timeout_ms: u64) -> RunningService<RoleClient, Host> {
    connect_command(host, server_command(timeout_ms)).await
}

/// Connects `host` to the `forms-mcp` process `command` over stdio: `initialize` for a
/// legacy host, `server/discover` for a 2026-07-28 one.
pub async fn connect_command(host: Host, command: Command) -> RunningService<RoleClient, Host> {
    let transport = rmcp::transport::TokioChildProcess::new(command).unwrap();
    connect_transport(host, transport).await
}

pub async fn connect_transport<T, E, A>(
    host: Host,
    transport: T,
) -> RunningService<RoleClient, Host>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    use rmcp::{ClientLifecycleMode, ClientServiceExt};
    if host.protocol.has_initialize() {
        host.serve(transport).await.unwrap()
    } else {
        let preferred_versions = vec![host.protocol.clone()];
        host.serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Discover { preferred_versions },
        )
        .await
        .unwrap()
    }
}

/// A one-question text form.
pub fn text_form(message: &str) -> Value {
    json!({"message": message, "questions": [
        {"id": "goal", "type": "text", "title": "What would you like to understand?",
         "required": true, "maxLength": 100}
    ]})
}

/// The call params of the Data tool with `arguments`.
pub fn call(arguments: Value) -> CallToolRequestParams {
    let Value::Object(map) = arguments else {
        panic!("arguments must be an object")
    };
    CallToolRequestParams::new("form_elicitation_v2_request").with_arguments(map)
}

/// The payload of a tool result, after checking that `content[0].text` holds the same JSON
/// as `structuredContent`.
pub fn payload(result: &CallToolResult) -> Value {
    let wire = serde_json::to_value(result).unwrap();
    let structured = wire["structuredContent"].clone();
    let text = wire["content"][0]["text"]
        .as_str()
        .expect("content[0].text");
    assert_eq!(wire["content"][0]["type"], "text");
    let from_text: Value = serde_json::from_str(text).unwrap();
    assert_eq!(
        from_text, structured,
        "content[0].text and structuredContent differ"
    );
    let is_error = wire
        .get("isError")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    assert_eq!(
        is_error,
        structured.get("error").is_some(),
        "isError: {wire}"
    );
    structured
}

/// The JSON-RPC body of a hand-written 2026-07-28 `tools/call` of the Data tool asking
/// [`report_form`], with the request state and the answer to send back, if any.
pub fn modern_report_call(state: Option<&str>, answer: Option<Value>) -> Value {
    let mut params = json!({
        "name": "form_elicitation_v2_request",
        "arguments": report_form(),
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": native_caps(),
        }
    });
    if let Some(state) = state {
        params["requestState"] = json!(state);
    }
    if let Some(answer) = answer {
        params["inputResponses"] = json!({"form": answer});
    }
    json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params})
}

/// Calls the `ask_*` tool `tool` and returns its payload (the envelope checked by
/// [`payload`]).
pub async fn call_ask(
    client: &RunningService<RoleClient, Host>,
    tool: &str,
    arguments: Value,
) -> Value {
    let Value::Object(map) = arguments else {
        panic!("arguments must be an object")
    };
    let result = client
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(map))
        .await
        .unwrap();
    payload(&result)
}

/// The error code of a payload, or `None` for an outcome.
pub fn code(payload: &Value) -> Option<&str> {
    payload["error"]["code"].as_str()
}

/// Waits until `cond` holds on the host, at most five seconds.
pub async fn wait_for(host: &Host, cond: impl Fn(&Host) -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while !cond(host) {
        let notified = host.event.notified();
        if cond(host) {
            break;
        }
        if tokio::time::timeout_at(deadline, notified).await.is_err() {
            assert!(cond(host), "condition not reached in time");
            break;
        }
    }
}

/// A `forms-mcp --http 127.0.0.1:0` child process and the URL it printed.
pub struct HttpServer {
    pub child: tokio::process::Child,
    pub url: String,
}

/// Starts `forms-mcp --http 127.0.0.1:0` and reads the address it listens on from stderr.
pub async fn start_http(timeout_ms: u64) -> HttpServer {
    start_http_with(timeout_ms, &[], &[]).await
}

/// Starts `forms-mcp --http 127.0.0.1:0 EXTRA…` with `env` and reads the address it
/// listens on.
pub async fn start_http_with(timeout_ms: u64, extra: &[&str], env: &[(&str, &str)]) -> HttpServer {
    use tokio::io::AsyncBufReadExt;
    let mut command = server_command(timeout_ms);
    command
        .args(["--http", "127.0.0.1:0"])
        .args(extra)
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    let mut child = command.spawn().unwrap();
    let stderr = child.stderr.take().unwrap();
    let mut lines = tokio::io::BufReader::new(stderr).lines();
    let url = listening_url(&mut lines).await;
    // Keep draining stderr so the server never blocks on it.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    HttpServer { child, url }
}

/// Checks that `done` is refused as `invalid_response` with a message naming `needle`.
pub fn assert_invalid_response(done: &CallToolResult, needle: &str) {
    let p = payload(done);
    assert_eq!(code(&p), Some("invalid_response"));
    assert!(
        p["error"]["message"].as_str().unwrap().contains(needle),
        "{p}"
    );
}

/// The URL an HTTP server started on `127.0.0.1:0` prints on the first line of its standard
/// error, `listening on http://127.0.0.1:PORT/mcp`, read within 10 seconds.
pub async fn listening_url(
    lines: &mut tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStderr>>,
) -> String {
    let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
        .await
        .expect("no address printed")
        .unwrap()
        .expect("stderr closed");
    let url = line
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_owned();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );
    url
}

/// Connects `host` to `server` over streamable HTTP.
pub async fn connect_http(host: Host, server: &HttpServer) -> RunningService<RoleClient, Host> {
    connect_http_as(host, server, None).await
}

/// Connects `host` to `server` over streamable HTTP, sending `Authorization: Bearer token`.
pub async fn connect_http_as(
    host: Host,
    server: &HttpServer,
    token: Option<&str>,
) -> RunningService<RoleClient, Host> {
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let mut config = StreamableHttpClientTransportConfig::with_uri(server.url.clone());
    if let Some(token) = token {
        config = config.auth_header(token);
    }
    let transport = rmcp::transport::StreamableHttpClientTransport::from_config(config);
    connect_transport(host, transport).await
}

// ---------------------------------------------------------------- the ask_* tools' stores

// Not every test file that includes this module uses them.
#[allow(unused_imports)]
pub use forms_test_kit::{forms::report_form, pg_url, tag, TempDir};

/// A conversation with three members whose names are unique to this run, set up through
/// the Rust API on the same database the servers use.
pub struct Chat {
    pub db: String,
    pub conversation: String,
    pub agent: String,
    pub ana: String,
    pub bob: String,
}

impl Chat {
    pub fn new(db: String) -> Chat {
        let forms_test_kit::store::ChatNames {
            conversation,
            agent,
            ana,
            bob,
        } = forms_test_kit::store::ChatNames::fresh();
        let chat = Chat {
            db,
            conversation,
            agent,
            ana,
            bob,
        };
        // On a thread of its own: the synchronous PostgreSQL client runs its own runtime.
        let (db, conversation) = (chat.db.clone(), chat.conversation.clone());
        let members = [chat.agent.clone(), chat.ana.clone(), chat.bob.clone()];
        std::thread::spawn(move || {
            let asks = forms_ask::Asks::open_location(&db).unwrap();
            let conversation = forms_ask::ConversationId::new(conversation).unwrap();
            for p in members {
                asks.join(&conversation, &forms_ask::Principal::new(p).unwrap())
                    .unwrap();
            }
        })
        .join()
        .unwrap();
        chat
    }
}

impl Chat {
    /// A `forms-mcp --asks DB --principal WHO` process over stdio, declining any form.
    pub async fn stdio_as(&self, who: &str) -> RunningService<RoleClient, Host> {
        self.stdio_host(Host::answering(json!({"action": "decline"})), who)
            .await
    }

    /// The same, with `host`.
    pub async fn stdio_host(&self, host: Host, who: &str) -> RunningService<RoleClient, Host> {
        let mut command = server_command(5_000);
        command.args(["--asks", &self.db, "--principal", who]);
        connect_command(host, command).await
    }
}

/// Starts `ask_wait` on request `id` (20 seconds at most) on a task of its own; the task
/// gives the payload and how long the wait took.
pub fn spawn_ask_wait(
    peer: rmcp::Peer<RoleClient>,
    id: String,
) -> tokio::task::JoinHandle<(Value, std::time::Duration)> {
    tokio::spawn(async move {
        let start = std::time::Instant::now();
        let result = peer
            .call_tool(
                CallToolRequestParams::new("ask_wait").with_arguments(
                    json!({"id": id, "timeout_seconds": 20})
                        .as_object()
                        .unwrap()
                        .clone(),
                ),
            )
            .await
            .unwrap();
        (payload(&result), start.elapsed())
    })
}

/// Two tests of `async fn $body(db: String)`: `$sqlite` on a fresh SQLite file, `$postgres`
/// on `FORMS_ASK_PG_URL` (skipped without it).
#[macro_export]
macro_rules! on_both_stores {
    ($(#[$flavor:meta])? $body:ident => $sqlite:ident, $postgres:ident) => {
        #[tokio::test$(($flavor))?]
        async fn $sqlite() {
            let dir = TempDir::new("mcp-asks");
            $body(dir.db()).await;
        }

        #[tokio::test$(($flavor))?]
        async fn $postgres() {
            if let Some(url) = pg_url() {
                $body(url).await;
            }
        }
    };
}

/// Sends a cancellable call of a form the host leaves unanswered ("hang") and waits until
/// the host has the form.
pub async fn start_hanging_call(
    client: &RunningService<RoleClient, Host>,
    host: &Host,
) -> rmcp::service::RequestHandle<RoleClient> {
    let request = rmcp::model::ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(
        call(text_form("hang")),
    ));
    let handle = client
        .send_cancellable_request(request, rmcp::service::PeerRequestOptions::no_options())
        .await
        .unwrap();
    wait_for(host, |h| !h.requests().is_empty()).await;
    handle
}

/// Closes each client's connection (and so ends its server process).
pub async fn cancel_all(clients: impl IntoIterator<Item = RunningService<RoleClient, Host>>) {
    for client in clients {
        client.cancel().await.unwrap();
    }
}

/// Awaits a [`spawn_ask_wait`] task and checks that it gave `expected` (`what` says what the
/// waiter should see) and was woken by the change, well before its 20 seconds.
pub async fn assert_woken(
    waiting: tokio::task::JoinHandle<(Value, std::time::Duration)>,
    expected: &Value,
    what: &str,
) {
    let (waited, took) = waiting.await.unwrap();
    assert_eq!(&waited, expected, "{what}");
    assert!(
        took < std::time::Duration::from_secs(10),
        "woken by the change: {took:?}"
    );
}
