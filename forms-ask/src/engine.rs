//! The engine: every rule of a request's life, decided here and applied through a [`Store`].

use crate::error::{ActionRefusal, AskError, Ineligible, StoreError};
use crate::limits::{self, Quotas};
use crate::model::{
    AuditEvent, ConversationId, EventKind, Execution, ExecutionStatus, Kind, Listed, LogPage,
    Member, MemberEvent, MemberEventKind, NewRequest, Outcome, Principal, Redeem, Redemption,
    Replaced, Replacement, Request, RequestId, RetryKey, State,
};
use crate::retry::{sha256_hex, InputHash};
use crate::store::{Commit, Committed, MemberChange, Recorded, Store, Write};
use crate::time::{Clock, Expiry, SystemClock, Timestamp};
use crate::upload::{StoredUpload, Upload};
use crate::wait::{Hub, WaitHandle, WAITS_PER_PRINCIPAL};
use forms_runtime::{DataForm, ErrorCode, FormError};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::json;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How far ahead an explicit expiry may be: 90 days after creation.
pub const EXPIRY_MAX: Duration = Duration::from_secs(90 * 24 * 3600);

/// The default expiry of an approval bound to an action: 7 days.
pub const BOUND_APPROVAL_EXPIRY: Duration = Duration::from_secs(7 * 24 * 3600);

/// The engine over one store. Share it (it is `Send + Sync`); act through
/// [`Asks::as_principal`].
///
/// ```
/// use forms_ask::{Asks, ConversationId, NewRequest, Outcome, Principal, SqliteStore};
///
/// let dir = std::env::temp_dir().join(format!("forms-ask-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let asks = Asks::new(SqliteStore::open(dir.join("asks.db"))?);
/// let (chat, agent, ana) = (
///     ConversationId::new("release-42")?,
///     Principal::new("agent")?,
///     Principal::new("ana")?,
/// );
/// asks.join(&chat, &agent)?;
/// asks.join(&chat, &ana)?;
///
/// let request = asks
///     .as_principal(&agent)
///     .open(&chat, NewRequest::approval("Deploy 1.4 to staging?"), "open-1")?;
/// let done = asks
///     .as_principal(&ana)
///     .respond(&request.id, request.version, Outcome::Approved, None, "answer-1")?;
/// assert_eq!(done.outcome, Some(Outcome::Approved));
/// # std::fs::remove_dir_all(&dir).ok();
/// # Ok::<(), forms_ask::AskError>(())
/// ```
pub struct Asks {
    inner: Arc<Inner>,
}

/// What an engine is made of; its wait hub follows it by a weak reference.
pub(crate) struct Inner {
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    high_water: AtomicI64,
    waits: Arc<Hub>,
    quotas: Quotas,
}

impl std::fmt::Debug for Asks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Asks")
            .field("store", &self.inner.store.location())
            .finish()
    }
}

impl Asks {
    /// The engine over `store`, with the system clock.
    pub fn new(store: impl Store + 'static) -> Asks {
        Asks::with_clock(Arc::new(store), Arc::new(SystemClock))
    }

    /// The engine over `store`, reading the time from `clock`.
    pub fn with_clock(store: Arc<dyn Store>, clock: Arc<dyn Clock>) -> Asks {
        Asks {
            inner: Arc::new(Inner {
                store,
                clock,
                high_water: AtomicI64::new(i64::MIN),
                waits: Arc::new(Hub::new(WAITS_PER_PRINCIPAL)),
                quotas: Quotas::default(),
            }),
        }
    }

    /// The same engine, allowing each principal at most `limit` concurrent waits (default
    /// [`WAITS_PER_PRINCIPAL`]); a wait beyond it is refused with
    /// [`AskError::TooManyWaits`]. Set it before the first wait.
    pub fn with_wait_limit(self, limit: usize) -> Asks {
        let inner = match Arc::try_unwrap(self.inner) {
            Ok(mut inner) => {
                inner.waits = Arc::new(Hub::new(limit));
                inner
            }
            Err(inner) => return Asks { inner },
        };
        Asks {
            inner: Arc::new(inner),
        }
    }

    /// The same engine with these per-principal quotas (default [`Quotas::default`]): how
    /// many requests one principal may have open, how many messages it may post on one
    /// request. Set them before the engine is shared.
    ///
    /// ```
    /// # use forms_ask::{Asks, ConversationId, NewRequest, Principal, Quotas, SqliteStore};
    /// # let dir = std::env::temp_dir().join(format!("forms-ask-quota-doc-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// let quotas = Quotas { open_requests: 1, ..Quotas::default() };
    /// let asks = Asks::new(SqliteStore::open(dir.join("asks.db"))?).with_quotas(quotas);
    /// # let (chat, agent) = (ConversationId::new("c")?, Principal::new("agent")?);
    /// # asks.join(&chat, &agent)?;
    /// # asks.join(&chat, &Principal::new("ana")?)?;
    /// let me = asks.as_principal(&agent);
    /// me.open(&chat, NewRequest::question("Which day?"), "open-1")?;
    /// let refused = me.open(&chat, NewRequest::question("Which time?"), "open-2");
    /// assert_eq!(refused.unwrap_err().code(), "quota_exceeded");
    /// # std::fs::remove_dir_all(&dir).ok();
    /// # Ok::<(), forms_ask::AskError>(())
    /// ```
    pub fn with_quotas(self, quotas: Quotas) -> Asks {
        match Arc::try_unwrap(self.inner) {
            Ok(mut inner) => {
                inner.quotas = quotas;
                Asks {
                    inner: Arc::new(inner),
                }
            }
            Err(inner) => Asks { inner },
        }
    }

    /// The per-principal quotas in force.
    pub fn quotas(&self) -> Quotas {
        self.inner.quotas
    }

    /// The number of waits in progress (every principal's): a released or finished wait no
    /// longer counts.
    pub fn waits_in_progress(&self) -> usize {
        self.inner.waits.waiting()
    }

    /// The engine behind a hub's weak reference.
    pub(crate) fn from_inner(inner: Arc<Inner>) -> Asks {
        Asks { inner }
    }

    /// The wait hub and a weak reference to this engine, for a waiter.
    pub(crate) fn waits(&self) -> (&Arc<Hub>, std::sync::Weak<Inner>) {
        (&self.inner.waits, Arc::downgrade(&self.inner))
    }

    /// Opens the store a location names: a `postgres://` or `postgresql://` URL is a
    /// PostgreSQL database, anything else the path of a SQLite file.
    /// A store whose feature (`sqlite`, `postgres`) is off is refused.
    pub fn open_location(location: &str) -> Result<Asks, AskError> {
        let store = crate::store::open_location(location)?;
        Ok(Asks::with_clock(store, Arc::new(SystemClock)))
    }

    /// The store.
    pub fn store(&self) -> &dyn Store {
        &*self.inner.store
    }

    /// The time: the clock's, but never earlier than a time this engine already used or saw
    /// recorded in its store, so a clock that jumps back cannot reopen what has expired.
    pub fn now(&self) -> Timestamp {
        let now = self.inner.clock.now().millis();
        let before = self.inner.high_water.fetch_max(now, Ordering::SeqCst);
        Timestamp::from_millis(now.max(before))
    }

    /// Loads the request as [`AsPrincipal::show`] does (expiry applied), for `principal`.
    pub(crate) fn show_as(
        &self,
        principal: &Principal,
        id: &RequestId,
    ) -> Result<Request, AskError> {
        self.as_principal(principal).show(id)
    }

    /// Raises this engine's time to the store's high-water mark.
    fn observe(&self, store_high_water: Option<Timestamp>) {
        if let Some(t) = store_high_water {
            self.inner
                .high_water
                .fetch_max(t.millis(), Ordering::SeqCst);
        }
    }

    /// A handle that acts as `principal`.
    pub fn as_principal<'a>(&'a self, principal: &Principal) -> AsPrincipal<'a> {
        AsPrincipal {
            asks: self,
            me: principal.clone(),
        }
    }

    /// Adds `principal` to the conversation (or brings them back), with contact rights, as
    /// the operator (recorded with no actor). A member who joins later is never in an
    /// earlier request's audience.
    pub fn join(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
    ) -> Result<(), AskError> {
        self.change_member(None, conversation, principal, MemberChange::Join)
    }

    /// Adds `principal` as a manager of the conversation (or makes a member one), as the
    /// operator. A manager may change the conversation's membership while it is an active
    /// member ([`AsPrincipal::join`] and the others); only the operator makes managers.
    pub fn join_as_manager(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
    ) -> Result<(), AskError> {
        self.change_member(None, conversation, principal, MemberChange::JoinAsManager)
    }

    /// Removes `principal` from the conversation, as the operator: they lose their current
    /// eligibility (and managing).
    pub fn remove_member(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
    ) -> Result<(), AskError> {
        self.change_member(None, conversation, principal, MemberChange::Remove)
    }

    /// Revokes `principal`'s contact rights in the conversation, as the operator.
    pub fn revoke_contact(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
    ) -> Result<(), AskError> {
        self.change_member(None, conversation, principal, MemberChange::RevokeContact)
    }

    /// Gives `principal` contact rights back, as the operator.
    pub fn restore_contact(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
    ) -> Result<(), AskError> {
        self.change_member(None, conversation, principal, MemberChange::RestoreContact)
    }

    /// The conversation's membership log, oldest first: every join, removal, revocation
    /// and restoration, with who made it and when.
    pub fn member_log(&self, conversation: &ConversationId) -> Result<Vec<MemberEvent>, AskError> {
        Ok(self.inner.store.member_events(conversation)?)
    }

    /// Applies one membership change and records it in the conversation's log.
    fn change_member(
        &self,
        actor: Option<&Principal>,
        conversation: &ConversationId,
        principal: &Principal,
        change: MemberChange,
    ) -> Result<(), AskError> {
        let event = MemberEvent {
            conversation: conversation.clone(),
            principal: principal.clone(),
            event: match change {
                MemberChange::Join => MemberEventKind::Joined,
                MemberChange::JoinAsManager => MemberEventKind::JoinedAsManager,
                MemberChange::Remove => MemberEventKind::Removed,
                MemberChange::RevokeContact => MemberEventKind::ContactRevoked,
                MemberChange::RestoreContact => MemberEventKind::ContactRestored,
            },
            actor: actor.cloned(),
            at: self.now(),
        };
        Ok(self
            .inner
            .store
            .change_member(conversation, principal, change, &event)?)
    }

    /// The conversation's members, removed ones included.
    pub fn members(&self, conversation: &ConversationId) -> Result<Vec<Member>, AskError> {
        Ok(self.inner.store.members(conversation)?)
    }

    /// Loads the request; one found open past its expiry is marked expired first. Expiry is
    /// judged against the store's high-water mark of time, so a request past its deadline
    /// stays expired for a later call whose clock is behind, whether or not anyone read it
    /// in between. On a read-only store the expiry is shown but cannot be recorded.
    fn current(&self, id: &RequestId) -> Result<Request, AskError> {
        let (found, high_water) = self.inner.store.load_at(id)?;
        self.observe(high_water);
        self.settle(id, found)
    }

    /// [`Asks::current`], and `principal`'s membership row in the request's conversation,
    /// in one read where the store can.
    fn current_for(
        &self,
        id: &RequestId,
        principal: &Principal,
    ) -> Result<(Request, Option<Member>), AskError> {
        let (found, high_water, member) = self.inner.store.load_for(id, principal)?;
        self.observe(high_water);
        Ok((self.settle(id, found)?, member))
    }

    /// A request as loaded; one open past its expiry is marked expired first.
    fn settle(&self, id: &RequestId, found: Option<Request>) -> Result<Request, AskError> {
        let mut r = found.ok_or_else(|| AskError::NotFound(id.clone()))?;
        loop {
            let now = self.now().max(r.updated_at);
            if r.state != State::Open || !r.expires_at.is_past(now) {
                return Ok(r);
            }
            let next = transition(&r, State::Expired, now);
            let event = event(&next, EventKind::Expired, None, now, None);
            let commit = Commit {
                retry: None,
                eligible: None,
                writes: vec![Write::Update {
                    expected: r.version,
                    request: next.clone(),
                }],
                events: vec![event],
                uploads: Vec::new(),
            };
            let committed = match self.inner.store.commit(&commit) {
                Err(StoreError::ReadOnly { .. }) => return Ok(next),
                other => other?,
            };
            match committed {
                Committed::Done => return Ok(next),
                Committed::VersionConflict(_) => {
                    r = self
                        .inner
                        .store
                        .load(id)?
                        .ok_or_else(|| AskError::NotFound(id.clone()))?;
                }
                other => {
                    return Err(AskError::Store(StoreError::Other(format!(
                        "unexpected result of an expiry: {other:?}"
                    ))))
                }
            }
        }
    }
}

/// The next version of `r` in `state`.
fn transition(r: &Request, state: State, now: Timestamp) -> Request {
    let mut next = r.clone();
    next.state = state;
    next.version = r.version.saturating_add(1);
    next.updated_at = now;
    next
}

fn event(
    r: &Request,
    kind: EventKind,
    actor: Option<&Principal>,
    at: Timestamp,
    detail: Option<serde_json::Value>,
) -> AuditEvent {
    AuditEvent {
        request: r.id.clone(),
        event: kind,
        actor: actor.cloned(),
        at,
        version: r.version,
        state: r.state,
        detail,
    }
}

/// A fresh request ID: `req_` and 24 hex digits, from the time, the process, a counter and
/// the writer's key.
fn new_id(me: &Principal, key: &str) -> RequestId {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let digest = sha256_hex(&[
        &nanos.to_string(),
        &std::process::id().to_string(),
        &n.to_string(),
        me.as_str(),
        key,
    ]);
    RequestId::made(format!("req_{}", digest.get(..24).unwrap_or(&digest)))
}

fn check_text(what: &str, text: &str) -> Result<(), AskError> {
    if text.trim().is_empty() {
        return Err(AskError::InvalidInput(format!("{what} must not be blank")));
    }
    Ok(())
}

/// The expiry of a request created at `now`: an explicit one must lie after `now` and within
/// 90 days of it; otherwise bound approvals get 7 days and everything else none.
fn expiry(explicit: Option<Timestamp>, bound: bool, now: Timestamp) -> Result<Expiry, AskError> {
    match explicit {
        Some(at) if at <= now => Err(AskError::InvalidInput(format!(
            "the expiry {at} is not after the creation time {now}"
        ))),
        Some(at) if at > now.plus(EXPIRY_MAX) => Err(AskError::InvalidInput(format!(
            "the expiry {at} is more than 90 days after the creation time {now}"
        ))),
        Some(at) => Ok(Expiry::At(at)),
        None if bound => Ok(Expiry::At(now.plus(BOUND_APPROVAL_EXPIRY))),
        None => Ok(Expiry::Never),
    }
}

/// What a write will commit, and what it returns.
struct Plan<T> {
    eligible: Option<(ConversationId, Principal)>,
    writes: Vec<Write>,
    events: Vec<AuditEvent>,
    result: T,
}

/// The engine acting as one principal. Every write takes a retry key: the same key with
/// the same input returns the first result; with a different input it is refused.
#[derive(Debug)]
pub struct AsPrincipal<'a> {
    asks: &'a Asks,
    me: Principal,
}

impl AsPrincipal<'_> {
    /// Who this handle acts as.
    pub fn principal(&self) -> &Principal {
        &self.me
    }

    fn store(&self) -> &dyn Store {
        &*self.asks.inner.store
    }

    /// The store, shared (a form request's handle reads its uploads with it).
    pub(crate) fn shared_store(&self) -> Arc<dyn Store> {
        Arc::clone(&self.asks.inner.store)
    }

    /// Runs one write: replays a recorded retry key, or plans and commits. `input` is what
    /// the key is bound to (see [`crate::retry`]). Each `plan` takes its time after its first
    /// read, which observes the store's high-water mark (a request read with it, or the
    /// conversation's members with it), so the time is judged against the store without a
    /// read of its own.
    fn write<T: Serialize + DeserializeOwned>(
        &self,
        operation: &'static str,
        input: Result<InputHash, AskError>,
        key: &str,
        plan: impl FnOnce() -> Result<Plan<T>, AskError>,
    ) -> Result<T, AskError> {
        self.write_with_uploads(operation, input, key, || plan().map(|p| (p, Vec::new())))
    }

    /// [`AsPrincipal::write`], committing files sent with a form's answer as well.
    fn write_with_uploads<T: Serialize + DeserializeOwned>(
        &self,
        operation: &'static str,
        input: Result<InputHash, AskError>,
        key: &str,
        plan: impl FnOnce() -> Result<(Plan<T>, Vec<StoredUpload>), AskError>,
    ) -> Result<T, AskError> {
        let key = RetryKey::new(key)?;
        let input = input?;
        let replay = |first: Recorded| -> Result<T, AskError> {
            if !input.matches(&first.input_hash) {
                return Err(AskError::RetryKeyReused {
                    key: key.as_str().to_owned(),
                    operation,
                });
            }
            serde_json::from_str(&first.result).map_err(|e| {
                AskError::Store(StoreError::Corrupt(format!(
                    "the first result of retry key {:?}: {e}",
                    key.as_str()
                )))
            })
        };
        // Plan first: the commit checks the retry key atomically, so a write that goes
        // through needs no extra read. A refused plan may be the retry of a write that went
        // through (the request has moved on since): then its first result is replayed.
        let (plan, uploads) = match plan() {
            Ok(planned) => planned,
            Err(e @ AskError::Store(_)) => return Err(e),
            Err(e) => {
                return match self.store().recorded(&self.me, key.as_str())? {
                    Some(first) => replay(first),
                    None => Err(e),
                }
            }
        };
        let result = serde_json::to_string(&plan.result)
            .map_err(|e| AskError::Store(StoreError::Corrupt(e.to_string())))?;
        let commit = Commit {
            retry: Some((
                self.me.clone(),
                key.as_str().to_owned(),
                Recorded {
                    input_hash: input.canonical.clone(),
                    result,
                },
            )),
            eligible: plan.eligible,
            writes: plan.writes,
            events: plan.events,
            uploads,
        };
        match self.store().commit(&commit)? {
            Committed::Done => Ok(plan.result),
            Committed::Replayed(first) => replay(first),
            Committed::VersionConflict(id) => {
                let latest = self.asks.current(&id)?;
                Err(conflict(latest))
            }
            Committed::NotEligible => {
                let request = commit
                    .writes
                    .first()
                    .map(|w| w.request().id.clone())
                    .ok_or_else(|| {
                        StoreError::Other("an eligibility check without a write".into())
                    })?;
                let latest = self.asks.current(&request)?;
                match self.eligibility(&latest) {
                    Err(e) => Err(e),
                    Ok(()) => Err(AskError::NotEligible {
                        principal: self.me.clone(),
                        request,
                        reason: Ineligible::NotAMember,
                    }),
                }
            }
        }
    }

    /// Eligible = in the original audience AND still a member AND contact rights stand;
    /// and never the requester of an approval, nor the executor its bound action names
    /// (membership is not approval authority).
    fn eligibility(&self, r: &Request) -> Result<(), AskError> {
        let member = self
            .store()
            .members(&r.conversation)?
            .into_iter()
            .find(|m| m.principal == self.me);
        self.eligibility_with(r, member)
    }

    /// [`AsPrincipal::eligibility`] with this principal's membership row already read.
    fn eligibility_with(&self, r: &Request, member: Option<Member>) -> Result<(), AskError> {
        let refuse = |reason| AskError::NotEligible {
            principal: self.me.clone(),
            request: r.id.clone(),
            reason,
        };
        if r.kind == Kind::Approval {
            if r.requester == self.me {
                return Err(refuse(Ineligible::Requester));
            }
            if is_executor(r, &self.me) {
                return Err(refuse(Ineligible::Executor));
            }
        }
        if !r.audience.contains(&self.me) {
            return Err(refuse(Ineligible::NotInAudience));
        }
        match member {
            Some(m) if m.removed => Err(refuse(Ineligible::NotAMember)),
            None => Err(refuse(Ineligible::NotAMember)),
            Some(m) if m.contact_revoked => Err(refuse(Ineligible::ContactRevoked)),
            Some(_) => Ok(()),
        }
    }

    /// The requester, the original audience, the executor a bound action names and the
    /// conversation's current members may see a request.
    fn readable(&self, id: &RequestId) -> Result<Request, AskError> {
        let r = self.asks.current(id)?;
        if r.requester == self.me || r.audience.contains(&self.me) || is_executor(&r, &self.me) {
            return Ok(r);
        }
        let member = self
            .store()
            .members(&r.conversation)?
            .into_iter()
            .any(|m| m.principal == self.me && !m.removed);
        if member {
            Ok(r)
        } else {
            Err(AskError::NotAllowed {
                principal: self.me.clone(),
                request: r.id,
            })
        }
    }

    /// Refuses anyone but an active manager of the conversation.
    fn manager_of(&self, conversation: &ConversationId) -> Result<(), AskError> {
        let manages = self
            .store()
            .members(conversation)?
            .into_iter()
            .any(|m| m.principal == self.me && m.manager && m.is_active());
        if manages {
            Ok(())
        } else {
            Err(AskError::NotManager {
                principal: self.me.clone(),
                conversation: conversation.clone(),
            })
        }
    }

    /// Adds `principal` to the conversation (or brings them back) with contact rights;
    /// only an active manager of the conversation may. Recorded in its membership log with
    /// this principal as the actor.
    pub fn join(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
    ) -> Result<(), AskError> {
        self.manage(conversation, principal, MemberChange::Join)
    }

    /// Removes `principal` from the conversation (and from managing it); only an active
    /// manager may.
    pub fn remove_member(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
    ) -> Result<(), AskError> {
        self.manage(conversation, principal, MemberChange::Remove)
    }

    /// Revokes `principal`'s contact rights in the conversation; only an active manager may.
    pub fn revoke_contact(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
    ) -> Result<(), AskError> {
        self.manage(conversation, principal, MemberChange::RevokeContact)
    }

    /// Gives `principal` contact rights back; only an active manager may.
    pub fn restore_contact(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
    ) -> Result<(), AskError> {
        self.manage(conversation, principal, MemberChange::RestoreContact)
    }

    fn manage(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
        change: MemberChange,
    ) -> Result<(), AskError> {
        self.manager_of(conversation)?;
        self.asks
            .change_member(Some(&self.me), conversation, principal, change)
    }

    /// The conversation's members; only its current members (removed ones excepted) may
    /// read them.
    pub fn members(&self, conversation: &ConversationId) -> Result<Vec<Member>, AskError> {
        let members = self.store().members(conversation)?;
        self.member_of(conversation, &members)?;
        Ok(members)
    }

    /// The conversation's membership log; only its current members may read it.
    pub fn member_log(&self, conversation: &ConversationId) -> Result<Vec<MemberEvent>, AskError> {
        self.member_of(conversation, &self.store().members(conversation)?)?;
        Ok(self.store().member_events(conversation)?)
    }

    fn member_of(&self, conversation: &ConversationId, members: &[Member]) -> Result<(), AskError> {
        if members.iter().any(|m| m.principal == self.me && !m.removed) {
            Ok(())
        } else {
            Err(AskError::NotMember {
                principal: self.me.clone(),
                conversation: conversation.clone(),
            })
        }
    }

    /// This principal's requests in the conversation (those it opened, those whose original
    /// audience holds it, and those whose bound action names it as the executor), open ones
    /// first, then the most recently changed; from 1 to [`crate::LIST_MAX`] of them. Each
    /// comes without its form and saved response ([`Listed`]): [`AsPrincipal::show`] has
    /// them. An open request found past its expiry is listed expired.
    ///
    /// A principal with nothing to see in the conversation (never a member, named by none
    /// of its requests) is refused with [`AskError::NotMember`] before any request is read;
    /// the store reads only the entries it returns, so a call costs what its `limit` allows,
    /// however many requests the conversation holds.
    pub fn list(
        &self,
        conversation: &ConversationId,
        limit: usize,
    ) -> Result<Vec<Listed>, AskError> {
        limits::count("limit", limit, crate::limits::LIST_MAX)?;
        if !self.store().sees(conversation, &self.me)? {
            return Err(AskError::NotMember {
                principal: self.me.clone(),
                conversation: conversation.clone(),
            });
        }
        self.asks.observe(self.store().high_water()?);
        let now = self.asks.now();
        let mut mine = self.store().list(conversation, &self.me, now, limit)?;
        let mut settled = false;
        for entry in &mut mine {
            let r = &entry.request;
            if r.state == State::Open && r.expires_at.is_past(now.max(r.updated_at)) {
                // The whole request, one at a time: marking it expired rewrites it.
                let whole = self.store().load(&r.id)?;
                *entry = Listed::of(&self.asks.settle(&r.id.clone(), whole)?);
                settled = true;
            }
        }
        if settled {
            let now = self.asks.now();
            mine.sort_by(|a, b| crate::store::list_order(&a.request, &b.request, now));
        }
        Ok(mine)
    }

    /// Whether this principal could answer `request` now, as read by [`AsPrincipal::show`]:
    /// the eligibility [`AsPrincipal::respond`] checks (the original audience, still a
    /// member, contact rights standing; never the requester or the executor of an
    /// approval), then that the request is still open. `Err` is the refusal `respond` would
    /// give at the version read (`not_eligible`, `conflict` or `expired`, each with the
    /// latest state), so a surface can refuse before it shows anything to answer.
    pub fn answerable(&self, request: &Request) -> Result<(), AskError> {
        self.eligibility(request)?;
        check_current(request, request.version)
    }

    /// The request as it is now (an open one past its expiry is marked expired first).
    pub fn show(&self, id: &RequestId) -> Result<Request, AskError> {
        self.readable(id)
    }

    /// One page of the request's audit log (one event per transition, and the follow-up
    /// messages), oldest first: the events after `after` (the [`LogPage::next`] of the
    /// previous page; `None` for the first page), from 1 to [`crate::LOG_MAX`] of them. A
    /// call reads only the events it returns.
    ///
    /// ```
    /// # use forms_ask::{Asks, ConversationId, NewRequest, Principal, SqliteStore};
    /// # let dir = std::env::temp_dir().join(format!("forms-ask-log-doc-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// # let asks = Asks::new(SqliteStore::open(dir.join("asks.db"))?);
    /// # let (chat, agent) = (ConversationId::new("c")?, Principal::new("agent")?);
    /// # asks.join(&chat, &agent)?;
    /// # asks.join(&chat, &Principal::new("ana")?)?;
    /// let me = asks.as_principal(&agent);
    /// let r = me.open(&chat, NewRequest::question("Which day?"), "open-1")?;
    /// me.message(&r.id, "Any day this week", "m-1")?;
    /// let first = me.log(&r.id, None, 1)?;
    /// assert_eq!(first.events.len(), 1); // opened
    /// let rest = me.log(&r.id, first.next.as_deref(), 10)?;
    /// assert_eq!((rest.events.len(), rest.next), (1, None)); // the message, and no more
    /// # std::fs::remove_dir_all(&dir).ok();
    /// # Ok::<(), forms_ask::AskError>(())
    /// ```
    pub fn log(
        &self,
        id: &RequestId,
        after: Option<&str>,
        limit: usize,
    ) -> Result<LogPage, AskError> {
        limits::count("limit", limit, crate::limits::LOG_MAX)?;
        let after = match after {
            None => 0,
            Some(cursor) => cursor.parse::<u64>().map_err(|_| {
                AskError::InvalidInput(
                    "after: not a cursor a log page gave (its `next`)".to_owned(),
                )
            })?,
        };
        self.readable(id)?;
        let mut events = self
            .store()
            .events_after(id, after, limit.saturating_add(1))?;
        let next = if events.len() > limit {
            events.truncate(limit);
            events.last().map(|(seq, _)| seq.to_string())
        } else {
            None
        };
        Ok(LogPage {
            events: events.into_iter().map(|(_, e)| e).collect(),
            next,
        })
    }

    /// Opens a request in `conversation`. The audience is fixed now: by default the
    /// conversation's current members with contact rights, minus the requester (and, for an
    /// approval bound to an action, minus the executor it names). An approval's requester
    /// and its executor are never in its audience: an explicit audience naming either is
    /// refused.
    pub fn open(
        &self,
        conversation: &ConversationId,
        new: NewRequest,
        key: &str,
    ) -> Result<Request, AskError> {
        limits::new_request(&new)?;
        let input = InputHash::of(
            "open",
            &OpenInput {
                conversation,
                request: &new,
            },
        );
        self.write("open", input, key, || {
            // The members and the store's high-water mark of time, in one read.
            let (members, high_water) = self.store().members_at(conversation)?;
            self.asks.observe(high_water);
            let now = self.asks.now();
            if !members
                .iter()
                .any(|m| m.principal == self.me && m.is_active())
            {
                return Err(AskError::NotMember {
                    principal: self.me.clone(),
                    conversation: conversation.clone(),
                });
            }
            check_text("the body", &new.body)?;
            if let Some(title) = &new.title {
                check_text("the title", title)?;
            }
            let quota = self.asks.inner.quotas.open_requests;
            if self.store().open_requests_of(&self.me, now)? >= quota {
                return Err(AskError::Quota {
                    principal: self.me.clone(),
                    what: "open requests",
                    limit: quota,
                    remedy: "cancel one, or wait until one is answered or expires",
                });
            }
            // Who may never decide this request: an approval's requester, and the executor
            // its bound action names.
            let executor = new.action.as_ref().map(|a| a.executor.as_str());
            let never = |p: &Principal| {
                new.kind == Kind::Approval && (*p == self.me || Some(p.as_str()) == executor)
            };
            let audience = match new.audience {
                Some(list) => {
                    let active: std::collections::HashSet<&Principal> = members
                        .iter()
                        .filter(|m| m.is_active())
                        .map(|m| &m.principal)
                        .collect();
                    let mut named = std::collections::HashSet::with_capacity(list.len());
                    let mut audience: Vec<Principal> = Vec::with_capacity(list.len());
                    for p in list {
                        if never(&p) {
                            return Err(AskError::InvalidInput(format!(
                                "{p} may not be in the audience: {}",
                                if p == self.me {
                                    "the requester never decides its own approval"
                                } else {
                                    "the executor of a bound action never approves it"
                                }
                            )));
                        }
                        if !active.contains(&p) {
                            return Err(AskError::InvalidInput(format!(
                                "{p} is not a member of {conversation} with contact rights"
                            )));
                        }
                        if named.insert(p.clone()) {
                            audience.push(p);
                        }
                    }
                    audience
                }
                None => members
                    .iter()
                    .filter(|m| m.is_active() && m.principal != self.me && !never(&m.principal))
                    .map(|m| m.principal.clone())
                    .collect(),
            };
            if audience.is_empty() {
                return Err(AskError::InvalidInput(
                    "the audience is empty: nobody else in the conversation can respond".into(),
                ));
            }
            if let Some(choices) = &new.choices {
                if new.kind != Kind::Question {
                    return Err(AskError::InvalidInput(
                        "only a question offers choices".into(),
                    ));
                }
                if choices.is_empty() {
                    return Err(AskError::InvalidInput("the choices are empty".into()));
                }
                // Unique: checked in linear time by `limits::new_request`.
                for c in choices {
                    check_text("a choice", c)?;
                }
            }
            let form = match &new.form {
                None => None,
                Some(value) => {
                    if new.kind != Kind::Question {
                        return Err(AskError::InvalidInput(
                            "only a question carries a form".into(),
                        ));
                    }
                    if new.choices.is_some() {
                        return Err(AskError::InvalidInput(
                            "a question offers choices or carries a form, not both".into(),
                        ));
                    }
                    Some(normalized_form(value)?)
                }
            };
            if let Some(action) = &new.action {
                if new.kind != Kind::Approval {
                    return Err(AskError::InvalidInput(
                        "only an approval can be bound to an action".into(),
                    ));
                }
                check_text("the executor", &action.executor)?;
                check_text("the operation key", &action.operation_key)?;
            }
            let expires_at = expiry(new.expires_at, new.action.is_some(), now)?;
            let request = Request {
                id: new_id(&self.me, key),
                conversation: conversation.clone(),
                kind: new.kind,
                title: new.title,
                body: new.body,
                requester: self.me.clone(),
                audience,
                choices: new.choices,
                form,
                version: 1,
                state: State::Open,
                expires_at,
                created_at: now,
                updated_at: now,
                outcome: None,
                answer: None,
                response: None,
                responder: None,
                replaces: None,
                replaced_by: None,
                action: new.action,
                redemption: None,
                execution: None,
            };
            let opened = event(&request, EventKind::Opened, Some(&self.me), now, None);
            Ok(Plan {
                eligible: None,
                writes: vec![Write::Insert(request.clone())],
                events: vec![opened],
                result: request,
            })
        })
    }

    /// Responds with the version read, a typed outcome valid for the kind and an optional
    /// answer (required, and one of the offered values, when the question has choices). A
    /// stale version, or a request already decided, is a [`AskError::Conflict`] carrying the
    /// latest state; nothing is overwritten.
    ///
    /// For a question carrying a form the answer is required and is the host response as
    /// JSON text (`{"action":"accept","content":{…}}`, `{"action":"decline"}` or
    /// `{"action":"cancel"}`), checked against the stored form with the runtime's answer
    /// checker (rules V1–V8): a response it refuses is [`AskError::Form`]
    /// (`invalid_response`, with the findings) and nothing changes; an accepted one is saved
    /// as given in [`Request::response`], whatever the person's action, with the outcome
    /// `answered` ([`AsPrincipal::respond_form`] says the same in fewer words).
    pub fn respond(
        &self,
        id: &RequestId,
        version: u64,
        outcome: Outcome,
        answer: Option<&str>,
        key: &str,
    ) -> Result<Request, AskError> {
        self.respond_with_uploads(id, version, outcome, answer, &[], key)
    }

    /// [`AsPrincipal::respond`] with files sent with a form's answer: a `files` answer of a
    /// request that waits names each file sent as `upload:<name>` ([`Upload::reference`]),
    /// never by a path. The files are stored with the response in the same transaction
    /// (at most [`crate::UPLOAD_BYTES_MAX`] bytes each, [`crate::UPLOADS_BYTES_MAX`] and
    /// [`crate::UPLOADS_MAX`] files an answer), and the saved response names each with the
    /// store's URI (`file:///forms-ask/uploads/<request>/<n>/<name>`); the requester's
    /// [`crate::FormRequest`] decode gives `T` a file it writes into its own directory. A
    /// user-added `file://` URI, a reference to no file sent, or a file sent but not named
    /// is refused as `invalid_response` and nothing is stored (see [`crate::upload`]).
    pub fn respond_with_uploads(
        &self,
        id: &RequestId,
        version: u64,
        outcome: Outcome,
        answer: Option<&str>,
        uploads: &[Upload],
        key: &str,
    ) -> Result<Request, AskError> {
        if let Some(answer) = answer {
            limits::answer(answer)?;
        }
        limits::uploads(uploads)?;
        let input = InputHash::of(
            "respond",
            &RespondInput {
                id,
                version,
                outcome,
                answer,
                uploads: uploads
                    .iter()
                    .map(|u| UploadInput {
                        name: u.name(),
                        sha256: crate::upload::sha256_of(u.data()),
                    })
                    .collect(),
            },
        );
        self.write_with_uploads("respond", input, key, || {
            let (r, member) = self.asks.current_for(id, &self.me)?;
            // The read observed the store's high-water mark: `now` is not behind it.
            let now = self.asks.now();
            self.eligibility_with(&r, member)?;
            // The version and the state first: a late responder learns of the decision
            // already saved (and sees it), whatever its own answer would have been.
            check_current(&r, version)?;
            if !r.kind.outcomes().contains(&outcome) {
                return Err(AskError::InvalidOutcome {
                    kind: r.kind,
                    outcome,
                });
            }
            if r.form.is_none() && !uploads.is_empty() {
                return Err(AskError::InvalidAnswer(
                    "only an answer to a question carrying a form sends files".into(),
                ));
            }
            let mut stored = Vec::new();
            let response = match (&r.form, answer) {
                (Some(form), Some(text)) => {
                    let (response, files) = checked_response(form, &r.id, text, uploads)?;
                    stored = files;
                    Some(response)
                }
                (Some(_), None) => {
                    return Err(AskError::InvalidAnswer(
                        "this question carries a form: the answer is the host response, \
                         {\"action\":\"accept\",\"content\":{…}}, {\"action\":\"decline\"} or \
                         {\"action\":\"cancel\"}"
                            .into(),
                    ))
                }
                (None, Some(a)) => {
                    limits::chars("answer", a, limits::ANSWER_CHARS_MAX)?;
                    None
                }
                (None, None) => None,
            };
            if let Some(choices) = &r.choices {
                match answer {
                    None => {
                        return Err(AskError::InvalidAnswer(
                            "this question offers choices: the answer must be one of them".into(),
                        ))
                    }
                    Some(a) if !choices.iter().any(|c| c == a) => {
                        return Err(AskError::InvalidAnswer(format!(
                            "{a:?} is not one of the offered choices {choices:?}"
                        )))
                    }
                    Some(_) => {}
                }
            }
            let mut next = transition(&r, State::Resolved, now.max(r.updated_at));
            next.outcome = Some(outcome);
            next.responder = Some(self.me.clone());
            let detail = match &response {
                // The log names the person's action; the response itself is the request's.
                Some(response) => json!({ "outcome": outcome, "action": response.get("action") }),
                None => json!({ "outcome": outcome, "answer": answer }),
            };
            if response.is_some() {
                next.response = response;
            } else {
                next.answer = answer.map(str::to_owned);
            }
            let responded = event(
                &next,
                EventKind::Responded,
                Some(&self.me),
                next.updated_at,
                Some(detail),
            );
            Ok((
                Plan {
                    eligible: Some((r.conversation.clone(), self.me.clone())),
                    writes: vec![Write::Update {
                        expected: r.version,
                        request: next.clone(),
                    }],
                    events: vec![responded],
                    result: next,
                },
                stored,
            ))
        })
    }

    /// Waits until the request leaves `open` or `timeout` passes, and returns its state
    /// then: resolved, cancelled, expired, superseded, or still open. A timeout only stops
    /// waiting; it never withdraws the request. The waiter is woken by the change. This is
    /// [`AsPrincipal::start_wait`] followed by [`WaitHandle::wait`].
    pub fn wait(&self, id: &RequestId, timeout: Duration) -> Result<Request, AskError> {
        self.start_wait(id, timeout)?.wait()
    }

    /// Starts a wait and returns at once: the [`WaitHandle`] gives the request when it
    /// leaves `open` or `timeout` passes, either by blocking ([`WaitHandle::wait`]) or as a
    /// future (it implements [`std::future::Future`], woken by the engine's hub, so an
    /// asynchronous server waits without holding a thread). Dropping the handle releases
    /// the wait at once. The request is read once now: an unknown or hidden request is
    /// refused here, and a principal already waiting [`Asks::with_wait_limit`] times is
    /// refused with [`AskError::TooManyWaits`]. While it waits, a waiter holds no thread and
    /// no database connection: one hub per engine follows the store's change feed.
    pub fn start_wait(&self, id: &RequestId, timeout: Duration) -> Result<WaitHandle, AskError> {
        let start = Instant::now();
        let deadline = start
            .checked_add(timeout)
            .unwrap_or(start + Duration::from_secs(86_400 * 365));
        let (hub, engine) = self.asks.waits();
        let handle = Hub::register(hub, engine, self.store(), &self.me, id, deadline)?;
        let r = self.readable(id)?;
        if r.state.is_final() || Instant::now() >= deadline {
            handle.finish(Ok(r));
        } else {
            handle.watching(&r);
        }
        Ok(handle)
    }

    /// Cancels the request: only the requester, with the current version, while open.
    pub fn cancel(&self, id: &RequestId, version: u64, key: &str) -> Result<Request, AskError> {
        self.requester_transition(
            "cancel",
            id,
            version,
            key,
            State::Cancelled,
            EventKind::Cancelled,
        )
    }

    /// Marks the request superseded without creating a new one: only the requester, with the
    /// current version, while open.
    pub fn supersede(&self, id: &RequestId, version: u64, key: &str) -> Result<Request, AskError> {
        self.requester_transition(
            "supersede",
            id,
            version,
            key,
            State::Superseded,
            EventKind::Superseded,
        )
    }

    fn requester_transition(
        &self,
        operation: &'static str,
        id: &RequestId,
        version: u64,
        key: &str,
        state: State,
        kind: EventKind,
    ) -> Result<Request, AskError> {
        let input = InputHash::of(operation, &VersionInput { id, version });
        self.write(operation, input, key, || {
            let r = self.asks.current(id)?;
            // The read observed the store's high-water mark: `now` is not behind it.
            let now = self.asks.now();
            self.check_requester(&r, operation)?;
            check_current(&r, version)?;
            let next = transition(&r, state, now.max(r.updated_at));
            let ev = event(&next, kind, Some(&self.me), next.updated_at, None);
            Ok(Plan {
                eligible: None,
                writes: vec![Write::Update {
                    expected: r.version,
                    request: next.clone(),
                }],
                events: vec![ev],
                result: next,
            })
        })
    }

    fn check_requester(&self, r: &Request, action: &'static str) -> Result<(), AskError> {
        if r.requester == self.me {
            Ok(())
        } else {
            Err(AskError::NotRequester {
                request: r.id.clone(),
                requester: r.requester.clone(),
                action,
            })
        }
    }

    /// Atomically supersedes the open request and opens its replacement, which keeps the
    /// original audience, choices, bound action and deadline (unless the replacement names
    /// its own expiry), and never carries an approval over. Later responses use
    /// `replacement.id`. The same retry key with the same input returns
    /// the same pair; with a different input it is refused.
    pub fn replace(
        &self,
        id: &RequestId,
        version: u64,
        replacement: Replacement,
        key: &str,
    ) -> Result<Replaced, AskError> {
        limits::replacement(&replacement)?;
        let input = InputHash::of(
            "replace",
            &ReplaceInput {
                id,
                version,
                replacement: &replacement,
            },
        );
        self.write("replace", input, key, || {
            let old = self.asks.current(id)?;
            // The read observed the store's high-water mark: `now` is not behind it.
            let now = self.asks.now();
            self.check_requester(&old, "replace")?;
            check_current(&old, version)?;
            if let Some(body) = &replacement.body {
                check_text("the body", body)?;
            }
            if let Some(title) = &replacement.title {
                check_text("the title", title)?;
            }
            let now = now.max(old.updated_at);
            // A deadline is part of what was asked: the replacement keeps the old one unless
            // it names its own.
            let expires_at = match replacement.expires_at {
                Some(at) => expiry(Some(at), old.action.is_some(), now)?,
                None => old.expires_at,
            };
            let new = Request {
                id: new_id(&self.me, key),
                conversation: old.conversation.clone(),
                kind: old.kind,
                title: replacement.title.or_else(|| old.title.clone()),
                body: replacement.body.unwrap_or_else(|| old.body.clone()),
                requester: old.requester.clone(),
                audience: old.audience.clone(),
                choices: old.choices.clone(),
                form: old.form.clone(),
                version: 1,
                state: State::Open,
                expires_at,
                created_at: now,
                updated_at: now,
                outcome: None,
                answer: None,
                response: None,
                responder: None,
                replaces: Some(old.id.clone()),
                replaced_by: None,
                action: old.action.clone(),
                redemption: None,
                execution: None,
            };
            let mut previous = transition(&old, State::Superseded, now);
            previous.replaced_by = Some(new.id.clone());
            let events = vec![
                event(
                    &previous,
                    EventKind::Superseded,
                    Some(&self.me),
                    now,
                    Some(json!({ "replaced_by": new.id })),
                ),
                event(
                    &new,
                    EventKind::Opened,
                    Some(&self.me),
                    now,
                    Some(json!({ "replaces": old.id })),
                ),
            ];
            Ok(Plan {
                eligible: None,
                writes: vec![
                    Write::Update {
                        expected: old.version,
                        request: previous.clone(),
                    },
                    Write::Insert(new.clone()),
                ],
                events,
                result: Replaced {
                    previous,
                    replacement: new,
                },
            })
        })
    }

    /// Posts a follow-up message on the request. It stays in the log and decides nothing:
    /// the state and version are unchanged.
    pub fn message(&self, id: &RequestId, text: &str, key: &str) -> Result<AuditEvent, AskError> {
        limits::chars("text", text, limits::MESSAGE_CHARS_MAX)?;
        let input = InputHash::of("message", &MessageInput { id, text });
        self.write("message", input, key, || {
            let r = self.readable(id)?;
            // The read observed the store's high-water mark: `now` is not behind it.
            let now = self.asks.now();
            check_text("the message", text)?;
            let quota = self.asks.inner.quotas.messages_per_request;
            if self.store().messages_by(id, &self.me)? >= quota {
                return Err(AskError::Quota {
                    principal: self.me.clone(),
                    what: "messages on this request",
                    limit: quota,
                    remedy: "open a new request to go on",
                });
            }
            let ev = event(
                &r,
                EventKind::Message,
                Some(&self.me),
                now,
                Some(json!({ "text": text })),
            );
            Ok(Plan {
                eligible: None,
                writes: vec![],
                events: vec![ev.clone()],
                result: ev,
            })
        })
    }

    /// Redeems an approved approval's bound action: what is presented must equal the bound
    /// executor, resource version, arguments and operation key exactly; a second redemption
    /// is refused. Only the named executor (who need not be a member of the conversation)
    /// or the requester may redeem. The engine records the intent; it executes nothing.
    pub fn redeem(&self, id: &RequestId, redeem: &Redeem, key: &str) -> Result<Request, AskError> {
        limits::redeem(redeem)?;
        let input = InputHash::of("redeem", &RedeemInput { id, redeem });
        self.write("redeem", input, key, || {
            let r = self.readable(id)?;
            // The read observed the store's high-water mark: `now` is not behind it.
            let now = self.asks.now();
            let action = r
                .action
                .as_ref()
                .ok_or(AskError::ActionRefused(ActionRefusal::NoAction))?;
            if self.me != r.requester && self.me.as_str() != action.executor {
                return Err(AskError::ActionRefused(ActionRefusal::NotExecutor));
            }
            if r.state != State::Resolved || r.outcome != Some(Outcome::Approved) {
                return Err(AskError::ActionRefused(ActionRefusal::NotApproved));
            }
            if r.redemption.is_some() {
                return Err(AskError::ActionRefused(ActionRefusal::AlreadyRedeemed));
            }
            if r.expires_at.is_past(now) {
                return Err(AskError::ActionRefused(ActionRefusal::ApprovalExpired));
            }
            let mismatch = if redeem.executor != action.executor {
                Some("the executor")
            } else if redeem.resource_version != action.resource_version {
                Some("the resource version")
            } else if redeem.arguments != action.arguments {
                Some("the arguments")
            } else if redeem.operation_key != action.operation_key {
                Some("the operation key")
            } else {
                None
            };
            if let Some(field) = mismatch {
                return Err(AskError::ActionRefused(ActionRefusal::Mismatch(field)));
            }
            let mut next = transition(&r, r.state, now.max(r.updated_at));
            next.redemption = Some(Redemption {
                by: self.me.clone(),
                at: next.updated_at,
            });
            let ev = event(
                &next,
                EventKind::Redeemed,
                Some(&self.me),
                next.updated_at,
                Some(json!({ "operation_key": action.operation_key })),
            );
            Ok(Plan {
                eligible: None,
                writes: vec![Write::Update {
                    expected: r.version,
                    request: next.clone(),
                }],
                events: vec![ev],
                result: next,
            })
        })
        .map_err(|e| match e {
            // Two redemptions raced: the loser sees the winner's.
            AskError::Conflict { latest } if latest.redemption.is_some() => {
                AskError::ActionRefused(ActionRefusal::AlreadyRedeemed)
            }
            e => e,
        })
    }

    /// Reports the execution of a redeemed action: `succeeded`, `failed` or `unknown`. An
    /// `unknown` report stays reconcilable by a later report; a final one is not replaced.
    /// Only the named executor (member or not) or the requester may report.
    pub fn report_execution(
        &self,
        id: &RequestId,
        operation_key: &str,
        status: ExecutionStatus,
        detail: Option<&str>,
        key: &str,
    ) -> Result<Request, AskError> {
        limits::chars(
            "operation_key",
            operation_key,
            limits::ACTION_FIELD_CHARS_MAX,
        )?;
        if let Some(detail) = detail {
            limits::chars("detail", detail, limits::DETAIL_CHARS_MAX)?;
        }
        let input = InputHash::of(
            "report_execution",
            &ReportInput {
                id,
                operation_key,
                status,
                detail,
            },
        );
        self.write("report_execution", input, key, || {
            let r = self.readable(id)?;
            // The read observed the store's high-water mark: `now` is not behind it.
            let now = self.asks.now();
            let action = r
                .action
                .as_ref()
                .ok_or(AskError::ActionRefused(ActionRefusal::NoAction))?;
            if self.me != r.requester && self.me.as_str() != action.executor {
                return Err(AskError::ActionRefused(ActionRefusal::NotExecutor));
            }
            if r.redemption.is_none() {
                return Err(AskError::ActionRefused(ActionRefusal::NotRedeemed));
            }
            if operation_key != action.operation_key {
                return Err(AskError::ActionRefused(ActionRefusal::Mismatch(
                    "the operation key",
                )));
            }
            if matches!(&r.execution, Some(e) if e.status != ExecutionStatus::Unknown) {
                return Err(AskError::ActionRefused(ActionRefusal::ExecutionFinal));
            }
            let mut next = transition(&r, r.state, now.max(r.updated_at));
            next.execution = Some(Execution {
                status,
                detail: detail.map(str::to_owned),
                by: self.me.clone(),
                at: next.updated_at,
            });
            let ev = event(
                &next,
                EventKind::ExecutionReported,
                Some(&self.me),
                next.updated_at,
                Some(json!({ "status": status, "detail": detail })),
            );
            Ok(Plan {
                eligible: None,
                writes: vec![Write::Update {
                    expected: r.version,
                    request: next.clone(),
                }],
                events: vec![ev],
                result: next,
            })
        })
    }
}

/// A form's arguments checked with rules R1–R27 and normalized as the runtime writes them.
fn normalized_form(value: &serde_json::Value) -> Result<serde_json::Value, AskError> {
    let form = DataForm::from_value(value).map_err(AskError::Form)?;
    serde_json::from_str(&form.to_json())
        .map_err(|e| AskError::Store(StoreError::Corrupt(format!("a normalized form: {e}"))))
}

/// The stored form of a request, read back.
pub(crate) fn stored_form(r: &Request) -> Result<Option<DataForm>, AskError> {
    r.form
        .as_ref()
        .map(|value| {
            DataForm::from_value(value).map_err(|e| {
                AskError::Store(StoreError::Corrupt(format!(
                    "the form of request {}: {e}",
                    r.id
                )))
            })
        })
        .transpose()
}

/// A host response checked against a stored form (rules V1–V8), as the JSON value given,
/// with the files sent with it: a `files` answer names uploads (made the store's URIs) or
/// offered URIs, never a path (see [`crate::upload`]).
fn checked_response(
    form: &serde_json::Value,
    id: &RequestId,
    text: &str,
    uploads: &[Upload],
) -> Result<(serde_json::Value, Vec<StoredUpload>), AskError> {
    let form = DataForm::from_value(form)
        .map_err(|e| AskError::Store(StoreError::Corrupt(format!("a stored form: {e}"))))?;
    if let Some((response, stored)) = crate::upload::prepare(&form, id, text, uploads)? {
        form.check_response_value(&response)
            .map_err(AskError::Form)?;
        return Ok((response, stored));
    }
    form.check_response(text).map_err(AskError::Form)?;
    let response = serde_json::from_str(text).map_err(|e| {
        AskError::Form(FormError::new(
            ErrorCode::InvalidResponse,
            format!("the response is not JSON: {e}"),
        ))
    })?;
    Ok((response, Vec::new()))
}

/// Whether `p` is the executor the request's bound action names.
fn is_executor(r: &Request, p: &Principal) -> bool {
    r.action.as_ref().is_some_and(|a| a.executor == p.as_str())
}

/// A request that is not open, or not at `version`, is a conflict (or, expired, an expiry).
fn check_current(r: &Request, version: u64) -> Result<(), AskError> {
    if r.state == State::Open && r.version == version {
        Ok(())
    } else {
        Err(conflict(r.clone()))
    }
}

fn conflict(latest: Request) -> AskError {
    AskError::moved_on(latest)
}

// The inputs a retry key is bound to, one per write. The field order is the one builds with
// serde_json's `preserve_order` hashed before this release (see `crate::retry`); the hash
// itself sorts the keys.

#[derive(Serialize)]
struct OpenInput<'a> {
    conversation: &'a ConversationId,
    request: &'a NewRequest,
}

#[derive(Serialize)]
struct RespondInput<'a> {
    id: &'a RequestId,
    version: u64,
    outcome: Outcome,
    answer: Option<&'a str>,
    // Only with files sent, so a retry of an answer without any hashes as before.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    uploads: Vec<UploadInput<'a>>,
}

#[derive(Serialize)]
struct UploadInput<'a> {
    name: &'a str,
    sha256: String,
}

#[derive(Serialize)]
struct VersionInput<'a> {
    id: &'a RequestId,
    version: u64,
}

#[derive(Serialize)]
struct ReplaceInput<'a> {
    id: &'a RequestId,
    version: u64,
    replacement: &'a Replacement,
}

#[derive(Serialize)]
struct MessageInput<'a> {
    id: &'a RequestId,
    text: &'a str,
}

#[derive(Serialize)]
struct RedeemInput<'a> {
    id: &'a RequestId,
    redeem: &'a Redeem,
}

#[derive(Serialize)]
struct ReportInput<'a> {
    id: &'a RequestId,
    operation_key: &'a str,
    status: ExecutionStatus,
    detail: Option<&'a str>,
}
