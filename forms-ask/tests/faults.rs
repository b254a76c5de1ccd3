//! Faults and load, with real child processes on one database, on SQLite and PostgreSQL:
//! two responders racing from two processes, a process killed with SIGKILL right after a
//! committed response and one killed mid-transaction, 1,000 requests opened and answered by
//! 8 concurrent workers, and a corrupted or foreign database refused at open.
//!
//! The child processes are this test binary run again with `FORMS_ASK_CHILD` set: the
//! `child_process` entry point below then plays the role it names (without the variable it
//! has nothing to do and returns).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::{pg_drop_schema, pg_schema, pg_url, TempDir};
use forms_ask::store::sqlite::SqliteOptions;
use forms_ask::{
    AskError, Asks, ConversationId, EventKind, NewRequest, Outcome, PostgresStore, Principal,
    Replacement, Request, RequestId, SqliteStore, State, StoreError,
};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdout, Command, Stdio};
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

    fn count(&self, sql: &str) -> i64 {
        match self.cfg["store"].as_str().unwrap() {
            "sqlite" => {
                let c = rusqlite::Connection::open(self.cfg["path"].as_str().unwrap()).unwrap();
                c.query_row(sql, [], |r| r.get(0)).unwrap()
            }
            _ => {
                let mut c = ::postgres::Client::connect(
                    self.cfg["url"].as_str().unwrap(),
                    ::postgres::NoTls,
                )
                .unwrap();
                let schema = self.cfg["schema"].as_str().unwrap();
                c.batch_execute(&format!("SET search_path TO \"{schema}\""))
                    .unwrap();
                c.query_one(sql, &[]).unwrap().get(0)
            }
        }
    }
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

fn p(name: &str) -> Principal {
    Principal::new(name).unwrap()
}

fn chat() -> ConversationId {
    ConversationId::new("ops").unwrap()
}

/// A conversation with agent, ana and bob, and an open approval in it.
fn setup(db: &Db, key: &str) -> Request {
    let asks = db.asks();
    for m in ["agent", "ana", "bob"] {
        asks.join(&chat(), &p(m)).unwrap();
    }
    asks.as_principal(&p("agent"))
        .open(&chat(), NewRequest::approval("Deploy 1.4?"), key)
        .unwrap()
}

// ------------------------------------------------------------------ the child side

/// Writes a line straight to the process's standard output, past the test harness.
fn emit(line: &str) {
    use std::io::Write;
    let mut out = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/stdout")
        .unwrap();
    out.write_all(format!("{line}\n").as_bytes()).unwrap();
    out.flush().unwrap();
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
            let _ = asks.as_principal(&p("agent")).replace(
                &id,
                1,
                Replacement {
                    body: Some("Deploy 1.5?".into()),
                    ..Default::default()
                },
                key,
            );
            emit("FINISHED"); // never reached: killed inside the transaction
        }
        "race" => {
            let asks = open_from(cfg, None);
            let who = p(task["principal"].as_str().unwrap());
            let outcome = Outcome::parse(task["outcome"].as_str().unwrap()).unwrap();
            let go = std::path::PathBuf::from(task["go"].as_str().unwrap());
            let me = asks.as_principal(&who);
            me.show(&id).unwrap(); // connection warm before the start
            emit("READY");
            let give_up = Instant::now() + Duration::from_secs(60);
            while !go.exists() && Instant::now() < give_up {
                std::thread::sleep(Duration::from_micros(200));
            }
            let out = match me.respond(&id, 1, outcome, None, key) {
                Ok(r) => json!({ "ok": r }),
                Err(e) => json!({ "code": e.code(), "latest": e.latest() }),
            };
            emit(&format!("RESULT {out}"));
        }
        other => panic!("unknown role {other}"),
    }
}

fn spawn_child(task: Value) -> (Child, BufReader<ChildStdout>) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_process",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("FORMS_ASK_CHILD", task.to_string())
        .env_remove("CI") // the child needs no PostgreSQL check of its own
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
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
    let log = asks.as_principal(&p("agent")).log(&r.id).unwrap();
    assert_eq!(
        log.iter().map(|e| e.event).collect::<Vec<_>>(),
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
    assert_eq!(me.log(&r.id).unwrap().len(), 1);
    assert_eq!(db.count("SELECT count(*) FROM requests"), 1);
    assert_eq!(db.count("SELECT count(*) FROM events"), 1);
    assert_eq!(db.count("SELECT count(*) FROM idempotency"), 1); // the open's key only
                                                                 // The retry key was not recorded: the same replace now runs, once.
    let pair = me
        .replace(
            &r.id,
            1,
            Replacement {
                body: Some("Deploy 1.5?".into()),
                ..Default::default()
            },
            "replace-1",
        )
        .unwrap();
    assert_eq!(pair.previous.state, State::Superseded);
    assert_eq!(db.count("SELECT count(*) FROM requests"), 2);
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
        for (_, out) in &mut children {
            read_marker(out, "READY");
        }
        std::fs::write(&go, b"go").unwrap();
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
        assert_eq!(&loser["latest"], winners[0]);
        let stored = db.asks().as_principal(&p("agent")).show(&r.id).unwrap();
        assert_eq!(&serde_json::to_value(&stored).unwrap(), winners[0]);
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

on_both_stores!(
    sigkill_right_after_a_committed_response_keeps_it_and_replays_the_retry,
    sigkill_mid_transaction_leaves_nothing_half_written,
    race_two_processes_exactly_one_wins_and_the_other_sees_the_winner,
    load_1000_requests_opened_and_answered_by_8_concurrent_workers,
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
        let asks = Asks::new(SqliteStore::open(&damaged).unwrap());
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
