//! The reads: a principal's requests in a conversation, one request, its log, and waits.

use super::{AsPrincipal, Asks};
use crate::error::AskError;
use crate::limits;
use crate::model::{ConversationId, Listed, LogPage, Principal, Request, RequestId, State};
use crate::wait::{Hub, WaitHandle};
use std::time::{Duration, Instant};

impl Asks {
    /// Loads the request as [`AsPrincipal::show`] does (expiry applied), for `principal`.
    pub(crate) fn show_as(
        &self,
        principal: &Principal,
        id: &RequestId,
    ) -> Result<Request, AskError> {
        self.as_principal(principal).show(id)
    }
}

impl AsPrincipal<'_> {
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
}
