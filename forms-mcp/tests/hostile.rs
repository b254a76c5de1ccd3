//! `forms-mcp --http` against hostile peers: the real binary on 127.0.0.1, attacked over raw
//! TCP sockets (foreign `Origin` and `Host`, slow headers, an endless body, floods of
//! connections, sessions and unfinished bodies, another token on a session or a request
//! state), while a normal client still gets its answers.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod common;

use common::*;
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

type Client = rmcp::service::RunningService<rmcp::RoleClient, Host>;

/// A `forms-mcp --http 127.0.0.1:0` process started for one attack.
struct Server {
    child: tokio::process::Child,
    port: u16,
    /// The lines the server wrote on stderr after the address.
    notes: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Server {
    /// Starts the server with `args`, `env` and, when given, an open-file limit.
    async fn start(args: &[&str], env: &[(&str, &str)], nofile: Option<u32>) -> Server {
        let binary = env!("CARGO_BIN_EXE_forms-mcp");
        let mut command = match nofile {
            Some(limit) => {
                let mut c = tokio::process::Command::new("sh");
                c.args([
                    "-c",
                    &format!("ulimit -n {limit} && exec \"$0\" \"$@\""),
                    binary,
                ]);
                c
            }
            None => tokio::process::Command::new(binary),
        };
        command
            .args(["--http", "127.0.0.1:0"])
            .args(args)
            .env("DATA_FORMS_TIMEOUT_MS", "10000")
            .envs(env.iter().copied())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        let mut child = command.spawn().unwrap();
        let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
        let url = listening_url(&mut lines).await;
        let port = url
            .strip_prefix("http://127.0.0.1:")
            .and_then(|rest| rest.strip_suffix("/mcp"))
            .and_then(|port| port.parse().ok())
            .unwrap_or_else(|| panic!("no port in {url}"));
        let notes = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = notes.clone();
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                kept.lock().unwrap().push(line);
            }
        });
        Server { child, port, notes }
    }

    fn pid(&self) -> u32 {
        self.child.id().unwrap()
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    /// Connects `host` with rmcp's streamable HTTP client (protocol 2025-11-25).
    async fn client(&self, host: Host) -> Client {
        use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
        use rmcp::ServiceExt;
        let config = StreamableHttpClientTransportConfig::with_uri(self.url());
        let transport = rmcp::transport::StreamableHttpClientTransport::from_config(config);
        host.serve(transport).await.unwrap()
    }

    /// The server's resident memory in KiB.
    fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap()
    }

    /// How many files the server holds open.
    fn open_files(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.pid()))
            .unwrap()
            .count()
    }

    async fn connect(&self) -> TcpStream {
        TcpStream::connect(("127.0.0.1", self.port)).await.unwrap()
    }

    /// Sends one request on a new connection and reads the whole response.
    async fn send(&self, request: &Request) -> Response {
        let mut stream = self.connect().await;
        stream.write_all(&request.bytes(self.port)).await.unwrap();
        read_response(&mut stream).await
    }
}

/// A request to `/mcp`, written by hand.
#[derive(Clone)]
struct Request {
    method: &'static str,
    host: Option<String>,
    headers: Vec<(String, String)>,
    body: String,
}

impl Request {
    fn post(body: Value) -> Request {
        Request {
            method: "POST",
            host: None,
            headers: Vec::new(),
            body: body.to_string(),
        }
    }

    fn header(mut self, name: &str, value: &str) -> Request {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    fn host(mut self, host: &str) -> Request {
        self.host = Some(host.to_owned());
        self
    }

    fn bytes(&self, port: u16) -> Vec<u8> {
        let host = self
            .host
            .clone()
            .unwrap_or_else(|| format!("127.0.0.1:{port}"));
        let mut text = format!(
            "{} /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nConnection: close\r\n\
             Content-Length: {}\r\n",
            self.method,
            self.body.len()
        );
        for (name, value) in &self.headers {
            text.push_str(&format!("{name}: {value}\r\n"));
        }
        text.push_str("\r\n");
        text.push_str(&self.body);
        text.into_bytes()
    }
}

/// A response read to the end of the connection.
#[derive(Debug)]
struct Response {
    status: u16,
    head: String,
    body: String,
}

impl Response {
    fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|line| {
            let (n, v) = line.split_once(':')?;
            n.eq_ignore_ascii_case(name).then(|| v.trim().to_owned())
        })
    }

    /// The JSON-RPC message of the response (the `data:` line of an event stream, or the
    /// plain JSON body).
    fn message(&self) -> Value {
        self.body
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|m| m.get("id").is_some())
            .or_else(|| serde_json::from_str(self.body.trim()).ok())
            .unwrap_or_else(|| panic!("no JSON-RPC message in {self:?}"))
    }
}

async fn read_response(stream: &mut TcpStream) -> Response {
    let mut bytes = Vec::new();
    tokio::time::timeout(Duration::from_secs(20), stream.read_to_end(&mut bytes))
        .await
        .expect("the response did not end")
        .unwrap();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {text:?}"));
    Response {
        status,
        head: head.to_owned(),
        body: body.to_owned(),
    }
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": native_caps(),
        "clientInfo": {"name": "raw", "version": "1"}}})
}

fn initialized() -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
}

fn tools_list() -> Value {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
}

/// Opens a legacy session with `initialize` and `notifications/initialized`, as `token`.
async fn open_session(server: &Server, token: Option<&str>) -> String {
    let bearer = |r: Request| match token {
        Some(t) => r.header("Authorization", &format!("Bearer {t}")),
        None => r,
    };
    let reply = server.send(&bearer(Request::post(initialize()))).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    let id = reply.header("mcp-session-id").expect("a session id");
    let done = server
        .send(
            &bearer(Request::post(initialized()))
                .header("Mcp-Session-Id", &id)
                .header("MCP-Protocol-Version", "2025-11-25"),
        )
        .await;
    assert_eq!(done.status, 202, "{done:?}");
    id
}

/// `tools/list` on session `id` with extra headers.
fn list_in(id: &str) -> Request {
    Request::post(tools_list())
        .header("Mcp-Session-Id", id)
        .header("MCP-Protocol-Version", "2025-11-25")
}

/// A normal client: connects over rmcp's streamable HTTP client, calls the Data tool and
/// gets the person's answer.
async fn a_normal_call_answers(server: &Server) {
    let host = Host::answering(json!({"action": "accept", "content": {"format": "pdf"}}));
    let client = tokio::time::timeout(Duration::from_secs(20), server.client(host))
        .await
        .expect("the normal client could not connect in time");
    let result = tokio::time::timeout(
        Duration::from_secs(20),
        client.call_tool(call(report_form())),
    )
    .await
    .expect("the normal call did not answer in time")
    .unwrap();
    assert_eq!(
        payload(&result),
        json!({"action": "accept", "content": {"format": "pdf"}})
    );
    client.cancel().await.unwrap();
}

/// Waits until the peer closes `stream`, feeding it with `feed` every `every`; returns how
/// long it took, or `None` after `limit`.
async fn closed_within(
    stream: &mut TcpStream,
    every: Duration,
    limit: Duration,
    mut feed: impl FnMut() -> Vec<u8>,
) -> Option<(Duration, Vec<u8>)> {
    let start = Instant::now();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while start.elapsed() < limit {
        if stream.write_all(&feed()).await.is_err() {
            return Some((start.elapsed(), got));
        }
        match tokio::time::timeout(every, stream.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return Some((start.elapsed(), got)),
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
            Err(_) => {}
        }
    }
    None
}

#[tokio::test]
async fn a_foreign_origin_is_refused_and_allow_origin_adds_one() {
    let server = Server::start(&["--allow-origin", "https://app.example"], &[], None).await;
    let own = format!("http://127.0.0.1:{}", server.port);
    let own_by_name = format!("http://localhost:{}", server.port);
    for origin in [own.as_str(), own_by_name.as_str(), "https://app.example"] {
        let reply = server
            .send(&Request::post(initialize()).header("Origin", origin))
            .await;
        assert_eq!(reply.status, 200, "{origin}: {reply:?}");
    }
    let other_port = format!("http://127.0.0.1:{}", server.port + 1);
    for origin in [
        "https://evil.example",
        "http://app.example",
        "https://app.example:8443",
        other_port.as_str(),
        "null",
    ] {
        let reply = server
            .send(&Request::post(initialize()).header("Origin", origin))
            .await;
        assert_eq!(reply.status, 403, "{origin}: {reply:?}");
        assert!(reply.header("mcp-session-id").is_none());
    }
    // Without --allow-origin, the added origin is foreign too.
    let plain = Server::start(&[], &[], None).await;
    let reply = plain
        .send(&Request::post(initialize()).header("Origin", "https://app.example"))
        .await;
    assert_eq!(reply.status, 403, "{reply:?}");
    // Requests without an Origin (not from a browser) pass.
    assert_eq!(plain.send(&Request::post(initialize())).await.status, 200);
}

#[tokio::test]
async fn a_rebinding_host_is_refused_and_allow_host_adds_one() {
    let server = Server::start(&["--allow-host", "mcp.example"], &[], None).await;
    let port = server.port;
    for host in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
        format!("mcp.example:{port}"),
    ] {
        let reply = server.send(&Request::post(initialize()).host(&host)).await;
        assert_eq!(reply.status, 200, "{host}: {reply:?}");
    }
    for host in [
        format!("evil.example:{port}"),
        "rebind.attacker.example".to_owned(),
        format!("127.0.0.1:{}", port + 1),
        format!("localhost.evil.example:{port}"),
    ] {
        let reply = server.send(&Request::post(initialize()).host(&host)).await;
        assert_eq!(reply.status, 403, "{host}: {reply:?}");
    }
}

#[tokio::test]
async fn slow_headers_are_closed_within_the_header_timeout() {
    let server = Server::start(&["--header-timeout", "1"], &[], None).await;
    let mut stream = server.connect().await;
    let mut head = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
        .iter()
        .copied();
    // One byte every 300 ms: each read makes progress, only the whole head is late.
    let closed = closed_within(
        &mut stream,
        Duration::from_millis(300),
        Duration::from_secs(10),
        || {
            head.next()
                .map(|b| vec![b])
                .unwrap_or_else(|| b"a".to_vec())
        },
    )
    .await;
    let (after, _) = closed.expect("the slow connection was still open after 10 s");
    assert!(
        after >= Duration::from_millis(800),
        "closed early: {after:?}"
    );
    assert!(after < Duration::from_secs(4), "closed late: {after:?}");
    // An idle connection is closed the same way.
    let mut idle = server.connect().await;
    let start = Instant::now();
    let mut buf = [0u8; 16];
    let n = tokio::time::timeout(Duration::from_secs(5), idle.read(&mut buf))
        .await
        .expect("the idle connection was still open after 5 s");
    assert!(matches!(n, Ok(0) | Err(_)), "{n:?}");
    assert!(start.elapsed() < Duration::from_secs(4));
    a_normal_call_answers(&server).await;
}

#[tokio::test]
async fn an_endless_chunked_body_is_refused_within_the_body_timeout() {
    let server = Server::start(&["--body-timeout", "1"], &[], None).await;
    let mut stream = server.connect().await;
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n",
        server.port
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let closed = closed_within(
        &mut stream,
        Duration::from_millis(200),
        Duration::from_secs(10),
        || b"1\r\n \r\n".to_vec(),
    )
    .await;
    let (after, got) = closed.expect("the endless body was still being read after 10 s");
    assert!(after < Duration::from_secs(4), "closed late: {after:?}");
    let text = String::from_utf8_lossy(&got);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    a_normal_call_answers(&server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_flood_under_a_low_open_file_limit_leaves_room_for_a_normal_call() {
    // The default header time-out (10 s): the normal call must not wait for it.
    let server = Server::start(&[], &[], Some(64)).await;
    // 80 idle sockets against 64 open files.
    let mut flood = Vec::new();
    for _ in 0..80 {
        flood.push(server.connect().await);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let open = server.open_files();
    assert!(open <= 64, "the server holds {open} files");
    let start = Instant::now();
    a_normal_call_answers(&server).await;
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "the normal call took {:?}",
        start.elapsed()
    );
    assert!(server.open_files() <= 64);
    // The oldest idle sockets were closed to make room.
    let mut closed = 0;
    for stream in &mut flood {
        let mut buf = [0u8; 1];
        if let Ok(Ok(0) | Err(_)) =
            tokio::time::timeout(Duration::from_millis(10), stream.read(&mut buf)).await
        {
            closed += 1;
        }
    }
    assert!(closed >= 16, "only {closed} idle sockets were closed");
    assert!(
        server
            .notes
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.contains("at most 32 connections")),
        "{:?}",
        server.notes.lock().unwrap()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_flood_stays_bounded_and_replaces_idle_sessions() {
    let server = Server::start(&["--max-sessions", "20"], &[], None).await;
    // A client connected before the flood, holding its event stream.
    let host = Host::answering(json!({"action": "accept", "content": {"format": "html"}}));
    let early = server.client(host).await;
    let first = open_session(&server, None).await;
    for _ in 0..100 {
        assert_eq!(server.send(&Request::post(initialize())).await.status, 200);
    }
    let before = server.rss_kib();
    for _ in 0..1_000 {
        let reply = server.send(&Request::post(initialize())).await;
        assert_eq!(reply.status, 200, "{reply:?}");
    }
    let after = server.rss_kib();
    assert!(
        after < before + 24 * 1024,
        "RSS grew from {before} KiB to {after} KiB over 1,000 sessions"
    );
    // The first idle session was replaced; the busy one still answers.
    assert_eq!(server.send(&list_in(&first)).await.status, 404);
    let result = early.call_tool(call(report_form())).await.unwrap();
    assert_eq!(payload(&result)["content"]["format"], "html");
    a_normal_call_answers(&server).await;
    early.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_every_session_is_busy_a_new_one_waits() {
    let server = Server::start(&["--max-sessions", "1"], &[], None).await;
    let busy = server
        .client(Host::answering(json!({"action": "decline"})))
        .await;
    // The client holds its event stream open: its session is busy.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let reply = server.send(&Request::post(initialize())).await;
    assert_eq!(reply.status, 503, "{reply:?}");
    assert_eq!(reply.header("retry-after").as_deref(), Some("1"));
    let result = busy.call_tool(call(report_form())).await.unwrap();
    assert_eq!(payload(&result), json!({"action": "decline"}));
    busy.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unfinished_large_bodies_share_a_bounded_budget() {
    let server = Server::start(&["--body-memory", "4"], &[], None).await;
    let big = 4 * 1024 * 1024;
    let before = server.rss_kib();
    let mut flood = Vec::new();
    for _ in 0..16 {
        let mut stream = server.connect().await;
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {big}\r\n\r\n",
            server.port
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        flood.push(stream);
    }
    // Each sends all but the last byte, as fast as the server takes it.
    let chunk = vec![b' '; 64 * 1024];
    let mut tasks = Vec::new();
    for mut stream in flood {
        let chunk = chunk.clone();
        tasks.push(tokio::spawn(async move {
            let mut left = big - 1;
            while left > 0 {
                let n = left.min(chunk.len());
                if stream.write_all(&chunk[..n]).await.is_err() {
                    break;
                }
                left -= n;
            }
            let mut got = Vec::new();
            let _ =
                tokio::time::timeout(Duration::from_secs(2), stream.read_to_end(&mut got)).await;
            (stream, String::from_utf8_lossy(&got).into_owned())
        }));
    }
    let mut refused = 0;
    let mut held = Vec::new();
    for task in tasks {
        let (stream, got) = task.await.unwrap();
        if got.starts_with("HTTP/1.1 503") {
            refused += 1;
        }
        held.push(stream);
    }
    let after = server.rss_kib();
    assert!(refused >= 10, "only {refused} of 16 bodies were refused");
    assert!(
        after < before + 32 * 1024,
        "RSS grew from {before} KiB to {after} KiB"
    );
    a_normal_call_answers(&server).await;
    drop(held);
}

/// Two principals with tokens, over a fresh store.
async fn with_tokens() -> (Server, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!(
        "forms-mcp-hostile-{}-{}",
        std::process::id(),
        rand_tag()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("asks.db").display().to_string();
    let server = Server::start(
        &[
            "--asks",
            &db,
            "--principal-token",
            "ana=ana-token-0123456789",
            "--principal-token",
            "bo=bo-token-0123456789",
        ],
        &[],
        None,
    )
    .await;
    (server, dir)
}

fn rand_tag() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

#[tokio::test]
async fn a_session_belongs_to_its_token() {
    let (server, dir) = with_tokens().await;
    let ana = open_session(&server, Some("ana-token-0123456789")).await;
    let as_ana = list_in(&ana).header("Authorization", "Bearer ana-token-0123456789");
    assert_eq!(server.send(&as_ana).await.status, 200);
    // The scheme is matched without regard to case.
    let lower = list_in(&ana).header("Authorization", "bearer ana-token-0123456789");
    assert_eq!(server.send(&lower).await.status, 200);
    for hijack in [
        list_in(&ana).header("Authorization", "Bearer bo-token-0123456789"),
        list_in(&ana).header("Authorization", "Bearer not-a-known-token-at-all"),
        list_in(&ana),
    ] {
        let reply = server.send(&hijack).await;
        assert_eq!(reply.status, 403, "{reply:?}");
    }
    // A session opened without a token does not take one either.
    let nobody = open_session(&server, None).await;
    let reply = server
        .send(&list_in(&nobody).header("Authorization", "Bearer ana-token-0123456789"))
        .await;
    assert_eq!(reply.status, 403, "{reply:?}");
    // Two Authorization headers are refused whole.
    let twice = list_in(&ana)
        .header("Authorization", "Bearer ana-token-0123456789")
        .header("Authorization", "Bearer bo-token-0123456789");
    assert_eq!(server.send(&twice).await.status, 400);
    // The lower-case scheme reaches the tools as ana: a known principal, not `unauthenticated`.
    let show = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "ask_show", "arguments": {"id": "no-such-request"}}});
    let reply = server
        .send(
            &Request::post(show)
                .header("Mcp-Session-Id", &ana)
                .header("MCP-Protocol-Version", "2025-11-25")
                .header("Authorization", "BEARER ana-token-0123456789"),
        )
        .await;
    let result = &reply.message()["result"]["structuredContent"];
    assert_ne!(result["error"]["code"], "unauthenticated", "{reply:?}");
    assert!(result["error"]["code"].is_string(), "{reply:?}");
    let _ = std::fs::remove_dir_all(dir);
}

/// A 2026-07-28 `tools/call` of the Data tool, written by hand.
fn modern_call(state: Option<&str>, answer: Option<Value>) -> Request {
    Request::post(modern_report_call(state, answer))
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", "tools/call")
        .header("Mcp-Name", "form_elicitation_v2_request")
}

#[tokio::test]
async fn a_request_state_is_bound_to_the_principal_not_to_a_session_header() {
    let (server, dir) = with_tokens().await;
    let ana = "Bearer ana-token-0123456789";
    let bo = "Bearer bo-token-0123456789";
    // Both send the same client-chosen Mcp-Session-Id (there are no sessions on 2026-07-28).
    let first = server
        .send(
            &modern_call(None, None)
                .header("Authorization", ana)
                .header("Mcp-Session-Id", "shared"),
        )
        .await;
    let result = first.message()["result"].clone();
    assert_eq!(result["resultType"], "input_required", "{first:?}");
    let state = result["requestState"].as_str().unwrap().to_owned();
    let accept = json!({"action": "accept", "content": {"format": "pdf"}});
    let replayed = server
        .send(
            &modern_call(Some(&state), Some(accept.clone()))
                .header("Authorization", bo)
                .header("Mcp-Session-Id", "shared"),
        )
        .await;
    let refused = &replayed.message()["result"]["structuredContent"];
    assert_eq!(refused["error"]["code"], "invalid_response", "{replayed:?}");
    let anonymous = server
        .send(&modern_call(Some(&state), Some(accept.clone())).header("Mcp-Session-Id", "shared"))
        .await;
    let refused = &anonymous.message()["result"]["structuredContent"];
    assert_eq!(
        refused["error"]["code"], "invalid_response",
        "{anonymous:?}"
    );
    let own = server
        .send(&modern_call(Some(&state), Some(accept.clone())).header("Authorization", ana))
        .await;
    assert_eq!(
        own.message()["result"]["structuredContent"],
        accept,
        "{own:?}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_weak_state_key_or_a_short_token_stops_the_server_at_start() {
    let dir = std::env::temp_dir().join(format!("forms-mcp-weak-{}", rand_tag()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("asks.db").display().to_string();
    let zero = "00".repeat(32);
    let pattern = "0102".repeat(16);
    let cases: [(&[&str], Option<&str>, &str); 4] = [
        (&[], Some(&zero), "all its bytes are zero"),
        (&[], Some(&pattern), "2 different byte values"),
        (&[], Some("abcd"), "got 2 bytes"),
        (
            &["--asks", &db, "--principal-token", "ana=short-token"],
            None,
            "at least 16",
        ),
    ];
    for (args, key, message) in cases {
        let mut command = server_command(5_000);
        command
            .args(["--http", "127.0.0.1:0"])
            .args(args)
            .env_remove("FORMS_ASK_PRINCIPAL_TOKENS")
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
        match key {
            Some(key) => command.env("FORMS_STATE_KEY", key),
            None => command.env_remove("FORMS_STATE_KEY"),
        };
        let out = tokio::time::timeout(Duration::from_secs(10), command.output())
            .await
            .expect("the server did not stop")
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.starts_with("forms-mcp: "), "{stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(!stderr.contains("listening"), "{stderr}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_waiting_past_the_session_idle_time_still_answers() {
    let server = Server::start(&["--session-idle", "1"], &[], None).await;
    let host = Host::new(native_caps(), |_| {
        // The person takes three seconds, three times the session idle time.
        std::thread::sleep(Duration::from_secs(3));
        Reply::Answer(json!({"action": "accept", "content": {"format": "pdf"}}))
    });
    let client = server.client(host).await;
    let result = tokio::time::timeout(
        Duration::from_secs(20),
        client.call_tool(call(report_form())),
    )
    .await
    .expect("the call lost its session while it waited")
    .unwrap();
    assert_eq!(payload(&result)["content"]["format"], "pdf");
    // Idle, the session is closed after its idle time; the client's next call fails.
    client.cancel().await.unwrap();
    let id = open_session(&server, None).await;
    assert_eq!(server.send(&list_in(&id)).await.status, 200);
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    assert_eq!(server.send(&list_in(&id)).await.status, 404);
}

/// A legacy session (opened with reqwest) whose `tools/call` waits on the person: the call's
/// event stream, and the id of the `openai/elicitation/create` it carries.
struct WaitingAsk {
    http: reqwest::Client,
    url: String,
    session: String,
    stream: reqwest::Response,
    buffer: Vec<u8>,
    asked: Value,
}

impl WaitingAsk {
    async fn open(server: &Server) -> WaitingAsk {
        let http = reqwest::Client::new();
        let url = server.url();
        let post = |body: Value, session: Option<&str>| {
            let mut post = http
                .post(&url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", "2025-11-25")
                .body(body.to_string());
            if let Some(session) = session {
                post = post.header("mcp-session-id", session);
            }
            post.send()
        };
        let opened = post(initialize(), None).await.unwrap();
        assert_eq!(opened.status(), 200);
        let session = opened.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        drop(opened);
        let done = post(initialized(), Some(&session)).await.unwrap();
        assert_eq!(done.status(), 202);
        let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
            "name": "form_elicitation_v2_request", "arguments": report_form()}});
        let stream = post(call, Some(&session)).await.unwrap();
        assert_eq!(stream.status(), 200);
        let mut ask = WaitingAsk {
            http: http.clone(),
            url,
            session,
            stream,
            buffer: Vec::new(),
            asked: Value::Null,
        };
        let request = ask.next().await;
        assert_eq!(request["method"], "openai/elicitation/create", "{request}");
        ask.asked = request["id"].clone();
        ask
    }

    /// The next message on the call's event stream.
    async fn next(&mut self) -> Value {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(end) = self.buffer.windows(2).position(|w| w == b"\n\n") {
                let event: Vec<u8> = self.buffer.drain(..end + 2).collect();
                let data: String = String::from_utf8(event)
                    .unwrap()
                    .lines()
                    .filter_map(|line| line.strip_prefix("data:"))
                    .map(str::trim_start)
                    .collect();
                if data.is_empty() {
                    continue;
                }
                return serde_json::from_str(&data).unwrap();
            }
            let chunk = tokio::time::timeout_at(deadline, self.stream.chunk())
                .await
                .expect("no message on the call's stream in time")
                .unwrap()
                .expect("the call's stream ended");
            self.buffer.extend_from_slice(&chunk);
        }
    }

    /// Posts the person's `answer` and returns the call's payload.
    async fn answer(mut self, answer: Value) -> Value {
        let response = json!({"jsonrpc": "2.0", "id": self.asked, "result": answer});
        let posted = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .header("mcp-session-id", &self.session)
            .body(response.to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(posted.status(), 202);
        for _ in 0..10 {
            let message = self.next().await;
            if message["id"] == json!(7) {
                return message["result"]["structuredContent"].clone();
            }
        }
        panic!("no result for the call");
    }
}

/// A bogus 4 MiB "response" to the ask's request that rmcp refuses: `"jsonrpc":"1.0"`, or a
/// well-formed 2.0 response sent with an unknown `MCP-Protocol-Version`.
fn bogus_response(ask: &WaitingAsk, well_formed: bool) -> Request {
    let filler = "x".repeat(FILLER);
    let (version, protocol) = if well_formed {
        ("2.0", "1999-01-01")
    } else {
        ("1.0", "2025-11-25")
    };
    let body = format!(
        r#"{{"jsonrpc":"{version}","id":{},"result":{{"action":"accept","content":{{"format":"pdf","goal":"{filler}"}}}}}}"#,
        ask.asked
    );
    Request {
        method: "POST",
        host: None,
        headers: Vec::new(),
        body,
    }
    .header("Mcp-Session-Id", &ask.session)
    .header("MCP-Protocol-Version", protocol)
}

/// The filler that brings a bogus response just under the 4 MiB body limit.
const FILLER: usize = 4 * 1024 * 1024 - 200;

/// Issue 22, finding 2: on 12 sessions each with an ask waiting, nine 4 MiB "responses" to
/// the waited request that rmcp refuses (`"jsonrpc":"1.0"`, or 2.0 with an unknown protocol
/// header) were all kept at the transport until the ask ended (RSS 18 MiB to 415 MiB). Now
/// nothing rmcp refuses stays kept, what is kept comes from the `--body-memory` budget, and
/// each person's real answer still decides its ask.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kept_answers_stay_inside_the_body_memory_budget() {
    let budget_mib = 16;
    let server = Server::start(
        &["--body-memory", &budget_mib.to_string()],
        &[("DATA_FORMS_TIMEOUT_MS", "300000")],
        None,
    )
    .await;
    let mut asks = Vec::new();
    for _ in 0..12 {
        asks.push(WaitingAsk::open(&server).await);
    }
    let before = server.rss_kib();
    let started = Instant::now();
    for ask in &asks {
        // Nine 4 MiB responses naming the waited id: six `"jsonrpc":"1.0"`, three
        // well-formed that rmcp refuses for their protocol header.
        for n in 0..9 {
            let reply = server.send(&bogus_response(ask, n % 3 == 2)).await;
            assert!(
                (400..500).contains(&reply.status),
                "a bogus response was not refused: {} {}",
                reply.status,
                reply.body
            );
        }
    }
    let flood = started.elapsed();
    let after = server.rss_kib();
    eprintln!("RSS {before} KiB before, {after} KiB after 108 bogus 4 MiB responses ({flood:?})");
    assert!(
        after < before + (budget_mib + 32) * 1024,
        "RSS grew from {before} KiB to {after} KiB over 12 sessions' bogus responses"
    );
    // The person's real answer still decides every ask.
    for ask in asks {
        let payload = ask
            .answer(json!({"action": "accept", "content": {"format": "html"}}))
            .await;
        assert_eq!(
            payload,
            json!({"action": "accept", "content": {"format": "html"}})
        );
    }
}
