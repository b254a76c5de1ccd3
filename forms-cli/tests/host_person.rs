//! The pages and terminal screens a person answers on are the person's: the real `forms host`
//! hosts `examples/person_server.rs`, whose core elicitation carries SEP-1034 defaults,
//! number bounds, titled enums and `enumNames`. The page (headless Chromium) and the terminal
//! (tmux) show which server asks (its `serverInfo`, markup shown as text), start with every
//! default filled in, bound the numbers, title the options, and show nothing meant for the
//! form's author (no preview banner, no lint panel).
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod browser;

use forms_test_kit::example;
use forms_test_kit::tmux::{self, quote_path};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// The response that accepts `examples/person_server.rs`'s form as it is first shown.
fn defaults() -> Value {
    json!({"action": "accept", "content": {
        "name": "John Doe", "age": 30, "score": 95.5, "status": "active", "size": "m",
        "plan": "pro", "days": ["mon", "wed"], "verified": true}})
}

/// The host's response the server saw, from the tool result `forms host` printed.
fn seen(out: &str) -> Value {
    let result: Value = serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"));
    serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap()
}

#[test]
fn the_host_page_shows_the_server_prefills_defaults_bounds_numbers_and_hides_author_panels() {
    let b = browser::Browser::start();
    let (mut child, url) = browser::host_page("ask", &example("person_server"));
    b.open_url(&url);

    // Who asks: the server's title, name and version, its markup as text.
    let asker = b.text_of("#forms-asker");
    assert!(asker.contains("Asked by"), "{asker}");
    assert!(
        asker.contains("Profiles <b>desk</b> (person-server 2.5.0)"),
        "{asker}"
    );
    assert_eq!(
        b.js(
            "return document.querySelectorAll('#forms-asker b').length",
            vec![]
        ),
        0
    );
    // Nothing meant for the author.
    let page = b.js("return document.body.innerText", vec![]);
    let page = page.as_str().unwrap();
    for author in [
        "Preview of",
        "Author warnings",
        "openai/elicitation/create",
        "rendered as",
    ] {
        assert!(
            !page.contains(author),
            "{author:?} on the person's page: {page}"
        );
    }
    assert_eq!(
        b.js("return [document.getElementById('forms-banner'), document.getElementById('forms-lints')]", vec![]),
        json!([null, null])
    );
    let title = b.js("return document.title", vec![]);
    assert_eq!(title, "Your profile");

    // SEP-1034 defaults, filled in.
    let value = |css: &str| {
        b.js(
            &format!("return document.querySelector({css:?}).value"),
            vec![],
        )
    };
    assert_eq!(value("[data-question=name] textarea"), "John Doe");
    assert_eq!(value("[data-question=age] input"), "30");
    assert_eq!(value("[data-question=score] input"), "95.5");
    let checked = |q: &str| {
        b.js(
            &format!(
                "return Array.from(document.querySelectorAll('[data-question={q}] input:checked')).map(i => i.value)"
            ),
            vec![],
        )
    };
    assert_eq!(checked("status"), json!(["active"]));
    assert_eq!(checked("size"), json!(["m"]));
    assert_eq!(checked("plan"), json!(["pro"]));
    assert_eq!(checked("days"), json!(["mon", "wed"]));
    assert_eq!(checked("verified"), json!(["on"]));
    // Numbers are number inputs with their bounds; an integer steps by 1.
    let attrs = |q: &str| {
        b.js(
            &format!(
                "var i = document.querySelector('[data-question={q}] input'); \
                 return [i.type, i.min, i.max, i.step]"
            ),
            vec![],
        )
    };
    assert_eq!(attrs("age"), json!(["number", "0", "150", "1"]));
    assert_eq!(attrs("score"), json!(["number", "0", "100", "any"]));
    // Titled options: `enumNames`, `oneOf` titles, `items.anyOf` titles.
    assert_eq!(b.text_of("[data-question=size] [data-option=l]"), "Large");
    assert_eq!(
        b.text_of("[data-question=plan] [data-option=free]"),
        "Free plan"
    );
    assert_eq!(
        b.text_of("[data-question=days] [data-option=tue]"),
        "Tuesday"
    );

    // A number out of its bounds, or not whole, is refused on the page; nothing is sent.
    let age = b.find("[data-question=age] input");
    for (typed, problem) in [
        ("200", "Enter 150 or less"),
        ("2.5", "Enter a whole number"),
    ] {
        b.clear(&age);
        b.type_into(&age, typed);
        b.click_on("#forms-submit");
        let errors = b.text_of("#forms-errors");
        assert!(errors.contains(problem), "{typed}: {errors}");
        assert!(child.try_wait().unwrap().is_none(), "sent with age {typed}");
    }
    b.clear(&age);
    b.type_into(&age, "30");
    b.click_on("#forms-submit");

    let out = browser::finished(&mut child);
    assert_eq!(seen(&out), defaults());
    // The page says so in words, not as the host response's JSON.
    let deadline = Instant::now() + Duration::from_secs(5);
    while b.text_of("#forms-result") != "Your answer was sent." {
        assert!(Instant::now() < deadline, "{}", b.text_of("#forms-result"));
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_host_terminal_shows_the_server_and_starts_from_the_defaults() {
    let dir = forms_test_kit::scratch("person", "terminal");
    let pane = tmux::Pane::new(
        format!("forms-person-{}", std::process::id()),
        dir,
        Duration::from_secs(20),
    );
    let command = format!(
        "{} host --terminal --call ask -- {} > {} ; echo $? > {}",
        tmux::quote(env!("CARGO_BIN_EXE_forms")),
        quote_path(&example("person_server")),
        pane.file("out.json"),
        pane.file("rc"),
    );
    pane.run("set -g remain-on-exit on\n", &command);
    for n in 1..=8 {
        let screen = pane.wait_for(&format!("Question {n} of 8"));
        // Every screen says who asks, the server's text as it is.
        assert!(
            screen.contains("Asked by: Profiles <b>desk</b> (person-server 2.5.0)"),
            "{screen}"
        );
        assert!(!screen.contains("Preview of"), "{screen}");
        pane.keys(&["Enter"]);
    }
    let review = pane.wait_for("Review your answers");
    for shown in [
        "John Doe",
        "30",
        "95.5",
        "Medium",
        "Pro plan",
        "Monday",
        "Wednesday",
    ] {
        assert!(review.contains(shown), "{shown}: {review}");
    }
    pane.keys(&["Enter"]);
    let start = Instant::now();
    let code = pane.exit_code();
    assert_eq!(code, Some(0), "{}", pane.screen());
    assert!(start.elapsed() < Duration::from_secs(20));
    assert_eq!(seen(&pane.read("out.json")), defaults());
}
