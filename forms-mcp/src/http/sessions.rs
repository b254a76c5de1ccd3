//! MCP sessions of the legacy protocol (before 2026-07-28), kept by rmcp's
//! [`LocalSessionManager`] and bounded here: at most `max` live sessions, each owned by the
//! credential that opened it.
//!
//! rmcp closes a session after its idle time ([`SessionConfig::keep_alive`]). When the table
//! is full, a new session replaces the least recently used session that has no request and no
//! event stream open; when every session is busy, the new one is refused.
//!
//! [`SessionConfig::keep_alive`]: rmcp::transport::streamable_http_server::session::local::SessionConfig

use crate::auth::Caller;
use futures::{Stream, StreamExt};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::ServerSseMessage;
use rmcp::transport::streamable_http_server::{SessionId, SessionManager};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

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
    /// When a request last named the session.
    used: Instant,
    /// Requests and event streams of the session still open.
    open: Arc<AtomicUsize>,
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

/// rmcp's local session manager with a session cap and session owners.
pub(crate) struct Sessions {
    inner: LocalSessionManager,
    max: usize,
    table: Mutex<Table>,
}

/// Counts one open request or stream of a session while it lives.
struct Open(Arc<AtomicUsize>);

impl Open {
    fn new(count: Arc<AtomicUsize>) -> Open {
        count.fetch_add(1, Ordering::SeqCst);
        Open(count)
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Sessions {
    /// At most `max` (at least 1) sessions of `inner`.
    pub(crate) fn new(inner: LocalSessionManager, max: usize) -> Sessions {
        Sessions {
            inner,
            max: max.max(1),
            table: Mutex::new(Table::default()),
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
            || table
                .live
                .values()
                .any(|m| m.open.load(Ordering::SeqCst) == 0)
    }

    /// Marks `id` used now and counts an open request or stream on it.
    fn open(&self, id: &SessionId) -> Option<Open> {
        let mut table = self.table();
        let meta = table.live.get_mut(id)?;
        meta.used = Instant::now();
        Some(Open::new(meta.open.clone()))
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
                    .filter(|(_, m)| m.open.load(Ordering::SeqCst) == 0)
                    .min_by_key(|(_, m)| m.used)
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
        self.table().live.insert(
            id.clone(),
            Meta {
                owner: None,
                used: Instant::now(),
                open: Arc::default(),
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
