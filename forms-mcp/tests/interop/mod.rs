//! The harness of the interop tests: the official MCP SDKs (installed, pinned, by
//! `.ci/interop-setup`) drive the built `forms-mcp` through the scripts of this folder, which
//! print one JSON report; the tests check every case of it.
//!
//! `FORMS_INTEROP_PY` names the venv's Python, `FORMS_INTEROP_NODE_DIR` the npm folder. When
//! one is missing a test fails with `CI=true` and otherwise says loudly that it was skipped.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction, dead_code)]

pub use forms_test_kit::forms::report_form;
use serde_json::{json, Value};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[allow(unused_imports)] // each test binary uses some of them
pub use forms_test_kit::interop::{installed, LEGACY, MODERN};

/// The short server timeout of the `timeout` case, in milliseconds.
pub const SHORT_TIMEOUT_MS: u64 = 1500;

/// Every case a driver runs.
pub const CASES: [&str; 6] = [
    "accept",
    "decline",
    "cancel",
    "invalid",
    "unsupported",
    "timeout",
];

/// This folder: the scripts and the pin files.
pub fn interop_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop")
}

/// The venv's Python with the pinned `mcp`, or `None` (skipped).
pub fn python() -> Option<PathBuf> {
    installed("FORMS_INTEROP_PY", "the official MCP Python SDK")
}

/// The npm folder with the pinned TypeScript SDKs, or `None` (skipped).
pub fn node_dir() -> Option<PathBuf> {
    installed("FORMS_INTEROP_NODE_DIR", "the official MCP TypeScript SDKs")
}

/// `name==VERSION` of requirements.txt, as the Python driver names it (`name VERSION`).
pub fn pinned_python(name: &str) -> String {
    let pins = std::fs::read_to_string(interop_dir().join("requirements.txt")).unwrap();
    let version = pins
        .lines()
        .find_map(|line| line.strip_prefix(&format!("{name}==")))
        .unwrap_or_else(|| panic!("{name} is not pinned in requirements.txt"));
    format!("{name} {}", version.trim())
}

/// The pinned version of an npm package, as the TypeScript driver names it.
pub fn pinned_npm(name: &str) -> String {
    let text = std::fs::read_to_string(interop_dir().join("package.json")).unwrap();
    let package: Value = serde_json::from_str(&text).unwrap();
    let version = package["dependencies"][name]
        .as_str()
        .unwrap_or_else(|| panic!("{name} is not in package.json"));
    format!("{name} {version}")
}

/// The native request the runtime compiles for [`report_form`].
pub fn native_request() -> Value {
    let form = forms_runtime::DataForm::from_value(&report_form()).unwrap();
    serde_json::from_str(form.native_json()).unwrap()
}

/// A `forms-mcp --http 127.0.0.1:0` child process and the URL it printed; killed on drop.
pub use forms_test_kit::process::Server as HttpServer;

/// Starts `forms-mcp --http 127.0.0.1:0` with `DATA_FORMS_TIMEOUT_MS=timeout_ms`.
pub fn start_http(timeout_ms: u64) -> HttpServer {
    start_http_with(timeout_ms, &[])
}

/// Starts `forms-mcp --http 127.0.0.1:0 EXTRA…` with `DATA_FORMS_TIMEOUT_MS=timeout_ms`.
pub fn start_http_with(timeout_ms: u64, extra: &[&str]) -> HttpServer {
    let timeout = timeout_ms.to_string();
    let envs = [("DATA_FORMS_TIMEOUT_MS", timeout.as_str())];
    HttpServer::http(Path::new(env!("CARGO_BIN_EXE_forms-mcp")), extra, &envs)
}

/// The transport of a run, with the servers it needs.
pub enum Transport {
    /// The driver starts `forms-mcp` itself, once per case.
    Stdio,
    /// Two servers: the normal one and the short-timeout one of the `timeout` case.
    Http(HttpServer, HttpServer),
}

impl Transport {
    pub fn http() -> Transport {
        Transport::Http(start_http(30_000), start_http(SHORT_TIMEOUT_MS))
    }

    /// The transport part of a driver's config.
    pub fn config(&self) -> Value {
        match self {
            Transport::Stdio => json!({
                "transport": "stdio",
                "server": env!("CARGO_BIN_EXE_forms-mcp"),
            }),
            Transport::Http(normal, short) => json!({
                "transport": "http",
                "url": normal.url,
                "timeout_url": short.url,
            }),
        }
    }
}

/// Runs `program script CONFIG` with `env`, at most 90 seconds, and returns the JSON report
/// it printed.
pub fn run_driver(program: &Path, script: &str, env: &[(&str, &Path)], config: &Value) -> Value {
    let mut child = Command::new(program)
        .arg(interop_dir().join(script))
        .arg(config.to_string())
        .envs(env.iter().map(|(k, v)| (*k, v.as_os_str())))
        .env_remove("DATA_FORMS_TIMEOUT_MS")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut text = String::new();
        stdout.read_to_string(&mut text).unwrap();
        text
    });
    let err = std::thread::spawn(move || {
        let mut text = String::new();
        stderr.read_to_string(&mut text).unwrap();
        text
    });
    let deadline = Instant::now() + Duration::from_secs(90);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{script} took more than 90 s: {}",
                err.join().unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stdout = out.join().unwrap();
    let stderr = err.join().unwrap();
    assert!(status.success(), "{script} failed ({status}): {stderr}");
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{script} printed no JSON report ({e}): {stdout}\n{stderr}"))
}

/// The payload of a tool result as an SDK returned it, after checking that
/// `content[0].text` holds the same JSON as `structuredContent` and that `isError` is set
/// exactly for errors.
fn payload_of(result: &Value) -> Result<Value, String> {
    let structured = result
        .get("structuredContent")
        .cloned()
        .ok_or_else(|| format!("no structuredContent in {result}"))?;
    let text = result["content"][0]["text"]
        .as_str()
        .ok_or_else(|| format!("no content[0].text in {result}"))?;
    let from_text: Value =
        serde_json::from_str(text).map_err(|e| format!("content[0].text is not JSON: {e}"))?;
    if from_text != structured {
        return Err(format!(
            "content[0].text {from_text} differs from structuredContent {structured}"
        ));
    }
    let is_error = result
        .get("isError")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if is_error != structured.get("error").is_some() {
        return Err(format!("isError is {is_error} for {structured}"));
    }
    Ok(structured)
}

/// What one case must give.
fn expected(case: &str) -> Result<Value, &'static str> {
    match case {
        "accept" => Ok(json!({"action": "accept", "content": {"goal": "churn", "format": "html"}})),
        "decline" => Ok(json!({"action": "decline"})),
        "cancel" => Ok(json!({"action": "cancel"})),
        "invalid" => Err("invalid_response"),
        "unsupported" => Err("unsupported_client"),
        "timeout" => Err("timeout"),
        other => panic!("unknown case {other}"),
    }
}

/// Checks one case of a report; the failures, worded for the test output.
fn check_case(case: &str, c: &Value, protocol: &str, native: &Value) -> Vec<String> {
    let mut failures = Vec::new();
    if let Some(error) = c["error"].as_str() {
        failures.push(format!("the SDK raised {error}"));
        return failures;
    }
    if c["protocol"] != protocol {
        failures.push(format!(
            "negotiated {} instead of {protocol}",
            c["protocol"]
        ));
    }
    match payload_of(&c["result"]) {
        Err(problem) => failures.push(problem),
        Ok(payload) => match expected(case) {
            Ok(outcome) if payload != outcome => {
                failures.push(format!("got {payload}, expected {outcome}"));
            }
            Err(code) if payload["error"]["code"] != code => {
                failures.push(format!("got {payload}, expected the {code} error"));
            }
            _ => {}
        },
    }
    if case == "invalid"
        && !c["result"]["structuredContent"]["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("V4"))
    {
        failures.push(format!(
            "the invalid_response names no V4: {}",
            c["result"]["structuredContent"]
        ));
    }
    // What the host was asked: nothing without the extension, else once, the native form.
    let requests = c["host"]["requests"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if case == "unsupported" {
        if !requests.is_empty() {
            failures.push(format!(
                "a client without the extension was asked: {requests:?}"
            ));
        }
        return failures;
    }
    let [request] = requests.as_slice() else {
        failures.push(format!(
            "the host got {} requests, expected 1",
            requests.len()
        ));
        return failures;
    };
    let method = if protocol == LEGACY {
        "openai/elicitation/create"
    } else {
        "elicitation/create"
    };
    if request["method"] != method {
        failures.push(format!(
            "the host got {} instead of {method}",
            request["method"]
        ));
    }
    if request["params"]["requestedSchema"] != native["requestedSchema"]
        || request["params"]["message"] != native["message"]
    {
        failures.push(format!(
            "the host did not get the native form: {}",
            request["params"]
        ));
    }
    // On 2025-11-25 the server cancels the host's pending request when it gives up.
    if case == "timeout"
        && protocol == LEGACY
        && c["host"]["cancelled"].as_array().map_or(0, Vec::len) != 1
    {
        failures.push(format!(
            "the host's pending request was not cancelled: {}",
            c["host"]
        ));
    }
    failures
}

/// Checks every case of `report`: the SDK `sdk`, negotiating `protocol`, gets each outcome
/// and error envelope exactly, and the host gets the native form. Panics listing every
/// failing case.
pub fn check_report(report: &Value, sdk: &str, protocol: &str) {
    let native = native_request();
    let label = format!(
        "{} ({}, {})",
        report["sdk"].as_str().unwrap_or("?"),
        report
            .get("api")
            .or_else(|| report.get("mode"))
            .and_then(Value::as_str)
            .unwrap_or("?"),
        report["transport"].as_str().unwrap_or("?"),
    );
    assert_eq!(report["sdk"], sdk, "{label}: not the pinned SDK");
    let mut failures = Vec::new();
    for case in CASES {
        for problem in check_case(case, &report["cases"][case], protocol, &native) {
            failures.push(format!("{case}: {problem}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{label} on {protocol}: {} problems:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
    eprintln!(
        "{label} on {protocol}: all {} cases as expected",
        CASES.len()
    );
}
