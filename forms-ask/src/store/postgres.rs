//! The scale path: one PostgreSQL database shared by many server instances.
//!
//! A write is one call of the `forms_ask_commit` function (migration 2): one round trip and
//! one statement, so it is atomic without a client-side transaction. Inside it the retry-key
//! row is inserted first, so a concurrent retry with the same key waits on it and then
//! replays the first result; the responder's membership row is read `FOR SHARE`, so a
//! revocation cannot slip between the check and the write; updates are compare-and-set
//! (`UPDATE … WHERE version = expected`). Every write sends `NOTIFY forms_ask, '<request
//! id>'`; the store's one listener connection (started by the first wait) `LISTEN`s and
//! feeds every waiter of the process.
//!
//! Connections come from an [`r2d2`] pool (the blocking `postgres` client keeps this crate
//! synchronous; `deadpool-postgres` would need an asynchronous runtime in every program that
//! links it). Each pooled connection keeps its prepared statements. The schema is checked
//! once, when the store is made (a process makes one and shares it), never per call: a
//! schema already up to date is confirmed by two reads without a lock; the advisory lock
//! that serializes migrators is taken only when a migration is due.
//!
//! This module is the store itself (made, dropped, named); its parts live beside it: the
//! schema's migrations, the pool, the commit, the listener, and the [`Store`] queries.

mod commit;
mod listener;
mod migrations;
mod pool;
mod queries;

use self::migrations::migrate;
use self::pool::{open_client, Manager, POOL_WAIT};
use super::{Changes, Store};
use crate::error::{with_causes, StoreError};
use postgres::Config;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use pool::POOL_MAX;

/// The PostgreSQL store: a pool of connections to one database (optionally inside one
/// schema), and one listener connection shared by every waiter once someone waits.
pub struct PostgresStore {
    url: String,
    config: Config,
    schema: Option<String>,
    /// `None` only while the store is dropped.
    pool: Option<r2d2::Pool<Manager>>,
    pause_before_commit: Option<std::time::Duration>,
    changes: Arc<Changes>,
    /// Whether the listener runs.
    listening: Mutex<bool>,
    /// The listener's backend pid (0 before it runs): the owner of this process's watches.
    listener_pid: Arc<AtomicI32>,
    /// The requests this process watches, with their number of watchers (engines sharing
    /// this store each count once); held while a watch row is written or removed.
    watched: Arc<Mutex<HashMap<String, usize>>>,
    /// Tells the listener to stop.
    stop: Arc<AtomicBool>,
}

impl Drop for PostgresStore {
    /// Stops the listener, and closes the pooled connections on a thread of their own: the
    /// blocking client closes a connection by running a runtime of its own, which panics on
    /// a thread that drives asynchronous tasks, and the last owner of a store (an engine, a
    /// form request) may well be dropped on one.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(pool) = self.pool.take() {
            // Without a thread to be had, the failed spawn drops the pool here.
            let _ = std::thread::Builder::new()
                .name("forms-ask-pg-close".into())
                .spawn(move || drop(pool));
        }
    }
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("location", &self.location())
            .finish()
    }
}

/// The URL without its password, for messages.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let userinfo = url.get(s + 3..at).unwrap_or("");
            match userinfo.split_once(':') {
                Some((user, _)) => format!(
                    "{}{user}:***{}",
                    url.get(..s + 3).unwrap_or(""),
                    url.get(at..).unwrap_or("")
                ),
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
}

impl PostgresStore {
    /// Connects to the database at `url` (`postgres://user@host:port/db` or a key=value
    /// string) and brings the schema up to date.
    pub fn connect(url: &str) -> Result<PostgresStore, StoreError> {
        Self::connect_in_schema(url, None)
    }

    /// Like [`PostgresStore::connect`], keeping the tables in `schema` (created if missing):
    /// several independent stores in one database, as the tests use.
    pub fn connect_in_schema(url: &str, schema: Option<&str>) -> Result<PostgresStore, StoreError> {
        let location = redact(url);
        let config: Config = url
            .parse()
            .map_err(|e: postgres::Error| StoreError::Unusable {
                location: location.clone(),
                problem: format!("is not a usable PostgreSQL URL: {}", with_causes(&e)),
            })?;
        let unreachable = |e: postgres::Error| StoreError::Unusable {
            location: location.clone(),
            problem: format!("cannot be reached: {}", with_causes(&e)),
        };
        // The first connection checks the schema (once per store: a process opens one and
        // shares it), then joins the pool.
        let mut client = open_client(&config, schema).map_err(unreachable)?;
        migrate(&mut client, &location)?;
        let manager = Manager {
            config: config.clone(),
            schema: schema.map(str::to_owned),
            first: Mutex::new(Some(client)),
        };
        let pool = r2d2::Pool::builder()
            .max_size(POOL_MAX)
            // No idle connection kept in reserve: a checkout takes one or opens one, so a quiet
            // process holds one connection (and the listener, once someone waits).
            .min_idle(Some(0))
            // Connections opened for a burst are closed after a minute of rest.
            .idle_timeout(Some(Duration::from_secs(60)))
            .connection_timeout(POOL_WAIT)
            .test_on_check_out(false)
            .build_unchecked(manager);
        Ok(PostgresStore {
            url: url.to_owned(),
            config,
            schema: schema.map(str::to_owned),
            pool: Some(pool),
            pause_before_commit: None,
            changes: Arc::new(Changes::default()),
            listening: Mutex::new(false),
            listener_pid: Arc::new(AtomicI32::new(0)),
            watched: Arc::new(Mutex::new(HashMap::new())),
            stop: Arc::new(AtomicBool::new(false)),
        })
    }

    /// Sleeps this long inside every write transaction, before the commit: lets fault tests
    /// kill a process mid-transaction.
    #[doc(hidden)]
    pub fn pause_before_commit(mut self, pause: std::time::Duration) -> Self {
        self.pause_before_commit = Some(pause);
        self
    }
}
