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

use forms_test_kit::bins;
use forms_test_kit::url_mode::*;
use interop::*;
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// The Python driver, started with `config`.
fn start_python(python: &Path, config: &Value) -> Driver {
    let mut command = Command::new(python);
    command
        .arg(interop_dir().join("python_url_client.py"))
        .arg(config.to_string());
    Driver::start(command)
}

#[test]
fn a_derived_form_with_files_reaches_a_url_mode_client_whole_over_stdio() {
    let Some(python) = python() else { return };
    let dir = forms_test_kit::scratch("url", "stdio");
    let (file, bytes) = data_file(&dir);
    let mut driver = start_python(
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
    let mut driver = start_python(
        &python,
        &json!({"mode": "legacy", "transport": "http", "url": server.url,
                "tool": "form_elicitation_v2_request", "arguments": form}),
    );
    let invalid = json!({"action": "accept", "content": {"note": "x", "colour": "red"}});
    let (uri, params) = answer_in_chromium(&mut driver, &file, "#q-1", None, &invalid, false);
    // The page was served on the MCP listener itself, under its own path.
    assert_page_on_the_listener(&params, &server.url);
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
    let mut driver = start_python(
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

    let driver = start_python(
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
    let mut driver = start_python(
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
fn visible_text(b: &forms_test_kit::browser::Browser, css: &str) -> String {
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
    let mut driver = start_python(
        &python,
        &json!({"mode": "legacy", "transport": "stdio",
                "command": [bins::example("upload_server")], "tool": "send_data"}),
    );
    let event = driver.next("URL-mode request");
    let params = event["params"].clone();
    let url = params["url"].as_str().unwrap();
    let code = code_of(params["message"].as_str().unwrap());
    let b = open_with_code(url, &code);
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
