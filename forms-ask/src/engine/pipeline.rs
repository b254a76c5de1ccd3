//! The write pipeline: a write's retry key replayed to its first result, or the write
//! planned and committed with the key in one transaction.

use super::change::conflict;
use super::AsPrincipal;
use crate::error::{AskError, Ineligible, StoreError};
use crate::model::{
    AuditEvent, ConversationId, ExecutionStatus, NewRequest, Outcome, Principal, Redeem,
    Replacement, Request, RequestId, RetryKey,
};
use crate::retry::InputHash;
use crate::store::{Commit, Committed, Recorded, Write};
use crate::upload::StoredUpload;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// What a write will commit, and what it returns.
pub(super) struct Plan<T> {
    pub(super) eligible: Option<(ConversationId, Principal)>,
    pub(super) writes: Vec<Write>,
    pub(super) events: Vec<AuditEvent>,
    pub(super) result: T,
}

impl Plan<Request> {
    /// The plan of a change to one request: `next` replaces the version `expected` read,
    /// with the event `ev`; the result is `next`.
    pub(super) fn update(expected: u64, next: Request, ev: AuditEvent) -> Plan<Request> {
        Plan {
            eligible: None,
            writes: vec![Write::Update {
                expected,
                request: next.clone(),
            }],
            events: vec![ev],
            result: next,
        }
    }
}

impl AsPrincipal<'_> {
    /// Runs one write: replays a recorded retry key, or plans and commits. `input` is what
    /// the key is bound to (see [`crate::retry`]). Each `plan` takes its time after its first
    /// read, which observes the store's high-water mark (a request read with it, or the
    /// conversation's members with it), so the time is judged against the store without a
    /// read of its own.
    pub(super) fn write<T: Serialize + DeserializeOwned>(
        &self,
        operation: &'static str,
        input: Result<InputHash, AskError>,
        key: &str,
        plan: impl FnOnce() -> Result<Plan<T>, AskError>,
    ) -> Result<T, AskError> {
        self.write_with_uploads(operation, input, key, || plan().map(|p| (p, Vec::new())))
    }

    /// [`AsPrincipal::write`], committing files sent with a form's answer as well.
    pub(super) fn write_with_uploads<T: Serialize + DeserializeOwned>(
        &self,
        operation: &'static str,
        input: Result<InputHash, AskError>,
        key: &str,
        plan: impl FnOnce() -> Result<(Plan<T>, Vec<StoredUpload>), AskError>,
    ) -> Result<T, AskError> {
        let key = RetryKey::new(key)?;
        let input = input?;
        let replay = |first: Recorded| -> Result<T, AskError> {
            if !input.matches(&first.input_hash) {
                return Err(AskError::RetryKeyReused {
                    key: key.as_str().to_owned(),
                    operation,
                });
            }
            serde_json::from_str(&first.result).map_err(|e| {
                AskError::Store(StoreError::Corrupt(format!(
                    "the first result of retry key {:?}: {e}",
                    key.as_str()
                )))
            })
        };
        // Plan first: the commit checks the retry key atomically, so a write that goes
        // through needs no extra read. A refused plan may be the retry of a write that went
        // through (the request has moved on since): then its first result is replayed.
        let (plan, uploads) = match plan() {
            Ok(planned) => planned,
            Err(e @ AskError::Store(_)) => return Err(e),
            Err(e) => {
                return match self.store().recorded(&self.me, key.as_str())? {
                    Some(first) => replay(first),
                    None => Err(e),
                }
            }
        };
        let result = serde_json::to_string(&plan.result)
            .map_err(|e| AskError::Store(StoreError::Corrupt(e.to_string())))?;
        let commit = Commit {
            retry: Some((
                self.me.clone(),
                key.as_str().to_owned(),
                Recorded {
                    input_hash: input.canonical.clone(),
                    result,
                },
            )),
            eligible: plan.eligible,
            writes: plan.writes,
            events: plan.events,
            uploads,
        };
        match self.store().commit(&commit)? {
            Committed::Done => Ok(plan.result),
            Committed::Replayed(first) => replay(first),
            Committed::VersionConflict(id) => {
                let latest = self.asks.current(&id)?;
                Err(conflict(latest))
            }
            Committed::NotEligible => {
                let request = commit
                    .writes
                    .first()
                    .map(|w| w.request().id.clone())
                    .ok_or_else(|| {
                        StoreError::Other("an eligibility check without a write".into())
                    })?;
                let latest = self.asks.current(&request)?;
                match self.eligibility(&latest) {
                    Err(e) => Err(e),
                    Ok(()) => Err(AskError::NotEligible {
                        principal: self.me.clone(),
                        request,
                        reason: Ineligible::NotAMember,
                    }),
                }
            }
        }
    }
}

// The inputs a retry key is bound to, one per write. The field order is the one builds with
// serde_json's `preserve_order` hashed before this release (see `crate::retry`); the hash
// itself sorts the keys.

#[derive(Serialize)]
pub(super) struct OpenInput<'a> {
    pub(super) conversation: &'a ConversationId,
    pub(super) request: &'a NewRequest,
}

#[derive(Serialize)]
pub(super) struct RespondInput<'a> {
    pub(super) id: &'a RequestId,
    pub(super) version: u64,
    pub(super) outcome: Outcome,
    pub(super) answer: Option<&'a str>,
    // Only with files sent, so a retry of an answer without any hashes as before.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) uploads: Vec<UploadInput<'a>>,
}

#[derive(Serialize)]
pub(super) struct UploadInput<'a> {
    pub(super) name: &'a str,
    pub(super) sha256: String,
}

#[derive(Serialize)]
pub(super) struct VersionInput<'a> {
    pub(super) id: &'a RequestId,
    pub(super) version: u64,
}

#[derive(Serialize)]
pub(super) struct ReplaceInput<'a> {
    pub(super) id: &'a RequestId,
    pub(super) version: u64,
    pub(super) replacement: &'a Replacement,
}

#[derive(Serialize)]
pub(super) struct MessageInput<'a> {
    pub(super) id: &'a RequestId,
    pub(super) text: &'a str,
}

#[derive(Serialize)]
pub(super) struct RedeemInput<'a> {
    pub(super) id: &'a RequestId,
    pub(super) redeem: &'a Redeem,
}

#[derive(Serialize)]
pub(super) struct ReportInput<'a> {
    pub(super) id: &'a RequestId,
    pub(super) operation_key: &'a str,
    pub(super) status: ExecutionStatus,
    pub(super) detail: Option<&'a str>,
}
