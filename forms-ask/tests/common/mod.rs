//! Fixtures shared by the tests: a fresh engine on each store, a manual clock, a
//! conversation with three members, and temporary directories.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use forms_ask::store::PostgresStore;
use forms_ask::{
    AsPrincipal, AskError, Asks, AuditEvent, Clock, ConversationId, EventKind, ManualClock,
    Principal, Replacement, Request, RequestId, SqliteStore, Store, Timestamp,
};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

pub use forms_test_kit::store::pg_url;
pub use forms_test_kit::TempDir;

/// A fresh, uniquely named schema for one test.
pub fn pg_schema() -> String {
    static N: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!(
        "t_{}_{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed),
        nanos % 1_000_000_000
    )
}

/// Drops a test schema.
pub fn pg_drop_schema(url: &str, schema: &str) {
    if let Ok(mut c) = postgres::Client::connect(url, postgres::NoTls) {
        let _ = c.batch_execute(&format!("DROP SCHEMA IF EXISTS \"{schema}\" CASCADE"));
    }
}

/// Which store a world runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Memory,
    Sqlite,
    Postgres,
}

/// A fresh engine, its clock and a conversation `chat` with members agent, ana and bob.
pub struct World {
    pub asks: Asks,
    /// The store `asks` runs on.
    pub store: Arc<dyn Store>,
    pub clock: Arc<ManualClock>,
    pub chat: ConversationId,
    pub agent: Principal,
    pub ana: Principal,
    pub bob: Principal,
    pub kind: Kind,
    /// The SQLite file, or the PostgreSQL URL and schema: to open a second engine on it.
    pub sqlite_path: Option<PathBuf>,
    pub pg: Option<(String, String)>,
    _dir: Option<TempDir>,
}

/// The time every world starts at.
pub fn start_time() -> Timestamp {
    Timestamp::parse("2026-12-01T12:00:00Z").unwrap()
}

/// `id`'s audit log (its first 200 events), oldest first, as `who` reads it on `asks`.
pub fn log_of(asks: &Asks, who: &Principal, id: &RequestId) -> Vec<AuditEvent> {
    asks.as_principal(who).log(id, None, 200).unwrap().events
}

/// The kinds of a log's events, in order.
pub fn kinds(log: &[AuditEvent]) -> Vec<EventKind> {
    log.iter().map(|e| e.event).collect()
}

/// The latest version a conflict refusal carries.
pub fn conflict_latest(e: AskError) -> Request {
    match e {
        AskError::Conflict { latest } => *latest,
        other => panic!("expected a conflict, got {other:?}"),
    }
}

/// Runs two writes to one request at once (in `round` of a race): exactly one wins, the
/// other is refused with a conflict. Returns the winner and the latest version the loser's
/// refusal carries.
pub fn race<A, B>(round: usize, a: A, b: B) -> (Request, Request)
where
    A: FnOnce() -> Result<Request, AskError> + Send,
    B: FnOnce() -> Result<Request, AskError> + Send,
{
    let results: Vec<_> = std::thread::scope(|s| {
        let a = s.spawn(a);
        let b = s.spawn(b);
        vec![a.join().unwrap(), b.join().unwrap()]
    });
    let winners: Vec<Request> = results
        .iter()
        .filter_map(|r| r.as_ref().ok().cloned())
        .collect();
    assert_eq!(winners.len(), 1, "round {round}: {results:?}");
    let loser = conflict_latest(results.into_iter().find_map(Result::err).unwrap());
    (winners[0].clone(), loser)
}

/// A replacement that changes the body only.
pub fn new_body(body: &str) -> Replacement {
    Replacement {
        body: Some(body.into()),
        ..Default::default()
    }
}

impl World {
    pub fn new(kind: Kind) -> Option<World> {
        let clock = Arc::new(ManualClock::at(start_time()));
        let mut sqlite_path = None;
        let mut pg = None;
        let mut dir = None;
        let store: Arc<dyn Store> = match kind {
            Kind::Memory => Arc::new(forms_ask::store::memory::MemoryStore::new()),
            Kind::Sqlite => {
                let d = TempDir::new("rules");
                let path = d.path().join("asks.db");
                let store = SqliteStore::open(&path).unwrap();
                sqlite_path = Some(path);
                dir = Some(d);
                Arc::new(store)
            }
            Kind::Postgres => {
                let url = pg_url()?;
                let schema = pg_schema();
                let store = PostgresStore::connect_in_schema(&url, Some(&schema)).unwrap();
                pg = Some((url, schema));
                Arc::new(store)
            }
        };
        let asks = Asks::with_clock(Arc::clone(&store), Arc::clone(&clock) as Arc<dyn Clock>);
        let world = World {
            asks,
            store,
            clock,
            chat: ConversationId::new("chat").unwrap(),
            agent: Principal::new("agent").unwrap(),
            ana: Principal::new("ana").unwrap(),
            bob: Principal::new("bob").unwrap(),
            kind,
            sqlite_path,
            pg,
            _dir: dir,
        };
        for p in [&world.agent, &world.ana, &world.bob] {
            world.asks.join(&world.chat, p).unwrap();
        }
        Some(world)
    }

    /// A second engine on the same database (another "server instance": on SQLite and
    /// PostgreSQL with its own connection, on the memory store over the same tables), same
    /// clock, nothing in memory from the first.
    pub fn second_engine(&self) -> Asks {
        let store: Arc<dyn Store> = match self.kind {
            Kind::Memory => Arc::clone(&self.store),
            Kind::Sqlite => {
                Arc::new(SqliteStore::open(self.sqlite_path.as_ref().unwrap()).unwrap())
            }
            Kind::Postgres => {
                let (url, schema) = self.pg.as_ref().unwrap();
                Arc::new(PostgresStore::connect_in_schema(url, Some(schema)).unwrap())
            }
        };
        Asks::with_clock(store, Arc::clone(&self.clock) as Arc<dyn Clock>)
    }

    /// The world's engine, as `who`.
    pub fn by(&self, who: &Principal) -> AsPrincipal<'_> {
        self.asks.as_principal(who)
    }

    pub fn p(&self, name: &str) -> Principal {
        Principal::new(name).unwrap()
    }
}

impl Drop for World {
    fn drop(&mut self) {
        if let Some((url, schema)) = &self.pg {
            pg_drop_schema(url, schema);
        }
    }
}

/// One test module per store (`memory`, `sqlite`, `postgres`), each with a `#[test]` per
/// named rule that runs `fn rule(&World)` (a function at the test crate's root) on a fresh
/// world of that store; the PostgreSQL ones skip without `FORMS_ASK_PG_URL`.
#[macro_export]
macro_rules! on_every_store {
    ($($rule:ident),* $(,)?) => {
        mod memory {
            $( #[test] fn $rule() {
                $crate::$rule(&$crate::common::World::new($crate::common::Kind::Memory).unwrap())
            } )*
        }
        mod sqlite {
            $( #[test] fn $rule() {
                $crate::$rule(&$crate::common::World::new($crate::common::Kind::Sqlite).unwrap())
            } )*
        }
        mod postgres {
            $( #[test] fn $rule() {
                if let Some(w) = $crate::common::World::new($crate::common::Kind::Postgres) {
                    $crate::$rule(&w)
                }
            } )*
        }
    };
}
