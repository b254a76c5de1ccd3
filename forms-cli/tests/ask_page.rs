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

use forms_test_kit::{http, store};

use forms_ask::{Asks, ConversationId, FormRequest, NewRequest, Principal, RequestId};
use forms_runtime::{DataForm, Form, Outcome, StaticForm};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;
use store::{pg_url, tag};

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

fn answer_on_the_page(db: &str) {
    let t = tag();
    let asks = Asks::open_location(db).unwrap();
    let chat = ConversationId::new(format!("chat-{t}")).unwrap();
    let (agent, ana) = (format!("agent-{t}"), format!("ana-{t}"));
    for p in [&agent, &ana] {
        asks.join(&chat, &Principal::new(p.as_str()).unwrap())
            .unwrap();
    }
    let opened = asks
        .as_principal(&Principal::new(agent.as_str()).unwrap())
        .open(
            &chat,
            NewRequest::question("When you are back: the weekly report").form(&report_form()),
            "open-1",
        )
        .unwrap();
    drop(asks);

    let mut child = Command::new(env!("CARGO_BIN_EXE_forms"))
        .args(["ask", "page", opened.id.as_str(), "--db", db, "--as", &ana])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The secret URL, from standard error.
    let (tx, rx) = mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(url) = line.strip_prefix("forms ask page: answer the form at ") {
                let _ = tx.send(url.trim().to_owned());
            }
        }
    });
    let url = rx.recv_timeout(Duration::from_secs(20)).unwrap();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let port: u16 = url["http://127.0.0.1:".len()..]
        .split('/')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let secret = url
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap()
        .to_owned();

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

    let status = child.wait().unwrap();
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
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
    let me = asks.as_principal(&Principal::new(agent.as_str()).unwrap());
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
    let mut child = Command::new(env!("CARGO_BIN_EXE_forms"))
        .args(["ask", "page", id.as_str(), "--db", db, "--as", acting])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
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

/// A request that is no longer open and a person outside its audience are refused before the
/// page is served, with the refusal `respond` would give (exit 1), and nothing is written.
#[test]
fn ask_page_refuses_before_serving_the_page() {
    let dir = TempDir::new("ask-page-refused");
    let db = dir.db();
    let t = tag();
    let asks = Asks::open_location(&db).unwrap();
    let chat = ConversationId::new(format!("chat-{t}")).unwrap();
    let (agent, ana, bob) = (format!("agent-{t}"), format!("ana-{t}"), format!("bob-{t}"));
    for p in [&agent, &ana, &bob] {
        asks.join(&chat, &Principal::new(p.as_str()).unwrap())
            .unwrap();
    }
    let requester = asks.as_principal(&Principal::new(agent.as_str()).unwrap());
    let open = |i: usize| {
        requester
            .open(
                &chat,
                NewRequest::question("The weekly report")
                    .form(&report_form())
                    .audience([Principal::new(ana.as_str()).unwrap()]),
                &format!("open-{i}"),
            )
            .unwrap()
    };
    let (answered, for_ana) = (open(0), open(1));

    // Answered already: a conflict carrying the saved answer.
    let saved = asks
        .as_principal(&Principal::new(ana.as_str()).unwrap())
        .respond(
            &answered.id,
            1,
            forms_ask::Outcome::Answered,
            Some(r#"{"action":"accept","content":{"format":"pdf"}}"#),
            "r-1",
        )
        .unwrap();
    let (code, refused, stderr) = ask_page_run(&db, &answered.id, &ana);
    assert_eq!(code, 1, "{refused} {stderr}");
    assert_eq!(refused["error"]["code"], "conflict", "{refused}");
    assert_eq!(refused["error"]["latest"]["version"], saved.version);
    assert_eq!(
        refused["error"]["latest"]["response"],
        json!({"action": "accept", "content": {"format": "pdf"}})
    );
    assert!(!stderr.contains("answer the form at"), "{stderr}");

    // bob may see the request (a member of its conversation) but not answer it.
    let (code, refused, stderr) = ask_page_run(&db, &for_ana.id, &bob);
    assert_eq!(code, 1, "{refused} {stderr}");
    assert_eq!(refused["error"]["code"], "not_eligible", "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not in the request's original audience"),
        "{refused}"
    );
    assert!(!stderr.contains("answer the form at"), "{stderr}");

    // Nothing was written.
    let asks = Asks::open_location(&db).unwrap();
    let agent = asks.as_principal(&Principal::new(agent.as_str()).unwrap());
    assert_eq!(agent.show(&answered.id).unwrap(), saved);
    let now = agent.show(&for_ana.id).unwrap();
    assert_eq!((now.version, now.state), (1, forms_ask::State::Open));
}

/// The page server names `forms ask page` on standard error, not `forms host`.
#[test]
fn ask_page_names_itself_on_standard_error() {
    let dir = TempDir::new("ask-page-label");
    let db = dir.db();
    let t = tag();
    let asks = Asks::open_location(&db).unwrap();
    let chat = ConversationId::new(format!("chat-{t}")).unwrap();
    let (agent, ana) = (format!("agent-{t}"), format!("ana-{t}"));
    for p in [&agent, &ana] {
        asks.join(&chat, &Principal::new(p.as_str()).unwrap())
            .unwrap();
    }
    let opened = asks
        .as_principal(&Principal::new(agent.as_str()).unwrap())
        .open(
            &chat,
            NewRequest::question("The weekly report").form(&report_form()),
            "open-1",
        )
        .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_forms"))
        .args(["ask", "page", opened.id.as_str(), "--db", &db, "--as", &ana])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        if let Some(Ok(line)) = BufReader::new(stderr).lines().next() {
            let _ = tx.send(line);
        }
    });
    let line = rx.recv_timeout(Duration::from_secs(20));
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
    let dir = TempDir::new("ask-page-corrupt");
    let db = dir.db();
    let t = tag();
    let asks = Asks::open_location(&db).unwrap();
    let chat = ConversationId::new(format!("chat-{t}")).unwrap();
    let (agent, ana) = (format!("agent-{t}"), format!("ana-{t}"));
    for p in [&agent, &ana] {
        asks.join(&chat, &Principal::new(p.as_str()).unwrap())
            .unwrap();
    }
    let corrupt = asks
        .as_principal(&Principal::new(agent.as_str()).unwrap())
        .open(
            &chat,
            NewRequest::question("The weekly report").form(&report_form()),
            "open-1",
        )
        .unwrap();
    drop(asks);
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
    let (code, refused, stderr) = ask_page_run(&db, &corrupt.id, &ana);
    assert_eq!(code, 1, "{refused} {stderr}");
    assert_eq!(refused["error"]["code"], "store", "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("the stored form of request"),
        "{refused}"
    );
    assert!(!stderr.contains("answer the form at"), "{stderr}");

    let asks = Asks::open_location(&db).unwrap();
    let now = asks
        .as_principal(&Principal::new(agent.as_str()).unwrap())
        .show(&corrupt.id)
        .unwrap();
    assert_eq!((now.version, now.state), (1, forms_ask::State::Open));
}

/// The attack of issue 22: a request whose title, body and form hold CSI, OSC … ST, RLO and
/// DEL, answered on the page (posted with the secret, as the page posts it): the final line
/// holds none of them raw and parses back to the stored text.
#[test]
fn ask_page_final_line_escapes_terminal_controls_in_stored_text() {
    let dir = TempDir::new("ask-page-controls");
    let db = dir.db();
    let t = tag();
    let asks = Asks::open_location(&db).unwrap();
    let chat = ConversationId::new(format!("chat-{t}")).unwrap();
    let (agent, ana) = (format!("agent-{t}"), format!("ana-{t}"));
    for p in [&agent, &ana] {
        asks.join(&chat, &Principal::new(p.as_str()).unwrap())
            .unwrap();
    }
    let form = DataForm::from_value(&controls::form()).unwrap();
    let opened = asks
        .as_principal(&Principal::new(agent.as_str()).unwrap())
        .open(
            &chat,
            NewRequest::question(controls::BODY)
                .title(controls::TITLE)
                .form(&form),
            "open-1",
        )
        .unwrap();
    drop(asks);
    let mut child = Command::new(env!("CARGO_BIN_EXE_forms"))
        .args(["ask", "page", opened.id.as_str(), "--db", &db, "--as", &ana])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(url) = line.strip_prefix("forms ask page: answer the form at ") {
                let _ = tx.send(url.trim().to_owned());
            }
        }
    });
    let url = rx.recv_timeout(Duration::from_secs(20));
    let Ok(url) = url else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("no URL on standard error");
    };
    let rest = url.strip_prefix("http://127.0.0.1:").unwrap();
    let (port, secret) = rest.trim_end_matches('/').split_once('/').unwrap();
    let port: u16 = port.parse().unwrap();
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
    let exited = child.wait().unwrap();
    let mut out = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
    assert!(exited.success(), "{}", String::from_utf8_lossy(&out));
    let saved = controls::assert_escaped("ask page", &out);
    controls::assert_holds_payload("ask page", &saved, true);
    assert_eq!(saved["state"], "resolved", "{saved}");
}
