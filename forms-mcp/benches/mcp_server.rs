//! Server-side cost of one accepted call over stdio, with an instant scripted host: calls per
//! second and p99 latency for 1,000 sequential calls and 1,000 concurrent calls (50 in
//! flight), for `forms-mcp` and, side by side in the same run, the peer reference server
//! (PyPI `openai-mcp-extensions` 0.2.1, its `elicit_form`, same form, same transport).
//!
//! ```text
//! cargo bench -p forms-mcp --bench mcp_server
//! ```
//!
//! The peer runs in a venv at `$PEER_VENV` (default `~/.cache/forms-peer-venv-0.2.1`, the one
//! `peer-check` uses), created with `python3 -m venv` and `pip install` when missing. Without
//! Python the peer column is skipped and no ratio is printed.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

use forms_test_kit::forms::report_form as form;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, Command};
use tokio::sync::{mpsc, oneshot, Semaphore};

const CALLS: usize = 1_000;
const IN_FLIGHT: usize = 50;
const PEER_VERSION: &str = "0.2.1";

type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Value>>>>;

/// A connection to one server process, with the instant host answering every
/// `openai/elicitation/create` at once.
struct Conn {
    out: mpsc::UnboundedSender<String>,
    pending: Pending,
    next: std::sync::atomic::AtomicU64,
    pid: u32,
    _child: tokio::process::Child,
}

/// The CPU time the process `pid` has used so far, all its threads (Linux
/// `/proc/PID/task/*/schedstat`, nanoseconds on a CPU); zero where that cannot be read.
/// Threads that have exited are not counted, so a server should keep its threads.
fn process_cpu(pid: u32) -> Duration {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Duration::ZERO;
    };
    let mut total = 0u64;
    for task in tasks.flatten() {
        if let Ok(stat) = std::fs::read_to_string(task.path().join("schedstat")) {
            total += stat
                .split_whitespace()
                .next()
                .and_then(|ns| ns.parse::<u64>().ok())
                .unwrap_or(0);
        }
    }
    Duration::from_nanos(total)
}

async fn writer(mut stdin: ChildStdin, mut rx: mpsc::UnboundedReceiver<String>) {
    while let Some(line) = rx.recv().await {
        if stdin.write_all(line.as_bytes()).await.is_err() {
            break;
        }
        let _ = stdin.write_all(b"\n").await;
        let _ = stdin.flush().await;
    }
}

impl Conn {
    async fn start(mut command: Command) -> Conn {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("start the server");
        let pid = child.id().unwrap_or(0);
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (out, rx) = mpsc::unbounded_channel();
        tokio::spawn(writer(stdin, rx));
        let pending: Pending = Arc::default();
        let answer = json!({"action": "accept",
            "content": {"goal": "Weekly revenue", "format": "pdf"}});
        {
            let pending = pending.clone();
            let out = out.clone();
            tokio::spawn(async move {
                let mut lines = BufReader::new(stdout).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    let Ok(message) = serde_json::from_str::<Value>(&line) else {
                        continue;
                    };
                    if message.get("method").and_then(Value::as_str)
                        == Some("openai/elicitation/create")
                    {
                        let reply = json!({"jsonrpc": "2.0", "id": message["id"],
                            "result": answer});
                        let _ = out.send(reply.to_string());
                    } else if message.get("method").is_none() {
                        if let Some(id) = message["id"].as_u64() {
                            if let Some(tx) = pending.lock().unwrap().remove(&id) {
                                let _ = tx.send(message);
                            }
                        }
                    }
                }
            });
        }
        let conn = Conn {
            out,
            pending,
            next: std::sync::atomic::AtomicU64::new(1),
            pid,
            _child: child,
        };
        let init = conn
            .request(
                "initialize",
                json!({"protocolVersion": "2025-11-25",
                "capabilities": {"elicitation": {"form": {}},
                                 "extensions": {"openai/elicitation": {"form": {}}}},
                "clientInfo": {"name": "bench-host", "version": "1"}}),
            )
            .await;
        assert!(init.get("result").is_some(), "{init}");
        conn.out
            .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string())
            .unwrap();
        conn
    }

    async fn request(&self, method: &str, params: Value) -> Value {
        let id = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1_000_000;
        let (tx, rx) = oneshot::channel();
        self.pending.lock().unwrap().insert(id, tx);
        self.out
            .send(
                json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
            )
            .unwrap();
        tokio::time::timeout(Duration::from_secs(30), rx)
            .await
            .expect("no reply in 30 s")
            .unwrap()
    }

    /// One accepted call; returns its latency.
    async fn call(&self) -> Duration {
        let started = Instant::now();
        let reply = self
            .request(
                "tools/call",
                json!({"name": "form_elicitation_v2_request", "arguments": form()}),
            )
            .await;
        let elapsed = started.elapsed();
        let content = &reply["result"]["structuredContent"];
        let text = reply["result"]["content"][0]["text"].as_str().unwrap_or("");
        assert!(
            content["action"] == "accept" || text.contains("accept"),
            "not accepted: {reply}"
        );
        elapsed
    }
}

struct Figures {
    /// Server CPU time per call (all its threads).
    cpu: Duration,
    per_second: f64,
    p50: Duration,
    p99: Duration,
}

fn figures(mut latencies: Vec<Duration>, total: Duration, cpu: Duration) -> Figures {
    latencies.sort();
    let at = |q: f64| latencies[((latencies.len() as f64 * q).ceil() as usize).saturating_sub(1)];
    Figures {
        cpu: cpu / latencies.len() as u32,
        per_second: latencies.len() as f64 / total.as_secs_f64(),
        p50: at(0.50),
        p99: at(0.99),
    }
}

async fn sequential(conn: &Conn) -> Figures {
    for _ in 0..20 {
        conn.call().await;
    }
    let cpu = process_cpu(conn.pid);
    let started = Instant::now();
    let mut latencies = Vec::with_capacity(CALLS);
    for _ in 0..CALLS {
        latencies.push(conn.call().await);
    }
    figures(
        latencies,
        started.elapsed(),
        process_cpu(conn.pid).saturating_sub(cpu),
    )
}

async fn concurrent(conn: Arc<Conn>) -> Figures {
    let gate = Arc::new(Semaphore::new(IN_FLIGHT));
    let cpu = process_cpu(conn.pid);
    let started = Instant::now();
    let mut tasks = Vec::with_capacity(CALLS);
    for _ in 0..CALLS {
        let permit = gate.clone().acquire_owned().await.unwrap();
        let conn = conn.clone();
        tasks.push(tokio::spawn(async move {
            let latency = conn.call().await;
            drop(permit);
            latency
        }));
    }
    let mut latencies = Vec::with_capacity(CALLS);
    for task in tasks {
        latencies.push(task.await.unwrap());
    }
    figures(
        latencies,
        started.elapsed(),
        process_cpu(conn.pid).saturating_sub(cpu),
    )
}

fn peer_python() -> Option<PathBuf> {
    let venv = std::env::var_os("PEER_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
                .join(format!(".cache/forms-peer-venv-{PEER_VERSION}"))
        });
    let python = venv.join("bin/python");
    if !python.exists() {
        eprintln!("creating the peer venv at {}", venv.display());
        let ok = std::process::Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .status()
            .is_ok_and(|s| s.success())
            && std::process::Command::new(venv.join("bin/pip"))
                .args([
                    "install",
                    "-q",
                    &format!("openai-mcp-extensions=={PEER_VERSION}"),
                ])
                .status()
                .is_ok_and(|s| s.success());
        if !ok {
            return None;
        }
    }
    Some(python)
}

fn ours() -> Command {
    // The release binary next to this bench executable (cargo bench builds it).
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap();
    let mut command = Command::new(dir.join(format!("forms-mcp{}", std::env::consts::EXE_SUFFIX)));
    command.env("DATA_FORMS_TIMEOUT_MS", "60000");
    command
}

fn print(name: &str, mode: &str, f: &Figures) {
    println!(
        "{name:<28} {mode:<22} {:>10.0} calls/s   p50 {:>8.3} ms   p99 {:>8.3} ms   server CPU {:>7.1} µs/call",
        f.per_second,
        f.p50.as_secs_f64() * 1e3,
        f.p99.as_secs_f64() * 1e3,
        f.cpu.as_secs_f64() * 1e6
    );
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing and only checks
    // that the bench builds and starts.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let conn = Arc::new(Conn::start(ours()).await);
        let our_seq = sequential(&conn).await;
        print("forms-mcp (Rust, rmcp 3.11)", "1000 sequential", &our_seq);
        let our_conc = concurrent(conn.clone()).await;
        print("forms-mcp (Rust, rmcp 3.11)", "1000 concurrent (50)", &our_conc);
        drop(conn);

        let Some(python) = peer_python() else {
            println!("peer skipped: no python3 venv with openai-mcp-extensions {PEER_VERSION}");
            return;
        };
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/peer_server.py");
        let mut command = Command::new(python);
        command.arg(script);
        let conn = Arc::new(Conn::start(command).await);
        let peer_seq = sequential(&conn).await;
        print("peer (Python, 0.2.1)", "1000 sequential", &peer_seq);
        let peer_conc = concurrent(conn.clone()).await;
        print("peer (Python, 0.2.1)", "1000 concurrent (50)", &peer_conc);
        println!(
            "ratio (forms-mcp / peer throughput): sequential {:.1}x, concurrent {:.1}x (target >= 10x)",
            our_seq.per_second / peer_seq.per_second,
            our_conc.per_second / peer_conc.per_second
        );
        println!(
            "ratio (peer / forms-mcp server CPU per call): sequential {:.1}x, concurrent {:.1}x",
            peer_seq.cpu.as_secs_f64() / our_seq.cpu.as_secs_f64(),
            peer_conc.cpu.as_secs_f64() / our_conc.cpu.as_secs_f64()
        );
    });
}
