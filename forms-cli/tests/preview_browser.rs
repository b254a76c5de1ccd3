//! `forms preview` in real headless Chromium: the page the real `forms` binary writes is
//! filled as a person would (clicks, typing, Tab, a file picked from disk), submitted, and
//! the response JSON it shows is checked by the runtime's own answer checker and decoded to
//! the values that were clicked. A broken limit cannot be submitted.
//!
//! Needs Debian's `chromium` and `chromium-driver` (`.ci/run` installs them). Set
//! `FORMS_SCREENSHOTS=docs` to rewrite the committed screenshots under `docs/`.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod browser;

use browser::Browser;
use forms_runtime::{Answers, DataForm, FileRefView, Outcome};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    forms_test_kit::scratch("preview", name)
}

const TAB: &str = "\u{E004}";
const ARROW_DOWN: &str = "\u{E015}";

/// A 1×1 PNG, as a form's own image.
const PNG: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// Writes `form` to a file and runs the real `forms preview FILE --out page.html`.
fn preview(dir: &Path, form: &str) -> PathBuf {
    let file = dir.join("form.json");
    std::fs::write(&file, form).unwrap();
    preview_file(dir, &file)
}

/// Runs the real `forms preview FILE --out DIR/page.html`.
fn preview_file(dir: &Path, file: &Path) -> PathBuf {
    let page = dir.join("page.html");
    let out = Command::new(env!("CARGO_BIN_EXE_forms"))
        .arg("preview")
        .arg(file)
        .arg("--out")
        .arg(&page)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    page
}

/// A browser showing the preview of `form`.
fn show(name: &str, form: &Value) -> (Browser, PathBuf) {
    let dir = scratch(name);
    let page = preview(&dir, &form.to_string());
    let b = Browser::start();
    b.open(&page);
    (b, dir)
}

/// The response the page shows ("" while none).
fn response(b: &Browser) -> String {
    b.text_of("#forms-response")
}

/// Submits, expects a response, and checks it with the runtime.
/// The answers of `text`, a response to `form` that must be an accepted one.
fn accepted<'f>(form: &'f DataForm, text: &str) -> Answers<'f> {
    match form.check_response(text).unwrap() {
        Outcome::Accepted(a) => a,
        _ => panic!("not an accepted response: {text}"),
    }
}

fn submit_ok(b: &Browser, form: &DataForm) -> String {
    b.click_on("#forms-submit");
    let text = response(b);
    assert!(
        !text.is_empty(),
        "no response; errors: {}",
        b.text_of("#forms-errors")
    );
    form.check_response(&text)
        .unwrap_or_else(|e| panic!("the runtime refused the page's response {text}: {e}"));
    text
}

/// Submits and expects a refusal: no response shown, an error summary instead.
fn submit_refused(b: &Browser) -> String {
    b.click_on("#forms-submit");
    assert_eq!(response(b), "", "a broken limit was submitted");
    let errors = b.text_of("#forms-errors");
    assert!(errors.starts_with("Not submitted"), "{errors}");
    errors
}

fn data(form: &Value) -> DataForm {
    DataForm::from_json(&form.to_string()).unwrap()
}

fn choice(id: &str, title: &str) -> Value {
    json!({"id": id, "title": title})
}

#[test]
fn v3_text_counts_characters_live_and_refuses_over_max_length() {
    let form = json!({"message": "Tell us", "questions": [
        {"id": "goal", "type": "text", "title": "Goal", "required": true, "maxLength": 10}]});
    let (b, _dir) = show("text", &form);
    let f = data(&form);
    assert_eq!(response(&b), "", "a response before Submit");
    assert_eq!(b.text_of("#forms-message"), "Tell us");
    let area = b.find("textarea");
    assert_eq!(b.text_of(".count"), "0 / 10");
    b.type_into(&area, "héllo wörld!");
    assert_eq!(b.text_of(".count"), "12 / 10");
    assert!(b
        .text_of("#q-0-error")
        .contains("2 characters over the limit of 10"));
    submit_refused(&b);
    // Blank required text is refused too (V3).
    b.clear(&area);
    b.type_into(&area, "   ");
    assert!(submit_refused(&b).contains("needs an answer"));
    // Ten scalar values, eleven UTF-16 units: within the limit.
    b.clear(&area);
    // ChromeDriver refuses to type characters outside the Basic Multilingual Plane, so the
    // emoji is inserted as the browser inserts typed text (an `input` event, as a keyboard
    // or an input method gives).
    b.type_into(&area, "Churn ");
    b.js(
        "arguments[0].focus(); document.execCommand('insertText', false, arguments[1]);",
        vec![area.arg(), json!("🙂")],
    );
    b.type_into(&area, " Q3");
    assert_eq!(b.text_of(".count"), "10 / 10");
    let text = submit_ok(&b, &f);
    let a = accepted(&f, &text);
    assert_eq!(a.text("goal"), Some("Churn 🙂 Q3"));
}

#[test]
fn v4_single_select_radio_cards_and_multi_select_limits_while_clicking() {
    let form = json!({"message": "Shape the report", "questions": [
        {"id": "format", "type": "single_select", "title": "Format", "required": true,
         "options": [choice("pdf", "PDF"), choice("html", "Web page")]},
        {"id": "sections", "type": "multi_select", "title": "Sections", "required": true,
         "minItems": 2, "maxItems": 3,
         "options": [choice("a", "Alpha"), choice("b", "Beta"), choice("c", "Gamma"),
                     choice("d", "Delta"), choice("e", "Epsilon")]}]});
    let (b, _dir) = show("choices", &form);
    let f = data(&form);
    assert_eq!(b.find_all("#q-0 input[type=radio]").len(), 2);
    assert_eq!(b.find_all("#q-1 input[type=checkbox]").len(), 5);
    assert_eq!(b.text_of("#q-1-hint"), "Choose 2–3");
    let errors = submit_refused(&b);
    assert!(errors.contains("Format: Choose one option"), "{errors}");
    b.click_on("label[data-option=pdf]");
    b.click_on("label[data-option=html]"); // a radio replaces the earlier choice
    b.click_on("label[data-option=d]");
    assert!(b.text_of("#q-1-error").contains("at least 2"));
    submit_refused(&b);
    for id in ["b", "a", "e"] {
        b.click_on(&format!("label[data-option={id}]"));
    }
    // The fourth click is undone: at most 3.
    let checked = b.js(
        "return [...document.querySelectorAll('#q-1 input:checked')].map(i => i.value)",
        vec![],
    );
    assert_eq!(
        checked,
        json!(["a", "b", "d"]),
        "the click past maxItems stayed"
    );
    assert!(b.text_of("#q-1-hint").contains("at most 3"));
    let text = submit_ok(&b, &f);
    let a = accepted(&f, &text);
    assert_eq!(a.choice("format"), Some("html"));
    assert_eq!(a.choices("sections"), Some(vec!["a", "b", "d"]));
}

#[test]
fn thumbnails_make_every_option_an_image_card_with_fallbacks_and_a_lint() {
    let mut with = choice("sunset", "Sunset");
    with["thumbnail"] = json!({"src": PNG});
    let form = json!({"message": "Pick a cover", "questions": [
        {"id": "cover", "type": "single_select", "title": "Cover", "required": false,
         "options": [with, choice("plain", "Plain"), choice("none", "None")]}]});
    let (b, _dir) = show("thumbs", &form);
    assert_eq!(b.find_all("#q-0 label.card").len(), 3);
    assert_eq!(b.find_all("#q-0 .visual[data-fallback]").len(), 2);
    let src = b.js(
        "return document.querySelector('label[data-option=sunset] img').src",
        vec![],
    );
    assert_eq!(src, json!(PNG));
    assert!(b
        .text_of("[data-lint=partial-thumbnails]")
        .contains("Give every option"));
    b.click_on("label[data-option=plain]");
    let f = data(&form);
    let text = submit_ok(&b, &f);
    assert_eq!(text, r#"{"action":"accept","content":{"cover":"plain"}}"#);
}

/// The resource question of the native tests: one card of each visual kind.
fn resource_form() -> Value {
    json!({"message": "Choose a report template", "questions": [
        {"id": "template", "type": "resource", "title": "Relevant report templates", "required": true,
         "options": [
            {"uri": "https://example.com/t/review", "name": "review", "title": "Deck · Review",
             "icons": [{"src": PNG}], "thumbnail": {"src": PNG}},
            {"uri": "https://example.com/t/weekly", "name": "weekly", "title": "Document · Weekly update",
             "icons": [{"src": PNG}]},
            {"uri": "https://example.com/t/plain", "name": "plain",
             "title": "Spreadsheet · Quarterly revenue by region and product line"}]}]})
}

#[test]
fn v5_resource_cards_icon_thumbnail_truncation_and_hover_strip() {
    let form = resource_form();
    let (b, _dir) = show("resource", &form);
    let f = data(&form);
    assert_eq!(b.find_all("#q-0 label.card").len(), 3);
    // The hover/focus strip only on the card with a thumbnail.
    assert_eq!(b.find_all("#q-0 .strip").len(), 1);
    assert_eq!(
        b.find_all("label[data-option='https://example.com/t/weekly'] img.iconvis")
            .len(),
        1
    );
    assert_eq!(
        b.find_all("label[data-option='https://example.com/t/plain'] .visual[data-fallback]")
            .len(),
        1
    );
    let opacity = "return getComputedStyle(document.querySelector('.strip')).opacity";
    assert_eq!(b.js(opacity, vec![]), json!("0"));
    b.hover(&b.find("label[data-option='https://example.com/t/review']"));
    assert_eq!(b.js(opacity, vec![]), json!("1"), "hover shows the strip");
    // The long title is cut with an ellipsis, as the lint warns; the short ones are not.
    let cut = b.js(
        "return [...document.querySelectorAll('#q-0 .caption')].map(c => c.scrollWidth > c.clientWidth)",
        vec![],
    );
    assert_eq!(cut, json!([false, false, true]));
    let lints = b.find_all("[data-lint=title-truncates]");
    assert_eq!(lints.len(), 1);
    assert!(b.text(&lints[0]).contains("questions[0].options[2]"));
    assert_eq!(b.find_all("[data-lint=resource-without-visual]").len(), 1);
    b.hover(&b.find("#forms-banner"));
    assert_eq!(b.js(opacity, vec![]), json!("0"));
    // Keyboard focus on the card's radio shows the strip as well.
    b.js(
        "document.querySelector('#q-0 input[type=radio]').focus()",
        vec![],
    );
    assert_eq!(b.js(opacity, vec![]), json!("1"), "focus shows the strip");
    submit_refused(&b);
    b.click_on("label[data-option='https://example.com/t/weekly']");
    let text = submit_ok(&b, &f);
    let a = accepted(&f, &text);
    assert_eq!(a.resource("template"), Some("https://example.com/t/weekly"));
}

#[test]
fn v6_resources_and_files_with_an_added_local_file() {
    let res = |uri: &str, title: &str| json!({"uri": uri, "name": title, "title": title, "icons": [{"src": PNG}]});
    let form = json!({"message": "Gather the inputs", "questions": [
        {"id": "decks", "type": "resources", "title": "Decks", "required": false, "minItems": 2, "maxItems": 2,
         "options": [res("https://example.com/d/1", "One"), res("https://example.com/d/2", "Two"),
                     res("https://example.com/d/3", "Three")]},
        {"id": "data", "type": "files", "title": "Upload your data", "required": true, "maxItems": 2,
         "accept": [".csv", "text/csv", "image/*"],
         "options": [res("https://example.com/files/q1.csv", "Q1 churn")]}]});
    let dir = scratch("files");
    let page = preview(&dir, &form.to_string());
    let local = dir.join("q3 sales.csv");
    std::fs::write(&local, "month,sales\n").unwrap();
    let other = dir.join("extra.csv");
    std::fs::write(&other, "x\n").unwrap();
    let b = Browser::start();
    b.open(&page);
    let f = data(&form);
    assert_eq!(b.text_of("#q-0-hint"), "Choose 2");
    assert_eq!(
        b.text_of("#q-1 .accept"),
        "Accepts CSV files (.csv, text/csv) or any image files (image/*)"
    );
    assert!(b.text_of("#q-1 .filenote").contains("file:///<file name>"));
    b.click_on("label[data-option='https://example.com/d/3']");
    assert!(submit_refused(&b).contains("Decks: Choose at least 2"));
    b.click_on("label[data-option='https://example.com/d/1']");
    b.click_on("label[data-option='https://example.com/d/2']"); // past maxItems: undone
    b.click_on("label[data-option='https://example.com/files/q1.csv']");
    let picker = b.find("#q-1 input[type=file]");
    b.type_into(&picker, local.to_str().unwrap());
    assert_eq!(b.text_of("#q-1 .added li span"), "q3 sales.csv");
    // A third item would pass maxItems 2: it is not added.
    b.type_into(&picker, other.to_str().unwrap());
    assert_eq!(b.find_all("#q-1 .added li").len(), 1);
    let text = submit_ok(&b, &f);
    assert_eq!(
        text,
        r#"{"action":"accept","content":{"decks":["https://example.com/d/1","https://example.com/d/3"],"data":["https://example.com/files/q1.csv","file:///q3%20sales.csv"]}}"#
    );
    let a = accepted(&f, &text);
    let files = a.files("data").unwrap();
    assert!(
        matches!(files[0], FileRefView::Offered { uri } if uri == "https://example.com/files/q1.csv")
    );
    assert!(
        matches!(&files[1], FileRefView::Local { path, .. } if *path == "/q3 sales.csv"),
        "{files:?}"
    );
}

#[test]
fn v8_decline_and_cancel_show_their_response_only() {
    let form = json!({"message": "What would you like to understand?", "questions": [
        {"id": "goal", "type": "text", "title": "What would you like to understand?", "required": true}]});
    let (b, _dir) = show("decline", &form);
    let f = data(&form);
    // N10: the only text question repeats the message, so there is no separate header.
    assert!(b.find_all("#forms-message").is_empty());
    assert!(b
        .text_of("label.qtitle")
        .starts_with("What would you like to understand?*"));
    b.click_on("#forms-decline");
    assert_eq!(response(&b), r#"{"action":"decline"}"#);
    assert_eq!(f.check_response(&response(&b)).unwrap(), Outcome::Declined);
    b.click_on("#forms-cancel");
    assert_eq!(response(&b), r#"{"action":"cancel"}"#);
    assert_eq!(f.check_response(&response(&b)).unwrap(), Outcome::Cancelled);
}

#[test]
fn form_text_cannot_inject_markup_or_script() {
    let evil = "</script><script>window.__pwned=1</script>";
    let form = json!({"message": evil, "questions": [
        {"id": "pick", "type": "single_select", "title": "<img src=x onerror=window.__pwned=2>",
         "required": false, "description": "<!-- \u{2028} --> & </style>",
         "options": [choice("a", "<b onmouseover=window.__pwned=3>bold</b>")]}]});
    let (b, _dir) = show("inject", &form);
    assert_eq!(
        b.js("return typeof window.__pwned", vec![]),
        json!("undefined")
    );
    assert_eq!(b.text_of("#forms-message"), evil);
    assert_eq!(
        b.text_of("#q-0 legend"),
        "<img src=x onerror=window.__pwned=2>"
    );
    assert_eq!(
        b.text_of("label[data-option=a]"),
        "<b onmouseover=window.__pwned=3>bold</b>"
    );
    assert!(b
        .find_all("#forms-questions img, #forms-questions b")
        .is_empty());
}

#[test]
fn native_request_renders_with_title_falling_back_to_name() {
    // A raw native request, as an MCP server sends it: a resource without a title.
    let request = json!({"jsonrpc": "2.0", "id": 7, "method": "openai/elicitation/create", "params": {
        "mode": "form", "message": "Pick a deck",
        "requestedSchema": {"type": "object", "properties": {
            "deck": {"type": "string", "format": "uri", "title": "Decks",
                     "x-openai-input": {"type": "resource", "options": [
                        {"uri": "https://example.com/a", "name": "quarterly-review"}]}},
            "note": {"type": "string", "title": "Note", "maxLength": 5}},
            "required": ["deck"]}}});
    let (b, _dir) = show("native", &request);
    assert!(b.text_of("#forms-banner").contains("native request"));
    assert!(b
        .text_of("#forms-banner")
        .contains("as the host renders openai/elicitation/create"));
    // The same request as a core `elicitation/create` is not said to be rendered as the
    // extension's.
    let mut core = request.clone();
    core["method"] = json!("elicitation/create");
    let (c, _dir) = show("native-core", &core);
    let banner = c.text_of("#forms-banner");
    assert!(
        banner.contains("(core elicitation/create request)")
            && !banner.contains("openai/elicitation/create"),
        "{banner}"
    );
    drop(c);
    assert_eq!(b.text_of("#q-0 .caption"), "quarterly-review");
    // Properties keep their document order.
    assert_eq!(b.text_of("#q-1 label.qtitle"), "Note");
    b.type_into(&b.find("#q-1 textarea"), "too long");
    submit_refused(&b);
    b.clear(&b.find("#q-1 textarea"));
    b.click_on("label[data-option='https://example.com/a']");
    b.click_on("#forms-submit");
    assert_eq!(
        response(&b),
        r#"{"action":"accept","content":{"deck":"https://example.com/a"}}"#
    );
}

#[test]
fn core_fields_render_from_the_view_and_a_field_no_host_shows_says_why() {
    // A core elicitation's fields: enum titled by enumNames, integer, boolean, and a nested
    // object no host renders.
    let request = json!({"message": "Settings", "requestedSchema": {"type": "object",
        "required": ["size"], "properties": {
            "size": {"type": "string", "title": "Size", "enum": ["s", "m"],
                     "enumNames": ["Small", "Medium"]},
            "count": {"type": "integer", "title": "Count"},
            "agree": {"type": "boolean", "title": "Agree"},
            "when": {"type": "object", "title": "When"}}}});
    let (b, _dir) = show("core", &request);
    assert_eq!(b.text_of("label[data-option='m']"), "Medium");
    assert!(
        b.text_of("#q-3 .unsupported")
            .contains("(a field of type `object`)"),
        "{}",
        b.text_of("#q-3")
    );
    b.click_on("label[data-option='m']");
    b.type_into(&b.find("#q-1 input"), "7");
    b.click_on("#q-2 label");
    b.click_on("#forms-submit");
    assert_eq!(
        response(&b),
        r#"{"action":"accept","content":{"size":"m","count":7,"agree":true}}"#
    );
}

/// Every control's accessible name (label, aria-label or aria-labelledby) and its group.
const CONTROLS: &str = r#"
const controls = [...document.querySelectorAll('input, textarea, button, select, [tabindex]')]
  .filter(e => e.tabIndex >= 0 && !e.closest('[hidden]'));
return controls.map(e => {
  let name = e.getAttribute('aria-label') || '';
  if (!name && e.labels) name = [...e.labels].map(l => l.textContent).join(' ');
  if (!name && e.getAttribute('aria-labelledby')) name = e.getAttribute('aria-labelledby').split(' ')
      .map(id => (document.getElementById(id) || {}).textContent || '').join(' ');
  if (!name && e.tagName === 'BUTTON') name = e.textContent;
  return { key: e.id || e.name || e.tagName, type: e.type || '', group: e.type === 'radio' ? e.name : '',
           name: name.trim() };
});
"#;

fn check_accessibility(b: &Browser) {
    let controls = b.js(CONTROLS, vec![]);
    let controls = controls.as_array().unwrap();
    assert!(controls.len() > 5, "{controls:?}");
    for c in controls {
        assert!(
            !c["name"].as_str().unwrap().is_empty(),
            "a control without a label: {c}"
        );
    }
    // Every question has a label tied to it: fieldsets have legends, text areas a <label for>.
    let unlabeled = b.js(
        "return [...document.querySelectorAll('fieldset.question')].filter(f => !f.querySelector('legend')).length + [...document.querySelectorAll('textarea')].filter(t => !t.labels.length).length",
        vec![],
    );
    assert_eq!(unlabeled, json!(0));
    // Tab reaches every control; a radio group is one stop, as in any browser.
    let mut reached = std::collections::BTreeSet::new();
    b.js(
        "document.activeElement.blur(); window.scrollTo(0,0)",
        vec![],
    );
    for _ in 0..controls.len() + 2 {
        b.press(TAB);
        let active = b.js(
            "const e = document.activeElement; return e.type === 'radio' ? 'radio:' + e.name : (e.id || e.name || e.tagName)",
            vec![],
        );
        let active = active.as_str().unwrap().to_owned();
        if active == "BODY" {
            break; // past the last control
        }
        reached.insert(active.clone());
        // The focused control shows a visible focus ring (its own or its card's).
        let ring = b.js(
            "const e = document.activeElement; const t = e.closest('label.choice, label.card') ? e.closest('label.choice, label.card').querySelector('.visual') || e.closest('label') : (e.type === 'file' ? e.nextElementSibling : e); return getComputedStyle(t).outlineStyle",
            vec![],
        );
        assert_ne!(ring, json!("none"), "no visible focus on {active}");
    }
    for c in controls {
        let key = if c["type"] == "radio" {
            format!("radio:{}", c["group"].as_str().unwrap())
        } else {
            c["key"].as_str().unwrap().to_owned()
        };
        assert!(
            reached.contains(&key),
            "Tab never reaches {c}; reached {reached:?}"
        );
    }
}

#[test]
fn accessibility_every_control_labelled_and_reachable_by_tab() {
    let mut form = resource_form();
    let questions = form["questions"].as_array_mut().unwrap();
    questions.push(
        json!({"id": "goal", "type": "text", "title": "Goal", "required": false, "maxLength": 50}),
    );
    questions.push(
        json!({"id": "fmt", "type": "single_select", "title": "Format", "required": true,
                          "options": [choice("a", "A"), choice("b", "B")]}),
    );
    questions.push(
        json!({"id": "many", "type": "multi_select", "title": "Many", "required": false,
                          "options": [choice("x", "X"), choice("y", "Y")]}),
    );
    questions.push(json!({"id": "data", "type": "files", "title": "Data", "required": false}));
    let (b, _dir) = show("a11y", &form);
    check_accessibility(&b);
    // Arrow keys move within a radio group.
    b.js(
        "document.querySelector('#q-2 input[value=a]').focus()",
        vec![],
    );
    b.press(ARROW_DOWN);
    assert_eq!(
        b.js("return document.activeElement.value", vec![]),
        json!("b")
    );
    let readme = std::fs::read_to_string(workspace().join("docs/report-form.json")).unwrap();
    let (b, _dir) = show("a11y-readme", &serde_json::from_str(&readme).unwrap());
    check_accessibility(&b);
}

#[test]
fn readme_example_fill_submit_and_screenshots() {
    let file = workspace().join("docs/report-form.json");
    let form: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let f = data(&form);
    let dir = scratch("readme");
    let page = preview_file(&dir, &file);
    let csv = dir.join("q3 sales.csv");
    std::fs::write(&csv, "month,sales\n").unwrap();
    let b = Browser::start();
    b.resize(1100, 1240);
    b.open(&page);
    let shots = match std::env::var("FORMS_SCREENSHOTS") {
        Ok(d) if d == "docs" => workspace().join("docs"),
        _ => dir.clone(),
    };
    std::fs::write(shots.join("preview-form.png"), b.screenshot()).unwrap();
    b.type_into(&b.find("textarea"), "Why churn rose in March");
    b.click_on("label[data-option=Pdf]");
    b.click_on("label[data-option=summary]");
    b.click_on("label[data-option=next_steps]");
    b.click_on("label[data-option='https://example.com/verified-business-review']");
    b.type_into(&b.find("input[type=file]"), csv.to_str().unwrap());
    let text = submit_ok(&b, &f);
    assert_eq!(
        text,
        r#"{"action":"accept","content":{"goal":"Why churn rose in March","format":"Pdf","sections":["summary","next_steps"],"template":"https://example.com/verified-business-review","data":["file:///q3%20sales.csv"]}}"#
    );
    let a = accepted(&f, &text);
    assert_eq!(a.text("goal"), Some("Why churn rose in March"));
    assert_eq!(a.choice("format"), Some("Pdf"));
    assert_eq!(a.choices("sections"), Some(vec!["summary", "next_steps"]));
    assert_eq!(
        a.resource("template"),
        Some("https://example.com/verified-business-review")
    );
    b.resize(1100, 1500);
    b.js(
        "document.getElementById('forms-result').scrollIntoView({block: 'end'})",
        vec![],
    );
    std::fs::write(shots.join("preview-submitted.png"), b.screenshot()).unwrap();
    for shot in ["preview-form.png", "preview-submitted.png"] {
        let png = std::fs::read(shots.join(shot)).unwrap();
        assert!(
            png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000,
            "{shot}"
        );
    }
}

#[test]
fn single_choice_repeating_the_message_keeps_an_accessible_label_under_the_header() {
    let form = json!({"message": "Which format?", "questions": [
        {"id": "format", "type": "single_select", "title": "Which format?", "required": true,
         "options": [choice("pdf", "PDF"), choice("html", "Web page")]}]});
    let (b, _dir) = show("single-choice", &form);
    assert_eq!(b.text_of("#forms-message"), "Which format?");
    // The repeated label is hidden from sight but still names the group.
    let width = b.js(
        "return document.querySelector('#q-0 legend').getBoundingClientRect().width",
        vec![],
    );
    assert!(
        width.as_f64().unwrap() <= 1.0,
        "the legend is visible: {width}"
    );
    let legend = b.js(
        "return document.querySelector('#q-0 legend').textContent",
        vec![],
    );
    assert_eq!(legend, json!("Which format?* (required)"));
    let f = data(&form);
    assert!(submit_refused(&b).contains("Choose one option"));
    b.press(TAB);
    b.press(" ");
    let text = submit_ok(&b, &f);
    assert_eq!(text, r#"{"action":"accept","content":{"format":"pdf"}}"#);
}
