//! MCP sessions of the legacy protocol (before 2026-07-28), kept by rmcp's
//! [`LocalSessionManager`] and bounded here: at most `max` live sessions, each owned by the
//! credential that opened it.
//!
//! A session is idle while it has no request and no event stream open. [`Sessions::sweep`]
//! closes the sessions idle for longer than the idle time. (rmcp's own keep-alive is turned
//! off: it counts time without messages, so it would close a session whose call waits for
//! the person longer than that.) When the table is full, a new session replaces the session
//! idle the longest; when every session is busy, the new one is refused.

use crate::auth::Caller;
use futures::{Stream, StreamExt};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::ServerSseMessage;
use rmcp::transport::streamable_http_server::{SessionId, SessionManager};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Why a session operation failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SessionsError {
    /// Every session slot holds a busy session.
    #[error("the server holds its maximum of {0} sessions, all busy")]
    Full(usize),
    /// rmcp's session manager failed.
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
}

/// What the table knows about one session.
struct Meta {
    /// The credential that opened the session; `None` until the transport claims it.
    owner: Option<Caller>,
    activity: Arc<Activity>,
}

/// The requests and event streams of a session still open, and when one last opened or
/// closed (milliseconds since the table started).
#[derive(Default)]
struct Activity {
    open: AtomicUsize,
    last: AtomicU64,
}

impl Activity {
    fn idle(&self) -> bool {
        self.open.load(Ordering::SeqCst) == 0
    }
}

#[derive(Default)]
struct Table {
    live: HashMap<SessionId, Meta>,
    /// Sessions being created.
    reserved: usize,
}

/// Who may use a session named by a request.
pub(crate) enum Owner {
    /// No live session has that id.
    Unknown,
    /// The session is live, opened with this credential (`None`: not claimed yet).
    Of(Option<Caller>),
}

/// rmcp's local session manager with a session cap, an idle time and session owners.
pub(crate) struct Sessions {
    inner: LocalSessionManager,
    max: usize,
    idle: Duration,
    start: Instant,
    table: Mutex<Table>,
}

/// Counts one open request or stream of a session while it lives.
struct Open {
    activity: Arc<Activity>,
    start: Instant,
}

fn millis_since(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX)
}

impl Open {
    fn new(activity: Arc<Activity>, start: Instant) -> Open {
        activity.open.fetch_add(1, Ordering::SeqCst);
        activity.last.store(millis_since(start), Ordering::SeqCst);
        Open { activity, start }
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.activity
            .last
            .store(millis_since(self.start), Ordering::SeqCst);
        self.activity.open.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Sessions {
    /// At most `max` (at least 1) sessions of `inner`, each closed after `idle` without
    /// anything open. `inner`'s own keep-alive is turned off.
    pub(crate) fn new(mut inner: LocalSessionManager, max: usize, idle: Duration) -> Sessions {
        inner.session_config.keep_alive = None;
        Sessions {
            inner,
            max: max.max(1),
            idle,
            start: Instant::now(),
            table: Mutex::new(Table::default()),
        }
    }

    /// How often [`Sessions::sweep`] should run: a tenth of the idle time, from 100 ms to
    /// 30 s.
    pub(crate) fn sweep_every(&self) -> Duration {
        (self.idle / 10).clamp(Duration::from_millis(100), Duration::from_secs(30))
    }

    /// Closes every session idle for longer than the idle time.
    pub(crate) async fn sweep(&self) {
        let now = millis_since(self.start);
        let idle = u64::try_from(self.idle.as_millis()).unwrap_or(u64::MAX);
        let expired: Vec<SessionId> = {
            let mut table = self.table();
            let expired: Vec<SessionId> = table
                .live
                .iter()
                .filter(|(_, m)| {
                    m.activity.idle()
                        && now.saturating_sub(m.activity.last.load(Ordering::SeqCst)) >= idle
                })
                .map(|(id, _)| id.clone())
                .collect();
            for id in &expired {
                table.live.remove(id);
            }
            expired
        };
        for id in expired {
            // A session that has just ended on its own is not an error here.
            let _ = self.inner.close_session(&id).await;
        }
    }

    fn table(&self) -> MutexGuard<'_, Table> {
        // The table holds no invariant a panic elsewhere could break halfway.
        self.table
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Who may use the session `id`.
    pub(crate) fn owner(&self, id: &str) -> Owner {
        match self.table().live.get(id) {
            Some(meta) => Owner::Of(meta.owner.clone()),
            None => Owner::Unknown,
        }
    }

    /// Records that `caller` opened the session `id` (the first claim holds).
    pub(crate) fn claim(&self, id: &str, caller: &Caller) {
        if let Some(meta) = self.table().live.get_mut(id) {
            if meta.owner.is_none() {
                meta.owner = Some(caller.clone());
            }
        }
    }

    /// Whether a new session would be admitted now.
    pub(crate) fn has_room(&self) -> bool {
        let table = self.table();
        table.live.len() + table.reserved < self.max
            || table.live.values().any(|m| m.activity.idle())
    }

    /// Counts an open request or stream on `id`.
    fn open(&self, id: &SessionId) -> Option<Open> {
        let table = self.table();
        let meta = table.live.get(id)?;
        Some(Open::new(meta.activity.clone(), self.start))
    }

    /// Makes room for one session: reserves a slot, closing the least recently used idle
    /// session if the table is full.
    async fn reserve(&self) -> Result<Reservation<'_>, SessionsError> {
        let victim = {
            let mut table = self.table();
            let victim = if table.live.len() + table.reserved >= self.max {
                let idle = table
                    .live
                    .iter()
                    .filter(|(_, m)| m.activity.idle())
                    .min_by_key(|(_, m)| m.activity.last.load(Ordering::SeqCst))
                    .map(|(id, _)| id.clone());
                let Some(id) = idle else {
                    return Err(SessionsError::Full(self.max));
                };
                table.live.remove(&id);
                Some(id)
            } else {
                None
            };
            table.reserved += 1;
            victim
        };
        if let Some(id) = victim {
            // Closing a session that has just ended on its own is not an error here.
            let _ = self.inner.close_session(&id).await;
        }
        Ok(Reservation(self))
    }
}

/// A slot reserved for a session being created, given back when dropped (also when the
/// request creating it is abandoned).
struct Reservation<'a>(&'a Sessions);

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        let mut table = self.0.table();
        table.reserved = table.reserved.saturating_sub(1);
    }
}

/// Keeps `open` alive as long as `stream`.
fn counted<S>(stream: S, open: Option<Open>) -> impl Stream<Item = ServerSseMessage> + Send + Sync
where
    S: Stream<Item = ServerSseMessage> + Send + Sync + 'static,
{
    stream.map(move |message| {
        let _ = &open;
        message
    })
}

impl SessionManager for Sessions {
    type Error = SessionsError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let reservation = self.reserve().await?;
        let (id, transport) = SessionManager::create_session(&self.inner).await?;
        let activity = Activity {
            open: AtomicUsize::new(0),
            last: AtomicU64::new(millis_since(self.start)),
        };
        self.table().live.insert(
            id.clone(),
            Meta {
                owner: None,
                activity: Arc::new(activity),
            },
        );
        drop(reservation);
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        let _open = self.open(id);
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        let known = self.table().live.contains_key(id);
        Ok(known && self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.table().live.remove(id);
        Ok(self.inner.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let open = self.open(id);
        let stream = SessionManager::create_stream(&self.inner, id, message).await?;
        Ok(counted(stream, open))
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        let _open = self.open(id);
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let open = self.open(id);
        let stream = SessionManager::create_standalone_stream(&self.inner, id).await?;
        Ok(counted(stream, open))
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let open = self.open(id);
        let stream = SessionManager::resume(&self.inner, id, last_event_id).await?;
        Ok(counted(stream, open))
    }
}
