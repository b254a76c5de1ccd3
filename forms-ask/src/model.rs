//! The model: principals, conversations, requests, their kinds, outcomes and states, bound
//! actions and audit events. Every type here serializes to the wire shape the CLI prints.

use crate::error::AskError;
use crate::time::{Expiry, Timestamp};
use forms_runtime::{DataForm, FormChoice};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The longest identifier (principal, conversation, request ID, retry key), in characters.
pub const ID_CHARS_MAX: usize = 200;

fn check_id(what: &'static str, value: &str) -> Result<(), AskError> {
    if value.trim().is_empty() {
        return Err(AskError::InvalidInput(format!("{what} must not be blank")));
    }
    if value.chars().count() > ID_CHARS_MAX {
        return Err(AskError::InvalidInput(format!(
            "{what} must be at most {ID_CHARS_MAX} characters"
        )));
    }
    if value.chars().any(char::is_control) {
        return Err(AskError::InvalidInput(format!(
            "{what} must not contain control characters"
        )));
    }
    Ok(())
}

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $what:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            #[doc = concat!("A ", $what, ": not blank, at most [`ID_CHARS_MAX`] characters, no control characters.")]
            pub fn new(value: impl Into<String>) -> Result<Self, AskError> {
                let value = value.into();
                check_id($what, &value)?;
                Ok(Self(value))
            }

            /// The identifier as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

id_type!(
    /// Someone who takes part in conversations: a person or an agent.
    Principal,
    "principal"
);
id_type!(
    /// A conversation: the place requests live in, with its members.
    ConversationId,
    "conversation id"
);
id_type!(
    /// The ID of a request, made by the engine when it is opened.
    RequestId,
    "request id"
);
id_type!(
    /// The key that makes a write safe to retry: per principal, the same key with the same
    /// input returns the first result; with a different input it is refused.
    RetryKey,
    "retry key"
);

impl RequestId {
    /// Wraps an ID the engine made, without checks.
    pub(crate) fn made(value: String) -> Self {
        Self(value)
    }
}

/// What kind of reply a request asks for; each kind has its own outcomes.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Kind {
    /// An answer, optionally from exact choices. Outcome: `answered`.
    #[default]
    Question,
    /// Consent. Outcomes: `approved`, `denied`.
    Approval,
    /// The executor's reported final task outcome: `completed`, `failed`, `rejected`.
    Task,
}

impl Kind {
    /// The outcomes a request of this kind can end with.
    pub fn outcomes(self) -> &'static [Outcome] {
        match self {
            Kind::Question => &[Outcome::Answered],
            Kind::Approval => &[Outcome::Approved, Outcome::Denied],
            Kind::Task => &[Outcome::Completed, Outcome::Failed, Outcome::Rejected],
        }
    }

    /// The kind's wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Question => "question",
            Kind::Approval => "approval",
            Kind::Task => "task",
        }
    }

    /// Reads a wire name.
    pub fn parse(s: &str) -> Option<Kind> {
        [Kind::Question, Kind::Approval, Kind::Task]
            .into_iter()
            .find(|k| k.as_str() == s)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The typed final outcome of a resolved request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Outcome {
    /// A question's answer was saved.
    Answered,
    /// An approval was granted.
    Approved,
    /// An approval was refused.
    Denied,
    /// A task was completed.
    Completed,
    /// A task failed.
    Failed,
    /// A task was rejected by its executor.
    Rejected,
}

impl Outcome {
    const ALL: [Outcome; 6] = [
        Outcome::Answered,
        Outcome::Approved,
        Outcome::Denied,
        Outcome::Completed,
        Outcome::Failed,
        Outcome::Rejected,
    ];

    /// The outcome's wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Answered => "answered",
            Outcome::Approved => "approved",
            Outcome::Denied => "denied",
            Outcome::Completed => "completed",
            Outcome::Failed => "failed",
            Outcome::Rejected => "rejected",
        }
    }

    /// Reads a wire name.
    pub fn parse(s: &str) -> Option<Outcome> {
        Outcome::ALL.into_iter().find(|o| o.as_str() == s)
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a request is in its life. `Open` is the only state a request ever leaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum State {
    /// Waiting for a response.
    Open,
    /// An eligible recipient responded with a typed outcome.
    Resolved,
    /// The requester withdrew it.
    Cancelled,
    /// Its expiry passed while it was open.
    Expired,
    /// The requester marked it superseded, or replaced it.
    Superseded,
}

impl State {
    /// Whether the state is final: nothing leaves a final state.
    pub fn is_final(self) -> bool {
        self != State::Open
    }

    /// The state's wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            State::Open => "open",
            State::Resolved => "resolved",
            State::Cancelled => "cancelled",
            State::Expired => "expired",
            State::Superseded => "superseded",
        }
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An optional bound action: an approval bound to exactly this executor, resource version,
/// arguments and operation key. The engine records the intent; it executes nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Action {
    /// The external executor that will carry the action out.
    pub executor: String,
    /// The version of the resource the action applies to.
    pub resource_version: String,
    /// The action's arguments.
    pub arguments: serde_json::Value,
    /// The operation key the executor fences its effect with.
    pub operation_key: String,
}

/// The record of a redeemed approval: who redeemed it and when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Redemption {
    /// Who redeemed it.
    pub by: Principal,
    /// When.
    pub at: Timestamp,
}

/// What an executor reports about a redeemed action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ExecutionStatus {
    /// The external effect happened.
    Succeeded,
    /// The external effect did not happen.
    Failed,
    /// The effect cannot be established; a later report may reconcile it.
    Unknown,
}

impl ExecutionStatus {
    /// Reads a wire name.
    pub fn parse(s: &str) -> Option<ExecutionStatus> {
        match s {
            "succeeded" => Some(ExecutionStatus::Succeeded),
            "failed" => Some(ExecutionStatus::Failed),
            "unknown" => Some(ExecutionStatus::Unknown),
            _ => None,
        }
    }
}

/// An execution report on a redeemed action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Execution {
    /// What happened.
    pub status: ExecutionStatus,
    /// The executor's details, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Who reported it.
    pub by: Principal,
    /// When.
    pub at: Timestamp,
}

/// A durable request inside a conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    /// Its ID.
    pub id: RequestId,
    /// The conversation it lives in.
    pub conversation: ConversationId,
    /// What kind of reply it asks for.
    pub kind: Kind,
    /// An optional title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The request itself.
    pub body: String,
    /// Who asked.
    pub requester: Principal,
    /// Who may respond: fixed when the request was opened.
    pub audience: Vec<Principal>,
    /// For a question: the exact strings the answer must be one of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choices: Option<Vec<String>>,
    /// For a question that carries a Data form: the form's arguments (`{message,
    /// questions}`, normalized as [`DataForm::to_json`] writes them), checked with rules
    /// R1–R27 when the request was opened. Its answer is a host response (see
    /// [`Request::response`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<serde_json::Value>,
    /// Bumped by every transition; a write names the version it saw.
    pub version: u64,
    /// Where it is in its life.
    pub state: State,
    /// When it expires; [`Expiry::Never`] is `9999-01-01T00:00:00Z` on the wire.
    pub expires_at: Expiry,
    /// When it was opened.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
    /// The typed outcome, once resolved.
    #[serde(default)]
    pub outcome: Option<Outcome>,
    /// The optional answer given with the outcome.
    #[serde(default)]
    pub answer: Option<String>,
    /// For a question carrying a form, once answered: the host response as the responder
    /// gave it (`{"action":"accept","content":{…}}`, `{"action":"decline"}` or
    /// `{"action":"cancel"}`, `_meta` included), after it passed the form's answer rules
    /// V1–V8. Decode it with [`crate::FormRequest`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<serde_json::Value>,
    /// Who responded.
    #[serde(default)]
    pub responder: Option<Principal>,
    /// The request this one replaced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaces: Option<RequestId>,
    /// The request that replaced this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaced_by: Option<RequestId>,
    /// The bound action, if the approval has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<Action>,
    /// The redemption of the bound action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redemption: Option<Redemption>,
    /// The latest execution report on the redeemed action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<Execution>,
}

impl Request {
    /// The action of the saved host response of a form request: `"accept"`, `"decline"` or
    /// `"cancel"`; `None` while unanswered or for a request without a form.
    pub fn response_action(&self) -> Option<&str> {
        self.response.as_ref()?.get("action")?.as_str()
    }

    /// Decodes the answer of a question opened with [`NewRequest::choices_from`] back into
    /// the enum; `None` while unanswered or when the answer is not one of `E`'s options.
    pub fn choice<E: FormChoice>(&self) -> Option<E> {
        let answer = self.answer.as_deref()?;
        let index = E::OPTIONS.iter().position(|o| o.id == answer)?;
        E::from_index(index)
    }
}

/// A request as a list reads it: the request without its form and its saved host response
/// (each up to a mebibyte; a list reads neither), and what of them a list shows instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// The request, with [`Request::form`] and [`Request::response`] left out (`None`).
    pub request: Request,
    /// Whether the request carries a form.
    pub has_form: bool,
    /// The saved host response's action ([`Request::response_action`]).
    pub response_action: Option<String>,
}

impl Listed {
    /// The list entry of a whole request: its form and response left out.
    pub fn of(request: &Request) -> Listed {
        Listed {
            has_form: request.form.is_some(),
            response_action: request.response_action().map(str::to_owned),
            request: Request {
                form: None,
                response: None,
                ..request.clone()
            },
        }
    }
}

/// One page of a request's audit log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogPage {
    /// The events, oldest first.
    pub events: Vec<AuditEvent>,
    /// The cursor of the next page (pass it as `after`), `None` when this page is the last.
    pub next: Option<String>,
}

impl fmt::Display for Request {
    /// A short human summary. An ordinary request's `9999-01-01` wire expiry is never shown
    /// as a deadline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} ({}", self.kind, self.id, self.state)?;
        if let Some(outcome) = self.outcome {
            write!(f, ": {outcome}")?;
            if let Some(by) = &self.responder {
                write!(f, " by {by}")?;
            }
        }
        write!(f, ", version {})", self.version)?;
        if let Some(title) = &self.title {
            write!(f, " {title}:")?;
        }
        write!(f, " {}", self.body)?;
        if let Some(answer) = &self.answer {
            write!(f, " — answer: {answer}")?;
        }
        if let Some(action) = self.response_action() {
            write!(f, " — form response: {action}")?;
        }
        match self.expires_at {
            Expiry::Never => f.write_str(" — no deadline"),
            Expiry::At(t) => write!(f, " — expires {t}"),
        }
    }
}

/// What to open: built with [`NewRequest::question`], [`NewRequest::approval`] or
/// [`NewRequest::task`] and the optional setters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewRequest {
    /// The kind.
    pub kind: Kind,
    /// An optional title.
    #[serde(default)]
    pub title: Option<String>,
    /// The request itself.
    pub body: String,
    /// Who may respond; `None` means the conversation's members now, minus the requester.
    #[serde(default)]
    pub audience: Option<Vec<Principal>>,
    /// A question's exact choices.
    #[serde(default)]
    pub choices: Option<Vec<String>>,
    /// An explicit expiry, within 90 days of creation.
    #[serde(default)]
    pub expires_at: Option<Timestamp>,
    /// A bound action (approvals only).
    #[serde(default)]
    pub action: Option<Action>,
    /// A question's Data form arguments (`{message, questions}`): the answer is then a host
    /// response checked against it. Left out of the serialized input when `None`, so the
    /// retry keys of requests without a form keep their hashes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<serde_json::Value>,
}

impl NewRequest {
    fn new(kind: Kind, body: impl Into<String>) -> Self {
        NewRequest {
            kind,
            title: None,
            body: body.into(),
            audience: None,
            choices: None,
            expires_at: None,
            action: None,
            form: None,
        }
    }

    /// A question.
    pub fn question(body: impl Into<String>) -> Self {
        Self::new(Kind::Question, body)
    }

    /// An approval.
    pub fn approval(body: impl Into<String>) -> Self {
        Self::new(Kind::Approval, body)
    }

    /// A task.
    pub fn task(body: impl Into<String>) -> Self {
        Self::new(Kind::Task, body)
    }

    /// Sets the title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the audience explicitly (each must be a member of the conversation).
    pub fn audience(mut self, audience: impl IntoIterator<Item = Principal>) -> Self {
        self.audience = Some(audience.into_iter().collect());
        self
    }

    /// Offers exact string choices: the answer must equal one of them.
    pub fn choices<S: Into<String>>(mut self, choices: impl IntoIterator<Item = S>) -> Self {
        self.choices = Some(choices.into_iter().map(Into::into).collect());
        self
    }

    /// Offers the options of a fieldless enum deriving `Form`: its option IDs are the
    /// choices, and [`Request::choice`] decodes the answer back into the enum.
    pub fn choices_from<E: FormChoice>(self) -> Self {
        self.choices(E::OPTIONS.iter().map(|o| o.id))
    }

    /// Sets an explicit expiry (within 90 days of creation).
    pub fn expires_at(mut self, at: Timestamp) -> Self {
        self.expires_at = Some(at);
        self
    }

    /// Binds the approval to an action.
    pub fn action(mut self, action: Action) -> Self {
        self.action = Some(action);
        self
    }

    /// Makes the question carry a Data form (a validated [`DataForm`], from
    /// `forms_runtime::form!`, [`DataForm::from_json`] or a derived type's
    /// `TypedForm::data`): its answer is then a host response, checked against the form with
    /// rules V1–V8 before it is saved. [`crate::AsPrincipal::open_form`] does this for a
    /// typed form and returns a handle that decodes the answer.
    pub fn form(mut self, form: &DataForm) -> Self {
        self.form = serde_json::from_str(&form.to_json()).ok();
        self
    }
}

/// What a replacement changes; everything else (kind, audience, choices, form, bound action)
/// is kept from the request it replaces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Replacement {
    /// The new body; `None` keeps the old one.
    #[serde(default)]
    pub body: Option<String>,
    /// The new title; `None` keeps the old one.
    #[serde(default)]
    pub title: Option<String>,
    /// An explicit expiry for the replacement (within 90 days of its creation).
    #[serde(default)]
    pub expires_at: Option<Timestamp>,
}

/// The result of [`crate::AsPrincipal::replace`]: the superseded request and its replacement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Replaced {
    /// The old request, now superseded.
    pub previous: Request,
    /// The new, open request; later responses use its ID.
    pub replacement: Request,
}

/// What a redeemer presents: it must equal the bound action exactly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Redeem {
    /// The executor.
    pub executor: String,
    /// The resource version.
    pub resource_version: String,
    /// The arguments.
    pub arguments: serde_json::Value,
    /// The operation key.
    pub operation_key: String,
}

/// What happened to a request, as recorded in its audit log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum EventKind {
    /// It was opened.
    Opened,
    /// It was resolved by a response.
    Responded,
    /// The requester cancelled it.
    Cancelled,
    /// Its expiry passed.
    Expired,
    /// It was superseded (alone, or by a replacement).
    Superseded,
    /// A follow-up message; it decides nothing.
    Message,
    /// Its bound action was redeemed.
    Redeemed,
    /// An execution report on its bound action.
    ExecutionReported,
}

/// One entry of a request's audit log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditEvent {
    /// The request.
    pub request: RequestId,
    /// What happened.
    pub event: EventKind,
    /// Who did it; `None` for the engine itself (expiry).
    pub actor: Option<Principal>,
    /// When.
    pub at: Timestamp,
    /// The request's version after the event.
    pub version: u64,
    /// The request's state after the event.
    pub state: State,
    /// Details: the outcome, the message text, the replacement's ID …
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<serde_json::Value>,
}

/// A member of a conversation and their current rights.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Member {
    /// Who.
    pub principal: Principal,
    /// Removed from the conversation.
    pub removed: bool,
    /// Contact rights revoked.
    pub contact_revoked: bool,
    /// May manage the conversation's membership (while an active member).
    #[serde(default)]
    pub manager: bool,
}

impl Member {
    /// A current member whose contact rights stand.
    pub fn is_active(&self) -> bool {
        !self.removed && !self.contact_revoked
    }
}

/// A change to a conversation's membership, as recorded in its membership log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum MemberEventKind {
    /// Joined (or rejoined) as a member.
    Joined,
    /// Joined (or rejoined) as a manager of the conversation.
    JoinedAsManager,
    /// Removed from the conversation.
    Removed,
    /// Contact rights revoked.
    ContactRevoked,
    /// Contact rights restored.
    ContactRestored,
}

/// One entry of a conversation's membership log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberEvent {
    /// The conversation.
    pub conversation: ConversationId,
    /// Whose membership changed.
    pub principal: Principal,
    /// What changed.
    pub event: MemberEventKind,
    /// Who changed it; `None` for the operator (the library's [`crate::Asks::join`] and the
    /// others, or the `forms ask` commands without `--as`).
    pub actor: Option<Principal>,
    /// When.
    pub at: Timestamp,
}
