//! `forms ask …`: durable requested replies from a shell, one line of JSON per command.
//!
//! Each operation's flags, their limits and its `--help` come from the description the MCP
//! tools share ([`forms_ask::ops`]); the printed request and refusal are
//! [`forms_ask::wire`]'s.

use crate::cli::usage_error;
use crate::io::{print_line, Usage};
use clap::builder::{PossibleValuesParser, StringValueParser, ValueParser};
use clap::error::ErrorKind;
use clap::{ArgAction, ArgMatches, FromArgMatches};
use forms_ask::ops::{self, ArgKind, Cli, Op};
use forms_ask::{
    wire, Action, AskError, Asks, AuditEvent, ConversationId, ExecutionStatus, Kind, Member,
    NewRequest, Outcome, Principal, Quotas, Redeem, Replacement, RequestId, Timestamp,
    LIST_DEFAULT, WAIT_SECONDS_DEFAULT, WAIT_SECONDS_MAX,
};
use forms_runtime::rules::visible::visible;
use serde::Serialize;
use serde_json::{json, Value};
use std::process::ExitCode;
use std::time::Duration;

/// A parsed `forms ask` command line: the operation and its values, keyed by the tool
/// argument's name (`expires_at` for `--expires`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpArgs {
    op: &'static Op,
    db: String,
    acting: Option<String>,
    flags: Vec<(&'static str, String)>,
    positionals: Vec<String>,
}

/// The placeholder of an argument's value in the usage (`--expires TIME|DURATION`).
fn value_name(a: &ops::Arg) -> String {
    match (a.kind, a.cli) {
        (ArgKind::Ids(_), Cli::Positional) => "PRINCIPAL".into(),
        (ArgKind::Ids(_), _) => "NAME".into(),
        (ArgKind::Version | ArgKind::Count(..), _) => "N".into(),
        (ArgKind::Seconds(..), _) => "SECONDS".into(),
        (ArgKind::Action, _) => "JSON".into(),
        (ArgKind::DateTime, _) => "TIME|DURATION".into(),
        (ArgKind::Uploads, _) => "PATH".into(),
        _ if a.name == "id" => "ID".into(),
        _ => a.name.to_uppercase().replace('_', "-"),
    }
}

/// The parser of an argument's value: the checks that need nothing but the text, so that a
/// bad value is refused with the operation's usage before anything is opened.
fn value_parser(kind: ArgKind) -> ValueParser {
    match kind {
        ArgKind::OneOf(words) => PossibleValuesParser::new(words.iter().copied()).into(),
        ArgKind::Version => ValueParser::new(|v: &str| match v.parse::<u64>() {
            Ok(n) if n >= 1 => Ok(v.to_owned()),
            _ => Err("a version is a whole number from 1".to_owned()),
        }),
        ArgKind::Count(max, _) => ValueParser::new(move |v: &str| match v.parse::<usize>() {
            Ok(n) if (1..=max).contains(&n) => Ok(v.to_owned()),
            _ => Err(format!("a whole number from 1 to {max}")),
        }),
        ArgKind::Seconds(max, _) => ValueParser::new(move |v: &str| match v.parse::<f64>() {
            Ok(s) if s.is_finite() && (0.0..=max as f64).contains(&s) => Ok(v.to_owned()),
            _ => Err(format!(
                "seconds from 0 to {max} (a longer wait is a loop of waits)"
            )),
        }),
        _ => StringValueParser::new().into(),
    }
}

/// `forms ask OPERATION`: the operation's flags, limits and help, from its description.
fn op_command(op: &'static Op) -> clap::Command {
    let first = op.summary.split(". ").next().unwrap_or(op.summary);
    let mut cmd = clap::Command::new(op.name)
        .about(format!("{}.", first.trim_end_matches('.')))
        .long_about(op.summary)
        .arg(
            clap::Arg::new("db")
                .long("db")
                .value_name("PATH|URL")
                .required(true)
                .help("a SQLite file, or a postgres:// URL"),
        )
        .arg(
            clap::Arg::new("as")
                .long("as")
                .value_name("NAME")
                .required(!op.operator)
                .help(if op.operator {
                    "act as this principal (checked as a manager); without it, as the operator"
                } else {
                    "the principal acting"
                }),
        );
    for a in op.args {
        let repeat = if matches!(a.cli, Cli::Repeated(_)) {
            ", repeated for each"
        } else {
            ""
        };
        let tool = if op.tool && a.name != "role" {
            format!("; tool argument `{}`", a.name)
        } else {
            String::new()
        };
        let help = format!(
            "{}{} ({}{repeat}{tool})",
            a.help,
            if a.required { "" } else { ", optional" },
            a.takes(),
        );
        let arg = clap::Arg::new(a.name)
            .value_name(value_name(a))
            .required(a.required)
            .help(help)
            .value_parser(value_parser(a.kind))
            .hide_possible_values(true);
        let arg = match a.cli {
            Cli::Flag(flag) => arg
                .long(flag)
                .action(ArgAction::Set)
                .allow_hyphen_values(true),
            Cli::Repeated(flag) => arg
                .long(flag)
                .action(ArgAction::Append)
                .allow_hyphen_values(true),
            Cli::Positional => match a.kind {
                ArgKind::Ids(max) => arg.num_args(1..=max).action(ArgAction::Append),
                _ => arg.action(ArgAction::Set),
            },
            Cli::None => continue,
        };
        cmd = cmd.arg(arg);
    }
    if op.tool {
        cmd = cmd.after_help(format!("As an MCP tool: {}.", op.tool()));
    }
    cmd
}

/// A parsed `forms ask` command line: an operation of [`forms_ask::ops`], or answering a
/// form request as a person (`fill`, `page`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AskArgs {
    /// An operation shared with the MCP tools.
    Op(OpArgs),
    /// `forms ask fill|page`.
    Form(crate::ask_form::Args),
}

impl clap::Args for AskArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        cmd.subcommand_required(true)
            .arg_required_else_help(true)
            .subcommand_value_name("OPERATION")
            .subcommands(ops::OPS.iter().map(op_command))
            .subcommand(crate::ask_form::command(false))
            .subcommand(crate::ask_form::command(true))
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

/// The values of argument `id`, as text (every operation argument is parsed to text).
fn values(m: &ArgMatches, id: &str) -> Result<Vec<String>, clap::Error> {
    match m.try_get_many::<String>(id) {
        Ok(values) => Ok(values.into_iter().flatten().cloned().collect()),
        Err(e) => Err(clap::Error::raw(ErrorKind::ArgumentConflict, e.to_string())),
    }
}

impl FromArgMatches for AskArgs {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let Some((name, m)) = matches.subcommand() else {
            return Err(clap::Error::new(ErrorKind::MissingSubcommand));
        };
        if name == "fill" || name == "page" {
            return crate::ask_form::Args::from_matches(name, m).map(AskArgs::Form);
        }
        let Some(op) = ops::OPS.iter().find(|op| op.name == name) else {
            return Err(clap::Error::new(ErrorKind::InvalidSubcommand));
        };
        let db = values(m, "db")?
            .into_iter()
            .next()
            .ok_or_else(|| clap::Error::new(ErrorKind::MissingRequiredArgument))?;
        let acting = values(m, "as")?.into_iter().next();
        let mut flags = Vec::new();
        let mut positionals = Vec::new();
        for a in op.args {
            match a.cli {
                Cli::Flag(_) | Cli::Repeated(_) => {
                    flags.extend(values(m, a.name)?.into_iter().map(|v| (a.name, v)))
                }
                Cli::Positional => positionals.extend(values(m, a.name)?),
                Cli::None => {}
            }
        }
        Ok(AskArgs::Op(OpArgs {
            op,
            db,
            acting,
            flags,
            positionals,
        }))
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

/// `forms ask …`: runs the parsed operation and prints its line; a usage error found here
/// (a value only the store's clock or the operation can judge) prints the operation's usage.
pub fn main(command: AskArgs) -> ExitCode {
    let command = match command {
        AskArgs::Op(c) => c,
        AskArgs::Form(args) => return crate::ask_form::main(args),
    };
    let (line, code) = match run(&command) {
        Ok(line) => (line, ExitCode::SUCCESS),
        Err(Failure::Refused(line)) => (line, ExitCode::from(1)),
        Err(Failure::Usage(Usage(message))) => {
            return usage_error(&["ask", command.op.name], &visible(&message))
        }
    };
    match print_line(&line) {
        Ok(()) => code,
        Err(_) => ExitCode::from(2),
    }
}

impl OpArgs {
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

    /// A count flag's value (its parser already checked its range), or `default`.
    fn count(&self, name: &str, default: usize) -> usize {
        self.flag(name)
            .and_then(|n| n.parse().ok())
            .unwrap_or(default)
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
    /// A refusal or a store failure (exit 1), as the JSON to print.
    Refused(Value),
}

impl From<Usage> for Failure {
    fn from(u: Usage) -> Self {
        Failure::Usage(u)
    }
}

impl From<AskError> for Failure {
    fn from(e: AskError) -> Self {
        Failure::Refused(wire::error(&e))
    }
}

/// `value` as the JSON to print (through [`print_line`], as every line is).
fn line<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value)
        .unwrap_or_else(|e| json!({"error": {"code": "internal", "message": e.to_string()}}))
}

/// Reads `--action JSON`: the bound action at `open`, what is presented at `redeem`.
fn action_json<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, Usage> {
    serde_json::from_str(text).map_err(|e| {
        Usage(format!(
            "`--action` must be JSON {{\"executor\",\"resource_version\",\"arguments\",\"operation_key\"}}: {e}"
        ))
    })
}

fn principal(c: &OpArgs) -> Result<Principal, Failure> {
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
) -> Result<Value, Failure> {
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

/// Runs the command and returns the JSON to print.
pub(crate) fn run(c: &OpArgs) -> Result<Value, Failure> {
    let asks = Asks::open_location(&c.db)?.with_quotas(Quotas::from_env().map_err(Usage)?);
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
            let limit = c.count("limit", LIST_DEFAULT);
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
            // Files sent with a form's answer: each local file's bytes, named in the answer
            // as `upload:<file name>` (a path in the answer is refused).
            let uploads = c
                .all("uploads")
                .into_iter()
                .map(|p| forms_ask::Upload::read(std::path::Path::new(p)))
                .collect::<Result<Vec<_>, _>>()?;
            let r = asks.as_principal(&principal(c)?).respond_with_uploads(
                &c.id()?,
                c.version()?,
                outcome,
                c.flag("answer"),
                &uploads,
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
            let limit = c.count("limit", forms_ask::LOG_DEFAULT);
            let page = asks
                .as_principal(&principal(c)?)
                .log(&c.id()?, c.flag("after"), limit)?;
            Ok(line(&wire::log(&page)))
        }
        other => Err(Usage(format!("`ask {other}` is not a command")).into()),
    }
}
