//! What the URL-mode elicitation interop tests share: a driver (an official SDK's client
//! with a URL-mode elicitation handler, which prints each URL-mode request as a JSON line and
//! the outcome last), and the person in headless Chromium who opens the URL, enters the code
//! from the message, fills the form, adds a file through the picker and submits; then the
//! checks of what arrived (the copy's bytes and modes, the one completion notification).

use crate::browser;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A driver script, running: its JSON lines as they come (`{"event": "url", "params"}` per
/// URL-mode request, `{"event": "done", …}` last).
pub struct Driver {
    child: Child,
    lines: mpsc::Receiver<Value>,
    stderr: std::thread::JoinHandle<String>,
}

impl Driver {
    /// Starts `command` (the program, the script and its config already given) with its
    /// standard output and error piped, and without `DATA_FORMS_TIMEOUT_MS`.
    pub fn start(mut command: Command) -> Driver {
        let mut child = command
            .env_remove("DATA_FORMS_TIMEOUT_MS")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {command:?}: {e}"));
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
    pub fn next(&mut self, what: &str) -> Value {
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

    /// The final report.
    pub fn done(self) -> Value {
        self.done_after().0
    }

    /// The final report, and the requests that came before it.
    pub fn done_after(mut self) -> (Value, Vec<Value>) {
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
pub fn code_of(message: &str) -> String {
    let at = message.find("enter the code ").expect(message) + "enter the code ".len();
    message[at..at + 8].to_owned()
}

/// `http://127.0.0.1:PORT/SECRET/` (on a page listener of its own) or
/// `http://127.0.0.1:PORT/forms-page/SECRET/` (on `forms-mcp --http`'s listener) → (PORT,
/// the path up to the secret), checking that the URL holds nothing else.
pub fn parts_of(url: &str) -> (u16, String) {
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
pub fn request(port: u16, method: &str, path: &str, kind: &str, body: &str) -> (u16, String) {
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
pub fn post_from_page(b: &browser::Browser, body: &Value) -> (u64, String) {
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

/// Waits until `ok`, at most 20 s; fails saying `what` otherwise.
pub fn wait_until(what: &str, mut ok: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !ok() {
        assert!(Instant::now() < deadline, "{what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The file the person adds (in `dir`), and its bytes.
pub fn data_file(dir: &Path) -> (PathBuf, Vec<u8>) {
    let path = dir.join("q3 sales.csv");
    let bytes: Vec<u8> = (0..70_000u32)
        .map(|i| (i * 131 % 251) as u8)
        .chain(*b"\nregion,total\n")
        .collect();
    std::fs::write(&path, &bytes).unwrap();
    (path, bytes)
}

/// What the person does on the page; returns the URI of the added copy and the request.
///
/// Takes the driver's next URL-mode request (with `retried`, protocol 2026-07-28, the one
/// after it too, which must be the same interaction), checks it (an `elicitationId` is
/// required on 2025-11-25 only), has a second browser without the code see the
/// code prompt and a forged answer refused, then enters the code, picks `choose` (an
/// option's name) if given, has the checker refuse `invalid` with 422, adds `file` through
/// the picker of `files_question` (a CSS selector), submits, and checks that a replay is
/// refused.
/// A browser on the page at `url`, the person having entered `code`: waits (up to 20 s) for
/// the form to show.
pub fn open_with_code(url: &str, code: &str) -> browser::Browser {
    let b = browser::Browser::start();
    b.open_url(url);
    b.type_into(&b.find("#forms-code"), code);
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
    b
}

/// Asserts that the URL-mode request `params` names a page served on the MCP listener at
/// `mcp_url` itself, under its own path (`/forms-page/`).
pub fn assert_page_on_the_listener(params: &Value, mcp_url: &str) {
    let origin = mcp_url.trim_end_matches("/mcp");
    assert!(
        params["url"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{origin}/forms-page/")),
        "{params} on {mcp_url}"
    );
}

pub fn answer_in_chromium(
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
    // 2025-11-25 has the request carry an `elicitationId` (the completion notification
    // names it); 2026-07-28 has neither, and a client may drop the field.
    if !retried || params.get("elicitationId").is_some() {
        assert!(
            params["elicitationId"]
                .as_str()
                .is_some_and(|id| id.len() >= 16),
            "{params}"
        );
    }
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

    // The person: the code (as typed, in lower case), then the form.
    let b = open_with_code(&url, &code.to_lowercase());
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

/// Checks the copy at `uri` (and at `path`, the answer's path, if given): not `original`,
/// its bytes `bytes`, its mode 0600 in a 0700 directory.
pub fn check_copy(uri: &str, path: Option<&str>, bytes: &[u8], original: &Path) {
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

/// Checks that the report's notifications hold exactly one
/// `notifications/elicitation/complete`, with the `elicitationId` of `params`.
pub fn check_completed(report: &Value, params: &Value) {
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
