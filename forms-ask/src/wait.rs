//! Waiting without a thread per waiter: one hub per engine follows its store's change feed
//! ([`crate::store::Changes`]) and finishes each waiter whose request left `open`, expired
//! or reached the waiter's deadline. A waiter is an entry in a table: it holds no thread, no
//! database connection and no slot of an asynchronous runtime's blocking pool.

use crate::engine::{Asks, Inner};
use crate::error::{AskError, StoreError};
use crate::model::{Principal, Request, RequestId, State};
use crate::store::{Changed, Changes, Cursor, Store};
use crate::time::{Expiry, Timestamp};
use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, Weak};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

/// The default cap on one principal's concurrent waits (see [`Asks::with_wait_limit`]).
pub const WAITS_PER_PRINCIPAL: usize = 64;

/// How often the hub reads the (injectable) clock while a waited request has an expiry.
const CLOCK_RECHECK: Duration = Duration::from_millis(250);

/// The longest the hub sleeps without looking at its table.
const IDLE: Duration = Duration::from_secs(1);

/// How often the hub rereads every waited request even without a reported change: a
/// backstop for a change whose report was lost (a PostgreSQL commit that began before the
/// process's listener registered, a listener connection that broke).
const BACKSTOP: Duration = Duration::from_secs(5);

/// The waiters of one engine.
pub(crate) struct Hub {
    limit: usize,
    table: Mutex<Table>,
    /// Held while the store's record of watched requests changes, so a new waiter's watch
    /// and the removal of an old one cannot cross.
    watch_lock: Mutex<()>,
}

#[derive(Default)]
struct Table {
    /// The waiters, by request.
    waiting: HashMap<RequestId, Vec<Arc<Slot>>>,
    /// Each principal's number of waits.
    per_principal: HashMap<Principal, usize>,
    /// The store's change feed, once the hub thread runs.
    changes: Option<Arc<Changes>>,
    /// Requests whose last waiter left: the store may stop watching them.
    unwatched: Vec<RequestId>,
    /// The requests this hub has asked the store to watch.
    watching: HashSet<RequestId>,
}

/// One waiter.
struct Slot {
    principal: Principal,
    id: RequestId,
    deadline: Instant,
    released: AtomicBool,
    state: Mutex<SlotState>,
    ready: Condvar,
}

#[derive(Default)]
struct SlotState {
    /// The waited request's expiry, once read.
    expires: Option<Timestamp>,
    /// The outcome, until it is taken.
    result: Option<Result<Request, AskError>>,
    /// Whether an outcome was given (it may already be taken).
    finished: bool,
    /// The task to wake, when the wait is awaited.
    waker: Option<Waker>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Slot {
    fn finish(&self, result: Result<Request, AskError>) {
        let mut st = lock(&self.state);
        if st.finished {
            return;
        }
        st.finished = true;
        st.result = Some(result);
        let waker = st.waker.take();
        drop(st);
        self.ready.notify_all();
        if let Some(w) = waker {
            w.wake();
        }
    }
}

impl Hub {
    pub(crate) fn new(limit: usize) -> Hub {
        Hub {
            limit,
            table: Mutex::new(Table::default()),
            watch_lock: Mutex::new(()),
        }
    }

    /// Registers a wait of `me` on `id` (before its first read, so no change is missed);
    /// starts the hub thread and the store's watcher on first use.
    pub(crate) fn register(
        hub: &Arc<Hub>,
        engine: Weak<Inner>,
        store: &dyn Store,
        me: &Principal,
        id: &RequestId,
        deadline: Instant,
    ) -> Result<WaitHandle, AskError> {
        let mut table = lock(&hub.table);
        let count = table.per_principal.get(me).copied().unwrap_or(0);
        if count >= hub.limit {
            return Err(AskError::TooManyWaits {
                principal: me.clone(),
                limit: hub.limit,
            });
        }
        let changes = match &table.changes {
            Some(c) => Arc::clone(c),
            None => {
                let changes = store.changes()?;
                // Taken before any waiter reads its request: every change after that read
                // reaches the hub, however late its thread starts.
                let cursor = changes.cursor();
                let (h, c) = (Arc::clone(hub), Arc::clone(&changes));
                std::thread::Builder::new()
                    .name("forms-ask-waits".into())
                    .spawn(move || run(&h, &engine, &c, cursor))
                    .map_err(|e| {
                        StoreError::Other(format!("cannot start the wait hub's thread: {e}"))
                    })?;
                table.changes = Some(Arc::clone(&changes));
                changes
            }
        };
        table
            .per_principal
            .insert(me.clone(), count.saturating_add(1));
        let slot = Arc::new(Slot {
            principal: me.clone(),
            id: id.clone(),
            deadline,
            released: AtomicBool::new(false),
            state: Mutex::new(SlotState::default()),
            ready: Condvar::new(),
        });
        table
            .waiting
            .entry(id.clone())
            .or_default()
            .push(Arc::clone(&slot));
        let first = table.watching.insert(id.clone());
        drop(table);
        let handle = WaitHandle {
            hub: Arc::clone(hub),
            slot,
            changes,
        };
        if first {
            let _watching = lock(&hub.watch_lock);
            if let Err(e) = store.watch_request(id) {
                lock(&hub.table).watching.remove(id);
                return Err(e.into());
            }
            // The wait may already have ended and been tidied away meanwhile.
            let gone = !lock(&hub.table).watching.contains(id);
            if gone {
                let _ = store.unwatch_requests(std::slice::from_ref(id));
            }
        }
        Ok(handle)
    }

    /// Takes a waiter off the table (once).
    fn release(&self, slot: &Arc<Slot>) {
        if slot.released.swap(true, Ordering::SeqCst) {
            return;
        }
        let mut table = lock(&self.table);
        if let Some(list) = table.waiting.get_mut(&slot.id) {
            list.retain(|s| !Arc::ptr_eq(s, slot));
            if list.is_empty() {
                table.waiting.remove(&slot.id);
                table.unwatched.push(slot.id.clone());
            }
        }
        if let Some(n) = table.per_principal.get_mut(&slot.principal) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                table.per_principal.remove(&slot.principal);
            }
        }
    }

    /// The number of waits on the table.
    pub(crate) fn waiting(&self) -> usize {
        lock(&self.table).waiting.values().map(Vec::len).sum()
    }

    /// Finishes every waiter with an error (the engine is gone).
    fn close(&self, why: &str) {
        let slots: Vec<Arc<Slot>> = lock(&self.table)
            .waiting
            .values()
            .flatten()
            .cloned()
            .collect();
        for slot in slots {
            slot.finish(Err(AskError::Store(StoreError::Other(why.to_owned()))));
            self.release(&slot);
        }
    }

    /// Tells the store which requests nobody here waits on any more. A failure keeps them
    /// for the next look (at most [`IDLE`] away), which tries again: meanwhile writes to them
    /// still notify.
    fn unwatch(&self, asks: &Asks) {
        let _watching = lock(&self.watch_lock);
        let ids: Vec<RequestId> = {
            let mut table = lock(&self.table);
            let pending = std::mem::take(&mut table.unwatched);
            let mut ids = Vec::new();
            for id in pending {
                if !table.waiting.contains_key(&id) && table.watching.remove(&id) {
                    ids.push(id);
                }
            }
            ids
        };
        if !ids.is_empty() && asks.store().unwatch_requests(&ids).is_err() {
            let mut table = lock(&self.table);
            for id in ids {
                table.watching.insert(id.clone());
                table.unwatched.push(id);
            }
        }
    }

    /// One look at the table: finishes the waiters that are done and returns when to look
    /// again (`None`: no waiter needs a timer).
    fn service(&self, asks: &Asks, changed: &Changed) -> Option<Instant> {
        self.unwatch(asks);
        let slots: Vec<Arc<Slot>> = {
            let table = lock(&self.table);
            table.waiting.values().flatten().cloned().collect()
        };
        if slots.is_empty() {
            return None;
        }
        // Requests written since the last look: read each once, and finish its waiters only
        // if it left `open` (or cannot be read: the waiter gets the cause).
        let mut settled: HashSet<&RequestId> = HashSet::new();
        let mut looked: HashSet<&RequestId> = HashSet::new();
        for slot in &slots {
            let written = match changed {
                Changed::Nothing => false,
                Changed::All => true,
                Changed::Ids(ids) => ids.contains(slot.id.as_str()),
            };
            if written && looked.insert(&slot.id) {
                match asks.store().load(&slot.id) {
                    Ok(Some(r)) if r.state == State::Open => {}
                    _ => {
                        settled.insert(&slot.id);
                    }
                }
            }
        }
        let now = Instant::now();
        let clock = asks.now();
        let mut next: Option<Instant> = None;
        for slot in &slots {
            let expires = {
                let st = lock(&slot.state);
                if st.finished {
                    continue;
                }
                st.expires
            };
            let due = slot.deadline <= now
                || settled.contains(&slot.id)
                || expires.is_some_and(|at| at <= clock);
            let mut expires = expires;
            if due {
                match asks.show_as(&slot.principal, &slot.id) {
                    Ok(r) if !r.state.is_final() && slot.deadline > Instant::now() => {
                        expires = expiry_of(&r);
                        lock(&slot.state).expires = expires;
                    }
                    outcome => {
                        slot.finish(outcome);
                        self.release(slot);
                        continue;
                    }
                }
            }
            let mut at = slot.deadline;
            if let Some(e) = expires {
                let left = e.millis().saturating_sub(clock.millis()).max(0);
                let left = Duration::from_millis(u64::try_from(left).unwrap_or(0));
                at = at.min(now + left.min(CLOCK_RECHECK));
            }
            next = Some(next.map_or(at, |n| n.min(at)));
        }
        next
    }
}

fn expiry_of(r: &Request) -> Option<Timestamp> {
    match r.expires_at {
        Expiry::At(at) => Some(at),
        Expiry::Never => None,
    }
}

/// The hub's thread: looks at the table whenever the store reports a change, a waiter
/// registers, or a timer is due; ends (finishing every waiter with an error) when its
/// engine is dropped. It holds the engine only while it looks.
fn run(hub: &Arc<Hub>, engine: &Weak<Inner>, changes: &Arc<Changes>, mut cursor: Cursor) {
    let mut changed = Changed::Nothing;
    let mut backstop = Instant::now() + BACKSTOP;
    loop {
        if Instant::now() >= backstop {
            changed = Changed::All;
            backstop = Instant::now() + BACKSTOP;
        }
        let Some(inner) = engine.upgrade() else {
            hub.close("the engine was closed while waiting");
            return;
        };
        let asks = Asks::from_inner(inner);
        let next = hub.service(&asks, &changed);
        drop(asks);
        let now = Instant::now();
        let until = next.map_or(now + IDLE, |t| t.min(now + IDLE));
        (cursor, changed) = changes.wait(cursor, until);
    }
}

/// A wait in progress (see [`crate::AsPrincipal::start_wait`]). Block on it with
/// [`WaitHandle::wait`], or `.await` it; dropping it releases the wait at once (a client
/// that disconnects or cancels stops counting against its principal's cap).
pub struct WaitHandle {
    hub: Arc<Hub>,
    slot: Arc<Slot>,
    changes: Arc<Changes>,
}

impl std::fmt::Debug for WaitHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WaitHandle")
            .field("principal", &self.slot.principal)
            .field("id", &self.slot.id)
            .finish()
    }
}

impl WaitHandle {
    /// The request waited for.
    pub fn id(&self) -> &RequestId {
        &self.slot.id
    }

    /// Finishes the wait with `result` (the first read found it done).
    pub(crate) fn finish(&self, result: Result<Request, AskError>) {
        self.slot.finish(result);
        self.hub.release(&self.slot);
    }

    /// Starts watching for `r`'s expiry, and lets the hub plan for this waiter.
    pub(crate) fn watching(&self, r: &Request) {
        lock(&self.slot.state).expires = expiry_of(r);
        self.changes.poke();
    }

    /// Blocks until the request leaves `open` or the wait's timeout passes; returns the
    /// request then.
    pub fn wait(self) -> Result<Request, AskError> {
        let mut st = lock(&self.slot.state);
        loop {
            if let Some(result) = st.result.take() {
                return result;
            }
            if st.finished {
                return Err(taken());
            }
            st = self
                .slot
                .ready
                .wait(st)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

fn taken() -> AskError {
    AskError::Store(StoreError::Other(
        "the wait's outcome was already taken".into(),
    ))
}

impl Future for WaitHandle {
    type Output = Result<Request, AskError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut st = lock(&self.slot.state);
        if let Some(result) = st.result.take() {
            return Poll::Ready(result);
        }
        if st.finished {
            return Poll::Ready(Err(taken()));
        }
        st.waker = Some(cx.waker().clone());
        Poll::Pending
    }
}

impl Drop for WaitHandle {
    fn drop(&mut self) {
        self.hub.release(&self.slot);
    }
}
