//! `forms ask …`: durable requested replies from a shell, one line of JSON per command.

use crate::Usage;
use forms_ask::{
    Action, AskError, Asks, AuditEvent, ConversationId, ExecutionStatus, Kind, Member, NewRequest,
    Outcome, Principal, Redeem, Replaced, Replacement, Request, RequestId, Timestamp,
};
use serde::Serialize;
use serde_json::{json, Value};
use std::ffi::OsString;
use std::time::Duration;

/// A parsed `forms ask` command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AskCommand {
    op: Op,
    db: String,
    flags: Vec<(&'static str, String)>,
    positionals: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Open,
    Show,
    Respond,
    Wait,
    Cancel,
    Replace,
    Supersede,
    Message,
    Log,
    Redeem,
    Report,
    Join,
    Remove,
    Revoke,
}

impl Op {
    fn parse(s: &str) -> Option<Op> {
        Some(match s {
            "open" => Op::Open,
            "show" => Op::Show,
            "respond" => Op::Respond,
            "wait" => Op::Wait,
            "cancel" => Op::Cancel,
            "replace" => Op::Replace,
            "supersede" => Op::Supersede,
            "message" => Op::Message,
            "log" => Op::Log,
            "redeem" => Op::Redeem,
            "report" => Op::Report,
            "join" => Op::Join,
            "remove" => Op::Remove,
            "revoke" => Op::Revoke,
            _ => return None,
        })
    }

    /// The flags the operation takes (besides `--db`), and whether each may repeat.
    fn flags(self) -> &'static [(&'static str, bool)] {
        match self {
            Op::Open => &[
                ("as", false),
                ("conversation", false),
                ("body", false),
                ("key", false),
                ("kind", false),
                ("title", false),
                ("choice", true),
                ("audience", true),
                ("expires", false),
                ("action", false),
            ],
            Op::Show | Op::Log => &[("as", false)],
            Op::Respond => &[
                ("as", false),
                ("version", false),
                ("outcome", false),
                ("answer", false),
                ("key", false),
            ],
            Op::Wait => &[("as", false), ("timeout", false)],
            Op::Cancel | Op::Supersede => &[("as", false), ("version", false), ("key", false)],
            Op::Replace => &[
                ("as", false),
                ("version", false),
                ("body", false),
                ("title", false),
                ("expires", false),
                ("key", false),
            ],
            Op::Message => &[("as", false), ("text", false), ("key", false)],
            Op::Redeem => &[("as", false), ("action", false), ("key", false)],
            Op::Report => &[
                ("as", false),
                ("operation-key", false),
                ("status", false),
                ("detail", false),
                ("key", false),
            ],
            Op::Join | Op::Remove | Op::Revoke => &[("conversation", false)],
        }
    }

    /// How many positional arguments: exactly one ID, or one or more principals.
    fn positionals(self) -> (usize, usize) {
        match self {
            Op::Open => (0, 0),
            Op::Join | Op::Remove | Op::Revoke => (1, usize::MAX),
            _ => (1, 1),
        }
    }
}

/// Parses the arguments after `ask`.
pub(crate) fn parse(args: Vec<OsString>) -> Result<AskCommand, Usage> {
    let mut args = args.into_iter();
    let op_arg = args
        .next()
        .ok_or_else(|| Usage("`ask` needs an operation".into()))?;
    let op_name = op_arg.to_string_lossy().into_owned();
    let op =
        Op::parse(&op_name).ok_or_else(|| Usage(format!("unknown `ask` operation `{op_name}`")))?;
    let mut db = None;
    let mut flags: Vec<(&'static str, String)> = Vec::new();
    let mut positionals = Vec::new();
    while let Some(arg) = args.next() {
        let arg = arg
            .into_string()
            .map_err(|a| Usage(format!("argument `{}` is not UTF-8", a.to_string_lossy())))?;
        let Some(flag) = arg.strip_prefix("--") else {
            positionals.push(arg);
            continue;
        };
        let (name, inline) = match flag.split_once('=') {
            Some((n, v)) => (n.to_owned(), Some(v.to_owned())),
            None => (flag.to_owned(), None),
        };
        let mut value = || -> Result<String, Usage> {
            match inline.clone() {
                Some(v) => Ok(v),
                None => args
                    .next()
                    .and_then(|v| v.into_string().ok())
                    .ok_or_else(|| Usage(format!("`--{name}` needs a value"))),
            }
        };
        if name == "db" {
            if db.is_some() {
                return Err(Usage("`--db` given twice".into()));
            }
            db = Some(value()?);
            continue;
        }
        let Some(&(known, repeats)) = op.flags().iter().find(|(n, _)| *n == name) else {
            return Err(Usage(format!(
                "unknown option `--{name}` for `ask {op_name}`"
            )));
        };
        if !repeats && flags.iter().any(|(n, _)| *n == known) {
            return Err(Usage(format!("`--{name}` given twice")));
        }
        flags.push((known, value()?));
    }
    let db = db.ok_or_else(|| Usage(format!("`ask {op_name}` needs `--db PATH|URL`")))?;
    let (min, max) = op.positionals();
    if positionals.len() < min || positionals.len() > max {
        return Err(Usage(match (min, max) {
            (0, 0) => format!("`ask {op_name}` takes no positional argument"),
            (1, 1) => format!("`ask {op_name}` takes one request ID"),
            _ => format!("`ask {op_name}` takes one or more principals"),
        }));
    }
    for required in required_flags(op) {
        if !flags.iter().any(|(n, _)| n == required) {
            return Err(Usage(format!("`ask {op_name}` needs `--{required}`")));
        }
    }
    Ok(AskCommand {
        op,
        db,
        flags,
        positionals,
    })
}

fn required_flags(op: Op) -> &'static [&'static str] {
    match op {
        Op::Open => &["as", "conversation", "body", "key"],
        Op::Show | Op::Log | Op::Wait => &["as"],
        Op::Respond => &["as", "version", "outcome", "key"],
        Op::Cancel | Op::Supersede | Op::Replace => &["as", "version", "key"],
        Op::Message => &["as", "text", "key"],
        Op::Redeem => &["as", "action", "key"],
        Op::Report => &["as", "operation-key", "status", "key"],
        Op::Join | Op::Remove | Op::Revoke => &["conversation"],
    }
}

impl AskCommand {
    fn flag(&self, name: &str) -> Option<&str> {
        self.flags
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    fn all(&self, name: &str) -> Vec<&str> {
        self.flags
            .iter()
            .filter(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    fn need(&self, name: &str) -> Result<&str, Usage> {
        self.flag(name)
            .ok_or_else(|| Usage(format!("missing `--{name}`")))
    }

    fn id(&self) -> Result<RequestId, Failure> {
        let raw = self.positionals.first().map(String::as_str).unwrap_or("");
        Ok(RequestId::new(raw)?)
    }

    fn version(&self) -> Result<u64, Usage> {
        let v = self.need("version")?;
        v.parse()
            .map_err(|_| Usage(format!("`--version` must be a whole number, not `{v}`")))
    }

    fn expires(&self) -> Result<Option<Timestamp>, Usage> {
        self.flag("expires")
            .map(|s| {
                Timestamp::parse(s).ok_or_else(|| {
                    Usage(format!(
                        "`--expires` must be an RFC 3339 UTC time such as 2026-12-31T12:00:00Z, not `{s}`"
                    ))
                })
            })
            .transpose()
    }
}

/// What went wrong running an `ask` command.
pub(crate) enum Failure {
    /// A usage error (exit 2).
    Usage(Usage),
    /// A refusal or a store failure (exit 1), as the JSON line to print.
    Refused(String),
}

impl From<Usage> for Failure {
    fn from(u: Usage) -> Self {
        Failure::Usage(u)
    }
}

impl From<AskError> for Failure {
    fn from(e: AskError) -> Self {
        let mut error = json!({ "code": e.code(), "message": e.to_string() });
        if let (Some(latest), Some(obj)) = (e.latest(), error.as_object_mut()) {
            obj.insert("latest".into(), request_json(latest));
        }
        Failure::Refused(json!({ "error": error }).to_string())
    }
}

/// A request as the CLI prints it: the wire form plus `deadline`, `null` when there is none,
/// so the `9999-01-01` wire value is never presented as a deadline.
fn request_json(r: &Request) -> Value {
    let mut v = serde_json::to_value(r).unwrap_or(Value::Null);
    if let Some(obj) = v.as_object_mut() {
        let deadline = r
            .expires_at
            .deadline()
            .map_or(Value::Null, |t| Value::String(t.to_string()));
        obj.insert("deadline".into(), deadline);
    }
    v
}

fn line<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| {
        json!({"error": {"code": "internal", "message": e.to_string()}}).to_string()
    })
}

/// Reads `--action JSON`: the bound action at `open`, what is presented at `redeem`.
fn action_json<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, Usage> {
    serde_json::from_str(text).map_err(|e| {
        Usage(format!(
            "`--action` must be JSON {{\"executor\",\"resource_version\",\"arguments\",\"operation_key\"}}: {e}"
        ))
    })
}

fn principal(c: &AskCommand) -> Result<Principal, Failure> {
    Ok(Principal::new(c.need("as")?)?)
}

/// Runs the command and returns the JSON line to print.
pub(crate) fn run(c: &AskCommand) -> Result<String, Failure> {
    let asks = Asks::open_location(&c.db)?;
    match c.op {
        Op::Join | Op::Remove | Op::Revoke => {
            let conversation = ConversationId::new(c.need("conversation")?)?;
            for p in &c.positionals {
                let p = Principal::new(p.as_str())?;
                match c.op {
                    Op::Join => asks.join(&conversation, &p)?,
                    Op::Remove => asks.remove_member(&conversation, &p)?,
                    _ => asks.revoke_contact(&conversation, &p)?,
                }
            }
            let members: Vec<Member> = asks.members(&conversation)?;
            Ok(line(
                &json!({ "conversation": conversation, "members": members }),
            ))
        }
        Op::Open => {
            let me = principal(c)?;
            let conversation = ConversationId::new(c.need("conversation")?)?;
            let kind = match c.flag("kind") {
                None => Kind::Question,
                Some(k) => Kind::parse(k).ok_or_else(|| {
                    Usage(format!("`--kind` is question, approval or task, not `{k}`"))
                })?,
            };
            let mut new = match kind {
                Kind::Question => NewRequest::question(c.need("body")?),
                Kind::Approval => NewRequest::approval(c.need("body")?),
                Kind::Task => NewRequest::task(c.need("body")?),
            };
            if let Some(t) = c.flag("title") {
                new = new.title(t);
            }
            let choices = c.all("choice");
            if !choices.is_empty() {
                new = new.choices(choices);
            }
            let audience = c.all("audience");
            if !audience.is_empty() {
                let list = audience
                    .into_iter()
                    .map(Principal::new)
                    .collect::<Result<Vec<_>, _>>()?;
                new = new.audience(list);
            }
            if let Some(at) = c.expires()? {
                new = new.expires_at(at);
            }
            if let Some(a) = c.flag("action") {
                let action: Action = action_json(a)?;
                new = new.action(action);
            }
            let r = asks
                .as_principal(&me)
                .open(&conversation, new, c.need("key")?)?;
            Ok(line(&request_json(&r)))
        }
        Op::Show => {
            let r = asks.as_principal(&principal(c)?).show(&c.id()?)?;
            Ok(line(&request_json(&r)))
        }
        Op::Respond => {
            let outcome = c.need("outcome")?;
            let outcome = Outcome::parse(outcome).ok_or_else(|| {
                Usage(format!(
                    "`--outcome` is answered, approved, denied, completed, failed or rejected, not `{outcome}`"
                ))
            })?;
            let r = asks.as_principal(&principal(c)?).respond(
                &c.id()?,
                c.version()?,
                outcome,
                c.flag("answer"),
                c.need("key")?,
            )?;
            Ok(line(&request_json(&r)))
        }
        Op::Wait => {
            let secs = match c.flag("timeout") {
                None => 30.0,
                Some(t) => t
                    .parse::<f64>()
                    .ok()
                    .filter(|s| s.is_finite() && *s >= 0.0 && *s <= 86_400.0)
                    .ok_or_else(|| {
                        Usage(format!("`--timeout` is seconds from 0 to 86400, not `{t}`"))
                    })?,
            };
            let r = asks
                .as_principal(&principal(c)?)
                .wait(&c.id()?, Duration::from_secs_f64(secs))?;
            Ok(line(&request_json(&r)))
        }
        Op::Cancel | Op::Supersede => {
            let me = asks.as_principal(&principal(c)?);
            let (id, v, key) = (c.id()?, c.version()?, c.need("key")?);
            let r = if c.op == Op::Cancel {
                me.cancel(&id, v, key)?
            } else {
                me.supersede(&id, v, key)?
            };
            Ok(line(&request_json(&r)))
        }
        Op::Replace => {
            let change = Replacement {
                body: c.flag("body").map(str::to_owned),
                title: c.flag("title").map(str::to_owned),
                expires_at: c.expires()?,
            };
            let Replaced {
                previous,
                replacement,
            } = asks.as_principal(&principal(c)?).replace(
                &c.id()?,
                c.version()?,
                change,
                c.need("key")?,
            )?;
            Ok(line(&json!({
                "previous": request_json(&previous),
                "replacement": request_json(&replacement),
            })))
        }
        Op::Message => {
            let e: AuditEvent = asks.as_principal(&principal(c)?).message(
                &c.id()?,
                c.need("text")?,
                c.need("key")?,
            )?;
            Ok(line(&e))
        }
        Op::Redeem => {
            let presented: Redeem = action_json(c.need("action")?)?;
            let r =
                asks.as_principal(&principal(c)?)
                    .redeem(&c.id()?, &presented, c.need("key")?)?;
            Ok(line(&request_json(&r)))
        }
        Op::Report => {
            let status = c.need("status")?;
            let status = ExecutionStatus::parse(status).ok_or_else(|| {
                Usage(format!(
                    "`--status` is succeeded, failed or unknown, not `{status}`"
                ))
            })?;
            let r = asks.as_principal(&principal(c)?).report_execution(
                &c.id()?,
                c.need("operation-key")?,
                status,
                c.flag("detail"),
                c.need("key")?,
            )?;
            Ok(line(&request_json(&r)))
        }
        Op::Log => {
            let events = asks.as_principal(&principal(c)?).log(&c.id()?)?;
            Ok(line(&json!({ "events": events })))
        }
    }
}
