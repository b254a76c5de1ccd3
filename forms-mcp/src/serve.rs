//! One HTTP/1.1 serving stack (hyper + axum) for every listener of this workspace: the
//! streamable HTTP transport of `forms-mcp --http` ([`crate::http`]) and the page server of
//! `forms host` and `forms ask page` (forms-host). [`serve`] takes a listener, an axum
//! [`Router`] and the [`Limits`]:
//!
//! - At most [`Limits::max_connections`] connections are open at once (lowered to fit the
//!   process's open-file limit). A connection is busy while a request is in flight on it,
//!   from its head to the end of its response body (an event stream is in flight as long as
//!   it is open); otherwise it is idle (kept alive between requests, or still sending its
//!   headers). When the cap is reached a new connection replaces the oldest idle one, so
//!   sockets that send nothing cannot keep a client out; when every connection is busy, new
//!   ones wait in the listen queue until one becomes idle or closes.
//! - A request head must arrive within [`Limits::header_timeout`] (which also closes an idle
//!   kept-alive connection after as long) and fit hyper's 64 KiB read buffer; a connection
//!   is served at most [`Limits::connection_time`], when set.
//! - `Host` and `Origin` are checked before anything else by [`Hosts`] (403 otherwise).
//! - Bodies are read through [`Bodies`], which every request carries in its extensions: at
//!   most a size, within a time-out, with the bytes past the first 64 KiB of each taken from
//!   a memory budget shared by all requests (503 when spent).

pub(crate) mod bodies;
mod hosts;

pub use bodies::{Bodies, FREE_BODY_BYTES};
pub use hosts::{parse_origin, shown, Hosts, Refused};

use axum::body::Body;
use axum::http::{HeaderName, HeaderValue};
use axum::response::Response;
use axum::Router;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// hyper's read buffer per connection: 64 KiB (also the largest request head).
const READ_BUFFER_BYTES: usize = 64 * 1024;

/// One open connection.
struct Open {
    id: u64,
    /// Requests in flight.
    in_flight: Arc<AtomicUsize>,
    /// Tells the connection's task to close it.
    evict: Arc<Notify>,
}

/// The open connections, oldest first.
#[derive(Default)]
struct Table {
    open: Mutex<Vec<Open>>,
    /// Signalled when a connection becomes idle or closes.
    changed: Notify,
}

impl Table {
    fn open(&self) -> MutexGuard<'_, Vec<Open>> {
        // The list holds no invariant a panic elsewhere could break halfway.
        self.open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether a new connection can be taken now: there is room, or an idle one to replace.
    fn room(&self, cap: usize) -> bool {
        let open = self.open();
        open.len() < cap || open.iter().any(|c| c.in_flight.load(Ordering::SeqCst) == 0)
    }

    /// Adds a connection, closing the oldest idle one when `cap` are open.
    fn add(&self, cap: usize, connection: Open) {
        let mut open = self.open();
        if open.len() >= cap {
            if let Some(oldest) = open
                .iter()
                .position(|c| c.in_flight.load(Ordering::SeqCst) == 0)
            {
                open.remove(oldest).evict.notify_one();
            }
        }
        open.push(connection);
    }

    fn remove(&self, id: u64) {
        self.open().retain(|c| c.id != id);
        self.changed.notify_waiters();
    }
}

/// Counts a request in flight until dropped.
struct InFlight {
    count: Arc<AtomicUsize>,
    table: Arc<Table>,
}

impl InFlight {
    fn new(count: &Arc<AtomicUsize>, table: &Arc<Table>) -> InFlight {
        count.fetch_add(1, Ordering::SeqCst);
        InFlight {
            count: count.clone(),
            table: table.clone(),
        }
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if self.count.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.table.changed.notify_waiters();
        }
    }
}

/// A response body that keeps its request in flight until it ends or is dropped.
struct Watched {
    inner: Body,
    _in_flight: InFlight,
}

impl http_body::Body for Watched {
    type Data = <Body as http_body::Body>::Data;
    type Error = <Body as http_body::Body>::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// Open files kept for the process besides connections when the connection cap is fitted to
/// the open-file limit.
pub const RESERVED_FILES: u64 = 32;

/// The limits of one listener.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Limits {
    /// How many connections are open at once (lowered to fit the open-file limit).
    pub max_connections: usize,
    /// How long a request's headers may take, and how long an idle connection stays open.
    pub header_timeout: Duration,
    /// The longest a connection is served, if bounded.
    pub connection_time: Option<Duration>,
    /// How request bodies are read: size, time-out and memory budget.
    pub bodies: Bodies,
    /// The accepted `Host` and `Origin` values.
    pub hosts: Hosts,
    /// Headers set on every response, refusals included.
    pub headers: Vec<(HeaderName, HeaderValue)>,
}

impl Limits {
    /// Limits with `max_connections`, `header_timeout`, `bodies` and `hosts`, and no bound on
    /// a connection's lifetime.
    pub fn new(
        max_connections: usize,
        header_timeout: Duration,
        bodies: Bodies,
        hosts: Hosts,
    ) -> Limits {
        Limits {
            max_connections,
            header_timeout,
            connection_time: None,
            bodies,
            hosts,
            headers: Vec::new(),
        }
    }

    /// The same limits, setting `headers` on every response, refusals included.
    pub fn with_headers(mut self, headers: Vec<(HeaderName, HeaderValue)>) -> Limits {
        self.headers = headers;
        self
    }

    /// The same limits, each connection served at most `time`.
    pub fn with_connection_time(mut self, time: Duration) -> Limits {
        self.connection_time = Some(time);
        self
    }

    /// The connection cap [`serve`] applies: `max_connections`, lowered to fit the process's
    /// open-file limit, keeping [`RESERVED_FILES`] for everything else.
    pub fn connection_cap(&self) -> usize {
        fitted_connections(self.max_connections)
    }
}

/// `wanted`, lowered to fit the process's open-file limit.
fn fitted_connections(wanted: usize) -> usize {
    #[cfg(unix)]
    {
        use nix::sys::resource::{getrlimit, Resource};
        if let Ok((soft, _)) = getrlimit(Resource::RLIMIT_NOFILE) {
            let room = soft.saturating_sub(RESERVED_FILES).max(1);
            return wanted
                .min(usize::try_from(room).unwrap_or(usize::MAX))
                .max(1);
        }
    }
    wanted.max(1)
}

/// Serves `router` on `listener` until `shutdown` is cancelled, within `limits`: the
/// `Host`/`Origin` check runs first, and every request carries the [`Bodies`] reader in its
/// extensions.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    shutdown: CancellationToken,
) {
    let cap = limits.connection_cap();
    let connection_time = limits.connection_time;
    let headers = Arc::new(limits.headers.clone());
    let router = router
        .layer(axum::Extension(limits.bodies.clone()))
        .layer(axum::middleware::from_fn_with_state(
            Arc::new(limits.hosts.clone()),
            hosts::check,
        ))
        .layer(axum::middleware::map_response(
            move |mut response: Response| {
                let headers = Arc::clone(&headers);
                async move {
                    for (name, value) in headers.iter() {
                        response.headers_mut().insert(name.clone(), value.clone());
                    }
                    response
                }
            },
        ));
    let table = Arc::new(Table::default());
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .max_buf_size(READ_BUFFER_BYTES)
        .keep_alive(true);
    let mut next = 0u64;
    loop {
        // Take a connection only when there is room or an idle one to replace; the others
        // wait in the listen queue.
        loop {
            let changed = table.changed.notified();
            if table.room(cap) {
                break;
            }
            tokio::select! {
                () = changed => {}
                () = shutdown.cancelled() => return drain(&table).await,
            }
        }
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(error) => {
                    if !is_connection_error(&error) {
                        // Out of descriptors or memory: wait a little rather than spin.
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                    continue;
                }
            },
            () = shutdown.cancelled() => return drain(&table).await,
        };
        next += 1;
        let id = next;
        let in_flight = Arc::new(AtomicUsize::new(0));
        let evict = Arc::new(Notify::new());
        table.add(
            cap,
            Open {
                id,
                in_flight: in_flight.clone(),
                evict: evict.clone(),
            },
        );
        let app = TowerToHyperService::new(router.clone());
        let watched = table.clone();
        let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
            let in_flight = InFlight::new(&in_flight, &watched);
            let call = hyper::service::Service::call(&app, request);
            async move {
                let response = call.await?;
                Ok::<_, std::convert::Infallible>(response.map(|inner| Watched {
                    inner,
                    _in_flight: in_flight,
                }))
            }
        });
        let connection = builder.serve_connection(TokioIo::new(stream), service);
        let table = table.clone();
        let shutdown = shutdown.clone();
        tokio::spawn(async move {
            let mut connection = std::pin::pin!(connection);
            let lifetime = async {
                match connection_time {
                    Some(time) => tokio::time::sleep(time).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = connection.as_mut() => {}
                () = evict.notified() => {}
                () = lifetime => {}
                () = shutdown.cancelled() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(Duration::from_secs(5), connection.as_mut()).await;
                }
            }
            table.remove(id);
        });
    }
}

/// Waits (at most 5 s) for the open connections to close after a shutdown.
async fn drain(table: &Table) {
    let _ = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let changed = table.changed.notified();
            if table.open().is_empty() {
                return;
            }
            changed.await;
        }
    })
    .await;
}

/// Errors of one incoming connection, after which accepting goes on at once.
fn is_connection_error(error: &std::io::Error) -> bool {
    use std::io::ErrorKind;
    matches!(
        error.kind(),
        ErrorKind::ConnectionRefused | ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset
    )
}
