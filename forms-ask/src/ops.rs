//! One typed description of each operation, shared by the `forms ask <op>` commands and
//! the `ask_<op>` MCP tools: its arguments, their limits (the numbers of the crate's limits,
//! e.g. [`crate::BODY_CHARS_MAX`]) and how each maps to a tool argument and a command-line
//! flag. The CLI's per-operation help and the tools' input schemas are both made from it.
//!
//! Names: a tool argument is `snake_case` (`expires_at`, `operation_key`); its flag is the
//! same in `kebab-case` unless the description says otherwise (`expires_at` is `--expires`,
//! `timeout_seconds` is `--timeout`, `choices` is `--choice`, repeated). The request ID and
//! the principals of a membership change are positional on the command line. The acting
//! principal is the CLI's `--as` and, over MCP, the session's: never a tool argument.
//!
//! ```
//! let open = forms_ask::ops::find("open").unwrap();
//! assert_eq!(open.tool(), "ask_open");
//! let schema = open.input_schema();
//! assert_eq!(schema["properties"]["body"]["maxLength"], 16_000);
//! ```

use crate::limits::{
    ACTION_ARGUMENTS_BYTES_MAX, ACTION_FIELD_CHARS_MAX, ANSWER_CHARS_MAX, AUDIENCE_MAX,
    BODY_CHARS_MAX, CHOICES_MAX, CHOICE_CHARS_MAX, DETAIL_CHARS_MAX, FORM_BYTES_MAX, LIST_DEFAULT,
    LIST_MAX, LOG_DEFAULT, LOG_MAX, MESSAGE_CHARS_MAX, RESPONSE_BYTES_MAX, TITLE_CHARS_MAX,
    UPLOADS_BYTES_MAX, UPLOADS_MAX, UPLOAD_BYTES_MAX, UPLOAD_NAME_BYTES_MAX, WAIT_SECONDS_DEFAULT,
    WAIT_SECONDS_MAX,
};
use crate::model::ID_CHARS_MAX;
use serde_json::{json, Map, Value};

/// What values an argument takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgKind {
    /// Text of at most this many characters, not blank.
    Text(usize),
    /// An identifier: a request ID, a conversation, a principal, a retry key
    /// ([`ID_CHARS_MAX`] characters).
    Id,
    /// A list of identifiers (principals), at most this many.
    Ids(usize),
    /// A list of texts (choices): at most `.0` items of at most `.1` characters each.
    Texts(usize, usize),
    /// A request version read (a whole number from 1).
    Version,
    /// One of these words.
    OneOf(&'static [&'static str]),
    /// A time, RFC 3339 with `Z` or an offset; the CLI also takes a duration (`7d`).
    DateTime,
    /// Seconds, from 0 to `.0`, default `.1`.
    Seconds(u64, u64),
    /// A count from 1 to `.0`, default `.1`.
    Count(usize, usize),
    /// A bound action, `{executor, resource_version, arguments, operation_key}` (JSON on
    /// the command line).
    Action,
    /// A Data form's arguments, `{message, questions}` (checked with rules R1–R27), at most
    /// [`FORM_BYTES_MAX`] bytes.
    Form,
    /// An answer: text of at most `.0` characters, or, for a question carrying a form, the
    /// host response (`{"action":"accept","content":{…}}`, `{"action":"decline"}`,
    /// `{"action":"cancel"}`), as an object or as its JSON text, at most
    /// [`RESPONSE_BYTES_MAX`] bytes.
    Answer(usize),
    /// Files sent with a form's answer, each named in the answer's `files` value as
    /// `upload:<name>`: over MCP `[{"name","data"}]` with the bytes in base64, on the command
    /// line a local file's path (repeated). At most [`UPLOADS_MAX`] files of at most
    /// [`UPLOAD_BYTES_MAX`] bytes each, [`UPLOADS_BYTES_MAX`] bytes together.
    Uploads,
}

/// Where an argument goes on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cli {
    /// `--flag VALUE`, given at most once.
    Flag(&'static str),
    /// `--flag VALUE`, repeated for each item of a list.
    Repeated(&'static str),
    /// A positional argument.
    Positional,
    /// Not on the command line.
    None,
}

/// One argument of an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arg {
    /// The tool argument's name.
    pub name: &'static str,
    /// Where it goes on the command line.
    pub cli: Cli,
    /// What it takes.
    pub kind: ArgKind,
    /// Whether it must be given.
    pub required: bool,
    /// What it is, in a few words.
    pub help: &'static str,
}

/// One operation: `forms ask <name>` and the tool `ask_<name>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Op {
    /// The operation's name (`open`, `respond`, ...).
    pub name: &'static str,
    /// What it does.
    pub summary: &'static str,
    /// Its arguments (the acting principal aside).
    pub args: &'static [Arg],
    /// Whether it only reads.
    pub read_only: bool,
    /// Whether the command line may run it as the operator (without `--as`): the
    /// membership changes, which a tool always runs as the session's principal.
    pub operator: bool,
    /// Whether it is a tool as well as a command.
    pub tool: bool,
}

const fn arg(
    name: &'static str,
    cli: Cli,
    kind: ArgKind,
    required: bool,
    help: &'static str,
) -> Arg {
    Arg {
        name,
        cli,
        kind,
        required,
        help,
    }
}

const ID: Arg = arg("id", Cli::Positional, ArgKind::Id, true, "the request ID");
const VERSION: Arg = arg(
    "version",
    Cli::Flag("version"),
    ArgKind::Version,
    true,
    "the version read; a stale one is a conflict",
);
const KEY: Arg = arg(
    "key",
    Cli::Flag("key"),
    ArgKind::Id,
    true,
    "the retry key: the same key with the same input returns the first result",
);
const CONVERSATION: Arg = arg(
    "conversation",
    Cli::Flag("conversation"),
    ArgKind::Id,
    true,
    "the conversation",
);
const EXPIRES: Arg = arg(
    "expires_at",
    Cli::Flag("expires"),
    ArgKind::DateTime,
    false,
    "an explicit expiry within 90 days: RFC 3339 with Z or an offset (the command line \
     also takes a duration from now: 7d, 36h, 90m)",
);
const PRINCIPALS: Arg = arg(
    "principals",
    Cli::Positional,
    ArgKind::Ids(AUDIENCE_MAX),
    true,
    "the principals whose membership changes",
);

const MEMBERSHIP: &[Arg] = &[CONVERSATION, PRINCIPALS];

/// Every operation, in listing order.
pub const OPS: &[Op] = &[
    Op {
        name: "open",
        summary: "Opens a durable request (question, approval or task) in a conversation, for \
                  an audience fixed now (by default the other members). Returns the request.",
        args: &[
            CONVERSATION,
            arg(
                "kind",
                Cli::Flag("kind"),
                ArgKind::OneOf(&["question", "approval", "task"]),
                false,
                "the kind of request (default question)",
            ),
            arg(
                "body",
                Cli::Flag("body"),
                ArgKind::Text(BODY_CHARS_MAX),
                true,
                "the request itself",
            ),
            arg(
                "title",
                Cli::Flag("title"),
                ArgKind::Text(TITLE_CHARS_MAX),
                false,
                "an optional title",
            ),
            arg(
                "choices",
                Cli::Repeated("choice"),
                ArgKind::Texts(CHOICES_MAX, CHOICE_CHARS_MAX),
                false,
                "a question's exact choices, no two alike",
            ),
            arg(
                "audience",
                Cli::Repeated("audience"),
                ArgKind::Ids(AUDIENCE_MAX),
                false,
                "who may respond (members of the conversation)",
            ),
            EXPIRES,
            arg(
                "action",
                Cli::Flag("action"),
                ArgKind::Action,
                false,
                "an approval's bound action",
            ),
            arg(
                "form",
                Cli::Flag("form"),
                ArgKind::Form,
                false,
                "a question's Data form, {message, questions} (checked with rules R1-R27): its \
                 answer is then the host response, checked against the form (rules V1-V8) \
                 before it is saved",
            ),
            KEY,
        ],
        read_only: false,
        operator: false,
        tool: true,
    },
    Op {
        name: "show",
        summary: "The request as it is now.",
        args: &[ID],
        read_only: true,
        operator: false,
        tool: true,
    },
    Op {
        name: "respond",
        summary: "Responds to a request with the version read and a typed outcome (answered; \
                  approved or denied; completed, failed or rejected). A stale version or a \
                  request already decided is a conflict carrying the latest state. A question \
                  carrying a form is answered with the host response, refused as \
                  invalid_response (nothing saved) unless it passes the form's answer rules.",
        args: &[
            ID,
            VERSION,
            arg(
                "outcome",
                Cli::Flag("outcome"),
                ArgKind::OneOf(&[
                    "answered",
                    "approved",
                    "denied",
                    "completed",
                    "failed",
                    "rejected",
                ]),
                true,
                "the outcome, one of the request kind's",
            ),
            arg(
                "answer",
                Cli::Flag("answer"),
                ArgKind::Answer(ANSWER_CHARS_MAX),
                false,
                "the answer (one of the choices, if offered); for a question carrying a form, \
                 the host response {\"action\":\"accept\",\"content\":{...}}, \
                 {\"action\":\"decline\"} or {\"action\":\"cancel\"}, checked against the form; \
                 a files answer names each file sent as \"upload:<name>\" (never a file:// path)",
            ),
            arg(
                "uploads",
                Cli::Repeated("upload"),
                ArgKind::Uploads,
                false,
                "files sent with a form's answer, each named in its files value as \
                 \"upload:<name>\"; stored with the response, and the requester gets its own \
                 copy",
            ),
            KEY,
        ],
        read_only: false,
        operator: false,
        tool: true,
    },
    Op {
        name: "wait",
        summary: "Waits until the request leaves `open` or the timeout passes, and returns its \
                  state then. A timeout only stops waiting; it never withdraws the request. \
                  A longer wait is a loop of waits.",
        args: &[
            ID,
            arg(
                "timeout_seconds",
                Cli::Flag("timeout"),
                ArgKind::Seconds(WAIT_SECONDS_MAX, WAIT_SECONDS_DEFAULT),
                false,
                "how long to wait, in seconds",
            ),
        ],
        read_only: true,
        operator: false,
        tool: true,
    },
    Op {
        name: "cancel",
        summary: "Cancels an open request: only its requester, with the current version.",
        args: &[ID, VERSION, KEY],
        read_only: false,
        operator: false,
        tool: true,
    },
    Op {
        name: "replace",
        summary: "Atomically supersedes an open request and opens its replacement (same \
                  audience, choices, action and deadline unless a new expiry is given; never \
                  an approval carried over). Returns {previous, replacement}.",
        args: &[
            ID,
            VERSION,
            arg(
                "body",
                Cli::Flag("body"),
                ArgKind::Text(BODY_CHARS_MAX),
                false,
                "the new body (default: the old one)",
            ),
            arg(
                "title",
                Cli::Flag("title"),
                ArgKind::Text(TITLE_CHARS_MAX),
                false,
                "the new title (default: the old one)",
            ),
            EXPIRES,
            KEY,
        ],
        read_only: false,
        operator: false,
        tool: true,
    },
    Op {
        name: "supersede",
        summary: "Marks an open request superseded, creating nothing: only its requester, with \
                  the current version.",
        args: &[ID, VERSION, KEY],
        read_only: false,
        operator: false,
        tool: true,
    },
    Op {
        name: "log",
        summary: "One page of the request's audit log, oldest first: one event per \
                  transition, and the messages. Returns {events, next}: pass next as after \
                  for the following page; null on the last.",
        args: &[
            ID,
            arg(
                "after",
                Cli::Flag("after"),
                ArgKind::Id,
                false,
                "the next of the previous page (omit for the first page)",
            ),
            arg(
                "limit",
                Cli::Flag("limit"),
                ArgKind::Count(LOG_MAX, LOG_DEFAULT),
                false,
                "how many events at most",
            ),
        ],
        read_only: true,
        operator: false,
        tool: true,
    },
    Op {
        name: "message",
        summary: "Posts a follow-up message on a request; it decides nothing.",
        args: &[
            ID,
            arg(
                "text",
                Cli::Flag("text"),
                ArgKind::Text(MESSAGE_CHARS_MAX),
                true,
                "the message",
            ),
            KEY,
        ],
        read_only: false,
        operator: false,
        tool: true,
    },
    Op {
        name: "redeem",
        summary: "Redeems an approved approval's bound action, presenting exactly the bound \
                  executor, resource version, arguments and operation key; once only. Records \
                  the intent; executes nothing.",
        args: &[
            ID,
            arg(
                "action",
                Cli::Flag("action"),
                ArgKind::Action,
                true,
                "the action presented",
            ),
            KEY,
        ],
        read_only: false,
        operator: false,
        tool: true,
    },
    Op {
        name: "report",
        summary: "Reports the execution of a redeemed action: succeeded, failed or unknown \
                  (unknown stays reconcilable by a later report).",
        args: &[
            ID,
            arg(
                "operation_key",
                Cli::Flag("operation-key"),
                ArgKind::Text(ACTION_FIELD_CHARS_MAX),
                true,
                "the bound operation key",
            ),
            arg(
                "status",
                Cli::Flag("status"),
                ArgKind::OneOf(&["succeeded", "failed", "unknown"]),
                true,
                "what became of the action",
            ),
            arg(
                "detail",
                Cli::Flag("detail"),
                ArgKind::Text(DETAIL_CHARS_MAX),
                false,
                "what happened, in words",
            ),
            KEY,
        ],
        read_only: false,
        operator: false,
        tool: true,
    },
    Op {
        name: "list",
        summary: "The caller's requests in a conversation (opened by it, asking it, or naming \
                  it as a bound action's executor), open ones first, then the most recently \
                  changed. Returns {requests}, each without its form and saved host response: \
                  has_form and response_action instead (show has them).",
        args: &[
            CONVERSATION,
            arg(
                "limit",
                Cli::Flag("limit"),
                ArgKind::Count(LIST_MAX, LIST_DEFAULT),
                false,
                "how many requests at most",
            ),
        ],
        read_only: true,
        operator: false,
        tool: true,
    },
    Op {
        name: "members",
        summary: "The conversation's members (removed ones included, with their rights) and \
                  its membership log, for its current members. Returns {conversation, \
                  members, events}.",
        args: &[CONVERSATION],
        read_only: true,
        operator: true,
        tool: true,
    },
    Op {
        name: "join",
        summary: "Adds members to a conversation (or brings them back) with contact rights; \
                  only an active manager of the conversation may (the command line without \
                  --as acts as the operator, who may also add managers with --role manager). \
                  Recorded in the membership log. A member who joins later is never in an \
                  earlier request's audience.",
        args: &[
            CONVERSATION,
            PRINCIPALS,
            arg(
                "role",
                Cli::Flag("role"),
                ArgKind::OneOf(&["member", "manager"]),
                false,
                "member (default) or manager; only the operator adds managers",
            ),
        ],
        read_only: false,
        operator: true,
        tool: true,
    },
    Op {
        name: "remove",
        summary: "Removes members from a conversation (and from managing it): they lose their \
                  current eligibility. Only an active manager of the conversation may.",
        args: MEMBERSHIP,
        read_only: false,
        operator: true,
        tool: true,
    },
    Op {
        name: "revoke",
        summary: "Revokes members' contact rights in a conversation: they can no longer \
                  respond. Only an active manager of the conversation may.",
        args: MEMBERSHIP,
        read_only: false,
        operator: true,
        tool: true,
    },
    Op {
        name: "restore",
        summary: "Gives members their contact rights back. Only an active manager of the \
                  conversation may.",
        args: MEMBERSHIP,
        read_only: false,
        operator: true,
        tool: true,
    },
];

/// The operation named `name` (`open`, or its tool name `ask_open`).
pub fn find(name: &str) -> Option<&'static Op> {
    let name = name.strip_prefix("ask_").unwrap_or(name);
    OPS.iter().find(|op| op.name == name)
}

impl Arg {
    /// The command-line flag, if the argument is one (`--expires`).
    pub fn flag(&self) -> Option<&'static str> {
        match self.cli {
            Cli::Flag(f) | Cli::Repeated(f) => Some(f),
            Cli::Positional | Cli::None => None,
        }
    }

    /// What the argument takes, in words, with its limit.
    pub fn takes(&self) -> String {
        match self.kind {
            ArgKind::Text(n) => format!("text, at most {n} characters"),
            ArgKind::Id => format!("an identifier, at most {ID_CHARS_MAX} characters"),
            ArgKind::Ids(n) => format!("at most {n} principals"),
            ArgKind::Texts(n, each) => format!("at most {n}, each at most {each} characters"),
            ArgKind::Version => "a whole number from 1".into(),
            ArgKind::OneOf(words) => words.join(" | "),
            ArgKind::DateTime => "a time such as 2026-12-31T12:00:00Z or ...+02:00".into(),
            ArgKind::Seconds(max, default) => format!("seconds, 0 to {max}, default {default}"),
            ArgKind::Count(max, default) => format!("1 to {max}, default {default}"),
            ArgKind::Action => format!(
                "JSON {{\"executor\",\"resource_version\",\"arguments\",\"operation_key\"}}; \
                 arguments at most {ACTION_ARGUMENTS_BYTES_MAX} bytes"
            ),
            ArgKind::Form => {
                format!("JSON {{\"message\",\"questions\"}}, at most {FORM_BYTES_MAX} bytes")
            }
            ArgKind::Answer(n) => format!(
                "text, at most {n} characters; for a form, JSON {{\"action\",\"content\"}}, at \
                 most {RESPONSE_BYTES_MAX} bytes"
            ),
            ArgKind::Uploads => format!(
                "a local file's path (the tool: {{\"name\",\"data\"}} with the bytes in \
                 base64); at most {UPLOADS_MAX} files of at most {UPLOAD_BYTES_MAX} bytes, \
                 {UPLOADS_BYTES_MAX} bytes together"
            ),
        }
    }

    /// The argument's JSON Schema.
    pub fn schema(&self) -> Value {
        let text = |max: usize| json!({"type": "string", "minLength": 1, "maxLength": max});
        let mut s = match self.kind {
            ArgKind::Text(n) => text(n),
            ArgKind::Id => text(ID_CHARS_MAX),
            ArgKind::Ids(n) => {
                json!({"type": "array", "items": text(ID_CHARS_MAX), "maxItems": n})
            }
            ArgKind::Texts(n, each) => json!({"type": "array", "items": text(each),
                "maxItems": n, "uniqueItems": true}),
            ArgKind::Version => json!({"type": "integer", "minimum": 1}),
            ArgKind::OneOf(words) => json!({"type": "string", "enum": words}),
            ArgKind::DateTime => json!({"type": "string", "format": "date-time"}),
            ArgKind::Seconds(max, default) => {
                json!({"type": "number", "minimum": 0, "maximum": max, "default": default})
            }
            ArgKind::Count(max, default) => {
                json!({"type": "integer", "minimum": 1, "maximum": max, "default": default})
            }
            ArgKind::Action => json!({
                "type": "object",
                "properties": {
                    "executor": text(ACTION_FIELD_CHARS_MAX),
                    "resource_version": text(ACTION_FIELD_CHARS_MAX),
                    "arguments": {"description": format!(
                        "the action's arguments (any JSON, at most {ACTION_ARGUMENTS_BYTES_MAX} \
                         bytes)")},
                    "operation_key": text(ACTION_FIELD_CHARS_MAX),
                },
                "required": ["executor", "resource_version", "arguments", "operation_key"],
                "additionalProperties": false,
            }),
            // The contract's own schema of the Data arguments is the form tool's; here the
            // object is checked whole by the runtime when the request is opened.
            ArgKind::Form => json!({
                "type": "object",
                "properties": {
                    "message": {"type": "string"},
                    "questions": {"type": "array", "items": {"type": "object"}},
                },
                "required": ["message", "questions"],
                "additionalProperties": false,
            }),
            ArgKind::Answer(n) => json!({
                "anyOf": [
                    text(n),
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
            }),
            ArgKind::Uploads => json!({
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
            }),
        };
        if let Some(obj) = s.as_object_mut() {
            obj.insert("description".into(), Value::String(self.help.into()));
        }
        s
    }
}

impl Op {
    /// The tool's name: `ask_<name>`.
    pub fn tool(&self) -> String {
        format!("ask_{}", self.name)
    }

    /// The arguments a tool takes (all but the command line's own: `role`).
    pub fn tool_args(&self) -> impl Iterator<Item = &'static Arg> {
        self.args.iter().filter(|a| a.name != "role")
    }

    /// The tool's closed input schema: no principal anywhere (it comes from the session).
    pub fn input_schema(&self) -> Value {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for a in self.tool_args() {
            properties.insert(a.name.into(), a.schema());
            if a.required {
                required.push(Value::String(a.name.into()));
            }
        }
        json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_op_has_a_tool_name_and_unique_args() {
        for op in OPS {
            let mut names: Vec<&str> = op.args.iter().map(|a| a.name).collect();
            names.sort_unstable();
            let n = names.len();
            names.dedup();
            assert_eq!(n, names.len(), "{}", op.name);
            assert_eq!(find(&op.tool()).map(|o| o.name), Some(op.name));
        }
    }
}
