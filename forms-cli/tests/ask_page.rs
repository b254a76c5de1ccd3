//! `forms ask page REQ --as NAME`: a form request answered on the page of `forms host` in
//! headless Chromium (chromedriver), its response submitted with the version read, on SQLite
//! and on PostgreSQL (with `FORMS_ASK_PG_URL`; without it the case says loudly that it was
//! skipped, and with `CI=true` it fails). The page is served on 127.0.0.1 at a secret URL;
//! a request without the secret, or from a foreign `Origin`, is refused and the form keeps
//! waiting for the person.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod browser;
mod controls;
mod conversation;

use conversation::Conversation;

use forms_test_kit::{http, store, TempDir};

use forms_ask::{Asks, FormRequest, NewRequest, RequestId};
use forms_runtime::{DataForm, Form, Outcome, StaticForm};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;
use store::pg_url;

/// The form, as the asking program declares it in Rust.
#[derive(Form, Debug, PartialEq)]
#[form(message = "Set up your weekly report")]
struct Report {
    /// What would you like to understand?
    goal: Option<String>,
    /// Report format
    format: Format,
}

#[derive(Form, Debug, PartialEq)]
enum Format {
    #[form(id = "pdf", title = "PDF")]
    Pdf,
    #[form(id = "html", title = "Web page")]
    Html,
}

fn report_form() -> DataForm {
    Report::form().data().clone()
}

/// A raw HTTP/1.1 request to the page server; the status code.
fn status_of(port: u16, target: &str, headers: &[(&str, &str)], body: &str) -> u16 {
    let mut head = format!(
        "POST {target} HTTP/1.1\r\nconnection: close\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let (reply, _) = http::exchange(port, &head, body.as_bytes(), Duration::from_secs(30));
    String::from_utf8_lossy(&reply)
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

/// `forms ask page ID --db DB --as WHO`, standard output and error piped.
fn page_command(db: &str, id: &str, who: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_forms"));
    command
        .args(["ask", "page", id, "--db", db, "--as", who])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// The lines of the child's standard error, as they arrive.
fn stderr_lines(child: &mut Child) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// The page's secret URL, from the line naming it on standard error (within 20 s); the
/// child is killed if none comes.
fn page_url(child: &mut Child) -> String {
    let lines = stderr_lines(child);
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
        match lines.recv_timeout(left) {
            Ok(line) => {
                if let Some(url) = line.strip_prefix("forms ask page: answer the form at ") {
                    let url = url.trim().to_owned();
                    std::thread::spawn(move || for _ in lines {});
                    return url;
                }
            }
            Err(_) => break,
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("no URL on standard error");
}

/// The port and the secret of a page URL `http://127.0.0.1:PORT/SECRET/`.
fn port_and_secret(url: &str) -> (u16, String) {
    let rest = url.strip_prefix("http://127.0.0.1:").unwrap();
    let (port, secret) = rest.trim_end_matches('/').split_once('/').unwrap();
    (port.parse().unwrap(), secret.to_owned())
}

/// Waits for the child to exit; its status and standard output.
fn finish(mut child: Child) -> (std::process::ExitStatus, Vec<u8>) {
    let status = child.wait().unwrap();
    let mut out = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
    (status, out)
}

fn answer_on_the_page(db: &str) {
    let c = Conversation::new(db, &["agent", "ana"]);
    let (ana, agent) = (c.name("ana"), c.principal("agent"));
    let opened = c.open(
        "agent",
        NewRequest::question("When you are back: the weekly report").form(&report_form()),
        "open-1",
    );
    drop(c);

    let mut child = page_command(db, opened.id.as_str(), &ana).spawn().unwrap();
    // The secret URL, from standard error.
    let url = page_url(&mut child);
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let (port, secret) = port_and_secret(&url);

    // Without the secret, or from another origin, an answer is refused.
    let forged = r#"{"action":"accept","content":{"format":"pdf"}}"#;
    let host = format!("127.0.0.1:{port}");
    assert_eq!(
        status_of(
            port,
            "/answer/1",
            &[("host", &host), ("content-type", "application/json")],
            forged
        ),
        403
    );
    assert_eq!(
        status_of(
            port,
            &format!("/{secret}/answer/1"),
            &[
                ("host", &host),
                ("content-type", "application/json"),
                ("origin", "http://127.0.0.1:9")
            ],
            forged
        ),
        403
    );

    // The person answers on the page.
    let b = browser::Browser::start();
    b.open_url(&url);
    assert_eq!(b.text_of("h1"), "Set up your weekly report");
    b.click_on("label[data-option=html]");
    b.type_into(&b.find("textarea"), "churn");
    b.click_on("#forms-submit");

    let (status, out) = finish(child);
    let out = String::from_utf8(out).unwrap();
    assert!(status.success(), "{out}");
    let saved: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(saved["state"], "resolved", "{saved}");
    assert_eq!(saved["responder"], ana.as_str());
    assert_eq!(
        saved["response"],
        json!({"action": "accept", "content": {"goal": "churn", "format": "html"}})
    );
    // Stored as printed, and decoded into the Rust type by an engine that did not open it.
    let asks = Asks::open_location(db).unwrap();
    let me = asks.as_principal(&agent);
    let id = RequestId::new(opened.id.as_str()).unwrap();
    let shown = me.show(&id).unwrap();
    assert_eq!(forms_ask::wire::request(&shown), saved);
    let reply = FormRequest::<Report>::resume(&me, &id)
        .unwrap()
        .show(&me)
        .unwrap();
    assert_eq!(
        reply.outcome,
        Some(Outcome::Accepted(Report {
            goal: Some("churn".into()),
            format: Format::Html,
        }))
    );
}

#[test]
fn ask_page_answers_a_form_request_in_chromium_sqlite() {
    answer_on_the_page(&TempDir::new("ask-page-db").db());
}

#[test]
fn ask_page_answers_a_form_request_in_chromium_postgres() {
    if let Some(url) = pg_url() {
        answer_on_the_page(&url);
    }
}

/// `forms ask page …` run to its end (at most 20 s: a page left waiting is killed and the
/// case fails); its exit status, the JSON line on standard output and standard error.
fn ask_page_run(db: &str, id: &RequestId, acting: &str) -> (i32, Value, String) {
    let mut child = page_command(db, id.as_str(), acting).spawn().unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "forms ask page kept serving the page: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(30));
    }
    let out = child.wait_with_output().unwrap();
    let line = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (
        out.status.code().unwrap(),
        line,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `forms ask page` for `id` as `acting`, refused with exit 1 and the error `code` before
/// the page was served; the refusal printed.
fn refused_before_serving(db: &str, id: &RequestId, acting: &str, code: &str) -> Value {
    let (exit, refused, stderr) = ask_page_run(db, id, acting);
    assert_eq!(exit, 1, "{refused} {stderr}");
    assert_eq!(refused["error"]["code"], code, "{refused}");
    assert!(!stderr.contains("answer the form at"), "{stderr}");
    refused
}

/// A request that is no longer open and a person outside its audience are refused before the
/// page is served, with the refusal `respond` would give (exit 1), and nothing is written.
#[test]
fn ask_page_refuses_before_serving_the_page() {
    let (_dir, c) = Conversation::in_scratch("ask-page-refused", &["agent", "ana", "bob"]);
    let (db, ana, bob) = (&c.db, c.name("ana"), c.name("bob"));
    let open = |i: usize| {
        c.open(
            "agent",
            NewRequest::question("The weekly report")
                .form(&report_form())
                .audience([c.principal("ana")]),
            &format!("open-{i}"),
        )
    };
    let (answered, for_ana) = (open(0), open(1));

    // Answered already: a conflict carrying the saved answer.
    let saved = c
        .by("ana")
        .respond(
            &answered.id,
            1,
            forms_ask::Outcome::Answered,
            Some(r#"{"action":"accept","content":{"format":"pdf"}}"#),
            "r-1",
        )
        .unwrap();
    let refused = refused_before_serving(db, &answered.id, &ana, "conflict");
    assert_eq!(refused["error"]["latest"]["version"], saved.version);
    assert_eq!(
        refused["error"]["latest"]["response"],
        json!({"action": "accept", "content": {"format": "pdf"}})
    );

    // bob may see the request (a member of its conversation) but not answer it.
    let refused = refused_before_serving(db, &for_ana.id, &bob, "not_eligible");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not in the request's original audience"),
        "{refused}"
    );

    // Nothing was written.
    let asks = Asks::open_location(db).unwrap();
    let agent = asks.as_principal(&c.principal("agent"));
    assert_eq!(agent.show(&answered.id).unwrap(), saved);
    let now = agent.show(&for_ana.id).unwrap();
    assert_eq!((now.version, now.state), (1, forms_ask::State::Open));
}

/// The page server names `forms ask page` on standard error, not `forms host`.
#[test]
fn ask_page_names_itself_on_standard_error() {
    let (_dir, c) = Conversation::in_scratch("ask-page-label", &["agent", "ana"]);
    let opened = c.open(
        "agent",
        NewRequest::question("The weekly report").form(&report_form()),
        "open-1",
    );
    let mut child = page_command(&c.db, opened.id.as_str(), &c.name("ana"))
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let line = stderr_lines(&mut child).recv_timeout(Duration::from_secs(20));
    let _ = child.kill();
    let _ = child.wait();
    let line = line.unwrap();
    assert!(
        line.starts_with("forms ask page: answer the form at http://127.0.0.1:"),
        "{line}"
    );
}

/// A stored form the runtime refuses (here: no questions) is the store's failure, refused
/// with exit 1 before the page is served, not a usage error.
#[test]
fn ask_page_with_an_unreadable_stored_form_is_refused() {
    let (_dir, c) = Conversation::in_scratch("ask-page-corrupt", &["agent", "ana"]);
    let (db, ana, agent) = (c.db.clone(), c.name("ana"), c.principal("agent"));
    let corrupt = c.open(
        "agent",
        NewRequest::question("The weekly report").form(&report_form()),
        "open-1",
    );
    drop(c);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let changed = conn
        .execute(
            "UPDATE requests SET doc = json_set(doc, '$.form', json(?1)) WHERE id = ?2",
            rusqlite::params![
                r#"{"message":"Broken","questions":[]}"#,
                corrupt.id.as_str()
            ],
        )
        .unwrap();
    assert_eq!(changed, 1);
    drop(conn);
    let refused = refused_before_serving(&db, &corrupt.id, &ana, "store");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("the stored form of request"),
        "{refused}"
    );

    let asks = Asks::open_location(&db).unwrap();
    let now = asks.as_principal(&agent).show(&corrupt.id).unwrap();
    assert_eq!((now.version, now.state), (1, forms_ask::State::Open));
}

/// The attack of issue 22: a request whose title, body and form hold CSI, OSC … ST, RLO and
/// DEL, answered on the page (posted with the secret, as the page posts it): the final line
/// holds none of them raw and parses back to the stored text.
#[test]
fn ask_page_final_line_escapes_terminal_controls_in_stored_text() {
    let (_dir, c) = Conversation::in_scratch("ask-page-controls", &["agent", "ana"]);
    let opened = c.open_hostile_form();
    let (db, ana) = (c.db.clone(), c.name("ana"));
    drop(c);
    let mut child = page_command(&db, opened.id.as_str(), &ana).spawn().unwrap();
    let (port, secret) = port_and_secret(&page_url(&mut child));
    let host = format!("127.0.0.1:{port}");
    let origin = format!("http://{host}");
    let status = status_of(
        port,
        &format!("/{secret}/answer/1"),
        &[
            ("host", &host),
            ("origin", &origin),
            ("content-type", "application/json"),
        ],
        r#"{"action":"accept","content":{"pick":"a"}}"#,
    );
    assert_eq!(status, 204);
    let (exited, out) = finish(child);
    assert!(exited.success(), "{}", String::from_utf8_lossy(&out));
    let saved = controls::assert_escaped("ask page", &out);
    controls::assert_holds_payload("ask page", &saved, true);
    assert_eq!(saved["state"], "resolved", "{saved}");
}
