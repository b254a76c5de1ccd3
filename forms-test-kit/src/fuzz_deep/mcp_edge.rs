//! The `mcp_edge` fuzz target: raw JSON-RPC frames fed into the Data tool server
//! ([`forms_mcp::FormsServer`] served through [`forms_mcp::transport::keep`]) over an
//! in-process duplex, on one current-thread Tokio runtime per process whose clock is paused
//! (time jumps ahead whenever every task waits, so the server's and the harness's time-outs
//! cost no real time and every run is deterministic).
//!
//! The input's bytes choose a session: its generation (2025-11-25 and older, with
//! `initialize`; 2026-07-28 with the inline `_meta` of each request), then a sequence of
//! frames from templates (`initialize` with and without the `openai/elicitation` extension,
//! `notifications/initialized`, `tools/list`, `tools/call` of `form_elicitation_v2_request`
//! with a few forms and broken arguments, retries carrying the request state the server gave
//! (as given, altered, reused, absent) and answers in `inputResponses`, `ping`, cancellations,
//! stray responses, `server/discover`, unknown methods, batches), each possibly with one field
//! replaced by arbitrary JSON, plus raw byte lines. The host side answers the server's own
//! requests (`openai/elicitation/create` on the legacy transport) with answers the bytes
//! choose (accepted, declined, broken, an error, twice, never).
//!
//! Checks:
//! - no panic;
//! - no hang: after a request frame the harness waits at most [`WAIT`] (virtual) for its
//!   answer; at the end it closes its side, and the server must end and close its own within
//!   [`CLOSE`] (virtual): a server that does not is a finding;
//! - nothing outlives a session: no task of the server's is left in the runtime;
//! - every line the server writes is one JSON-RPC 2.0 message: a request (`method`, an id of
//!   a string or an integer), a notification (`method`, no id), or a response (an id, or for
//!   an error `null` or none, as MCP 2026-07-28 allows, and exactly one of `result` and
//!   `error`, the error with an integer `code` and a string `message`); a response's id is
//!   one the client sent.
//!
//! Not checked: what each answer says (the contract suites do), that every request is
//! answered (rmcp drops a request it cannot read, and a closed session answers nothing).

use arbitrary::Unstructured;
use serde_json::{json, Map, Value};
use std::collections::{HashSet, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, Notify};

/// How long the server waits for a host's answer (virtual time).
const SERVER_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the harness waits for the answer to one request (virtual time).
pub const WAIT: Duration = Duration::from_secs(60);
/// How long the server may take to end once the client closed its side (virtual time).
pub const CLOSE: Duration = Duration::from_secs(120);
/// The most frames one input sends.
const FRAMES_MAX: usize = 24;
const TOOL: &str = "form_elicitation_v2_request";
const MODERN: &str = "2026-07-28";

/// The one runtime of this process: current-thread, clock paused.
fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .unwrap()
    })
}

/// What the host does with the server's next request.
#[derive(Debug, Clone)]
enum Reply {
    Result(Value),
    Error,
    Never,
    Twice(Value),
    WrongId(Value),
    Raw(Vec<u8>),
}

/// What one input reached.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// Lines the server wrote.
    pub lines: usize,
    /// Error responses.
    pub errors: usize,
    /// Requests the server sent the host (`openai/elicitation/create`).
    pub asked: usize,
    /// Input-required results (2026-07-28) with a request state.
    pub input_required: usize,
    /// Tool results whose payload is an accepted answer, on the legacy transport.
    pub accepted_legacy: usize,
    /// The same on 2026-07-28.
    pub accepted_modern: usize,
    /// Tool results whose payload is one of the Data tool's error codes.
    pub tool_errors: usize,
}

/// What the harness has seen, shared by its reader and its writer.
#[derive(Default)]
struct Seen {
    counts: Counts,
    modern: bool,
    /// Ids the client sent, as JSON text.
    sent: HashSet<String>,
    /// Ids the server answered, as JSON text.
    answered: HashSet<String>,
    /// Request states of input-required results, newest last, with the form index asked.
    states: Vec<(usize, String)>,
    /// The host's replies to the server's requests, in order; then the valid answer.
    replies: VecDeque<Reply>,
    /// The form the latest `tools/call` asked.
    asked: usize,
    /// Whether the server closed its side.
    closed: bool,
}

struct Harness {
    seen: Mutex<Seen>,
    changed: Notify,
    out: mpsc::UnboundedSender<Option<Vec<u8>>>,
}

impl Harness {
    /// Sends bytes to the server, first noting the id of every message in them that parses.
    fn send(&self, bytes: Vec<u8>) {
        {
            let mut seen = self.seen();
            for line in bytes.split(|&b| b == b'\n') {
                let line = line.strip_prefix("\u{feff}".as_bytes()).unwrap_or(line);
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                let Ok(value) = serde_json::from_slice::<Value>(line) else {
                    continue;
                };
                let messages = match value {
                    Value::Array(all) => all,
                    one => vec![one],
                };
                for message in messages {
                    if let Some(id) = message.get("id") {
                        seen.sent.insert(id_key(id));
                    }
                }
            }
        }
        let _ = self.out.send(Some(bytes));
    }
    fn seen(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.seen.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// An id as text, for the sets: a number that is an integer is written as one.
fn id_key(id: &Value) -> String {
    match id {
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => format!("{}", f as i64),
            _ => n.to_string(),
        },
        other => other.to_string(),
    }
}

/// The checks on one line the server wrote; returns the message.
fn check_line(line: &str, seen: &Seen) -> Value {
    let message: Value = serde_json::from_str(line)
        .unwrap_or_else(|e| panic!("the server wrote a line that is not JSON ({e}): {line:?}"));
    let Some(object) = message.as_object() else {
        panic!("the server wrote a JSON-RPC message that is not an object: {line}")
    };
    assert_eq!(
        object.get("jsonrpc"),
        Some(&json!("2.0")),
        "no jsonrpc 2.0: {line}"
    );
    let id_ok = |id: &Value| id.is_string() || id.is_i64() || id.is_u64();
    if let Some(method) = object.get("method") {
        assert!(method.is_string(), "a method that is not a string: {line}");
        assert!(
            !object.contains_key("result") && !object.contains_key("error"),
            "a request or notification with a result or an error: {line}"
        );
        if let Some(id) = object.get("id") {
            assert!(
                id_ok(id),
                "a request id that is neither a string nor an integer: {line}"
            );
        }
        if let Some(params) = object.get("params") {
            assert!(
                params.is_object() || params.is_array(),
                "params neither object nor array: {line}"
            );
        }
    } else {
        // An error that names no request may leave its id out (MCP 2026-07-28, "Error
        // Responses"; rmcp writes its `Invalid request` so on every generation) or give `null`
        // (JSON-RPC 2.0).
        let id = match object.get("id") {
            Some(id) => id,
            None if object.contains_key("error") => &Value::Null,
            None => panic!("a response without an id: {line}"),
        };
        let result = object.contains_key("result");
        let error = object.get("error");
        assert!(
            result != error.is_some(),
            "a response needs exactly one of result and error: {line}"
        );
        if let Some(error) = error {
            assert!(
                error.get("code").is_some_and(|c| c.is_i64()),
                "an error without an integer code: {line}"
            );
            assert!(
                error.get("message").is_some_and(Value::is_string),
                "an error without a string message: {line}"
            );
            assert!(
                id.is_null() || id_ok(id),
                "an error id of another type: {line}"
            );
        } else {
            assert!(
                id_ok(id),
                "a result id that is neither a string nor an integer: {line}"
            );
        }
        if !id.is_null() {
            assert!(
                seen.sent.contains(&id_key(id)),
                "a response to an id the client never sent: {line}"
            );
        }
    }
    message
}

/// Reads the server's lines until it closes its side: checks each, answers the server's
/// requests, keeps request states.
async fn read_server(harness: Arc<Harness>, read: tokio::io::ReadHalf<tokio::io::DuplexStream>) {
    let mut lines = BufReader::new(read);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match lines.read_until(b'\n', &mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let text = String::from_utf8(buf.clone())
            .unwrap_or_else(|e| panic!("the server wrote a line that is not UTF-8: {e}"));
        let line = text.trim_end_matches(['\n', '\r']);
        if line.is_empty() {
            continue;
        }
        let mut seen = harness.seen();
        seen.counts.lines += 1;
        let message = check_line(line, &seen);
        let method = message.get("method").and_then(Value::as_str);
        match (method, message.get("id")) {
            (Some(_), Some(id)) => {
                seen.counts.asked += 1;
                let reply = seen
                    .replies
                    .pop_front()
                    .unwrap_or_else(|| Reply::Result(accept()));
                drop(seen);
                let respond = |result: &Value| {
                    json!({"jsonrpc": "2.0", "id": id, "result": result})
                        .to_string()
                        .into_bytes()
                };
                match reply {
                    Reply::Result(v) => harness.send(line_of(respond(&v))),
                    Reply::Twice(v) => {
                        harness.send(line_of(respond(&v)));
                        harness.send(line_of(respond(&v)));
                    }
                    Reply::Error => harness.send(line_of(
                        json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": "no"}})
                            .to_string()
                            .into_bytes(),
                    )),
                    Reply::WrongId(v) => harness.send(line_of(
                        json!({"jsonrpc": "2.0", "id": 1_000_003, "result": v}).to_string().into_bytes(),
                    )),
                    Reply::Raw(bytes) => harness.send(line_of(bytes)),
                    Reply::Never => {}
                }
            }
            (Some(_), None) => {}
            (None, id) => {
                if let Some(id) = id.filter(|id| !id.is_null()) {
                    seen.answered.insert(id_key(id));
                }
                let result = message.get("result");
                if message.get("error").is_some() {
                    seen.counts.errors += 1;
                }
                let payload = result.and_then(|r| r.get("structuredContent"));
                if payload.and_then(|p| p.get("action")) == Some(&json!("accept")) {
                    if seen.modern {
                        seen.counts.accepted_modern += 1;
                    } else {
                        seen.counts.accepted_legacy += 1;
                    }
                }
                if payload
                    .and_then(|p| p.get("error"))
                    .and_then(|e| e.get("code"))
                    .is_some()
                {
                    seen.counts.tool_errors += 1;
                }
                if let Some(state) = result
                    .filter(|r| r.get("resultType") == Some(&json!("input_required")))
                    .and_then(|r| r.get("requestState"))
                    .and_then(Value::as_str)
                {
                    seen.counts.input_required += 1;
                    let form = seen.asked;
                    seen.states.push((form, state.to_owned()));
                }
                drop(seen);
            }
        }
        harness.changed.notify_waiters();
    }
    harness.seen().closed = true;
    harness.changed.notify_waiters();
}

fn line_of(mut bytes: Vec<u8>) -> Vec<u8> {
    bytes.push(b'\n');
    bytes
}

fn accept() -> Value {
    json!({"action": "accept", "content": {"goal": "speed", "format": "pdf"}})
}

/// The forms the tool calls ask.
fn form(i: usize) -> Value {
    match i % 4 {
        0 => crate::forms::report_form(),
        1 => crate::forms::files_form(),
        2 => crate::forms::template_form(),
        _ => json!({"message": "Pick", "questions": [
            {"id": "n", "type": "number", "title": "How many?", "required": true, "minimum": 0, "maximum": 10},
            {"id": "ok", "type": "boolean", "title": "Sure?", "required": false},
            {"id": "tags", "type": "multi_select", "title": "Tags", "required": false,
             "options": [{"id": "a", "title": "A"}, {"id": "b", "title": "B"}]}]}),
    }
}

fn native_caps() -> Value {
    json!({"elicitation": {"form": {}}, "extensions": {"openai/elicitation": {"form": {}}}})
}

fn capabilities(u: &mut Unstructured<'_>) -> arbitrary::Result<Value> {
    Ok(match u.int_in_range(0u8..=5)? {
        0 | 1 => native_caps(),
        2 => json!({"elicitation": {"form": {}}}),
        3 => json!({}),
        4 => json!({"extensions": {"openai/elicitation": {}}}),
        _ => {
            json!({"elicitation": {}, "extensions": {"openai/elicitation": {"form": {"x": 1}}, "other": true}})
        }
    })
}

/// An answer to a form, as a host might send it.
fn answer(u: &mut Unstructured<'_>) -> arbitrary::Result<Value> {
    let mut v = match u.int_in_range(0u8..=11)? {
        0..=2 => accept(),
        3 => json!({"action": "decline"}),
        4 => json!({"action": "cancel"}),
        5 => json!({"action": "accept", "content": {"format": "docx"}}),
        6 => json!({"action": "accept", "content": null}),
        7 => json!({"action": "accept", "content": {"format": "pdf"}, "extra": 1}),
        8 => json!({"action": "accept", "content": {"n": 3, "ok": true, "tags": ["a", "b"]}}),
        9 => json!({"action": "accept", "content": {"data": ["file:///a.csv"]}}),
        10 => json!("accept"),
        _ => json!({"action": "accept", "content": {"goal": "x".repeat(70_000), "format": "html"}}),
    };
    if u.ratio(1u8, 4)? {
        mutate(&mut v, u, 0)?;
    }
    Ok(v)
}

fn reply(u: &mut Unstructured<'_>) -> arbitrary::Result<Reply> {
    Ok(match u.int_in_range(0u8..=9)? {
        0..=4 => Reply::Result(answer(u)?),
        5 => Reply::Error,
        6 => Reply::Never,
        7 => Reply::Twice(answer(u)?),
        8 => Reply::WrongId(answer(u)?),
        _ => {
            let n = u.int_in_range(0usize..=64)?;
            Reply::Raw(u.bytes(n)?.to_vec())
        }
    })
}

/// An arbitrary JSON value, small.
fn any_value(u: &mut Unstructured<'_>, depth: u8) -> arbitrary::Result<Value> {
    Ok(match u.int_in_range(0u8..=9)? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => json!(u.arbitrary::<i64>()?),
        3 => json!(u.arbitrary::<u64>()?),
        4 => serde_json::Number::from_f64(u.arbitrary()?).map_or(Value::Null, Value::Number),
        5 | 6 => Value::String(u.arbitrary::<String>()?),
        7 if depth < 3 => {
            let n = u.int_in_range(0usize..=3)?;
            Value::Array(
                (0..n)
                    .map(|_| any_value(u, depth + 1))
                    .collect::<Result<_, _>>()?,
            )
        }
        8 if depth < 3 => {
            let n = u.int_in_range(0usize..=3)?;
            let mut m = Map::new();
            for _ in 0..n {
                m.insert(u.arbitrary::<String>()?, any_value(u, depth + 1)?);
            }
            Value::Object(m)
        }
        _ => json!(""),
    })
}

/// Replaces, removes or adds one field somewhere in `v`.
fn mutate(v: &mut Value, u: &mut Unstructured<'_>, depth: u8) -> arbitrary::Result<()> {
    let descend = depth < 4 && u.ratio(2u8, 3)?;
    match v {
        Value::Object(m) if !m.is_empty() => {
            let i = u.choose_index(m.len())?;
            let key = m.keys().nth(i).cloned().unwrap_or_default();
            if descend {
                if let Some(child) = m.get_mut(&key) {
                    return mutate(child, u, depth + 1);
                }
            }
            match u.int_in_range(0u8..=2)? {
                0 => {
                    m.remove(&key);
                }
                1 => {
                    m.insert(u.arbitrary::<String>()?, any_value(u, 0)?);
                }
                _ => {
                    m.insert(key, any_value(u, 0)?);
                }
            }
        }
        Value::Array(a) if !a.is_empty() => {
            let i = u.choose_index(a.len())?;
            if descend {
                return mutate(&mut a[i], u, depth + 1);
            }
            a[i] = any_value(u, 0)?;
        }
        other => *other = any_value(u, 0)?,
    }
    Ok(())
}

/// The session's generation and the client's state, as the frames are made.
struct Client {
    modern: bool,
    caps: Value,
    next_id: i64,
}

impl Client {
    /// The inline `_meta` of a 2026-07-28 request.
    fn meta(&self) -> Value {
        json!({
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientInfo": {"name": "fuzz", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": self.caps,
        })
    }

    fn id(&mut self, u: &mut Unstructured<'_>) -> arbitrary::Result<Value> {
        Ok(match u.int_in_range(0u8..=15)? {
            0 => json!(format!("s-{}", self.next_id)),
            1 => json!(self.next_id.saturating_sub(1)),
            2 => any_value(u, 2)?,
            _ => {
                self.next_id += 1;
                json!(self.next_id)
            }
        })
    }

    fn request(
        &mut self,
        u: &mut Unstructured<'_>,
        method: &str,
        mut params: Value,
    ) -> arbitrary::Result<Value> {
        if self.modern {
            if let Some(p) = params.as_object_mut() {
                p.insert("_meta".into(), self.meta());
            }
        }
        let mut frame = json!({"jsonrpc": "2.0", "id": self.id(u)?, "method": method});
        if !params.is_null() {
            frame["params"] = params;
        }
        Ok(frame)
    }
}

/// One frame: its bytes (a line) and whether the harness waits for an answer to its id.
fn frame(
    client: &mut Client,
    harness: &Harness,
    u: &mut Unstructured<'_>,
) -> arbitrary::Result<(Vec<u8>, Option<Value>)> {
    let choice = u.int_in_range(0u8..=19)?;
    let mut value = match choice {
        0 | 1 => {
            let version = match u.int_in_range(0u8..=5)? {
                0 | 1 => "2025-11-25".to_owned(),
                2 => "2025-06-18".to_owned(),
                3 => "2024-11-05".to_owned(),
                4 => MODERN.to_owned(),
                _ => u.arbitrary::<String>()?,
            };
            let caps = capabilities(u)?;
            json!({"jsonrpc": "2.0", "id": client.id(u)?, "method": "initialize", "params": {
                "protocolVersion": version, "capabilities": caps,
                "clientInfo": {"name": "fuzz", "version": "1"}}})
        }
        2 => json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        3 => client.request(u, "tools/list", json!({}))?,
        4..=8 => {
            let form_index = u.int_in_range(0usize..=3)?;
            let arguments = match u.int_in_range(0u8..=7)? {
                0 => json!({"message": "m", "questions": []}),
                1 => json!([1, 2]),
                2 => Value::Null,
                _ => form(form_index),
            };
            harness.seen().asked = form_index;
            let mut params = json!({"name": TOOL, "arguments": arguments});
            if u.ratio(1u8, 10)? {
                params["name"] = json!("no_such_tool");
            }
            client.request(u, "tools/call", params)?
        }
        9..=11 => {
            // A 2026-07-28 retry: the state the server gave, and an answer.
            let states = harness.seen().states.clone();
            let state = match u.int_in_range(0u8..=5)? {
                0 => None,
                1 => Some(Value::String(u.arbitrary::<String>()?)),
                2 => states.first().map(|(_, s)| json!(s)),
                3 => states.last().map(|(_, s)| {
                    // One byte of the state changed.
                    let mut bytes = s.clone().into_bytes();
                    let mid = bytes.len() / 2;
                    if let Some(b) = bytes.get_mut(mid) {
                        *b = if *b == b'A' { b'B' } else { b'A' };
                    }
                    json!(String::from_utf8(bytes).unwrap_or_else(|_| s.clone()))
                }),
                _ => states.last().map(|(_, s)| json!(s)),
            };
            let form_index = states.last().map_or(0, |(f, _)| *f);
            harness.seen().asked = form_index;
            let mut params = json!({"name": TOOL, "arguments": form(if u.ratio(1u8, 8)? { form_index + 1 } else { form_index })});
            if let Some(state) = state {
                params["requestState"] = state;
            }
            params["inputResponses"] = match u.int_in_range(0u8..=5)? {
                0 => json!({}),
                1 => json!({"other": answer(u)?}),
                2 => Value::Null,
                _ => json!({"form": answer(u)?}),
            };
            client.request(u, "tools/call", params)?
        }
        12 => client.request(u, "ping", Value::Null)?,
        13 => json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {
            "requestId": client.next_id, "reason": "fuzz"}}),
        14 => {
            // A stray response to a request the server may or may not have sent.
            let id = u.int_in_range(0i64..=4)?;
            json!({"jsonrpc": "2.0", "id": id, "result": answer(u)?})
        }
        15 => client.request(u, "server/discover", json!({}))?,
        16 => {
            let method = [
                "resources/list",
                "prompts/list",
                "completion/complete",
                "logging/setLevel",
                "x/unknown",
            ][u.choose_index(5)?];
            client.request(u, method, json!({}))?
        }
        17 => {
            let a = client.request(u, "tools/list", json!({}))?;
            json!([a, {"jsonrpc": "2.0", "method": "notifications/initialized"}])
        }
        _ => {
            let n = u.int_in_range(0usize..=200)?;
            let bytes = u.bytes(n)?.to_vec();
            return Ok((line_of(bytes), None));
        }
    };
    if u.ratio(1u8, 6)? {
        mutate(&mut value, u, 0)?;
    }
    let wait = value
        .get("id")
        .filter(|_| value.get("method").is_some())
        .cloned();
    let mut text = serde_json::to_vec(&value).unwrap_or_default();
    if u.ratio(1u8, 20)? {
        // The frame cut short, or with a trailing byte.
        let cut = u.int_in_range(0..=text.len())?;
        text.truncate(cut);
    }
    Ok((line_of(text), wait))
}

/// Runs one input: see the module's documentation.
pub fn run(data: &[u8]) {
    let _ = run_counted(data);
}

/// [`run`], returning what the input reached.
pub fn run_counted(data: &[u8]) -> Counts {
    let _in_session = InSession::enter();
    runtime().block_on(session(data))
}

async fn session(data: &[u8]) -> Counts {
    let mut u = Unstructured::new(data);
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let server = forms_mcp::FormsServer::new(SERVER_TIMEOUT);
    let served = tokio::spawn(async move {
        use rmcp::ServiceExt;
        if let Ok(running) = server.serve(forms_mcp::transport::keep(server_io)).await {
            let _ = running.waiting().await;
        }
    });
    let (read, mut write) = tokio::io::split(client_io);
    let (out, mut queue) = mpsc::unbounded_channel::<Option<Vec<u8>>>();
    let writer = tokio::spawn(async move {
        while let Some(Some(bytes)) = queue.recv().await {
            if write.write_all(&bytes).await.is_err() {
                break;
            }
        }
        let _ = write.shutdown().await;
        drop(write);
    });
    let harness = Arc::new(Harness {
        seen: Mutex::new(Seen::default()),
        changed: Notify::new(),
        out,
    });
    let reader = tokio::spawn(read_server(Arc::clone(&harness), read));
    let mut client = Client {
        modern: u.arbitrary().unwrap_or(false),
        caps: capabilities(&mut u).unwrap_or_else(|_| native_caps()),
        next_id: 0,
    };
    {
        let mut seen = harness.seen();
        seen.modern = client.modern;
        let n = u.int_in_range(0usize..=6).unwrap_or(0);
        for _ in 0..n {
            if let Ok(r) = reply(&mut u) {
                seen.replies.push_back(r);
            }
        }
    }
    if !client.modern && u.ratio(3u8, 4).unwrap_or(true) {
        // Most legacy sessions start well: initialize, then initialized.
        client.next_id = 1;
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": client.caps,
            "clientInfo": {"name": "fuzz", "version": "1"}}});
        harness.send(line_of(init.to_string().into_bytes()));
        wait_for(&harness, &json!(1)).await;
        harness.send(line_of(
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
                .to_string()
                .into_bytes(),
        ));
    }
    for _ in 0..FRAMES_MAX {
        if u.is_empty() {
            break;
        }
        let Ok((bytes, wait)) = frame(&mut client, &harness, &mut u) else {
            break;
        };
        harness.send(bytes);
        if let Some(id) = wait {
            wait_for(&harness, &id).await;
        }
        if reader.is_finished() {
            break;
        }
    }
    // Close the client's side: the server must end, and close its own.
    let _ = harness.out.send(None);
    let ended = tokio::time::timeout(CLOSE, async {
        let _ = writer.await;
        let served = served.await;
        (served, reader.await)
    })
    .await;
    match ended {
        Ok((served, read)) => {
            for task in [read, served] {
                if let Err(e) = task {
                    if e.is_panic() {
                        std::panic::resume_unwind(e.into_panic());
                    }
                    panic!("a task failed: {e}");
                }
            }
        }
        Err(_) => panic!(
            "the server did not end within {CLOSE:?} (virtual) after the client closed its side \
             ({} lines written)",
            harness.seen().counts.lines
        ),
    }
    let counts = harness.seen().counts;
    // Nothing of the session outlives it (when no other session shares the runtime).
    if SESSIONS.load(Ordering::SeqCst) == 1 {
        let alive = tokio::runtime::Handle::current()
            .metrics()
            .num_alive_tasks();
        assert_eq!(alive, 0, "{alive} tasks outlive the session");
    }
    counts
}

/// Sessions in progress in this process (the replay tests may run several at once).
static SESSIONS: AtomicUsize = AtomicUsize::new(0);

/// Counts a session while it lives.
struct InSession;

impl InSession {
    fn enter() -> InSession {
        SESSIONS.fetch_add(1, Ordering::SeqCst);
        InSession
    }
}

impl Drop for InSession {
    fn drop(&mut self) {
        SESSIONS.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Waits until the server answered `id`, or [`WAIT`] passed (virtual time), or it closed.
async fn wait_for(harness: &Harness, id: &Value) {
    let key = id_key(id);
    let _ = tokio::time::timeout(WAIT, async {
        loop {
            let mut changed = std::pin::pin!(harness.changed.notified());
            changed.as_mut().enable();
            let done = {
                let seen = harness.seen();
                seen.answered.contains(&key) || seen.closed
            };
            if done {
                return;
            }
            changed.await;
        }
    })
    .await;
}
