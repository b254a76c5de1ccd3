//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, npm, pinned in
//! forms-host/tests/conformance/package.json and installed by `.ci/interop-setup` under
//! `target/interop/conformance`, or where `FORMS_CONFORMANCE_DIR` says) against the real
//! binaries: its client scenarios `initialize`, `tools_call`, `sse-retry` and
//! `elicitation-sep1034-client-defaults` against `forms host` (the last answered on the page
//! in headless Chromium, submitted as first shown: the defaults must be filled in), and its
//! generic server scenarios against `forms-mcp --http`. The suite's own verdicts
//! (`checks.json`) are read and asserted.
//!
//! Node.js 20 lacks `fs.globSync`, which the suite imports by name (for its `report` command
//! only), so no command of it would start: `NODE_OPTIONS=--import …/globsync.mjs` registers
//! module hooks that resolve the suite's `fs` to node:fs plus a `globSync` that throws if
//! called (nothing on Node.js 22 or later).
//!
//! Without the installed suite the tests say so and pass, unless `CI` is set: then they fail.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod browser;

use forms_test_kit::bins::workspace_root;
use forms_test_kit::forms_mcp;
use forms_test_kit::process::Server;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The pins, the Node.js 20 shim and the client command.
fn pins() -> PathBuf {
    workspace_root().join("forms-host/tests/conformance")
}

/// The installed suite's folder (holding `node_modules`), or `None` (the test is skipped)
/// when it is not installed and `CI` is not set.
fn suite() -> Option<PathBuf> {
    let dir = match std::env::var_os("FORMS_CONFORMANCE_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => std::env::var_os("CARGO_TARGET_DIR")
            .map_or_else(|| workspace_root().join("target"), PathBuf::from)
            .join("interop/conformance"),
    };
    if dir.join("node_modules/.bin/conformance").exists() {
        return Some(dir);
    }
    let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false");
    assert!(
        !ci,
        "the conformance suite is not installed at {} (run .ci/interop-setup)",
        dir.display()
    );
    eprintln!(
        "SKIPPED: the conformance suite is not installed at {} (run .ci/interop-setup)",
        dir.display()
    );
    None
}

/// `conformance ARGS… -o OUT`, started; what it prints goes to `OUT.txt`.
fn conformance(suite: &Path, args: &[&str], out: &Path, envs: &[(&str, &Path)]) -> Child {
    let printed = std::fs::File::create(out.with_extension("txt")).unwrap();
    let mut command = Command::new("node");
    command
        .arg(suite.join("node_modules/.bin/conformance"))
        .args(args)
        .arg("-o")
        .arg(out)
        .env(
            "NODE_OPTIONS",
            format!("--import {}", pins().join("globsync.mjs").display()),
        )
        .env("FORMS_BIN", env!("CARGO_BIN_EXE_forms"))
        .stdin(Stdio::null())
        .stdout(printed.try_clone().unwrap())
        .stderr(printed);
    for (name, value) in envs {
        command.env(name, value);
    }
    command.spawn().expect("node runs")
}

/// Waits (at most 150 s) for the suite run into `out` to end; what it printed.
fn finish(mut child: Child, out: &Path) -> String {
    let deadline = Instant::now() + Duration::from_secs(150);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the conformance suite ran over 150 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    std::fs::read_to_string(out.with_extension("txt")).unwrap_or_default()
}

/// The suite's verdicts of the one scenario run into `out`: check id and status.
fn checks(out: &Path, log: &str) -> Vec<(String, String)> {
    let runs: Vec<PathBuf> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}\n{log}");
    let text = std::fs::read_to_string(runs[0].join("checks.json"))
        .unwrap_or_else(|e| panic!("no checks.json ({e}):\n{log}"));
    let list: Vec<Value> = serde_json::from_str(&text).unwrap();
    list.iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap().to_owned(),
                c["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// Check ids, each with the statuses it may have.
type Expected<'a> = &'a [(&'a str, &'a [&'a str])];

/// Asserts that no check failed and that each of `expected` has one of its statuses.
fn assert_passed(scenario: &str, checks: &[(String, String)], expected: Expected<'_>) {
    let failed: Vec<_> = checks.iter().filter(|(_, s)| s == "FAILURE").collect();
    assert!(failed.is_empty(), "{scenario}: {failed:?} in {checks:?}");
    for (id, statuses) in expected {
        let found = checks.iter().find(|(c, _)| c == id);
        assert!(
            found.is_some_and(|(_, s)| statuses.contains(&s.as_str())),
            "{scenario}: {id} is {found:?}, expected one of {statuses:?}; {checks:?}"
        );
    }
}

/// Runs the suite's client `scenario` against `forms host` (the pinned `client.sh`) into
/// `out`, the host's log in `log`.
fn client_scenario(suite: &Path, scenario: &str, out: &Path, log: &Path) -> Child {
    let client = pins().join("client.sh").display().to_string();
    conformance(
        suite,
        &["client", "--command", &client, "--scenario", scenario],
        out,
        &[("FORMS_HOST_LOG", log)],
    )
}

#[test]
fn forms_host_passes_the_suite_s_client_scenarios() {
    let Some(suite) = suite() else { return };
    let base = forms_test_kit::scratch("conformance", "client");
    let cases: [(&str, Expected<'_>); 3] = [
        ("initialize", &[("mcp-client-initialization", &["SUCCESS"])]),
        ("tools_call", &[("tool-add-numbers", &["SUCCESS"])]),
        (
            "sse-retry",
            &[
                ("client-sse-graceful-reconnect", &["SUCCESS"]),
                // Late by over 200 ms (a loaded machine) is the suite's own warning.
                ("client-sse-retry-timing", &["SUCCESS", "WARNING"]),
                ("client-sse-last-event-id", &["SUCCESS"]),
            ],
        ),
    ];
    for (scenario, expected) in cases {
        let out = base.join(scenario);
        let log = base.join(format!("{scenario}.log"));
        let child = client_scenario(&suite, scenario, &out, &log);
        let output = finish(child, &out);
        let host = std::fs::read_to_string(&log).unwrap_or_default();
        let found = checks(&out, &format!("{output}\nforms host: {host}"));
        assert_passed(scenario, &found, expected);
    }
}

#[test]
fn forms_host_page_applies_sep_1034_defaults_of_the_suite_s_elicitation() {
    let Some(suite) = suite() else { return };
    let base = forms_test_kit::scratch("conformance", "sep1034");
    let out = base.join("out");
    let log = base.join("host.log");
    let scenario = "elicitation-sep1034-client-defaults";
    let child = client_scenario(&suite, scenario, &out, &log);
    // The page's URL, from the host's standard error.
    let deadline = Instant::now() + Duration::from_secs(60);
    let url = loop {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if let Some(url) = text
            .lines()
            .find_map(|l| l.strip_prefix("forms host: answer the form at "))
        {
            break url.to_owned();
        }
        assert!(Instant::now() < deadline, "no page URL: {text}");
        std::thread::sleep(Duration::from_millis(50));
    };
    let b = browser::Browser::start();
    b.open_url(&url);
    // The person's page: which server asks, and no preview banner naming another method.
    let asker = b.text_of("#forms-asker");
    assert!(
        asker.contains("elicitation-defaults-test-server 1.0.0"),
        "{asker}"
    );
    let page = b.js("return document.body.innerText", vec![]);
    let page = page.as_str().unwrap();
    assert!(!page.contains("openai/elicitation/create"), "{page}");
    assert!(!page.contains("Preview of"), "{page}");
    // Submitted as first shown.
    b.click_on("#forms-submit");
    let output = finish(child, &out);
    let found = checks(&out, &output);
    let ok: &[&str] = &["SUCCESS"];
    assert_passed(
        scenario,
        &found,
        &[
            ("client-elicitation-sep1034-string-default", ok),
            ("client-elicitation-sep1034-integer-default", ok),
            ("client-elicitation-sep1034-number-default", ok),
            ("client-elicitation-sep1034-enum-default", ok),
            ("client-elicitation-sep1034-boolean-default", ok),
        ],
    );
    // The values themselves: the defaults, typed as the schema says.
    let runs: Vec<PathBuf> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let all: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(runs[0].join("checks.json")).unwrap())
            .unwrap();
    let received = |id: &str| {
        all.iter()
            .find(|c| c["id"] == id)
            .map(|c| c["details"]["receivedValue"].clone())
            .unwrap()
    };
    assert_eq!(
        [
            received("client-elicitation-sep1034-string-default"),
            received("client-elicitation-sep1034-integer-default"),
            received("client-elicitation-sep1034-number-default"),
            received("client-elicitation-sep1034-enum-default"),
            received("client-elicitation-sep1034-boolean-default"),
        ],
        [
            json!("John Doe"),
            json!(30),
            json!(95.5),
            json!("active"),
            json!(true)
        ]
    );
}

/// The server scenarios that ask nothing of a server but MCP itself (the others call the
/// suite's "everything server" tools, prompts and resources, which forms-mcp does not have).
const GENERIC_SERVER_SCENARIOS: [&str; 5] = [
    "server-initialize",
    "ping",
    "tools-list",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
];

#[test]
fn forms_mcp_http_passes_the_suite_s_generic_server_scenarios() {
    let Some(suite) = suite() else { return };
    let base = forms_test_kit::scratch("conformance", "server");
    let server = Server::http(&forms_mcp(), &[], &[("DATA_FORMS_TIMEOUT_MS", "10000")]);
    let url = format!("http://{}/mcp", server.authority());
    for scenario in GENERIC_SERVER_SCENARIOS {
        let out = base.join(scenario);
        let child = conformance(
            &suite,
            &["server", "--url", &url, "--scenario", scenario],
            &out,
            &[],
        );
        let output = finish(child, &out);
        let found = checks(&out, &output);
        assert!(
            found.iter().any(|(_, s)| s == "SUCCESS"),
            "{scenario}: {found:?}\n{output}"
        );
        assert_passed(scenario, &found, &[]);
    }
}
