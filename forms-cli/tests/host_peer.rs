//! `forms host` against software this project did not write: a Python MCP server built on the
//! published peer library `openai-mcp-extensions` and the official MCP Python SDK
//! (forms-mcp/tests/interop/peer_server.py), over stdio and streamable HTTP, on both protocol
//! generations: the mid-call `openai/elicitation/create` of 2025-11-25 and the input-required
//! rounds of 2026-07-28. The peer library checks every answer against its own form.
//!
//! Needs `FORMS_INTEROP_PY` (the venv of `.ci/interop-setup`, which pins both libraries);
//! without it each test says loudly that it was skipped, and with `CI=true` it fails.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

use serde_json::{json, Value};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

fn scratch(name: &str) -> PathBuf {
    forms_test_kit::scratch("host-peer", name)
}

use forms_test_kit::interop::{installed, LEGACY, MODERN};

/// The venv's Python, or `None` after saying loudly that the test is skipped.
fn python() -> Option<PathBuf> {
    installed(
        "FORMS_INTEROP_PY",
        "forms host against the openai-mcp-extensions peer server",
    )
}

fn peer_server() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../forms-mcp/tests/interop/peer_server.py")
}

/// `forms host --trace --protocol PROTOCOL --answer @FILE --call choose_project` and the server
/// arguments; the tool result (stdout) and the trace (stderr).
fn host(
    dir: &Path,
    protocol: &str,
    answer: &Value,
    server: &[&std::ffi::OsStr],
) -> (Value, String) {
    static RUN: AtomicUsize = AtomicUsize::new(0);
    let file = dir.join(format!(
        "answer-{protocol}-{}.json",
        RUN.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&file, answer.to_string()).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_forms"))
        .args(["host", "--trace", "--protocol", protocol, "--answer"])
        .arg(format!("@{}", file.display()))
        .args(["--call", "choose_project"])
        .args(server)
        .env("DATA_FORMS_TIMEOUT_MS", "20000")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        output.status.success(),
        "forms host failed ({protocol}): {stderr}"
    );
    let result = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {stderr}"));
    (result, stderr)
}

/// The native schema the host received, read from the trace.
fn schema_received(trace: &str, protocol: &str) -> Value {
    let (marker, pointer) = if protocol == LEGACY {
        ("\"openai/elicitation/create\"", "/params/requestedSchema")
    } else {
        (
            "\"input_required\"",
            "/result/inputRequests/project/params/_meta/openai~1elicitation/requestedSchema",
        )
    };
    let line = trace
        .lines()
        .find(|l| l.starts_with("<< ") && l.contains(marker))
        .unwrap_or_else(|| panic!("no {marker} from the peer in the trace: {trace}"));
    let message: Value = serde_json::from_str(&line[3..]).unwrap();
    message
        .pointer(pointer)
        .cloned()
        .unwrap_or_else(|| panic!("no {pointer} in {message}"))
}

/// The result's `structuredContent`, after checking `content[0].text` holds the same.
fn payload(result: &Value) -> Value {
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, result["structuredContent"], "{result}");
    text
}

fn accept() -> Value {
    json!({"action": "accept", "content": {"code": "P-7", "priority": "high", "notes": "Q3"}})
}

/// The peer accepts a valid answer, and the host received the peer's own form.
fn accepted(dir: &Path, protocol: &str, server: &[&std::ffi::OsStr]) {
    let (result, trace) = host(dir, protocol, &accept(), server);
    assert_eq!(
        payload(&result),
        json!({"protocol": protocol, "action": "accept",
               "project": {"code": "P-7", "priority": "high", "notes": "Q3"}}),
        "{protocol}: {trace}"
    );
    assert_ne!(result["isError"], true, "{protocol}: {result}");
    let schema = schema_received(&trace, protocol);
    assert_eq!(
        schema["properties"]["priority"]["enum"],
        json!(["low", "high"]),
        "{schema}"
    );
    assert_eq!(schema["required"], json!(["code", "priority"]), "{schema}");
    if protocol == MODERN {
        assert_eq!(result["resultType"], "complete", "{result}");
        assert!(!trace.contains("\"openai/elicitation/create\""), "{trace}");
    }
}

fn declined(dir: &Path, protocol: &str, server: &[&std::ffi::OsStr]) {
    let (result, _) = host(dir, protocol, &json!({"action": "decline"}), server);
    assert_eq!(
        payload(&result),
        json!({"protocol": protocol, "action": "decline"}),
        "{protocol}"
    );
}

/// forms host delivers the answer as written; the peer library refuses an option its form
/// does not offer, and the tool fails.
fn refused_by_the_peer(dir: &Path, protocol: &str, server: &[&std::ffi::OsStr]) {
    let outside = json!({"action": "accept", "content": {"code": "P-7", "priority": "urgent"}});
    let (result, _) = host(dir, protocol, &outside, server);
    assert_eq!(result["isError"], true, "{protocol}: {result}");
    assert!(
        result.get("structuredContent").is_none(),
        "{protocol}: {result}"
    );
}

#[test]
fn host_answers_the_openai_mcp_extensions_peer_over_stdio_on_both_protocols() {
    let Some(python) = python() else { return };
    let dir = scratch("stdio");
    let script = peer_server();
    let server = [
        std::ffi::OsStr::new("--"),
        python.as_os_str(),
        script.as_os_str(),
    ];
    type Case = fn(&Path, &str, &[&std::ffi::OsStr]);
    let cases: [Case; 3] = [accepted, declined, refused_by_the_peer];
    // Each run starts its own Python server; run them side by side.
    std::thread::scope(|s| {
        for protocol in [LEGACY, MODERN] {
            for case in cases {
                let (dir, server) = (&dir, &server);
                s.spawn(move || case(dir, protocol, server));
            }
        }
    });
}

struct PeerHttp(Child);

impl Drop for PeerHttp {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn host_answers_the_openai_mcp_extensions_peer_over_streamable_http_on_both_protocols() {
    let Some(python) = python() else { return };
    let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut peer = PeerHttp(
        Command::new(&python)
            .arg(peer_server())
            .args(["--http", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err() {
        if let Some(status) = peer.0.try_wait().unwrap() {
            panic!("the peer server exited ({status}) before listening on {port}");
        }
        assert!(
            Instant::now() < deadline,
            "the peer server did not listen on {port}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let dir = scratch("http");
    let url = format!("http://127.0.0.1:{port}/mcp");
    let server = [std::ffi::OsStr::new("--url"), std::ffi::OsStr::new(&url)];
    for protocol in [LEGACY, MODERN] {
        let (result, trace) = host(&dir, protocol, &accept(), &server);
        assert_eq!(
            payload(&result)["project"]["priority"],
            "high",
            "{protocol}: {result}"
        );
        assert_eq!(payload(&result)["protocol"], protocol, "{result}");
        assert!(schema_received(&trace, protocol)["properties"]["code"].is_object());
    }
    drop(peer);
}
