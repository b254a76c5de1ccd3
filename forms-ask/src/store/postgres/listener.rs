//! The listener: one connection per store that `LISTEN`s for commits on watched requests
//! and feeds every waiter of the process, and the watch rows that tell commits to notify.

use super::pool::open_client;
use super::{redact, PostgresStore};
use crate::error::{with_causes, StoreError};
use crate::model::RequestId;
use crate::store::Changes;
use postgres::fallible_iterator::FallibleIterator;
use postgres::{Client, Config};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

/// How long the listener blocks before it looks whether its store is gone.
const LISTEN_TICK: Duration = Duration::from_millis(500);

/// What a listener runs: listens, forgets the watches of backends that are gone, and takes
/// over those of the backend it replaces (after a reconnection); returns its pid.
const REGISTER: &str = "LISTEN forms_ask";

/// Forgets the watches of backends that are gone.
const PRUNE: &str =
    "DELETE FROM forms_ask_watched WHERE pid NOT IN (SELECT pid FROM pg_stat_activity)";

/// The store's one listener: forwards every notification on the channel to the change
/// feed. If its connection breaks, it tells every reader that anything may have changed
/// (once a second until it is back), and reconnects. It ends when the store is dropped.
fn listen(
    mut client: Client,
    config: &Config,
    schema: Option<&str>,
    changes: &Weak<Changes>,
    stop: &AtomicBool,
    owner: &AtomicI32,
    watched: &Mutex<HashMap<String, usize>>,
) {
    loop {
        if stop.load(Ordering::SeqCst) || changes.strong_count() == 0 {
            // Commits stop notifying for this process's watches.
            let _ =
                client.batch_execute("DELETE FROM forms_ask_watched WHERE pid = pg_backend_pid()");
            return;
        }
        let mut ids: Vec<String> = Vec::new();
        let mut broken = false;
        {
            let mut notifications = client.notifications();
            match notifications.timeout_iter(LISTEN_TICK).next() {
                Ok(Some(n)) => ids.push(n.payload().to_owned()),
                Ok(None) => {}
                Err(_) => broken = true,
            }
            if !broken {
                // Whatever else has arrived, without waiting.
                let mut pending = notifications.iter();
                loop {
                    match pending.next() {
                        Ok(Some(n)) => ids.push(n.payload().to_owned()),
                        Ok(None) => break,
                        Err(_) => {
                            broken = true;
                            break;
                        }
                    }
                }
            }
        }
        broken |= client.is_closed();
        let Some(feed) = changes.upgrade() else {
            return;
        };
        if !ids.is_empty() {
            feed.push(ids.iter().map(|id| Some(id.as_str())));
        }
        if broken {
            loop {
                feed.push([None]);
                if stop.load(Ordering::SeqCst) {
                    return;
                }
                std::thread::sleep(Duration::from_secs(1));
                if let Ok(mut c) = open_client(config, schema) {
                    // Listen, and record this process's watches again under the new
                    // backend (the old one's may already be pruned).
                    let ids: Vec<String> = watched
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .keys()
                        .cloned()
                        .collect();
                    let pid = c.batch_execute(REGISTER).and_then(|()| {
                        let pid: i32 = c.query_one("SELECT pg_backend_pid()", &[])?.get(0);
                        c.execute(
                            "INSERT INTO forms_ask_watched (request_id, pid)
                             SELECT unnest($1::text[]), $2 ON CONFLICT DO NOTHING",
                            &[&ids, &pid],
                        )?;
                        Ok(pid)
                    });
                    if let Ok(pid) = pid {
                        owner.store(pid, Ordering::SeqCst);
                        client = c;
                        // What was written while it was away.
                        feed.push([None]);
                        break;
                    }
                }
            }
        }
    }
}

impl PostgresStore {
    /// [`Store::watch_request`](crate::Store::watch_request): records a watch row under the listener's backend, once per
    /// request however many engines of this process watch it.
    pub(super) fn watch(&self, id: &RequestId) -> Result<(), StoreError> {
        let pid = self.listener_pid.load(Ordering::SeqCst);
        let mut watched = self
            .watched
            .lock()
            .map_err(|_| StoreError::Other("the PostgreSQL watch lock is poisoned".into()))?;
        let count = watched.get(id.as_str()).copied().unwrap_or(0);
        if count > 0 {
            watched.insert(id.as_str().to_owned(), count + 1);
            return Ok(());
        }
        self.with(|c| {
            let st = c.prepare(
                "INSERT INTO forms_ask_watched (request_id, pid) VALUES ($1, $2)
                 ON CONFLICT DO NOTHING",
            )?;
            c.client.execute(&st, &[&id.as_str(), &pid])?;
            Ok(())
        })?;
        watched.insert(id.as_str().to_owned(), 1);
        Ok(())
    }

    /// [`Store::unwatch_requests`](crate::Store::unwatch_requests): removes the watch rows no engine of this process needs.
    pub(super) fn unwatch(&self, ids: &[RequestId]) -> Result<(), StoreError> {
        let pid = self.listener_pid.load(Ordering::SeqCst);
        let mut watched = self
            .watched
            .lock()
            .map_err(|_| StoreError::Other("the PostgreSQL watch lock is poisoned".into()))?;
        let mut gone: Vec<&str> = Vec::new();
        for id in ids {
            match watched.get_mut(id.as_str()) {
                Some(n) if *n > 1 => *n -= 1,
                Some(_) => {
                    watched.remove(id.as_str());
                    gone.push(id.as_str());
                }
                None => {}
            }
        }
        if gone.is_empty() {
            return Ok(());
        }
        let ids = gone;
        let deleted = self.with(|c| {
            let st =
                c.prepare("DELETE FROM forms_ask_watched WHERE pid = $1 AND request_id = ANY($2)")?;
            c.client.execute(&st, &[&pid, &ids])?;
            Ok(())
        });
        if deleted.is_err() {
            // Still watched: the caller tries again with the same ids.
            for id in &ids {
                watched.insert((*id).to_owned(), 1);
            }
        }
        deleted
    }

    /// [`Store::changes`](crate::Store::changes): the change feed, with the listener started on first use.
    pub(super) fn listen_for_changes(&self) -> Result<Arc<Changes>, StoreError> {
        let mut listening = self
            .listening
            .lock()
            .map_err(|_| StoreError::Other("the PostgreSQL listener lock is poisoned".into()))?;
        if !*listening {
            let mut client = open_client(&self.config, self.schema.as_deref()).map_err(|e| {
                StoreError::Unusable {
                    location: redact(&self.url),
                    problem: format!("cannot be reached: {}", with_causes(&e)),
                }
            })?;
            client.batch_execute(REGISTER)?;
            client.batch_execute(PRUNE)?;
            let pid: i32 = client.query_one("SELECT pg_backend_pid()", &[])?.get(0);
            self.listener_pid.store(pid, Ordering::SeqCst);
            let owner = Arc::clone(&self.listener_pid);
            let watched = Arc::clone(&self.watched);
            let config = self.config.clone();
            let schema = self.schema.clone();
            let changes = Arc::downgrade(&self.changes);
            let stop = Arc::clone(&self.stop);
            std::thread::Builder::new()
                .name("forms-ask-pg-listen".into())
                .spawn(move || {
                    listen(
                        client,
                        &config,
                        schema.as_deref(),
                        &changes,
                        &stop,
                        &owner,
                        &watched,
                    );
                })
                .map_err(|e| {
                    StoreError::Other(format!("cannot start the store's listener thread: {e}"))
                })?;
            *listening = true;
        }
        Ok(Arc::clone(&self.changes))
    }
}
