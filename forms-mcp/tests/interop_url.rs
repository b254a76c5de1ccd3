//! URL-mode elicitation (protocol 2025-11-25) with software we did not write: the official
//! MCP Python SDK's client, whose `elicitation_callback` consents to a URL-mode request and
//! hands the URL and message to this test, and headless Chromium (chromedriver), in which
//! the test is the person: it enters the code from the message, fills the form, adds a file
//! through the picker and submits. Over stdio against the example `upload_server` (a derived
//! form with a `files` question, a resource card with a picture and choices with pictures
//! and descriptions, asked by `FormAsker`) and over streamable HTTP against
//! `forms-mcp --http --url-mode` (the Data tool).
//!
//! Each run checks: the request is `mode: "url"` with an `elicitationId` and a URL holding
//! only a secret; a second browser without the code sees the code prompt and answers
//! nothing; an answer the checker refuses gets 422 with its findings; the file arrives as a
//! real path with identical bytes; a replayed submission is refused; the client gets
//! `notifications/elicitation/complete` with the request's `elicitationId`; and the tool
//! result is the typed (or Data) outcome. Wrong codes cancel the ask. An answer the checker
//! refuses, sent by the page's own Submit, is shown to the person (the finding, named by the
//! question's title, above the form and by the question), what they entered stays, and the
//! corrected answer is taken.
//!
//! Needs `FORMS_INTEROP_PY` from `.ci/interop-setup` and Debian's chromium-driver.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod interop;

use forms_test_kit::{bins, browser};
use interop::*;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The Python driver, running: its JSON lines as they come.
struct Driver {
    child: Child,
    lines: mpsc::Receiver<Value>,
    stderr: std::thread::JoinHandle<String>,
}

impl Driver {
    fn start(python: &Path, config: &Value) -> Driver {
        let mut child = Command::new(python)
            .arg(interop_dir().join("python_url_client.py"))
            .arg(config.to_string())
            .env_remove("DATA_FORMS_TIMEOUT_MS")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Ok(value) = serde_json::from_str::<Value>(&line) {
                    let _ = tx.send(value);
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        Driver {
            child,
            lines,
            stderr,
        }
    }

    /// The next event, at most 60 s away.
    fn next(&mut self, what: &str) -> Value {
        match self.lines.recv_timeout(Duration::from_secs(60)) {
            Ok(value) => value,
            Err(_) => {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!(
                    "no {what} from the driver in 60 s: {}",
                    std::mem::replace(&mut self.stderr, std::thread::spawn(String::new))
                        .join()
                        .unwrap_or_default()
                );
            }
        }
    }

    /// The final report, and the requests that came before it.
    fn done(self) -> Value {
        self.done_after().0
    }

    /// The final report, and the requests that came before it.
    fn done_after(mut self) -> (Value, Vec<Value>) {
        let mut before = Vec::new();
        let mut report = self.next("report");
        for _ in 0..100 {
            if report["event"] == "done" {
                break;
            }
            before.push(report["params"].clone());
            report = self.next("report");
        }
        assert_eq!(report["event"], "done", "{report}");
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.child.try_wait().unwrap().is_none() {
            assert!(Instant::now() < deadline, "the driver did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
        (report, before)
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The code in a URL-mode request's message (`…enter the code XXXXXXXX.…`).
fn code_of(message: &str) -> String {
    let at = message.find("enter the code ").expect(message) + "enter the code ".len();
    message[at..at + 8].to_owned()
}

/// `http://127.0.0.1:PORT/SECRET/` (on a page listener of its own) or
/// `http://127.0.0.1:PORT/forms-page/SECRET/` (on `forms-mcp --http`'s listener) → (PORT,
/// the path up to the secret), checking that the URL holds nothing else.
fn parts_of(url: &str) -> (u16, String) {
    let rest = url.strip_prefix("http://127.0.0.1:").expect(url);
    let (port, path) = rest.split_once('/').unwrap();
    let (base, path) = match path.strip_prefix("forms-page/") {
        Some(path) => ("/forms-page/", path),
        None => ("/", path),
    };
    let secret = path.strip_suffix('/').expect(url);
    assert!(
        secret.len() == 64 && secret.bytes().all(|b| b.is_ascii_hexdigit()),
        "the URL holds only a secret: {url}"
    );
    (port.parse().unwrap(), format!("{base}{secret}"))
}

/// One request to the page server, as a page of its own origin would send it; the status
/// and the body.
fn request(port: u16, method: &str, path: &str, kind: &str, body: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: http://127.0.0.1:{port}\r\n\
         Content-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut reply = String::new();
    let _ = stream.read_to_string(&mut reply);
    let status = reply
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = reply
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

/// A POST from the page's own script (its cookie included); the status and the body.
fn post_from_page(b: &browser::Browser, body: &Value) -> (u64, String) {
    let got = b.js(
        "var x = new XMLHttpRequest();
         x.open('POST', document.body.getAttribute('data-forms-post'), false);
         x.setRequestHeader('Content-Type', 'application/json');
         x.send(arguments[0]);
         return [x.status, x.responseText];",
        vec![json!(body.to_string())],
    );
    (
        got[0].as_u64().unwrap(),
        got[1].as_str().unwrap().to_owned(),
    )
}

fn wait_until(what: &str, mut ok: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !ok() {
        assert!(Instant::now() < deadline, "{what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The bytes of the file the person adds.
fn data_file(dir: &Path) -> (PathBuf, Vec<u8>) {
    let path = dir.join("q3 sales.csv");
    let bytes: Vec<u8> = (0..70_000u32)
        .map(|i| (i * 131 % 251) as u8)
        .chain(*b"\nregion,total\n")
        .collect();
    std::fs::write(&path, &bytes).unwrap();
    (path, bytes)
}

/// What the person does on the page; returns the URI of the added copy and the request.
fn answer_in_chromium(
    driver: &mut Driver,
    file: &Path,
    files_question: &str,
    choose: Option<&str>,
    invalid: &Value,
    retried: bool,
) -> (String, Value) {
    let event = driver.next("URL-mode request");
    assert_eq!(event["event"], "url", "{event}");
    let params = event["params"].clone();
    if retried {
        // 2026-07-28: the client retries before the page is submitted, and is asked the
        // same interaction (the same URL, code and elicitationId).
        let again = driver.next("the retry's URL-mode request");
        assert_eq!(again["params"], params, "a retry asked another interaction");
    }
    assert_eq!(params["mode"], "url", "{params}");
    let url = params["url"].as_str().unwrap().to_owned();
    let message = params["message"].as_str().unwrap();
    assert!(
        params["elicitationId"]
            .as_str()
            .is_some_and(|id| id.len() >= 16),
        "{params}"
    );
    let (port, secret) = parts_of(&url);
    let code = code_of(message);
    assert!(!url.contains(&code));

    // Someone with the URL but without the code: the code prompt, nothing to answer.
    let stranger = browser::Browser::start();
    stranger.open_url(&url);
    assert_eq!(stranger.text_of("h1"), "Enter your code");
    assert!(stranger.find_all("#forms-form").is_empty());
    drop(stranger);
    let forged = json!({"action": "decline"}).to_string();
    let (status, _) = request(
        port,
        "POST",
        &format!("{secret}/answer/1"),
        "application/json",
        &forged,
    );
    assert_eq!(status, 403, "an answer without the code's cookie");

    // The person: the code, then the form.
    let b = browser::Browser::start();
    b.open_url(&url);
    b.type_into(&b.find("#forms-code"), &code.to_lowercase());
    b.click_on("#forms-code-submit");
    let deadline = Instant::now() + Duration::from_secs(20);
    while b.find_all("#forms-form").is_empty() {
        assert!(
            Instant::now() < deadline,
            "no form after the code: {}",
            b.js("return document.documentElement.outerHTML", vec![])
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    if let Some(option) = choose {
        b.click_on(&format!("label[data-option={option}]"));
    }
    // An answer the checker refuses is refused with its findings; the form stays open.
    let (status, findings) = post_from_page(&b, invalid);
    assert_eq!(status, 422, "{findings}");
    assert!(!findings.is_empty());

    let picker = b.find(&format!("{files_question} input[type=file]"));
    b.type_into(&picker, file.to_str().unwrap());
    let added = format!("{files_question} .added li");
    wait_until("the file was not added", || !b.find_all(&added).is_empty());
    let uri = b
        .js(
            "return document.querySelector(arguments[0]).getAttribute('data-file')",
            vec![json!(added)],
        )
        .as_str()
        .unwrap()
        .to_owned();
    b.click_on("#forms-submit");
    wait_until("the submission was not taken", || {
        b.js(
            "var r = document.getElementById('forms-result'); return r && r.getAttribute('data-forms-sent');",
            vec![],
        ) == json!("yes")
    });
    // The same submission again: refused (the page is closed).
    let (status, _) = post_from_page(&b, &json!({"action": "cancel"}));
    assert!(status == 403 || status == 409, "a replay got {status}");
    (uri, params)
}

fn check_copy(uri: &str, path: Option<&str>, bytes: &[u8], original: &Path) {
    let copy = url::Url::parse(uri).unwrap().to_file_path().unwrap();
    if let Some(path) = path {
        assert_eq!(Path::new(path), copy);
    }
    assert_ne!(copy, original);
    assert_eq!(std::fs::read(&copy).unwrap(), bytes, "identical bytes");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&copy), 0o600);
        assert_eq!(mode(copy.parent().unwrap()), 0o700);
    }
}

fn check_completed(report: &Value, params: &Value) {
    let complete: Vec<&Value> = report["notifications"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["method"] == "notifications/elicitation/complete")
        .collect();
    assert_eq!(complete.len(), 1, "{report}");
    assert_eq!(
        complete[0]["params"]["elicitationId"], params["elicitationId"],
        "{report}"
    );
}

#[test]
fn a_derived_form_with_files_reaches_a_url_mode_client_whole_over_stdio() {
    let Some(python) = python() else { return };
    let dir = forms_test_kit::scratch("url", "stdio");
    let (file, bytes) = data_file(&dir);
    let mut driver = Driver::start(
        &python,
        &json!({"mode": "legacy", "transport": "stdio",
                "command": [bins::example("upload_server")], "tool": "send_data"}),
    );
    let invalid = json!({"action": "accept", "content": {"format": "Docx"}});
    let (uri, params) =
        answer_in_chromium(&mut driver, &file, "#q-2", Some("Pdf"), &invalid, false);
    let answered = Instant::now();
    let report = driver.done();
    eprintln!(
        "the driver reported {:?} after the submission",
        answered.elapsed()
    );
    assert_eq!(report["protocol"], LEGACY, "{report}");
    assert!(report["error"].is_null(), "{report}");
    assert_eq!(report["requests"].as_array().unwrap().len(), 1);
    check_completed(&report, &params);
    let text = report["result"]["content"][0]["text"].as_str().unwrap();
    let got: Value = serde_json::from_str(text).unwrap();
    assert_eq!(got["format"], "Pdf", "{got}");
    assert_eq!(got["files"][0]["uri"], uri.as_str(), "{got}");
    check_copy(&uri, got["files"][0]["path"].as_str(), &bytes, &file);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_data_tool_asks_a_url_mode_client_on_the_page_over_http() {
    let Some(python) = python() else { return };
    let dir = forms_test_kit::scratch("url", "http");
    let (file, bytes) = data_file(&dir);
    let server = start_http_with(60_000, &["--url-mode"]);
    let form = json!({"message": "Send the quarter's data", "questions": [
        {"id": "note", "type": "text", "title": "Note", "required": false},
        {"id": "data", "type": "files", "title": "The quarter's data", "required": true,
         "accept": [".csv", "text/csv"]}]});
    let mut driver = Driver::start(
        &python,
        &json!({"mode": "legacy", "transport": "http", "url": server.url,
                "tool": "form_elicitation_v2_request", "arguments": form}),
    );
    let invalid = json!({"action": "accept", "content": {"note": "x", "colour": "red"}});
    let (uri, params) = answer_in_chromium(&mut driver, &file, "#q-1", None, &invalid, false);
    // The page was served on the MCP listener itself, under its own path.
    let origin = server.url.trim_end_matches("/mcp");
    assert!(
        params["url"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{origin}/forms-page/")),
        "{params} on {}",
        server.url
    );
    let report = driver.done();
    assert!(report["error"].is_null(), "{report}");
    check_completed(&report, &params);
    let payload = &report["result"]["structuredContent"];
    assert_eq!(
        *payload,
        json!({"action": "accept", "content": {"data": [uri]}}),
        "{report}"
    );
    check_copy(&uri, None, &bytes, &file);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn wrong_codes_cancel_the_ask_and_a_declined_url_declines_it() {
    let Some(python) = python() else { return };
    let command = json!([bins::example("upload_server")]);
    let mut driver = Driver::start(
        &python,
        &json!({"mode": "legacy", "transport": "stdio", "command": command, "tool": "send_data"}),
    );
    let event = driver.next("URL-mode request");
    let (port, secret) = parts_of(event["params"]["url"].as_str().unwrap());
    let code = code_of(event["params"]["message"].as_str().unwrap());
    let wrong = if code.starts_with('A') {
        "BBBBBBBB"
    } else {
        "AAAAAAAA"
    };
    for n in 1..=5 {
        let (status, body) = request(
            port,
            "POST",
            &format!("{secret}/code"),
            "application/x-www-form-urlencoded",
            &format!("code={wrong}"),
        );
        assert_eq!(status, 403, "try {n}: {body}");
    }
    // The right code after that opens nothing.
    let (status, _) = request(
        port,
        "POST",
        &format!("{secret}/code"),
        "application/x-www-form-urlencoded",
        &format!("code={code}"),
    );
    assert_eq!(status, 403);
    let report = driver.done();
    let text = report["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(text, r#"{"outcome":"Cancelled"}"#, "{report}");

    let driver = Driver::start(
        &python,
        &json!({"mode": "legacy", "transport": "stdio", "command": command, "tool": "send_data",
                "consent": {"action": "decline"}}),
    );
    let report = driver.done();
    let text = report["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(text, r#"{"outcome":"Declined"}"#, "{report}");
    // A declined URL was never opened: no completion.
    assert!(
        !report["notifications"]
            .to_string()
            .contains("elicitation/complete"),
        "{report}"
    );
}

#[test]
fn on_2026_07_28_a_retry_before_the_submission_gets_the_same_interaction_then_the_result() {
    let Some(python) = python() else { return };
    let dir = forms_test_kit::scratch("url", "modern");
    let (file, bytes) = data_file(&dir);
    let mut driver = Driver::start(
        &python,
        &json!({"mode": "auto", "transport": "stdio", "rounds": 100,
                "command": [bins::example("upload_server")], "tool": "send_data"}),
    );
    let invalid = json!({"action": "accept", "content": {"format": "Docx"}});
    let (uri, params) =
        answer_in_chromium(&mut driver, &file, "#q-2", Some("Html"), &invalid, true);
    let (report, again) = driver.done_after();
    assert_eq!(report["protocol"], MODERN, "{report}");
    assert!(report["error"].is_null(), "{report}");
    // Each round before the submission asked the same interaction: one page, one code.
    for request in &again {
        assert_eq!(*request, params, "a retry asked another interaction");
    }
    let text = report["result"]["content"][0]["text"].as_str().unwrap();
    let got: Value = serde_json::from_str(text).unwrap();
    assert_eq!(got["format"], "Html", "{got}");
    assert_eq!(got["files"][0]["uri"], uri.as_str(), "{got}");
    check_copy(&uri, got["files"][0]["path"].as_str(), &bytes, &file);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The visible text of the element `css`, or "" when there is none or it is hidden.
fn visible_text(b: &browser::Browser, css: &str) -> String {
    if b.find_all(css).is_empty() {
        return String::new();
    }
    b.text_of(css)
}

#[test]
fn a_refused_submission_is_shown_on_the_page_which_keeps_the_answers_for_the_correction() {
    let Some(python) = python() else { return };
    let dir = forms_test_kit::scratch("url", "refused");
    let (file, bytes) = data_file(&dir);
    let mut driver = Driver::start(
        &python,
        &json!({"mode": "legacy", "transport": "stdio",
                "command": [bins::example("upload_server")], "tool": "send_data"}),
    );
    let event = driver.next("URL-mode request");
    let params = event["params"].clone();
    let url = params["url"].as_str().unwrap();
    let code = code_of(params["message"].as_str().unwrap());
    let b = browser::Browser::start();
    b.open_url(url);
    b.type_into(&b.find("#forms-code"), &code);
    b.click_on("#forms-code-submit");
    wait_until("no form after the code", || {
        !b.find_all("#forms-form").is_empty()
    });
    // The person picks PDF and adds the file.
    b.click_on("label[data-option=Pdf]");
    b.type_into(&b.find("#q-2 input[type=file]"), file.to_str().unwrap());
    wait_until("the file was not added", || {
        !b.find_all("#q-2 .added li").is_empty()
    });
    // The answer the page sends is one the server's checker refuses (as from a page out of
    // step with the form: the option's value is not one of the form's).
    b.js(
        "document.querySelector('label[data-option=Pdf] input').value = 'Docx';",
        vec![],
    );
    b.click_on("#forms-submit");
    wait_until("the refusal was not shown", || {
        !visible_text(&b, "#forms-errors").is_empty()
    });
    // The person reads what was wrong, named by the question's title, above the form and
    // by the question.
    let shown = visible_text(&b, "#forms-errors");
    eprintln!("the page shows: {shown:?}");
    assert!(
        shown.contains("Not sent: the answer was refused. Correct it and submit again.")
            && shown.contains("Report format: \"Docx\" is not an offered option id (V4)"),
        "{shown}"
    );
    let by_question = visible_text(&b, "#q-0 .err");
    assert!(
        by_question.contains("\"Docx\" is not an offered option id"),
        "{by_question}"
    );
    assert_eq!(
        visible_text(&b, "#forms-result"),
        "",
        "a refused answer shown as sent"
    );
    // What they entered is kept: the option picked, the file added.
    assert_eq!(
        b.js(
            "return document.querySelector('label[data-option=Pdf] input').checked;",
            vec![]
        ),
        json!(true)
    );
    let added = "#q-2 .added li";
    assert_eq!(b.find_all(added).len(), 1);
    let uri = b
        .js(
            "return document.querySelector(arguments[0]).getAttribute('data-file')",
            vec![json!(added)],
        )
        .as_str()
        .unwrap()
        .to_owned();
    // The person corrects the answer (another format) and submits again: taken.
    b.click_on("label[data-option=Html]");
    assert_eq!(
        visible_text(&b, "#q-0 .err"),
        "",
        "the finding stayed after the correction"
    );
    b.click_on("#forms-submit");
    wait_until("the corrected submission was not taken", || {
        b.js(
            "var r = document.getElementById('forms-result'); return r && r.getAttribute('data-forms-sent');",
            vec![],
        ) == json!("yes")
    });
    assert!(visible_text(&b, "#forms-result").contains("Your answer was sent."));
    assert_eq!(visible_text(&b, "#forms-errors"), "");
    let report = driver.done();
    assert!(report["error"].is_null(), "{report}");
    check_completed(&report, &params);
    let text = report["result"]["content"][0]["text"].as_str().unwrap();
    let got: Value = serde_json::from_str(text).unwrap();
    assert_eq!(got["format"], "Html", "{got}");
    assert_eq!(got["files"][0]["uri"], uri.as_str(), "{got}");
    check_copy(&uri, got["files"][0]["path"].as_str(), &bytes, &file);
    let _ = std::fs::remove_dir_all(&dir);
}
