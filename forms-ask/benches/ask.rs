//! Open + respond + read back, per second, against the machine's limit measured in the same
//! run: a bare transaction with one insert and the same durability.
//!
//! ```text
//! cargo bench -p forms-ask --bench ask                 # SQLite
//! FORMS_ASK_PG_URL=postgres://… cargo bench -p forms-ask --bench ask   # and PostgreSQL
//! ```
//!
//! `FORMS_ASK_BENCH_N` sets the number of cycles (default 2,000).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use forms_ask::{
    Asks, ConversationId, NewRequest, Outcome, PostgresStore, Principal, SqliteStore, State,
};
use std::time::{Duration, Instant};

fn per_second(n: usize, d: Duration) -> f64 {
    n as f64 / d.as_secs_f64()
}

/// Rounds in which the baseline and the engine take turns, so that a disk that is busier at
/// one moment than another (the machine is shared) weighs on both alike.
const ROUNDS: usize = 10;

/// `n` open + respond + show cycles, numbered from `from`; returns the elapsed time.
fn engine_cycles(asks: &Asks, from: usize, n: usize, tag: &str) -> Duration {
    let chat = ConversationId::new(format!("bench-{tag}")).unwrap();
    let agent = Principal::new(format!("agent-{tag}")).unwrap();
    let ana = Principal::new(format!("ana-{tag}")).unwrap();
    asks.join(&chat, &agent).unwrap();
    asks.join(&chat, &ana).unwrap();
    let (a, b) = (asks.as_principal(&agent), asks.as_principal(&ana));
    let start = Instant::now();
    for i in from..from + n {
        let r = a
            .open(&chat, NewRequest::approval("Deploy?"), &format!("o{i}"))
            .unwrap();
        b.respond(&r.id, 1, Outcome::Approved, None, &format!("r{i}"))
            .unwrap();
        let back = a.show(&r.id).unwrap();
        assert_eq!(back.state, State::Resolved);
    }
    start.elapsed()
}

/// Warms the engine up, then times about `n` bare writes (`bare(round, i)`) against as many
/// engine cycles, round by round; returns the count (`n` rounded up to whole rounds) and the
/// two rates per second.
fn compare(
    asks: &Asks,
    n: usize,
    tag: &str,
    mut bare: impl FnMut(usize, usize),
) -> (usize, f64, f64) {
    engine_cycles(asks, usize::MAX / 2, 100, tag);
    let (mut bare_time, mut engine_time) = (Duration::ZERO, Duration::ZERO);
    let k = n.div_ceil(ROUNDS);
    for round in 0..ROUNDS {
        let start = Instant::now();
        for i in 0..k {
            bare(round, i);
        }
        bare_time += start.elapsed();
        engine_time += engine_cycles(asks, round * k, k, tag);
    }
    let n = k * ROUNDS;
    (n, per_second(n, bare_time), per_second(n, engine_time))
}

fn sqlite(n: usize) {
    let dir = std::env::temp_dir().join(format!("forms-ask-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();

    // The limit: a bare transaction with one insert, WAL and synchronous=FULL.
    let bare = rusqlite::Connection::open(dir.join("bare.db")).unwrap();
    let _: String = bare
        .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
        .unwrap();
    bare.execute_batch(
        "PRAGMA synchronous=FULL; CREATE TABLE t (id INTEGER PRIMARY KEY, doc TEXT NOT NULL);",
    )
    .unwrap();
    // Warm up both to their steady state: a WAL file that has reached its full size is
    // overwritten in place, while one still growing costs the file system a journal commit
    // per fsync (which would flatter the engine, whose commits fill the WAL faster).
    bare.execute_batch(
        "CREATE TABLE warm (b BLOB);
         BEGIN IMMEDIATE;
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1200)
         INSERT INTO warm SELECT zeroblob(4000) FROM n;
         COMMIT;",
    )
    .unwrap();
    let asks = Asks::new(SqliteStore::open(dir.join("asks.db")).unwrap());
    let (n, bare_rate, rate) = compare(&asks, n, "sqlite", |round, i| {
        bare.execute_batch("BEGIN IMMEDIATE").unwrap();
        bare.execute(
            "INSERT INTO t (doc) VALUES (?1)",
            [format!("row {round}/{i}")],
        )
        .unwrap();
        bare.execute_batch("COMMIT").unwrap();
    });
    report("SQLite (WAL, synchronous=FULL)", n, bare_rate, rate);
    std::fs::remove_dir_all(&dir).ok();
}

fn postgres(url: &str, n: usize) {
    let schema = format!("bench_{}", std::process::id());
    let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
    c.batch_execute(&format!(
        "DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema};
         CREATE TABLE {schema}.t (id BIGSERIAL PRIMARY KEY, doc TEXT NOT NULL);"
    ))
    .unwrap();
    let insert = c
        .prepare(&format!("INSERT INTO {schema}.t (doc) VALUES ($1)"))
        .unwrap();
    let asks = Asks::new(PostgresStore::connect_in_schema(url, Some(&schema)).unwrap());
    for i in 0..100 {
        let mut tx = c.transaction().unwrap();
        tx.execute(&insert, &[&format!("warm {i}")]).unwrap();
        tx.commit().unwrap();
    }
    let (n, bare_rate, rate) = compare(&asks, n, "pg", |round, i| {
        let mut tx = c.transaction().unwrap();
        tx.execute(&insert, &[&format!("row {round}/{i}")]).unwrap();
        tx.commit().unwrap();
    });
    report(
        "PostgreSQL (fsync on, synchronous_commit on)",
        n,
        bare_rate,
        rate,
    );
    c.batch_execute(&format!("DROP SCHEMA {schema} CASCADE"))
        .unwrap();
}

fn report(store: &str, n: usize, bare: f64, engine: f64) {
    println!("{store}: {n} cycles");
    println!("  bare one-insert transaction: {bare:>9.0} /s");
    println!("  open + respond + read back:  {engine:>9.0} /s");
    println!(
        "  ratio: {:.0}% of the bare transaction rate (target >= 50%)",
        100.0 * engine / bare
    );
}

fn main() {
    // `cargo test --benches` runs this with `--bench`-less arguments; keep that quick.
    let quick = std::env::args().any(|a| a == "--test");
    let n = std::env::var("FORMS_ASK_BENCH_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if quick { 20 } else { 2_000 });
    sqlite(n);
    match std::env::var("FORMS_ASK_PG_URL") {
        Ok(url) if !url.is_empty() => postgres(&url, n),
        _ => println!("PostgreSQL: SKIPPED (FORMS_ASK_PG_URL is not set)"),
    }
}
