//! `forms ask fill REQ --as NAME`: a form request answered in a real pseudo-terminal (the
//! real `forms` binary in a detached tmux session, keys sent with `tmux send-keys`), its
//! response submitted with the version read, on SQLite and on PostgreSQL (with
//! `FORMS_ASK_PG_URL`; without it the case says loudly that it was skipped, and with
//! `CI=true` it fails). Needs `tmux` (`.ci/test` installs it).
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

use forms_test_kit::{store, tmux, TempDir};

mod controls;
mod conversation;

use conversation::{answer_v1, Conversation};

use forms_ask::{Asks, FormRequest, NewRequest, Outcome, Principal, RequestId};
use forms_runtime::{DataForm, Form, StaticForm};
use serde_json::{json, Value};
use std::process::{Command, Stdio};
use std::time::Duration;
use store::{pg_url, tag};

/// One `forms` command in its own tmux server, its standard output and status kept in files.
struct Pane(tmux::Pane);

impl std::ops::Deref for Pane {
    type Target = tmux::Pane;
    fn deref(&self) -> &tmux::Pane {
        &self.0
    }
}

impl Pane {
    fn start(name: &str, args: &[&str]) -> Pane {
        Pane::launch(name, args, false)
    }

    /// Answers the checklist up to its review screen: `pick` (a key) for the changelog
    /// question, then `notes` if any.
    fn answer_checklist(&self, pick: &str, notes: Option<&str>) {
        self.wait_for("Changelog written?");
        self.keys(&[pick, "Enter"]);
        self.wait_for("Notes");
        if let Some(notes) = notes {
            self.type_text(notes);
        }
        self.keys(&["Enter"]);
        self.wait_for("Review your answers");
    }

    /// Ends the form with `key` (Ctrl-D declines, Ctrl-C cancels) once it is on screen: a
    /// successful exit; the saved request.
    fn end_with(&self, key: &str) -> Value {
        self.wait_for("Changelog written?");
        self.keys(&[key]);
        let (code, saved) = self.finish();
        assert_eq!(code, 0, "{saved}");
        saved
    }

    /// `forms ask fill ID --db DB --as WHO`.
    fn fill(name: &str, id: &str, db: &str, who: &str) -> Pane {
        Pane::start(name, &["ask", "fill", id, "--db", db, "--as", who])
    }

    /// `start`, in a shell that ignores SIGHUP (as under `nohup`), so the command outlives
    /// its terminal; its standard error goes to a file.
    fn start_ignoring_hangup(name: &str, args: &[&str]) -> Pane {
        Pane::launch(name, args, true)
    }

    fn launch(name: &str, args: &[&str], ignore_hangup: bool) -> Pane {
        let t = tag();
        let dir = std::env::temp_dir().join(format!("forms-ask-fill-{name}-{t}"));
        std::fs::create_dir_all(&dir).unwrap();
        let pane = tmux::Pane::new(
            format!("forms-ask-fill-{name}-{t}"),
            dir,
            Duration::from_secs(15),
        );
        let mut command = tmux::quote(env!("CARGO_BIN_EXE_forms"));
        for a in args {
            command.push(' ');
            command.push_str(&tmux::quote(a));
        }
        let command = if ignore_hangup {
            format!(
                "trap '' HUP; echo $$ > {}; {command} > {} 2> {}; echo $? > {}",
                pane.file("shell.pid"),
                pane.file("out.json"),
                pane.file("err.txt"),
                pane.file("rc"),
            )
        } else {
            format!(
                "{command} > {} ; echo $? > {}",
                pane.file("out.json"),
                pane.file("rc")
            )
        };
        pane.run("set -g remain-on-exit on\n", &command);
        Pane(pane)
    }

    /// The exit status and the one JSON line printed.
    fn finish(&self) -> (i32, Value) {
        let Some(code) = self.exit_code() else {
            panic!("forms ask fill never exited:\n{}", self.screen());
        };
        let out = self.read("out.json");
        assert_eq!(out.lines().count(), 1, "{out:?}");
        (code, serde_json::from_str(out.trim()).unwrap())
    }

    /// Closes the terminal: the tmux server and its pseudo-terminals go away.
    fn hang_up(&self) {
        self.tmux(&["kill-server"]);
    }

    /// After `hang_up`: the exit status, standard output and standard error of a command
    /// started with `start_ignoring_hangup`. A command still running after 15 s is killed
    /// (it is the shell's child) and the case fails.
    fn finish_without_terminal(&self) -> (i32, String, String) {
        let Some(code) = self.exit_code() else {
            let shell = self.read("shell.pid");
            let shell = shell.trim();
            let children = std::fs::read_to_string(format!("/proc/{shell}/task/{shell}/children"))
                .unwrap_or_default();
            for pid in children.split_whitespace() {
                let _ = Command::new("kill").args(["-KILL", pid]).status();
            }
            panic!("forms kept running after its terminal went away");
        };
        (code, self.read("out.json"), self.read("err.txt"))
    }
}

/// The form, as the asking program declares it in Rust.
#[derive(Form, Debug, PartialEq)]
#[form(message = "Release checklist")]
struct Checklist {
    /// Changelog written?
    changelog: Done,
    /// Notes
    #[form(max_length = 40)]
    notes: Option<String>,
}

#[derive(Form, Debug, PartialEq)]
#[form(rename_all = "snake_case")]
enum Done {
    Yes,
    No,
}

fn form() -> DataForm {
    Checklist::form().data().clone()
}

/// `n` checklist requests opened by agent in `c`.
fn open_checklists(c: &Conversation, n: usize) -> Vec<RequestId> {
    (0..n)
        .map(|i| {
            let new =
                NewRequest::question("When you are back, fill in the checklist").form(&form());
            c.open("agent", new, &format!("open-{i}")).id
        })
        .collect()
}

/// A conversation with agent, ana and bob in a fresh SQLite store, and `n` checklist
/// requests opened by agent; its engine closed.
fn setup(prefix: &str, n: usize) -> (TempDir, Conversation, Vec<RequestId>) {
    let (dir, mut c) = Conversation::in_scratch(prefix, &["agent", "ana", "bob"]);
    let ids = open_checklists(&c, n);
    c.close();
    (dir, c, ids)
}

fn fill_in_the_terminal(db: &str, name: &str) {
    let mut c = Conversation::new(db, &["agent", "ana", "bob"]);
    let ids = open_checklists(&c, 3);
    c.close();
    let (ana, bob) = (c.name("ana"), c.name("bob"));

    // Answered in the terminal, submitted with the version read.
    let p = Pane::fill(name, ids[0].as_str(), db, &ana);
    p.answer_checklist("2", Some("docs pending"));
    p.keys(&["Enter"]);
    let (code, saved) = p.finish();
    assert_eq!(code, 0, "{saved}");
    assert_eq!(saved["state"], "resolved");
    assert_eq!(saved["outcome"], "answered");
    assert_eq!(saved["responder"], ana.as_str());
    assert_eq!(
        saved["response"],
        json!({"action": "accept", "content": {"changelog": "no", "notes": "docs pending"}})
    );
    drop(p);
    // Decoded into the Rust type by an engine that did not open it.
    {
        let asks = Asks::open_location(db).unwrap();
        let me = asks.as_principal(&c.principal("agent"));
        let reply = FormRequest::<Checklist>::resume(&me, &ids[0])
            .unwrap()
            .show(&me)
            .unwrap();
        assert_eq!(
            reply.accepted(),
            Some(&Checklist {
                changelog: Done::No,
                notes: Some("docs pending".into()),
            })
        );
    }

    // Declining (Ctrl-D) is saved as the person's answer.
    let p = Pane::fill(name, ids[1].as_str(), db, &ana);
    assert_eq!(p.end_with("C-d")["response"], json!({"action": "decline"}));
    drop(p);

    // Someone else decides while the form is on screen: the submission is a conflict
    // carrying the winner's saved answer, and nothing is overwritten.
    let p = Pane::fill(name, ids[2].as_str(), db, &ana);
    p.wait_for("Changelog written?");
    let asks = Asks::open_location(db).unwrap();
    let won = asks
        .as_principal(&Principal::new(bob.as_str()).unwrap())
        .respond(
            &ids[2],
            1,
            Outcome::Answered,
            Some(r#"{"action":"accept","content":{"changelog":"yes"}}"#),
            "bob-1",
        )
        .unwrap();
    p.answer_checklist("1", None);
    p.keys(&["Enter"]);
    let (code, refused) = p.finish();
    assert_eq!(code, 1, "{refused}");
    assert_eq!(refused["error"]["code"], "conflict");
    assert_eq!(
        refused["error"]["latest"]["response"],
        json!({"action": "accept", "content": {"changelog": "yes"}})
    );
    let now = asks
        .as_principal(&Principal::new(ana.as_str()).unwrap())
        .show(&ids[2])
        .unwrap();
    assert_eq!(now, won);
}

#[test]
fn ask_fill_answers_a_form_request_in_the_terminal_sqlite() {
    let dir = TempDir::new("ask-fill-db");
    fill_in_the_terminal(&dir.db(), "sqlite");
}

#[test]
fn ask_fill_answers_a_form_request_in_the_terminal_postgres() {
    if let Some(url) = pg_url() {
        fill_in_the_terminal(&url, "postgres");
    }
}

#[test]
fn ask_fill_without_a_terminal_or_a_form_is_refused() {
    let (_dir, c, ids) = setup("ask-fill-db", 1);
    let out = Command::new(env!("CARGO_BIN_EXE_forms"))
        .args([
            "ask",
            "fill",
            ids[0].as_str(),
            "--db",
            &c.db,
            "--as",
            &c.name("ana"),
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs a terminal"));
    // Nothing was answered.
    let asks = Asks::open_location(&c.db).unwrap();
    let r = asks
        .as_principal(&c.principal("agent"))
        .show(&ids[0])
        .unwrap();
    assert_eq!(r.version, 1);
}

/// From a shell alone: `forms ask open --form JSON` opens a form request (an invalid form is
/// refused with the findings), `forms ask respond --answer JSON` answers it with a host
/// response checked against the form, and `forms ask show` prints the saved response.
#[test]
fn ask_open_with_a_form_and_respond_with_a_host_response_from_the_shell() {
    let (_dir, c, _) = setup("ask-form-cli", 0);
    let (db, agent, ana) = (&c.db, c.name("agent"), c.name("ana"));
    let forms = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_forms"))
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let line: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        (out.status.code().unwrap(), line)
    };
    let chat = c.chat.as_str();
    let open = |body: &str, form: &str, key: &str| {
        forms(&[
            "ask",
            "open",
            "--db",
            db,
            "--as",
            &agent,
            "--conversation",
            chat,
            "--body",
            body,
            "--form",
            form,
            "--key",
            key,
        ])
    };
    let respond = |id: &str, answer: &str, key: &str| {
        let head = ["ask", "respond", "--db", db, "--as", &ana];
        forms(&[&head[..], &answer_v1(id, answer, key)].concat())
    };
    let (code, bad) = open("b", r#"{"message":"Pick","questions":[]}"#, "k0");
    assert_eq!(code, 1, "{bad}");
    assert_eq!(bad["error"]["code"], "invalid_arguments");
    assert_eq!(bad["error"]["findings"][0]["rule"], "R2", "{bad}");
    let (code, opened) = open(
        "When you are back, fill in the checklist",
        &form().to_json(),
        "k1",
    );
    assert_eq!(code, 0, "{opened}");
    let id = opened["id"].as_str().unwrap().to_owned();
    let (code, wrong) = respond(
        &id,
        r#"{"action":"accept","content":{"changelog":"maybe"}}"#,
        "r1",
    );
    assert_eq!(code, 1, "{wrong}");
    assert_eq!(wrong["error"]["code"], "invalid_response");
    assert_eq!(wrong["error"]["findings"][0]["rule"], "V4", "{wrong}");
    let answer = r#"{"action":"accept","content":{"changelog":"yes"}}"#;
    let (code, saved) = respond(&id, answer, "r2");
    assert_eq!(code, 0, "{saved}");
    let (_, shown) = forms(&["ask", "show", "--db", db, "--as", &agent, &id]);
    assert_eq!(shown, saved);
    assert_eq!(
        shown["response"],
        serde_json::from_str::<Value>(answer).unwrap()
    );
}

/// A terminal that goes away while the form is on screen is not the person's answer:
/// `forms ask fill` exits 2 and submits nothing (Ctrl-C stays a cancel).
#[test]
fn ask_fill_whose_terminal_goes_away_submits_nothing() {
    let (_dir, c, ids) = setup("ask-fill-db", 2);
    let (db, ana) = (&c.db, c.name("ana"));

    let p = Pane::start_ignoring_hangup(
        "hangup",
        &["ask", "fill", ids[0].as_str(), "--db", db, "--as", &ana],
    );
    p.wait_for("Changelog written?");
    p.keys(&["2"]);
    p.hang_up();
    let (code, out, err) = p.finish_without_terminal();
    assert_eq!(code, 2, "stdout {out:?} stderr {err:?}");
    assert_eq!(out, "", "{err}");
    assert!(err.contains("the terminal went away"), "{err}");
    drop(p);

    // Ctrl-C is still the person's cancel, saved as such.
    let p = Pane::fill("interrupt", ids[1].as_str(), db, &ana);
    assert_eq!(p.end_with("C-c")["response"], json!({"action": "cancel"}));
    drop(p);

    let asks = Asks::open_location(db).unwrap();
    let gone = asks
        .as_principal(&c.principal("agent"))
        .show(&ids[0])
        .unwrap();
    assert_eq!(
        (gone.version, gone.state),
        (1, forms_ask::State::Open),
        "{gone:?}"
    );
}

/// A request that is no longer open, or a person outside its audience, is refused before
/// the form is shown, with the refusal `respond` would give (exit 1).
#[test]
fn ask_fill_refuses_before_showing_the_form() {
    let (_dir, c) = Conversation::in_scratch("ask-fill-db", &["agent", "ana", "bob"]);
    let db = &c.db;
    let (ana, bob) = (c.name("ana"), c.name("bob"));
    let opened = c.open(
        "agent",
        NewRequest::question("Fill in the checklist")
            .form(&form())
            .audience([c.principal("ana")]),
        "open-1",
    );

    // bob is not in the audience.
    let p = Pane::fill("not-eligible", opened.id.as_str(), db, &bob);
    let (code, refused) = p.finish();
    assert_eq!(code, 1, "{refused}");
    assert_eq!(refused["error"]["code"], "not_eligible", "{refused}");
    assert!(!p
        .tmux(&["capture-pane", "-p"])
        .contains("Changelog written?"));
    drop(p);

    // Cancelled by its requester: no longer open.
    let cancelled = c.by("agent").cancel(&opened.id, 1, "cancel-1").unwrap();
    let p = Pane::fill("closed", opened.id.as_str(), db, &ana);
    let (code, refused) = p.finish();
    assert_eq!(code, 1, "{refused}");
    assert_eq!(refused["error"]["code"], "conflict", "{refused}");
    assert_eq!(
        refused["error"]["latest"]["state"], "cancelled",
        "{refused}"
    );
    assert_eq!(refused["error"]["latest"]["version"], cancelled.version);
    assert!(!p
        .tmux(&["capture-pane", "-p"])
        .contains("Changelog written?"));
}

/// Two runs for the same person on the same version share the default retry key: the
/// second to submit, with other answers, gets the conflict with the first one's saved
/// answer, not a bare `retry_key_reused`.
#[test]
fn ask_fill_second_run_under_the_default_key_is_a_conflict() {
    let (_dir, c, ids) = setup("ask-fill-db", 1);
    let (db, ana) = (&c.db, c.name("ana"));
    let args = ["ask", "fill", ids[0].as_str(), "--db", db, "--as", &ana];
    let first = Pane::start("first", &args);
    let second = Pane::start("second", &args);
    first.wait_for("Changelog written?");
    second.wait_for("Changelog written?");
    for (p, pick) in [(&first, "1"), (&second, "2")] {
        p.answer_checklist(pick, None);
    }
    first.keys(&["Enter"]);
    let (code, saved) = first.finish();
    assert_eq!(code, 0, "{saved}");
    second.keys(&["Enter"]);
    let (code, refused) = second.finish();
    assert_eq!(code, 1, "{refused}");
    assert_eq!(refused["error"]["code"], "conflict", "{refused}");
    assert_eq!(refused["error"]["latest"], saved);
    assert_eq!(
        saved["response"],
        json!({"action": "accept", "content": {"changelog": "yes"}})
    );
}

/// The attack of issue 22: a request whose title, body and form hold CSI, OSC … ST, RLO and
/// DEL, answered in the terminal: the final line holds none of them raw and parses back to
/// the stored text.
#[test]
fn ask_fill_final_line_escapes_terminal_controls_in_stored_text() {
    let (_dir, c) = Conversation::in_scratch("ask-fill-controls", &["agent", "ana"]);
    let db = &c.db;
    let ana = c.name("ana");
    let opened = c.open_hostile_form();
    let p = Pane::fill("controls", opened.id.as_str(), db, &ana);
    // The form's own text is on the screen as escapes.
    p.wait_for(r"Pick\u{9b}2K\u{202e}\u{7f}");
    p.keys(&["1", "Enter"]);
    p.wait_for("Review your answers");
    p.keys(&["Enter"]);
    let (code, saved) = p.finish();
    assert_eq!(code, 0, "{saved}");
    let out = std::fs::read(p.dir.join("out.json")).unwrap();
    let line = controls::assert_escaped("ask fill", &out);
    assert_eq!(line, saved);
    controls::assert_holds_payload("ask fill", &line, true);
    assert_eq!(
        line["response"],
        json!({"action": "accept", "content": {"pick": "a"}})
    );
    drop(p);
}
/// A form with one `files` question, as the asking program declares it.
#[derive(Form, Debug, PartialEq)]
#[form(message = "Send the quarter's report")]
struct Report {
    #[form(files, title = "The report")]
    data: Vec<forms_runtime::FileRef>,
}

/// A file the person names in the terminal is read by `forms ask fill` and its bytes sent
/// with the answer (issue 22, finding 4): the saved response names the store's copy, never
/// the path typed, and the requester's decode gets its own file with the same bytes.
#[test]
fn ask_fill_sends_the_file_the_person_names_as_an_upload() {
    let (dir, c) = Conversation::in_scratch("ask-fill-db", &["agent", "ana"]);
    let db = &c.db;
    let ana = c.name("ana");
    let me = c.by("agent");
    let id = me
        .open_form(
            &c.chat,
            &Report::form(),
            NewRequest::question("Send the report"),
            "open",
        )
        .unwrap()
        .id()
        .clone();
    let sent: Vec<u8> = (0..6000usize).map(|i| (i * 131 % 251) as u8).collect();
    let local = dir.path().join("q3 sales.csv");
    std::fs::write(&local, &sent).unwrap();

    let p = Pane::fill("upload", id.as_str(), db, &ana);
    p.wait_for("The report");
    p.keys(&["a"]);
    p.wait_for("Path:");
    p.type_text(&local.display().to_string());
    p.keys(&["Enter"]);
    p.wait_for("— added");
    p.keys(&["Enter"]);
    p.wait_for("Review your answers");
    p.keys(&["Enter"]);
    let (code, saved) = p.finish();
    assert_eq!(code, 0, "{saved}");
    assert_eq!(
        saved["response"]["content"]["data"],
        json!([format!("file:///forms-ask/uploads/{id}/0/q3%20sales.csv")])
    );
    assert!(
        !saved
            .to_string()
            .contains(&dir.path().display().to_string()),
        "{saved}"
    );
    drop(p);
    // The person's file may go away: the requester reads the store's copy into its own
    // directory.
    std::fs::remove_file(&local).unwrap();
    let mine = dir.path().join("requester");
    let reply = FormRequest::<Report>::resume(&me, &id)
        .unwrap()
        .uploads_dir(&mine)
        .show(&me)
        .unwrap();
    let path = reply.accepted().unwrap().data[0]
        .local_path()
        .unwrap()
        .to_path_buf();
    assert!(path.starts_with(&mine), "{}", path.display());
    assert_eq!(std::fs::read(&path).unwrap(), sent);
}
