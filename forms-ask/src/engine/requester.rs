//! The requester's writes: cancel, supersede and replace an open request.

use super::change::{check_current, check_text, event, transition};
use super::expiry::expiry;
use super::id::new_id;
use super::pipeline::{Plan, ReplaceInput, VersionInput};
use super::AsPrincipal;
use crate::error::AskError;
use crate::limits;
use crate::model::{EventKind, Replaced, Replacement, Request, RequestId, State};
use crate::retry::InputHash;
use crate::store::Write;
use serde_json::json;

impl AsPrincipal<'_> {
    /// Cancels the request: only the requester, with the current version, while open.
    pub fn cancel(&self, id: &RequestId, version: u64, key: &str) -> Result<Request, AskError> {
        self.requester_transition(
            "cancel",
            id,
            version,
            key,
            State::Cancelled,
            EventKind::Cancelled,
        )
    }

    /// Marks the request superseded without creating a new one: only the requester, with the
    /// current version, while open.
    pub fn supersede(&self, id: &RequestId, version: u64, key: &str) -> Result<Request, AskError> {
        self.requester_transition(
            "supersede",
            id,
            version,
            key,
            State::Superseded,
            EventKind::Superseded,
        )
    }

    fn requester_transition(
        &self,
        operation: &'static str,
        id: &RequestId,
        version: u64,
        key: &str,
        state: State,
        kind: EventKind,
    ) -> Result<Request, AskError> {
        let input = InputHash::of(operation, &VersionInput { id, version });
        self.write(operation, input, key, || {
            let r = self.asks.current(id)?;
            // The read observed the store's high-water mark: `now` is not behind it.
            let now = self.asks.now();
            self.check_requester(&r, operation)?;
            check_current(&r, version)?;
            let next = transition(&r, state, now.max(r.updated_at));
            let ev = event(&next, kind, Some(&self.me), next.updated_at, None);
            Ok(Plan::update(r.version, next, ev))
        })
    }

    /// Atomically supersedes the open request and opens its replacement, which keeps the
    /// original audience, choices, bound action and deadline (unless the replacement names
    /// its own expiry), and never carries an approval over. Later responses use
    /// `replacement.id`. The same retry key with the same input returns
    /// the same pair; with a different input it is refused.
    pub fn replace(
        &self,
        id: &RequestId,
        version: u64,
        replacement: Replacement,
        key: &str,
    ) -> Result<Replaced, AskError> {
        limits::replacement(&replacement)?;
        let input = InputHash::of(
            "replace",
            &ReplaceInput {
                id,
                version,
                replacement: &replacement,
            },
        );
        self.write("replace", input, key, || {
            let old = self.asks.current(id)?;
            // The read observed the store's high-water mark: `now` is not behind it.
            let now = self.asks.now();
            self.check_requester(&old, "replace")?;
            check_current(&old, version)?;
            if let Some(body) = &replacement.body {
                check_text("the body", body)?;
            }
            if let Some(title) = &replacement.title {
                check_text("the title", title)?;
            }
            let now = now.max(old.updated_at);
            // A deadline is part of what was asked: the replacement keeps the old one unless
            // it names its own.
            let expires_at = match replacement.expires_at {
                Some(at) => expiry(Some(at), old.action.is_some(), now)?,
                None => old.expires_at,
            };
            let new = Request {
                id: new_id(&self.me, key),
                conversation: old.conversation.clone(),
                kind: old.kind,
                title: replacement.title.or_else(|| old.title.clone()),
                body: replacement.body.unwrap_or_else(|| old.body.clone()),
                requester: old.requester.clone(),
                audience: old.audience.clone(),
                choices: old.choices.clone(),
                form: old.form.clone(),
                version: 1,
                state: State::Open,
                expires_at,
                created_at: now,
                updated_at: now,
                outcome: None,
                answer: None,
                response: None,
                responder: None,
                replaces: Some(old.id.clone()),
                replaced_by: None,
                action: old.action.clone(),
                redemption: None,
                execution: None,
            };
            let mut previous = transition(&old, State::Superseded, now);
            previous.replaced_by = Some(new.id.clone());
            let events = vec![
                self.my_event(
                    &previous,
                    EventKind::Superseded,
                    now,
                    json!({ "replaced_by": new.id }),
                ),
                self.my_event(&new, EventKind::Opened, now, json!({ "replaces": old.id })),
            ];
            Ok(Plan {
                eligible: None,
                writes: vec![
                    Write::Update {
                        expected: old.version,
                        request: previous.clone(),
                    },
                    Write::Insert(new.clone()),
                ],
                events,
                result: Replaced {
                    previous,
                    replacement: new,
                },
            })
        })
    }
}
