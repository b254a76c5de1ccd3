//! Transports that keep the host's answers as sent.
//!
//! rmcp reads every incoming message into its own types before a handler sees it. Two
//! answers lose something on the way:
//! - On the legacy transport (protocol 2025-11-25 and older) the host answers
//!   `openai/elicitation/create` with a JSON-RPC response, which rmcp reads into its result
//!   union: an answer shaped like an elicitation result becomes rmcp's typed `ElicitResult`,
//!   which drops unknown top-level keys and reads `"content": null` as no content.
//! - On the multi-round-trip transport (2026-07-28) the answer arrives in the retried call's
//!   `inputResponses`, which rmcp reads into a map of JSON values: a key given twice keeps
//!   its last value.
//!
//! The answer checker must see the answer as the host sent it (rule V1), so these transports
//! look at each incoming message's bytes before rmcp reads them and keep the raw JSON text
//! of the parts that hold an answer:
//! - [`stdio`] and [`capture`]: rmcp's own line transport over a reader that keeps a copy of
//!   each line (at most rmcp's line limit) just long enough to find those parts;
//! - [`http_router`]: a layer over rmcp's streamable HTTP service that reads the JSON body
//!   of a `POST` that may hold an answer (at most the service's body limit) before handing
//!   the same bytes on.
//!
//! What is kept is bounded by what an ask can take. A response is kept only when it is a
//! JSON-RPC 2.0 response (`"jsonrpc":"2.0"`, one `id`, one `result`, no `method`, no `error`)
//! to the request of an ask waiting on its connection, and only one per request id: the
//! first, as rmcp delivers the first response to a request and drops the later ones. Over
//! HTTP a kept response whose `POST` rmcp refuses (any status but 2xx) is dropped again, so
//! only what rmcp accepted stays, and its bytes past the first 64 KiB come from the same
//! memory budget as request bodies (`--body-memory`, [`crate::http::HttpOptions::body_memory`]);
//! when that budget is spent the `POST` is refused with `503` and `Retry-After`, as a body is.
//! The first response is kept before rmcp reads it (rmcp may deliver it to the ask before
//! its `202` reaches the layer), so a refused one sent at the same moment as the real answer
//! can keep the real one out, and a `POST` abandoned before rmcp answers stays kept until
//! the ask ends: both only by the session's own client, within the one-per-id and budget
//! bounds.
//!
//! A kept answer is used only where rmcp's own reading of the kept text gives exactly what
//! rmcp delivered, so it is the text of the message rmcp handled and never of another one.
//! The legacy ask needs a kept answer: served over any other transport it refuses with
//! `transport_error` rather than judge an answer it cannot see whole. The multi-round-trip
//! ask falls back to rmcp's map, which differs from the text only for a repeated key.

use crate::call::CallArguments;
use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::model::{
    ClientRequest, ClientResult, GetExtensions, JsonObject, JsonRpcMessage, RequestId,
};
use rmcp::service::{RequestContext, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::async_rw::{AsyncRwTransport, DEFAULT_MAX_LINE_LENGTH};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// How many responses a connection keeps beyond one per waiting ask: room for responses
/// that arrive while an ask has sent its request but not yet learned its id.
const KEPT_SLACK: usize = 16;

/// How many raw `inputResponses` read but not yet handled a stdio connection keeps: more
/// than the smallest such lines that fit in the read buffer rmcp's transport holds.
const KEPT_INPUTS: usize = 256;

/// The most bytes of raw text kept for a stdio connection, for each kind: twice rmcp's line
/// limit, so that the newest answer always fits. Over HTTP the memory budget for bodies
/// bounds them instead.
const KEPT_BYTES: usize = 2 * DEFAULT_MAX_LINE_LENGTH;

/// The MCP server transport over standard input and output, keeping the host's answers as
/// sent: rmcp's line transport ([`rmcp::transport::stdio`]) with the reader of [`capture`].
///
/// ```no_run
/// use forms_mcp::FormsServer;
/// use rmcp::ServiceExt;
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let server = FormsServer::new(forms_mcp::config::timeout_from_env()?);
/// server.serve(forms_mcp::transport::stdio()).await?.waiting().await?;
/// # Ok(())
/// # }
/// ```
pub fn stdio() -> impl Transport<RoleServer, Error = std::io::Error> + 'static {
    let (read, write) = rmcp::transport::stdio();
    capture(read, write)
}

/// rmcp's newline-delimited JSON-RPC transport over `read` and `write` (a socket, a pipe, a
/// child process's streams), keeping the host's answers as sent.
pub fn capture<R, W>(read: R, write: W) -> impl Transport<RoleServer, Error = std::io::Error>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let answers = Arc::new(Answers::default());
    let read = LineTee {
        inner: read,
        line: Vec::new(),
        overflow: false,
        answers: answers.clone(),
    };
    Capturing {
        inner: AsyncRwTransport::<RoleServer, _, _>::new(read, write),
        capture: Capture {
            answers,
            connection: Arc::from(""),
        },
    }
}

/// `router`, serving rmcp's streamable HTTP service, with the layer that keeps the host's
/// answers as sent.
///
/// The layer reads the JSON body of two kinds of `POST` before the service does: on a
/// session (`Mcp-Session-Id`, the session rmcp routes a response to) where an ask waits, and
/// with `Mcp-Method: tools/call` (a 2026-07-28 call, which may carry `inputResponses`). It
/// hands the same bytes on. `max_body_bytes` is the service's body limit
/// ([`rmcp::transport::streamable_http_server::StreamableHttpServerConfig`]); a larger body
/// is refused here with the service's own `413 Payload Too Large`. Every other request goes
/// to the service untouched.
///
/// A kept response holds its bytes past the first 64 KiB from a budget of
/// [`crate::http::BODY_MEMORY`] bytes for this router (when it is spent, a response to keep
/// is refused with `503`); [`crate::http::serve`] shares its `body_memory` budget for
/// request bodies instead.
pub fn http_router(router: axum::Router, max_body_bytes: usize) -> axum::Router {
    keeping_router(
        router,
        max_body_bytes,
        Arc::new(Semaphore::new(
            crate::http::BODY_MEMORY.min(Semaphore::MAX_PERMITS),
        )),
    )
}

/// [`http_router`], with the kept responses' bytes past the first 64 KiB taken from
/// `budget` (one permit a byte), the budget the server's request bodies share.
pub(crate) fn keeping_router(
    router: axum::Router,
    max_body_bytes: usize,
    budget: Arc<Semaphore>,
) -> axum::Router {
    let state = Arc::new(HttpCapture {
        answers: Arc::new(Answers::within(budget)),
        max_body_bytes,
    });
    router.layer(axum::middleware::from_fn_with_state(state, keep_http))
}

// ---------------------------------------------------------------------------------------------
// What a connection keeps.

/// The answers kept for the connections of one transport: per connection, while an ask
/// waits, the raw result of each response that may answer it (one per request id); and, for
/// stdio, the raw `inputResponses` entries of calls read but not yet handled.
#[derive(Debug, Default)]
struct Answers {
    connections: Mutex<HashMap<Arc<str>, Kept>>,
    inputs: Mutex<Queue>,
    /// Over HTTP, the memory budget the kept results' bytes past [`FREE_KEPT_BYTES`] come
    /// from; over stdio, none (a connection keeps at most [`KEPT_BYTES`]).
    budget: Option<Arc<Semaphore>>,
    /// The number of the next kept result.
    serial: AtomicU64,
}

/// The bytes of each kept result that do not count against the HTTP budget, as for a
/// request body: an ordinary answer is never refused for memory.
const FREE_KEPT_BYTES: usize = crate::http::FREE_BODY_BYTES;

/// What one connection keeps while asks wait on it.
#[derive(Debug, Default)]
struct Kept {
    /// The asks waiting.
    waiting: usize,
    /// The asks that have sent their request but not yet learned its id: while there are
    /// any, a response to any id is kept.
    unresolved: usize,
    /// The ids of the requests the other asks wait on: only their responses are kept.
    expected: HashSet<RequestId>,
    results: Queue,
}

impl Kept {
    /// Drops the kept responses that no ask can take.
    fn prune(&mut self) {
        if self.unresolved == 0 {
            let expected = &self.expected;
            self.results.retain(|item| expected.contains(&item.id));
        }
    }
}

/// One kept raw text.
#[derive(Debug)]
struct Item {
    id: RequestId,
    raw: Box<RawValue>,
    /// Which keeping it was, to drop it again when rmcp refuses its message.
    serial: u64,
    /// The share of the HTTP memory budget it holds while kept.
    _held: Option<OwnedSemaphorePermit>,
}

/// Raw texts by request id in arrival order, within a count and a byte budget: beyond
/// either, the oldest go first (never the newest).
#[derive(Debug, Default)]
struct Queue {
    items: VecDeque<Item>,
    bytes: usize,
}

impl Queue {
    fn push(&mut self, item: Item, max_items: usize, max_bytes: usize) {
        self.bytes = self.bytes.saturating_add(item.raw.get().len());
        self.items.push_back(item);
        while self.items.len() > 1 && (self.items.len() > max_items || self.bytes > max_bytes) {
            self.pop_front();
        }
    }

    fn pop_front(&mut self) -> Option<Item> {
        let item = self.items.pop_front()?;
        self.bytes = self.bytes.saturating_sub(item.raw.get().len());
        Some(item)
    }

    fn remove(&mut self, position: usize) -> Option<Box<RawValue>> {
        let item = self.items.remove(position)?;
        self.bytes = self.bytes.saturating_sub(item.raw.get().len());
        Some(item.raw)
    }

    fn retain(&mut self, keep: impl Fn(&Item) -> bool) {
        self.items.retain(|item| keep(item));
        self.bytes = self.items.iter().map(|item| item.raw.get().len()).sum();
    }

    fn holds(&self, id: &RequestId) -> bool {
        self.items.iter().any(|item| item.id == *id)
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.items.len()
    }
}

/// What [`Answers::keep_result`] did with a response.
#[derive(Debug, PartialEq, Eq)]
enum Keeping {
    /// Kept, as the keeping numbered so.
    Kept(u64),
    /// Not kept: no ask can take it, or a response to its id is kept already.
    Not,
    /// Not kept: the memory budget is spent.
    Spent,
}

impl Answers {
    /// The answers of an HTTP router, whose kept results take from `budget`.
    fn within(budget: Arc<Semaphore>) -> Answers {
        Answers {
            budget: Some(budget),
            ..Answers::default()
        }
    }

    fn connections(&self) -> std::sync::MutexGuard<'_, HashMap<Arc<str>, Kept>> {
        self.connections
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn inputs(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.inputs.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether an ask waits on `connection`.
    fn waits_on(&self, connection: &str) -> bool {
        self.connections().contains_key(connection)
    }

    /// Keeps a response's raw result, if it may answer an ask waiting on `connection`: its
    /// id is one an ask waits on (or an ask does not know its id yet) and no response to the
    /// same id is kept already (the first one wins, as in rmcp).
    fn keep_result(&self, connection: &str, id: RequestId, result: &RawValue) -> Keeping {
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
    fn drop_result(&self, connection: &str, serial: u64) {
        if let Some(kept) = self.connections().get_mut(connection) {
            kept.results.retain(|item| item.serial != serial);
        }
    }

    /// Keeps the raw `inputResponses` entry of a call read from a stdio connection.
    fn keep_input(&self, id: RequestId, input: &RawValue) {
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
    fn take_input(&self, id: &RequestId) -> Option<Box<RawValue>> {
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
    answers: Arc<Answers>,
    connection: Arc<str>,
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
    capture: Capture,
    /// The id of the ask's request, once known.
    id: Option<RequestId>,
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
        let delivered = serde_json::to_value(delivered).ok()?;
        let mut connections = self.capture.answers.connections();
        let kept = connections.get_mut(&self.capture.connection)?;
        let position = kept.results.items.iter().position(|item| {
            item.id == *id
                && serde_json::from_str::<ClientResult>(item.raw.get())
                    .ok()
                    .and_then(|read| serde_json::to_value(read).ok())
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
pub(crate) struct RawInput(Box<RawValue>);

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

// ---------------------------------------------------------------------------------------------
// Finding the answers in a message.

/// What a message holds for an ask.
enum Found<'a> {
    /// A response: its id and raw result.
    Result(RequestId, &'a RawValue),
    /// A `tools/call` request with `inputResponses[INPUT_KEY]`: its id and that raw entry.
    Input(RequestId, &'a RawValue),
    Nothing,
}

/// An object's members in order, as raw JSON; a key given twice appears twice.
struct Members<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'a> Members<'a> {
    fn read(raw: &'a RawValue) -> Option<Members<'a>> {
        serde_json::from_str(raw.get()).ok()
    }

    /// The member `key`, when it is given exactly once.
    fn one(&self, key: &str) -> Option<&'a RawValue> {
        let mut found = self.0.iter().filter(|(k, _)| k == key);
        let first = found.next()?;
        found.next().is_none().then_some(first.1)
    }

    /// The member `key`'s last value, as a JSON map reads it.
    fn last(&self, key: &str) -> Option<&'a RawValue> {
        self.0.iter().rev().find(|(k, _)| k == key).map(|(_, v)| *v)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Members<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MembersVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for MembersVisitor<'a> {
            type Value = Members<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members<'a>, A::Error> {
                let mut members = Vec::new();
                while let Some((key, value)) = map.next_entry::<Cow<'a, str>, &'a RawValue>()? {
                    members.push((key, value));
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(MembersVisitor(std::marker::PhantomData))
    }
}

/// What the JSON-RPC 2.0 message `bytes` holds for an ask: nothing unless it has
/// `"jsonrpc":"2.0"` (once), as rmcp requires. A message rmcp would not read the same way is
/// harmless: a kept part is used only where it reads as what rmcp delivered.
fn find(bytes: &[u8]) -> Found<'_> {
    let Ok(message) = serde_json::from_slice::<&RawValue>(bytes) else {
        return Found::Nothing;
    };
    let Some(members) = Members::read(message) else {
        return Found::Nothing;
    };
    let version_2 = members
        .one("jsonrpc")
        .and_then(|version| serde_json::from_str::<Cow<'_, str>>(version.get()).ok())
        .is_some_and(|version| version == "2.0");
    if !version_2 {
        return Found::Nothing;
    }
    let Some(id) = members
        .one("id")
        .and_then(|id| serde_json::from_str::<RequestId>(id.get()).ok())
    else {
        return Found::Nothing;
    };
    match (members.one("method"), members.one("result")) {
        (None, Some(result)) if members.one("error").is_none() => Found::Result(id, result),
        (Some(method), None)
            if serde_json::from_str::<Cow<'_, str>>(method.get())
                .is_ok_and(|method| method == "tools/call") =>
        {
            members
                .one("params")
                .and_then(Members::read)
                .and_then(|params| params.last("inputResponses"))
                .and_then(Members::read)
                .and_then(|responses| responses.last(crate::INPUT_KEY))
                .map_or(Found::Nothing, |input| Found::Input(id, input))
        }
        _ => Found::Nothing,
    }
}

/// The arguments of the `tools/call` request `bytes`, as rmcp reads them (a repeated key:
/// the last one wins).
fn call_arguments(bytes: &[u8]) -> Option<JsonObject> {
    let message = serde_json::from_slice::<&RawValue>(bytes).ok()?;
    let arguments = Members::read(message)?
        .one("params")
        .and_then(Members::read)?
        .last("arguments")?;
    serde_json::from_str::<Option<JsonObject>>(arguments.get())
        .ok()
        .flatten()
}

// ---------------------------------------------------------------------------------------------
// stdio: a reader that looks at each line.

/// A reader that hands its bytes on unchanged and looks at each complete line (framed as
/// rmcp frames it: up to `\n`, without a final `\r` or a leading byte order mark).
struct LineTee<R> {
    inner: R,
    line: Vec<u8>,
    /// The current line is longer than rmcp's limit; rmcp drops it, and so does this.
    overflow: bool,
    answers: Arc<Answers>,
}

impl<R> LineTee<R> {
    fn look(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let end = bytes.iter().position(|b| *b == b'\n');
            let (part, rest) = match end {
                Some(at) => (bytes.get(..at).unwrap_or_default(), bytes.get(at + 1..)),
                None => (bytes, None),
            };
            if !self.overflow {
                if self.line.len().saturating_add(part.len()) >= DEFAULT_MAX_LINE_LENGTH {
                    self.overflow = true;
                    self.line = Vec::new();
                } else {
                    self.line.extend_from_slice(part);
                }
            }
            match rest {
                Some(rest) => {
                    if !self.overflow {
                        self.read_line();
                    }
                    self.line.clear();
                    self.overflow = false;
                    bytes = rest;
                }
                None => break,
            }
        }
    }

    fn read_line(&self) {
        let line = self.line.strip_suffix(b"\r").unwrap_or(&self.line);
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        match find(line) {
            Found::Result(id, result) => {
                self.answers.keep_result("", id, result);
            }
            Found::Input(id, input) => self.answers.keep_input(id, input),
            Found::Nothing => {}
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for LineTee<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let poll = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = poll {
            let read = buf.filled().get(before..).unwrap_or_default();
            this.look(read);
        }
        poll
    }
}

/// A transport whose requests carry their connection's [`Capture`] (and, for a retried
/// call, its kept [`RawInput`]) in their extensions.
struct Capturing<T> {
    inner: T,
    capture: Capture,
}

impl<T: Transport<RoleServer>> Transport<RoleServer> for Capturing<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        let mut message = self.inner.receive().await?;
        if let JsonRpcMessage::Request(request) = &mut message {
            let arguments = match &request.request {
                ClientRequest::CallToolRequest(call) => {
                    Some(CallArguments(call.params.arguments.clone().map(Arc::new)))
                }
                _ => None,
            };
            let extensions = request.request.extensions_mut();
            if let Some(arguments) = arguments {
                extensions.insert(arguments);
            }
            if let Some(raw) = self.capture.answers.take_input(&request.id) {
                extensions.insert(RawInput(raw));
            }
            extensions.insert(self.capture.clone());
        }
        Some(message)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

// ---------------------------------------------------------------------------------------------
// HTTP: a layer that reads each JSON body first.

struct HttpCapture {
    answers: Arc<Answers>,
    max_body_bytes: usize,
}

async fn keep_http(
    State(state): State<Arc<HttpCapture>>,
    request: Request,
    next: Next,
) -> Response {
    let (mut parts, body) = request.into_parts();
    let session: Option<Arc<str>> = parts
        .headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(Arc::from);
    if let Some(connection) = &session {
        parts.extensions.insert(Capture {
            answers: state.answers.clone(),
            connection: connection.clone(),
        });
    }
    let json = parts
        .headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(';')
                .next()
                .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
        });
    // Only two kinds of message hold an answer: a response on a session where an ask waits,
    // and a 2026-07-28 `tools/call` (which names its method in `Mcp-Method`; rmcp refuses one
    // that does not). Every other body goes to rmcp unread.
    let waited_on = session
        .as_deref()
        .is_some_and(|session| state.answers.waits_on(session));
    let call = parts
        .headers
        .get("mcp-method")
        .is_some_and(|method| method.as_bytes() == b"tools/call");
    if parts.method != axum::http::Method::POST || !json || !(waited_on || call) {
        return next.run(Request::from_parts(parts, body)).await;
    }
    let bytes = match collect(body, state.max_body_bytes).await {
        Ok(bytes) => bytes,
        Err(response) => return response,
    };
    if call {
        parts
            .extensions
            .insert(CallArguments(call_arguments(&bytes).map(Arc::new)));
    }
    // A response kept before rmcp reads it (its answer may reach the ask before rmcp's
    // `202 Accepted` reaches this layer), and dropped again when rmcp refuses it.
    let mut kept = None;
    match find(&bytes) {
        Found::Result(id, result) => {
            if let Some(connection) = &session {
                match state.answers.keep_result(connection, id, result) {
                    Keeping::Kept(serial) => kept = Some((connection.clone(), serial)),
                    Keeping::Not => {}
                    Keeping::Spent => return spent(),
                }
            }
        }
        Found::Input(_, input) => {
            parts.extensions.insert(RawInput(input.to_owned()));
        }
        Found::Nothing => {}
    }
    let response = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    if let Some((connection, serial)) = kept {
        if !response.status().is_success() {
            state.answers.drop_result(&connection, serial);
        }
    }
    response
}

/// The refusal of a response that finds the memory budget spent: `503` with `Retry-After`,
/// closing the connection, as for a body.
fn spent() -> Response {
    let mut response = (
        axum::http::StatusCode::SERVICE_UNAVAILABLE,
        "Service Unavailable: too many large answers held at once; retry later",
    )
        .into_response();
    let headers = response.headers_mut();
    headers.insert(
        axum::http::header::CONNECTION,
        axum::http::HeaderValue::from_static("close"),
    );
    headers.insert(
        axum::http::header::RETRY_AFTER,
        axum::http::HeaderValue::from_static("1"),
    );
    response
}

/// The whole body, at most `max` bytes; the refusals are rmcp's. A body in one frame (as
/// the server's guard hands it on, already read) is taken as it is, not copied.
async fn collect(mut body: Body, max: usize) -> Result<Bytes, Response> {
    let mut first: Option<Bytes> = None;
    let mut collected = Vec::new();
    loop {
        match std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
            None => break,
            Some(Ok(frame)) => {
                let Ok(data) = frame.into_data() else {
                    continue;
                };
                let held = first.as_ref().map_or(collected.len(), Bytes::len);
                if data.len() > max.saturating_sub(held) {
                    return Err((
                        axum::http::StatusCode::PAYLOAD_TOO_LARGE,
                        format!("Payload Too Large: request body exceeds {max} bytes"),
                    )
                        .into_response());
                }
                if first.is_none() && collected.is_empty() {
                    first = Some(data);
                } else {
                    if let Some(first) = first.take() {
                        collected.extend_from_slice(&first);
                    }
                    collected.extend_from_slice(&data);
                }
            }
            Some(Err(_)) => {
                return Err((
                    axum::http::StatusCode::BAD_REQUEST,
                    "Bad Request: the request body could not be read",
                )
                    .into_response())
            }
        }
    }
    Ok(first.unwrap_or_else(|| Bytes::from(collected)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result_of(line: &str) -> Option<(RequestId, String)> {
        match find(line.as_bytes()) {
            Found::Result(id, raw) => Some((id, raw.get().to_owned())),
            _ => None,
        }
    }

    fn input_of(line: &str) -> Option<(RequestId, String)> {
        match find(line.as_bytes()) {
            Found::Input(id, raw) => Some((id, raw.get().to_owned())),
            _ => None,
        }
    }

    #[test]
    fn finds_a_result_as_sent() {
        let (id, raw) = result_of(
            r#"{"jsonrpc":"2.0","id":3,"result":{"action":"decline","content":null,"x":1}}"#,
        )
        .unwrap();
        assert_eq!(id, RequestId::Number(3));
        assert_eq!(raw, r#"{"action":"decline","content":null,"x":1}"#);
        let (_, raw) = result_of(r#"{"id":"a","jsonrpc":"2.0","result":null}"#).unwrap();
        assert_eq!(raw, "null");
        let (_, raw) =
            result_of(r#"{"jsonrpc":"2.0","id":1,"result":{"action":"cancel","action":"x"}}"#)
                .unwrap();
        assert_eq!(raw, r#"{"action":"cancel","action":"x"}"#);
        // Not a response, or not one rmcp reads.
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{},"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","result":{}}"#,
            r#"{"jsonrpc":"2.0","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
            // Not JSON-RPC 2.0: rmcp refuses these.
            r#"{"jsonrpc":"1.0","id":1,"result":{}}"#,
            r#"{"id":1,"result":{}}"#,
            r#"{"jsonrpc":2.0,"id":1,"result":{}}"#,
            r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"result":{}}"#,
            "[]",
            "not json",
        ] {
            assert!(result_of(line).is_none(), "{line}");
        }
    }

    #[test]
    fn finds_the_input_response_of_a_retried_call() {
        let (id, raw) = input_of(
            r#"{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"t","inputResponses":{"other":1,"form":{"action":"accept","action":"cancel"}}}}"#,
        )
        .unwrap();
        assert_eq!(id, RequestId::String("c".into()));
        assert_eq!(raw, r#"{"action":"accept","action":"cancel"}"#);
        // A map keeps a repeated key's last value; so does this.
        let (_, raw) = input_of(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"inputResponses":{"form":1,"form":2}}}"#,
        )
        .unwrap();
        assert_eq!(raw, "2");
        for line in [
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"inputResponses":{"form":1}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"inputResponses":{"form":1}}}"#,
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"inputResponses":{"form":1}}}"#,
        ] {
            assert!(input_of(line).is_none(), "{line}");
        }
    }

    #[test]
    fn looks_at_lines_as_rmcp_frames_them() {
        let answers = Arc::new(Answers::default());
        let mut tee = LineTee {
            inner: tokio::io::empty(),
            line: Vec::new(),
            overflow: false,
            answers: answers.clone(),
        };
        let capture = Capture {
            answers: answers.clone(),
            connection: Arc::from(""),
        };
        // Nothing is kept while no ask waits.
        tee.look(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"action\":\"cancel\"}}\n");
        assert!(answers.connections().is_empty());
        let waiting = capture.wait();
        // A line in pieces, with a carriage return and a byte order mark.
        tee.look(b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":2,");
        tee.look(b"\"result\":{\"action\":\"decline\",\"extra\":true}}\r\n{\"jsonrpc\"");
        let delivered: ClientResult =
            serde_json::from_str(r#"{"action":"decline","extra":true}"#).unwrap();
        let raw = waiting.take(&RequestId::Number(2), &delivered).unwrap();
        assert_eq!(raw.get(), r#"{"action":"decline","extra":true}"#);
        // Taken once.
        assert!(waiting.take(&RequestId::Number(2), &delivered).is_none());
        // A kept result is handed out only for what rmcp delivered from it.
        tee.look(b":\"2.0\",\"id\":4,\"result\":{\"action\":\"accept\",\"content\":null}}\n");
        let other: ClientResult = serde_json::from_str(r#"{"action":"decline"}"#).unwrap();
        assert!(waiting.take(&RequestId::Number(4), &other).is_none());
        // rmcp delivers `{"action":"accept"}` for it; the text kept is the one sent.
        let same: ClientResult = serde_json::from_str(r#"{"action":"accept"}"#).unwrap();
        assert!(waiting.take(&RequestId::Number(5), &same).is_none());
        assert_eq!(
            waiting.take(&RequestId::Number(4), &same).unwrap().get(),
            r#"{"action":"accept","content":null}"#
        );
        drop(waiting);
        assert!(answers.connections().is_empty());
    }

    #[test]
    fn keeps_only_what_a_waiting_ask_may_take() {
        let answers = Arc::new(Answers::default());
        let capture = Capture {
            answers: answers.clone(),
            connection: Arc::from("session"),
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
        };
        let answers = &capture.answers;
        let sized = |n: usize| RawValue::from_string(format!("\"{}\"", "x".repeat(n - 2))).unwrap();
        let mut waiting: Vec<Waiting> = (0..4).map(|_| capture.wait()).collect();
        for (n, waiting) in waiting.iter_mut().enumerate() {
            waiting.expect(RequestId::Number(n as i64));
        }
        // A small answer takes nothing from the budget.
        let small = answers.keep_result("session", RequestId::Number(0), &sized(100));
        assert!(matches!(small, Keeping::Kept(_)));
        assert_eq!(budget.available_permits(), 3 * FREE_KEPT_BYTES);
        // A large one takes its bytes past the free ones, until the budget is spent.
        let Keeping::Kept(large) =
            answers.keep_result("session", RequestId::Number(1), &sized(3 * FREE_KEPT_BYTES))
        else {
            panic!("not kept")
        };
        assert_eq!(budget.available_permits(), FREE_KEPT_BYTES);
        assert_eq!(
            answers.keep_result("session", RequestId::Number(2), &sized(3 * FREE_KEPT_BYTES)),
            Keeping::Spent
        );
        // Dropped (rmcp refused its message), it gives its share back.
        answers.drop_result("session", large);
        assert_eq!(budget.available_permits(), 3 * FREE_KEPT_BYTES);
        let Keeping::Kept(_) =
            answers.keep_result("session", RequestId::Number(2), &sized(3 * FREE_KEPT_BYTES))
        else {
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
