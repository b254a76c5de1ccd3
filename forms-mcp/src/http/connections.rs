//! The connections of the HTTP transport: HTTP/1.1 over hyper with a header read time-out,
//! at most `cap` at once.
//!
//! A connection is busy while a request is in flight on it, from its head to the end of its
//! response body (an event stream is in flight as long as it is open); otherwise it is idle
//! (kept alive between requests, or still sending its headers). When `cap` connections are
//! open, a new one replaces the oldest idle connection, so sockets that send nothing cannot
//! keep a client out; when every connection is busy, new ones wait in the listen queue until
//! one becomes idle or closes.

use axum::body::Body;
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

/// Serves `router` on `listener` until `shutdown` is cancelled: at most `cap` connections,
/// each given `header_timeout` for a request head (which also closes an idle kept-alive
/// connection after as long).
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    cap: usize,
    header_timeout: Duration,
    shutdown: CancellationToken,
) {
    let cap = cap.max(1);
    let table = Arc::new(Table::default());
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout)
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
            tokio::select! {
                _ = connection.as_mut() => {}
                () = evict.notified() => {}
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
