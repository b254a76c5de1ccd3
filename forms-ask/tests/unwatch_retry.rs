//! The wait hub tells the store when nobody waits on a request any more
//! (`Store::unwatch_requests`, which PostgreSQL turns into deleting its watch row). A failed
//! call is tried again at the hub's next look instead of leaving the request watched until
//! the process ends. Driven through a store that delegates to the in-memory store and fails
//! its first unwatch calls.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

use forms_ask::store::memory::MemoryStore;
use forms_ask::store::{Changes, Commit, Committed, MemberChange, Recorded};
use forms_ask::{
    Asks, AuditEvent, ConversationId, Listed, Member, MemberEvent, NewRequest, Outcome, Principal,
    Request, RequestId, State, Store, StoreError, StoredUpload, Timestamp,
};
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The in-memory store, keeping the watched requests as a set and failing the first
/// `failures` unwatch calls.
struct Flaky {
    inner: MemoryStore,
    watched: Mutex<HashSet<String>>,
    failures: AtomicUsize,
    unwatch_calls: AtomicUsize,
}

impl Store for Flaky {
    fn location(&self) -> String {
        self.inner.location()
    }
    fn load(&self, id: &RequestId) -> Result<Option<Request>, StoreError> {
        self.inner.load(id)
    }
    fn high_water(&self) -> Result<Option<Timestamp>, StoreError> {
        self.inner.high_water()
    }
    fn events(&self, id: &RequestId) -> Result<Vec<AuditEvent>, StoreError> {
        self.inner.events(id)
    }
    fn members(&self, conversation: &ConversationId) -> Result<Vec<Member>, StoreError> {
        self.inner.members(conversation)
    }
    fn change_member(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
        change: MemberChange,
        event: &MemberEvent,
    ) -> Result<(), StoreError> {
        self.inner
            .change_member(conversation, principal, change, event)
    }
    fn member_events(&self, conversation: &ConversationId) -> Result<Vec<MemberEvent>, StoreError> {
        self.inner.member_events(conversation)
    }
    fn list(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
        now: Timestamp,
        limit: usize,
    ) -> Result<Vec<Listed>, StoreError> {
        self.inner.list(conversation, principal, now, limit)
    }
    fn sees(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
    ) -> Result<bool, StoreError> {
        self.inner.sees(conversation, principal)
    }
    fn events_after(
        &self,
        id: &RequestId,
        after: u64,
        limit: usize,
    ) -> Result<Vec<(u64, AuditEvent)>, StoreError> {
        self.inner.events_after(id, after, limit)
    }
    fn open_requests_of(&self, requester: &Principal, now: Timestamp) -> Result<usize, StoreError> {
        self.inner.open_requests_of(requester, now)
    }
    fn messages_by(&self, id: &RequestId, principal: &Principal) -> Result<usize, StoreError> {
        self.inner.messages_by(id, principal)
    }
    fn uploads(&self, id: &RequestId) -> Result<Vec<StoredUpload>, StoreError> {
        self.inner.uploads(id)
    }
    fn recorded(&self, principal: &Principal, key: &str) -> Result<Option<Recorded>, StoreError> {
        self.inner.recorded(principal, key)
    }
    fn commit(&self, commit: &Commit) -> Result<Committed, StoreError> {
        self.inner.commit(commit)
    }
    fn watch_request(&self, id: &RequestId) -> Result<(), StoreError> {
        self.watched.lock().unwrap().insert(id.as_str().to_owned());
        Ok(())
    }
    fn unwatch_requests(&self, ids: &[RequestId]) -> Result<(), StoreError> {
        self.unwatch_calls.fetch_add(1, Ordering::SeqCst);
        let left = self.failures.load(Ordering::SeqCst);
        if left > 0 {
            self.failures.store(left - 1, Ordering::SeqCst);
            return Err(StoreError::Other(
                "the database went away for a moment".into(),
            ));
        }
        let mut watched = self.watched.lock().unwrap();
        for id in ids {
            watched.remove(id.as_str());
        }
        Ok(())
    }
    fn changes(&self) -> Result<Arc<Changes>, StoreError> {
        self.inner.changes()
    }
    fn claim_once(
        &self,
        key: &str,
        expires_at: Timestamp,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        self.inner.claim_once(key, expires_at, now)
    }
}

#[test]
fn a_failed_unwatch_is_tried_again_until_the_request_is_no_longer_watched() {
    let store = Arc::new(Flaky {
        inner: MemoryStore::new(),
        watched: Mutex::new(HashSet::new()),
        failures: AtomicUsize::new(2),
        unwatch_calls: AtomicUsize::new(0),
    });
    let asks = Asks::with_clock(
        Arc::clone(&store) as Arc<dyn Store>,
        Arc::new(forms_ask::SystemClock),
    );
    let chat = ConversationId::new("chat").unwrap();
    let (agent, ana) = (
        Principal::new("agent").unwrap(),
        Principal::new("ana").unwrap(),
    );
    for p in [&agent, &ana] {
        asks.join(&chat, p).unwrap();
    }
    let r = asks
        .as_principal(&agent)
        .open(&chat, NewRequest::question("q"), "o1")
        .unwrap();
    let handle = asks
        .as_principal(&agent)
        .start_wait(&r.id, Duration::from_secs(60))
        .unwrap();
    assert!(store.watched.lock().unwrap().contains(r.id.as_str()));
    asks.as_principal(&ana)
        .respond(&r.id, 1, Outcome::Answered, Some("yes"), "r1")
        .unwrap();
    assert_eq!(handle.wait().unwrap().state, State::Resolved);
    // The first two unwatch calls fail; the hub tries again at each look (about a second
    // apart), so the request is unwatched on the third.
    let started = Instant::now();
    while store.watched.lock().unwrap().contains(r.id.as_str())
        && started.elapsed() < Duration::from_secs(20)
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !store.watched.lock().unwrap().contains(r.id.as_str()),
        "still watched after {:?} and {} unwatch calls",
        started.elapsed(),
        store.unwatch_calls.load(Ordering::SeqCst)
    );
    assert_eq!(store.unwatch_calls.load(Ordering::SeqCst), 3);
}
