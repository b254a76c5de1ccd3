//! Single-use keys (`Store::claim_once`) on every store: a key is accepted once, by one of
//! several store instances racing on one database, until it expires; expired keys are
//! pruned; the records survive reopening the store.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod common;

use common::{Kind, World};
use forms_ask::store::ONCE_KEY_BYTES_MAX;
use forms_ask::{SqliteStore, Store, Timestamp};
use std::sync::{Arc, Barrier};

fn worlds() -> Vec<World> {
    [Kind::Memory, Kind::Sqlite, Kind::Postgres]
        .into_iter()
        .filter_map(World::new)
        .collect()
}

/// Another instance of the world's store: its own connection on SQLite and PostgreSQL.
fn other_store(world: &World) -> Arc<dyn Store> {
    match world.kind {
        Kind::Memory => Arc::clone(&world.store),
        Kind::Sqlite => Arc::new(SqliteStore::open(world.sqlite_path.as_ref().unwrap()).unwrap()),
        Kind::Postgres => {
            let (url, schema) = world.pg.as_ref().unwrap();
            Arc::new(forms_ask::PostgresStore::connect_in_schema(url, Some(schema)).unwrap())
        }
    }
}

fn ms(n: i64) -> Timestamp {
    Timestamp::from_millis(n)
}

#[test]
fn once_a_key_is_claimed_once_until_it_expires() {
    let worlds = worlds();
    assert!(worlds.len() >= 2);
    for w in &worlds {
        let s = &w.store;
        let other = other_store(w);
        // (step, instance, key, expires, now, claimed)
        let steps = [
            ("first claim", s, "state:a", 10_000, 1_000, true),
            ("second claim", s, "state:a", 10_000, 1_000, false),
            // Another instance on the same database sees it.
            ("other instance", &other, "state:a", 10_000, 9_999, false),
            // Another key is its own.
            ("another key", &other, "state:b", 20_000, 1_000, true),
            // Past its expiry a key's record no longer counts.
            ("past expiry", &other, "state:a", 30_000, 10_000, true),
            ("reclaimed", s, "state:a", 30_000, 10_001, false),
        ];
        for (step, store, key, expires, now, claimed) in steps {
            assert_eq!(
                store.claim_once(key, ms(expires), ms(now)).unwrap(),
                claimed,
                "{:?}: {step}",
                w.kind
            );
        }
        // A key longer than the limit is refused, not stored.
        let long = "k".repeat(ONCE_KEY_BYTES_MAX + 1);
        assert!(
            s.claim_once(&long, ms(10_000), ms(1_000)).is_err(),
            "{:?}",
            w.kind
        );
        assert!(s
            .claim_once(&"k".repeat(ONCE_KEY_BYTES_MAX), ms(10_000), ms(1_000))
            .unwrap());
    }
}

#[test]
fn once_racing_instances_one_winner_per_key() {
    for w in &worlds() {
        let instances: Vec<Arc<dyn Store>> = (0..4).map(|_| other_store(w)).collect();
        for round in 0..25 {
            let key = format!("state:race-{round}");
            let barrier = Arc::new(Barrier::new(instances.len()));
            let wins: usize = std::thread::scope(|scope| {
                let handles: Vec<_> = instances
                    .iter()
                    .map(|store| {
                        let barrier = Arc::clone(&barrier);
                        let key = key.clone();
                        scope.spawn(move || {
                            barrier.wait();
                            store.claim_once(&key, ms(60_000), ms(1_000)).unwrap()
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| usize::from(h.join().unwrap()))
                    .sum()
            });
            assert_eq!(wins, 1, "{:?} round {round}", w.kind);
        }
    }
}

#[test]
fn once_expired_keys_are_pruned_and_records_survive_a_reopen() {
    for w in &worlds() {
        for i in 0..300 {
            assert!(w
                .store
                .claim_once(&format!("old-{i}"), ms(5_000), ms(1_000))
                .unwrap());
        }
        assert!(w.store.claim_once("live", ms(100_000), ms(1_000)).unwrap());
        // Claims after the expiry prune the old keys, at most 256 per claim.
        assert!(w.store.claim_once("new-1", ms(100_000), ms(6_000)).unwrap());
        assert!(w.store.claim_once("new-2", ms(100_000), ms(6_000)).unwrap());
        let count = |sql: &str| -> i64 {
            match w.kind {
                Kind::Sqlite => rusqlite::Connection::open(w.sqlite_path.as_ref().unwrap())
                    .unwrap()
                    .query_row(sql, [], |r| r.get(0))
                    .unwrap(),
                Kind::Postgres => {
                    let (url, schema) = w.pg.as_ref().unwrap();
                    let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
                    c.batch_execute(&format!("SET search_path TO \"{schema}\""))
                        .unwrap();
                    c.query_one(sql, &[]).unwrap().get(0)
                }
                Kind::Memory => -1,
            }
        };
        match w.kind {
            Kind::Sqlite => assert_eq!(count("SELECT count(*) FROM once_keys"), 3),
            Kind::Postgres => assert_eq!(count("SELECT count(*) FROM forms_ask_once"), 3),
            Kind::Memory => {}
        }
        // A reopened store (a restart) still refuses the live key.
        let reopened = other_store(w);
        assert!(
            !reopened.claim_once("live", ms(100_000), ms(7_000)).unwrap(),
            "{:?}",
            w.kind
        );
    }
}
