//! `forms ask` end to end: the real `forms` binary on a SQLite file and on PostgreSQL
//! (`FORMS_ASK_PG_URL`; without it the PostgreSQL cases say loudly that they were skipped,
//! and with `CI=true` they fail): every operation, the JSON it prints, exit statuses, two
//! processes racing, and a waiter in one process woken by a response from another.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

use forms_test_kit::store;
use forms_test_kit::store::ChatNames;

mod controls;
mod conversation;

use conversation::answer_v1;

use forms_test_kit::checks::assert_contains_all;
use forms_test_kit::process::Run;
use forms_test_kit::unprivileged::{copy_for_nobody, is_root};
use forms_test_kit::TempDir;
use serde_json::Value;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use store::{pg_url, tag};

fn forms(args: &[&str]) -> Run {
    Run::of(
        Command::new(env!("CARGO_BIN_EXE_forms"))
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap(),
    )
}

/// A conversation with three members whose names are unique to this run (the names are
/// the chat's own: `chat.agent`, …).
struct Chat {
    db: String,
    names: ChatNames,
}

impl std::ops::Deref for Chat {
    type Target = ChatNames;
    fn deref(&self) -> &ChatNames {
        &self.names
    }
}

impl Chat {
    fn new(db: String) -> Chat {
        let chat = Chat {
            db,
            names: ChatNames::fresh(),
        };
        let joined = forms(&[
            "ask",
            "join",
            "--db",
            &chat.db,
            "--conversation",
            &chat.conversation,
            &chat.agent,
            &chat.ana,
            &chat.bob,
        ])
        .ok();
        assert_eq!(joined["members"].as_array().unwrap().len(), 3, "{joined}");
        chat
    }

    fn ask(&self, op: &str, who: &str, rest: &[&str]) -> Run {
        let mut args = vec!["ask", op, "--db", &self.db, "--as", who];
        args.extend_from_slice(rest);
        forms(&args)
    }

    /// `forms ask respond` as `who`: `outcome` (and `answer`) to `version` of `rid`, with the
    /// retry key `key`.
    fn respond(
        &self,
        who: &str,
        rid: &str,
        version: &str,
        outcome: &str,
        answer: Option<&str>,
        key: &str,
    ) -> Run {
        let mut rest = vec![rid, "--version", version, "--outcome", outcome];
        if let Some(answer) = answer {
            rest.extend(["--answer", answer]);
        }
        rest.extend(["--key", key]);
        self.ask("respond", who, &rest)
    }

    /// `forms ask open` as agent: an approval with `body` and the flags `extra`.
    fn open_approval_with(&self, body: &str, extra: &[&str], key: &str) -> Run {
        let mut rest = vec![
            "--conversation",
            &self.conversation,
            "--kind",
            "approval",
            "--body",
            body,
        ];
        rest.extend_from_slice(extra);
        rest.extend(["--key", key]);
        self.ask("open", &self.agent, &rest)
    }

    /// `forms ask open` as agent: an approval with `body`, bound to `action`.
    fn open_bound(&self, body: &str, action: &str, key: &str) -> Run {
        self.open_approval_with(body, &["--action", action], key)
    }

    fn open_approval(&self, key: &str) -> Value {
        self.open_approval_with("Deploy 1.4?", &[], key).ok()
    }
}

/// The two tests of a scenario run on a store named by its location: `$sqlite` on a fresh
/// SQLite file, `$postgres` on the PostgreSQL of `FORMS_ASK_PG_URL` (without it, it says
/// loudly that it was skipped; with `CI=true` it fails). A macro: a function cannot declare
/// tests.
macro_rules! on_both_stores {
    ($scenario:ident: $sqlite:ident, $postgres:ident) => {
        #[test]
        fn $sqlite() {
            let dir = TempDir::new("cli-ask");
            $scenario(dir.db());
        }

        #[test]
        fn $postgres() {
            if let Some(url) = pg_url() {
                $scenario(url);
            }
        }
    };
}

/// The event names of a printed log, oldest first.
fn event_names(log: &Value) -> Vec<&str> {
    log["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect()
}

fn id(v: &Value) -> String {
    v["id"].as_str().unwrap().to_owned()
}

fn every_operation_prints_json_and_refusals_exit_1(db: String) {
    let c = Chat::new(db);
    let r = c.open_approval("open-1");
    assert_eq!(r["state"], "open");
    assert_eq!(r["version"], 1);
    assert_eq!(r["expires_at"], "9999-01-01T00:00:00Z");
    assert_eq!(r["deadline"], Value::Null); // the wire value is never shown as a deadline
    let rid = id(&r);
    // The same key and input replays the first result.
    assert_eq!(c.open_approval("open-1"), r);

    let msg = c
        .ask(
            "message",
            &c.ana,
            &[
                &rid,
                "--text",
                "How long will staging be busy?",
                "--key",
                "m1",
            ],
        )
        .ok();
    assert_eq!(msg["event"], "message");
    assert_eq!(c.ask("show", &c.bob, &[&rid]).ok()["state"], "open");

    let e = c.respond(&c.ana, &rid, "1", "answered", None, "r0");
    e.refused("invalid_outcome");
    let won = c
        .respond(&c.ana, &rid, "1", "approved", Some("go"), "r1")
        .ok();
    assert_eq!(
        (won["state"].as_str(), won["outcome"].as_str()),
        (Some("resolved"), Some("approved"))
    );
    let late = c.respond(&c.bob, &rid, "1", "denied", None, "r2");
    let v = late.refused("conflict");
    assert_eq!(v["error"]["latest"], won);

    let waited = c.ask("wait", &c.agent, &[&rid, "--timeout", "5"]).ok();
    assert_eq!(waited, won);
    let log = c.ask("log", &c.agent, &[&rid]).ok();
    let events = event_names(&log);
    assert_eq!(events, ["opened", "message", "responded"]);

    // Cancel: only the requester, current version.
    let r2 = id(&c.open_approval("open-2"));
    c.ask("cancel", &c.ana, &[&r2, "--version", "1", "--key", "c1"])
        .refused("not_requester");
    c.ask("cancel", &c.agent, &[&r2, "--version", "3", "--key", "c2"])
        .refused("conflict");
    assert_eq!(
        c.ask("cancel", &c.agent, &[&r2, "--version", "1", "--key", "c3"])
            .ok()["state"],
        "cancelled"
    );

    // Replace and supersede.
    let r3 = id(&c.open_approval("open-3"));
    let replace = |body: &str, key: &str| {
        c.ask(
            "replace",
            &c.agent,
            &[&r3, "--version", "1", "--body", body, "--key", key],
        )
    };
    let pair = replace("Deploy 1.5?", "p1").ok();
    assert_eq!(pair["previous"]["state"], "superseded");
    assert_eq!(pair["replacement"]["body"], "Deploy 1.5?");
    assert_eq!(pair["replacement"]["audience"], r["audience"]);
    let again = replace("Deploy 1.5?", "p1").ok();
    assert_eq!(again, pair);
    replace("Deploy 2.0?", "p1").refused("retry_key_reused");
    let r4 = id(&pair["replacement"]);
    assert_eq!(
        c.ask(
            "supersede",
            &c.agent,
            &[&r4, "--version", "1", "--key", "s1"]
        )
        .ok()["state"],
        "superseded"
    );

    // An explicit expiry is a deadline; one beyond 90 days is refused.
    let soon = c.ask(
        "open",
        &c.agent,
        &[
            "--conversation",
            &c.conversation,
            "--body",
            "Which region?",
            "--choice",
            "eu",
            "--choice",
            "us",
            "--expires",
            "2099-01-01T00:00:00Z",
            "--key",
            "q1",
        ],
    );
    soon.refused("invalid_input");
    c.ask("show", &c.agent, &["req_nope"]).refused("not_found");
    // A member who joins later is not eligible.
    let r5 = id(&c.open_approval("open-5"));
    let carol = format!("carol-{}", tag());
    forms(&[
        "ask",
        "join",
        "--db",
        &c.db,
        "--conversation",
        &c.conversation,
        &carol,
    ])
    .ok();
    c.respond(&carol, &r5, "1", "approved", None, "x")
        .refused("not_eligible");
}

fn two_processes_race_and_exactly_one_wins(db: String) {
    let c = Chat::new(db);
    for round in 0..3 {
        let rid = id(&c.open_approval(&format!("open-{round}")));
        let spawn = |who: &str, outcome: &str| {
            Command::new(env!("CARGO_BIN_EXE_forms"))
                .args([
                    "ask",
                    "respond",
                    "--db",
                    &c.db,
                    "--as",
                    who,
                    &rid,
                    "--version",
                    "1",
                    "--outcome",
                    outcome,
                    "--key",
                    &format!("race-{round}"),
                ])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let a = spawn(&c.ana, "approved");
        let b = spawn(&c.bob, "denied");
        let runs: Vec<Run> = [a, b]
            .into_iter()
            .map(|child| {
                let out = child.wait_with_output().unwrap();
                Run {
                    code: out.status.code().unwrap_or(-1),
                    stdout: String::from_utf8(out.stdout).unwrap(),
                    stderr: String::from_utf8(out.stderr).unwrap(),
                }
            })
            .collect();
        let winners: Vec<&Run> = runs.iter().filter(|r| r.code == 0).collect();
        assert_eq!(
            winners.len(),
            1,
            "round {round}: {:?}",
            runs.iter().map(|r| &r.stdout).collect::<Vec<_>>()
        );
        let loser = runs.iter().find(|r| r.code != 0).unwrap();
        assert_eq!(
            loser.refused("conflict")["error"]["latest"],
            winners[0].json()
        );
    }
}

fn a_waiting_process_is_woken_by_a_response_from_another(db: String) {
    let c = Chat::new(db);
    let rid = id(&c.open_approval("open-w"));
    let started = Instant::now();
    let waiter = Command::new(env!("CARGO_BIN_EXE_forms"))
        .args([
            "ask",
            "wait",
            "--db",
            &c.db,
            "--as",
            &c.agent,
            &rid,
            "--timeout",
            "60",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let won = c.respond(&c.bob, &rid, "1", "denied", None, "r").ok();
    let out = waiter.wait_with_output().unwrap();
    assert!(out.status.success());
    let seen: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(seen, won);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    // A timeout only stops waiting: the request stays open.
    let r2 = id(&c.open_approval("open-w2"));
    let t = Instant::now();
    let still = c.ask("wait", &c.agent, &[&r2, "--timeout", "0.3"]).ok();
    assert!(t.elapsed() >= Duration::from_millis(300));
    assert_eq!(still["state"], "open");
}

/// Rule 6 from a shell: an approval bound to an action is approved, redeemed exactly once
/// with exactly the bound action, and its execution reported (`unknown` stays reconcilable,
/// a final report is not replaced).
fn bound_action_is_redeemed_once_and_reported(db: String) {
    let c = Chat::new(db);
    let action = r#"{"executor":"deployer","resource_version":"v7","arguments":{"env":"staging"},"operation_key":"op-1"}"#;
    let r = c
        .open_bound("Deploy 1.4 to staging?", action, "open-b")
        .ok();
    let rid = id(&r);
    assert!(r["deadline"].is_string(), "bound approvals expire: {r}");
    let redeem = |who: &str, action: &str, key: &str| {
        c.ask("redeem", who, &[&rid, "--action", action, "--key", key])
    };
    let report = |status: &str, detail: Option<&str>, key: &str| {
        let mut rest = vec![rid.as_str(), "--operation-key", "op-1", "--status", status];
        if let Some(detail) = detail {
            rest.extend(["--detail", detail]);
        }
        rest.extend(["--key", key]);
        c.ask("report", &c.agent, &rest)
    };
    // Not yet approved: redeeming is refused.
    let v = redeem(&c.agent, action, "rd-0").refused("action_refused");
    assert!(
        v["error"]["message"].as_str().unwrap().contains("approved"),
        "{v}"
    );
    c.respond(&c.ana, &rid, "1", "approved", None, "a1").ok();
    // A report before the redemption is refused.
    report("succeeded", None, "rp-0").refused("action_refused");
    // A mismatch is refused and binds nothing.
    let other = action.replace("v7", "v8");
    let v = redeem(&c.agent, &other, "rd-1").refused("action_refused");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("resource version"),
        "{v}"
    );
    // Someone who is neither the executor nor the requester may not redeem.
    redeem(&c.bob, action, "rd-b").refused("action_refused");
    let redeemed = redeem(&c.agent, action, "rd-2").ok();
    assert_eq!(redeemed["redemption"]["by"], c.agent.as_str(), "{redeemed}");
    // The same key replays; a second redemption is refused.
    assert_eq!(redeem(&c.agent, action, "rd-2").ok(), redeemed);
    let v = redeem(&c.agent, action, "rd-3").refused("action_refused");
    assert!(
        v["error"]["message"].as_str().unwrap().contains("already"),
        "{v}"
    );
    let unknown = report("unknown", Some("deploy job 81"), "rp-1").ok();
    assert_eq!(unknown["execution"]["status"], "unknown", "{unknown}");
    assert_eq!(unknown["execution"]["detail"], "deploy job 81");
    let done = report("succeeded", Some("deploy job 81"), "rp-2").ok();
    assert_eq!(done["execution"]["status"], "succeeded", "{done}");
    report("failed", Some("deploy job 81"), "rp-3").refused("action_refused");
    let bad = report("maybe", None, "rp-4");
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    let log = c.ask("log", &c.ana, &[&rid]).ok();
    let events = event_names(&log);
    assert_eq!(
        events,
        [
            "opened",
            "responded",
            "redeemed",
            "execution_reported",
            "execution_reported"
        ]
    );
}

on_both_stores!(
    bound_action_is_redeemed_once_and_reported:
    ask_sqlite_bound_action_is_redeemed_once_and_reported,
    ask_postgres_bound_action_is_redeemed_once_and_reported
);

on_both_stores!(
    every_operation_prints_json_and_refusals_exit_1:
    ask_sqlite_every_operation_prints_json_and_refusals_exit_1,
    ask_postgres_every_operation_prints_json_and_refusals_exit_1
);

on_both_stores!(
    two_processes_race_and_exactly_one_wins:
    ask_sqlite_two_processes_race_and_exactly_one_wins,
    ask_postgres_two_processes_race_and_exactly_one_wins
);

on_both_stores!(
    a_waiting_process_is_woken_by_a_response_from_another:
    ask_sqlite_a_waiting_process_is_woken_by_a_response_from_another,
    ask_postgres_a_waiting_process_is_woken_by_a_response_from_another
);

#[test]
fn ask_a_damaged_or_foreign_database_is_refused_with_exit_1() {
    let dir = TempDir::new("cli-ask");
    let bad = dir.0.join("notes.db");
    std::fs::write(&bad, "not a database\n".repeat(300)).unwrap();
    let v = forms(&[
        "ask",
        "show",
        "--db",
        bad.to_str().unwrap(),
        "--as",
        "ana",
        "req_x",
    ])
    .refused("store_unusable");
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(
        msg.contains("notes.db") && msg.contains("not a SQLite database"),
        "{msg}"
    );
    // The file is left as it was.
    assert_eq!(
        std::fs::read_to_string(&bad).unwrap(),
        "not a database\n".repeat(300)
    );
}

#[test]
fn ask_usage_errors_exit_2() {
    // Each command line, its words separated by single spaces.
    for line in [
        "ask",
        "ask frobnicate --db x.db",
        "ask show --as ana req_x",
        "ask show --db x.db --as ana",
        "ask show --db x.db --as ana a b",
        "ask respond --db x.db --as ana req_x --outcome approved --key k",
        "ask open --db x.db --as ana --conversation c --body b",
        "ask show --db x.db --as ana req_x --verbose",
        "ask show --db x.db --db y.db --as ana req_x",
        "ask join --db x.db --conversation c",
    ] {
        let args: Vec<&str> = line.split(' ').collect();
        let run = forms(&args);
        assert_eq!(run.code, 2, "{args:?}: {} {}", run.stdout, run.stderr);
        assert!(run.stdout.is_empty(), "{args:?}");
        // The message, then the usage of `forms ask` or of the one operation: never the
        // whole of `forms`' usage.
        assert!(run.stderr.contains("Usage: forms ask"), "{}", run.stderr);
        assert!(!run.stderr.contains("forms check"), "{}", run.stderr);
        if let Some(op) = args.get(1).filter(|op| **op != "frobnicate") {
            assert!(
                run.stderr.contains(&format!("Usage: forms ask {op} ")),
                "{}",
                run.stderr
            );
        }
    }
    let dir = TempDir::new("cli-ask");
    let db = dir.0.join("asks.db").display().to_string();
    let c = Chat::new(db);
    let rid = id(&c.open_approval("o"));
    for bad in [
        vec![
            rid.as_str(),
            "--version",
            "one",
            "--outcome",
            "approved",
            "--key",
            "k",
        ],
        vec![
            rid.as_str(),
            "--version",
            "1",
            "--outcome",
            "yes",
            "--key",
            "k",
        ],
    ] {
        assert_eq!(c.ask("respond", &c.ana, &bad).code, 2);
    }
    assert_eq!(c.ask("wait", &c.ana, &[&rid, "--timeout", "soon"]).code, 2);
}

// ------------------------------------------------------------ the guide's example, as written

/// The `sh` block of the guide's "Durable requested replies" section
/// (`docs/05-requested-replies.md`), line by line.
fn readme_ask_example() -> Vec<String> {
    let readme = include_str!("../../docs/05-requested-replies.md");
    let section = readme
        .split("## Durable requested replies")
        .nth(1)
        .expect("the guide has a section on durable requested replies");
    let block = section
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("the section has a sh block");
    block
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

/// A PostgreSQL URL whose connections work in a fresh schema of their own (the guide uses
/// fixed names and retry keys), and the schema to drop.
fn pg_in_fresh_schema(url: &str) -> (String, String) {
    let schema = format!("cli_{}", tag().replace('-', "_"));
    forms_ask::PostgresStore::connect_in_schema(url, Some(&schema)).unwrap();
    let sep = if url.contains('?') { '&' } else { '?' };
    (
        format!("{url}{sep}options=-csearch_path%3D{schema}"),
        schema,
    )
}

fn pg_drop_schema(url: &str, schema: &str) {
    if let Ok(mut c) = postgres::Client::connect(url, postgres::NoTls) {
        let _ = c.batch_execute(&format!("DROP SCHEMA IF EXISTS \"{schema}\" CASCADE"));
    }
}

/// Runs the guide's lines through `sh` in a fresh directory, `forms` on the PATH being this
/// build's, with `req_…` replaced by the ID the last `open` printed (and, on PostgreSQL,
/// `--db asks.db` by the URL). Every line must succeed.
fn readme_example_runs_as_written(db: Option<&str>) {
    let dir = TempDir::new("cli-ask");
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_forms"));
    assert_eq!(bin.file_name().unwrap(), "forms");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut prelude = String::new();
    let mut id: Option<String> = None;
    let mut printed: Vec<(String, Value)> = Vec::new();
    for line in readme_ask_example() {
        if !line.starts_with("forms ") {
            prelude.push_str(&line);
            prelude.push('\n');
            continue;
        }
        let mut run = line.clone();
        if let Some(db) = db {
            run = run.replace("--db asks.db", &format!("--db '{db}'"));
        }
        if run.contains("req_…") {
            run = run.replace("req_…", id.as_deref().expect("an open before"));
        }
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("{prelude}{run}"))
            .current_dir(&dir.0)
            .env("PATH", &path)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(
            out.status.success(),
            "{line}\nstdout: {stdout}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_str(stdout.trim_end()).unwrap();
        if line.starts_with("forms ask open") {
            id = Some(v["id"].as_str().unwrap().to_owned());
        }
        let op = line.split_whitespace().nth(2).unwrap().to_owned();
        printed.push((op, v));
    }
    let get = |op: &str| {
        printed
            .iter()
            .find(|(o, _)| o == op)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("the guide runs no `forms ask {op}`"))
    };
    let joined = get("join");
    let members: Vec<&str> = joined["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["principal"].as_str().unwrap())
        .collect();
    assert_eq!(members, ["agent", "ana", "bob"], "deployer is no member");
    let opened = get("open");
    assert_eq!(
        opened["audience"],
        serde_json::json!(["ana", "bob"]),
        "{opened}"
    );
    assert!(opened["deadline"].is_string(), "{opened}");
    assert_eq!(get("respond")["responder"], "ana");
    assert_eq!(get("wait")["outcome"], "approved");
    assert_eq!(get("redeem")["redemption"]["by"], "deployer");
    let reported = get("report");
    assert_eq!(reported["execution"]["status"], "succeeded", "{reported}");
    assert_eq!(reported["execution"]["by"], "deployer");
}

#[test]
fn ask_sqlite_readme_example_runs_as_written() {
    readme_example_runs_as_written(None);
}

#[test]
fn ask_postgres_readme_example_runs_as_written() {
    if let Some(url) = pg_url() {
        let (db, schema) = pg_in_fresh_schema(&url);
        readme_example_runs_as_written(Some(&db));
        pg_drop_schema(&url, &schema);
    }
}

// ------------------------------------------------------------ retry keys across builds

/// The `forms` binary is built with serde_json's `preserve_order` (forms-mcp turns it on),
/// so it reads `arguments` in the order given; what it records is still the hash of the
/// sorted-key text, the one `forms-ask` computes in a build without that feature
/// (`forms-ask/tests/rules.rs` pins the same text there).
fn retry_keys_hash_the_canonical_input(db: String) {
    use sha2::{Digest, Sha256};
    let c = Chat::new(db.clone());
    let action = r#"{"resource_version":"v7","operation_key":"op-1","executor":"deployer","arguments":{"release":"1.4","env":"staging"}}"#;
    let first = c.open_bound("Deploy?", action, "k-hash").ok();
    let canonical = format!(
        r#"{{"conversation":"{}","request":{{"action":{{"arguments":{{"env":"staging","release":"1.4"}},"executor":"deployer","operation_key":"op-1","resource_version":"v7"}},"audience":null,"body":"Deploy?","choices":null,"expires_at":null,"kind":"approval","title":null}}}}"#,
        c.conversation
    );
    let mut h = Sha256::new();
    for part in ["open", canonical.as_str()] {
        h.update(part.as_bytes());
        h.update([0u8]);
    }
    let expected: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    let asks = forms_ask::Asks::open_location(&db).unwrap();
    let agent = forms_ask::Principal::new(c.agent.as_str()).unwrap();
    let recorded = asks.store().recorded(&agent, "k-hash").unwrap().unwrap();
    assert_eq!(recorded.input_hash, expected);
    // The same input with its keys in another order is the same write.
    let reordered = action.replace(
        r#""arguments":{"release":"1.4","env":"staging"}"#,
        r#""arguments":{"env":"staging","release":"1.4"}"#,
    );
    assert_ne!(reordered, action);
    let again = c.open_bound("Deploy?", &reordered, "k-hash").ok();
    assert_eq!(again, first);
}

on_both_stores!(
    retry_keys_hash_the_canonical_input:
    ask_sqlite_retry_keys_hash_the_canonical_input,
    ask_postgres_retry_keys_hash_the_canonical_input
);

// ------------------------------------------------------------ files that are not ours, or not writable

#[test]
fn ask_a_foreign_database_stays_byte_identical_also_through_a_symlink() {
    let dir = TempDir::new("cli-ask");
    for (name, sql) in [
        (
            "invoices.db",
            "CREATE TABLE invoices (id INTEGER PRIMARY KEY); INSERT INTO invoices VALUES (1);",
        ),
        (
            "notes.db",
            "PRAGMA journal_mode=WAL; CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('x');",
        ),
    ] {
        let file = dir.0.join(name);
        let c = rusqlite::Connection::open(&file).unwrap();
        c.execute_batch(sql).unwrap();
        drop(c);
        let link = dir.0.join(format!("link-{name}"));
        std::os::unix::fs::symlink(&file, &link).unwrap();
        let before = std::fs::read(&file).unwrap();
        for db in [&file, &link] {
            let db = db.to_str().unwrap();
            for args in [
                &["ask", "show", "--db", db, "--as", "ana", "req_x"][..],
                &["ask", "join", "--db", db, "--conversation", "ops", "ana"],
            ] {
                let v = forms(args).refused("store_unusable");
                let msg = v["error"]["message"].as_str().unwrap();
                assert!(msg.contains("another program"), "{msg}");
            }
        }
        assert_eq!(std::fs::read(&file).unwrap(), before, "{name}");
        let beside: Vec<String> = std::fs::read_dir(&dir.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.ends_with("-wal") || n.ends_with("-shm"))
            .collect();
        assert!(beside.is_empty(), "{beside:?}");
    }
}

fn chmod(path: &std::path::Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A copy of `forms` that `nobody` may run.
fn forms_for_nobody() -> std::path::PathBuf {
    static EXE: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    EXE.get_or_init(|| copy_for_nobody(env!("CARGO_BIN_EXE_forms").as_ref(), "forms-cli-ask"))
        .clone()
}

/// `forms` run by a user the file permissions bind (as root: `nobody`).
fn forms_unprivileged(args: &[&str]) -> Run {
    use std::os::unix::process::CommandExt;
    let mut command = if is_root() {
        let mut command = Command::new(forms_for_nobody());
        command.uid(65_534).gid(65_534);
        command
    } else {
        Command::new(env!("CARGO_BIN_EXE_forms"))
    };
    command.args(args).stdin(Stdio::null());
    // A copy just written may still be open for writing in a child another test thread forked
    // and has not yet exec'd: exec then fails with ETXTBSY for a moment.
    let mut tries = 0;
    let out = loop {
        match command.output() {
            Err(e) if e.raw_os_error() == Some(26) && tries < 100 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => break other.unwrap(),
        }
    };
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

#[test]
fn ask_a_read_only_database_can_be_shown_logged_and_waited_on() {
    let outer = TempDir::new("cli-ask");
    let dir = outer.0.join("db");
    std::fs::create_dir(&dir).unwrap();
    let path = dir.join("asks.db");
    let c = Chat::new(path.display().to_string());
    let rid = id(&c.open_approval("o1"));
    c.ask(
        "message",
        &c.agent,
        &[&rid, "--text", "staging is free", "--key", "m1"],
    )
    .ok();
    assert!(!dir.join("asks.db-wal").exists());
    chmod(&path, 0o444);
    chmod(&dir, 0o555);
    let before = std::fs::read(&path).unwrap();
    let db = path.to_str().unwrap();
    let shown = forms_unprivileged(&["ask", "show", "--db", db, "--as", &c.ana, &rid]).ok();
    assert_eq!(
        (shown["state"].as_str(), shown["version"].as_u64()),
        (Some("open"), Some(1))
    );
    let log = forms_unprivileged(&["ask", "log", "--db", db, "--as", &c.ana, &rid]).ok();
    assert_eq!(log["events"].as_array().unwrap().len(), 2, "{log}");
    let waited = forms_unprivileged(&[
        "ask",
        "wait",
        "--db",
        db,
        "--as",
        &c.ana,
        &rid,
        "--timeout",
        "0.2",
    ])
    .ok();
    assert_eq!(waited["state"], "open");
    let v = forms_unprivileged(&[
        "ask",
        "respond",
        "--db",
        db,
        "--as",
        &c.ana,
        &rid,
        "--version",
        "1",
        "--outcome",
        "approved",
        "--key",
        "a1",
    ])
    .refused("store_read_only");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("read-only"),
        "{v}"
    );
    chmod(&dir, 0o755);
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

// ------------------------------------------------------------ one surface: help, expiry, list, members

#[test]
fn ask_op_help_explains_that_operation_from_the_shared_description() {
    use forms_ask::args::{self as a, schema, summary};
    // Each operation's name, with the summary and the schema of its arguments.
    macro_rules! described {
        ($($name:literal: $args:ident,)*) => {
            [$(($name, summary::<a::$args>(), schema::<a::$args>())),*]
        };
    }
    #[rustfmt::skip]
    let ops = described![
        "open": OpenArgs, "show": ShowArgs, "respond": RespondArgs,
        "wait": WaitArgs, "cancel": CancelArgs, "replace": ReplaceArgs,
        "supersede": SupersedeArgs, "log": LogArgs, "message": MessageArgs,
        "redeem": RedeemArgs, "report": ReportArgs, "list": ListArgs,
        "members": MembersArgs, "join": JoinArgs, "remove": RemoveArgs,
        "revoke": RevokeArgs, "restore": RestoreArgs,
    ];
    for (name, summary, schema) in &ops {
        let run = forms(&["ask", name, "--help"]);
        assert_eq!(run.code, 0, "{name}: {}", run.stderr);
        assert!(
            run.stdout.contains(&format!("Usage: forms ask {name} ")),
            "{}",
            run.stdout
        );
        assert!(run.stdout.contains(summary.as_str()), "{}", run.stdout);
        assert!(!run.stdout.contains("forms check"), "{}", run.stdout);
        for field in schema["properties"].as_object().unwrap().keys() {
            let flag = match field.as_str() {
                "id" | "principals" => continue,
                "expires_at" => "expires".to_owned(),
                "timeout_seconds" => "timeout".to_owned(),
                "choices" => "choice".to_owned(),
                "uploads" => "upload".to_owned(),
                other => other.replace('_', "-"),
            };
            assert!(
                run.stdout.contains(&format!("--{flag} ")),
                "{name} --{flag}: {}",
                run.stdout
            );
        }
    }
    // The limits are the library's numbers; the names map to the tool arguments.
    let open = forms(&["ask", "open", "--help"]);
    assert_contains_all(
        &open.stdout,
        &[
            &format!("at most {} characters", forms_ask::BODY_CHARS_MAX),
            "tool argument `expires_at`",
        ],
    );
    let wait = forms(&["ask", "wait", "-h"]);
    assert!(wait
        .stdout
        .contains(&format!("0 to {}", forms_ask::WAIT_SECONDS_MAX)));
    let all = forms(&["ask", "--help"]);
    assert_eq!(all.code, 0);
    for (name, _, _) in &ops {
        assert!(
            all.stdout.contains(&format!("  {name:<10} ")),
            "{}",
            all.stdout
        );
    }
}

fn expires_takes_a_duration_or_an_offset(db: String) {
    let c = Chat::new(db);
    let open = |key: &str, expires: &str| {
        c.ask(
            "open",
            &c.agent,
            &[
                "--conversation",
                &c.conversation,
                "--body",
                "b",
                "--key",
                key,
                "--expires",
                expires,
            ],
        )
    };
    let ms = |v: &Value, f: &str| {
        forms_ask::Timestamp::parse(v[f].as_str().unwrap())
            .unwrap()
            .millis()
    };
    for (key, text, secs) in [
        ("d", "7d", 7 * 86_400),
        ("h", "36h", 36 * 3_600),
        ("m", "90m", 5_400),
    ] {
        let r = open(key, text).ok();
        let ahead = ms(&r, "deadline") - ms(&r, "created_at");
        // Read from the clock just before the creation time.
        assert!(
            (secs * 1000 - 5_000..=secs * 1000).contains(&ahead),
            "{text}: {ahead} ms ahead"
        );
    }
    // An offset names the same instant as its UTC form.
    let at = forms_ask::Timestamp::from_millis(ms(&open("u", "1d").ok(), "created_at") + 3_600_000);
    let utc = at.to_string();
    let (date, time) = utc.trim_end_matches('Z').split_once('T').unwrap();
    let (h, rest) = time.split_once(':').unwrap();
    let shifted: i64 = h.parse::<i64>().unwrap();
    if shifted <= 21 {
        let local = format!("{date}T{:02}:{rest}+02:00", shifted + 2);
        let r = open("o", &local).ok();
        assert_eq!(r["deadline"], Value::String(utc), "{local}");
    }
    for bad in ["7w", "soon", "2026-12-31T12:00:00+25:00", "-1d"] {
        let run = open(&format!("bad-{bad}"), bad);
        assert_eq!(run.code, 2, "{bad}: {}", run.stdout);
        assert!(run.stderr.contains("--expires"), "{}", run.stderr);
    }
    // One wait rule for every surface: at most WAIT_SECONDS_MAX seconds per call.
    let rid = id(&c.open_approval("w"));
    let over = (forms_ask::WAIT_SECONDS_MAX + 1).to_string();
    let run = c.ask("wait", &c.ana, &[&rid, "--timeout", &over]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stderr.contains("0 to 900"), "{}", run.stderr);
}

on_both_stores!(
    expires_takes_a_duration_or_an_offset:
    ask_sqlite_expires_takes_a_duration_or_an_offset,
    ask_postgres_expires_takes_a_duration_or_an_offset
);

fn list_shows_a_principals_requests_open_first(db: String) {
    let c = Chat::new(db);
    let first = c.open_approval("l1");
    let second = c.open_approval("l2");
    let to_ana = c
        .ask(
            "open",
            &c.bob,
            &[
                "--conversation",
                &c.conversation,
                "--body",
                "only ana",
                "--audience",
                &c.ana,
                "--key",
                "l3",
            ],
        )
        .ok();
    c.respond(&c.ana, &id(&first), "1", "approved", None, "r1")
        .ok();
    let list = |who: &str, extra: &[&str]| -> Vec<(String, String)> {
        let mut rest = vec!["--conversation", c.conversation.as_str()];
        rest.extend_from_slice(extra);
        c.ask("list", who, &rest).ok()["requests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                assert!(r.get("deadline").is_some(), "{r}");
                (id(r), r["state"].as_str().unwrap().to_owned())
            })
            .collect()
    };
    let ana = list(&c.ana, &[]);
    assert_eq!(ana.len(), 3, "{ana:?}");
    assert!(ana[..2].iter().all(|(_, s)| s == "open"), "{ana:?}");
    assert_eq!(ana[2], (id(&first), "resolved".to_owned()));
    // The agent opened two; bob opened one, for ana only, and is asked by the agent's two.
    let agent: Vec<String> = list(&c.agent, &[]).into_iter().map(|(i, _)| i).collect();
    assert_eq!(agent.len(), 2);
    assert!(agent.contains(&id(&second)) && !agent.contains(&id(&to_ana)));
    assert_eq!(list(&c.bob, &[]).len(), 3);
    assert_eq!(list(&c.bob, &["--limit", "1"]).len(), 1);
    // A principal with nothing to see in the conversation is refused, not given an empty
    // list after a read.
    c.ask("list", "stranger", &["--conversation", &c.conversation])
        .refused("not_member");
    assert_eq!(
        c.ask(
            "list",
            &c.ana,
            &["--conversation", &c.conversation, "--limit", "501"]
        )
        .code,
        2
    );
}

on_both_stores!(
    list_shows_a_principals_requests_open_first:
    ask_sqlite_list_shows_a_principals_requests_open_first,
    ask_postgres_list_shows_a_principals_requests_open_first
);

fn membership_changes_are_audited_and_only_managers_make_them(db: String) {
    let c = Chat::new(db.clone());
    let mgr = format!("mgr-{}", tag());
    let eve = format!("eve-{}", tag());
    let member = |who: Option<&str>, op: &str, extra: &[&str]| {
        let mut args = vec![
            "ask",
            op,
            "--db",
            db.as_str(),
            "--conversation",
            c.conversation.as_str(),
        ];
        if let Some(w) = who {
            args.extend_from_slice(&["--as", w]);
        }
        args.extend_from_slice(extra);
        forms(&args)
    };
    // The operator (no --as) names a manager; members are not managers.
    member(None, "join", &["--role", "manager", &mgr]).ok();
    member(Some(&c.ana), "join", &[&eve]).refused("not_manager");
    member(Some(&c.ana), "remove", &[&c.bob]).refused("not_manager");
    member(Some(&c.ana), "revoke", &[&c.bob]).refused("not_manager");
    member(Some(&c.ana), "restore", &[&c.bob]).refused("not_manager");
    assert_eq!(
        member(Some(&c.ana), "join", &["--role", "manager", &eve]).code,
        2
    );
    // The manager changes membership, and each change is in the log with its actor.
    member(Some(&mgr), "join", &[&eve]).ok();
    let revoked = member(Some(&mgr), "revoke", &[&c.bob]).ok();
    let bob = |v: &Value| {
        v["members"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["principal"] == c.bob.as_str())
            .unwrap()
            .clone()
    };
    assert_eq!(bob(&revoked)["contact_revoked"], true);
    let restored = member(Some(&mgr), "restore", &[&c.bob]).ok();
    assert_eq!(bob(&restored)["contact_revoked"], false);
    member(Some(&mgr), "remove", &[&eve]).ok();
    let log = member(Some(&c.ana), "members", &[]).ok();
    let events: Vec<(String, String, Value)> = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            assert!(forms_ask::Timestamp::parse(e["at"].as_str().unwrap()).is_some());
            (
                e["principal"].as_str().unwrap().to_owned(),
                e["event"].as_str().unwrap().to_owned(),
                e["actor"].clone(),
            )
        })
        .collect();
    let m = Value::String(mgr.clone());
    assert_eq!(
        events[3..],
        [
            (mgr.clone(), "joined_as_manager".into(), Value::Null),
            (eve.clone(), "joined".into(), m.clone()),
            (c.bob.clone(), "contact_revoked".into(), m.clone()),
            (c.bob.clone(), "contact_restored".into(), m.clone()),
            (eve.clone(), "removed".into(), m),
        ],
        "{log}"
    );
    // A removed principal reads nothing of the conversation and manages nothing.
    member(Some(&eve), "members", &[]).refused("not_member");
    member(None, "remove", &[&mgr]).ok();
    member(Some(&mgr), "join", &[&eve]).refused("not_manager");
}

on_both_stores!(
    membership_changes_are_audited_and_only_managers_make_them:
    ask_sqlite_membership_changes_are_audited_and_only_managers_make_them,
    ask_postgres_membership_changes_are_audited_and_only_managers_make_them
);

/// `forms ARGS`: the exit status and standard output's bytes, as a terminal would get them.
fn forms_bytes(args: &[&str]) -> (i32, Vec<u8>) {
    let out = Command::new(env!("CARGO_BIN_EXE_forms"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), out.stdout)
}

/// The attack of issue 22: `agent` stores a title, body and form (one request) and choices
/// (another) holding CSI, OSC … ST, RLO and DEL, for ana to read; the ids of both.
fn hostile_requests(c: &Chat) -> (String, String) {
    let form = controls::form().to_string();
    let mut ids = Vec::new();
    for (key, extra) in [
        ("hostile-form", vec!["--form", form.as_str()]),
        (
            "hostile-choices",
            vec![
                "--choice",
                controls::CHOICES[0],
                "--choice",
                controls::CHOICES[1],
            ],
        ),
    ] {
        let mut args = vec![
            "ask",
            "open",
            "--db",
            &c.db,
            "--as",
            &c.agent,
            "--conversation",
            &c.conversation,
            "--title",
            controls::TITLE,
            "--body",
            controls::BODY,
            "--key",
            key,
        ];
        args.extend(extra);
        let (code, out) = forms_bytes(&args);
        assert_eq!(code, 0, "{}", String::from_utf8_lossy(&out));
        let r = controls::assert_escaped("ask open", &out);
        controls::assert_holds_payload("ask open", &r, key == "hostile-form");
        ids.push(id(&r));
    }
    (ids[0].clone(), ids[1].clone())
}

/// `forms ask OP --as WHO REST` on the hostile requests' store: the line, checked byte by
/// byte and parsed.
fn hostile_line(c: &Chat, op: &str, who: &str, rest: &[&str]) -> Value {
    let mut args = vec!["ask", op, "--db", &c.db, "--as", who];
    args.extend_from_slice(rest);
    let (code, out) = forms_bytes(&args);
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&out));
    controls::assert_escaped(&format!("ask {op}"), &out)
}

#[test]
fn ask_show_escapes_terminal_controls_in_stored_text() {
    let dir = TempDir::new("cli-ask");
    let c = Chat::new(dir.0.join("asks.db").display().to_string());
    let (with_form, with_choices) = hostile_requests(&c);
    let r = hostile_line(&c, "show", &c.ana, &[&with_form]);
    controls::assert_holds_payload("ask show", &r, true);
    let r = hostile_line(&c, "show", &c.ana, &[&with_choices]);
    controls::assert_holds_payload("ask show", &r, false);
}

#[test]
fn ask_list_escapes_terminal_controls_in_stored_text() {
    let dir = TempDir::new("cli-ask");
    let c = Chat::new(dir.0.join("asks.db").display().to_string());
    let (with_form, with_choices) = hostile_requests(&c);
    let list = hostile_line(&c, "list", &c.ana, &["--conversation", &c.conversation]);
    let listed = list["requests"].as_array().unwrap();
    assert_eq!(listed.len(), 2, "{list}");
    for r in listed {
        assert_eq!(r["title"], controls::TITLE, "{list}");
        assert_eq!(r["body"], controls::BODY, "{list}");
        assert!(r["id"] == with_form.as_str() || r["id"] == with_choices.as_str());
    }
}

#[test]
fn ask_wait_escapes_terminal_controls_in_stored_text() {
    let dir = TempDir::new("cli-ask");
    let c = Chat::new(dir.0.join("asks.db").display().to_string());
    let (with_form, with_choices) = hostile_requests(&c);
    // Open (the wait times out), and answered with the hostile choice.
    let r = hostile_line(&c, "wait", &c.ana, &[&with_form, "--timeout", "0.1"]);
    controls::assert_holds_payload("ask wait", &r, true);
    let answered = hostile_line(
        &c,
        "respond",
        &c.ana,
        &answer_v1(&with_choices, controls::CHOICES[1], "r1"),
    );
    assert_eq!(answered["answer"], controls::CHOICES[1], "{answered}");
    let r = hostile_line(&c, "wait", &c.agent, &[&with_choices, "--timeout", "5"]);
    controls::assert_holds_payload("ask wait", &r, false);
    assert_eq!(r["answer"], controls::CHOICES[1], "{r}");
}

#[test]
fn ask_log_escapes_terminal_controls_in_stored_text() {
    let dir = TempDir::new("cli-ask");
    let c = Chat::new(dir.0.join("asks.db").display().to_string());
    let (with_form, _) = hostile_requests(&c);
    let said = hostile_line(
        &c,
        "message",
        &c.agent,
        &[&with_form, "--text", controls::MESSAGE, "--key", "m1"],
    );
    assert_eq!(said["detail"]["text"], controls::MESSAGE, "{said}");
    let log = hostile_line(&c, "log", &c.ana, &[&with_form]);
    let events = log["events"].as_array().unwrap();
    assert!(
        events
            .iter()
            .any(|e| e["detail"]["text"] == controls::MESSAGE),
        "{log}"
    );
}
/// A durable form's `files` answer from `forms ask respond` (issue 22, finding 4): a path in
/// the answer is refused with how to send the file, nothing stored; `--upload PATH` sends the
/// file's bytes (within the limit), and the requester's decode gets its own copy of them.
fn files_are_uploaded_never_named_by_path(db: String) {
    #[derive(forms_runtime::Form, Debug, PartialEq)]
    #[form(message = "Send the quarter's report")]
    struct Report {
        #[form(files, title = "The report")]
        data: Vec<forms_runtime::FileRef>,
    }
    use forms_runtime::StaticForm;
    let chat = Chat::new(db.clone());
    let form = Report::form().data().to_json();
    let opened = chat
        .ask(
            "open",
            &chat.agent,
            &[
                "--conversation",
                &chat.conversation,
                "--body",
                "Send the report",
                "--form",
                &form,
                "--key",
                "open-1",
            ],
        )
        .ok();
    let rid = id(&opened);
    let stored = || {
        let asks = forms_ask::Asks::open_location(&db).unwrap();
        let rid = forms_ask::RequestId::new(rid.clone()).unwrap();
        asks.store().uploads(&rid).unwrap().len()
    };
    let respond = |answer: &str, uploads: &[&str], key: &str| {
        let mut rest = answer_v1(&rid, answer, key);
        for u in uploads {
            rest.extend_from_slice(&["--upload", u]);
        }
        chat.ask("respond", &chat.ana, &rest)
    };

    // A path is refused, saying how to send the file.
    let refused = respond(
        r#"{"action":"accept","content":{"data":["file:///etc/shadow"]}}"#,
        &[],
        "k1",
    )
    .refused("invalid_response");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("--upload PATH"), "{message}");
    assert!(message.contains("upload:<name>"), "{message}");
    let shown = chat.ask("show", &chat.ana, &[&rid]).ok();
    assert_eq!(shown["state"], "open", "{shown}");
    assert_eq!(stored(), 0);

    // Over the limit: refused before anything is read into the store.
    let dir = TempDir::new("cli-ask");
    let big = dir.0.join("big.csv");
    std::fs::write(&big, vec![b'x'; forms_ask::UPLOAD_BYTES_MAX + 1]).unwrap();
    let refused = respond(
        r#"{"action":"accept","content":{"data":["upload:big.csv"]}}"#,
        &[big.to_str().unwrap()],
        "k2",
    )
    .refused("invalid_arguments");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains(&forms_ask::UPLOAD_BYTES_MAX.to_string()),
        "{refused}"
    );
    assert_eq!(stored(), 0);

    // A few KiB sent with `--upload`: accepted, and the requester gets its own copy.
    let sent: Vec<u8> = (0..5000usize).map(|i| (i * 131 % 251) as u8).collect();
    let file = dir.0.join("q3 sales.csv");
    std::fs::write(&file, &sent).unwrap();
    let done = respond(
        r#"{"action":"accept","content":{"data":["upload:q3 sales.csv"]}}"#,
        &[file.to_str().unwrap()],
        "k3",
    )
    .ok();
    assert_eq!(done["state"], "resolved", "{done}");
    let uri = done["response"]["content"]["data"][0].as_str().unwrap();
    assert_eq!(
        uri,
        format!("file:///forms-ask/uploads/{rid}/0/q3%20sales.csv")
    );
    assert!(!uri.contains(dir.0.to_str().unwrap()));
    assert_eq!(stored(), 1);
    // The responder's file may go away: the requester reads the store's copy.
    std::fs::remove_file(&file).unwrap();
    let mine = TempDir::new("cli-ask");
    let asks = forms_ask::Asks::open_location(&db).unwrap();
    let me = asks.as_principal(&forms_ask::Principal::new(chat.agent.clone()).unwrap());
    let pending = forms_ask::FormRequest::<Report>::resume(
        &me,
        &forms_ask::RequestId::new(rid.clone()).unwrap(),
    )
    .unwrap()
    .uploads_dir(&mine.0);
    let reply = pending.show(&me).unwrap();
    let path = reply.accepted().unwrap().data[0]
        .local_path()
        .unwrap()
        .to_path_buf();
    assert!(path.starts_with(&mine.0), "{}", path.display());
    assert_eq!(std::fs::read(&path).unwrap(), sent);
}

on_both_stores!(
    files_are_uploaded_never_named_by_path:
    ask_sqlite_files_are_uploaded_never_named_by_path,
    ask_postgres_files_are_uploaded_never_named_by_path
);
