//! URL-mode elicitation in `forms host`: the real binary hosts `examples/url_server.rs`,
//! which asks the person to open a payment page. The host advertises URL mode, shows which
//! server asks, its message and the full URL with its host set apart, opens nothing without
//! the person's consent (a scripted answer opens only with `--open-urls`; the terminal asks
//! y/n; the page's Open button), answers accept/decline/cancel without content, reports the
//! server's completion notification for the accepted ID once and ignores unknown IDs, and
//! refuses a `javascript:` URL as invalid params. "Opening" runs `$BROWSER`, here a script
//! that records the URL it was given. With `--core-only` against the example
//! `upload_server`, whose form only a page carries whole, the whole flow: consent in the
//! terminal, the server's page filled in headless Chromium, the typed result back.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod browser;

use forms_test_kit::example;
use forms_test_kit::tmux::{self, quote_path};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

const URL: &str = "https://pay.example.com/checkout?order=42";

/// A `$BROWSER` that appends the URL it is given to `opened.txt` in `dir`.
fn fake_browser(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let script = dir.join("browser.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$1\" >> {}\n",
            tmux::quote(&dir.join("opened.txt").display().to_string())
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

fn opened(dir: &Path) -> String {
    // The browser runs in the background: a moment for it to write.
    std::thread::sleep(Duration::from_millis(300));
    std::fs::read_to_string(dir.join("opened.txt")).unwrap_or_default()
}

/// The tool result's texts: the host's response (or error) and the capabilities it advertised.
fn texts(out: &str) -> (Value, Value) {
    let result: Value = serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"));
    let text = |i: usize| -> Value {
        serde_json::from_str(result["content"][i]["text"].as_str().unwrap()).unwrap()
    };
    (text(0), text(1))
}

fn scripted(dir: &Path, tool: &str, answer: &Value, extra: &[&str]) -> (Value, Value, String) {
    let file = dir.join("answer.json");
    std::fs::write(&file, answer.to_string()).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_forms"))
        .args(["host", "--call", tool, "--answer"])
        .arg(format!("@{}", file.display()))
        .args(extra)
        .arg("--")
        .arg(example("url_server"))
        .env("BROWSER", fake_browser(dir))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    let (answer, caps) = texts(&String::from_utf8_lossy(&output.stdout));
    (answer, caps, stderr)
}

#[test]
fn scripted_url_requests_are_answered_shown_and_opened_only_with_open_urls() {
    let dir = forms_test_kit::scratch("url", "scripted");
    let accept = json!({"action": "accept"});
    let (answer, caps, stderr) = scripted(&dir, "open", &accept, &[]);
    assert_eq!(answer, accept);
    assert_eq!(caps["elicitation"], json!({"form": {}, "url": {}}));
    // Who asks, the message, the full URL with its host set apart; not opened.
    assert!(
        stderr.contains(
            "url-server 1.0 asks you to open https://[pay.example.com]/checkout?order=42 \
             (Pay for order 42 on our payment page.)"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("accepted but not opened"), "{stderr}");
    assert_eq!(opened(&dir), "");
    // The completion of the accepted ID is reported once; an unknown ID is ignored.
    assert_eq!(
        stderr
            .matches("the interaction you opened is complete")
            .count(),
        1,
        "{stderr}"
    );
    assert!(!stderr.contains("never-asked"), "{stderr}");

    let (answer, _, _) = scripted(&dir, "open", &accept, &["--open-urls"]);
    assert_eq!(answer, accept);
    assert_eq!(opened(&dir), format!("{URL}\n"));

    // A declined request is not opened, even with --open-urls.
    let dir = forms_test_kit::scratch("url", "declined");
    let decline = json!({"action": "decline"});
    let (answer, _, _) = scripted(&dir, "open", &decline, &["--open-urls"]);
    assert_eq!(answer, decline);
    assert_eq!(opened(&dir), "");

    // A URL request answered with content is not answered at all (the data stays out of band).
    let file = dir.join("content.json");
    std::fs::write(&file, r#"{"action":"accept","content":{"card":"4111"}}"#).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_forms"))
        .args(["host", "--call", "open", "--answer"])
        .arg(format!("@{}", file.display()))
        .arg("--")
        .arg(example("url_server"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let (answer, _) = texts(&String::from_utf8_lossy(&output.stdout));
    assert_eq!(answer["code"], -32603, "{answer}");
    assert!(answer["message"].as_str().unwrap().contains("no `content`"));
}

#[test]
fn a_javascript_url_is_refused_as_invalid_params() {
    let dir = forms_test_kit::scratch("url", "bad");
    let (answer, _, stderr) = scripted(&dir, "bad", &json!({"action": "accept"}), &["--open-urls"]);
    assert_eq!(answer["code"], -32602, "{answer}");
    assert!(
        answer["message"]
            .as_str()
            .unwrap()
            .contains("must be an http or https URL"),
        "{answer}"
    );
    assert!(!stderr.contains("asks you to open"), "{stderr}");
    assert_eq!(opened(&dir), "");
}

#[test]
fn the_terminal_asks_y_or_n_before_opening() {
    for (key, action) in [("y", "accept"), ("n", "decline"), ("C-c", "cancel")] {
        let dir = forms_test_kit::scratch("url", &format!("terminal-{action}"));
        let pane = tmux::Pane::new(
            format!("forms-url-{action}-{}", std::process::id()),
            dir.clone(),
            Duration::from_secs(20),
        );
        let command = format!(
            "BROWSER={} {} host --terminal --call open -- {} > {} ; echo $? > {}",
            quote_path(&fake_browser(&dir)),
            tmux::quote(env!("CARGO_BIN_EXE_forms")),
            quote_path(&example("url_server")),
            pane.file("out.json"),
            pane.file("rc"),
        );
        pane.run("set -g remain-on-exit on\n", &command);
        let screen = pane.wait_for("Open it in your browser?");
        for shown in [
            "Asked by: url-server 1.0",
            "Pay for order 42 on our payment page.",
            URL,
            "on pay.example.com",
        ] {
            assert!(screen.contains(shown), "{shown:?}: {screen}");
        }
        // Any other key opens nothing and asks again.
        pane.keys(&["x", "Enter"]);
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(opened(&dir), "", "opened before consent");
        pane.keys(&[key]);
        assert_eq!(pane.exit_code(), Some(0), "{}", pane.screen());
        let (answer, _) = texts(&pane.read("out.json"));
        assert_eq!(answer, json!({"action": action}));
        let expected = if action == "accept" {
            format!("{URL}\n")
        } else {
            String::new()
        };
        assert_eq!(opened(&dir), expected, "{action}");
    }
}

#[test]
fn the_page_shows_the_url_with_its_host_apart_and_answers_the_person_s_choice() {
    let b = browser::Browser::start();
    for (button, action) in [("#forms-decline", "decline"), ("#forms-url-open", "accept")] {
        let (mut child, url) = browser::host_page("open", &example("url_server"));
        b.open_url(&url);
        assert!(b.text_of("#forms-asker").contains("url-server 1.0"));
        assert_eq!(
            b.text_of("#forms-url-message"),
            "Pay for order 42 on our payment page."
        );
        assert_eq!(b.text_of("#forms-url"), URL);
        assert_eq!(b.text_of("#forms-url-host"), "pay.example.com");
        // No link to follow before the person's click: the URL is text.
        assert_eq!(
            b.js("return document.querySelectorAll('a').length", vec![]),
            0
        );
        b.click_on(button);
        let out = browser::finished(&mut child);
        let (answer, _) = texts(&out);
        assert_eq!(answer, json!({"action": action}));
    }
}

#[test]
fn on_2026_07_28_an_accepted_url_asked_again_is_not_put_to_the_person_again() {
    // The server asks again, round after round, until the interaction is done: the person
    // (here an answer file holding exactly one response) consents once.
    let dir = forms_test_kit::scratch("url", "modern");
    let start = std::time::Instant::now();
    let (answer, caps, stderr) = scripted(
        &dir,
        "open",
        &json!([{"action": "accept"}]),
        &["--protocol", "2026-07-28", "--open-urls"],
    );
    let accept = json!({"action": "accept"});
    assert_eq!(answer, json!([accept, accept, accept]), "{stderr}");
    assert_eq!(caps["elicitation"], json!({"form": {}, "url": {}}));
    assert_eq!(stderr.matches("asks you to open").count(), 1, "{stderr}");
    assert!(
        stderr.contains("url-server 1.0 asks you to open https://[pay.example.com]/checkout"),
        "{stderr}"
    );
    assert_eq!(
        stderr
            .matches("still waiting for you to finish on pay.example.com")
            .count(),
        2,
        "{stderr}"
    );
    // Paced: the host waits before answering a repeat.
    assert!(
        start.elapsed() >= Duration::from_secs(4),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(opened(&dir), format!("{URL}\n"));

    // Declined: the server is answered once and completes.
    let dir = forms_test_kit::scratch("url", "modern-declined");
    let (answer, _, stderr) = scripted(
        &dir,
        "open",
        &json!([{"action": "decline"}]),
        &["--protocol", "2026-07-28", "--open-urls"],
    );
    assert_eq!(answer, json!([{"action": "decline"}]), "{stderr}");
    assert_eq!(opened(&dir), "");
}

/// `forms host --core-only` as a person meets it with a server whose form a core form cannot
/// carry: the example `upload_server` (a `files` question, a resource card, choices with
/// pictures) asks in URL mode on its own page. The terminal shows the server's message
/// with the page's code and the URL, and opens nothing before the person's `y`; then
/// `$BROWSER` is given the URL, the person's browser (headless Chromium) enters the code,
/// fills the form, adds a file through the picker and submits, and the tool's typed result
/// arrives: the format picked and the file as a real path with identical bytes.
#[test]
fn a_core_only_host_answers_the_upload_form_on_the_server_s_page_after_consent() {
    let dir = forms_test_kit::scratch("url", "core-only-upload");
    let file = dir.join("q3 sales.csv");
    let bytes: Vec<u8> = (0..50_000u32)
        .map(|i| (i * 131 % 251) as u8)
        .chain(*b"\nregion,total\n")
        .collect();
    std::fs::write(&file, &bytes).unwrap();
    let pane = tmux::Pane::new(
        format!("forms-url-upload-{}", std::process::id()),
        dir.clone(),
        Duration::from_secs(60),
    );
    let command = format!(
        "BROWSER={} {} host --terminal --core-only --call send_data -- {} > {} ; echo $? > {}",
        quote_path(&fake_browser(&dir)),
        tmux::quote(env!("CARGO_BIN_EXE_forms")),
        quote_path(&example("upload_server")),
        pane.file("out.json"),
        pane.file("rc"),
    );
    pane.run("set -g remain-on-exit on\n", &command);
    pane.wait_for("Open it in your browser?");
    // The screen with wrapped lines joined, its spaces collapsed.
    let joined = pane.tmux(&["capture-pane", "-p", "-J"]);
    let screen = joined.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(screen.contains("Send the quarter's data"), "{screen}");
    assert!(screen.contains("upload-example"), "{screen}");
    assert!(
        screen.contains("The server asks you to open this page, on 127.0.0.1:"),
        "{screen}"
    );
    let at = screen.find("enter the code ").expect(&screen) + "enter the code ".len();
    let code = screen[at..at + 8].to_owned();
    let shown_url = screen
        .split(' ')
        .find(|w| w.starts_with("http://127.0.0.1:"))
        .expect(&screen)
        .to_owned();
    assert!(
        !shown_url.contains(&code),
        "the URL holds the code: {shown_url}"
    );
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(opened(&dir), "", "opened before consent");

    pane.keys(&["y"]);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let url = loop {
        let text = std::fs::read_to_string(dir.join("opened.txt")).unwrap_or_default();
        if let Some(line) = text.lines().next() {
            break line.to_owned();
        }
        assert!(
            std::time::Instant::now() < deadline,
            "nothing opened after consent: {}",
            pane.screen()
        );
        std::thread::sleep(Duration::from_millis(30));
    };
    assert_eq!(url, shown_url, "opened another URL than the one shown");

    // The person's browser: the code, then the form.
    let b = browser::Browser::start();
    b.open_url(&url);
    assert_eq!(b.text_of("h1"), "Enter your code");
    b.type_into(&b.find("#forms-code"), &code);
    b.click_on("#forms-code-submit");
    let wait = |what: &str, ok: &dyn Fn() -> bool| {
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while !ok() {
            assert!(std::time::Instant::now() < deadline, "{what}");
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    wait("no form after the code", &|| {
        !b.find_all("#forms-form").is_empty()
    });
    b.click_on("label[data-option=Pdf]");
    b.type_into(&b.find("#q-2 input[type=file]"), file.to_str().unwrap());
    wait("the file was not added", &|| {
        !b.find_all("#q-2 .added li").is_empty()
    });
    b.click_on("#forms-submit");
    wait("the submission was not taken", &|| {
        b.js(
            "var r = document.getElementById('forms-result'); return r && r.getAttribute('data-forms-sent');",
            vec![],
        ) == json!("yes")
    });

    // The typed result arrives at forms host, which prints it and exits.
    assert_eq!(pane.exit_code(), Some(0), "{}", pane.screen());
    let out = pane.read("out.json");
    let result: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    let got: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(got["format"], "Pdf", "{got}");
    let path = PathBuf::from(got["files"][0]["path"].as_str().unwrap());
    assert_ne!(path, file);
    assert_eq!(std::fs::read(&path).unwrap(), bytes, "identical bytes");
    // The server said the interaction was complete, and forms host told the person.
    let screen = pane.screen();
    assert!(
        screen.contains("the interaction you opened is complete"),
        "{screen}"
    );
    assert_eq!(opened(&dir), format!("{url}\n"), "opened more than once");
    // The copy outlives the server that made it (its retention dies with the process).
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}
