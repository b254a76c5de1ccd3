//! A `forms host` process answering a form through its page, for the tests that drive the
//! page (a browser, or raw HTTP).
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction, dead_code)]

use forms_test_kit::forms_mcp;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

/// A `forms host` process answering through the page: its URL, and its standard error
/// as it arrives.
pub struct Host {
    pub child: Child,
    /// The page's secret URL.
    pub url: String,
    pub port: u16,
    /// The secret in the URL.
    pub key: String,
    stderr: Arc<Mutex<String>>,
}

impl Host {
    /// `forms host --protocol PROTOCOL --call form_elicitation_v2_request --args FORM EXTRA --
    /// forms-mcp`, once it names its page on standard error (at most 60 s).
    pub fn start(protocol: &str, form: &Value, extra: &[&str]) -> Host {
        let mut child = Command::new(env!("CARGO_BIN_EXE_forms"))
            .args(["host", "--protocol", protocol])
            .args(["--call", "form_elicitation_v2_request"])
            .args(["--args", &form.to_string()])
            .args(extra)
            .arg("--")
            .arg(forms_mcp())
            .env("DATA_FORMS_TIMEOUT_MS", "120000")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = mpsc::channel();
        let lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let log = Arc::clone(&stderr);
        std::thread::spawn(move || {
            for line in lines {
                let Ok(line) = line else { break };
                if let Some(url) = line.strip_prefix("forms host: answer the form at ") {
                    let _ = tx.send(url.to_owned());
                }
                let mut log = log.lock().unwrap();
                log.push_str(&line);
                log.push('\n');
            }
        });
        let url = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("no page URL on stderr");
        let rest = url.strip_prefix("http://127.0.0.1:").unwrap();
        let (port, key) = rest.split_once('/').unwrap();
        let key = key.trim_end_matches('/').to_owned();
        // The secret: 256 random bits, in hex.
        assert_eq!(key.len(), 64, "{url}");
        assert!(key.bytes().all(|b| b.is_ascii_hexdigit()), "{url}");
        Host {
            port: port.parse().unwrap(),
            url,
            key,
            stderr,
            child,
        }
    }

    /// Its standard error so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Asserts that the host is still waiting for the answer.
    pub fn still_waiting(&mut self) {
        assert!(
            self.child.try_wait().unwrap().is_none(),
            "forms host ended early: {}",
            self.stderr()
        );
    }

    /// Waits for stderr to hold `count` lines containing `text`.
    pub fn wait_for_stderr(&self, text: &str, count: usize) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let stderr = self.stderr();
            if stderr.matches(text).count() >= count {
                return stderr;
            }
            assert!(
                Instant::now() < deadline,
                "expected {count} × {text:?} on stderr: {stderr}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The tool result's `structuredContent` once the host ends.
    pub fn result(mut self) -> Value {
        let mut out = String::new();
        self.child
            .stdout
            .as_mut()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        let status = self.child.wait().unwrap();
        assert!(status.success(), "forms host failed: {}", self.stderr());
        let result: Value = serde_json::from_str(&out).unwrap();
        let text: Value =
            serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(text, result["structuredContent"]);
        text
    }

    /// The headers the page itself sends with a POST.
    pub fn own(&self) -> Vec<(&'static str, String)> {
        vec![
            ("Host", format!("127.0.0.1:{}", self.port)),
            ("Origin", format!("http://127.0.0.1:{}", self.port)),
            ("Content-Type", "application/json".to_owned()),
        ]
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
