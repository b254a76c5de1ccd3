//! One answer, one verdict, on every path: each host answer of the answer tests (the
//! conformance corpus, the V1 shapes and repeated keys of the runtime's rule tests, the
//! refusals of `forms answer`'s tests, the security review's URI cases) is judged by
//! `forms answer` (the CLI binary) and by a real `forms-mcp` process on protocol 2025-11-25
//! (the host answers `openai/elicitation/create` mid-call) and on 2026-07-28 (the client
//! retries the call with `inputResponses`), over stdio and over streamable HTTP. Every path
//! must print the same payload, byte for byte.
//!
//! The MCP sides are driven with hand-written JSON-RPC, so the answer travels as the exact
//! text of the case (a repeated key included) and the results are read as the bytes on the
//! wire: every `tools/call` result carries `"resultType":"complete"` on 2026-07-28 and no
//! `resultType` on 2025-11-25.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

use forms_test_kit::answers::REFUSED_TEMPLATE_ANSWERS;
use forms_test_kit::bins;
use forms_test_kit::forms::template_form;
use forms_test_kit::interop::{LEGACY, MODERN};
mod common;

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const TOOL: &str = "form_elicitation_v2_request";
const ELICIT: &str = "openai/elicitation/create";
const CORE_ELICIT: &str = "elicitation/create";

// ---------------------------------------------------------------------------------------------
// The cases.

/// A form and a host answer, as JSON text.
struct Case {
    label: String,
    form: Value,
    answer: String,
}

fn case(label: impl Into<String>, form: &Value, answer: &str) -> Case {
    Case {
        label: label.into(),
        form: form.clone(),
        answer: answer.to_owned(),
    }
}

fn text_form() -> Value {
    json!({"message": "Answer these", "questions": [
        {"id": "goal", "type": "text", "title": "Question goal", "required": false}]})
}

fn files_form(offered: &[&str]) -> Value {
    let options: Vec<Value> = offered
        .iter()
        .map(|uri| json!({"uri": uri, "name": "n", "title": "t"}))
        .collect();
    json!({"message": "Pick", "questions": [
        {"id": "f", "type": "files", "title": "F", "required": false, "maxItems": 4,
         "options": options}]})
}

fn files_answer(items: &[&str]) -> String {
    json!({"action": "accept", "content": {"f": items}}).to_string()
}

/// The conformance corpus (`tests/corpus`): every response, accepted and refused, with the
/// verdict the case file records.
fn corpus() -> Vec<(Case, bool)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    let mut cases = Vec::new();
    for path in paths {
        let file: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        for (i, response) in file["responses"].as_array().unwrap().iter().enumerate() {
            cases.push((
                case(
                    format!("{name}#{i}"),
                    &file["form"],
                    &response["response"].to_string(),
                ),
                response["accepted"].as_bool().unwrap(),
            ));
        }
    }
    cases
}

/// The answers of the rule tests and of `forms answer`'s tests, as text.
fn listed() -> Vec<Case> {
    let text = text_form();
    let mut cases = Vec::new();
    // V1: the shapes the runtime accepts, and every other shape (forms-runtime's
    // answer_rules.rs), the repeated keys included.
    for answer in [
        r#"{"action":"accept","content":{}}"#,
        r#"{"action":"accept"}"#,
        r#"{"content":{},"action":"accept"}"#,
        r#"{"action":"decline"}"#,
        r#"{"action":"cancel"}"#,
        r#"{"action":"decline","_meta":{"x":[1,{"y":null}]}}"#,
        r#"{"_meta":{},"action":"accept","content":{"goal":"x"}}"#,
        " \n{ \"action\" : \"cancel\" }\t",
        "null",
        "[]",
        r#""accept""#,
        "1",
        "{}",
        r#"{"content":{}}"#,
        r#"{"action":"Accept"}"#,
        r#"{"action":"ok"}"#,
        r#"{"action":""}"#,
        r#"{"action":null}"#,
        r#"{"action":["accept"]}"#,
        r#"{"action":"accept","extra":1}"#,
        r#"{"action":"accept","Content":{}}"#,
        r#"{"action":"accept","content":null}"#,
        r#"{"action":"accept","content":[]}"#,
        r#"{"action":"accept","content":"goal"}"#,
        r#"{"action":"accept","content":7}"#,
        r#"{"action":"decline","content":{}}"#,
        r#"{"content":{},"action":"cancel"}"#,
        r#"{"action":"accept","_meta":null}"#,
        r#"{"action":"accept","_meta":[]}"#,
        r#"{"action":"accept","action":"accept"}"#,
        r#"{"action":"decline","action":"accept","content":{}}"#,
        r#"{"action":"accept","content":{},"content":{}}"#,
        r#"{"action":"accept","_meta":{},"_meta":{}}"#,
        // The answers that rmcp's typed reading used to change.
        r#"{"action":"accept","content":{"goal":"x"},"bogus":1}"#,
        r#"{"action":"decline","content":null}"#,
        r#"{"action":"cancel","content":null}"#,
        r#"{"action":"decline","bogus":{}}"#,
        r#"{"action":"accept","content":{"goal":"x","goal":"y"}}"#,
        // Texts that are not one JSON value cannot travel in a JSON-RPC message; `forms
        // answer` alone sees them (kept here to show they are left out, not lost).
        "",
        "accept",
        "{",
        r#"{"action":"accept"} x"#,
        r#"{"action":"accept"}{}"#,
        r#"{"action":"accept",}"#,
    ] {
        cases.push(case(format!("V1 {answer:?}"), &text, answer));
    }
    // V2: a repeated content key (answer_rules.rs).
    let report = json!({"message": "Answer these", "questions": [
        {"id": "goal", "type": "text", "title": "Question goal", "required": false},
        {"id": "format", "type": "single_select", "title": "Question format", "required": true,
         "options": [{"id": "pdf", "title": "PDF"}, {"id": "html", "title": "HTML"}]}]});
    for answer in [
        r#"{"action":"accept","content":{"format":"pdf","format":"html"}}"#,
        r#"{"action":"accept","content":{"format":"pdf","goal":"x"}}"#,
        r#"{"action":"accept","content":{"format":"pdf","colour":"red"}}"#,
        r#"{"action":"accept","content":{"Format":"pdf"}}"#,
    ] {
        cases.push(case(format!("V2 {answer}"), &report, answer));
    }
    // `forms answer`'s refusals (forms-cli's cli.rs).
    let template = template_form();
    let offered = r#"{"action":"accept","content":{"template":"https://example.com/verified-business-review"}}"#;
    for answer in std::iter::once(offered).chain(REFUSED_TEMPLATE_ANSWERS) {
        cases.push(case(format!("cli {answer}"), &template, answer));
    }
    // The security review's answers (forms-runtime's hostile_uris.rs).
    let required = json!({"message": "Pick", "questions": [
        {"id": "q", "type": "text", "title": "Q", "required": true}]});
    for answer in [
        r#"{"action":"accept","content":{"q":"\ufeff"}}"#,
        r#"{"action":"accept","content":{"q":"\u0085"}}"#,
    ] {
        cases.push(case(format!("V3 {answer}"), &required, answer));
    }
    let offered = files_form(&["file:///tmp/a.csv", "https://example.com/b.csv"]);
    for items in [
        &["file:///tmp/a.csv", "file://localhost/tmp/a.csv"][..],
        &["file://localhost/tmp/a.csv", "file:///tmp/a.csv"],
        &["file:///tmp/a.csv", "file:///tmp/%61.csv"],
        &["file:///tmp/a.csv", "FILE:///tmp/a.csv"],
        &["file:///tmp/a.csv", "file:///tmp/b.csv"],
        &[
            "file:///tmp/a.csv",
            "https://example.com/b.csv",
            "file:///tmp/A.csv",
        ],
    ] {
        cases.push(case(
            format!("V6 {items:?}"),
            &offered,
            &files_answer(items),
        ));
    }
    let user_added = files_form(&[]);
    for uri in [
        "file:////server/share/a.csv",
        "file://localhost//server/share/a.csv",
        "file://server/share/a.csv",
        "file:///%2Fserver/share/a.csv",
        "file:///a%5Cb.csv",
        "file:///home/me/../../etc/passwd",
        "file:///home/me/%2e%2e/x",
        "file:///a%00.csv",
        "file:///a%C2%85.csv",
        "file:///home/me/a.csv",
        "file://localhost/home/me/a.csv",
        "file:///C:/Users/me/a.csv",
    ] {
        cases.push(case(
            format!("R27 {uri}"),
            &user_added,
            &files_answer(&[uri]),
        ));
    }
    cases
}

/// Whether `answer` can travel in a JSON-RPC message: one JSON value, which rmcp reads.
fn travels(answer: &str) -> bool {
    serde_json::from_str::<Value>(answer).is_ok()
}

/// The answer as it goes into a message line: a JSON text's line breaks can only be
/// whitespace between its tokens, so they become spaces.
fn one_line(answer: &str) -> String {
    answer.replace(['\n', '\r'], " ")
}

// ---------------------------------------------------------------------------------------------
// `forms answer`.

/// The `forms` binary, built on demand.
fn forms_cli() -> PathBuf {
    bins::bin("forms")
}

use forms_test_kit::TempDir;

/// What `forms answer --form FORM` prints for `answer` on its standard input: the payload
/// (exit 0) or the error (exit 1).
fn cli_payload(dir: &TempDir, index: usize, case: &Case) -> String {
    let form = dir.0.join(format!("form-{index}.json"));
    std::fs::write(&form, case.form.to_string()).unwrap();
    let output = forms_test_kit::process::output_with_stdin(
        std::process::Command::new(forms_cli())
            .args(["answer", "--form"])
            .arg(&form),
        case.answer.as_bytes(),
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    let payload: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{}: forms answer printed {stdout:?}: {e}", case.label));
    let refused = payload.get("error").is_some();
    assert_eq!(
        output.status.code(),
        Some(if refused { 1 } else { 0 }),
        "{}: {stdout}",
        case.label
    );
    stdout.trim_end_matches('\n').to_owned()
}

// ---------------------------------------------------------------------------------------------
// A JSON-RPC peer of `forms-mcp`, by hand.

/// Capabilities of a host with native forms, and of one without the extension.
fn native_caps() -> Value {
    json!({"elicitation": {"form": {}}, "extensions": {"openai/elicitation": {"form": {}}}})
}

fn core_caps() -> Value {
    json!({"elicitation": {"form": {}}})
}

/// The per-request `_meta` of a 2026-07-28 request.
fn modern_meta(caps: &Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "wire-host", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": caps,
    })
}

fn initialize(caps: &Value) -> String {
    json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": caps,
        "clientInfo": {"name": "wire-host", "version": "1"}}})
    .to_string()
}

const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn call_line(
    id: u64,
    arguments: &Value,
    meta: Option<&Value>,
    retry: Option<(&str, &str)>,
) -> String {
    let mut params = format!(r#"{{"name":{},"arguments":{}"#, json!(TOOL), arguments);
    if let Some(meta) = meta {
        params.push_str(&format!(r#","_meta":{meta}"#));
    }
    if let Some((state, answer)) = retry {
        params.push_str(&format!(
            r#","requestState":{},"inputResponses":{{"form":{}}}"#,
            json!(state),
            one_line(answer)
        ));
    }
    params.push('}');
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{params}}}"#)
}

fn answer_line(id: &Value, answer: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{}}}"#,
        one_line(answer)
    )
}

/// How a connection to `forms-mcp` carries messages: one line each way over stdio; over
/// HTTP, a `POST` per message whose response stream carries the server's messages.
trait Wire {
    /// Sends `message`; for a request, the server's messages answering it follow.
    async fn send(&mut self, message: String);
    /// The next message from the server, as the bytes it sent and as JSON.
    async fn next(&mut self) -> (String, Value);
}

/// The result of the `tools/call` request `id`, read off the wire, answering each
/// `openai/elicitation/create` on the way with `answer` (none: never answered).
async fn until_result(wire: &mut impl Wire, id: u64, answer: Option<&str>) -> (String, Value) {
    loop {
        let (raw, message) = wire.next().await;
        if message["method"] == ELICIT || message["method"] == CORE_ELICIT {
            if let Some(answer) = answer {
                wire.send(answer_line(&message["id"], answer)).await;
            }
            continue;
        }
        if message["id"] == json!(id) {
            assert!(message.get("result").is_some(), "{raw}");
            return (raw, message);
        }
    }
}

/// One legacy call: `tools/call`, the mid-call elicitation answered with `answer`, the
/// result.
async fn legacy_call(
    wire: &mut impl Wire,
    id: u64,
    arguments: &Value,
    answer: Option<&str>,
) -> (String, Value) {
    wire.send(call_line(id, arguments, None, None)).await;
    until_result(wire, id, answer).await
}

/// One multi-round-trip call: the first round's input-required result, then the retry
/// with `answer` (none: the first result, whatever it is).
async fn modern_call(
    wire: &mut impl Wire,
    id: u64,
    arguments: &Value,
    caps: &Value,
    answer: Option<&str>,
) -> (String, Value) {
    let meta = modern_meta(caps);
    wire.send(call_line(id, arguments, Some(&meta), None)).await;
    let (raw, first) = until_result(wire, id, None).await;
    let Some(answer) = answer else {
        return (raw, first);
    };
    assert_eq!(first["result"]["resultType"], "input_required", "{raw}");
    assert!(
        first["result"]["inputRequests"]["form"].is_object(),
        "{raw}"
    );
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    wire.send(call_line(
        id + 1,
        arguments,
        Some(&meta),
        Some((&state, answer)),
    ))
    .await;
    until_result(wire, id + 1, None).await
}

/// `forms-mcp` over stdio.
struct StdioWire {
    _child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    stdout: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
}

impl StdioWire {
    fn spawn(timeout_ms: u64, args: &[&str]) -> StdioWire {
        let mut child = common::server_command(timeout_ms)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        StdioWire {
            stdin: child.stdin.take().unwrap(),
            stdout: BufReader::new(child.stdout.take().unwrap()).lines(),
            _child: child,
        }
    }

    /// A legacy session: `initialize` with `caps`, then `notifications/initialized`.
    async fn legacy(timeout_ms: u64, caps: &Value) -> StdioWire {
        StdioWire::legacy_with(timeout_ms, caps, &[]).await
    }

    /// The same, with `forms-mcp ARGS…`.
    async fn legacy_with(timeout_ms: u64, caps: &Value, args: &[&str]) -> StdioWire {
        let mut wire = StdioWire::spawn(timeout_ms, args);
        wire.send(initialize(caps)).await;
        let (raw, reply) = wire.next().await;
        assert_eq!(reply["result"]["protocolVersion"], LEGACY, "{raw}");
        wire.send(INITIALIZED.to_owned()).await;
        wire
    }
}

impl Wire for StdioWire {
    async fn send(&mut self, message: String) {
        assert!(!message.contains('\n'));
        self.stdin.write_all(message.as_bytes()).await.unwrap();
        self.stdin.write_all(b"\n").await.unwrap();
        self.stdin.flush().await.unwrap();
    }

    async fn next(&mut self) -> (String, Value) {
        let line = tokio::time::timeout(Duration::from_secs(20), self.stdout.next_line())
            .await
            .expect("no message from forms-mcp in time")
            .unwrap()
            .expect("forms-mcp closed its output");
        let message = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{line}: {e}"));
        (line, message)
    }
}

/// `forms-mcp --http` driven with reqwest: each request's response stream is read event by
/// event; notifications and responses get `202 Accepted`.
struct HttpWire {
    http: reqwest::Client,
    url: String,
    protocol: &'static str,
    session: Option<String>,
    streams: Vec<(reqwest::Response, Vec<u8>)>,
}

impl HttpWire {
    fn new(url: &str, protocol: &'static str) -> HttpWire {
        HttpWire {
            http: reqwest::Client::new(),
            url: url.to_owned(),
            protocol,
            session: None,
            streams: Vec::new(),
        }
    }

    async fn legacy(url: &str, caps: &Value) -> HttpWire {
        let mut wire = HttpWire::new(url, LEGACY);
        wire.send(initialize(caps)).await;
        let (raw, reply) = wire.next().await;
        assert_eq!(reply["result"]["protocolVersion"], LEGACY, "{raw}");
        wire.send(INITIALIZED.to_owned()).await;
        wire
    }
}

impl Wire for HttpWire {
    async fn send(&mut self, message: String) {
        let parsed: Value = serde_json::from_str(&message).unwrap_or(Value::Null);
        let is_request = parsed.get("method").is_some() && parsed.get("id").is_some();
        let mut post = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", self.protocol)
            .body(message.clone());
        if let Some(session) = &self.session {
            post = post.header("mcp-session-id", session);
        }
        if self.protocol == MODERN && is_request {
            // 2026-07-28 repeats the method and the tool name in headers.
            post = post
                .header("mcp-method", parsed["method"].as_str().unwrap())
                .header("mcp-name", parsed["params"]["name"].as_str().unwrap());
        }
        let response = post.send().await.unwrap();
        if let Some(session) = response.headers().get("mcp-session-id") {
            self.session = Some(session.to_str().unwrap().to_owned());
        }
        let status = response.status();
        if is_request {
            assert!(status.is_success(), "{status} for {message}");
            self.streams.push((response, Vec::new()));
        } else {
            assert_eq!(status.as_u16(), 202, "{message}");
        }
    }

    async fn next(&mut self) -> (String, Value) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        loop {
            // The newest stream first: it answers the request just sent.
            let (response, buffer) = self.streams.last_mut().expect("no open response");
            let json = response
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.starts_with("application/json"));
            if let Some(end) = buffer.windows(2).position(|w| w == b"\n\n") {
                let event: Vec<u8> = buffer.drain(..end + 2).collect();
                let event = String::from_utf8(event).unwrap();
                let data: Vec<&str> = event
                    .lines()
                    .filter_map(|line| line.strip_prefix("data:"))
                    .map(|data| data.strip_prefix(' ').unwrap_or(data))
                    .collect();
                if data.is_empty() || data.concat().is_empty() {
                    continue;
                }
                let raw = data.join("\n");
                let message = serde_json::from_str(&raw).unwrap_or_else(|e| panic!("{raw}: {e}"));
                return (raw, message);
            }
            let chunk = tokio::time::timeout_at(deadline, response.chunk())
                .await
                .expect("no message from forms-mcp in time")
                .unwrap();
            match chunk {
                Some(bytes) => buffer.extend_from_slice(&bytes),
                None if json => {
                    let (_, raw) = self.streams.pop().unwrap();
                    let raw = String::from_utf8(raw).unwrap();
                    let message = serde_json::from_str(&raw).unwrap();
                    return (raw, message);
                }
                None => {
                    assert!(
                        buffer.iter().all(u8::is_ascii_whitespace),
                        "unterminated event {buffer:?}"
                    );
                    self.streams.pop();
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The differential test.

/// The payload a result gives, after checking the envelope: `content[0].text` is the text
/// of `structuredContent`, `isError` is there exactly for an error, and `resultType` is as
/// the protocol generation wants it, in the bytes on the wire.
fn result_text(label: &str, protocol: &str, raw: &str, message: &Value) -> String {
    let result = &message["result"];
    let text = result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{label}: no content[0].text in {raw}"));
    assert_eq!(result["content"][0]["type"], "text", "{label}: {raw}");
    assert_eq!(
        serde_json::from_str::<Value>(text).unwrap(),
        result["structuredContent"],
        "{label}: {raw}"
    );
    let refused = result["structuredContent"].get("error").is_some();
    assert_eq!(
        result.get("isError"),
        refused.then_some(&json!(true)),
        "{label}: {raw}"
    );
    if protocol == MODERN {
        assert!(raw.contains(r#""resultType":"complete""#), "{label}: {raw}");
    } else {
        assert!(!raw.contains("resultType"), "{label}: {raw}");
    }
    text.to_owned()
}

/// Whether two JSON texts hold the same value: `forms answer` writes terminal controls as
/// `\uXXXX` escapes, the tool result carries them as characters.
fn same_json(a: &str, b: &str) -> bool {
    match (
        serde_json::from_str::<Value>(a),
        serde_json::from_str::<Value>(b),
    ) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_answer_gets_one_verdict_on_every_path() {
    let mut cases = Vec::new();
    let corpus = corpus();
    let recorded = corpus.len();
    for (case, accepted) in corpus {
        cases.push((case, Some(accepted)));
    }
    cases.extend(listed().into_iter().map(|case| (case, None)));

    let dir = TempDir::new("mcp-answer-paths");
    let server = common::start_http(10_000).await;
    let mut legacy_stdio = StdioWire::legacy(10_000, &native_caps()).await;
    let mut modern_stdio = StdioWire::spawn(10_000, &[]);
    let mut legacy_http = HttpWire::legacy(&server.url, &native_caps()).await;
    let mut modern_http = HttpWire::new(&server.url, MODERN);

    // `forms answer` on every case first, a few processes at a time.
    let cli: Vec<String> = std::thread::scope(|scope| {
        let chunk = cases.len().div_ceil(4);
        let workers: Vec<_> = cases
            .chunks(chunk)
            .enumerate()
            .map(|(n, part)| {
                let dir = &dir;
                scope.spawn(move || {
                    part.iter()
                        .enumerate()
                        .map(|(i, (case, _))| cli_payload(dir, n * chunk + i, case))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| worker.join().unwrap())
            .collect()
    });

    let mut differences = Vec::new();
    let (mut carried, mut refused, mut left_out) = (0, 0, 0);
    for (index, ((case, accepted), cli)) in cases.iter().zip(cli).enumerate() {
        let cli_refused = cli.starts_with(r#"{"error":"#);
        if let Some(accepted) = accepted {
            assert_eq!(
                !cli_refused, *accepted,
                "{}: the corpus says otherwise: {cli}",
                case.label
            );
        }
        if !travels(&case.answer) {
            assert!(cli_refused, "{}: {cli}", case.label);
            left_out += 1;
            continue;
        }
        carried += 1;
        refused += usize::from(cli_refused);
        let id = 10 * index as u64 + 10;
        let answer = Some(case.answer.as_str());
        // The four paths at once: each has its own connection.
        let caps = native_caps();
        let (a, b, c, d) = tokio::join!(
            legacy_call(&mut legacy_stdio, id, &case.form, answer),
            modern_call(&mut modern_stdio, id, &case.form, &caps, answer),
            legacy_call(&mut legacy_http, id, &case.form, answer),
            modern_call(&mut modern_http, id, &case.form, &caps, answer),
        );
        let paths = [
            ("2025-11-25 stdio", LEGACY, a),
            ("2026-07-28 stdio", MODERN, b),
            ("2025-11-25 http", LEGACY, c),
            ("2026-07-28 http", MODERN, d),
        ];
        for (path, protocol, (raw, message)) in paths {
            let label = format!("{} over {path}", case.label);
            let text = result_text(&label, protocol, &raw, &message);
            if !same_json(&text, &cli) {
                differences.push(format!(
                    "{label}\n  answer:       {}\n  forms answer: {cli}\n  forms-mcp:    {text}",
                    case.answer
                ));
            }
        }
    }
    assert!(
        differences.is_empty(),
        "{} differences:\n{}",
        differences.len(),
        differences.join("\n")
    );
    // The test sees what it claims to see.
    assert!(recorded >= 250, "{recorded} corpus responses");
    assert!(refused >= 200, "{refused} refusals carried");
    assert!(carried >= 300, "{carried} answers carried");
    assert_eq!(left_out, 7, "texts that are not one JSON value");
}

/// Whether `form` has a `files` question, which a host without the extension cannot show.
fn has_files(form: &Value) -> bool {
    form["questions"]
        .as_array()
        .is_some_and(|qs| qs.iter().any(|q| q["type"] == "files"))
}

/// The same answers on the core paths: `forms-mcp --core-fallback` asked by a host that
/// advertises core elicitation only, which receives a core `elicitation/create` (mid-call on
/// 2025-11-25, as the input request on 2026-07-28) and answers it with the case's text. Every
/// form without a `files` question gets the verdict `forms answer` gives, byte for byte; a
/// form with one gets `unsupported_client` naming the question, before anything is sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_answer_gets_the_same_verdict_on_the_core_paths() {
    let mut cases: Vec<Case> = corpus().into_iter().map(|(case, _)| case).collect();
    cases.extend(listed());
    let dir = TempDir::new("mcp-answer-paths");
    let caps = core_caps();
    let server = common::start_http_with(10_000, &["--core-fallback"], &[]).await;
    let mut legacy_stdio = StdioWire::legacy_with(10_000, &caps, &["--core-fallback"]).await;
    let mut modern_stdio = StdioWire::spawn(10_000, &["--core-fallback"]);
    let mut legacy_http = HttpWire::legacy(&server.url, &caps).await;
    let mut modern_http = HttpWire::new(&server.url, MODERN);

    let mut differences = Vec::new();
    let (mut carried, mut refused, mut files) = (0, 0, 0);
    for (index, case) in cases.iter().enumerate() {
        if !travels(&case.answer) {
            continue;
        }
        let expected = if has_files(&case.form) {
            files += 1;
            None
        } else {
            let cli = cli_payload(&dir, index, case);
            carried += 1;
            refused += usize::from(cli.starts_with(r#"{"error":"#));
            Some(cli)
        };
        let id = 10 * index as u64 + 10;
        let answer = Some(case.answer.as_str());
        let (a, b, c, d) = tokio::join!(
            legacy_call(&mut legacy_stdio, id, &case.form, answer),
            modern_call(
                &mut modern_stdio,
                id,
                &case.form,
                &caps,
                expected.is_some().then_some(case.answer.as_str())
            ),
            legacy_call(&mut legacy_http, id, &case.form, answer),
            modern_call(
                &mut modern_http,
                id,
                &case.form,
                &caps,
                expected.is_some().then_some(case.answer.as_str())
            ),
        );
        let paths = [
            ("core 2025-11-25 stdio", LEGACY, a),
            ("core 2026-07-28 stdio", MODERN, b),
            ("core 2025-11-25 http", LEGACY, c),
            ("core 2026-07-28 http", MODERN, d),
        ];
        for (path, protocol, (raw, message)) in paths {
            let label = format!("{} over {path}", case.label);
            let text = result_text(&label, protocol, &raw, &message);
            match &expected {
                Some(cli) if !same_json(&text, cli) => differences.push(format!(
                    "{label}\n  answer:       {}\n  forms answer: {cli}\n  forms-mcp:    {text}",
                    case.answer
                )),
                Some(_) => {}
                None => {
                    let payload: Value = serde_json::from_str(&text).unwrap();
                    assert_eq!(
                        payload["error"]["code"], "unsupported_client",
                        "{label}: {text}"
                    );
                    assert!(
                        payload["error"]["message"]
                            .as_str()
                            .unwrap()
                            .contains("is a files question"),
                        "{label}: {text}"
                    );
                }
            }
        }
    }
    assert!(
        differences.is_empty(),
        "{} differences:\n{}",
        differences.len(),
        differences.join("\n")
    );
    // The test sees what it claims to see.
    assert!(refused >= 150, "{refused} refusals carried");
    assert!(carried >= 250, "{carried} answers carried");
    assert!(files >= 10, "{files} files cases");
}

// ---------------------------------------------------------------------------------------------
// `resultType` on the wire.

/// Every kind of `tools/call` result, as the bytes on the wire: `"resultType":"complete"` on
/// 2026-07-28, no `resultType` on 2025-11-25; the envelope the same on both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn result_type_is_complete_on_2026_07_28_and_absent_on_2025_11_25() {
    let server = common::start_http(10_000).await;
    let slow = common::start_http(300).await;
    let mut seen = Vec::new();
    // stdio.
    let mut legacy = StdioWire::legacy(10_000, &native_caps()).await;
    let mut modern = StdioWire::spawn(10_000, &[]);
    seen.extend(outcomes("stdio", &mut legacy, &mut modern).await);
    let mut bare = StdioWire::legacy(10_000, &core_caps()).await;
    seen.extend(unsupported("stdio", &mut bare, &mut modern).await);
    let mut legacy = StdioWire::legacy(300, &native_caps()).await;
    let mut modern = StdioWire::spawn(300, &[]);
    seen.extend(timeouts("stdio", &mut legacy, &mut modern).await);
    // Streamable HTTP.
    let mut legacy = HttpWire::legacy(&server.url, &native_caps()).await;
    let mut modern = HttpWire::new(&server.url, MODERN);
    seen.extend(outcomes("http", &mut legacy, &mut modern).await);
    let mut bare = HttpWire::legacy(&server.url, &core_caps()).await;
    seen.extend(unsupported("http", &mut bare, &mut modern).await);
    let mut legacy = HttpWire::legacy(&slow.url, &native_caps()).await;
    let mut modern = HttpWire::new(&slow.url, MODERN);
    seen.extend(timeouts("http", &mut legacy, &mut modern).await);
    assert_eq!(seen.len(), 2 * 2 * (5 + 1 + 1), "{seen:#?}");
}

/// Accept, decline, cancel, an invalid answer and invalid arguments, on both generations.
async fn outcomes(transport: &str, legacy: &mut impl Wire, modern: &mut impl Wire) -> Vec<String> {
    let form = text_form();
    let bad_form = json!({"message": "", "questions": []});
    let cases: [(&str, &Value, Option<&str>, &str); 5] = [
        (
            "accept",
            &form,
            Some(r#"{"action":"accept","content":{"goal":"Churn"}}"#),
            r#"{"action":"accept","content":{"goal":"Churn"}}"#,
        ),
        (
            "decline",
            &form,
            Some(r#"{"action":"decline"}"#),
            r#"{"action":"decline"}"#,
        ),
        (
            "cancel",
            &form,
            Some(r#"{"action":"cancel"}"#),
            r#"{"action":"cancel"}"#,
        ),
        (
            "invalid_response",
            &form,
            Some(r#"{"action":"accept","bogus":1}"#),
            "invalid_response",
        ),
        ("invalid_arguments", &bad_form, None, "invalid_arguments"),
    ];
    let mut seen = Vec::new();
    for (index, (name, arguments, answer, expected)) in cases.into_iter().enumerate() {
        let id = 10 * index as u64 + 1000;
        let (raw, message) = legacy_call(legacy, id, arguments, answer).await;
        seen.push(check_outcome(
            transport, LEGACY, name, expected, &raw, &message,
        ));
        let (raw, message) = modern_call(modern, id, arguments, &native_caps(), answer).await;
        seen.push(check_outcome(
            transport, MODERN, name, expected, &raw, &message,
        ));
    }
    seen
}

/// A client without the extension: `unsupported_client` on both generations.
async fn unsupported(
    transport: &str,
    legacy: &mut impl Wire,
    modern: &mut impl Wire,
) -> Vec<String> {
    let form = text_form();
    let (raw, message) = legacy_call(legacy, 2000, &form, None).await;
    let a = check_outcome(
        transport,
        LEGACY,
        "unsupported_client",
        "unsupported_client",
        &raw,
        &message,
    );
    let (raw, message) = modern_call(modern, 2000, &form, &core_caps(), None).await;
    let b = check_outcome(
        transport,
        MODERN,
        "unsupported_client",
        "unsupported_client",
        &raw,
        &message,
    );
    vec![a, b]
}

/// No answer within the timeout (300 ms): `timeout` on both generations.
async fn timeouts(transport: &str, legacy: &mut impl Wire, modern: &mut impl Wire) -> Vec<String> {
    let form = text_form();
    let (raw, message) = legacy_call(legacy, 3000, &form, None).await;
    let a = check_outcome(transport, LEGACY, "timeout", "timeout", &raw, &message);
    // The first round, then the retry after the state's time has passed.
    let meta = modern_meta(&native_caps());
    modern.send(call_line(3000, &form, Some(&meta), None)).await;
    let (raw, first) = until_result(modern, 3000, None).await;
    assert_eq!(first["result"]["resultType"], "input_required", "{raw}");
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    tokio::time::sleep(Duration::from_millis(600)).await;
    let answer = r#"{"action":"decline"}"#;
    modern
        .send(call_line(3001, &form, Some(&meta), Some((&state, answer))))
        .await;
    let (raw, message) = until_result(modern, 3001, None).await;
    let b = check_outcome(transport, MODERN, "timeout", "timeout", &raw, &message);
    vec![a, b]
}

fn check_outcome(
    transport: &str,
    protocol: &str,
    name: &str,
    expected: &str,
    raw: &str,
    message: &Value,
) -> String {
    let label = format!("{name} on {protocol} over {transport}");
    let text = result_text(&label, protocol, raw, message);
    if expected.starts_with('{') {
        assert_eq!(text, expected, "{label}");
    } else {
        assert_eq!(
            serde_json::from_str::<Value>(&text).unwrap()["error"]["code"],
            expected,
            "{label}: {raw}"
        );
    }
    label
}

/// The requested-reply tools (`--asks`) too: a payload and a refusal, each with
/// `"resultType":"complete"` on 2026-07-28 and without it on 2025-11-25.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_tool_results_carry_result_type_on_2026_07_28_only() {
    let dir = TempDir::new("mcp-answer-paths");
    let db = dir.0.join("asks.db").display().to_string();
    let conversation = "chat-result-type";
    {
        let asks = forms_ask::Asks::open_location(&db).unwrap();
        let conversation = forms_ask::ConversationId::new(conversation).unwrap();
        for member in ["agent", "ana"] {
            asks.join(&conversation, &forms_ask::Principal::new(member).unwrap())
                .unwrap();
        }
    }
    let args = ["--asks", db.as_str(), "--principal", "agent"];
    let mut legacy = StdioWire::spawn(10_000, &args);
    legacy.send(initialize(&core_caps())).await;
    legacy.next().await;
    legacy.send(INITIALIZED.to_owned()).await;
    let mut modern = StdioWire::spawn(10_000, &args);
    let meta = modern_meta(&core_caps());
    let calls = [
        (
            "ask_open",
            json!({"conversation": conversation, "body": "Ship it?", "key": "k1"}),
            false,
        ),
        ("ask_show", json!({"id": "nope", "extra": 1}), true),
    ];
    let mut id = 1;
    for (protocol, wire, meta) in [
        (LEGACY, &mut legacy, None),
        (MODERN, &mut modern, Some(&meta)),
    ] {
        for (tool, arguments, refused) in &calls {
            id += 1;
            let mut line: Value =
                serde_json::from_str(&call_line(id, arguments, meta, None)).unwrap();
            line["params"]["name"] = json!(tool);
            wire.send(line.to_string()).await;
            let (raw, message) = until_result(wire, id, None).await;
            let label = format!("{tool} on {protocol}");
            let result = &message["result"];
            assert_eq!(
                result["structuredContent"].get("error").is_some(),
                *refused,
                "{label}: {raw}"
            );
            assert_eq!(result["isError"], json!(refused), "{label}: {raw}");
            assert_eq!(
                serde_json::from_str::<Value>(result["content"][0]["text"].as_str().unwrap())
                    .unwrap(),
                result["structuredContent"],
                "{label}: {raw}"
            );
            if protocol == MODERN {
                assert!(raw.contains(r#""resultType":"complete""#), "{label}: {raw}");
            } else {
                assert!(!raw.contains("resultType"), "{label}: {raw}");
            }
        }
    }
    assert_eq!(id, 1 + 2 * calls.len() as u64, "every call was checked");
}

/// Many asks waiting on one connection at once, their answers arriving together in one
/// write: each ask gets its own answer, as sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_legacy_asks_each_get_their_own_answer() {
    const CALLS: u64 = 60;
    let form = text_form();
    let mut wire = StdioWire::legacy(10_000, &native_caps()).await;
    for id in 1..=CALLS {
        let mut arguments = form.clone();
        arguments["message"] = json!(format!("call {id}"));
        wire.send(call_line(id, &arguments, None, None)).await;
    }
    // Every request first, then every answer in one write: the answer names its call.
    let mut answers = String::new();
    for _ in 0..CALLS {
        let (raw, message) = wire.next().await;
        assert_eq!(message["method"], ELICIT, "{raw}");
        let call = message["params"]["message"].as_str().unwrap().to_owned();
        let answer = json!({"action": "accept", "content": {"goal": call}}).to_string();
        answers.push_str(&answer_line(&message["id"], &answer));
        answers.push('\n');
    }
    wire.stdin.write_all(answers.as_bytes()).await.unwrap();
    wire.stdin.flush().await.unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..CALLS {
        let (raw, message) = wire.next().await;
        let id = message["id"].as_u64().unwrap();
        let text = result_text("concurrent", LEGACY, &raw, &message);
        assert_eq!(
            text,
            json!({"action": "accept", "content": {"goal": format!("call {id}")}}).to_string(),
            "{raw}"
        );
        seen.insert(id);
    }
    assert_eq!(seen.len(), CALLS as usize);
}
