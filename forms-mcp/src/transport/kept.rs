//! The answer cache: what a connection keeps of the host's answers while asks wait on it.

use rmcp::model::{ClientResult, RequestId};
use rmcp::service::RequestContext;
use rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;
use rmcp::RoleServer;
use serde_json::value::RawValue;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// How many responses a connection keeps beyond one per waiting ask: room for responses
/// that arrive while an ask has sent its request but not yet learned its id.
pub(super) const KEPT_SLACK: usize = 16;

/// How many raw `inputResponses` read but not yet handled a stdio connection keeps: more
/// than the smallest such lines that fit in the read buffer rmcp's transport holds.
pub(super) const KEPT_INPUTS: usize = 256;

/// The most bytes of raw text kept for a stdio connection, for each kind: twice rmcp's line
/// limit, so that the newest answer always fits. Over HTTP the memory budget for bodies
/// bounds them instead.
pub(super) const KEPT_BYTES: usize = 2 * DEFAULT_MAX_LINE_LENGTH;

/// The answers kept for the connections of one transport: per connection, while an ask
/// waits, the raw result of each response that may answer it (one per request id); and, for
/// stdio, the raw `inputResponses` entries of calls read but not yet handled.
#[derive(Debug, Default)]
pub(super) struct Answers {
    pub(super) connections: Mutex<HashMap<Arc<str>, Kept>>,
    pub(super) inputs: Mutex<Queue>,
    /// Over HTTP, the memory budget the kept results' bytes past [`FREE_KEPT_BYTES`] come
    /// from; over stdio, none (a connection keeps at most [`KEPT_BYTES`]).
    pub(super) budget: Option<Arc<Semaphore>>,
    /// The number of the next kept result.
    pub(super) serial: AtomicU64,
}

/// The bytes of each kept result that do not count against the HTTP budget, as for a
/// request body: an ordinary answer is never refused for memory.
pub(super) const FREE_KEPT_BYTES: usize = crate::http::FREE_BODY_BYTES;

/// What one connection keeps while asks wait on it.
#[derive(Debug, Default)]
pub(super) struct Kept {
    /// The asks waiting.
    pub(super) waiting: usize,
    /// The asks that have sent their request but not yet learned its id: while there are
    /// any, a response to any id is kept.
    pub(super) unresolved: usize,
    /// The ids of the requests the other asks wait on: only their responses are kept.
    pub(super) expected: HashSet<RequestId>,
    pub(super) results: Queue,
}

impl Kept {
    /// Drops the kept responses that no ask can take.
    pub(super) fn prune(&mut self) {
        if self.unresolved == 0 {
            let expected = &self.expected;
            self.results.retain(|item| expected.contains(&item.id));
        }
    }
}

/// One kept raw text.
#[derive(Debug)]
pub(super) struct Item {
    pub(super) id: RequestId,
    pub(super) raw: Box<RawValue>,
    /// Which keeping it was, to drop it again when rmcp refuses its message.
    pub(super) serial: u64,
    /// The share of the HTTP memory budget it holds while kept.
    pub(super) _held: Option<OwnedSemaphorePermit>,
}

/// Raw texts by request id in arrival order, within a count and a byte budget: beyond
/// either, the oldest go first (never the newest).
#[derive(Debug, Default)]
pub(super) struct Queue {
    pub(super) items: VecDeque<Item>,
    pub(super) bytes: usize,
}

impl Queue {
    pub(super) fn push(&mut self, item: Item, max_items: usize, max_bytes: usize) {
        self.bytes = self.bytes.saturating_add(item.raw.get().len());
        self.items.push_back(item);
        while self.items.len() > 1 && (self.items.len() > max_items || self.bytes > max_bytes) {
            self.pop_front();
        }
    }

    pub(super) fn pop_front(&mut self) -> Option<Item> {
        let item = self.items.pop_front()?;
        self.bytes = self.bytes.saturating_sub(item.raw.get().len());
        Some(item)
    }

    pub(super) fn remove(&mut self, position: usize) -> Option<Box<RawValue>> {
        let item = self.items.remove(position)?;
        self.bytes = self.bytes.saturating_sub(item.raw.get().len());
        Some(item.raw)
    }

    pub(super) fn retain(&mut self, keep: impl Fn(&Item) -> bool) {
        self.items.retain(|item| keep(item));
        self.bytes = self.items.iter().map(|item| item.raw.get().len()).sum();
    }

    pub(super) fn holds(&self, id: &RequestId) -> bool {
        self.items.iter().any(|item| item.id == *id)
    }

    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.items.len()
    }
}

/// What [`Answers::keep_result`] did with a response.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Keeping {
    /// Kept, as the keeping numbered so.
    Kept(u64),
    /// Not kept: no ask can take it, or a response to its id is kept already.
    Not,
    /// Not kept: the memory budget is spent.
    Spent,
}

impl Answers {
    /// The answers of an HTTP router, whose kept results take from `budget`.
    pub(super) fn within(budget: Arc<Semaphore>) -> Answers {
        Answers {
            budget: Some(budget),
            ..Answers::default()
        }
    }

    pub(super) fn connections(&self) -> std::sync::MutexGuard<'_, HashMap<Arc<str>, Kept>> {
        self.connections
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn inputs(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.inputs.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether an ask waits on `connection`.
    pub(super) fn waits_on(&self, connection: &str) -> bool {
        self.connections().contains_key(connection)
    }

    /// Keeps a response's raw result, if it may answer an ask waiting on `connection`: its
    /// id is one an ask waits on (or an ask does not know its id yet) and no response to the
    /// same id is kept already (the first one wins, as in rmcp).
    pub(super) fn keep_result(
        &self,
        connection: &str,
        id: RequestId,
        result: &RawValue,
    ) -> Keeping {
        let mut connections = self.connections();
        let Some(kept) = connections.get_mut(connection) else {
            return Keeping::Not;
        };
        if !(kept.unresolved > 0 || kept.expected.contains(&id)) || kept.results.holds(&id) {
            return Keeping::Not;
        }
        let (held, max_bytes) = match &self.budget {
            None => (None, KEPT_BYTES),
            Some(budget) => {
                let counted = result.get().len().saturating_sub(FREE_KEPT_BYTES);
                let held = if counted == 0 {
                    None
                } else {
                    match u32::try_from(counted)
                        .ok()
                        .and_then(|n| budget.clone().try_acquire_many_owned(n).ok())
                    {
                        Some(permit) => Some(permit),
                        None => return Keeping::Spent,
                    }
                };
                (held, usize::MAX)
            }
        };
        let serial = self.serial.fetch_add(1, Ordering::Relaxed);
        let max_items = kept.waiting.saturating_add(KEPT_SLACK);
        let item = Item {
            id,
            raw: result.to_owned(),
            serial,
            _held: held,
        };
        kept.results.push(item, max_items, max_bytes);
        Keeping::Kept(serial)
    }

    /// Drops the result kept as `serial` on `connection`, if it is still there: rmcp refused
    /// its message, so no ask gets it.
    pub(super) fn drop_result(&self, connection: &str, serial: u64) {
        if let Some(kept) = self.connections().get_mut(connection) {
            kept.results.retain(|item| item.serial != serial);
        }
    }

    /// Keeps the raw `inputResponses` entry of a call read from a stdio connection.
    pub(super) fn keep_input(&self, id: RequestId, input: &RawValue) {
        let item = Item {
            id,
            raw: input.to_owned(),
            serial: 0,
            _held: None,
        };
        self.inputs().push(item, KEPT_INPUTS, KEPT_BYTES);
    }

    /// The kept `inputResponses` entry of the call `id`, now handed to rmcp's reading of it.
    /// Entries before it belong to lines rmcp did not deliver and are dropped; entries after
    /// it stay for the lines still to come.
    pub(super) fn take_input(&self, id: &RequestId) -> Option<Box<RawValue>> {
        let mut inputs = self.inputs();
        let position = inputs.items.iter().position(|item| item.id == *id)?;
        for _ in 0..position {
            inputs.pop_front();
        }
        inputs.pop_front().map(|item| item.raw)
    }
}

/// Where an ask finds the answers kept for its connection: in the extensions of each request
/// read by a keeping transport.
#[derive(Debug, Clone)]
pub(crate) struct Capture {
    pub(super) answers: Arc<Answers>,
    pub(super) connection: Arc<str>,
    /// The transport carries rmcp's typed messages, never text ([`super::keep`] of a
    /// [`rmcp::transport::Transport`]): an answer is the value it carries.
    pub(super) typed: bool,
}

impl Capture {
    /// The capture of the connection `ctx`'s request came over, if its transport keeps
    /// answers.
    pub(crate) fn of(ctx: &RequestContext<RoleServer>) -> Option<Capture> {
        ctx.extensions.get::<Capture>().cloned().or_else(|| {
            ctx.extensions
                .get::<axum::http::request::Parts>()
                .and_then(|parts| parts.extensions.get::<Capture>())
                .cloned()
        })
    }

    /// Starts keeping the connection's responses for an ask, until the returned guard is
    /// dropped. Call it before the request is sent, so that its response cannot arrive
    /// unseen, and tell the guard the request's id as soon as it is known
    /// ([`Waiting::expect`]).
    pub(crate) fn wait(&self) -> Waiting {
        let mut connections = self.answers.connections();
        let kept = connections.entry(self.connection.clone()).or_default();
        kept.waiting += 1;
        kept.unresolved += 1;
        Waiting {
            capture: self.clone(),
            id: None,
        }
    }
}

/// An ask waiting on its connection.
#[derive(Debug)]
pub(crate) struct Waiting {
    pub(super) capture: Capture,
    /// The id of the ask's request, once known.
    pub(super) id: Option<RequestId>,
}

impl Waiting {
    /// The ask's request has the id `id`: from now on only responses to the requests of
    /// waiting asks are kept.
    pub(crate) fn expect(&mut self, id: RequestId) {
        if self.id.is_some() {
            return;
        }
        let mut connections = self.capture.answers.connections();
        if let Some(kept) = connections.get_mut(&self.capture.connection) {
            kept.unresolved = kept.unresolved.saturating_sub(1);
            kept.expected.insert(id.clone());
            kept.prune();
        }
        self.id = Some(id);
    }

    /// The raw result of the response to `id` that rmcp delivered as `delivered`: the one
    /// kept for `id`, if rmcp's own reading turns it into exactly `delivered`.
    pub(crate) fn take(&self, id: &RequestId, delivered: &ClientResult) -> Option<Box<RawValue>> {
        if self.capture.typed {
            // No text was ever sent: the value is the answer as sent.
            return serde_json::value::to_raw_value(delivered).ok();
        }
        // The two values compared as their JSON text: one type writes the same text for the
        // same value, its maps in the order they were read (no tree of either is built).
        let delivered = serde_json::to_vec(delivered).ok()?;
        let mut connections = self.capture.answers.connections();
        let kept = connections.get_mut(&self.capture.connection)?;
        let position = kept.results.items.iter().position(|item| {
            item.id == *id
                && serde_json::from_str::<ClientResult>(item.raw.get())
                    .ok()
                    .and_then(|read| serde_json::to_vec(&read).ok())
                    .is_some_and(|read| read == delivered)
        })?;
        kept.results.remove(position)
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        let mut connections = self.capture.answers.connections();
        let Some(kept) = connections.get_mut(&self.capture.connection) else {
            return;
        };
        kept.waiting = kept.waiting.saturating_sub(1);
        match self.id.take() {
            Some(id) => {
                kept.expected.remove(&id);
            }
            None => kept.unresolved = kept.unresolved.saturating_sub(1),
        }
        if kept.waiting == 0 {
            connections.remove(&self.capture.connection);
        } else {
            kept.prune();
        }
    }
}

/// The raw `inputResponses` entry of a retried call, as the client sent it.
#[derive(Debug, Clone)]
pub(crate) struct RawInput(pub(super) Box<RawValue>);

impl RawInput {
    /// The raw entry kept for `ctx`'s call, if its transport keeps answers and the entry
    /// reads as exactly `delivered`, rmcp's value of it.
    pub(crate) fn of(
        ctx: &RequestContext<RoleServer>,
        delivered: &serde_json::Value,
    ) -> Option<Box<RawValue>> {
        let raw = ctx.extensions.get::<RawInput>().or_else(|| {
            ctx.extensions
                .get::<axum::http::request::Parts>()
                .and_then(|parts| parts.extensions.get::<RawInput>())
        })?;
        let read: serde_json::Value = serde_json::from_str(raw.0.get()).ok()?;
        (read == *delivered).then(|| raw.0.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_only_what_a_waiting_ask_may_take() {
        let answers = Arc::new(Answers::default());
        let capture = Capture {
            answers: answers.clone(),
            connection: Arc::from("session"),
            typed: false,
        };
        let raw = |text: &str| RawValue::from_string(text.to_owned()).unwrap();
        let kept = |answers: &Answers| answers.connections()["session"].results.len();
        let mut first = capture.wait();
        // Before its id is known, every response is kept: one may be the answer.
        answers.keep_result("session", RequestId::Number(7), &raw("{}"));
        answers.keep_result("session", RequestId::Number(8), &raw("{}"));
        assert_eq!(kept(&answers), 2);
        first.expect(RequestId::Number(7));
        assert_eq!(kept(&answers), 1, "the other response can answer no ask");
        answers.keep_result("session", RequestId::Number(9), &raw("{}"));
        assert_eq!(kept(&answers), 1);
        // Another connection keeps nothing: no ask waits there.
        answers.keep_result("other", RequestId::Number(7), &raw("{}"));
        assert!(!answers.waits_on("other"));
        // Many asks at once: each keeps room for its answer.
        let mut others: Vec<Waiting> = (0..40).map(|_| capture.wait()).collect();
        for (n, waiting) in others.iter_mut().enumerate() {
            waiting.expect(RequestId::Number(100 + n as i64));
        }
        for n in 0..40 {
            answers.keep_result("session", RequestId::Number(100 + n), &raw("{}"));
        }
        assert_eq!(kept(&answers), 41);
        let empty: ClientResult = serde_json::from_str("{}").unwrap();
        assert!(others[39].take(&RequestId::Number(139), &empty).is_some());
        drop(others);
        assert_eq!(kept(&answers), 1);
        assert!(first.take(&RequestId::Number(7), &empty).is_some());
        drop(first);
        assert!(!answers.waits_on("session"));
    }

    fn item(n: i64, raw: &str) -> Item {
        Item {
            id: RequestId::Number(n),
            raw: RawValue::from_string(raw.to_owned()).unwrap(),
            serial: 0,
            _held: None,
        }
    }

    #[test]
    fn a_queue_keeps_within_its_budgets() {
        let mut queue = Queue::default();
        let big = format!("\"{}\"", "x".repeat(DEFAULT_MAX_LINE_LENGTH - 2));
        for n in 0..3 {
            queue.push(item(n, &big), 100, KEPT_BYTES);
        }
        assert_eq!(queue.len(), 2);
        assert!(queue.bytes <= KEPT_BYTES);
        let huge = format!("\"{}\"", "x".repeat(KEPT_BYTES));
        queue.push(item(9, &huge), 100, KEPT_BYTES);
        assert_eq!(
            queue.len(),
            1,
            "the newest stays, even alone over the budget"
        );
        for n in 0..10 {
            queue.push(item(n, "1"), 4, KEPT_BYTES);
        }
        assert_eq!(queue.len(), 4);
    }

    #[test]
    fn keeps_one_response_per_id_the_first() {
        let answers = Answers::default();
        let capture = Capture {
            answers: Arc::new(answers),
            connection: Arc::from("session"),
            typed: false,
        };
        let answers = &capture.answers;
        let raw = |text: &str| RawValue::from_string(text.to_owned()).unwrap();
        let mut waiting = capture.wait();
        waiting.expect(RequestId::Number(1));
        let first = answers.keep_result("session", RequestId::Number(1), &raw(r#"{"a":1}"#));
        assert!(matches!(first, Keeping::Kept(_)));
        for _ in 0..5 {
            assert_eq!(
                answers.keep_result("session", RequestId::Number(1), &raw(r#"{"a":2}"#)),
                Keeping::Not
            );
        }
        assert_eq!(answers.connections()["session"].results.len(), 1);
        let delivered: ClientResult = serde_json::from_str(r#"{"a":1}"#).unwrap();
        assert_eq!(
            waiting
                .take(&RequestId::Number(1), &delivered)
                .unwrap()
                .get(),
            r#"{"a":1}"#
        );
    }

    #[test]
    fn kept_results_take_from_the_http_budget() {
        let budget = Arc::new(Semaphore::new(3 * FREE_KEPT_BYTES));
        let capture = Capture {
            answers: Arc::new(Answers::within(budget.clone())),
            connection: Arc::from("session"),
            typed: false,
        };
        let answers = &capture.answers;
        let sized = |n: usize| RawValue::from_string(format!("\"{}\"", "x".repeat(n - 2))).unwrap();
        // An answer of 3 × the free bytes, as the answer to call `n`.
        let large_answer = |n: i64| {
            answers.keep_result("session", RequestId::Number(n), &sized(3 * FREE_KEPT_BYTES))
        };
        let mut waiting: Vec<Waiting> = (0..4).map(|_| capture.wait()).collect();
        for (n, waiting) in waiting.iter_mut().enumerate() {
            waiting.expect(RequestId::Number(n as i64));
        }
        // A small answer takes nothing from the budget.
        let small = answers.keep_result("session", RequestId::Number(0), &sized(100));
        assert!(matches!(small, Keeping::Kept(_)));
        assert_eq!(budget.available_permits(), 3 * FREE_KEPT_BYTES);
        // A large one takes its bytes past the free ones, until the budget is spent.
        let Keeping::Kept(large) = large_answer(1) else {
            panic!("not kept")
        };
        assert_eq!(budget.available_permits(), FREE_KEPT_BYTES);
        assert_eq!(large_answer(2), Keeping::Spent);
        // Dropped (rmcp refused its message), it gives its share back.
        answers.drop_result("session", large);
        assert_eq!(budget.available_permits(), 3 * FREE_KEPT_BYTES);
        let Keeping::Kept(_) = large_answer(2) else {
            panic!("not kept")
        };
        assert_eq!(budget.available_permits(), FREE_KEPT_BYTES);
        // So does the ask's end.
        waiting.truncate(2);
        assert_eq!(budget.available_permits(), 3 * FREE_KEPT_BYTES);
        drop(waiting);
        assert!(!answers.waits_on("session"));
    }

    #[test]
    fn hands_each_input_to_its_own_call() {
        let answers = Answers::default();
        let raw = |text: &str| RawValue::from_string(text.to_owned()).unwrap();
        answers.keep_input(RequestId::Number(1), &raw("1"));
        answers.keep_input(RequestId::Number(2), &raw("2"));
        answers.keep_input(RequestId::Number(3), &raw("3"));
        // A call without a kept input leaves the others alone.
        assert!(answers.take_input(&RequestId::Number(9)).is_none());
        assert_eq!(
            answers.take_input(&RequestId::Number(2)).unwrap().get(),
            "2"
        );
        // The one before it was never delivered: dropped.
        assert!(answers.take_input(&RequestId::Number(1)).is_none());
        assert_eq!(
            answers.take_input(&RequestId::Number(3)).unwrap().get(),
            "3"
        );
        for n in 0..300 {
            answers.keep_input(RequestId::Number(n), &raw("0"));
        }
        assert_eq!(answers.inputs().len(), KEPT_INPUTS);
        assert_eq!(
            answers.take_input(&RequestId::Number(299)).unwrap().get(),
            "0"
        );
    }
}
