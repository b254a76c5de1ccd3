//! Faults and load, with real child processes on one database, on SQLite and PostgreSQL:
//! two responders racing from two processes, a process killed with SIGKILL right after a
//! committed response and one killed mid-transaction, 1,000 requests opened and answered by
//! 8 concurrent workers, and a corrupted or foreign database refused at open.
//!
//! The child processes are this test binary run again with `FORMS_ASK_CHILD` set: the
//! `child_process` entry point below then plays the role it names (without the variable it
//! has nothing to do and returns).
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod common;

use common::{kinds, log_of, new_body, pg_drop_schema, pg_schema, pg_url, TempDir};
use forms_ask::store::sqlite::SqliteOptions;
use forms_ask::{
    AskError, Asks, Clock, ConversationId, EventKind, FormRequest, ManualClock, NewRequest,
    Outcome, PostgresStore, Principal, Quotas, Request, RequestId, SqliteStore, State, Store,
    StoreError, Timestamp,
};
use forms_runtime::{Form, StaticForm};
use forms_test_kit::unprivileged::{copy_for_nobody, is_root};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One database for a test, and how to reach it from another process.
struct Db {
    cfg: Value,
    _dir: Option<TempDir>,
}

impl Db {
    fn sqlite() -> Db {
        let dir = TempDir::new("faults");
        let path = dir.path().join("asks.db");
        Db {
            cfg: json!({ "store": "sqlite", "path": path }),
            _dir: Some(dir),
        }
    }

    fn postgres() -> Option<Db> {
        let url = pg_url()?;
        Some(Db {
            cfg: json!({ "store": "postgres", "url": url, "schema": pg_schema() }),
            _dir: None,
        })
    }

    fn asks(&self) -> Asks {
        open_from(&self.cfg, None)
    }

    /// A connection straight to the database, past the store: SQLite's, or PostgreSQL's
    /// with the test's schema first on the search path.
    fn connect(&self) -> Direct {
        match self.cfg["store"].as_str().unwrap() {
            "sqlite" => Direct::Sqlite(
                rusqlite::Connection::open(self.cfg["path"].as_str().unwrap()).unwrap(),
            ),
            _ => {
                let mut c = ::postgres::Client::connect(
                    self.cfg["url"].as_str().unwrap(),
                    ::postgres::NoTls,
                )
                .unwrap();
                let schema = self.cfg["schema"].as_str().unwrap();
                c.batch_execute(&format!("SET search_path TO \"{schema}\""))
                    .unwrap();
                Direct::Postgres(Box::new(c))
            }
        }
    }

    /// Runs SQL straight on the database, past the store.
    fn exec(&self, sql: &str) {
        match self.connect() {
            Direct::Sqlite(c) => c.execute_batch(sql).unwrap(),
            Direct::Postgres(mut c) => c.batch_execute(sql).unwrap(),
        }
    }

    /// An engine on this database reading the time from `clock`.
    fn asks_with_clock(&self, clock: &Arc<ManualClock>) -> Asks {
        let store: Arc<dyn Store> = match self.cfg["store"].as_str().unwrap() {
            "sqlite" => Arc::new(SqliteStore::open(self.cfg["path"].as_str().unwrap()).unwrap()),
            _ => Arc::new(
                PostgresStore::connect_in_schema(
                    self.cfg["url"].as_str().unwrap(),
                    Some(self.cfg["schema"].as_str().unwrap()),
                )
                .unwrap(),
            ),
        };
        Asks::with_clock(store, Arc::clone(clock) as Arc<dyn Clock>)
    }

    fn count(&self, sql: &str) -> i64 {
        match self.connect() {
            Direct::Sqlite(c) => c.query_row(sql, [], |r| r.get(0)).unwrap(),
            Direct::Postgres(mut c) => c.query_one(sql, &[]).unwrap().get(0),
        }
    }
}

/// A connection straight to a test database, past the store.
enum Direct {
    Sqlite(rusqlite::Connection),
    Postgres(Box<::postgres::Client>),
}

impl Drop for Db {
    fn drop(&mut self) {
        if self.cfg["store"] == "postgres" {
            pg_drop_schema(
                self.cfg["url"].as_str().unwrap(),
                self.cfg["schema"].as_str().unwrap(),
            );
        }
    }
}

fn open_from(cfg: &Value, pause: Option<Duration>) -> Asks {
    match cfg["store"].as_str().unwrap() {
        "sqlite" => Asks::new(
            SqliteStore::open_with(
                cfg["path"].as_str().unwrap(),
                SqliteOptions {
                    pause_before_commit: pause,
                },
            )
            .unwrap(),
        ),
        _ => {
            let mut store = PostgresStore::connect_in_schema(
                cfg["url"].as_str().unwrap(),
                Some(cfg["schema"].as_str().unwrap()),
            )
            .unwrap();
            if let Some(p) = pause {
                store = store.pause_before_commit(p);
            }
            Asks::new(store)
        }
    }
}

/// The form of the form-request faults.
#[derive(Form, Debug, PartialEq)]
#[form(message = "Rollout checklist")]
struct Rollout {
    /// First region
    region: Region,
    /// Notes
    notes: Option<String>,
}

#[derive(Form, Debug, PartialEq)]
#[form(rename_all = "snake_case")]
enum Region {
    Eu,
    Us,
}

const ROLLOUT_ANSWER: &str = r#"{"action":"accept","content":{"region":"us","notes":"after 6pm"}}"#;

fn p(name: &str) -> Principal {
    Principal::new(name).unwrap()
}

fn chat() -> ConversationId {
    ConversationId::new("ops").unwrap()
}

/// A conversation with agent, ana and bob, and an open approval in it.
/// Joins agent, ana and bob to the conversation.
fn join_members(asks: &Asks) {
    for m in ["agent", "ana", "bob"] {
        asks.join(&chat(), &p(m)).unwrap();
    }
}

fn setup(db: &Db, key: &str) -> Request {
    let asks = db.asks();
    join_members(&asks);
    asks.as_principal(&p("agent"))
        .open(&chat(), NewRequest::approval("Deploy 1.4?"), key)
        .unwrap()
}

// ------------------------------------------------------------------ the child side

/// Writes a line straight to the process's standard output, past the test harness.
fn emit(line: &str) {
    use std::io::Write;
    match std::fs::OpenOptions::new().write(true).open("/dev/stdout") {
        Ok(mut out) => {
            out.write_all(format!("{line}\n").as_bytes()).unwrap();
            out.flush().unwrap();
        }
        // A child running as another user may not reopen its parent's pipe; the harness
        // runs it with --nocapture, so its own standard output reaches the pipe too.
        Err(_) => {
            let mut out = std::io::stdout().lock();
            out.write_all(format!("{line}\n").as_bytes()).unwrap();
            out.flush().unwrap();
        }
    }
}

/// Entry point of the child processes; without `FORMS_ASK_CHILD` there is nothing to do.
#[test]
fn child_process() {
    let Ok(raw) = std::env::var("FORMS_ASK_CHILD") else {
        return;
    };
    let task: Value = serde_json::from_str(&raw).unwrap();
    let cfg = &task["db"];
    let id = RequestId::new(task["id"].as_str().unwrap()).unwrap();
    let key = task["key"].as_str().unwrap();
    match task["role"].as_str().unwrap() {
        "respond-and-hang" => {
            let asks = open_from(cfg, None);
            let r = asks
                .as_principal(&p("ana"))
                .respond(&id, 1, Outcome::Approved, Some("ship it"), key)
                .unwrap();
            emit(&format!("COMMITTED {}", serde_json::to_string(&r).unwrap()));
            std::thread::sleep(Duration::from_secs(120)); // killed here
        }
        "replace-paused" => {
            let asks = open_from(cfg, Some(Duration::from_secs(30)));
            emit("STARTING");
            let _ = asks
                .as_principal(&p("agent"))
                .replace(&id, 1, new_body("Deploy 1.5?"), key);
            emit("FINISHED"); // never reached: killed inside the transaction
        }
        "race" => {
            let asks = open_from(cfg, None);
            let who = p(task["principal"].as_str().unwrap());
            let outcome = Outcome::parse(task["outcome"].as_str().unwrap()).unwrap();
            let go = std::path::PathBuf::from(task["go"].as_str().unwrap());
            let me = asks.as_principal(&who);
            me.show(&id).unwrap(); // connection warm before the start
            ready_then_wait_for(&go);
            let out = match me.respond(&id, 1, outcome, None, key) {
                Ok(r) => json!({ "ok": r }),
                Err(e) => json!({ "code": e.code(), "latest": e.latest() }),
            };
            emit(&format!("RESULT {out}"));
        }
        "read-only" => {
            // Everything a reader does, on a file this process may not write.
            let path = cfg["path"].as_str().unwrap();
            let asks = Asks::open_location(path).unwrap();
            let ana = asks.as_principal(&p("ana"));
            let expired = RequestId::new(task["expired"].as_str().unwrap()).unwrap();
            let shown = ana.show(&id).unwrap();
            let log = ana.log(&id, None, 200).unwrap().events;
            let waited = ana.wait(&id, Duration::from_millis(200)).unwrap();
            let past = ana.show(&expired).unwrap();
            let refused = ana
                .respond(&id, shown.version, Outcome::Approved, None, key)
                .unwrap_err();
            let joined = asks.join(&chat(), &p("carol")).unwrap_err();
            let out = json!({
                "shown": shown, "log": log.len(), "waited": waited.state, "past": past.state,
                "refused": refused.code(), "message": refused.to_string(),
                "joined": joined.code(),
            });
            emit(&format!("RESULT {out}"));
        }
        "open-form" => {
            let asks = open_from(cfg, None);
            let pending = asks
                .as_principal(&p("agent"))
                .open_form(
                    &chat(),
                    &Rollout::form(),
                    NewRequest::question("When you are back: the rollout checklist"),
                    key,
                )
                .unwrap();
            emit(&format!("OPENED {}", pending.id()));
            std::thread::sleep(Duration::from_secs(120)); // killed here
        }
        "respond-form-and-hang" => {
            let asks = open_from(cfg, None);
            let r = asks
                .as_principal(&p("ana"))
                .respond_form(&id, 1, ROLLOUT_ANSWER, key)
                .unwrap();
            emit(&format!("COMMITTED {}", serde_json::to_string(&r).unwrap()));
            std::thread::sleep(Duration::from_secs(120)); // killed here
        }
        "resume-form" => {
            let asks = open_from(cfg, None);
            let me = asks.as_principal(&p("agent"));
            let pending = FormRequest::<Rollout>::resume(&me, &id).unwrap();
            let reply = pending.wait(&me, Duration::from_secs(30)).unwrap();
            emit(&format!("RESULT {:?}", reply.outcome));
        }
        "race-form" => {
            let asks = open_from(cfg, None);
            let who = p(task["principal"].as_str().unwrap());
            let go = std::path::PathBuf::from(task["go"].as_str().unwrap());
            let me = asks.as_principal(&who);
            me.show(&id).unwrap(); // connection warm before the start
            ready_then_wait_for(&go);
            let answer = json!({"action": "accept",
                "content": {"region": "eu", "notes": format!("by {who}")}});
            let out = match me.respond_form(&id, 1, &answer.to_string(), key) {
                Ok(r) => json!({ "ok": r }),
                Err(e) => json!({ "code": e.code(), "latest": e.latest() }),
            };
            emit(&format!("RESULT {out}"));
        }
        other => panic!("unknown role {other}"),
    }
}

fn spawn_child(task: Value) -> (Child, BufReader<ChildStdout>) {
    spawn_child_as(task, false)
}

/// A copy of this test binary that `nobody` may run.
fn exe_for_nobody() -> std::path::PathBuf {
    static EXE: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    EXE.get_or_init(|| copy_for_nobody(&std::env::current_exe().unwrap(), "forms-ask-faults"))
        .clone()
}

/// Spawns a child; with `unprivileged` and as root, as the user `nobody` (65534), so that
/// file permissions bind it.
fn spawn_child_as(task: Value, unprivileged: bool) -> (Child, BufReader<ChildStdout>) {
    use std::os::unix::process::CommandExt;
    let unprivileged = unprivileged && is_root();
    let exe = if unprivileged {
        exe_for_nobody()
    } else {
        std::env::current_exe().unwrap()
    };
    let mut command = Command::new(exe);
    command
        .args([
            "--exact",
            "child_process",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("FORMS_ASK_CHILD", task.to_string())
        .env_remove("CI") // the child needs no PostgreSQL check of its own
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    if unprivileged {
        command.uid(65_534).gid(65_534);
    }
    // A copy just written may still be open for writing in a child another test thread forked
    // and has not yet exec'd: exec then fails with ETXTBSY for a moment.
    let mut tries = 0;
    let mut child = loop {
        match command.spawn() {
            Err(e) if e.raw_os_error() == Some(26) && tries < 100 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(20));
            }
            other => break other.unwrap(),
        }
    };
    let out = BufReader::new(child.stdout.take().unwrap());
    (child, out)
}

/// The rest of the first line holding `marker`.
fn read_marker(out: &mut BufReader<ChildStdout>, marker: &str) -> String {
    let mut line = String::new();
    loop {
        line.clear();
        assert!(
            out.read_line(&mut line).unwrap() > 0,
            "the child ended before printing {marker}"
        );
        // The harness may have printed `test child_process ... ` on the same line.
        if let Some(at) = line.find(marker) {
            return line[at + marker.len()..].trim().to_owned();
        }
    }
}

// ------------------------------------------------------------------ the faults

fn sigkill_right_after_a_committed_response_keeps_it_and_replays_the_retry(db: &Db) {
    let r = setup(db, "open-1");
    let (mut child, mut out) = spawn_child(json!({
        "role": "respond-and-hang", "db": db.cfg, "id": r.id, "key": "respond-1",
    }));
    let committed: Request = serde_json::from_str(&read_marker(&mut out, "COMMITTED ")).unwrap();
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    // Restart: a fresh engine on the same database.
    let asks = db.asks();
    let now = asks.as_principal(&p("agent")).show(&r.id).unwrap();
    assert_eq!(now, committed);
    assert_eq!(
        (now.state, now.outcome),
        (State::Resolved, Some(Outcome::Approved))
    );
    let retried = asks
        .as_principal(&p("ana"))
        .respond(&r.id, 1, Outcome::Approved, Some("ship it"), "respond-1")
        .unwrap();
    assert_eq!(retried, committed);
    assert_eq!(
        kinds(&log_of(&asks, &p("agent"), &r.id)),
        [EventKind::Opened, EventKind::Responded]
    );
}

fn sigkill_mid_transaction_leaves_nothing_half_written(db: &Db) {
    let r = setup(db, "open-1");
    let (mut child, mut out) = spawn_child(json!({
        "role": "replace-paused", "db": db.cfg, "id": r.id, "key": "replace-1",
    }));
    read_marker(&mut out, "STARTING");
    std::thread::sleep(Duration::from_millis(1500)); // inside the paused transaction
    child.kill().unwrap();
    child.wait().unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    assert!(!rest.contains("FINISHED"), "the child finished: {rest}");
    let asks = db.asks();
    let me = asks.as_principal(&p("agent"));
    assert_eq!(me.show(&r.id).unwrap(), r);
    assert_eq!(me.log(&r.id, None, 200).unwrap().events.len(), 1);
    assert_eq!(db.count("SELECT count(*) FROM requests"), 1);
    assert_eq!(db.count("SELECT count(*) FROM events"), 1);
    assert_eq!(db.count("SELECT count(*) FROM idempotency"), 1); // the open's key only
                                                                 // The retry key was not recorded: the same replace now runs, once.
    let pair = me
        .replace(&r.id, 1, new_body("Deploy 1.5?"), "replace-1")
        .unwrap();
    assert_eq!(pair.previous.state, State::Superseded);
    assert_eq!(db.count("SELECT count(*) FROM requests"), 2);
}

/// In a child: says READY, then waits (at most 60 s) for the file `go` to exist.
fn ready_then_wait_for(go: &std::path::Path) {
    emit("READY");
    let give_up = Instant::now() + Duration::from_secs(60);
    while !go.exists() && Instant::now() < give_up {
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// Starts the racing children at once (when all are READY, by writing `go`) and reads their
/// results: exactly one wins, the other is refused with a conflict. The winner's request and
/// the loser's refusal.
fn race_results(
    round: usize,
    children: &mut [(Child, BufReader<ChildStdout>)],
    go: &std::path::Path,
) -> (Value, Value) {
    for (_, out) in children.iter_mut() {
        read_marker(out, "READY");
    }
    std::fs::write(go, b"go").unwrap();
    let results: Vec<Value> = children
        .iter_mut()
        .map(|(child, out)| {
            let v = serde_json::from_str(&read_marker(out, "RESULT ")).unwrap();
            child.wait().unwrap();
            v
        })
        .collect();
    let winners: Vec<&Value> = results.iter().filter_map(|v| v.get("ok")).collect();
    assert_eq!(winners.len(), 1, "round {round}: {results:?}");
    let loser = results.iter().find(|v| v.get("ok").is_none()).unwrap();
    assert_eq!(loser["code"], "conflict", "{loser}");
    (winners[0].clone(), loser.clone())
}

fn race_two_processes_exactly_one_wins_and_the_other_sees_the_winner(db: &Db) {
    let go_dir = TempDir::new("go");
    for round in 0..3 {
        let r = setup(db, &format!("open-{round}"));
        let go = go_dir.path().join(format!("go-{round}"));
        let mut children: Vec<_> = [("ana", "approved"), ("bob", "denied")]
            .into_iter()
            .map(|(who, outcome)| {
                spawn_child(json!({
                    "role": "race", "db": db.cfg, "id": r.id, "key": format!("race-{round}"),
                    "principal": who, "outcome": outcome, "go": go,
                }))
            })
            .collect();
        let (winner, loser) = race_results(round, &mut children, &go);
        assert_eq!(loser["latest"], winner);
        let stored = db.asks().as_principal(&p("agent")).show(&r.id).unwrap();
        assert_eq!(serde_json::to_value(&stored).unwrap(), winner);
    }
}

/// A form request across processes: the asking process opens it and is killed (SIGKILL);
/// the responding process is killed right after its response commits; a restarted asking
/// process rebuilds the typed handle from the request ID and decodes the saved answer.
fn form_request_survives_sigkill_after_the_response_and_the_asker_restarting(db: &Db) {
    setup(db, "open-1"); // the conversation
    let (mut asker, mut out) = spawn_child(json!({
        "role": "open-form", "db": db.cfg, "id": "unused", "key": "open-form-1",
    }));
    let id = read_marker(&mut out, "OPENED ");
    asker.kill().unwrap(); // SIGKILL the asking process
    asker.wait().unwrap();
    // Committed with its form before the kill.
    assert_eq!(
        db.count(r#"SELECT count(*) FROM requests WHERE doc LIKE '%"form":{%'"#),
        1
    );
    let (mut child, mut out) = spawn_child(json!({
        "role": "respond-form-and-hang", "db": db.cfg, "id": id, "key": "respond-1",
    }));
    let committed: Request = serde_json::from_str(&read_marker(&mut out, "COMMITTED ")).unwrap();
    child.kill().unwrap(); // SIGKILL right after the commit
    child.wait().unwrap();
    assert_eq!(
        committed.response,
        Some(serde_json::from_str::<Value>(ROLLOUT_ANSWER).unwrap())
    );
    // Nothing was lost: the saved response, and the retry replays it.
    let asks = db.asks();
    let rid = RequestId::new(id.as_str()).unwrap();
    assert_eq!(
        asks.as_principal(&p("agent")).show(&rid).unwrap(),
        committed
    );
    let retried = asks
        .as_principal(&p("ana"))
        .respond_form(&rid, 1, ROLLOUT_ANSWER, "respond-1")
        .unwrap();
    assert_eq!(retried, committed);
    // The asking process, restarted, decodes the answer into its type.
    let (mut resumed, mut out) = spawn_child(json!({
        "role": "resume-form", "db": db.cfg, "id": id, "key": "unused",
    }));
    let decoded = read_marker(&mut out, "RESULT ");
    resumed.wait().unwrap();
    assert_eq!(
        decoded,
        format!(
            "{:?}",
            Some(forms_runtime::Outcome::Accepted(Rollout {
                region: Region::Us,
                notes: Some("after 6pm".into()),
            }))
        )
    );
}

/// Two processes answer one form request at once: exactly one response is saved, and the
/// other gets the conflict carrying the winner's saved answer.
fn form_race_two_processes_the_loser_gets_the_winners_saved_answer(db: &Db) {
    setup(db, "open-1");
    let go_dir = TempDir::new("go-form");
    for round in 0..3 {
        let r = db
            .asks()
            .as_principal(&p("agent"))
            .open(
                &chat(),
                NewRequest::question("Rollout?").form(Rollout::form().data()),
                &format!("open-form-{round}"),
            )
            .unwrap();
        let go = go_dir.path().join(format!("go-{round}"));
        let mut children: Vec<_> = ["ana", "bob"]
            .into_iter()
            .map(|who| {
                spawn_child(json!({
                    "role": "race-form", "db": db.cfg, "id": r.id,
                    "key": format!("race-{round}"), "principal": who, "go": go,
                }))
            })
            .collect();
        let (winner, loser) = race_results(round, &mut children, &go);
        assert_eq!(loser["latest"], winner);
        assert_eq!(loser["latest"]["response"]["content"]["region"], "eu");
        let stored = db.asks().as_principal(&p("agent")).show(&r.id).unwrap();
        assert_eq!(serde_json::to_value(&stored).unwrap(), winner);
    }
}

fn load_1000_requests_opened_and_answered_by_8_concurrent_workers(db: &Db) {
    const WORKERS: usize = 8;
    const EACH: usize = 125;
    setup(db, "warm-up");
    let started = Instant::now();
    std::thread::scope(|s| {
        for w in 0..WORKERS {
            let asks = db.asks(); // each worker has its own connection
            s.spawn(move || {
                let agent = asks.as_principal(&p("agent"));
                let ana = asks.as_principal(&p("ana"));
                for i in 0..EACH {
                    let r = agent
                        .open(
                            &chat(),
                            NewRequest::question(format!("q {w}/{i}")),
                            &format!("o-{w}-{i}"),
                        )
                        .unwrap();
                    let done = ana
                        .respond(
                            &r.id,
                            1,
                            Outcome::Answered,
                            Some("yes"),
                            &format!("r-{w}-{i}"),
                        )
                        .unwrap();
                    assert_eq!(done.version, 2);
                }
            });
        }
    });
    eprintln!(
        "load: {} requests by {WORKERS} workers in {:?}",
        WORKERS * EACH,
        started.elapsed()
    );
    let n = i64::try_from(WORKERS * EACH).unwrap();
    assert_eq!(db.count("SELECT count(*) FROM requests"), n + 1);
    assert_eq!(
        db.count("SELECT count(*) FROM requests WHERE state = 'resolved'"),
        n
    );
    assert_eq!(db.count("SELECT count(*) FROM events"), 2 * n + 1);
    assert_eq!(db.count("SELECT count(*) FROM idempotency"), 2 * n + 1);
}

macro_rules! on_both_stores {
    ($($fault:ident),* $(,)?) => {
        mod sqlite {
            $( #[test] fn $fault() { super::$fault(&super::Db::sqlite()) } )*
        }
        mod postgres {
            $( #[test] fn $fault() { if let Some(db) = super::Db::postgres() { super::$fault(&db) } } )*
        }
    };
}

/// A database from before the high-water mark (no event times) is upgraded on open, and
/// the mark is the newest event it already held: a request that expired unread stays
/// expired for a clock that is behind.
fn upgrade_takes_the_high_water_mark_from_the_events_already_stored(db: &Db) {
    let t0 = Timestamp::parse("2026-12-01T12:00:00Z").unwrap();
    let clock = Arc::new(ManualClock::at(t0));
    let deadline = t0.plus(Duration::from_secs(3600));
    let later = t0.plus(Duration::from_secs(7200));
    let r = {
        let asks = db.asks_with_clock(&clock);
        join_members(&asks);
        let me = asks.as_principal(&p("agent"));
        let r = me
            .open(
                &chat(),
                NewRequest::approval("Deploy?").expires_at(deadline),
                "o1",
            )
            .unwrap();
        clock.set(later);
        let lunch = me
            .open(&chat(), NewRequest::question("Lunch?"), "o2")
            .unwrap();
        asks.as_principal(&p("ana"))
            .message(&lunch.id, "Noon?", "m1")
            .unwrap();
        r
    };
    // Back to the previous schema, as an earlier version left it.
    db.exec(if db.cfg["store"] == "sqlite" {
        "DROP TABLE uploads; DROP INDEX events_messages; ALTER TABLE events DROP COLUMN message_by;
         DROP TABLE request_names; DROP TABLE listing;
         DROP INDEX events_by_at; ALTER TABLE events DROP COLUMN at; DROP TABLE once_keys;
         DROP INDEX requests_by_conversation; DROP TABLE member_events;
         ALTER TABLE members DROP COLUMN manager;
         PRAGMA user_version = 1;"
    } else {
        "DROP TABLE uploads; DROP INDEX events_messages; ALTER TABLE events DROP COLUMN message_by;
         DROP TABLE request_names; DROP INDEX requests_by_requester;
         ALTER TABLE requests DROP COLUMN brief, DROP COLUMN has_form,
             DROP COLUMN response_action, DROP COLUMN updated_at, DROP COLUMN expires_at,
             DROP COLUMN requester;
         DROP FUNCTION forms_ask_commit(TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, TEXT[], TEXT[],
             BIGINT[], TEXT[], TEXT[], BIGINT[], TEXT[], TEXT[], TEXT[], BOOLEAN[], TEXT[],
             BIGINT[], BIGINT[], TEXT[], TEXT[], TEXT[], TEXT[], TEXT[]);
         DROP TRIGGER events_at ON events; DROP FUNCTION forms_ask_events_at();
         DROP FUNCTION forms_ask_event_at(TEXT); ALTER TABLE events DROP COLUMN at;
         DROP TABLE forms_ask_watched; DROP TABLE forms_ask_once;
         DROP INDEX requests_by_conversation; DROP TABLE member_events;
         ALTER TABLE members DROP COLUMN manager;
         DELETE FROM forms_ask_schema WHERE version >= 3;"
    });
    clock.set(t0);
    let asks = db.asks_with_clock(&clock);
    let seen = asks.as_principal(&p("bob")).show(&r.id).unwrap();
    assert_eq!((seen.state, seen.updated_at), (State::Expired, later));
    assert_eq!(db.count("SELECT count(*) FROM events WHERE at IS NULL"), 0);
    // The list columns were filled from the documents already stored: lists, quotas and
    // message counts read them.
    let unlisted = if db.cfg["store"] == "sqlite" {
        "SELECT count(*) FROM requests WHERE id NOT IN (SELECT id FROM listing)"
    } else {
        "SELECT count(*) FROM requests WHERE brief IS NULL"
    };
    assert_eq!(db.count(unlisted), 0);
    let listed = asks.as_principal(&p("bob")).list(&chat(), 10).unwrap();
    let bodies: Vec<&str> = listed.iter().map(|l| l.request.body.as_str()).collect();
    assert_eq!(bodies, ["Lunch?", "Deploy?"]);
    assert_eq!(
        db.count("SELECT count(*) FROM events WHERE message_by = 'ana'"),
        1
    );
}

on_both_stores!(
    upgrade_takes_the_high_water_mark_from_the_events_already_stored,
    sigkill_right_after_a_committed_response_keeps_it_and_replays_the_retry,
    sigkill_mid_transaction_leaves_nothing_half_written,
    race_two_processes_exactly_one_wins_and_the_other_sees_the_winner,
    load_1000_requests_opened_and_answered_by_8_concurrent_workers,
    form_request_survives_sigkill_after_the_response_and_the_asker_restarting,
    form_race_two_processes_the_loser_gets_the_winners_saved_answer,
);

// ------------------------------------------------------------------ refused at open

fn unusable(e: StoreError) -> String {
    match e {
        StoreError::Unusable { .. } | StoreError::NewerSchema { .. } => e.to_string(),
        other => panic!("expected a clear refusal, got {other:?}"),
    }
}

#[test]
fn open_refuses_a_corrupted_or_foreign_sqlite_file() {
    let dir = TempDir::new("open");
    // Not a database at all.
    let garbage = dir.path().join("garbage.db");
    std::fs::write(
        &garbage,
        b"this is a text file, not a database\n".repeat(200),
    )
    .unwrap();
    let msg = unusable(SqliteStore::open(&garbage).unwrap_err());
    assert!(msg.contains("is not a SQLite database"), "{msg}");
    assert!(msg.contains("garbage.db"), "{msg}");
    // Another program's SQLite database.
    let foreign = dir.path().join("foreign.db");
    let c = rusqlite::Connection::open(&foreign).unwrap();
    c.execute_batch(
        "CREATE TABLE invoices (id INTEGER PRIMARY KEY); INSERT INTO invoices VALUES (1);",
    )
    .unwrap();
    drop(c);
    let msg = unusable(SqliteStore::open(&foreign).unwrap_err());
    assert!(msg.contains("another program"), "{msg}");
    // A forms-ask database from a newer program.
    let newer = dir.path().join("newer.db");
    drop(SqliteStore::open(&newer).unwrap());
    let c = rusqlite::Connection::open(&newer).unwrap();
    c.execute_batch("PRAGMA user_version = 99").unwrap();
    drop(c);
    let msg = unusable(SqliteStore::open(&newer).unwrap_err());
    assert!(msg.contains("schema version 99"), "{msg}");
    // A forms-ask database whose pages were overwritten.
    let damaged = dir.path().join("damaged.db");
    {
        let asks = Asks::new(SqliteStore::open(&damaged).unwrap()).with_quotas(Quotas {
            open_requests: 200,
            ..Quotas::default()
        });
        asks.join(&chat(), &p("agent")).unwrap();
        asks.join(&chat(), &p("ana")).unwrap();
        for i in 0..200 {
            asks.as_principal(&p("agent"))
                .open(
                    &chat(),
                    NewRequest::question("x".repeat(500)),
                    &format!("k{i}"),
                )
                .unwrap();
        }
    }
    // Fold the WAL into the file, then damage the pages after the header page.
    let c = rusqlite::Connection::open(&damaged).unwrap();
    c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)").unwrap();
    drop(c);
    let mut bytes = std::fs::read(&damaged).unwrap();
    assert!(bytes.len() > 40_000);
    for b in &mut bytes[4096..36_864] {
        *b = 0xA5;
    }
    std::fs::write(&damaged, &bytes).unwrap();
    let _ = std::fs::remove_file(dir.path().join("damaged.db-wal"));
    let msg = unusable(SqliteStore::open(&damaged).unwrap_err());
    assert!(msg.contains("damaged"), "{msg}");
    // And the engine's error says so too.
    let e = Asks::open_location(garbage.to_str().unwrap()).unwrap_err();
    assert!(matches!(e, AskError::Store(StoreError::Unusable { .. })));
    assert_eq!(e.code(), "store_unusable");
}

#[test]
fn open_refuses_a_foreign_postgres_schema() {
    let Some(url) = pg_url() else { return };
    let schema = pg_schema();
    let mut c = ::postgres::Client::connect(&url, ::postgres::NoTls).unwrap();
    c.batch_execute(&format!(
        "CREATE SCHEMA \"{schema}\"; CREATE TABLE \"{schema}\".requests (id int)"
    ))
    .unwrap();
    let e = PostgresStore::connect_in_schema(&url, Some(&schema)).unwrap_err();
    pg_drop_schema(&url, &schema);
    let msg = unusable(e);
    assert!(msg.contains("another program"), "{msg}");
    let e = PostgresStore::connect("postgres://nobody@127.0.0.1:1/none").unwrap_err();
    assert!(unusable(e).contains("cannot be reached"));
}

// ------------------------------------------------------------------ foreign and read-only files

/// The bytes of `file` and of every file beside it whose name starts with its name (its
/// `-wal`, `-shm` and `-journal`), by name.
fn snapshot(file: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let name = file.file_name().unwrap().to_str().unwrap().to_owned();
    std::fs::read_dir(file.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name().to_str().unwrap().starts_with(&name))
        .map(|e| {
            (
                e.file_name().to_str().unwrap().to_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

fn refused_as_foreign(path: &std::path::Path) {
    let msg = unusable(SqliteStore::open(path).unwrap_err());
    assert!(msg.contains("another program"), "{}: {msg}", path.display());
    let e = Asks::open_location(path.to_str().unwrap()).unwrap_err();
    assert_eq!(e.code(), "store_unusable", "{e}");
}

#[test]
fn open_leaves_a_foreign_sqlite_file_byte_identical_also_through_a_symlink() {
    let dir = TempDir::new("foreign");
    let make = |name: &str, sql: &str| {
        let path = dir.path().join(name);
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(sql).unwrap();
        drop(c);
        path
    };
    let files = [
        // Another program's tables, rollback journal (header bytes 18-19 are 01 01).
        make(
            "rollback.db",
            "CREATE TABLE invoices (id INTEGER PRIMARY KEY); INSERT INTO invoices VALUES (1);",
        ),
        // The same in WAL mode, closed cleanly.
        make(
            "wal.db",
            "PRAGMA journal_mode=WAL; CREATE TABLE invoices (id INTEGER PRIMARY KEY);
             INSERT INTO invoices VALUES (1);",
        ),
        // No tables, but another program's application id.
        make(
            "marked.db",
            "PRAGMA application_id = 1234; PRAGMA user_version = 3;",
        ),
        // No application id, only an index and a view.
        make(
            "indexed.db",
            "CREATE TABLE t (x); CREATE INDEX t_x ON t (x); CREATE VIEW v AS SELECT x FROM t;",
        ),
    ];
    assert_eq!(&std::fs::read(&files[0]).unwrap()[18..20], &[1, 1]);
    for file in &files {
        let link = dir.path().join(format!(
            "link-to-{}",
            file.file_name().unwrap().to_str().unwrap()
        ));
        std::os::unix::fs::symlink(file, &link).unwrap();
        let before = snapshot(file);
        refused_as_foreign(file);
        refused_as_foreign(&link);
        // Not one byte changed, and nothing (no -wal, no -shm) appeared beside it.
        assert_eq!(snapshot(file), before, "{}", file.display());
        assert!(!dir
            .path()
            .join(format!(
                "{}-wal",
                link.file_name().unwrap().to_str().unwrap()
            ))
            .exists());
    }
    // A database whose tables so far live only in its write-ahead log (copied while its
    // writer still has it open): SQLite must look, and the file and its log stay as they were.
    let live = dir.path().join("live.db");
    let writer = rusqlite::Connection::open(&live).unwrap();
    writer
        .execute_batch(
            "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;
             CREATE TABLE invoices (id INTEGER PRIMARY KEY); INSERT INTO invoices VALUES (1);",
        )
        .unwrap();
    let pending = dir.path().join("pending.db");
    std::fs::copy(&live, &pending).unwrap();
    std::fs::copy(
        dir.path().join("live.db-wal"),
        dir.path().join("pending.db-wal"),
    )
    .unwrap();
    drop(writer);
    assert!(
        std::fs::metadata(dir.path().join("pending.db-wal"))
            .unwrap()
            .len()
            > 0
    );
    let link = dir.path().join("link-to-pending.db");
    std::os::unix::fs::symlink(&pending, &link).unwrap();
    let keep = |s: std::collections::BTreeMap<String, Vec<u8>>| {
        s.into_iter()
            .filter(|(name, _)| !name.ends_with("-shm")) // SQLite's index of the log
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    let before = keep(snapshot(&pending));
    refused_as_foreign(&pending);
    refused_as_foreign(&link);
    assert_eq!(keep(snapshot(&pending)), before);
    // The other program still finds its row.
    let c = rusqlite::Connection::open(&pending).unwrap();
    let n: i64 = c
        .query_row("SELECT count(*) FROM invoices", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 1);
    // An empty file is ours to initialize, and so is a path that does not exist yet.
    let empty = dir.path().join("empty.db");
    std::fs::write(&empty, b"").unwrap();
    drop(SqliteStore::open(&empty).unwrap());
    drop(SqliteStore::open(dir.path().join("new.db")).unwrap());
    drop(SqliteStore::open(&empty).unwrap());
}

/// Sets `path`'s permission bits.
fn chmod(path: &std::path::Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn a_read_only_forms_ask_file_can_be_read_but_not_written() {
    // Two situations: a directory the reader may not write (no shared-memory file can be
    // made beside the database), and one it may.
    for dir_mode in [0o555, 0o777] {
        let outer = TempDir::new("read-only");
        let dir = outer.path().join("db");
        std::fs::create_dir(&dir).unwrap();
        let path = dir.join("asks.db");
        let (r, expired) = {
            let asks = Asks::new(SqliteStore::open(&path).unwrap());
            join_members(&asks);
            let me = asks.as_principal(&p("agent"));
            let r = me
                .open(&chat(), NewRequest::approval("Deploy 1.4?"), "o1")
                .unwrap();
            me.message(&r.id, "staging is free", "m1").unwrap();
            let soon = forms_ask::SystemClock
                .now()
                .plus(Duration::from_millis(1500));
            let lunch = NewRequest::question("Lunch?").expires_at(soon);
            let expired = me.open(&chat(), lunch, "o2").unwrap();
            (r, expired)
        }; // closed: the log is folded into the file
        std::thread::sleep(Duration::from_millis(1600)); // `expired` is past its deadline, unread
        assert!(!dir.join("asks.db-wal").exists());
        chmod(&path, 0o444);
        chmod(&dir, dir_mode);
        let before = std::fs::read(&path).unwrap();
        let (mut child, mut out) = spawn_child_as(
            json!({
                "role": "read-only", "db": { "store": "sqlite", "path": path },
                "id": r.id, "expired": expired.id, "key": "k1",
            }),
            true,
        );
        let result: Value = serde_json::from_str(&read_marker(&mut out, "RESULT ")).unwrap();
        assert!(child.wait().unwrap().success());
        chmod(&dir, 0o755);
        assert_eq!(
            result["shown"],
            serde_json::to_value(&r).unwrap(),
            "{result}"
        );
        assert_eq!(result["log"], 2, "{result}");
        assert_eq!(result["waited"], "open", "{result}");
        assert_eq!(
            result["past"], "expired",
            "shown as expired, though not recorded"
        );
        assert_eq!(result["refused"], "store_read_only", "{result}");
        assert!(
            result["message"]
                .as_str()
                .unwrap()
                .contains("asks.db is read-only"),
            "{result}"
        );
        assert_eq!(result["joined"], "store_read_only", "{result}");
        assert_eq!(std::fs::read(&path).unwrap(), before, "mode {dir_mode:o}");
        // With write access again, the expiry is recorded on the next read.
        for file in snapshot(&path).keys() {
            chmod(&dir.join(file), 0o644); // the reader may have left a -wal and -shm
        }
        let asks = Asks::new(SqliteStore::open(&path).unwrap());
        let now = asks.as_principal(&p("ana")).show(&expired.id).unwrap();
        assert_eq!((now.state, now.version), (State::Expired, 2));
    }
}
