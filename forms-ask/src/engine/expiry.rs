//! Expiry: the deadline a new request gets, and a request read past its deadline marked
//! expired, judged against the store's high-water mark of time.

use super::change::{event, transition};
use super::Asks;
use crate::error::{AskError, StoreError};
use crate::model::{EventKind, Member, Principal, Request, RequestId, State};
use crate::store::{Commit, Committed, Write};
use crate::time::{Expiry, Timestamp};
use std::time::Duration;

/// How far ahead an explicit expiry may be: 90 days after creation.
pub const EXPIRY_MAX: Duration = Duration::from_secs(90 * 24 * 3600);

/// The default expiry of an approval bound to an action: 7 days.
pub const BOUND_APPROVAL_EXPIRY: Duration = Duration::from_secs(7 * 24 * 3600);

/// The expiry of a request created at `now`: an explicit one must lie after `now` and within
/// 90 days of it; otherwise bound approvals get 7 days and everything else none.
pub(super) fn expiry(
    explicit: Option<Timestamp>,
    bound: bool,
    now: Timestamp,
) -> Result<Expiry, AskError> {
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

impl Asks {
    /// Loads the request; one found open past its expiry is marked expired first. Expiry is
    /// judged against the store's high-water mark of time, so a request past its deadline
    /// stays expired for a later call whose clock is behind, whether or not anyone read it
    /// in between. On a read-only store the expiry is shown but cannot be recorded.
    pub(super) fn current(&self, id: &RequestId) -> Result<Request, AskError> {
        let (found, high_water) = self.inner.store.load_at(id)?;
        self.observe(high_water);
        self.settle(id, found)
    }

    /// [`Asks::current`], and `principal`'s membership row in the request's conversation,
    /// in one read where the store can.
    pub(super) fn current_for(
        &self,
        id: &RequestId,
        principal: &Principal,
    ) -> Result<(Request, Option<Member>), AskError> {
        let (found, high_water, member) = self.inner.store.load_for(id, principal)?;
        self.observe(high_water);
        Ok((self.settle(id, found)?, member))
    }

    /// A request as loaded; one open past its expiry is marked expired first.
    pub(super) fn settle(
        &self,
        id: &RequestId,
        found: Option<Request>,
    ) -> Result<Request, AskError> {
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
