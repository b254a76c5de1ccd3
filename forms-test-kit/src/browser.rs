//! A small blocking WebDriver client for Debian's `chromedriver` and headless `chromium`.
//!
//! Each [`Browser`] starts `/usr/bin/chromedriver` on a free 127.0.0.1 port, opens one
//! headless session with a throwaway profile, and ends both when dropped. It speaks the W3C
//! WebDriver HTTP protocol with one `Connection: close` request per command, which is all a
//! test needs, so no async runtime or client crate is built and nothing is ever downloaded.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// The driver and browser binaries, overridable for other systems.
fn binary(var: &str, default: &str) -> PathBuf {
    std::env::var_os(var).map_or_else(|| PathBuf::from(default), PathBuf::from)
}

/// A headless Chromium session driven through chromedriver.
pub struct Browser {
    driver: Child,
    port: u16,
    session: String,
    profile: PathBuf,
}

/// An element of the current page.
#[derive(Clone, Debug)]
pub struct Element(String);

impl Element {
    /// The element as a script argument of [`Browser::js`].
    #[allow(dead_code)]
    pub fn arg(&self) -> Value {
        json!({ ELEMENT: self.0 })
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// One HTTP/1.1 exchange; returns the status and the body.
fn http(
    port: u16,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> std::io::Result<(u16, Vec<u8>)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    let body = body.map(Value::to_string).unwrap_or_default();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    // chromedriver answers `Connection: close` but keeps the socket open: read the header,
    // then exactly Content-Length bytes (or chunks).
    let mut raw = Vec::new();
    let mut buf = [0u8; 16384];
    let split = loop {
        if let Some(p) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break p;
        }
        let n = stream.read(&mut buf)?;
        if n == 0 {
            return Err(std::io::Error::other(
                "connection closed before the HTTP header ended",
            ));
        }
        raw.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let length: Option<usize> = head.lines().find_map(|l| {
        l.strip_prefix("content-length:")
            .and_then(|v| v.trim().parse().ok())
    });
    let chunked = head.contains("transfer-encoding:") && head.contains("chunked");
    let mut payload = raw[split + 4..].to_vec();
    loop {
        let done = match length {
            Some(len) => payload.len() >= len,
            None if chunked => payload.windows(5).any(|w| w == b"0\r\n\r\n"),
            None => false,
        };
        if done {
            break;
        }
        let n = stream.read(&mut buf)?;
        if n == 0 {
            break;
        }
        payload.extend_from_slice(&buf[..n]);
    }
    if let Some(len) = length {
        payload.truncate(len);
    } else if chunked {
        payload = dechunk(&payload);
    }
    Ok((status, payload))
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = data.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&data[..eol]).trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        out.extend_from_slice(&data[eol + 2..eol + 2 + size]);
        data = &data[eol + 4 + size..];
    }
    out
}

impl Browser {
    /// Starts chromedriver and a headless Chromium session.
    pub fn start() -> Browser {
        let port = free_port();
        let driver = Command::new(binary("CHROMEDRIVER", "/usr/bin/chromedriver"))
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start /usr/bin/chromedriver (apt-get install chromium-driver)");
        let profile =
            std::env::temp_dir().join(format!("forms-chromium-{port}-{}", std::process::id()));
        // Built first, so that a panic below still ends chromedriver.
        let mut browser = Browser {
            driver,
            port,
            session: String::new(),
            profile,
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok((200, body)) = http(port, "GET", "/status", None) {
                let v: Value = serde_json::from_slice(&body).unwrap();
                if v["value"]["ready"] == true {
                    break;
                }
            }
            assert!(Instant::now() < deadline, "chromedriver did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": binary("CHROMIUM", "/usr/bin/chromium"),
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--window-size=1100,1400", "--force-device-scale-factor=1",
                         "--hide-scrollbars", "--no-first-run", "--disable-extensions",
                         "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
                         format!("--user-data-dir={}", browser.profile.display())]
            }
        }}});
        let v = browser.call("POST", "/session", Some(caps));
        browser.session = v["sessionId"].as_str().unwrap().to_owned();
        browser
    }

    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let (status, body) = http(self.port, method, path, body.as_ref()).unwrap();
        let v: Value = serde_json::from_slice(&body).unwrap_or_else(|e| {
            panic!(
                "{method} {path}: not JSON ({e}): {}",
                String::from_utf8_lossy(&body)
            )
        });
        assert_eq!(status, 200, "{method} {path}: {v}");
        v["value"].clone()
    }

    fn cmd(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let path = format!("/session/{}{path}", self.session);
        self.call(method, &path, body)
    }

    /// Opens a local file.
    pub fn open(&self, page: &Path) {
        let url = format!("file://{}", page.display());
        self.cmd("POST", "/url", Some(json!({ "url": url })));
    }

    /// Opens a URL (a page served on 127.0.0.1).
    #[allow(dead_code)]
    pub fn open_url(&self, url: &str) {
        self.cmd("POST", "/url", Some(json!({ "url": url })));
    }

    /// The element matching a CSS selector.
    pub fn find(&self, css: &str) -> Element {
        let v = self.cmd(
            "POST",
            "/element",
            Some(json!({"using": "css selector", "value": css})),
        );
        Element(
            v[ELEMENT]
                .as_str()
                .unwrap_or_else(|| panic!("{css}: {v}"))
                .to_owned(),
        )
    }

    /// Every element matching a CSS selector.
    pub fn find_all(&self, css: &str) -> Vec<Element> {
        let v = self.cmd(
            "POST",
            "/elements",
            Some(json!({"using": "css selector", "value": css})),
        );
        v.as_array()
            .unwrap()
            .iter()
            .map(|e| Element(e[ELEMENT].as_str().unwrap().to_owned()))
            .collect()
    }

    /// Clicks an element as a pointer would.
    pub fn click(&self, e: &Element) {
        self.cmd("POST", &format!("/element/{}/click", e.0), Some(json!({})));
    }

    /// Clicks the element matching `css`.
    pub fn click_on(&self, css: &str) {
        let e = self.find(css);
        self.click(&e);
    }

    /// Types into an element (for a file input: a local path).
    pub fn type_into(&self, e: &Element, text: &str) {
        self.cmd(
            "POST",
            &format!("/element/{}/value", e.0),
            Some(json!({ "text": text })),
        );
    }

    /// Clears a text control.
    pub fn clear(&self, e: &Element) {
        self.cmd("POST", &format!("/element/{}/clear", e.0), Some(json!({})));
    }

    /// The visible text of an element ("" when hidden).
    pub fn text(&self, e: &Element) -> String {
        self.cmd("GET", &format!("/element/{}/text", e.0), None)
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// The visible text of the element matching `css`.
    pub fn text_of(&self, css: &str) -> String {
        let e = self.find(css);
        self.text(&e)
    }

    /// Runs a script in the page; `arguments` are JSON values.
    pub fn js(&self, script: &str, args: Vec<Value>) -> Value {
        self.cmd(
            "POST",
            "/execute/sync",
            Some(json!({ "script": script, "args": args })),
        )
    }

    /// Presses and releases one key (a WebDriver key code such as `\u{E004}` for Tab).
    pub fn press(&self, key: &str) {
        self.cmd(
            "POST",
            "/actions",
            Some(
                json!({"actions": [{"type": "key", "id": "keyboard", "actions": [
                {"type": "keyDown", "value": key}, {"type": "keyUp", "value": key}]}]}),
            ),
        );
    }

    /// Moves the pointer over an element.
    pub fn hover(&self, e: &Element) {
        self.cmd(
            "POST",
            "/actions",
            Some(json!({"actions": [{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
                "actions": [{"type": "pointerMove", "duration": 0, "x": 0, "y": 0,
                             "origin": {ELEMENT: e.0}}]}]})),
        );
    }

    /// Sets the window's size in CSS pixels.
    pub fn resize(&self, width: u32, height: u32) {
        self.cmd(
            "POST",
            "/window/rect",
            Some(json!({"width": width, "height": height})),
        );
    }

    /// A PNG screenshot of the viewport.
    pub fn screenshot(&self) -> Vec<u8> {
        let b64 = self.cmd("GET", "/screenshot", None);
        base64_decode(b64.as_str().unwrap())
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = http(
                self.port,
                "DELETE",
                &format!("/session/{}", self.session),
                None,
            );
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// Starts `command` (standard input closed, output and error piped) and waits, at most 60 s,
/// for the page URL it names on standard error after `prefix`; the rest of its standard error
/// is read and dropped. The child is killed if no URL comes.
pub fn start_page(command: &mut Command, prefix: &str) -> (Child, String) {
    command.stdin(Stdio::null()).stdout(Stdio::piped());
    let mut child = command.stderr(Stdio::piped()).spawn().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    let prefix = prefix.to_owned();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(url) = line.strip_prefix(prefix.as_str()) {
                let _ = tx.send(url.trim().to_owned());
            }
        }
    });
    let Ok(url) = rx.recv_timeout(Duration::from_secs(60)) else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("no page URL on stderr");
    };
    (child, url)
}

/// Reads `child`'s standard output to its end and asserts that it exited successfully;
/// returns the output.
pub fn finished(child: &mut Child) -> String {
    let mut out = String::new();
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert!(child.wait().unwrap().success(), "{out}");
    out
}

/// Standard base64 (with padding), as WebDriver returns screenshots.
pub fn base64_decode(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len() / 4 * 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => continue,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}
