//! `forms fill` through a real pseudo-terminal: the real `forms` binary runs in a detached
//! tmux session, keys are sent with `tmux send-keys` and the screen is read with
//! `capture-pane`. Standard output is redirected to a file inside the session, so the test
//! checks that it holds only the response JSON, which the runtime's own checker accepts and
//! decodes to the values that were picked.
//!
//! Needs `tmux` (`.ci/test` installs it). Each test uses its own tmux socket (`tmux -L`) and
//! kills its server when it ends, also on failure. Each server runs with `set-clipboard on`,
//! so an OSC 52 sequence that reached the pane would set a tmux paste buffer.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

use forms_runtime::{DataForm, FileRefView, Outcome};
use forms_test_kit::{example, forms_mcp};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A `forms fill` session in its own tmux server.
struct Pane(tmux::Pane);

impl std::ops::Deref for Pane {
    type Target = tmux::Pane;
    fn deref(&self) -> &tmux::Pane {
        &self.0
    }
}

impl Pane {
    /// Writes `form` and starts `forms fill FORM > out.json` in a fresh tmux server.
    fn start(name: &str, form: &Value) -> Pane {
        Pane::start_with(name, form, |forms, file| format!("{forms} fill {file}"))
    }

    /// Writes `form` and starts the command `command(forms, form file)` in a fresh tmux
    /// server, its standard output and status kept in files.
    fn start_with(name: &str, form: &Value, command: impl Fn(&str, &str) -> String) -> Pane {
        let dir = forms_test_kit::scratch("fill", name);
        let file = dir.join("form.json");
        std::fs::write(&file, form.to_string()).unwrap();
        let pane = tmux::Pane::new(
            format!("forms-fill-{name}-{}", std::process::id()),
            dir,
            Duration::from_secs(10),
        );
        let command = format!(
            "{} > {} ; echo $? > {}",
            command(&tmux::quote(env!("CARGO_BIN_EXE_forms")), &quote(&file)),
            pane.file("out.json"),
            pane.file("rc"),
        );
        // tmux obeys OSC 52 (and keeps what it writes as a paste buffer) with this option;
        // the pane stays readable after its command exits.
        pane.run(
            "set -g set-clipboard on\nset -g remain-on-exit on\n",
            &command,
        );
        Pane(pane)
    }

    /// Types `text`, then waits for `shown` on the screen.
    fn type_then(&self, text: &str, shown: &str) {
        self.type_text(text);
        self.wait_for(shown);
    }

    /// Sends `keys`, then waits for `text` on the screen.
    fn step(&self, keys: &[&str], text: &str) {
        self.keys(keys);
        self.wait_for(text);
    }

    /// Submits from the review screen; the one response line (see [`Pane::response`]).
    fn submit(&self) -> String {
        self.wait_for("Review your answers");
        self.keys(&["Enter"]);
        self.response()
    }

    fn out_path(&self) -> PathBuf {
        self.dir.join("out.json")
    }

    /// The screen and its scrolled-off history, wrapped lines joined.
    fn history(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-J", "-S", "-"])
    }

    /// The newest tmux paste buffer, if anything (such as an OSC 52 sequence) set one.
    fn buffer(&self) -> Option<String> {
        let out = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .arg("show-buffer")
            .env_remove("TMUX")
            .stdin(Stdio::null())
            .output()
            .expect("tmux must be installed (apt-get install -y tmux)");
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Waits for `forms fill` to exit; its status and standard output.
    fn finish(&self) -> (i32, String) {
        let Some(code) = self.exit_code() else {
            panic!("forms fill never exited:\n{}", self.screen());
        };
        (code, std::fs::read_to_string(self.out_path()).unwrap())
    }

    /// Waits for a successful exit; the one response line on standard output.
    fn response(&self) -> String {
        let (code, out) = self.finish();
        assert_eq!(code, 0, "stdout: {out}");
        assert!(out.ends_with('\n') && out.lines().count() == 1, "{out:?}");
        out.trim_end().to_owned()
    }
}

use forms_test_kit::tmux::{self, quote_path as quote};

/// Asserts that `screen` shows each of `texts`.
fn assert_shows(screen: &str, texts: &[&str]) {
    for text in texts {
        assert!(
            screen.contains(text),
            "{text:?} is not on the screen:\n{screen}"
        );
    }
}

/// `form` as the runtime reads it, and `forms fill` started on it (see [`Pane::start`]),
/// once `first` is on the screen.
fn started(name: &str, form: &Value, first: &str) -> (DataForm, Pane) {
    let p = Pane::start(name, form);
    p.wait_for(first);
    (data(form), p)
}

fn data(form: &Value) -> DataForm {
    DataForm::from_json(&form.to_string()).unwrap()
}

fn choice(id: &str, title: &str) -> Value {
    json!({"id": id, "title": title})
}

fn resource(uri: &str, title: &str) -> Value {
    json!({"uri": uri, "name": title.to_lowercase(), "title": title})
}

fn accepted<'f>(form: &'f DataForm, text: &str) -> forms_runtime::Answers<'f> {
    match form.check_response(text).unwrap() {
        Outcome::Accepted(a) => a,
        other => panic!("not accepted: {other:?}"),
    }
}

#[test]
fn v3_text_is_typed_within_max_length_and_required_text_cannot_be_skipped() {
    let form = json!({"message": "About you", "questions": [
        {"id": "name", "type": "text", "title": "Your name", "required": true, "maxLength": 10},
        {"id": "note", "type": "text", "title": "A note", "required": false}]});
    let (f, p) = started("text", &form, "Question 1 of 2");
    p.step(&["Enter"], "cannot go on: an answer is required");
    p.type_text("   ");
    // The redraw for the typed blanks clears the earlier refusal, so the next one is new.
    let screen = p.wait_for("3/10");
    assert!(!screen.contains("cannot go on"), "{screen}");
    p.step(&["Enter"], "cannot go on: an answer is required");
    for _ in 0..3 {
        p.keys(&["BSpace"]);
    }
    p.wait_for("0/10");
    // Ten scalar values; the eleventh keystroke is refused as it is typed.
    p.type_text("Ada 🙂 Lovelace");
    let screen = p.wait_for("the limit is reached");
    assert!(screen.contains("> Ada 🙂 Love"), "{screen}");
    assert!(!screen.contains("Lovel"), "{screen}");
    assert!(screen.contains("10/10"), "{screen}");
    p.step(&["Enter"], "Question 2 of 2");
    p.keys(&["Enter"]);
    let review = p.wait_for("Review your answers");
    assert!(review.contains("Your name: Ada 🙂 Love"), "{review}");
    p.keys(&["Enter"]);
    let text = p.response();
    assert_eq!(
        text,
        r#"{"action":"accept","content":{"name":"Ada 🙂 Love"}}"#
    );
    let a = accepted(&f, &text);
    assert_eq!(a.text("name"), Some("Ada 🙂 Love"));
    assert_eq!(a.text("note"), None);
}

#[test]
fn v4_single_select_by_number_and_arrows_multi_select_toggles_within_limits() {
    let form = json!({"message": "Shape the report", "questions": [
        {"id": "format", "type": "single_select", "title": "Format", "required": true,
         "options": [choice("pdf", "PDF"), choice("html", "Web page"), choice("md", "Markdown")]},
        {"id": "sections", "type": "multi_select", "title": "Sections", "required": true,
         "minItems": 2, "maxItems": 3,
         "options": [choice("a", "Alpha"), choice("b", "Beta"), choice("c", "Gamma"),
                     choice("d", "Delta"), choice("e", "Epsilon")]}]});
    let (f, p) = started("choice", &form, "Question 1 of 2");
    p.step(&["Enter"], "cannot go on: a choice is required");
    p.step(&["1"], "(o) 1. PDF");
    // Arrows move, Space picks: a radio replaces the earlier choice.
    p.keys(&["Down", "Down", "Up", "Space"]);
    let screen = p.wait_for("(o) 2. Web page");
    assert!(screen.contains("( ) 1. PDF"), "{screen}");
    p.step(&["Enter"], "choose 2–3");
    p.step(&["4", "Enter"], "cannot go on: choose at least 2");
    p.step(&["2", "1"], "[x] 1. Alpha");
    // A fourth pick is refused as it is made.
    p.keys(&["5"]);
    let screen = p.wait_for("choose at most 3");
    assert!(screen.contains("[ ] 5. Epsilon"), "{screen}");
    // Toggling one off makes room.
    p.step(&["4", "3"], "[x] 3. Gamma");
    p.keys(&["Enter"]);
    let text = p.submit();
    let a = accepted(&f, &text);
    assert_eq!(a.choice("format"), Some("html"));
    let mut picked = a.choices("sections").unwrap();
    picked.sort_unstable();
    assert_eq!(picked, vec!["a", "b", "c"]);
}

#[test]
fn v5_resource_listed_by_title_is_picked_and_can_be_skipped() {
    let form = json!({"message": "Choose a report template", "questions": [
        {"id": "template", "type": "resource", "title": "Relevant report templates",
         "required": false,
         "options": [resource("https://example.com/t/review", "Presentation · Business review"),
                     resource("https://example.com/t/weekly", "Document · Weekly update")]},
        {"id": "backup", "type": "resource", "title": "Backup template", "required": false,
         "options": [resource("https://example.com/t/blank", "Blank")]}]});
    let f = data(&form);
    let p = Pane::start("resource", &form);
    let screen = p.wait_for("2. Document · Weekly update");
    assert!(
        screen.contains("1. Presentation · Business review"),
        "{screen}"
    );
    p.keys(&["Down", "Space", "Enter"]);
    // Skipped: the optional scalar resource leaves its key out.
    p.wait_for("Backup template");
    p.keys(&["Enter"]);
    let text = p.submit();
    assert_eq!(
        text,
        r#"{"action":"accept","content":{"template":"https://example.com/t/weekly"}}"#
    );
    let a = accepted(&f, &text);
    assert_eq!(a.resource("template"), Some("https://example.com/t/weekly"));
    assert_eq!(a.resource("backup"), None);
}

#[test]
fn v6_resources_and_files_with_local_paths_checked_absolute_and_percent_encoded() {
    let dir = std::env::temp_dir().join(format!("forms-fill-local-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let local = dir.join("q3 sales#1.csv");
    std::fs::write(&local, "region,total\n").unwrap();
    std::fs::write(dir.join("notes.txt"), "x").unwrap();
    let form = json!({"message": "Pick the inputs", "questions": [
        {"id": "decks", "type": "resources", "title": "Decks", "required": true,
         "maxItems": 2,
         "options": [resource("https://example.com/d/1", "Deck one"),
                     resource("https://example.com/d/2", "Deck two"),
                     resource("https://example.com/d/3", "Deck three")]},
        {"id": "data", "type": "files", "title": "Data files", "required": false,
         "accept": [".csv"],
         "options": [resource("https://example.com/files/q1.csv", "Q1 sales")]}]});
    let (f, p) = started("files", &form, "Deck three");
    p.step(&["1", "3", "2"], "choose at most 2");
    p.keys(&["Enter"]);
    let screen = p.wait_for("Data files");
    assert!(screen.contains("(accepted: .csv)"), "{screen}");
    p.step(&["1", "a"], "Path:");
    // A path that does not exist is refused and nothing is added.
    let missing = dir.join("missing.csv");
    p.type_text(&missing.display().to_string());
    p.step(&["Enter"], "No such file or directory");
    for _ in 0..missing.display().to_string().chars().count() {
        p.keys(&["BSpace"]);
    }
    // A file outside the accept filter is refused too.
    p.type_text(&dir.join("notes.txt").display().to_string());
    p.step(&["Enter"], "is not among the accepted types");
    for _ in 0..dir.join("notes.txt").display().to_string().chars().count() {
        p.keys(&["BSpace"]);
    }
    // A relative path with `..` is made absolute.
    let relative = format!(
        "{}/../{}/q3 sales#1.csv",
        dir.display(),
        dir.file_name().unwrap().to_string_lossy()
    );
    p.type_text(&relative);
    p.keys(&["Enter"]);
    let screen = p.wait_for("— added");
    assert!(screen.contains("[x] 2. "), "{screen}");
    assert!(!screen.contains("/../"), "{screen}");
    p.keys(&["Enter"]);
    let text = p.submit();
    let canonical = std::fs::canonicalize(&local).unwrap();
    let uri = forms_runtime::Url::from_file_path(&canonical)
        .unwrap()
        .to_string();
    assert!(uri.contains("q3%20sales%231.csv"), "{uri}");
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        v["content"]["data"],
        json!(["https://example.com/files/q1.csv", uri])
    );
    let a = accepted(&f, &text);
    assert_eq!(
        a.resources("decks"),
        Some(vec!["https://example.com/d/1", "https://example.com/d/3"])
    );
    let files = a.files("data").unwrap();
    assert!(
        matches!(files[0], FileRefView::Offered { uri } if uri == "https://example.com/files/q1.csv")
    );
    assert!(
        matches!(&files[1], FileRefView::Local { path, .. } if Path::new(*path) == canonical),
        "{files:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn v8_decline_key_declines_and_ctrl_c_cancels_with_no_answers() {
    let form = json!({"message": "Quick question", "questions": [
        {"id": "name", "type": "text", "title": "Your name", "required": true}]});
    let (f, p) = started("decline", &form, "Ctrl-D decline");
    p.type_text("Ada");
    p.keys(&["C-d"]);
    let text = p.response();
    assert_eq!(text, r#"{"action":"decline"}"#);
    assert_eq!(f.check_response(&text).unwrap(), Outcome::Declined);
    drop(p);

    let p = Pane::start("cancel", &form);
    p.wait_for("Ctrl-C cancel");
    p.type_text("Ada");
    p.step(&["Enter"], "Review your answers");
    p.keys(&["C-c"]);
    let text = p.response();
    assert_eq!(text, r#"{"action":"cancel"}"#);
    assert_eq!(f.check_response(&text).unwrap(), Outcome::Cancelled);
}

/// A terminal that goes away (its pseudo-terminal closed, the command ignoring SIGHUP as under
/// `nohup`) is not a cancel: `forms fill` exits 2 with a message and prints no response.
#[test]
fn a_terminal_that_goes_away_is_an_error_and_no_response() {
    let form = json!({"message": "Quick question", "questions": [
        {"id": "name", "type": "text", "title": "Your name", "required": true}]});
    let p = Pane::start_with("hangup", &form, |forms, file| {
        let dir = Path::new(file.trim_matches('\'')).parent().unwrap();
        format!(
            "trap '' HUP; echo $$ > {}; {forms} fill {file} 2> {}",
            quote(&dir.join("shell.pid")),
            quote(&dir.join("err.txt")),
        )
    });
    p.wait_for("Your name");
    p.type_text("Ada");
    p.tmux(&["kill-server"]);
    let rc = p.dir.join("rc");
    let start = Instant::now();
    while !rc.exists() || std::fs::read_to_string(&rc).unwrap().trim().is_empty() {
        if start.elapsed() > Duration::from_secs(10) {
            let shell = std::fs::read_to_string(p.dir.join("shell.pid")).unwrap();
            let shell = shell.trim();
            let children = std::fs::read_to_string(format!("/proc/{shell}/task/{shell}/children"))
                .unwrap_or_default();
            for pid in children.split_whitespace() {
                let _ = Command::new("kill").args(["-KILL", pid]).status();
            }
            panic!("forms fill kept running after its terminal went away");
        }
        std::thread::sleep(Duration::from_millis(30));
    }
    let code: i32 = std::fs::read_to_string(&rc)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let out = std::fs::read_to_string(p.out_path()).unwrap();
    let err = std::fs::read_to_string(p.dir.join("err.txt")).unwrap();
    assert_eq!((code, out.as_str()), (2, ""), "stderr: {err}");
    assert!(err.contains("the terminal went away"), "{err}");
}

#[test]
fn a_lone_esc_is_a_key_of_its_own_and_the_next_key_acts() {
    let form = json!({"message": "Two questions", "questions": [
        {"id": "name", "type": "text", "title": "Your name", "required": true},
        {"id": "format", "type": "single_select", "title": "Format", "required": true,
         "options": [choice("pdf", "PDF"), choice("html", "Web page")]}]});
    let (f, p) = started("esc", &form, "Question 1 of 2");
    p.type_then("a", "> a");
    // Esc alone, then a letter a moment later: the letter is typed, not taken as the end of
    // an escape sequence.
    p.keys(&["Escape"]);
    std::thread::sleep(Duration::from_millis(300));
    p.type_then("x", "> ax");
    p.keys(&["Escape"]);
    std::thread::sleep(Duration::from_millis(300));
    p.step(&["Enter"], "Question 2 of 2");
    // Esc, then an arrow key (itself an escape sequence): the arrow moves the cursor.
    p.keys(&["Escape"]);
    std::thread::sleep(Duration::from_millis(300));
    p.step(&["Down"], "> ( ) 2. Web page");
    p.step(&["Space"], "> (o) 2. Web page");
    p.keys(&["Enter"]);
    let text = p.submit();
    assert_eq!(
        text,
        r#"{"action":"accept","content":{"name":"ax","format":"html"}}"#
    );
    let a = accepted(&f, &text);
    assert_eq!(a.text("name"), Some("ax"));
}

#[test]
fn v2_an_answer_undone_after_going_back_blocks_the_way_to_submit_again() {
    // ← goes back without checks; the answer undone there is refused on the way forward, so
    // Submit is out of reach until it is fixed.
    let form = json!({"message": "Two things", "questions": [
        {"id": "first", "type": "text", "title": "First", "required": false},
        {"id": "second", "type": "multi_select", "title": "Second", "required": true,
         "options": [choice("x", "Ex"), choice("y", "Why")]}]});
    let (f, p) = started("review", &form, "Question 1 of 2");
    p.step(&["Enter"], "Question 2 of 2");
    p.step(&["2", "Enter"], "Review your answers");
    p.step(&["Left"], "[x] 2. Why");
    p.step(&["2", "Left"], "Question 1 of 2");
    p.step(&["Enter"], "Question 2 of 2");
    p.step(&["Enter"], "cannot go on: choose at least 1");
    // Space picks the highlighted option, the one toggled last.
    p.keys(&["Space", "Enter"]);
    let text = p.submit();
    let a = accepted(&f, &text);
    assert_eq!(a.choices("second"), Some(vec!["y"]));
    assert_eq!(a.text("first"), None);
}

#[test]
fn a_native_request_is_filled_with_titles_falling_back_to_names() {
    // A whole JSON-RPC `openai/elicitation/create` request, as `forms preview` reads it.
    let request = json!({"jsonrpc": "2.0", "id": 7, "method": "openai/elicitation/create",
        "params": {"mode": "form", "message": "Pick one",
            "requestedSchema": {"type": "object", "required": ["doc"], "properties": {
                "doc": {"type": "string", "format": "uri", "title": "Document",
                    "x-openai-input": {"type": "resource", "options": [
                        {"uri": "https://example.com/a", "name": "alpha-doc"},
                        {"uri": "https://example.com/b", "name": "beta", "title": "Beta doc"}]}},
                "size": {"type": "string", "title": "Size", "enum": ["S", "M", "L"]}}}}});
    let p = Pane::start("native", &request);
    let screen = p.wait_for("Beta doc");
    assert_shows(&screen, &["1. alpha-doc", "Document *"]);
    p.step(&["Enter"], "a choice is required");
    p.step(&["1", "Enter"], "3. L");
    p.step(&["Down", "Space", "Enter"], "Review your answers");
    p.keys(&["Enter"]);
    let v: Value = serde_json::from_str(&p.response()).unwrap();
    assert_eq!(
        v,
        json!({"action": "accept", "content": {"doc": "https://example.com/a", "size": "M"}})
    );
}

#[test]
fn without_a_terminal_on_stdin_fill_exits_2_with_a_message() {
    let dir = std::env::temp_dir().join(format!("forms-fill-notty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("form.json");
    std::fs::write(
        &file,
        r#"{"message":"Hi","questions":[{"id":"a","type":"text","title":"A","required":false}]}"#,
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_forms"))
        .arg("fill")
        .arg(&file)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("needs a terminal on standard input"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn host_terminal_asks_the_server_s_form_in_the_terminal_and_prints_the_tool_result() {
    // `forms host --terminal`: the form `forms-mcp` asks mid-call is filled here, as
    // `forms fill` fills it, and the tool's result (with the checked answer) is printed.
    let server = forms_mcp();
    let form = json!({"message": "Set up your weekly report", "questions": [
        {"id": "format", "type": "single_select", "title": "Report format", "required": true,
         "options": [choice("pdf", "PDF"), choice("html", "Web page")]}]});
    let p = Pane::start_with("host", &form, |forms, file| {
        format!(
            "DATA_FORMS_TIMEOUT_MS=20000 {forms} host --terminal \
             --call form_elicitation_v2_request --args @{file} -- {}",
            quote(&server)
        )
    });
    p.wait_for("Question 1 of 1");
    p.step(&["2", "Enter"], "Review your answers");
    p.keys(&["Enter"]);
    let (code, out) = p.finish();
    assert_eq!(code, 0, "stdout: {out}\n{}", p.screen());
    let result: Value = serde_json::from_str(&out).unwrap();
    let expected = json!({"action": "accept", "content": {"format": "html"}});
    assert_eq!(result["structuredContent"], expected, "{result}");
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, expected);
    assert_ne!(result["isError"], json!(true));
}

/// Writes "pwned" (base64 `cHduZWQ=`) to the clipboard of a terminal that obeys it.
const OSC52: &str = "\u{1b}]52;c;cHduZWQ=\u{7}";
/// How [`OSC52`] must appear on the screen: as text.
const OSC52_SHOWN: &str = r"\u{1b}]52;c;cHduZWQ=\u{7}";
/// Erases the line and moves the cursor up.
const CSI: &str = "\u{1b}[2K\u{1b}[1A";
const CSI_SHOWN: &str = r"\u{1b}[2K\u{1b}[1A";

#[test]
fn the_panes_obey_osc_52_and_csi_when_a_program_prints_them_raw() {
    // The control for the tests below: the same tmux setup, a program that prints the
    // payloads raw. tmux sets a paste buffer and the erased line is gone.
    let p = Pane::start_with("raw", &json!({}), |_, _| {
        r"printf 'kept\nerased\n\033]52;c;cHduZWQ=\007\033[1A\033[2Kshown\n' > /dev/tty; sleep 20"
            .to_owned()
    });
    let screen = p.wait_for("shown");
    assert!(screen.contains("kept"), "{screen}");
    assert!(!screen.contains("erased"), "{screen}");
    assert!(!screen.contains("52;c"), "{screen}");
    let start = Instant::now();
    while p.buffer().is_none() && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(30));
    }
    assert_eq!(p.buffer().as_deref(), Some("pwned"));
}

#[test]
fn fill_shows_escape_sequences_of_the_form_as_text_and_the_clipboard_stays_unset() {
    let form = json!({"message": format!("Weekly report{OSC52}"), "questions": [
        {"id": "format", "type": "single_select", "title": format!("Format{CSI}"),
         "description": format!("Pick one{OSC52}"), "required": true,
         "options": [choice("pdf", &format!("PDF{OSC52}")), choice("html", &format!("Web{CSI}"))]}]});
    let f = data(&form);
    let p = Pane::start("hijack", &form);
    // The last line of the screen: the whole form has been written to the terminal.
    p.wait_for("Ctrl-C cancel");
    assert_eq!(
        p.buffer(),
        None,
        "an OSC 52 sequence of the form set the clipboard"
    );
    let screen = p.wait_for("Question 1 of 1");
    for shown in [
        format!("Weekly report{OSC52_SHOWN}"),
        format!("Format{CSI_SHOWN} *"),
        format!("Pick one{OSC52_SHOWN}"),
        format!("( ) 1. PDF{OSC52_SHOWN}"),
        format!("( ) 2. Web{CSI_SHOWN}"),
    ] {
        assert!(
            screen.contains(&shown),
            "{shown:?} is not on the screen:\n{screen}"
        );
    }
    p.keys(&["1", "Enter"]);
    let review = p.wait_for("Review your answers");
    assert_shows(
        &review,
        &[
            &format!("Format{CSI_SHOWN}: PDF{OSC52_SHOWN}"),
            &format!("Weekly report{OSC52_SHOWN}"),
        ],
    );
    p.keys(&["Enter"]);
    let text = p.response();
    assert_eq!(accepted(&f, &text).choice("format"), Some("pdf"));
    assert_eq!(
        p.buffer(),
        None,
        "an OSC 52 sequence of the form set the clipboard"
    );
}

/// `forms host --terminal` against `examples/core_server.rs`, calling `tool`.
fn core_host(name: &str, tool: &str) -> Pane {
    let server = example("core_server");
    Pane::start_with(name, &json!({}), |forms, _| {
        format!(
            "{forms} host --terminal --call {tool} -- {}",
            quote(&server)
        )
    })
}

/// A finished `forms host` run's result; its standard output must hold only escaped text.
fn host_result(p: &Pane) -> Value {
    let (code, out) = p.finish();
    assert_eq!(code, 0, "stdout: {out}\n{}", p.screen());
    assert!(
        !out.chars().any(|c| (c.is_control() && c != '\n')
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c)),
        "{out:?}"
    );
    serde_json::from_str(&out).unwrap()
}

#[test]
fn host_terminal_asks_integer_number_and_boolean_fields_of_a_core_elicitation() {
    let p = core_host("core", "settings");
    p.wait_for("Ctrl-C cancel");
    assert_eq!(
        p.buffer(),
        None,
        "an OSC 52 sequence of the server set the clipboard"
    );
    let screen = p.wait_for("Question 1 of 4");
    assert_shows(
        &screen,
        &[
            &format!("Report settings{OSC52_SHOWN}"),
            &format!("How many weeks{CSI_SHOWN} *"),
            &format!("Between 1 and 10{OSC52_SHOWN}"),
            "type a whole number (1–10)",
        ],
    );
    // Nothing typed, then not a number, then a fraction, then out of range: asked again.
    p.step(&["Enter"], "cannot go on: an answer is required");
    p.type_then("abc", "> abc");
    p.step(&["Enter"], "cannot go on: type a whole number");
    p.keys(&["BSpace", "BSpace", "BSpace"]);
    p.type_then("2.5", "> 2.5");
    p.step(&["Enter"], "cannot go on: type a whole number");
    p.keys(&["BSpace", "BSpace", "BSpace"]);
    p.type_then("11", "> 11");
    p.step(&["Enter"], "cannot go on: must be at most 10");
    p.keys(&["BSpace", "BSpace"]);
    p.type_then("0", "> 0");
    p.step(&["Enter"], "cannot go on: must be at least 1");
    p.keys(&["BSpace"]);
    p.type_text("7");
    p.keys(&["Enter"]);
    // The number starts at its default.
    let screen = p.wait_for("Question 2 of 4");
    assert_shows(&screen, &["> 0.5", "type a number (0–1)"]);
    p.keys(&["BSpace", "BSpace", "BSpace"]);
    p.type_then("1.25", "> 1.25");
    p.step(&["Enter"], "cannot go on: must be at most 1");
    p.keys(&["BSpace", "BSpace", "BSpace", "BSpace"]);
    p.type_then(".25", "> .25");
    p.keys(&["Enter"]);
    // A required yes-or-no question without a default needs y or n.
    let screen = p.wait_for("Question 3 of 4");
    assert_shows(
        &screen,
        &[
            &format!("Send it by mail{CSI_SHOWN} *"),
            "( ) Yes    ( ) No",
        ],
    );
    p.step(&["Enter"], "cannot go on: answer y for yes or n for no");
    p.type_then("x", "x is not an answer: type y for yes or n for no");
    p.type_then("y", "(o) Yes    ( ) No");
    p.keys(&["Enter"]);
    // The optional one starts at its default, yes.
    let screen = p.wait_for("Question 4 of 4");
    assert!(screen.contains("(o) Yes    ( ) No"), "{screen}");
    p.type_then("n", "( ) Yes    (o) No");
    p.keys(&["Enter"]);
    let review = p.wait_for("Review your answers");
    for line in [
        format!("How many weeks{CSI_SHOWN}: 7"),
        "Share of charts: .25".to_owned(),
        format!("Send it by mail{CSI_SHOWN}: yes"),
        "Include news: no".to_owned(),
    ] {
        assert!(review.contains(&line), "{line:?}:\n{review}");
    }
    p.keys(&["Enter"]);
    let result = host_result(&p);
    // The server received the typed values: a JSON integer, a number and booleans.
    let answer: Value =
        serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        answer,
        json!({"action": "accept", "content": {"count": 7, "ratio": 0.25, "agree": true,
            "news": false}})
    );
    // The server's own text reached standard output escaped, with its value intact.
    assert_eq!(
        result["content"][1]["text"],
        json!(format!("done{OSC52}{CSI}\u{9b}2J\u{202e}"))
    );
    assert_eq!(
        p.buffer(),
        None,
        "an OSC 52 sequence of the server set the clipboard"
    );
}

#[test]
fn host_terminal_error_messages_quoting_the_server_show_its_escapes_as_text() {
    // The form has a field the terminal cannot ask, named with an OSC 52 sequence: the host
    // says so on standard error (here the pane) and answers the server with an error.
    let p = core_host("unsupported", "unsupported");
    let (code, _) = p.finish();
    let screen = p.history();
    assert_eq!(code, 0, "{screen}");
    let shown = format!(
        "the form was not answered: requestedSchema.properties.box{OSC52_SHOWN}: \
         a field of type `object` cannot be asked in the terminal"
    );
    assert!(
        screen.contains(&shown),
        "{shown:?} is not on the screen:\n{screen}"
    );
    let result = host_result(&p);
    let error: Value =
        serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains(&format!("box{OSC52_SHOWN}")),
        "{error}"
    );
    assert_eq!(
        p.buffer(),
        None,
        "an OSC 52 sequence of the server set the clipboard"
    );
}
