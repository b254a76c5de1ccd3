//! `forms host`'s answer page under attack: the real `forms` binary waits on a form that the
//! real `forms-mcp` asks, and requests with a foreign `Host`, a foreign `Origin`, another
//! content type, no secret or a wrong one are sent over real sockets (and, in headless
//! Chromium, from an attacker page on another loopback origin and from a `file://` page).
//! Each is refused, the tool result stays the person's, and a file picked on the page
//! reaches the server as a private copy named by its real path.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod browser;
mod page_host;

use page_host::Host;

use forms_runtime::Url;
use forms_test_kit::checks::assert_contains_all;
use forms_test_kit::forms::{files_form, report_form};
use forms_test_kit::http;
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn scratch(name: &str) -> PathBuf {
    forms_test_kit::scratch("page", name)
}

use forms_test_kit::interop::{LEGACY, MODERN};

/// Request headers, name and value, sent as given.
type Headers = Vec<(&'static str, String)>;

struct Reply {
    status: u16,
    head: String,
    body: Vec<u8>,
}

impl Reply {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_owned())
        })
    }
}

/// One HTTP/1.1 exchange over a fresh connection, with exactly the headers given.
fn send(port: u16, method: &str, target: &str, headers: &[(&str, String)], body: &[u8]) -> Reply {
    let mut head = format!("{method} {target} HTTP/1.1\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if !headers
        .iter()
        .any(|(n, _)| n.eq_ignore_ascii_case("content-length"))
    {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("Connection: close\r\n\r\n");
    let (raw, ended) = http::exchange(port, &head, body, Duration::from_secs(30));
    ended.unwrap();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no HTTP reply: {}", String::from_utf8_lossy(&raw)));
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap();
    Reply {
        status,
        head,
        body: raw[split + 4..].to_vec(),
    }
}

fn with(
    headers: &[(&'static str, String)],
    name: &'static str,
    value: &str,
) -> Vec<(&'static str, String)> {
    let mut out: Vec<_> = headers
        .iter()
        .filter(|(n, _)| !n.eq_ignore_ascii_case(name))
        .cloned()
        .collect();
    out.push((name, value.to_owned()));
    out
}

fn without(headers: &[(&'static str, String)], name: &str) -> Vec<(&'static str, String)> {
    headers
        .iter()
        .filter(|(n, _)| !n.eq_ignore_ascii_case(name))
        .cloned()
        .collect()
}

fn assert_guarded(reply: &Reply, what: &str) {
    for (name, value) in [
        ("cache-control", "no-store"),
        ("content-security-policy", "frame-ancestors 'none'"),
        ("x-frame-options", "DENY"),
    ] {
        assert_eq!(
            reply.header(name).as_deref(),
            Some(value),
            "{what}: {}",
            reply.head
        );
    }
}

#[test]
fn only_the_page_itself_can_answer_the_waiting_form() {
    for (protocol, person) in [
        (
            LEGACY,
            json!({"action": "accept", "content": {"format": "html", "goal": "churn"}}),
        ),
        (MODERN, json!({"action": "decline"})),
    ] {
        let mut host = Host::start(protocol, &report_form(), &[]);
        let port = host.port;
        let key = host.key.clone();
        let own = host.own();
        let forged = json!({"action": "accept", "content": {"format": "pdf", "goal": "forged"}});
        let forged = forged.to_string();
        let answer = format!("/{key}/answer/1");

        // The page itself, under either name of the bound address.
        let page = send(port, "GET", &format!("/{key}/"), &own[..1], b"");
        assert_eq!(page.status, 200, "{protocol}: {}", page.text());
        assert!(page.text().contains("Set up your weekly report"));
        assert!(page
            .text()
            .contains(&format!("data-forms-post=\"{answer}\"")));
        assert_guarded(&page, "the page");
        let by_name = [("Host", format!("localhost:{port}"))];
        assert_eq!(
            send(port, "GET", &format!("/{key}/"), &by_name, b"").status,
            200
        );

        // Reading the form: a rebinding name, no secret, a wrong secret.
        let mut wrong = key.clone().into_bytes();
        wrong[10] = if wrong[10] == b'0' { b'1' } else { b'0' };
        let wrong = String::from_utf8(wrong).unwrap();
        for (what, target, headers) in [
            (
                "rebinding Host",
                format!("/{key}/"),
                vec![("Host", format!("evil.example:{port}"))],
            ),
            (
                "Host without port",
                format!("/{key}/"),
                vec![("Host", "127.0.0.1".to_owned())],
            ),
            ("no Host", format!("/{key}/"), vec![]),
            ("no secret", "/".to_owned(), own[..1].to_vec()),
            ("wrong secret", format!("/{wrong}/"), own[..1].to_vec()),
            (
                "short secret",
                format!("/{}/", &key[..32]),
                own[..1].to_vec(),
            ),
            (
                "absolute target",
                format!("http://evil.example:{port}/{key}/"),
                own[..1].to_vec(),
            ),
        ] {
            let reply = send(port, "GET", &target, &headers, b"");
            assert!(
                (400..500).contains(&reply.status),
                "{protocol} {what}: {} {}",
                reply.status,
                reply.text()
            );
            assert!(!reply.text().contains("weekly report"), "{what}");
        }

        // Answering: every forged POST is refused.
        // Forged headers on the answer path: (what, header, value, status).
        let foreign_host = format!("attacker.example:{port}");
        let other_name = format!("http://localhost:{port}");
        let forged_headers = [
            ("foreign Host", "Host", foreign_host.as_str(), 403),
            ("foreign Origin", "Origin", "http://127.0.0.1:9", 403),
            (
                "foreign Origin name",
                "Origin",
                "http://attacker.example",
                403,
            ),
            ("null Origin", "Origin", "null", 403),
            (
                "Origin of the other name",
                "Origin",
                other_name.as_str(),
                403,
            ),
            ("cross-site fetch", "Sec-Fetch-Site", "cross-site", 403),
            ("text/plain", "Content-Type", "text/plain", 415),
            (
                "form post",
                "Content-Type",
                "application/x-www-form-urlencoded",
                415,
            ),
        ];
        let mut attacks: Vec<(&str, String, Headers, u16)> = forged_headers
            .into_iter()
            .map(|(what, name, value, status)| {
                (what, answer.clone(), with(&own, name, value), status)
            })
            .collect();
        attacks.extend([
            (
                "no content type",
                answer.clone(),
                without(&own, "Content-Type"),
                415,
            ),
            ("no secret", "/answer/1".to_owned(), own.clone(), 403),
            (
                "no secret, old path",
                "/answer".to_owned(),
                own.clone(),
                403,
            ),
            (
                "wrong secret",
                format!("/{wrong}/answer/1"),
                own.clone(),
                403,
            ),
            ("another form", format!("/{key}/answer/2"), own.clone(), 409),
        ]);
        for (what, target, headers, status) in &attacks {
            let reply = send(port, "POST", target, headers, forged.as_bytes());
            assert_eq!(reply.status, *status, "{protocol} {what}: {}", reply.text());
            assert_guarded(&reply, what);
        }
        // The preflight of a cross-origin JSON fetch is refused as well.
        let preflight = send(
            port,
            "OPTIONS",
            &answer,
            &[
                own[0].clone(),
                ("Origin", "http://127.0.0.1:9".to_owned()),
                ("Access-Control-Request-Method", "POST".to_owned()),
            ],
            b"",
        );
        assert_eq!(preflight.status, 403);
        assert!(preflight.header("access-control-allow-origin").is_none());
        // Bodies are bounded, and not JSON is not an answer.
        let huge = send(
            port,
            "POST",
            &answer,
            &with(&own, "Content-Length", "2000000"),
            b"",
        );
        assert_eq!(huge.status, 413, "{}", huge.text());
        assert_eq!(
            send(port, "POST", &answer, &own, b"{\"action\":").status,
            400
        );
        assert_eq!(send(port, "POST", &answer, &own, b"[1]").status, 400);
        host.still_waiting();

        let stderr = host.stderr();
        assert_contains_all(
            &stderr,
            &[
                "refused a request to the page: foreign Host \"attacker.example:",
                "refused a request to the page: foreign Origin \"http://127.0.0.1:9\"",
                "refused a request to the page: foreign Origin \"null\"",
                "refused a request to the page: the page's secret is missing or wrong",
            ],
        );

        // The person's answer is taken, once.
        let taken = send(port, "POST", &answer, &own, person.to_string().as_bytes());
        assert_eq!(taken.status, 204, "{protocol}: {}", taken.text());
        if let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) {
            // The host may already be gone; if not, a second answer is refused.
            let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
            let body = forged.as_bytes();
            let head = format!(
                "POST {answer} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: http://127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            if stream.write_all(head.as_bytes()).is_ok() && stream.write_all(body).is_ok() {
                let mut raw = String::new();
                let _ = stream.read_to_string(&mut raw);
                assert!(
                    !raw.starts_with("HTTP/1.1 2"),
                    "a second answer was taken: {raw}"
                );
            }
        }
        assert_eq!(host.result(), person, "{protocol}");
    }
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn added_files_are_copied_privately_checked_against_accept_and_the_size_limit() {
    let mut host = Host::start(LEGACY, &files_form(), &["--max-file-bytes", "64"]);
    let port = host.port;
    let key = host.key.clone();
    let octets = with(&host.own(), "Content-Type", "application/octet-stream");
    let file = |query: &str| format!("/{key}/file/1?{query}");
    let bytes: Vec<u8> = b"region,total\n\xff\xfe,\x00\n".to_vec();

    let first = send(
        port,
        "POST",
        &file("question=data&name=..%2F..%2Fq3%20sales.csv&type=text%2Fcsv"),
        &octets,
        &bytes,
    );
    assert_eq!(first.status, 200, "{}", first.text());
    assert_guarded(&first, "a copy");
    let first: Value = serde_json::from_slice(&first.body).unwrap();
    let path = PathBuf::from(first["path"].as_str().unwrap());
    assert!(path.is_absolute());
    assert_eq!(path.file_name().unwrap(), "q3 sales.csv");
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    assert_eq!(first["uri"], Url::from_file_path(&path).unwrap().as_str());
    assert!(first["uri"].as_str().unwrap().ends_with("/q3%20sales.csv"));
    let dir = path.parent().unwrap().to_owned();
    assert!(
        dir.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("forms-host-"),
        "{}",
        dir.display()
    );
    #[cfg(unix)]
    {
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&path), 0o600);
    }
    // The same name again is a second copy beside the first.
    let second = send(
        port,
        "POST",
        &file("question=data&name=q3%20sales.csv&type=text%2Fcsv"),
        &octets,
        b"x",
    );
    assert_eq!(second.status, 200, "{}", second.text());
    let second: Value = serde_json::from_slice(&second.body).unwrap();
    assert_eq!(
        second["path"],
        dir.join("q3 sales (2).csv").display().to_string()
    );

    // Refused: another type, too large (declared or streamed), a question without files,
    // another content type, a foreign origin, no secret.
    let refused = [
        (
            "notes.txt",
            file("question=data&name=notes.txt&type=text%2Fplain"),
            octets.clone(),
            vec![b'x'; 10],
            422,
            "not among the accepted types: .csv",
        ),
        (
            "declared too large",
            file("question=data&name=big.csv"),
            octets.clone(),
            vec![b'x'; 65],
            413,
            "larger than the limit of 64 bytes",
        ),
        (
            "goal",
            file("question=goal&name=a.csv"),
            octets.clone(),
            vec![b'x'; 3],
            422,
            "takes no added file",
        ),
        (
            "unknown",
            file("question=nope&name=a.csv"),
            octets.clone(),
            vec![b'x'; 3],
            422,
            "no such question",
        ),
        (
            "json",
            file("question=data&name=a.csv"),
            host.own(),
            vec![b'x'; 3],
            415,
            "application/octet-stream",
        ),
        (
            "origin",
            file("question=data&name=a.csv"),
            with(&octets, "Origin", "http://127.0.0.1:9"),
            vec![b'x'; 3],
            403,
            "foreign Origin",
        ),
        (
            "secret",
            "/file/1?question=data&name=a.csv".to_owned(),
            octets.clone(),
            vec![b'x'; 3],
            403,
            "secret",
        ),
        (
            "form",
            format!("/{key}/file/7?question=data&name=a.csv"),
            octets.clone(),
            vec![b'x'; 3],
            409,
            "no longer waiting",
        ),
    ];
    for (what, target, headers, body, status, says) in &refused {
        let reply = send(port, "POST", target, headers, body);
        assert_eq!(reply.status, *status, "{what}: {}", reply.text());
        assert!(reply.text().contains(says), "{what}: {}", reply.text());
    }
    // A chunked body with no declared length is cut at the limit too.
    let mut chunked = without(&octets, "Content-Length");
    chunked.push(("Transfer-Encoding", "chunked".to_owned()));
    let body = format!(
        "28\r\n{}\r\n28\r\n{}\r\n0\r\n\r\n",
        "y".repeat(40),
        "y".repeat(40)
    );
    let mut head = format!(
        "POST {} HTTP/1.1\r\n",
        file("question=data&name=streamed.csv")
    );
    for (n, v) in &chunked {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    head.push_str("Connection: close\r\n\r\n");
    let (raw, _) = http::exchange(port, &head, body.as_bytes(), Duration::from_secs(30));
    let raw = String::from_utf8_lossy(&raw);
    assert!(raw.starts_with("HTTP/1.1 413"), "{raw}");
    // Nothing refused was left behind.
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["q3 sales (2).csv", "q3 sales.csv"]);
    host.still_waiting();

    let stderr = host.stderr();
    assert!(
        stderr.contains(&format!("copied into {}", dir.display())),
        "{stderr}"
    );
    let person = json!({"action": "accept", "content": {"data": [first["uri"]]}});
    let taken = send(
        port,
        "POST",
        &format!("/{key}/answer/1"),
        &host.own(),
        person.to_string().as_bytes(),
    );
    assert_eq!(taken.status, 204, "{}", taken.text());
    assert_eq!(host.result(), person);
    // The copies stay after the session, so the URIs in the result stay valid.
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Serves `html` to every request on a new 127.0.0.1 port: another origin than the page's.
fn attacker_site(html: String) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
                head.push(byte[0]);
            }
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{html}",
                html.len()
            );
        }
    });
    port
}

/// A page that tries to answer the form at `url` (the whole secret URL: the strongest
/// attacker) and without the secret, by fetch with text/plain and JSON and by a form post.
fn attacker_page(url: &str) -> String {
    let script = r#"
var target = TARGET;
var origin = target.replace(/^(http:\/\/[^\/]+)\/.*$/, "$1");
var forged = JSON.stringify({action: "accept", content: {format: "pdf", goal: "forged"}});
var tries = [
  ["text", target + "answer/1", {mode: "no-cors", headers: {"Content-Type": "text/plain"}}],
  ["json", target + "answer/1", {headers: {"Content-Type": "application/json"}}],
  ["json-no-cors", target + "answer/1", {mode: "no-cors", headers: {"Content-Type": "application/json"}}],
  ["text-no-secret", origin + "/answer", {mode: "no-cors", headers: {"Content-Type": "text/plain"}}]
];
var form = document.createElement("form");
form.method = "POST"; form.enctype = "text/plain"; form.action = target + "answer/1"; form.target = "sink";
var field = document.createElement("input");
field.name = '{"action":"accept","content":{"format":"pdf","goal":"'; field.value = '"}}';
form.appendChild(field); document.body.appendChild(form); form.submit();
Promise.all(tries.map(function (t) {
  return fetch(t[1], Object.assign({method: "POST", body: forged, credentials: "include"}, t[2]))
    .then(function (r) { return t[0] + ": " + r.type + " " + r.status; },
          function (e) { return t[0] + ": " + e.name; });
})).then(function (lines) {
  document.getElementById("log").textContent = lines.join("\n");
  document.body.setAttribute("data-done", "yes");
});
"#
    .replace("TARGET", &Value::String(url.to_owned()).to_string());
    format!(
        "<!doctype html><meta charset=utf-8><title>attacker</title><iframe name=sink></iframe><pre id=log></pre><script>{script}</script>"
    )
}

fn wait_done(b: &browser::Browser) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    while b.js("return document.body.getAttribute('data-done')", vec![]) != json!("yes") {
        assert!(
            Instant::now() < deadline,
            "the attacker page did not finish"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    b.text_of("#log")
}

#[test]
fn an_attacker_page_on_another_origin_cannot_answer_but_the_page_can() {
    let b = browser::Browser::start();
    let mut host = Host::start(LEGACY, &report_form(), &[]);
    let attacker = attacker_site(attacker_page(&host.url));
    let before = host.stderr().matches("refused a request").count();
    b.open_url(&format!("http://127.0.0.1:{attacker}/"));
    let log = wait_done(&b);
    // Every try failed in the page (the replies are refused to other origins, even opaque
    // ones: Cross-Origin-Resource-Policy), and the page server saw and refused each: the
    // form post, the two no-cors posts, the JSON fetch's preflight, the post without secret.
    for name in ["text", "json", "json-no-cors", "text-no-secret"] {
        assert!(log.contains(&format!("{name}: TypeError")), "{log}");
    }
    let origin = format!("foreign Origin \"http://127.0.0.1:{attacker}\"");
    let stderr = host.wait_for_stderr(&origin, 5);
    assert!(
        stderr.matches("refused a request").count() >= before + 5,
        "{stderr}"
    );
    host.still_waiting();

    // A page opened from a file sends `Origin: null`.
    let dir = scratch("attacker");
    let file = dir.join("attacker.html");
    std::fs::write(&file, attacker_page(&host.url)).unwrap();
    b.open(&file);
    let log = wait_done(&b);
    assert!(log.contains("text: TypeError"), "{log}");
    host.wait_for_stderr("foreign Origin \"null\"", 4);
    host.still_waiting();

    // The real page still answers.
    b.open_url(&host.url);
    assert_eq!(b.text_of("h1"), "Set up your weekly report");
    b.click_on("label[data-option=html]");
    b.type_into(&b.find("textarea"), "churn");
    b.click_on("#forms-submit");
    assert_eq!(
        host.result(),
        json!({"action": "accept", "content": {"goal": "churn", "format": "html"}})
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_file_picked_in_chromium_arrives_as_a_copy_named_by_its_real_path() {
    let dir = scratch("picked");
    let folder = dir.join("my data");
    std::fs::create_dir_all(&folder).unwrap();
    let original = folder.join("q3 sales.csv");
    let bytes: Vec<u8> = (0..=255u8)
        .chain(b"region,total\nnorth,12\n".iter().copied())
        .collect();
    std::fs::write(&original, &bytes).unwrap();
    let notes = folder.join("notes.txt");
    std::fs::write(&notes, "not a csv").unwrap();

    let b = browser::Browser::start();
    let host = Host::start(MODERN, &files_form(), &[]);
    b.open_url(&host.url);
    assert!(
        b.text_of("#q-0 .filenote").contains("copy's path"),
        "{}",
        b.text_of("#q-0 .filenote")
    );
    let picker = b.find("#q-0 input[type=file]");
    // A file outside the accept filter is refused by the host and not added.
    b.type_into(&picker, notes.to_str().unwrap());
    let deadline = Instant::now() + Duration::from_secs(10);
    while !b.text_of("#q-0 .filestatus").starts_with("Not added") {
        assert!(Instant::now() < deadline, "no refusal shown");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        b.text_of("#q-0 .filestatus")
            .contains("notes.txt is not among the accepted types: .csv"),
        "{}",
        b.text_of("#q-0 .filestatus")
    );
    assert!(b.find_all("#q-0 .added li").is_empty());

    b.type_into(&picker, original.to_str().unwrap());
    let deadline = Instant::now() + Duration::from_secs(20);
    while b.find_all("#q-0 .added li").is_empty() {
        assert!(
            Instant::now() < deadline,
            "the file was not added: {}",
            b.text_of("#q-0 .filestatus")
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let shown = b.text_of("#q-0 .added li span");
    let uri = b
        .js(
            "return document.querySelector('#q-0 .added li').getAttribute('data-file')",
            vec![],
        )
        .as_str()
        .unwrap()
        .to_owned();
    // The same file picked again is the same item, not a second copy.
    b.type_into(&picker, original.to_str().unwrap());
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(b.find_all("#q-0 .added li").len(), 1);
    b.click_on("#forms-submit");
    let result = host.result();
    assert_eq!(
        result,
        json!({"action": "accept", "content": {"data": [uri]}})
    );

    let copy = Url::parse(&uri).unwrap().to_file_path().unwrap();
    assert_eq!(
        shown,
        copy.display().to_string(),
        "the page shows the path it sends"
    );
    assert!(uri.ends_with("/q3%20sales.csv"), "{uri}");
    assert_ne!(copy, original);
    assert_eq!(copy.file_name().unwrap(), "q3 sales.csv");
    assert_eq!(
        std::fs::read(&copy).unwrap(),
        bytes,
        "the copy holds the file's bytes"
    );
    #[cfg(unix)]
    assert_eq!(mode(copy.parent().unwrap()), 0o700);
    std::fs::remove_dir_all(copy.parent().unwrap()).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Sends `head` a byte at a time, one a second, and returns how long the server let it go on.
fn trickle(port: u16, head: String) -> Duration {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(1)))
        .unwrap();
    let start = Instant::now();
    for byte in head.bytes().cycle() {
        if stream.write_all(&[byte]).is_err() {
            break;
        }
        let mut buf = [0u8; 512];
        match stream.read(&mut buf) {
            Ok(_) => break, // closed, or a reply: either way the server is done with it
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => break,
        }
        assert!(start.elapsed() < Duration::from_secs(40), "never cut");
    }
    start.elapsed()
}

#[cfg(target_os = "linux")]
#[test]
fn slow_and_idle_connections_are_cut_and_bounded_while_the_page_still_answers() {
    let mut host = Host::start(LEGACY, &report_form(), &[]);
    let port = host.port;
    let key = host.key.clone();
    let own = host.own();

    // Headers sent a byte a second are cut at the 10 s header limit; so is an answer whose
    // body stops arriving.
    let head = format!(
        "GET /{key}/ HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Pad: {}",
        "a".repeat(200)
    );
    let slow = std::thread::spawn(move || trickle(port, head));
    let stalled = std::thread::spawn(move || {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        let head = format!(
            "POST /{key}/answer/1 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: http://127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"action\""
        );
        stream.write_all(head.as_bytes()).unwrap();
        let start = Instant::now();
        let mut raw = String::new();
        stream
            .set_read_timeout(Some(Duration::from_secs(40)))
            .unwrap();
        let _ = stream.read_to_string(&mut raw);
        (start.elapsed(), raw)
    });
    let slow = slow.join().unwrap();
    assert!(
        (Duration::from_secs(8)..Duration::from_secs(16)).contains(&slow),
        "slow headers held {slow:?}"
    );
    let (stalled, raw) = stalled.join().unwrap();
    assert!(raw.starts_with("HTTP/1.1 408"), "{raw}");
    assert!(
        (Duration::from_secs(8)..Duration::from_secs(16)).contains(&stalled),
        "a stalled body held {stalled:?}"
    );
    host.still_waiting();

    // Two hundred idle sockets: the host keeps at most 32 open (each new one ends the oldest
    // idle one), and the page is served at once.
    let pid = host.child.id();
    let fds = || {
        std::fs::read_dir(format!("/proc/{pid}/fd"))
            .unwrap()
            .count()
    };
    let baseline = fds();
    let idle: Vec<TcpStream> = (0..200)
        .map(|_| TcpStream::connect(("127.0.0.1", port)).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let held = fds();
    assert!(
        held <= baseline + 32 + 2,
        "{baseline} descriptors, then {held}"
    );
    let start = Instant::now();
    let page = send(port, "GET", &format!("/{}/", host.key), &own[..1], b"");
    assert_eq!(page.status, 200);
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "the page took {:?}",
        start.elapsed()
    );
    drop(idle);
    let person = json!({"action": "accept", "content": {"format": "pdf"}});
    let taken = send(
        port,
        "POST",
        &format!("/{}/answer/1", host.key),
        &own,
        person.to_string().as_bytes(),
    );
    assert_eq!(taken.status, 204, "{}", taken.text());
    assert_eq!(host.result(), person);
}
