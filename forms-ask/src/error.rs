//! Errors: what a write or read can be refused with, and what a store can fail with.

use crate::model::{ConversationId, Kind, Outcome, Principal, Request, RequestId};
use serde::Serialize;

/// Why an operation was refused. Nothing was written when an operation returns an error
/// (except that a request found past its expiry is marked expired first).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AskError {
    /// No request with this ID.
    #[error("no request {0}")]
    NotFound(RequestId),
    /// The version given is stale, or the request is no longer open (someone else decided,
    /// or it was cancelled or superseded). Nothing was overwritten; `latest` is the current
    /// state, to show instead.
    #[error("conflict: request {} is at version {} and {}", latest.id, latest.version, latest.state)]
    Conflict {
        /// The request as it is now.
        latest: Box<Request>,
    },
    /// The request is past its expiry (it stays expired even if the clock jumps back).
    #[error("request {} expired at {}", latest.id, latest.expires_at)]
    Expired {
        /// The request, now expired.
        latest: Box<Request>,
    },
    /// The principal may not respond: not in the original audience, no longer a member, or
    /// contact rights revoked.
    #[error("{principal} is not eligible to respond to {request}: {reason}")]
    NotEligible {
        /// Who tried.
        principal: Principal,
        /// The request.
        request: RequestId,
        /// Why not.
        reason: Ineligible,
    },
    /// Only the requester may do this (cancel, replace, supersede).
    #[error("only the requester {requester} may {action} request {request}")]
    NotRequester {
        /// The request.
        request: RequestId,
        /// Its requester.
        requester: Principal,
        /// What was attempted.
        action: &'static str,
    },
    /// The principal may not see this request (not the requester, not in the audience, not
    /// a member of its conversation).
    #[error("{principal} may not see request {request}")]
    NotAllowed {
        /// Who asked.
        principal: Principal,
        /// The request.
        request: RequestId,
    },
    /// The principal is not a current member of the conversation (to open a request in it).
    #[error("{principal} is not a member of conversation {conversation}")]
    NotMember {
        /// Who tried.
        principal: Principal,
        /// The conversation.
        conversation: ConversationId,
    },
    /// The principal may not manage the conversation's membership: only its managers may,
    /// while they are active members (membership alone is not authority).
    #[error("{principal} may not manage the members of conversation {conversation}")]
    NotManager {
        /// Who tried.
        principal: Principal,
        /// The conversation.
        conversation: ConversationId,
    },
    /// The outcome is not one of the kind's outcomes.
    #[error("`{outcome}` is not an outcome of a {kind} (expected one of {})", outcomes(*kind))]
    InvalidOutcome {
        /// The request's kind.
        kind: Kind,
        /// The outcome given.
        outcome: Outcome,
    },
    /// The answer is not one of the offered choices, or is missing where choices demand one.
    #[error("invalid answer: {0}")]
    InvalidAnswer(String),
    /// A form was refused, with the findings of the runtime's checker (each path and rule):
    /// the Data form of a request being opened broke a rule R1–R27 (code
    /// `invalid_arguments`), or the host response given as the answer of a question carrying
    /// a form broke a rule V1–V8 (code `invalid_response`). Nothing was written.
    #[error("{}", .0.message())]
    Form(forms_runtime::FormError),
    /// The input is malformed: a blank body, an expiry out of range, an unknown audience
    /// member, a blank retry key …
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// The retry key was used before by this principal with a different input.
    #[error("retry key {key:?} was already used for a different {operation}")]
    RetryKeyReused {
        /// The key.
        key: String,
        /// The operation attempted now.
        operation: &'static str,
    },
    /// A bound-action operation was refused.
    #[error("action refused: {0}")]
    ActionRefused(ActionRefusal),
    /// An argument is over its size limit (see the crate's limits, e.g.
    /// [`crate::BODY_CHARS_MAX`]); `field` names it as the tools and the CLI do.
    #[error("{field}: {problem}")]
    TooLarge {
        /// The argument: `body`, `title`, `choices`, `choices[3]`, `answer`, ...
        field: String,
        /// What is over the limit, and the limit.
        problem: String,
    },
    /// The principal already has as many concurrent waits as the engine allows.
    #[error(
        "{principal} already has {limit} waits in progress; wait for one to end or cancel one"
    )]
    TooManyWaits {
        /// Who asked for one more.
        principal: Principal,
        /// The cap (see [`crate::Asks::with_wait_limit`]).
        limit: usize,
    },
    /// A per-principal quota ([`crate::Quotas`]) is used up; nothing was written.
    #[error("{principal} already has {limit} {what}, the most allowed; {remedy}")]
    Quota {
        /// Who asked for one more.
        principal: Principal,
        /// What is counted: `"open requests"`, `"messages on this request"`.
        what: &'static str,
        /// The quota.
        limit: usize,
        /// What frees a place, in words.
        remedy: &'static str,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn outcomes(kind: Kind) -> String {
    kind.outcomes()
        .iter()
        .map(|o| o.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

impl AskError {
    /// A stable snake_case code for the error, as the CLI prints it.
    pub fn code(&self) -> &'static str {
        match self {
            AskError::NotFound(_) => "not_found",
            AskError::Conflict { .. } => "conflict",
            AskError::Expired { .. } => "expired",
            AskError::NotEligible { .. } => "not_eligible",
            AskError::NotRequester { .. } => "not_requester",
            AskError::NotAllowed { .. } => "not_allowed",
            AskError::NotMember { .. } => "not_member",
            AskError::NotManager { .. } => "not_manager",
            AskError::InvalidOutcome { .. } => "invalid_outcome",
            AskError::InvalidAnswer(_) => "invalid_answer",
            AskError::Form(e) => e.code().as_str(),
            AskError::InvalidInput(_) => "invalid_input",
            AskError::RetryKeyReused { .. } => "retry_key_reused",
            AskError::ActionRefused(_) => "action_refused",
            AskError::TooLarge { .. } => "invalid_arguments",
            AskError::TooManyWaits { .. } => "too_many_waits",
            AskError::Quota { .. } => "quota_exceeded",
            AskError::Store(StoreError::Unusable { .. } | StoreError::NewerSchema { .. }) => {
                "store_unusable"
            }
            AskError::Store(StoreError::ReadOnly { .. }) => "store_read_only",
            AskError::Store(_) => "store",
        }
    }

    /// The refusal of a write to a request that has moved on since it was read: `expired`
    /// when its deadline passed, else `conflict`, each carrying `latest`.
    pub fn moved_on(latest: Request) -> AskError {
        let latest = Box::new(latest);
        if latest.state == crate::model::State::Expired {
            AskError::Expired { latest }
        } else {
            AskError::Conflict { latest }
        }
    }

    /// The latest state a conflict or expiry carries.
    pub fn latest(&self) -> Option<&Request> {
        match self {
            AskError::Conflict { latest } | AskError::Expired { latest } => Some(latest),
            _ => None,
        }
    }
}

/// Why a principal is not eligible to respond.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Ineligible {
    /// Not in the audience fixed when the request was opened (a later member never is).
    #[error("not in the request's original audience")]
    NotInAudience,
    /// No longer a member of the conversation.
    #[error("no longer a member of the conversation")]
    NotAMember,
    /// Contact rights revoked.
    #[error("contact rights revoked")]
    ContactRevoked,
    /// The requester of an approval never decides it, even if it is in the audience.
    #[error("the requester never decides its own approval")]
    Requester,
    /// The executor a bound action names never approves it.
    #[error("the executor of a bound action never approves it")]
    Executor,
}

/// Why a bound-action operation was refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ActionRefusal {
    /// The request has no bound action.
    #[error("the request has no bound action")]
    NoAction,
    /// The approval is not (or not yet) approved.
    #[error("the request is not an approved approval")]
    NotApproved,
    /// The approval was already redeemed.
    #[error("the approval was already redeemed")]
    AlreadyRedeemed,
    /// What was presented differs from the bound action.
    #[error("{0} does not match the bound action")]
    Mismatch(&'static str),
    /// An execution report before a redemption.
    #[error("the approval has not been redeemed")]
    NotRedeemed,
    /// The action already has a final (succeeded or failed) report.
    #[error("the execution already has a final report")]
    ExecutionFinal,
    /// The approval's expiry passed before it was redeemed.
    #[error("the approval expired before it was redeemed")]
    ApprovalExpired,
    /// Only the named executor (or the requester) may redeem or report.
    #[error("only the named executor or the requester may do this")]
    NotExecutor,
}

/// An error's message followed by those of its sources: `postgres::Error` alone says only
/// "db error" or "error connecting to server".
#[cfg(feature = "postgres")]
pub(crate) fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let more = s.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = s.source();
    }
    text
}

/// A store failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The file or database is not a forms-ask database, or it is damaged.
    #[error("{location} {problem}")]
    Unusable {
        /// The path or URL.
        location: String,
        /// What is wrong, worded for a person.
        problem: String,
    },
    /// The store can only be read (a SQLite file this process may not write): `show`, `log`
    /// and `wait` work; a write is refused with this error.
    #[error("{location} is read-only: it can be read but not written")]
    ReadOnly {
        /// The path.
        location: String,
    },
    /// The database's schema is newer than this program knows.
    #[error("{location} has schema version {found}; this program knows up to {known}")]
    NewerSchema {
        /// The path or URL.
        location: String,
        /// The version in the database.
        found: i64,
        /// The newest version this program knows.
        known: i64,
    },
    /// SQLite failed.
    #[cfg(feature = "sqlite")]
    #[error("sqlite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// PostgreSQL failed. The message carries the cause the server or the connection gave
    /// (`postgres: db error: FATAL: sorry, too many clients already`), not only its kind.
    #[cfg(feature = "postgres")]
    #[error("postgres: {}", with_causes(.0))]
    Postgres(#[from] postgres::Error),
    /// A stored document could not be read back.
    #[error("stored data is unreadable: {0}")]
    Corrupt(String),
    /// Another failure (a poisoned lock, an I/O error).
    #[error("{0}")]
    Other(String),
}
