// The front page opens with the crate's README (its example a doctest), then the details.
#![doc = include_str!("../README.md")]
//!
//! # In detail
//!
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
//! | [`Kind::Question`] | `answered` (optionally from exact string choices, or a host response to a Data form) |
//! | [`Kind::Approval`] | `approved`, `denied` |
//! | [`Kind::Task`] | `completed`, `failed`, `rejected` |
//!
//! The rules, each enforced by [`Asks`] and proven by a test named after it:
//! - **respond** with the version read, a typed outcome valid for the kind and an optional
//!   answer; only a principal in the original audience who is still a member with contact
//!   rights may. A stale version or an already decided request is a conflict carrying the
//!   latest state; follow-up messages decide nothing.
//! - **approval authority**: membership is not approval authority. An approval's requester
//!   never decides it, nor does the executor its bound action names, even if either is in
//!   the audience; an explicit audience naming them is refused.
//! - **expiry**: none by default (`9999-01-01T00:00:00Z` on the wire, never shown as a
//!   deadline), 7 days for bound action approvals, an explicit one within 90 days; past it a
//!   request is expired, even if the clock later jumps back, whether or not anyone read it:
//!   expiry is judged against the store's high-water mark of time (the latest time any
//!   engine recorded in it, which never moves back).
//! - **wait** with a timeout only stops waiting; it never withdraws the request. A wait holds
//!   no thread and no database connection ([`AsPrincipal::start_wait`] returns a handle to
//!   block on or await; dropping it releases the wait); each principal has a cap on
//!   concurrent waits ([`Asks::with_wait_limit`]).
//! - **limits**: every argument has a size limit ([`BODY_CHARS_MAX`] and the others), checked
//!   before any other work and refused as `invalid_arguments` naming the field.
//! - **cancel**, **replace** and **supersede**: only the requester, with the current version,
//!   while open. Replace atomically supersedes and opens a replacement with the same
//!   audience, options and deadline (unless the replacement names its own expiry), never
//!   carrying an approval over.
//! - **bound actions**: an approval bound to an executor, resource version, arguments and
//!   operation key is redeemed once, exactly, by that executor (who need not be a member of
//!   the conversation) or the requester; execution reports are `succeeded`, `failed` or
//!   `unknown` (which stays reconcilable). The engine executes nothing.
//! - **audit**: every transition appends one event to the request's log.
//! - **retry keys**: every write takes one; a retried write returns its first result. The
//!   key is bound to a hash of the input's canonical JSON (sorted keys), the same in every
//!   build whatever serde_json's features; hashes recorded in field order by earlier builds
//!   with `preserve_order` are still accepted in this release.
//!
//! - **forms that wait**: a question may carry a Data form (checked with R1–R27 when
//!   opened); its answer is a host response checked with V1–V8 before it is saved, and
//!   [`FormRequest`] decodes it into the form's Rust type, also after a restart (the module [`form`] says
//!   how form requests, and the person's decline and cancel, map onto the kinds, states and
//!   outcomes).
//!
//! Requests are kept by a [`Store`]: [`SqliteStore`] by default (one file, WAL,
//! `synchronous=FULL`; a file that is not a forms-ask database is refused before anything
//! is written to it, and a read-only one can still be read), [`PostgresStore`] for many
//! server instances on one database.
//!
// Without the `postgres` feature the type does not exist: the link goes to the stores.
#![cfg_attr(not(feature = "postgres"), doc = "[`PostgresStore`]: store")]
#![forbid(unsafe_code)]
// Built with no store (neither `sqlite` nor `postgres`), the helpers the stores share are unused.
#![cfg_attr(
    not(any(feature = "sqlite", feature = "postgres", feature = "memory")),
    allow(dead_code)
)]
#![warn(missing_docs)]

pub mod args;
mod engine;
mod error;
pub mod form;
mod limits;
mod model;
mod retry;
pub mod store;
mod time;
pub mod upload;
mod wait;
pub mod wire;

/// The JSON Schema crate the argument types of [`args`] describe themselves with.
pub use schemars;

pub use engine::{AsPrincipal, Asks, BOUND_APPROVAL_EXPIRY, EXPIRY_MAX};
pub use error::{ActionRefusal, AskError, Ineligible, StoreError};
pub use form::{FormReply, FormRequest};
pub use limits::Quotas;
pub use limits::{
    ACTION_ARGUMENTS_BYTES_MAX, ACTION_FIELD_CHARS_MAX, ANSWER_CHARS_MAX, AUDIENCE_MAX,
    BODY_CHARS_MAX, CHOICES_MAX, CHOICE_CHARS_MAX, DETAIL_CHARS_MAX, FORM_BYTES_MAX, LIST_DEFAULT,
    LIST_MAX, LOG_DEFAULT, LOG_MAX, MESSAGES_PER_REQUEST_DEFAULT, MESSAGE_CHARS_MAX,
    OPEN_REQUESTS_DEFAULT, RESPONSE_BYTES_MAX, TITLE_CHARS_MAX, UPLOADS_BYTES_MAX, UPLOADS_MAX,
    UPLOAD_BYTES_MAX, UPLOAD_NAME_BYTES_MAX, WAIT_SECONDS_DEFAULT, WAIT_SECONDS_MAX,
};
pub use model::{
    Action, AuditEvent, ConversationId, EventKind, Execution, ExecutionStatus, Kind, Listed,
    LogPage, Member, MemberEvent, MemberEventKind, NewRequest, Outcome, Principal, Redeem,
    Redemption, Replaced, Replacement, Request, RequestId, RetryKey, State, ID_CHARS_MAX,
};
#[cfg(feature = "postgres")]
pub use store::PostgresStore;
#[cfg(feature = "sqlite")]
pub use store::SqliteStore;
pub use store::Store;
pub use time::{Clock, Expiry, ManualClock, SystemClock, Timestamp, NO_EXPIRY_WIRE};
pub use upload::{StoredUpload, Upload};
pub use wait::{WaitHandle, WAITS_PER_PRINCIPAL};
