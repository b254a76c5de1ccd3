//! Each operation's arguments as one Rust type, shared by the `ask_<op>` MCP tools and the
//! `forms ask <op>` commands: [`OpenArgs`], [`RespondArgs`] and the others. Each is a closed
//! serde struct (an unknown argument, a principal among them, is refused) whose JSON Schema
//! ([`schemars::JsonSchema`]) carries the crate's limits (e.g. [`crate::BODY_CHARS_MAX`]) and
//! whose rustdoc is the operation's summary and each argument's help.
//!
//! An MCP tool deserializes its arguments into the type; the command line builds the same
//! type from its flags, so an argument added here does not compile until both carry it. Each
//! type's [`Operation::validate`] is the check of the limits that need nothing but the
//! values (a list's limit, a wait's timeout, how many principals a membership change names),
//! and [`Operation::run`] runs the operation as a principal and gives the wire JSON
//! ([`crate::wire`]) every surface prints.
//!
//! The acting principal is never an argument: a tool's comes from its session, the command
//! line's from `--as`.
//!
//! ```
//! use forms_ask::args::{schema, summary, OpenArgs};
//! let open = schema::<OpenArgs>();
//! assert_eq!(open["properties"]["body"]["maxLength"], 16_000);
//! assert_eq!(open["additionalProperties"], false);
//! assert!(summary::<OpenArgs>().starts_with("Opens a durable request"));
//! ```

use crate::engine::{AsPrincipal, Asks};
use crate::error::AskError;
use crate::limits::{
    self, ACTION_ARGUMENTS_BYTES_MAX, ACTION_FIELD_CHARS_MAX, ANSWER_CHARS_MAX, AUDIENCE_MAX,
    BODY_CHARS_MAX, CHOICES_MAX, CHOICE_CHARS_MAX, DETAIL_CHARS_MAX, LIST_DEFAULT, LIST_MAX,
    LOG_DEFAULT, LOG_MAX, MESSAGE_CHARS_MAX, TITLE_CHARS_MAX, UPLOADS_BYTES_MAX, UPLOADS_MAX,
    UPLOAD_BYTES_MAX, UPLOAD_NAME_BYTES_MAX, WAIT_SECONDS_DEFAULT, WAIT_SECONDS_MAX,
};
use crate::model::{
    Action, ConversationId, ExecutionStatus, Kind, Member, NewRequest, Outcome, Principal, Redeem,
    Replacement, RequestId, ID_CHARS_MAX,
};
use crate::time::Timestamp;
use crate::upload::Upload;
use crate::wait::WaitHandle;
use crate::wire;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// Why an operation's arguments were refused: an engine refusal, or arguments the surface
/// could not read (code `invalid_arguments`).
#[derive(Debug)]
#[non_exhaustive]
pub enum Refused {
    /// The engine's refusal.
    Ask(AskError),
    /// The arguments are not what the operation takes.
    Arguments(String),
}

impl Refused {
    /// The refusal as every surface prints it (`{"error":{"code","message"}}`, see
    /// [`crate::wire`]).
    pub fn wire(&self) -> Value {
        match self {
            Refused::Ask(e) => wire::error(e),
            Refused::Arguments(message) => wire::refusal("invalid_arguments", message),
        }
    }
}

impl From<AskError> for Refused {
    fn from(e: AskError) -> Refused {
        Refused::Ask(e)
    }
}

/// One operation's arguments.
pub trait Operation: DeserializeOwned + JsonSchema + Send + 'static {
    /// Checks the limits that need nothing but the values (a list's limit, a wait's timeout,
    /// how many principals a change names); [`Operation::run`] checks them first too.
    fn validate(&self) -> Result<(), AskError> {
        Ok(())
    }

    /// Runs the operation as `handle`'s principal: the wire JSON of its result.
    fn run(self, handle: &AsPrincipal<'_>) -> Result<Value, Refused>;
}

/// The JSON Schema of `T` as the tools publish it: closed, with the crate's limits, and each
/// description on one line (the rustdoc's lines joined).
pub fn schema<T: JsonSchema>() -> Value {
    let mut generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let mut schema = serde_json::to_value(generator.root_schema_for::<T>()).unwrap_or_default();
    one_line(&mut schema);
    schema
}

/// An operation's summary (its type's rustdoc, on one line): the tool's description and
/// the command's help.
pub fn summary<T: JsonSchema>() -> String {
    match schema::<T>().get("description") {
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    }
}

/// Joins the lines of every `description` in `schema` (rustdoc wraps them; a tool's reader
/// gets each on one line).
pub fn one_line(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                match value {
                    Value::String(s) if key == "description" && s.contains('\n') => {
                        *s = s.replace('\n', " ");
                    }
                    _ => one_line(value),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(one_line),
        _ => {}
    }
}

// ---------------------------------------------------------------- the arguments' schemas

fn text_schema(max: usize) -> Value {
    json!({"type": "string", "minLength": 1, "maxLength": max})
}

fn schema_of(value: Value) -> Schema {
    Schema::try_from(value).unwrap_or_else(|_| json_schema!({}))
}

/// Text of at most `MAX` characters, not blank.
fn text<const MAX: usize>(_: &mut SchemaGenerator) -> Schema {
    schema_of(text_schema(MAX))
}

/// An identifier: a request ID, a conversation, a principal, a retry key.
fn id(_: &mut SchemaGenerator) -> Schema {
    schema_of(text_schema(ID_CHARS_MAX))
}

/// Principals, at most [`AUDIENCE_MAX`].
fn ids(_: &mut SchemaGenerator) -> Schema {
    schema_of(
        json!({"type": "array", "items": text_schema(ID_CHARS_MAX), "maxItems": AUDIENCE_MAX}),
    )
}

/// A question's choices.
fn choices(_: &mut SchemaGenerator) -> Schema {
    schema_of(
        json!({"type": "array", "items": text_schema(CHOICE_CHARS_MAX),
        "maxItems": CHOICES_MAX, "uniqueItems": true}),
    )
}

/// A request version read.
fn version(_: &mut SchemaGenerator) -> Schema {
    schema_of(json!({"type": "integer", "minimum": 1}))
}

/// One of the words `T` deserializes from (its serde names, as its own schema lists them).
fn words<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    let own = serde_json::to_value(T::json_schema(generator)).unwrap_or_default();
    let mut names = Vec::new();
    if let Some(Value::Array(list)) = own.get("enum") {
        names.extend(list.iter().cloned());
    }
    if let Some(Value::Array(list)) = own.get("oneOf") {
        for one in list {
            match (one.get("const"), one.get("enum")) {
                (Some(c), _) => names.push(c.clone()),
                (None, Some(Value::Array(e))) => names.extend(e.iter().cloned()),
                _ => {}
            }
        }
    }
    schema_of(json!({"type": "string", "enum": names}))
}

fn date_time(_: &mut SchemaGenerator) -> Schema {
    schema_of(json!({"type": "string", "format": "date-time"}))
}

fn seconds(_: &mut SchemaGenerator) -> Schema {
    schema_of(
        json!({"type": "number", "minimum": 0, "maximum": WAIT_SECONDS_MAX,
        "default": WAIT_SECONDS_DEFAULT}),
    )
}

/// A count from 1 to `MAX`, by default `DEFAULT`.
fn count<const MAX: usize, const DEFAULT: usize>(_: &mut SchemaGenerator) -> Schema {
    schema_of(json!({"type": "integer", "minimum": 1, "maximum": MAX, "default": DEFAULT}))
}

fn action(_: &mut SchemaGenerator) -> Schema {
    let field = text_schema(ACTION_FIELD_CHARS_MAX);
    schema_of(json!({
        "type": "object",
        "properties": {
            "executor": field,
            "resource_version": field,
            "arguments": {"description": format!(
                "the action's arguments (any JSON, at most {ACTION_ARGUMENTS_BYTES_MAX} bytes)")},
            "operation_key": field,
        },
        "required": ["executor", "resource_version", "arguments", "operation_key"],
        "additionalProperties": false,
    }))
}

// The contract's own schema of the Data arguments is the form tool's; here the object is
// checked whole by the runtime when the request is opened.
fn form(_: &mut SchemaGenerator) -> Schema {
    schema_of(json!({
        "type": "object",
        "properties": {
            "message": {"type": "string"},
            "questions": {"type": "array", "items": {"type": "object"}},
        },
        "required": ["message", "questions"],
        "additionalProperties": false,
    }))
}

fn answer(_: &mut SchemaGenerator) -> Schema {
    schema_of(json!({
        "anyOf": [
            text_schema(ANSWER_CHARS_MAX),
            {
                "type": "object",
                "description": "a host response to the question's form",
                "properties": {
                    "action": {"type": "string", "enum": ["accept", "decline", "cancel"]},
                    "content": {"type": "object"},
                    "_meta": {"type": "object"},
                },
                "required": ["action"],
                "additionalProperties": false,
            },
        ],
    }))
}

fn uploads(_: &mut SchemaGenerator) -> Schema {
    schema_of(json!({
        "type": "array",
        "maxItems": UPLOADS_MAX,
        "items": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 1,
                         "maxLength": UPLOAD_NAME_BYTES_MAX,
                         "description": "the file name (no directory); the answer \
                                         names the file as \"upload:<name>\""},
                "data": {"type": "string", "contentEncoding": "base64",
                         "maxLength": UPLOAD_BYTES_MAX.div_ceil(3) * 4,
                         "description": format!("the file's bytes in base64, at most \
                             {UPLOAD_BYTES_MAX} bytes; all files together at most \
                             {UPLOADS_BYTES_MAX}")},
            },
            "required": ["name", "data"],
            "additionalProperties": false,
        },
    }))
}

// ---------------------------------------------------------------- the argument types
//
// An optional argument is `#[serde(default, skip_serializing_if = …)]`: with its schema
// made by a function (`schema_with`), that is how schemars knows it is not required (and
// has no `default` to show but the one its schema states).

/// A bound action (`open`) or the action presented (`redeem`): executor, resource version,
/// arguments and operation key.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ActionArg {
    /// The executor.
    pub executor: String,
    /// The resource version.
    pub resource_version: String,
    /// The action's arguments.
    pub arguments: Value,
    /// The operation key.
    pub operation_key: String,
}

/// A respond's answer: text, or the host response to a question's form as an object.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Answer {
    /// Text (also a host response as its JSON text).
    Text(String),
    /// A host response, `{"action":"accept","content":{…}}`, decline or cancel.
    Response(Map<String, Value>),
}

/// One file sent with a form's answer: its name and its bytes in base64.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UploadArg {
    /// The file name (no directory).
    pub name: String,
    /// The bytes, in standard base64.
    pub data: String,
}

impl UploadArg {
    /// The argument sending `upload`.
    pub fn of(upload: &Upload) -> UploadArg {
        UploadArg {
            name: upload.name().to_owned(),
            data: crate::upload::base64_encode(upload.data()),
        }
    }
}

/// Opens a durable request (question, approval or task) in a conversation, for an
/// audience fixed now (by default the other members). Returns the request.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OpenArgs {
    /// the conversation
    #[schemars(schema_with = "id")]
    pub conversation: String,
    /// the kind of request (default question)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "words::<Kind>")]
    pub kind: Option<Kind>,
    /// the request itself
    #[schemars(schema_with = "text::<BODY_CHARS_MAX>")]
    pub body: String,
    /// an optional title
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "text::<TITLE_CHARS_MAX>")]
    pub title: Option<String>,
    /// a question's exact choices, no two alike
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "choices")]
    pub choices: Option<Vec<String>>,
    /// who may respond (members of the conversation)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "ids")]
    pub audience: Option<Vec<String>>,
    /// an explicit expiry within 90 days: RFC 3339 with Z or an offset (the command line
    /// also takes a duration from now: 7d, 36h, 90m)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "date_time")]
    pub expires_at: Option<String>,
    /// an approval's bound action
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "action")]
    pub action: Option<ActionArg>,
    /// a question's Data form, {message, questions} (checked with rules R1-R27): its
    /// answer is then the host response, checked against the form (rules V1-V8) before it
    /// is saved
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "form")]
    pub form: Option<Value>,
    /// the retry key: the same key with the same input returns the first result
    #[schemars(schema_with = "id")]
    pub key: String,
}

/// The request as it is now.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShowArgs {
    /// the request ID
    #[schemars(schema_with = "id")]
    pub id: String,
}

/// Responds to a request with the version read and a typed outcome (answered; approved or
/// denied; completed, failed or rejected). A stale version or a request already decided is
/// a conflict carrying the latest state. A question carrying a form is answered with the
/// host response, refused as invalid_response (nothing saved) unless it passes the form's
/// answer rules.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RespondArgs {
    /// the request ID
    #[schemars(schema_with = "id")]
    pub id: String,
    /// the version read; a stale one is a conflict
    #[schemars(schema_with = "version")]
    pub version: u64,
    /// the outcome, one of the request kind's
    #[schemars(schema_with = "words::<Outcome>")]
    pub outcome: Outcome,
    /// the answer (one of the choices, if offered); for a question carrying a form, the host
    /// response {"action":"accept","content":{...}}, {"action":"decline"} or
    /// {"action":"cancel"}, checked against the form; a files answer names each file sent
    /// as `"upload:<name>"` (never a file:// path)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "answer")]
    pub answer: Option<Answer>,
    /// files sent with a form's answer, each named in its files value as `"upload:<name>"`;
    /// stored with the response, and the requester gets its own copy
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(schema_with = "uploads")]
    pub uploads: Vec<UploadArg>,
    /// the retry key: the same key with the same input returns the first result
    #[schemars(schema_with = "id")]
    pub key: String,
}

/// Waits until the request leaves `open` or the timeout passes, and returns its state then.
/// A timeout only stops waiting; it never withdraws the request. A longer wait is a loop of
/// waits.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitArgs {
    /// the request ID
    #[schemars(schema_with = "id")]
    pub id: String,
    /// how long to wait, in seconds
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "seconds")]
    pub timeout_seconds: Option<f64>,
}

/// Cancels an open request: only its requester, with the current version.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CancelArgs {
    /// the request ID
    #[schemars(schema_with = "id")]
    pub id: String,
    /// the version read; a stale one is a conflict
    #[schemars(schema_with = "version")]
    pub version: u64,
    /// the retry key: the same key with the same input returns the first result
    #[schemars(schema_with = "id")]
    pub key: String,
}

/// Atomically supersedes an open request and opens its replacement (same audience, choices,
/// action and deadline unless a new expiry is given; never an approval carried over).
/// Returns {previous, replacement}.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplaceArgs {
    /// the request ID
    #[schemars(schema_with = "id")]
    pub id: String,
    /// the version read; a stale one is a conflict
    #[schemars(schema_with = "version")]
    pub version: u64,
    /// the new body (default: the old one)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "text::<BODY_CHARS_MAX>")]
    pub body: Option<String>,
    /// the new title (default: the old one)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "text::<TITLE_CHARS_MAX>")]
    pub title: Option<String>,
    /// an explicit expiry within 90 days: RFC 3339 with Z or an offset (the command line
    /// also takes a duration from now: 7d, 36h, 90m)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "date_time")]
    pub expires_at: Option<String>,
    /// the retry key: the same key with the same input returns the first result
    #[schemars(schema_with = "id")]
    pub key: String,
}

/// Marks an open request superseded, creating nothing: only its requester, with the
/// current version.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SupersedeArgs {
    /// the request ID
    #[schemars(schema_with = "id")]
    pub id: String,
    /// the version read; a stale one is a conflict
    #[schemars(schema_with = "version")]
    pub version: u64,
    /// the retry key: the same key with the same input returns the first result
    #[schemars(schema_with = "id")]
    pub key: String,
}

/// One page of the request's audit log, oldest first: one event per transition, and the
/// messages. Returns {events, next}: pass next as after for the following page; null on
/// the last.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LogArgs {
    /// the request ID
    #[schemars(schema_with = "id")]
    pub id: String,
    /// the next of the previous page (omit for the first page)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "id")]
    pub after: Option<String>,
    /// how many events at most
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "count::<LOG_MAX, LOG_DEFAULT>")]
    pub limit: Option<usize>,
}

/// Posts a follow-up message on a request; it decides nothing.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MessageArgs {
    /// the request ID
    #[schemars(schema_with = "id")]
    pub id: String,
    /// the message
    #[schemars(schema_with = "text::<MESSAGE_CHARS_MAX>")]
    pub text: String,
    /// the retry key: the same key with the same input returns the first result
    #[schemars(schema_with = "id")]
    pub key: String,
}

/// Redeems an approved approval's bound action, presenting exactly the bound executor,
/// resource version, arguments and operation key; once only. Records the intent; executes
/// nothing.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RedeemArgs {
    /// the request ID
    #[schemars(schema_with = "id")]
    pub id: String,
    /// the action presented
    #[schemars(schema_with = "action")]
    pub action: ActionArg,
    /// the retry key: the same key with the same input returns the first result
    #[schemars(schema_with = "id")]
    pub key: String,
}

/// Reports the execution of a redeemed action: succeeded, failed or unknown (unknown stays
/// reconcilable by a later report).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReportArgs {
    /// the request ID
    #[schemars(schema_with = "id")]
    pub id: String,
    /// the bound operation key
    #[schemars(schema_with = "text::<ACTION_FIELD_CHARS_MAX>")]
    pub operation_key: String,
    /// what became of the action
    #[schemars(schema_with = "words::<ExecutionStatus>")]
    pub status: ExecutionStatus,
    /// what happened, in words
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "text::<DETAIL_CHARS_MAX>")]
    pub detail: Option<String>,
    /// the retry key: the same key with the same input returns the first result
    #[schemars(schema_with = "id")]
    pub key: String,
}

/// The caller's requests in a conversation (opened by it, asking it, or naming it as a
/// bound action's executor), open ones first, then the most recently changed. Returns
/// {requests}, each without its form and saved host response: has_form and response_action
/// instead (show has them).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListArgs {
    /// the conversation
    #[schemars(schema_with = "id")]
    pub conversation: String,
    /// how many requests at most
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "count::<LIST_MAX, LIST_DEFAULT>")]
    pub limit: Option<usize>,
}

/// The conversation's members (removed ones included, with their rights) and its
/// membership log, for its current members. Returns {conversation, members, events}.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MembersArgs {
    /// the conversation
    #[schemars(schema_with = "id")]
    pub conversation: String,
}

macro_rules! membership_args {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            /// the conversation
            #[schemars(schema_with = "id")]
            pub conversation: String,
            /// the principals whose membership changes
            #[schemars(schema_with = "ids")]
            pub principals: Vec<String>,
        }
    };
}

membership_args!(
    /// Adds members to a conversation (or brings them back) with contact rights; only an
    /// active manager of the conversation may (the command line without --as acts as the
    /// operator, who may also add managers with --role manager). Recorded in the membership
    /// log. A member who joins later is never in an earlier request's audience.
    JoinArgs
);
membership_args!(
    /// Removes members from a conversation (and from managing it): they lose their current
    /// eligibility. Only an active manager of the conversation may.
    RemoveArgs
);
membership_args!(
    /// Revokes members' contact rights in a conversation: they can no longer respond. Only
    /// an active manager of the conversation may.
    RevokeArgs
);
membership_args!(
    /// Gives members their contact rights back. Only an active manager of the conversation
    /// may.
    RestoreArgs
);

// ---------------------------------------------------------------- running them

fn request_id(raw: &str) -> Result<RequestId, AskError> {
    RequestId::new(raw)
}

/// An `expires_at` argument: an RFC 3339 time.
fn expiry(raw: Option<&str>) -> Result<Option<Timestamp>, Refused> {
    raw.map(|s| {
        Timestamp::parse(s).ok_or_else(|| {
            Refused::Arguments(format!(
                "expires_at must be an RFC 3339 time such as 2026-12-31T12:00:00Z or \
                 2026-12-31T14:00:00+02:00, not {s:?}"
            ))
        })
    })
    .transpose()
}

fn principals(list: Vec<String>) -> Result<Vec<Principal>, AskError> {
    list.into_iter().map(Principal::new).collect()
}

impl From<ActionArg> for Action {
    fn from(a: ActionArg) -> Action {
        Action {
            executor: a.executor,
            resource_version: a.resource_version,
            arguments: a.arguments,
            operation_key: a.operation_key,
        }
    }
}

impl From<ActionArg> for Redeem {
    fn from(a: ActionArg) -> Redeem {
        Redeem {
            executor: a.executor,
            resource_version: a.resource_version,
            arguments: a.arguments,
            operation_key: a.operation_key,
        }
    }
}

impl Operation for OpenArgs {
    fn run(self, handle: &AsPrincipal<'_>) -> Result<Value, Refused> {
        let conversation = ConversationId::new(self.conversation)?;
        let mut new = match self.kind.unwrap_or_default() {
            Kind::Question => NewRequest::question(self.body),
            Kind::Approval => NewRequest::approval(self.body),
            Kind::Task => NewRequest::task(self.body),
        };
        if let Some(t) = self.title {
            new = new.title(t);
        }
        if let Some(choices) = self.choices {
            new = new.choices(choices);
        }
        if let Some(list) = self.audience {
            new = new.audience(principals(list)?);
        }
        if let Some(at) = expiry(self.expires_at.as_deref())? {
            new = new.expires_at(at);
        }
        // Checked with rules R1–R27 by the engine; refused with the findings.
        new.form = self.form;
        if let Some(action) = self.action {
            new = new.action(action.into());
        }
        let r = handle.open(&conversation, new, &self.key)?;
        Ok(wire::request(&r))
    }
}

impl Operation for ShowArgs {
    fn run(self, handle: &AsPrincipal<'_>) -> Result<Value, Refused> {
        Ok(wire::request(&handle.show(&request_id(&self.id)?)?))
    }
}

impl Operation for RespondArgs {
    fn validate(&self) -> Result<(), AskError> {
        limits::files(self.uploads.len())
    }

    fn run(self, handle: &AsPrincipal<'_>) -> Result<Value, Refused> {
        self.validate()?;
        let request = request_id(&self.id)?;
        let answer = match self.answer {
            None => None,
            Some(Answer::Text(text)) => Some(text),
            // The host response, checked against the stored form (rules V1–V8) as its JSON
            // text.
            Some(Answer::Response(object)) => {
                // An object answers a form; to a question without one it would be saved as
                // text.
                if handle.show(&request)?.form.is_none() {
                    return Err(Refused::Arguments(
                        "answer: an object (a host response) answers a question carrying a \
                         form; this request carries none, so its answer is text"
                            .into(),
                    ));
                }
                Some(Value::Object(object).to_string())
            }
        };
        // Files sent with a form's answer, each checked (name, size, base64) before any read.
        let uploads = self
            .uploads
            .into_iter()
            .map(|u| Upload::from_base64(u.name, &u.data))
            .collect::<Result<Vec<_>, _>>()?;
        let r = handle.respond_with_uploads(
            &request,
            self.version,
            self.outcome,
            answer.as_deref(),
            &uploads,
            &self.key,
        )?;
        Ok(wire::request(&r))
    }
}

impl WaitArgs {
    /// Starts the wait: checks the timeout and reads the request once (see
    /// [`AsPrincipal::start_wait`]); the handle gives the request when it leaves `open` or
    /// the timeout passes.
    pub fn start(self, handle: &AsPrincipal<'_>) -> Result<WaitHandle, Refused> {
        let timeout = limits::wait(self.timeout_seconds)?;
        Ok(handle.start_wait(&request_id(&self.id)?, timeout)?)
    }
}

impl Operation for WaitArgs {
    fn validate(&self) -> Result<(), AskError> {
        limits::wait(self.timeout_seconds).map(drop)
    }

    fn run(self, handle: &AsPrincipal<'_>) -> Result<Value, Refused> {
        Ok(wire::request(&self.start(handle)?.wait()?))
    }
}

impl Operation for CancelArgs {
    fn run(self, handle: &AsPrincipal<'_>) -> Result<Value, Refused> {
        let r = handle.cancel(&request_id(&self.id)?, self.version, &self.key)?;
        Ok(wire::request(&r))
    }
}

impl Operation for SupersedeArgs {
    fn run(self, handle: &AsPrincipal<'_>) -> Result<Value, Refused> {
        let r = handle.supersede(&request_id(&self.id)?, self.version, &self.key)?;
        Ok(wire::request(&r))
    }
}

impl Operation for ReplaceArgs {
    fn run(self, handle: &AsPrincipal<'_>) -> Result<Value, Refused> {
        let change = Replacement {
            body: self.body,
            title: self.title,
            expires_at: expiry(self.expires_at.as_deref())?,
        };
        let replaced = handle.replace(&request_id(&self.id)?, self.version, change, &self.key)?;
        Ok(wire::replaced(&replaced))
    }
}

impl Operation for LogArgs {
    fn validate(&self) -> Result<(), AskError> {
        limits::count("limit", self.limit.unwrap_or(LOG_DEFAULT), LOG_MAX)
    }

    fn run(self, handle: &AsPrincipal<'_>) -> Result<Value, Refused> {
        // The engine checks the limit (LOG_MAX) first.
        let page = handle.log(
            &request_id(&self.id)?,
            self.after.as_deref(),
            self.limit.unwrap_or(LOG_DEFAULT),
        )?;
        Ok(wire::log(&page))
    }
}

impl Operation for MessageArgs {
    fn run(self, handle: &AsPrincipal<'_>) -> Result<Value, Refused> {
        let event = handle.message(&request_id(&self.id)?, &self.text, &self.key)?;
        serde_json::to_value(event).map_err(|e| Refused::Arguments(e.to_string()))
    }
}

impl Operation for RedeemArgs {
    fn run(self, handle: &AsPrincipal<'_>) -> Result<Value, Refused> {
        let presented: Redeem = self.action.into();
        let r = handle.redeem(&request_id(&self.id)?, &presented, &self.key)?;
        Ok(wire::request(&r))
    }
}

impl Operation for ReportArgs {
    fn run(self, handle: &AsPrincipal<'_>) -> Result<Value, Refused> {
        let r = handle.report_execution(
            &request_id(&self.id)?,
            &self.operation_key,
            self.status,
            self.detail.as_deref(),
            &self.key,
        )?;
        Ok(wire::request(&r))
    }
}

impl Operation for ListArgs {
    fn validate(&self) -> Result<(), AskError> {
        limits::count("limit", self.limit.unwrap_or(LIST_DEFAULT), LIST_MAX)
    }

    fn run(self, handle: &AsPrincipal<'_>) -> Result<Value, Refused> {
        let conversation = ConversationId::new(self.conversation)?;
        // The engine checks the limit (LIST_MAX) first.
        let list = handle.list(&conversation, self.limit.unwrap_or(LIST_DEFAULT))?;
        Ok(wire::requests(&list))
    }
}

/// Who reads or changes a conversation's membership: a principal (checked as a manager of
/// the conversation for a change, as a member for a read), or the operator of the store
/// (the command line without `--as`).
#[derive(Clone, Copy)]
pub enum Actor<'a> {
    /// A principal.
    Principal(&'a AsPrincipal<'a>),
    /// The operator: no check.
    Operator(&'a Asks),
}

impl MembersArgs {
    /// The members and the membership log, as `actor` reads them:
    /// `{conversation, members, events}`.
    pub fn run_by(self, actor: Actor<'_>) -> Result<Value, Refused> {
        let conversation = ConversationId::new(self.conversation)?;
        let (members, events) = match actor {
            Actor::Principal(me) => (me.members(&conversation)?, me.member_log(&conversation)?),
            Actor::Operator(asks) => (
                asks.members(&conversation)?,
                asks.member_log(&conversation)?,
            ),
        };
        Ok(json!({"conversation": conversation, "members": members, "events": events}))
    }
}

impl Operation for MembersArgs {
    fn run(self, handle: &AsPrincipal<'_>) -> Result<Value, Refused> {
        self.run_by(Actor::Principal(handle))
    }
}

/// Applies `change` to each principal named, then reads the members with `read`:
/// `{conversation, members}`.
fn membership(
    conversation: String,
    named: Vec<String>,
    mut change: impl FnMut(&ConversationId, &Principal) -> Result<(), AskError>,
    read: impl FnOnce(&ConversationId) -> Result<Vec<Member>, AskError>,
) -> Result<Value, Refused> {
    let conversation = ConversationId::new(conversation)?;
    limits::principals(named.len())?;
    for p in &principals(named)? {
        change(&conversation, p)?;
    }
    let members = read(&conversation)?;
    Ok(json!({"conversation": conversation, "members": members}))
}

macro_rules! membership_ops {
    ($($name:ident: $principal:ident, $operator:ident;)*) => {$(
        impl $name {
            /// Applies the change as `actor` (a principal must be an active manager of the
            /// conversation, else `not_manager`), then reads the members as `read_as`
            /// reads them: `{conversation, members}`.
            pub fn run_by(self, actor: Actor<'_>, read_as: Actor<'_>) -> Result<Value, Refused> {
                membership(
                    self.conversation,
                    self.principals,
                    |c, p| match actor {
                        Actor::Principal(me) => me.$principal(c, p),
                        Actor::Operator(asks) => asks.$operator(c, p),
                    },
                    |c| match read_as {
                        Actor::Principal(me) => me.members(c),
                        Actor::Operator(asks) => asks.members(c),
                    },
                )
            }
        }

        impl Operation for $name {
            fn validate(&self) -> Result<(), AskError> {
                limits::principals(self.principals.len())
            }

            fn run(self, handle: &AsPrincipal<'_>) -> Result<Value, Refused> {
                self.run_by(Actor::Principal(handle), Actor::Principal(handle))
            }
        }
    )*};
}

membership_ops! {
    JoinArgs: join, join;
    RemoveArgs: remove_member, remove_member;
    RevokeArgs: revoke_contact, revoke_contact;
    RestoreArgs: restore_contact, restore_contact;
}

impl JoinArgs {
    /// Adds the principals as managers of the conversation: the operator's alone.
    pub fn run_as_operator_adding_managers(self, asks: &Asks) -> Result<Value, Refused> {
        membership(
            self.conversation,
            self.principals,
            |c, p| asks.join_as_manager(c, p),
            |c| asks.members(c),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn closed<T: JsonSchema>(required: &[&str]) {
        let s = schema::<T>();
        assert_eq!(s["type"], "object");
        assert_eq!(s["additionalProperties"], false);
        assert_eq!(s["required"], json!(required));
        for (name, p) in s["properties"].as_object().unwrap() {
            let d = p["description"].as_str().unwrap_or_default();
            assert!(!d.is_empty() && !d.contains('\n'), "{name}: {p}");
        }
        assert!(!summary::<T>().is_empty());
    }

    #[test]
    fn every_schema_is_closed_with_one_line_descriptions() {
        closed::<OpenArgs>(&["conversation", "body", "key"]);
        closed::<ShowArgs>(&["id"]);
        closed::<RespondArgs>(&["id", "version", "outcome", "key"]);
        closed::<WaitArgs>(&["id"]);
        closed::<CancelArgs>(&["id", "version", "key"]);
        closed::<ReplaceArgs>(&["id", "version", "key"]);
        closed::<SupersedeArgs>(&["id", "version", "key"]);
        closed::<LogArgs>(&["id"]);
        closed::<MessageArgs>(&["id", "text", "key"]);
        closed::<RedeemArgs>(&["id", "action", "key"]);
        closed::<ReportArgs>(&["id", "operation_key", "status", "key"]);
        closed::<ListArgs>(&["conversation"]);
        closed::<MembersArgs>(&["conversation"]);
        closed::<JoinArgs>(&["conversation", "principals"]);
        closed::<RemoveArgs>(&["conversation", "principals"]);
        closed::<RevokeArgs>(&["conversation", "principals"]);
        closed::<RestoreArgs>(&["conversation", "principals"]);
    }

    #[test]
    fn enums_are_listed_from_their_own_serde_names() {
        let s = schema::<ReportArgs>();
        assert_eq!(
            s["properties"]["status"]["enum"],
            json!(["succeeded", "failed", "unknown"])
        );
        let s = schema::<OpenArgs>();
        assert_eq!(
            s["properties"]["kind"]["enum"],
            json!(["question", "approval", "task"])
        );
    }

    #[test]
    fn the_limits_need_nothing_but_the_values() {
        let list = |limit| ListArgs {
            conversation: "c".into(),
            limit: Some(limit),
        };
        assert!(list(LIST_MAX).validate().is_ok());
        assert_eq!(list(0).validate().unwrap_err().code(), "invalid_arguments");
        assert!(list(LIST_MAX + 1).validate().is_err());
        let wait = |s| WaitArgs {
            id: "r".into(),
            timeout_seconds: Some(s),
        };
        assert!(wait(WAIT_SECONDS_MAX as f64).validate().is_ok());
        assert!(wait(f64::NAN).validate().is_err());
        assert!(wait(-1.0).validate().is_err());
        let join = JoinArgs {
            conversation: "c".into(),
            principals: vec![],
        };
        assert!(join.validate().is_err());
    }
}
