//! Stores: where requests, members, audit events and retry keys are kept.
//!
//! The engine decides every transition; a store only applies a [`Commit`] atomically, with
//! its compare-and-set on request versions, its eligibility check and its retry-key record,
//! and wakes waiters. [`SqliteStore`] is the default, [`PostgresStore`] the scale path, and
//! `MemoryStore` (feature `memory`) exists for unit tests only.

use crate::error::StoreError;
use crate::model::{AuditEvent, ConversationId, Member, Principal, Request, RequestId};
use crate::time::Timestamp;
use std::sync::{Condvar, Mutex};
use std::time::Instant;

#[cfg(feature = "memory")]
pub mod memory;
pub mod postgres;
pub mod sqlite;

pub use self::postgres::PostgresStore;
pub use self::sqlite::SqliteStore;

/// One write to the requests table.
#[derive(Debug, Clone)]
pub enum Write {
    /// A new request.
    Insert(Request),
    /// An updated request, applied only if the stored version is still `expected`.
    Update {
        /// The version the engine read.
        expected: u64,
        /// The new request (its version is `expected + 1`).
        request: Request,
    },
}

impl Write {
    /// The request written.
    pub fn request(&self) -> &Request {
        match self {
            Write::Insert(r) | Write::Update { request: r, .. } => r,
        }
    }
}

/// The retry-key record of a write: per principal and key, the input's hash and the first
/// result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// The SHA-256 of the operation and its input, in hex.
    pub input_hash: String,
    /// The first result, as JSON.
    pub result: String,
}

/// Everything one transition writes, applied all or nothing.
#[derive(Debug, Clone)]
pub struct Commit {
    /// The retry key: `(principal, key, record)`. If the key is already recorded, nothing is
    /// written and the record is returned.
    pub retry: Option<(Principal, String, Recorded)>,
    /// A principal that must still be an active member of the conversation when the commit
    /// applies (a responder).
    pub eligible: Option<(ConversationId, Principal)>,
    /// The request writes.
    pub writes: Vec<Write>,
    /// The audit events, in order.
    pub events: Vec<AuditEvent>,
}

/// What became of a commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Committed {
    /// Everything was written.
    Done,
    /// The retry key was already recorded; nothing was written.
    Replayed(Recorded),
    /// The stored version of this request was not the expected one; nothing was written.
    VersionConflict(RequestId),
    /// The principal in `eligible` is no longer an active member; nothing was written.
    NotEligible,
}

/// A change to a member's rights.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberChange {
    /// Joins (or rejoins) the conversation, with contact rights.
    Join,
    /// Leaves or is removed.
    Remove,
    /// Loses contact rights.
    RevokeContact,
    /// Gets contact rights back.
    RestoreContact,
}

/// Waits for changes to one request. Made before the state is read, so no change between
/// the read and the wait is missed.
pub trait Watch: Send {
    /// Returns when the request may have changed, or at `until` at the latest.
    fn wait(&mut self, until: Instant) -> Result<(), StoreError>;
}

/// A place requests are kept. Implementations apply each [`Commit`] atomically.
pub trait Store: Send + Sync {
    /// A short description for messages: the path or the URL without its password.
    fn location(&self) -> String;

    /// The request, if it exists.
    fn load(&self, id: &RequestId) -> Result<Option<Request>, StoreError>;

    /// The store's high-water mark of time: the latest time recorded by any commit (the
    /// newest audit event's time), `None` before the first. It never moves back, so the
    /// engine judges expiry against it and a clock that is behind cannot reopen a request.
    fn high_water(&self) -> Result<Option<Timestamp>, StoreError>;

    /// The request and the high-water mark, in one read where the store can.
    fn load_at(&self, id: &RequestId) -> Result<(Option<Request>, Option<Timestamp>), StoreError> {
        Ok((self.load(id)?, self.high_water()?))
    }

    /// The request's audit log, oldest first.
    fn events(&self, id: &RequestId) -> Result<Vec<AuditEvent>, StoreError>;

    /// The conversation's members, removed ones included.
    fn members(&self, conversation: &ConversationId) -> Result<Vec<Member>, StoreError>;

    /// Changes a member's rights.
    fn change_member(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
        change: MemberChange,
    ) -> Result<(), StoreError>;

    /// The retry-key record of `(principal, key)`, if any.
    fn recorded(&self, principal: &Principal, key: &str) -> Result<Option<Recorded>, StoreError>;

    /// Applies a commit atomically, or nothing of it.
    fn commit(&self, commit: &Commit) -> Result<Committed, StoreError>;

    /// A watch on the request: woken by changes to it.
    fn watch(&self, id: &RequestId) -> Result<Box<dyn Watch>, StoreError>;
}

/// Wakes in-process waiters: a generation counter behind a condition variable.
#[derive(Debug, Default)]
pub(crate) struct Notifier {
    generation: Mutex<u64>,
    changed: Condvar,
}

impl Notifier {
    /// Wakes every waiter.
    pub(crate) fn notify(&self) {
        if let Ok(mut g) = self.generation.lock() {
            *g = g.wrapping_add(1);
        }
        self.changed.notify_all();
    }

    /// The current generation.
    pub(crate) fn generation(&self) -> u64 {
        self.generation.lock().map(|g| *g).unwrap_or(0)
    }

    /// Waits until the generation differs from `seen` or `until` passes; returns the
    /// generation then.
    pub(crate) fn wait(&self, seen: u64, until: Instant) -> u64 {
        let Ok(mut g) = self.generation.lock() else {
            return seen;
        };
        while *g == seen {
            let now = Instant::now();
            if now >= until {
                break;
            }
            match self.changed.wait_timeout(g, until - now) {
                Ok((guard, _)) => g = guard,
                Err(_) => return seen,
            }
        }
        *g
    }
}

/// A watch on a [`Notifier`], optionally capped at a poll interval (for changes made by
/// other processes, which the notifier cannot see).
pub(crate) struct NotifierWatch {
    pub(crate) notifier: std::sync::Arc<Notifier>,
    pub(crate) seen: u64,
    pub(crate) poll: Option<std::time::Duration>,
}

impl Watch for NotifierWatch {
    fn wait(&mut self, until: Instant) -> Result<(), StoreError> {
        let until = match self.poll {
            Some(p) => until.min(Instant::now() + p),
            None => until,
        };
        self.seen = self.notifier.wait(self.seen, until);
        Ok(())
    }
}

/// Reads a stored JSON document.
pub(crate) fn from_doc<T: serde::de::DeserializeOwned>(doc: &str) -> Result<T, StoreError> {
    serde_json::from_str(doc).map_err(|e| StoreError::Corrupt(e.to_string()))
}

/// Writes a JSON document.
pub(crate) fn to_doc<T: serde::Serialize>(value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|e| StoreError::Corrupt(e.to_string()))
}
