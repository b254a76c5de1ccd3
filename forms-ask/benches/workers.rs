//! Eight workers through one shared `Asks`, PostgreSQL and SQLite in the same run: each
//! cycle opens an approval, responds to it as another principal and reads it back. Prints
//! cycles per second for each store and the PostgreSQL / SQLite ratio (goal: at least 1).
//!
//! ```text
//! FORMS_ASK_PG_URL=postgres://… cargo bench -p forms-ask --bench workers
//! ```
//!
//! `FORMS_ASK_BENCH_N` sets the cycles per worker (default 300); `FORMS_ASK_BENCH_WORKERS`
//! the number of workers (default 8). The stores take turns in six rounds, so a disk that
//! is busier at one moment than another (the machine is shared) weighs on both alike.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use forms_ask::{
    Asks, ConversationId, NewRequest, Outcome, PostgresStore, Principal, SqliteStore, State,
};
use std::sync::Arc;
use std::time::{Duration, Instant};

const ROUNDS: usize = 6;

/// Runs `per_worker` cycles on each of `workers` threads; returns the elapsed time.
fn run(asks: &Arc<Asks>, workers: usize, per_worker: usize, round: usize) -> Duration {
    let start = Instant::now();
    let handles: Vec<_> = (0..workers)
        .map(|w| {
            let asks = Arc::clone(asks);
            std::thread::spawn(move || {
                let chat = ConversationId::new(format!("bench-{w}")).unwrap();
                let agent = Principal::new(format!("agent-{w}")).unwrap();
                let ana = Principal::new(format!("ana-{w}")).unwrap();
                let (a, b) = (asks.as_principal(&agent), asks.as_principal(&ana));
                for i in 0..per_worker {
                    let r = a
                        .open(
                            &chat,
                            NewRequest::approval("Deploy?"),
                            &format!("o{round}-{i}"),
                        )
                        .unwrap();
                    b.respond(&r.id, 1, Outcome::Approved, None, &format!("r{round}-{i}"))
                        .unwrap();
                    assert_eq!(a.show(&r.id).unwrap().state, State::Resolved);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    start.elapsed()
}

fn setup(asks: &Asks, workers: usize) {
    for w in 0..workers {
        let chat = ConversationId::new(format!("bench-{w}")).unwrap();
        asks.join(&chat, &Principal::new(format!("agent-{w}")).unwrap())
            .unwrap();
        asks.join(&chat, &Principal::new(format!("ana-{w}")).unwrap())
            .unwrap();
    }
}

fn main() {
    let quick = std::env::args().any(|a| a == "--test");
    let env = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let per_worker = env("FORMS_ASK_BENCH_N", if quick { 6 } else { 300 });
    let workers = env("FORMS_ASK_BENCH_WORKERS", 8);
    let dir = std::env::temp_dir().join(format!("forms-ask-workers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sqlite = Arc::new(Asks::new(SqliteStore::open(dir.join("asks.db")).unwrap()));
    setup(&sqlite, workers);
    let pg = match std::env::var("FORMS_ASK_PG_URL") {
        Ok(url) if !url.is_empty() => {
            let schema = format!("bench_workers_{}", std::process::id());
            let store = PostgresStore::connect_in_schema(&url, Some(&schema)).unwrap();
            let asks = Arc::new(Asks::new(store));
            setup(&asks, workers);
            Some((url, schema, asks))
        }
        _ => None,
    };
    // Warm-up round (not counted).
    run(&sqlite, workers, 5, 99);
    if let Some((_, _, asks)) = &pg {
        run(asks, workers, 5, 99);
    }
    let (mut sqlite_time, mut pg_time) = (Duration::ZERO, Duration::ZERO);
    let k = per_worker.div_ceil(ROUNDS);
    for round in 0..ROUNDS {
        sqlite_time += run(&sqlite, workers, k, round);
        if let Some((_, _, asks)) = &pg {
            pg_time += run(asks, workers, k, round);
        }
    }
    let cycles = k * ROUNDS * workers;
    let rate = |d: Duration| cycles as f64 / d.as_secs_f64();
    println!("{workers} workers, {cycles} cycles per store (open + respond + read back)");
    println!(
        "  SQLite (WAL, synchronous=FULL): {:>8.0} cycles/s",
        rate(sqlite_time)
    );
    match &pg {
        Some(_) => {
            println!(
                "  PostgreSQL:                     {:>8.0} cycles/s",
                rate(pg_time)
            );
            println!(
                "  ratio PostgreSQL / SQLite: {:.2} (goal >= 1)",
                rate(pg_time) / rate(sqlite_time)
            );
        }
        None => println!("  PostgreSQL: SKIPPED (FORMS_ASK_PG_URL is not set)"),
    }
    // PostgreSQL again while a waiter in this process listens: every commit then notifies,
    // and a notifying commit holds a database-wide lock through its WAL flush.
    if let Some((_, _, asks)) = &pg {
        let chat = ConversationId::new("bench-0").unwrap();
        let agent = Principal::new("agent-0").unwrap();
        let me = asks.as_principal(&agent);
        let r = me
            .open(&chat, NewRequest::question("Listening?"), "listening")
            .unwrap();
        let waiting = me.start_wait(&r.id, Duration::from_secs(3600)).unwrap();
        let mut listened = Duration::ZERO;
        for round in 0..ROUNDS {
            listened += run(asks, workers, k, 10 + round);
        }
        println!(
            "  PostgreSQL, a waiter listening:  {:>8.0} cycles/s (ratio to SQLite {:.2})",
            rate(listened),
            rate(listened) / rate(sqlite_time)
        );
        drop(waiting);
    }
    drop(sqlite);
    if let Some((url, schema, asks)) = pg {
        drop(asks);
        if let Ok(mut c) = postgres::Client::connect(&url, postgres::NoTls) {
            c.batch_execute(&format!("DROP SCHEMA {schema} CASCADE"))
                .ok();
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
