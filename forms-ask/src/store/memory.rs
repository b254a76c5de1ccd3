//! An in-memory store, for unit tests only (feature `memory`): it keeps nothing across a
//! restart and is the default nowhere.

use super::{written, Changes, Commit, Committed, MemberChange, Recorded, Store, Write};
use crate::error::StoreError;
use crate::model::{
    AuditEvent, ConversationId, Listed, Member, MemberEvent, Principal, Request, RequestId,
};
use crate::time::Timestamp;
use crate::upload::StoredUpload;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};

#[derive(Default)]
struct Tables {
    /// (removed, contact revoked, manager)
    members: BTreeMap<(ConversationId, Principal), (bool, bool, bool)>,
    member_events: Vec<MemberEvent>,
    requests: HashMap<RequestId, Request>,
    events: HashMap<RequestId, Vec<AuditEvent>>,
    idempotency: HashMap<(Principal, String), Recorded>,
    high_water: Option<Timestamp>,
    once: HashMap<String, Timestamp>,
    uploads: HashMap<RequestId, Vec<StoredUpload>>,
}

/// A store in memory, for unit tests only.
#[derive(Default)]
pub struct MemoryStore {
    tables: Mutex<Tables>,
    changes: Arc<Changes>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn tables(&self) -> Result<MutexGuard<'_, Tables>, StoreError> {
        self.tables
            .lock()
            .map_err(|_| StoreError::Other("the memory store lock is poisoned".into()))
    }
}

impl Store for MemoryStore {
    fn location(&self) -> String {
        "memory".into()
    }

    fn load(&self, id: &RequestId) -> Result<Option<Request>, StoreError> {
        Ok(self.tables()?.requests.get(id).cloned())
    }

    fn high_water(&self) -> Result<Option<Timestamp>, StoreError> {
        Ok(self.tables()?.high_water)
    }

    fn events(&self, id: &RequestId) -> Result<Vec<AuditEvent>, StoreError> {
        Ok(self.tables()?.events.get(id).cloned().unwrap_or_default())
    }

    fn members(&self, conversation: &ConversationId) -> Result<Vec<Member>, StoreError> {
        Ok(self
            .tables()?
            .members
            .iter()
            .filter(|((c, _), _)| c == conversation)
            .map(|((_, p), (removed, revoked, manager))| Member {
                principal: p.clone(),
                removed: *removed,
                contact_revoked: *revoked,
                manager: *manager,
            })
            .collect())
    }

    fn change_member(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
        change: MemberChange,
        event: &MemberEvent,
    ) -> Result<(), StoreError> {
        let mut t = self.tables()?;
        let key = (conversation.clone(), principal.clone());
        match change {
            MemberChange::Join => {
                let manager = t.members.get(&key).is_some_and(|m| m.2);
                t.members.insert(key, (false, false, manager));
            }
            MemberChange::JoinAsManager => {
                t.members.insert(key, (false, false, true));
            }
            MemberChange::Remove => {
                let m = t.members.entry(key).or_insert((true, false, false));
                m.0 = true;
                m.2 = false;
            }
            MemberChange::RevokeContact => {
                t.members.entry(key).or_insert((true, true, false)).1 = true;
            }
            MemberChange::RestoreContact => {
                if let Some(m) = t.members.get_mut(&key) {
                    m.1 = false;
                }
            }
        }
        t.member_events.push(event.clone());
        drop(t);
        Ok(())
    }

    fn member_events(&self, conversation: &ConversationId) -> Result<Vec<MemberEvent>, StoreError> {
        Ok(self
            .tables()?
            .member_events
            .iter()
            .filter(|e| e.conversation == *conversation)
            .cloned()
            .collect())
    }

    fn list(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
        now: Timestamp,
        limit: usize,
    ) -> Result<Vec<Listed>, StoreError> {
        let t = self.tables()?;
        let mut mine: Vec<&Request> = t
            .requests
            .values()
            .filter(|r| r.conversation == *conversation && names(r, principal))
            .collect();
        mine.sort_by(|a, b| super::list_order(a, b, now));
        Ok(mine.into_iter().take(limit).map(Listed::of).collect())
    }

    fn sees(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
    ) -> Result<bool, StoreError> {
        let t = self.tables()?;
        Ok(t.members
            .contains_key(&(conversation.clone(), principal.clone()))
            || t.requests
                .values()
                .any(|r| r.conversation == *conversation && names(r, principal)))
    }

    fn events_after(
        &self,
        id: &RequestId,
        after: u64,
        limit: usize,
    ) -> Result<Vec<(u64, AuditEvent)>, StoreError> {
        let t = self.tables()?;
        Ok(t.events
            .get(id)
            .into_iter()
            .flatten()
            .zip(1_u64..)
            .filter(|(_, n)| *n > after)
            .take(limit)
            .map(|(e, n)| (n, e.clone()))
            .collect())
    }

    fn open_requests_of(&self, requester: &Principal, now: Timestamp) -> Result<usize, StoreError> {
        Ok(self
            .tables()?
            .requests
            .values()
            .filter(|r| r.requester == *requester && super::open_at(r, now))
            .count())
    }

    fn messages_by(&self, id: &RequestId, principal: &Principal) -> Result<usize, StoreError> {
        Ok(self
            .tables()?
            .events
            .get(id)
            .into_iter()
            .flatten()
            .filter(|e| super::message_by(e) == Some(principal.as_str()))
            .count())
    }

    fn recorded(&self, principal: &Principal, key: &str) -> Result<Option<Recorded>, StoreError> {
        Ok(self
            .tables()?
            .idempotency
            .get(&(principal.clone(), key.to_owned()))
            .cloned())
    }

    fn commit(&self, commit: &Commit) -> Result<Committed, StoreError> {
        let mut t = self.tables()?;
        if let Some((p, key, _)) = &commit.retry {
            if let Some(first) = t.idempotency.get(&(p.clone(), key.clone())) {
                return Ok(Committed::Replayed(first.clone()));
            }
        }
        if let Some((c, p)) = &commit.eligible {
            if t.members
                .get(&(c.clone(), p.clone()))
                .is_none_or(|m| m.0 || m.1)
            {
                return Ok(Committed::NotEligible);
            }
        }
        for write in &commit.writes {
            match write {
                Write::Insert(r) => {
                    if t.requests.contains_key(&r.id) {
                        return Err(StoreError::Other(format!("request {} exists", r.id)));
                    }
                }
                Write::Update { expected, request } => {
                    if t.requests.get(&request.id).map(|r| r.version) != Some(*expected) {
                        return Ok(Committed::VersionConflict(request.id.clone()));
                    }
                }
            }
        }
        for write in &commit.writes {
            let r = write.request().clone();
            t.requests.insert(r.id.clone(), r);
        }
        for e in &commit.events {
            t.high_water = t.high_water.max(Some(e.at));
            t.events
                .entry(e.request.clone())
                .or_default()
                .push(e.clone());
        }
        for u in &commit.uploads {
            t.uploads
                .entry(u.request.clone())
                .or_default()
                .push(u.clone());
        }
        if let Some((p, key, record)) = &commit.retry {
            t.idempotency
                .insert((p.clone(), key.clone()), record.clone());
        }
        drop(t);
        self.changes.push(written(commit));
        Ok(Committed::Done)
    }

    fn uploads(&self, id: &RequestId) -> Result<Vec<StoredUpload>, StoreError> {
        Ok(self.tables()?.uploads.get(id).cloned().unwrap_or_default())
    }

    fn changes(&self) -> Result<Arc<Changes>, StoreError> {
        Ok(Arc::clone(&self.changes))
    }

    fn claim_once(
        &self,
        key: &str,
        expires_at: Timestamp,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        super::check_once_key(key)?;
        let mut t = self.tables()?;
        t.once.retain(|_, until| *until > now);
        if t.once.contains_key(key) {
            return Ok(false);
        }
        t.once.insert(key.to_owned(), expires_at);
        Ok(true)
    }
}

/// Whether the request names `principal`: its requester, in its audience, or its bound
/// action's executor.
fn names(r: &Request, principal: &Principal) -> bool {
    r.requester == *principal
        || r.audience.contains(principal)
        || r.action
            .as_ref()
            .is_some_and(|a| a.executor == principal.as_str())
}
