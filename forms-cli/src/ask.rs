//! `forms ask …`: durable requested replies from a shell, one line of JSON per command.
//!
//! Each operation's flags, their limits and its `--help` come from the description the MCP
//! tools share ([`forms_ask::ops`]); the printed request and refusal are
//! [`forms_ask::wire`]'s.

use crate::Usage;
use forms_ask::ops::{self, ArgKind, Cli, Op};
use forms_ask::{
    wire, Action, AskError, Asks, AuditEvent, ConversationId, ExecutionStatus, Kind, Member,
    NewRequest, Outcome, Principal, Redeem, Replacement, RequestId, Timestamp, LIST_DEFAULT,
    WAIT_SECONDS_DEFAULT, WAIT_SECONDS_MAX,
};
use serde::Serialize;
use serde_json::json;
use std::ffi::OsString;
use std::process::ExitCode;
use std::time::Duration;

/// A parsed `forms ask` command line: the operation and its values, keyed by the tool
/// argument's name (`expires_at` for `--expires`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AskCommand {
    op: &'static Op,
    db: String,
    acting: Option<String>,
    flags: Vec<(&'static str, String)>,
    positionals: Vec<String>,
}

fn is_help(arg: &str) -> bool {
    arg == "--help" || arg == "-h"
}

/// The list of operations, for `forms ask --help`.
fn overview() -> String {
    let mut out = String::from(
        "usage: forms ask OPERATION --db PATH|URL ...   (forms ask OPERATION --help for one)\n\n",
    );
    for op in ops::OPS {
        let first = op.summary.split(". ").next().unwrap_or(op.summary);
        let first = first.trim_end_matches('.');
        out.push_str(&format!("  {:<10} {first}.\n", op.name));
    }
    out
}

/// `forms ask …`: parses, runs and prints; `--help` explains one operation.
pub(crate) fn main(args: Vec<OsString>) -> ExitCode {
    let op_name = args.first().map(|a| a.to_string_lossy().into_owned());
    let op = match op_name.as_deref() {
        None => {
            eprint!("forms ask: an operation is needed\n\n{}", overview());
            return ExitCode::from(2);
        }
        Some(a) if is_help(a) || a == "help" => {
            print!("{}", overview());
            return ExitCode::SUCCESS;
        }
        Some(op @ ("fill" | "page")) => {
            return crate::ask_form::main(op, args.into_iter().skip(1).collect())
        }
        Some(name) => match ops::find(name).filter(|_| !name.starts_with("ask_")) {
            Some(op) => op,
            None => {
                eprint!(
                    "forms ask: unknown operation `{}`\n\n{}",
                    crate::fill::visible(name),
                    overview()
                );
                return ExitCode::from(2);
            }
        },
    };
    let rest: Vec<OsString> = args.into_iter().skip(1).collect();
    if rest.iter().any(|a| a.to_str().is_some_and(is_help)) {
        print!("{}", op.help());
        return ExitCode::SUCCESS;
    }
    let usage = |Usage(message): Usage| {
        eprint!(
            "forms ask {}: {}\n\n{}",
            op.name,
            crate::fill::visible(&message),
            op.help()
        );
        ExitCode::from(2)
    };
    let command = match parse(op, rest) {
        Ok(c) => c,
        Err(u) => return usage(u),
    };
    let (line, code) = match run(&command) {
        Ok(line) => (line, ExitCode::SUCCESS),
        Err(Failure::Refused(line)) => (line, ExitCode::from(1)),
        Err(Failure::Usage(u)) => return usage(u),
    };
    match crate::print_line(&line) {
        Ok(()) => code,
        Err(_) => ExitCode::from(2),
    }
}

/// Parses the arguments after `ask OPERATION`.
fn parse(op: &'static Op, args: Vec<OsString>) -> Result<AskCommand, Usage> {
    let mut args = args.into_iter();
    let mut db = None;
    let mut acting = None;
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
        if name == "db" || name == "as" {
            let slot = if name == "db" { &mut db } else { &mut acting };
            if slot.is_some() {
                return Err(Usage(format!("`--{name}` given twice")));
            }
            *slot = Some(value()?);
            continue;
        }
        let Some(known) = op.args.iter().find(|a| a.flag() == Some(name.as_str())) else {
            return Err(Usage(format!(
                "unknown option `--{name}` for `ask {}`",
                op.name
            )));
        };
        let repeats = matches!(known.cli, Cli::Repeated(_));
        if !repeats && flags.iter().any(|(n, _)| *n == known.name) {
            return Err(Usage(format!("`--{name}` given twice")));
        }
        flags.push((known.name, value()?));
    }
    let db = db.ok_or_else(|| Usage(format!("`ask {}` needs `--db PATH|URL`", op.name)))?;
    if acting.is_none() && !op.operator {
        return Err(Usage(format!("`ask {}` needs `--as NAME`", op.name)));
    }
    let positional = op.args.iter().find(|a| a.cli == Cli::Positional);
    match positional.map(|a| a.kind) {
        None if !positionals.is_empty() => {
            return Err(Usage(format!(
                "`ask {}` takes no positional argument",
                op.name
            )))
        }
        Some(ArgKind::Ids(max)) if positionals.is_empty() || positionals.len() > max => {
            return Err(Usage(format!(
                "`ask {}` takes one to {max} principals",
                op.name
            )))
        }
        Some(ArgKind::Id) if positionals.len() != 1 => {
            return Err(Usage(format!("`ask {}` takes one request ID", op.name)))
        }
        _ => {}
    }
    for a in op.args.iter().filter(|a| a.required) {
        if let Some(flag) = a.flag() {
            if !flags.iter().any(|(n, _)| *n == a.name) {
                return Err(Usage(format!("`ask {}` needs `--{flag}`", op.name)));
            }
        }
    }
    Ok(AskCommand {
        op,
        db,
        acting,
        flags,
        positionals,
    })
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

    /// The flag of tool argument `name`, for messages.
    fn flag_of(&self, name: &str) -> String {
        let flag = self
            .op
            .args
            .iter()
            .find(|a| a.name == name)
            .and_then(|a| a.flag())
            .unwrap_or(name);
        format!("--{flag}")
    }

    fn need(&self, name: &str) -> Result<&str, Usage> {
        self.flag(name)
            .ok_or_else(|| Usage(format!("missing `{}`", self.flag_of(name))))
    }

    fn id(&self) -> Result<RequestId, Failure> {
        let raw = self.positionals.first().map(String::as_str).unwrap_or("");
        Ok(RequestId::new(raw)?)
    }

    fn version(&self) -> Result<u64, Usage> {
        let v = self.need("version")?;
        v.parse().ok().filter(|v| *v >= 1).ok_or_else(|| {
            Usage(format!(
                "`--version` must be a whole number from 1, not `{v}`"
            ))
        })
    }

    fn expires(&self, now: Timestamp) -> Result<Option<Timestamp>, Usage> {
        self.flag("expires_at")
            .map(|s| {
                wire::expiry(s, now).ok_or_else(|| {
                    Usage(format!(
                        "`--expires` is a time such as 2026-12-31T12:00:00Z or \
                         2026-12-31T14:00:00+02:00, or a duration from now such as 7d, 36h \
                         or 90m, not `{s}`"
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
        Failure::Refused(wire::error(&e).to_string())
    }
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
    let name = c
        .acting
        .as_deref()
        .ok_or_else(|| Usage("missing `--as`".into()))?;
    Ok(Principal::new(name)?)
}

/// The members and the membership log of a conversation, as `--as` (a current member) or
/// the operator reads them.
fn members_line(
    asks: &Asks,
    acting: Option<&Principal>,
    conversation: &ConversationId,
) -> Result<String, Failure> {
    let (members, events): (Vec<Member>, _) = match acting {
        Some(me) => {
            let me = asks.as_principal(me);
            (me.members(conversation)?, me.member_log(conversation)?)
        }
        None => (asks.members(conversation)?, asks.member_log(conversation)?),
    };
    Ok(line(&json!({
        "conversation": conversation,
        "members": members,
        "events": events,
    })))
}

/// Runs the command and returns the JSON line to print.
pub(crate) fn run(c: &AskCommand) -> Result<String, Failure> {
    let asks = Asks::open_location(&c.db)?;
    match c.op.name {
        "join" | "remove" | "revoke" | "restore" => {
            let conversation = ConversationId::new(c.need("conversation")?)?;
            let acting = c.acting.as_deref().map(Principal::new).transpose()?;
            let manager = match c.flag("role") {
                None | Some("member") => false,
                Some("manager") if acting.is_none() => true,
                Some("manager") => {
                    return Err(Usage(
                        "`--role manager` is the operator's: leave out `--as`".into(),
                    )
                    .into())
                }
                Some(r) => {
                    return Err(Usage(format!("`--role` is member or manager, not `{r}`")).into())
                }
            };
            for p in &c.positionals {
                let p = Principal::new(p.as_str())?;
                match (&acting, c.op.name) {
                    (None, "join") if manager => asks.join_as_manager(&conversation, &p)?,
                    (None, "join") => asks.join(&conversation, &p)?,
                    (None, "remove") => asks.remove_member(&conversation, &p)?,
                    (None, "revoke") => asks.revoke_contact(&conversation, &p)?,
                    (None, _) => asks.restore_contact(&conversation, &p)?,
                    (Some(me), name) => {
                        let me = asks.as_principal(me);
                        match name {
                            "join" => me.join(&conversation, &p)?,
                            "remove" => me.remove_member(&conversation, &p)?,
                            "revoke" => me.revoke_contact(&conversation, &p)?,
                            _ => me.restore_contact(&conversation, &p)?,
                        }
                    }
                }
            }
            let members: Vec<Member> = asks.members(&conversation)?;
            Ok(line(
                &json!({ "conversation": conversation, "members": members }),
            ))
        }
        "members" => {
            let conversation = ConversationId::new(c.need("conversation")?)?;
            let acting = c.acting.as_deref().map(Principal::new).transpose()?;
            members_line(&asks, acting.as_ref(), &conversation)
        }
        "list" => {
            let conversation = ConversationId::new(c.need("conversation")?)?;
            let limit = match c.flag("limit") {
                None => LIST_DEFAULT,
                Some(n) => n
                    .parse::<usize>()
                    .ok()
                    .filter(|n| (1..=forms_ask::LIST_MAX).contains(n))
                    .ok_or_else(|| {
                        Usage(format!(
                            "`--limit` is a whole number from 1 to {}, not `{n}`",
                            forms_ask::LIST_MAX
                        ))
                    })?,
            };
            let list = asks
                .as_principal(&principal(c)?)
                .list(&conversation, limit)?;
            Ok(line(&wire::requests(&list)))
        }
        "open" => {
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
            let choices = c.all("choices");
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
            if let Some(at) = c.expires(asks.now())? {
                new = new.expires_at(at);
            }
            if let Some(a) = c.flag("action") {
                let action: Action = action_json(a)?;
                new = new.action(action);
            }
            if let Some(form) = c.flag("form") {
                new.form = Some(serde_json::from_str(form).map_err(|e| {
                    Usage(format!(
                        "`--form` must be JSON {{\"message\",\"questions\"}}: {e}"
                    ))
                })?);
            }
            let r = asks
                .as_principal(&me)
                .open(&conversation, new, c.need("key")?)?;
            Ok(line(&wire::request(&r)))
        }
        "show" => {
            let r = asks.as_principal(&principal(c)?).show(&c.id()?)?;
            Ok(line(&wire::request(&r)))
        }
        "respond" => {
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
            Ok(line(&wire::request(&r)))
        }
        "wait" => {
            let secs = match c.flag("timeout_seconds") {
                None => WAIT_SECONDS_DEFAULT as f64,
                Some(t) => t
                    .parse::<f64>()
                    .ok()
                    .filter(|s| s.is_finite() && *s >= 0.0 && *s <= WAIT_SECONDS_MAX as f64)
                    .ok_or_else(|| {
                        Usage(format!(
                            "`--timeout` is seconds from 0 to {WAIT_SECONDS_MAX} (a longer wait is \
                             a loop of waits), not `{t}`"
                        ))
                    })?,
            };
            let r = asks
                .as_principal(&principal(c)?)
                .wait(&c.id()?, Duration::from_secs_f64(secs))?;
            Ok(line(&wire::request(&r)))
        }
        "cancel" | "supersede" => {
            let me = asks.as_principal(&principal(c)?);
            let (id, v, key) = (c.id()?, c.version()?, c.need("key")?);
            let r = if c.op.name == "cancel" {
                me.cancel(&id, v, key)?
            } else {
                me.supersede(&id, v, key)?
            };
            Ok(line(&wire::request(&r)))
        }
        "replace" => {
            let change = Replacement {
                body: c.flag("body").map(str::to_owned),
                title: c.flag("title").map(str::to_owned),
                expires_at: c.expires(asks.now())?,
            };
            let replaced = asks.as_principal(&principal(c)?).replace(
                &c.id()?,
                c.version()?,
                change,
                c.need("key")?,
            )?;
            Ok(line(&wire::replaced(&replaced)))
        }
        "message" => {
            let e: AuditEvent = asks.as_principal(&principal(c)?).message(
                &c.id()?,
                c.need("text")?,
                c.need("key")?,
            )?;
            Ok(line(&e))
        }
        "redeem" => {
            let presented: Redeem = action_json(c.need("action")?)?;
            let r =
                asks.as_principal(&principal(c)?)
                    .redeem(&c.id()?, &presented, c.need("key")?)?;
            Ok(line(&wire::request(&r)))
        }
        "report" => {
            let status = c.need("status")?;
            let status = ExecutionStatus::parse(status).ok_or_else(|| {
                Usage(format!(
                    "`--status` is succeeded, failed or unknown, not `{status}`"
                ))
            })?;
            let r = asks.as_principal(&principal(c)?).report_execution(
                &c.id()?,
                c.need("operation_key")?,
                status,
                c.flag("detail"),
                c.need("key")?,
            )?;
            Ok(line(&wire::request(&r)))
        }
        "log" => {
            let events = asks.as_principal(&principal(c)?).log(&c.id()?)?;
            Ok(line(&json!({ "events": events })))
        }
        other => Err(Usage(format!("`ask {other}` is not a command")).into()),
    }
}
