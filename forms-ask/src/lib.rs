//! Durable requested replies: questions, approvals and tasks that live inside a
//! conversation and survive restarts, with a saved final outcome anyone allowed can inspect
//! later.
//!
//! A form blocks a tool call until a person answers; a requested reply does not. A request
//! is opened by a member of a conversation for an audience fixed at that moment (by default
//! the other members), and moves once from `open` to `resolved`, `cancelled`, `expired` or
//! `superseded`; nothing leaves a final state.
//!
//! | Kind | Outcomes |
//! |---|---|
//! | [`Kind::Question`] | `answered` (optionally from exact string choices) |
//! | [`Kind::Approval`] | `approved`, `denied` |
//! | [`Kind::Task`] | `completed`, `failed`, `rejected` |
//!
//! The rules, each enforced by [`Asks`] and proven by a test named after it:
//! - **respond** with the version read, a typed outcome valid for the kind and an optional
//!   answer; only a principal in the original audience who is still a member with contact
//!   rights may. A stale version or an already decided request is a conflict carrying the
//!   latest state; follow-up messages decide nothing.
//! - **expiry**: none by default (`9999-01-01T00:00:00Z` on the wire, never shown as a
//!   deadline), 7 days for bound action approvals, an explicit one within 90 days; past it a
//!   request is expired, even if the clock later jumps back.
//! - **wait** with a timeout only stops waiting; it never withdraws the request.
//! - **cancel**, **replace** and **supersede**: only the requester, with the current version,
//!   while open. Replace atomically supersedes and opens a replacement with the same
//!   audience and options, never carrying an approval over.
//! - **bound actions**: an approval bound to an executor, resource version, arguments and
//!   operation key is redeemed once, exactly; execution reports are `succeeded`, `failed` or
//!   `unknown` (which stays reconcilable). The engine executes nothing.
//! - **audit**: every transition appends one event to the request's log.
//! - **retry keys**: every write takes one; a retried write returns its first result.
//!
//! Requests are kept by a [`Store`]: [`SqliteStore`] by default (one file, WAL,
//! `synchronous=FULL`), [`PostgresStore`] for many server instances on one database.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod engine;
mod error;
mod model;
pub mod store;
mod time;

pub use engine::{AsPrincipal, Asks, BOUND_APPROVAL_EXPIRY, EXPIRY_MAX};
pub use error::{ActionRefusal, AskError, Ineligible, StoreError};
pub use model::{
    Action, AuditEvent, ConversationId, EventKind, Execution, ExecutionStatus, Kind, Member,
    NewRequest, Outcome, Principal, Redeem, Redemption, Replaced, Replacement, Request, RequestId,
    RetryKey, State, ID_CHARS_MAX,
};
pub use store::{PostgresStore, SqliteStore, Store};
pub use time::{Clock, Expiry, ManualClock, SystemClock, Timestamp, NO_EXPIRY_WIRE};
