//! Stores: where requests, members, audit events and retry keys are kept.
//!
//! The engine decides every transition; a store only applies a [`Commit`] atomically, with
//! its compare-and-set on request versions, its eligibility check and its retry-key record,
//! and wakes waiters. [`SqliteStore`] is the default, [`PostgresStore`] the scale path, and
//! `MemoryStore` (feature `memory`) exists for unit tests only.
//!
// Without the `postgres` feature the type does not exist: the link goes to the trait.
#![cfg_attr(not(feature = "postgres"), doc = "[`PostgresStore`]: Store")]

use crate::error::StoreError;
use crate::model::{
    AuditEvent, ConversationId, EventKind, Listed, Member, MemberEvent, Principal, Request,
    RequestId, State,
};
use crate::time::Timestamp;
use crate::upload::StoredUpload;
use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

#[cfg(feature = "memory")]
pub mod memory;
#[cfg(feature = "postgres")]
pub mod postgres;
#[cfg(feature = "sqlite")]
pub mod sqlite;

#[cfg(feature = "postgres")]
pub use self::postgres::PostgresStore;
#[cfg(feature = "sqlite")]
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
    /// Files sent with a form's answer, stored with it (written only when everything else
    /// is).
    pub uploads: Vec<StoredUpload>,
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
    /// Joins (or rejoins) as a manager of the conversation, with contact rights.
    JoinAsManager,
    /// Leaves or is removed.
    Remove,
    /// Loses contact rights.
    RevokeContact,
    /// Gets contact rights back.
    RestoreContact,
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

    /// The request, the high-water mark and `principal`'s membership row in the request's
    /// conversation, in one read where the store can.
    #[allow(clippy::type_complexity)]
    fn load_for(
        &self,
        id: &RequestId,
        principal: &Principal,
    ) -> Result<(Option<Request>, Option<Timestamp>, Option<Member>), StoreError> {
        let (request, at) = self.load_at(id)?;
        let member = match &request {
            Some(r) => self
                .members(&r.conversation)?
                .into_iter()
                .find(|m| m.principal == *principal),
            None => None,
        };
        Ok((request, at, member))
    }

    /// The conversation's members and the high-water mark, in one read where the store can.
    fn members_at(
        &self,
        conversation: &ConversationId,
    ) -> Result<(Vec<Member>, Option<Timestamp>), StoreError> {
        Ok((self.members(conversation)?, self.high_water()?))
    }

    /// The request's audit log, oldest first.
    fn events(&self, id: &RequestId) -> Result<Vec<AuditEvent>, StoreError>;

    /// The conversation's members, removed ones included.
    fn members(&self, conversation: &ConversationId) -> Result<Vec<Member>, StoreError>;

    /// Changes a member's rights and appends `event` to the conversation's membership log,
    /// atomically. Removing a member also ends managing.
    fn change_member(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
        change: MemberChange,
        event: &MemberEvent,
    ) -> Result<(), StoreError>;

    /// The conversation's membership log, oldest first.
    fn member_events(&self, conversation: &ConversationId) -> Result<Vec<MemberEvent>, StoreError>;

    /// The requests of `conversation` that name `principal` (as their requester, in their
    /// audience, or as their bound action's executor), as a list reads them: without their
    /// forms and responses ([`Listed`]). Ordered open first (open and not past expiry at
    /// `now`), then by latest change (an open request past its expiry as changed at
    /// `max(now, updated_at)`, when the list marks it expired), then by ID (bytewise); at
    /// most `limit`. The store reads only the rows it returns: filter, order and limit are
    /// its own (indexed), never a load of the conversation.
    fn list(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
        now: Timestamp,
        limit: usize,
    ) -> Result<Vec<Listed>, StoreError>;

    /// Whether `principal` has anything to see in `conversation`: a membership row (removed
    /// members included) or a request there that names it. Reads no request.
    fn sees(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
    ) -> Result<bool, StoreError>;

    /// One page of the request's audit log: the events after the one numbered `after` (`0`:
    /// from the first), oldest first, at most `limit`, each with its number.
    fn events_after(
        &self,
        id: &RequestId,
        after: u64,
        limit: usize,
    ) -> Result<Vec<(u64, AuditEvent)>, StoreError>;

    /// How many requests `requester` opened that are open and not past their expiry at
    /// `now` (in any conversation).
    fn open_requests_of(&self, requester: &Principal, now: Timestamp) -> Result<usize, StoreError>;

    /// How many follow-up messages `principal` posted on the request.
    fn messages_by(&self, id: &RequestId, principal: &Principal) -> Result<usize, StoreError>;

    /// The files stored with the response to request `id`, in their order.
    fn uploads(&self, id: &RequestId) -> Result<Vec<StoredUpload>, StoreError>;

    /// The retry-key record of `(principal, key)`, if any.
    fn recorded(&self, principal: &Principal, key: &str) -> Result<Option<Recorded>, StoreError>;

    /// Applies a commit atomically, or nothing of it.
    fn commit(&self, commit: &Commit) -> Result<Committed, StoreError>;

    /// Tells the store that this process waits on `id`; called before the waiter's first
    /// read, after [`Store::changes`]. PostgreSQL records it (`forms_ask_watched`), and only
    /// writes to watched requests notify; other stores report every write and ignore it.
    fn watch_request(&self, _id: &RequestId) -> Result<(), StoreError> {
        Ok(())
    }

    /// Tells the store that this process no longer waits on `ids`.
    fn unwatch_requests(&self, _ids: &[RequestId]) -> Result<(), StoreError> {
        Ok(())
    }

    /// The store's change feed: the IDs of requests written, by this process and (within a
    /// short delay) by others. The first call starts the store's one watcher (SQLite: a
    /// poll of the audit log every 50 ms on the store's own connection; PostgreSQL: one
    /// `LISTEN` connection), which every waiter of the engine shares.
    fn changes(&self) -> Result<Arc<Changes>, StoreError>;

    /// Claims `key` once: records it until `expires_at` and returns `true`, or returns
    /// `false` when it is already recorded and has not expired at `now`. Of concurrent
    /// claims of one key, in this process or in any other sharing the store, exactly one
    /// gets `true`. Keys expired at `now` are pruned as claims go (a bounded number per
    /// claim). A key is at most [`ONCE_KEY_BYTES_MAX`] bytes.
    ///
    /// Servers use it for what must be accepted once across replicas and restarts, such
    /// as the request states of `forms-mcp`.
    ///
    /// ```
    /// use forms_ask::{SqliteStore, Store, Timestamp};
    /// # let dir = std::env::temp_dir().join(format!("forms-ask-once-doc-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// let store = SqliteStore::open(dir.join("asks.db")).unwrap();
    /// let now = Timestamp::from_millis(1_000);
    /// let until = Timestamp::from_millis(61_000);
    /// assert!(store.claim_once("state:1", until, now).unwrap());
    /// assert!(!store.claim_once("state:1", until, now).unwrap());
    /// // Once expired, the record is gone.
    /// assert!(store.claim_once("state:1", until, until).unwrap());
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    fn claim_once(
        &self,
        key: &str,
        expires_at: Timestamp,
        now: Timestamp,
    ) -> Result<bool, StoreError>;
}

/// The longest key [`Store::claim_once`] takes, in bytes.
pub const ONCE_KEY_BYTES_MAX: usize = 256;

/// How many expired keys one claim prunes at most.
pub(crate) const ONCE_PRUNE_MAX: i64 = 256;

/// Refuses a key longer than [`ONCE_KEY_BYTES_MAX`].
pub(crate) fn check_once_key(key: &str) -> Result<(), StoreError> {
    if key.len() > ONCE_KEY_BYTES_MAX {
        return Err(StoreError::Other(format!(
            "a single-use key has at most {ONCE_KEY_BYTES_MAX} bytes, got {}",
            key.len()
        )));
    }
    Ok(())
}

/// Opens the store a location names: a `postgres://` or `postgresql://` URL is a
/// PostgreSQL database, anything else the path of a SQLite file. A kind of store whose
/// feature (`postgres`, `sqlite`) this build leaves out is refused.
pub fn open_location(location: &str) -> Result<Arc<dyn Store>, StoreError> {
    if location.starts_with("postgres://") || location.starts_with("postgresql://") {
        #[cfg(feature = "postgres")]
        return Ok(Arc::new(PostgresStore::connect(location)?));
        #[cfg(not(feature = "postgres"))]
        return Err(StoreError::Other(format!(
            "cannot open {location}: this build of forms-ask has no PostgreSQL store (feature `postgres`)"
        )));
    }
    #[cfg(feature = "sqlite")]
    return Ok(Arc::new(SqliteStore::open(location)?));
    #[cfg(not(feature = "sqlite"))]
    return Err(StoreError::Other(format!(
        "cannot open {location}: this build of forms-ask has no SQLite store (feature `sqlite`)"
    )));
}

/// How many changes the feed keeps for readers that fall behind; a reader further behind is
/// told that anything may have changed.
const CHANGES_KEPT: usize = 4096;

/// A store's change feed: a bounded log of written request IDs behind a condition variable.
/// Readers follow it with a [`Cursor`]; none of them holds a thread of the store or a
/// database connection.
#[derive(Debug, Default)]
pub struct Changes {
    log: Mutex<ChangeLog>,
    changed: Condvar,
}

#[derive(Debug, Default)]
struct ChangeLog {
    /// The sequence number of the next change.
    next: u64,
    /// The latest changes: `(sequence, request ID)`, `None` for "anything may have changed".
    recent: VecDeque<(u64, Option<String>)>,
    /// Wake-ups without a change (a reader's schedule changed).
    pokes: u64,
}

/// A reader's place in a [`Changes`] feed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    next: u64,
    pokes: u64,
}

/// What changed since a [`Cursor`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Changed {
    /// Nothing (the wait timed out, or the reader was poked).
    Nothing,
    /// These requests were written.
    Ids(HashSet<String>),
    /// Anything may have changed: recheck every request of interest.
    All,
}

impl Changes {
    fn lock(&self) -> std::sync::MutexGuard<'_, ChangeLog> {
        self.log
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Records that these requests were written (`None`: anything may have changed), and
    /// wakes every reader.
    pub fn push<'a>(&self, ids: impl IntoIterator<Item = Option<&'a str>>) {
        let mut log = self.lock();
        for id in ids {
            let n = log.next;
            log.next = n.wrapping_add(1);
            log.recent.push_back((n, id.map(str::to_owned)));
            if log.recent.len() > CHANGES_KEPT {
                log.recent.pop_front();
            }
        }
        drop(log);
        self.changed.notify_all();
    }

    /// Wakes every reader without a change.
    pub fn poke(&self) {
        let mut log = self.lock();
        log.pokes = log.pokes.wrapping_add(1);
        drop(log);
        self.changed.notify_all();
    }

    /// The place of a reader that starts now.
    pub fn cursor(&self) -> Cursor {
        let log = self.lock();
        Cursor {
            next: log.next,
            pokes: log.pokes,
        }
    }

    /// Waits until there is a change after `cursor`, a poke, or `until`; returns the new
    /// cursor and what changed.
    pub fn wait(&self, cursor: Cursor, until: Instant) -> (Cursor, Changed) {
        let mut log = self.lock();
        while log.next == cursor.next && log.pokes == cursor.pokes {
            let now = Instant::now();
            if now >= until {
                break;
            }
            log = match self.changed.wait_timeout(log, until - now) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
        let now_at = Cursor {
            next: log.next,
            pokes: log.pokes,
        };
        if log.next == cursor.next {
            return (now_at, Changed::Nothing);
        }
        let oldest = log.recent.front().map_or(log.next, |(n, _)| *n);
        if cursor.next < oldest {
            return (now_at, Changed::All);
        }
        let mut ids = HashSet::new();
        for (n, id) in &log.recent {
            if *n < cursor.next {
                continue;
            }
            match id {
                Some(id) => {
                    ids.insert(id.clone());
                }
                None => return (now_at, Changed::All),
            }
        }
        (now_at, Changed::Ids(ids))
    }
}

/// The request IDs a commit writes: its requests and its events' requests.
#[cfg(any(feature = "sqlite", feature = "memory"))]
pub(crate) fn written(commit: &Commit) -> impl Iterator<Item = Option<&str>> {
    commit
        .writes
        .iter()
        .map(|w| Some(w.request().id.as_str()))
        .chain(commit.events.iter().map(|e| Some(e.request.as_str())))
}

/// What a store keeps beside a request's document, so that lists, quotas and orderings
/// read small indexed columns instead of documents of up to two mebibytes.
pub(crate) struct Columns<'a> {
    /// The list entry's request as JSON: the document without the form and the response.
    pub brief: String,
    /// Whether the request carries a form.
    pub has_form: bool,
    /// The saved response's action.
    pub response_action: Option<&'a str>,
    /// When it last changed, in milliseconds.
    pub updated_at: i64,
    /// When it expires, in milliseconds; `None` for never.
    pub expires_at: Option<i64>,
    /// Who opened it.
    pub requester: &'a str,
    /// Everyone it names (requester, audience, bound executor), each once.
    pub names: Vec<&'a str>,
}

impl<'a> Columns<'a> {
    pub(crate) fn of(r: &'a Request) -> Result<Columns<'a>, StoreError> {
        let mut names: Vec<&str> = Vec::with_capacity(r.audience.len() + 2);
        names.push(r.requester.as_str());
        names.extend(r.audience.iter().map(Principal::as_str));
        if let Some(action) = &r.action {
            names.push(action.executor.as_str());
        }
        names.sort_unstable();
        names.dedup();
        Ok(Columns {
            brief: to_doc(&Listed::of(r).request)?,
            has_form: r.form.is_some(),
            response_action: r.response_action(),
            updated_at: r.updated_at.millis(),
            expires_at: r.expires_at.deadline().map(Timestamp::millis),
            requester: r.requester.as_str(),
            names,
        })
    }
}

/// The principal whose follow-up message an event is; `None` for every other event.
pub(crate) fn message_by(event: &AuditEvent) -> Option<&str> {
    match (&event.event, &event.actor) {
        (EventKind::Message, Some(actor)) => Some(actor.as_str()),
        _ => None,
    }
}

/// Reads a list entry from its stored columns.
pub(crate) fn listed_from(
    brief: &str,
    has_form: bool,
    response_action: Option<String>,
) -> Result<Listed, StoreError> {
    Ok(Listed {
        request: from_doc(brief)?,
        has_form,
        response_action,
    })
}

/// Whether a request is open and not past its expiry at `now` (as the engine judges it:
/// at `max(now, updated_at)`).
pub(crate) fn open_at(r: &Request, now: Timestamp) -> bool {
    r.state == State::Open && !r.expires_at.is_past(now.max(r.updated_at))
}

/// The order of [`Store::list`], for a store that sorts in memory and for the engine after
/// it marks expired ones: open first, then latest change, then ID.
pub(crate) fn list_order(a: &Request, b: &Request, now: Timestamp) -> std::cmp::Ordering {
    let changed = |r: &Request| {
        if r.state == State::Open && !open_at(r, now) {
            now.max(r.updated_at)
        } else {
            r.updated_at
        }
    };
    open_at(b, now)
        .cmp(&open_at(a, now))
        .then(changed(b).cmp(&changed(a)))
        .then(a.id.as_str().cmp(b.id.as_str()))
}

/// Reads a stored JSON document.
pub(crate) fn from_doc<T: serde::de::DeserializeOwned>(doc: &str) -> Result<T, StoreError> {
    serde_json::from_str(doc).map_err(|e| StoreError::Corrupt(e.to_string()))
}

/// Writes a JSON document.
pub(crate) fn to_doc<T: serde::Serialize>(value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|e| StoreError::Corrupt(e.to_string()))
}
