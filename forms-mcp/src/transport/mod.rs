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

/// What a tool call or an ask over a transport served without [`keep`] or [`http_router`]
/// is told.
pub(crate) const NOT_KEPT: &str = "this server's transport does not keep the host's answers \
     as sent, so no form can be asked on it: serve it with \
     `server.serve(forms_mcp::transport::keep(transport))` (stdio, a child process's or a \
     socket's streams, an in-process duplex) or, for streamable HTTP, wrap the router with \
     `forms_mcp::transport::http_router`";

mod kept;
mod middleware;
mod scan;
mod tee;
mod wrapper;

use kept::Answers;
pub(crate) use kept::{Capture, RawInput};
use middleware::{keep_http, HttpCapture};
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::Transport;
use rmcp::RoleServer;
use std::sync::Arc;
use tee::LineTee;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::Semaphore;
use wrapper::Capturing;

/// The MCP server transport over standard input and output, keeping the host's answers as
/// sent: rmcp's line transport ([`rmcp::transport::stdio`]) with the reader of [`capture`].
///
/// Every read and write of these handles runs on Tokio's blocking thread pool. When both
/// streams are pipes (as MCP clients start servers) and the runtime has IO enabled,
/// `capture` over [`rmcp::transport::stdio_pipes`] reads and writes them through the
/// runtime's IO driver instead, a thread hand-off less per message (the `forms-mcp` binary
/// serves stdio that way).
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
            typed: false,
        },
    }
}

/// Any transport rmcp serves a server over, keeping the host's answers as sent: the one call
/// a server that asks forms makes at serve time, `server.serve(keep(transport))`.
///
/// It takes what rmcp's `serve` takes:
/// - a reader and a writer (`rmcp::transport::stdio()`, a child process's or a socket's
///   halves): rmcp's line transport over them, the text of each line looked at as it is read
///   ([`capture`]);
/// - one stream that reads and writes (`tokio::io::duplex`, a `TcpStream`, a `UnixStream`):
///   the same, over its two halves;
/// - an rmcp [`Transport`] of typed messages (a `Sink`/`Stream` pair of rmcp's message
///   types, a worker transport): such a transport never holds text, so the answer is the
///   value it carries. Give the streams rather than a transport built over them, so that
///   their text is kept.
///
/// For rmcp's streamable HTTP service use [`http_router`] on the router that serves it. A
/// [`crate::FormCall`] read from a call that came over none of these fails the tool call with
/// an error naming this function (and any ask made without one refuses with
/// `transport_error`), on both protocol generations: an answer that cannot be seen whole is
/// never judged, and a retried call's request state is always bound to the call's
/// arguments, whatever the order of the `#[tool]` function's arguments.
///
/// ```no_run
/// use forms_mcp::FormsServer;
/// use rmcp::ServiceExt;
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let server = FormsServer::new(forms_mcp::config::timeout_from_env()?);
/// let transport = forms_mcp::transport::keep(rmcp::transport::stdio());
/// server.serve(transport).await?.waiting().await?;
/// # Ok(())
/// # }
/// ```
pub fn keep<T, E, A>(transport: T) -> impl Transport<RoleServer, Error = E> + 'static
where
    T: IntoKeeping<E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    transport.into_keeping()
}

/// What [`keep`] takes: what rmcp's `serve` takes (its `IntoTransport`), with `A` telling the
/// kinds apart as rmcp's adapters do.
pub trait IntoKeeping<E, A>: Send + 'static
where
    E: std::error::Error + Send + Sync + 'static,
{
    /// The transport over `self` that keeps the host's answers as sent.
    fn into_keeping(self) -> impl Transport<RoleServer, Error = E> + 'static;
}

/// [`IntoKeeping`] of a reader and a writer.
#[non_exhaustive]
pub enum ReadWrite {}

/// [`IntoKeeping`] of one stream that reads and writes.
#[non_exhaustive]
pub enum Duplex {}

/// [`IntoKeeping`] of a transport of rmcp's typed messages.
#[non_exhaustive]
pub enum Messages {}

impl<R, W> IntoKeeping<std::io::Error, ReadWrite> for (R, W)
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    fn into_keeping(self) -> impl Transport<RoleServer, Error = std::io::Error> + 'static {
        capture(self.0, self.1)
    }
}

impl<S> IntoKeeping<std::io::Error, Duplex> for S
where
    S: AsyncRead + AsyncWrite + Send + 'static,
{
    fn into_keeping(self) -> impl Transport<RoleServer, Error = std::io::Error> + 'static {
        let (read, write) = tokio::io::split(self);
        capture(read, write)
    }
}

impl<T, E> IntoKeeping<E, Messages> for T
where
    T: Transport<RoleServer, Error = E> + 'static,
    E: std::error::Error + Send + Sync + 'static,
{
    fn into_keeping(self) -> impl Transport<RoleServer, Error = E> + 'static {
        Capturing {
            inner: self,
            capture: Capture {
                answers: Arc::new(Answers::default()),
                connection: Arc::from(""),
                typed: true,
            },
        }
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
