//! `forms ask page` and `forms ask fill` are the person's: they show who asks (the
//! requester, the request's title and body, its deadline) above the form, and nothing meant
//! for the form's author (no preview banner, no lint panel), in headless Chromium and in a
//! tmux pseudo-terminal against the real `forms` binary.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod browser;

use forms_ask::{Asks, Clock, ConversationId, NewRequest, Principal, SystemClock};
use forms_runtime::DataForm;
use forms_test_kit::tag;
use serde_json::json;
use std::process::Command;
use std::time::Duration;

/// A SQLite store in `dir` with an open form request of an agent to Ana: the store's path,
/// the request's id, the agent's and Ana's names, and the deadline as shown.
fn open_request(dir: &std::path::Path) -> (String, String, String, String, String) {
    let db = dir.join("asks.db").display().to_string();
    let t = tag();
    let asks = Asks::open_location(&db).unwrap();
    let chat = ConversationId::new(format!("chat-{t}")).unwrap();
    let (agent, ana) = (format!("agent-{t}"), format!("ana-{t}"));
    for p in [&agent, &ana] {
        asks.join(&chat, &Principal::new(p.as_str()).unwrap())
            .unwrap();
    }
    // A resource without a thumbnail or icon: its author is warned in `forms preview`.
    let form = DataForm::from_json(
        &json!({"message": "Pick a format", "questions": [
            {"id": "format", "type": "single_select", "title": "Format", "required": true,
             "options": [{"id": "pdf", "title": "PDF"}, {"id": "html", "title": "Web page"}]},
            {"id": "doc", "type": "resource", "title": "Source", "required": false,
             "options": [{"uri": "file:///tmp/a.txt", "name": "a.txt", "title": "A"}]}]})
        .to_string(),
    )
    .unwrap();
    // A deadline 30 days on, to the second (as the page shows it).
    let deadline = SystemClock
        .now()
        .plus(Duration::from_secs(30 * 86_400))
        .to_string();
    let deadline = format!("{}Z", &deadline[..19]);
    let opened = asks
        .as_principal(&Principal::new(agent.as_str()).unwrap())
        .open(
            &chat,
            NewRequest::question("The weekly report <i>needs</i> a format")
                .title("Weekly report")
                .expires_at(forms_ask::Timestamp::parse(&deadline).unwrap())
                .form(&form),
            "open-1",
        )
        .unwrap();
    drop(asks);
    (db, opened.id.as_str().to_owned(), agent, ana, deadline)
}

#[test]
fn ask_page_shows_the_requester_title_body_and_deadline_and_no_author_panels() {
    let dir = forms_test_kit::scratch("ask-person", "page");
    let (db, id, agent, ana, deadline) = open_request(&dir);
    let (mut child, url) = browser::start_page(
        Command::new(env!("CARGO_BIN_EXE_forms"))
            .args(["ask", "page", &id, "--db", &db, "--as", &ana]),
        "forms ask page: answer the form at ",
    );
    let b = browser::Browser::start();
    b.open_url(&url);

    let asker = b.text_of("#forms-asker");
    for shown in [
        "From",
        agent.as_str(),
        "Request",
        "Weekly report",
        "Message",
        "The weekly report <i>needs</i> a format",
        "Answer by",
        deadline.as_str(),
    ] {
        assert!(asker.contains(shown), "{shown:?} not in {asker}");
    }
    let page = b.js("return document.body.innerText", vec![]);
    let page = page.as_str().unwrap();
    for author in ["Preview of", "Author warnings", "Data form", "rendered as"] {
        assert!(
            !page.contains(author),
            "{author:?} on the person's page: {page}"
        );
    }
    assert_eq!(
        b.js(
            "return [document.getElementById('forms-banner'), document.getElementById('forms-lints')]",
            vec![]
        ),
        json!([null, null])
    );

    b.click_on("label[data-option=html]");
    b.click_on("#forms-submit");
    let out = browser::finished(&mut child);
    let saved: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(saved["outcome"], "answered", "{saved}");
    assert_eq!(
        saved["response"],
        json!({"action": "accept", "content": {"format": "html"}})
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ask_fill_shows_the_requester_title_body_and_deadline_on_every_screen() {
    let dir = forms_test_kit::scratch("ask-person", "fill");
    let (db, id, agent, ana, deadline) = open_request(&dir);
    let pane = forms_test_kit::tmux::Pane::new(
        format!("forms-ask-person-{}", std::process::id()),
        dir.clone(),
        Duration::from_secs(20),
    );
    let command = format!(
        "{} ask fill {} --db {} --as {} > {} ; echo $? > {}",
        forms_test_kit::tmux::quote(env!("CARGO_BIN_EXE_forms")),
        forms_test_kit::tmux::quote(&id),
        forms_test_kit::tmux::quote(&db),
        forms_test_kit::tmux::quote(&ana),
        pane.file("out.json"),
        pane.file("rc"),
    );
    pane.run("set -g remain-on-exit on\n", &command);
    let lines = [
        format!("From: {agent}"),
        "Request: Weekly report".to_owned(),
        "Message: The weekly report <i>needs</i> a format".to_owned(),
        format!("Answer by: {deadline}"),
    ];
    let screen = pane.wait_for("Question 1 of 2");
    for line in &lines {
        assert!(screen.contains(line.as_str()), "{line:?}: {screen}");
    }
    pane.keys(&["2", "Enter"]);
    let screen = pane.wait_for("Question 2 of 2");
    for line in &lines {
        assert!(screen.contains(line.as_str()), "{line:?}: {screen}");
    }
    pane.keys(&["Enter"]);
    pane.wait_for("Review your answers");
    pane.keys(&["Enter"]);
    assert_eq!(pane.exit_code(), Some(0), "{}", pane.screen());
    let saved: serde_json::Value = serde_json::from_str(&pane.read("out.json")).unwrap();
    assert_eq!(
        saved["response"],
        json!({"action": "accept", "content": {"format": "html"}}),
        "{saved}"
    );
}
