//! How a request changes: its next version, the audit event each change appends, and the
//! checks a change makes first (the version read still current, no blank text).

use crate::error::AskError;
use crate::model::{AuditEvent, EventKind, Principal, Request, State};
use crate::time::Timestamp;

/// The next version of `r` in `state`.
pub(super) fn transition(r: &Request, state: State, now: Timestamp) -> Request {
    let mut next = r.clone();
    next.state = state;
    next.version = r.version.saturating_add(1);
    next.updated_at = now;
    next
}

pub(super) fn event(
    r: &Request,
    kind: EventKind,
    actor: Option<&Principal>,
    at: Timestamp,
    detail: Option<serde_json::Value>,
) -> AuditEvent {
    AuditEvent {
        request: r.id.clone(),
        event: kind,
        actor: actor.cloned(),
        at,
        version: r.version,
        state: r.state,
        detail,
    }
}

impl super::AsPrincipal<'_> {
    /// An event of `r` that this principal caused at `at`, with `detail`.
    pub(super) fn my_event(
        &self,
        r: &Request,
        kind: EventKind,
        at: Timestamp,
        detail: serde_json::Value,
    ) -> AuditEvent {
        event(r, kind, Some(&self.me), at, Some(detail))
    }
}

pub(super) fn check_text(what: &str, text: &str) -> Result<(), AskError> {
    if text.trim().is_empty() {
        return Err(AskError::InvalidInput(format!("{what} must not be blank")));
    }
    Ok(())
}

/// A request that is not open, or not at `version`, is a conflict (or, expired, an expiry).
pub(super) fn check_current(r: &Request, version: u64) -> Result<(), AskError> {
    if r.state == State::Open && r.version == version {
        Ok(())
    } else {
        Err(conflict(r.clone()))
    }
}

pub(super) fn conflict(latest: Request) -> AskError {
    AskError::moved_on(latest)
}
