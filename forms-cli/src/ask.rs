//! `forms ask …`: durable requested replies from a shell, one line of JSON per command.
//!
//! Each operation is a clap-derived command ([`Op`]) that converts into the operation's
//! argument type of [`forms_ask::args`], the same type the `ask_*` MCP tools take: a field
//! added there does not compile until a flag carries it here. Each flag's help and the
//! operation's summary are read from that type's schema (its rustdoc and limits); the
//! printed request and refusal are [`forms_ask::wire`]'s.
//!
//! Names: a flag is its tool argument in `kebab-case`, except `--expires` (`expires_at`),
//! `--timeout` (`timeout_seconds`), `--choice` and `--upload` (`choices`, `uploads`, one
//! flag per item); the request ID and a membership change's principals are positional. The
//! acting principal is `--as`, never a tool argument.
//!
//! The flags that take JSON (`--form`, `--action`, `--answer`, whose text may be JSON) take
//! it inline, as `@PATH` or as `-` (standard input, for one flag per command), at most 1 MiB:
//! [`crate::json_arg`], as `forms host` takes its own. They are read before the store is
//! opened, so an unreadable file is a usage error that leaves no store behind.

use crate::cli::usage_error;
use crate::io::{print_line, Usage};
use crate::json_arg::{self, JsonArg, Reader};
use clap::error::ErrorKind;
use clap::{ArgAction, ArgMatches, FromArgMatches, Subcommand};
use forms_ask::args::{
    self, ActionArg, Actor, Answer, CancelArgs, JoinArgs, ListArgs, LogArgs, MembersArgs,
    MessageArgs, OpenArgs, Operation, RedeemArgs, Refused, RemoveArgs, ReplaceArgs, ReportArgs,
    RespondArgs, RestoreArgs, RevokeArgs, ShowArgs, SupersedeArgs, UploadArg, WaitArgs,
};
use forms_ask::schemars::JsonSchema;
use forms_ask::{wire, Action, AskError, Asks, ExecutionStatus, Kind, Outcome, Principal};
use forms_ask::{Quotas, Timestamp};
use forms_runtime::rules::visible::visible;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::path::PathBuf;
use std::process::ExitCode;

/// The value at `pointer` in `v` (`null` if none).
fn at<'a>(v: &'a Value, pointer: &str) -> &'a Value {
    v.pointer(pointer).unwrap_or(&Value::Null)
}

/// The help of tool argument `field` of `T`: its description, whether it is optional, what
/// it takes (from its schema's limits) and its name as a tool argument.
fn help<T: JsonSchema>(field: &str) -> String {
    let schema = args::schema::<T>();
    let p = schema
        .get("properties")
        .and_then(|ps| ps.get(field))
        .unwrap_or(&Value::Null);
    let required = at(&schema, "/required")
        .as_array()
        .is_some_and(|r| r.iter().any(|n| n == field));
    format!(
        "{}{} ({}; tool argument `{field}`)",
        at(p, "/description").as_str().unwrap_or_default(),
        if required { "" } else { ", optional" },
        takes(p),
    )
}

/// What a schema takes, in words, with its limits.
fn takes(p: &Value) -> String {
    let n = |v: &Value| v.as_u64().map(|n| n.to_string()).unwrap_or_default();
    let keys = |v: &Value| {
        let names: Vec<String> = at(v, "/properties")
            .as_object()
            .map(|o| o.keys().map(|k| format!("{k:?}")).collect())
            .unwrap_or_default();
        format!("JSON {{{}}}", names.join(","))
    };
    if at(p, "/format") == "date-time" {
        return "a time such as 2026-12-31T12:00:00Z or ...+02:00".into();
    }
    if let Some(words) = at(p, "/enum").as_array() {
        let words: Vec<&str> = words.iter().filter_map(Value::as_str).collect();
        return words.join(" | ");
    }
    if let Some(any) = at(p, "/anyOf").as_array() {
        let text = any
            .first()
            .map(|t| n(at(t, "/maxLength")))
            .unwrap_or_default();
        let object = any.get(1).map(keys).unwrap_or_default();
        return format!("text, at most {text} characters; for a form, {object}");
    }
    // A range from `least` to the schema's maximum, with its default.
    let up_to = |least: &str| {
        format!(
            "{least} to {}, default {}",
            n(at(p, "/maximum")),
            n(at(p, "/default"))
        )
    };
    match at(p, "/type").as_str() {
        Some("string") => format!("text, at most {} characters", n(at(p, "/maxLength"))),
        Some("integer") if at(p, "/maximum").is_null() => "a whole number from 1".into(),
        Some("integer") => up_to("1"),
        Some("number") => format!("seconds, {}", up_to("0")),
        Some("array") if at(p, "/items/type") == "object" => format!(
            "a local file's path (the tool: {} with the bytes in base64), repeated for each; \
             at most {} files",
            keys(at(p, "/items")),
            n(at(p, "/maxItems"))
        ),
        Some("array") => format!(
            "at most {}, each at most {} characters, repeated for each",
            n(at(p, "/maxItems")),
            n(at(p, "/items/maxLength"))
        ),
        Some("object") => keys(p),
        _ => String::new(),
    }
}

/// The first sentence of an operation's summary.
fn about<T: JsonSchema>() -> String {
    let summary = args::summary::<T>();
    let first = summary.split(". ").next().unwrap_or(&summary);
    format!("{}.", first.trim_end_matches('.'))
}

/// A word a type of [`forms_ask`] reads (`question`, `approved`, `succeeded`).
fn word<T: DeserializeOwned>(s: &str) -> Result<T, String> {
    serde_json::from_value(Value::String(s.to_owned())).map_err(|e| e.to_string())
}

/// `--db` and `--as` of an operation a principal runs.
#[derive(clap::Args, Debug, Clone, PartialEq, Eq)]
pub struct Acting {
    /// a SQLite file, or a postgres:// URL
    #[arg(long, value_name = "PATH|URL")]
    db: String,
    /// the principal acting
    #[arg(long = "as", value_name = "NAME")]
    acting: String,
}

/// `--db` and `--as` of a membership operation, which the operator may run.
#[derive(clap::Args, Debug, Clone, PartialEq, Eq)]
pub struct Operator {
    /// a SQLite file, or a postgres:// URL
    #[arg(long, value_name = "PATH|URL")]
    db: String,
    /// act as this principal (checked as a manager); without it, as the operator
    #[arg(long = "as", value_name = "NAME")]
    acting: Option<String>,
}

/// `forms ask open`.
#[derive(clap::Args, Debug, Clone, PartialEq)]
pub struct Open {
    #[command(flatten)]
    who: Acting,
    #[arg(long, allow_hyphen_values = true, help = help::<OpenArgs>("conversation"))]
    conversation: String,
    #[arg(long, allow_hyphen_values = true, value_parser = word::<Kind>, help = help::<OpenArgs>("kind"))]
    kind: Option<Kind>,
    #[arg(long, allow_hyphen_values = true, help = help::<OpenArgs>("body"))]
    body: String,
    #[arg(long, allow_hyphen_values = true, help = help::<OpenArgs>("title"))]
    title: Option<String>,
    #[arg(long = "choice", allow_hyphen_values = true, action = ArgAction::Append, help = help::<OpenArgs>("choices"))]
    choices: Vec<String>,
    #[arg(long, value_name = "NAME", allow_hyphen_values = true, action = ArgAction::Append, help = help::<OpenArgs>("audience"))]
    audience: Vec<String>,
    #[arg(long = "expires", value_name = "TIME|DURATION", allow_hyphen_values = true, help = help::<OpenArgs>("expires_at"))]
    expires_at: Option<String>,
    #[arg(long, value_name = json_arg::value_name("JSON"), value_parser = JsonArg::parser(), allow_hyphen_values = true, help = json_arg::help(&help::<OpenArgs>("action")))]
    action: Option<JsonArg>,
    #[arg(long, value_name = json_arg::value_name("JSON"), value_parser = JsonArg::parser(), allow_hyphen_values = true, help = json_arg::help(&help::<OpenArgs>("form")))]
    form: Option<JsonArg>,
    #[arg(long, allow_hyphen_values = true, help = help::<OpenArgs>("key"))]
    key: String,
}

/// `forms ask show`.
#[derive(clap::Args, Debug, Clone, PartialEq, Eq)]
pub struct Show {
    #[command(flatten)]
    who: Acting,
    #[arg(value_name = "ID", help = help::<ShowArgs>("id"))]
    id: String,
}

/// `forms ask respond`.
#[derive(clap::Args, Debug, Clone, PartialEq, Eq)]
pub struct Respond {
    #[command(flatten)]
    who: Acting,
    #[arg(value_name = "ID", help = help::<RespondArgs>("id"))]
    id: String,
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..), help = help::<RespondArgs>("version"))]
    version: u64,
    #[arg(long, allow_hyphen_values = true, value_parser = word::<Outcome>, help = help::<RespondArgs>("outcome"))]
    outcome: Outcome,
    #[arg(long, value_name = json_arg::value_name("TEXT|JSON"), value_parser = JsonArg::parser(), allow_hyphen_values = true, help = json_arg::help(&format!("{}; an answer that is - or starts with @ is given as @PATH or -", help::<RespondArgs>("answer"))))]
    answer: Option<JsonArg>,
    #[arg(long = "upload", value_name = "PATH", allow_hyphen_values = true, action = ArgAction::Append, help = help::<RespondArgs>("uploads"))]
    uploads: Vec<PathBuf>,
    #[arg(long, allow_hyphen_values = true, help = help::<RespondArgs>("key"))]
    key: String,
}

/// `forms ask wait`.
#[derive(clap::Args, Debug, Clone, PartialEq)]
pub struct Wait {
    #[command(flatten)]
    who: Acting,
    #[arg(value_name = "ID", help = help::<WaitArgs>("id"))]
    id: String,
    #[arg(long = "timeout", value_name = "SECONDS", allow_hyphen_values = true, help = help::<WaitArgs>("timeout_seconds"))]
    timeout_seconds: Option<f64>,
}

/// `forms ask cancel`.
#[derive(clap::Args, Debug, Clone, PartialEq, Eq)]
pub struct Cancel {
    #[command(flatten)]
    who: Acting,
    #[arg(value_name = "ID", help = help::<CancelArgs>("id"))]
    id: String,
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..), help = help::<CancelArgs>("version"))]
    version: u64,
    #[arg(long, allow_hyphen_values = true, help = help::<CancelArgs>("key"))]
    key: String,
}

/// `forms ask replace`.
#[derive(clap::Args, Debug, Clone, PartialEq, Eq)]
pub struct Replace {
    #[command(flatten)]
    who: Acting,
    #[arg(value_name = "ID", help = help::<ReplaceArgs>("id"))]
    id: String,
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..), help = help::<ReplaceArgs>("version"))]
    version: u64,
    #[arg(long, allow_hyphen_values = true, help = help::<ReplaceArgs>("body"))]
    body: Option<String>,
    #[arg(long, allow_hyphen_values = true, help = help::<ReplaceArgs>("title"))]
    title: Option<String>,
    #[arg(long = "expires", value_name = "TIME|DURATION", allow_hyphen_values = true, help = help::<ReplaceArgs>("expires_at"))]
    expires_at: Option<String>,
    #[arg(long, allow_hyphen_values = true, help = help::<ReplaceArgs>("key"))]
    key: String,
}

/// `forms ask supersede`.
#[derive(clap::Args, Debug, Clone, PartialEq, Eq)]
pub struct Supersede {
    #[command(flatten)]
    who: Acting,
    #[arg(value_name = "ID", help = help::<SupersedeArgs>("id"))]
    id: String,
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..), help = help::<SupersedeArgs>("version"))]
    version: u64,
    #[arg(long, allow_hyphen_values = true, help = help::<SupersedeArgs>("key"))]
    key: String,
}

/// `forms ask log`.
#[derive(clap::Args, Debug, Clone, PartialEq, Eq)]
pub struct Log {
    #[command(flatten)]
    who: Acting,
    #[arg(value_name = "ID", help = help::<LogArgs>("id"))]
    id: String,
    #[arg(long, allow_hyphen_values = true, help = help::<LogArgs>("after"))]
    after: Option<String>,
    #[arg(long, value_name = "N", allow_hyphen_values = true, help = help::<LogArgs>("limit"))]
    limit: Option<usize>,
}

/// `forms ask message`.
#[derive(clap::Args, Debug, Clone, PartialEq, Eq)]
pub struct Message {
    #[command(flatten)]
    who: Acting,
    #[arg(value_name = "ID", help = help::<MessageArgs>("id"))]
    id: String,
    #[arg(long, allow_hyphen_values = true, help = help::<MessageArgs>("text"))]
    text: String,
    #[arg(long, allow_hyphen_values = true, help = help::<MessageArgs>("key"))]
    key: String,
}

/// `forms ask redeem`.
#[derive(clap::Args, Debug, Clone, PartialEq, Eq)]
pub struct Redeem {
    #[command(flatten)]
    who: Acting,
    #[arg(value_name = "ID", help = help::<RedeemArgs>("id"))]
    id: String,
    #[arg(long, value_name = json_arg::value_name("JSON"), value_parser = JsonArg::parser(), allow_hyphen_values = true, help = json_arg::help(&help::<RedeemArgs>("action")))]
    action: JsonArg,
    #[arg(long, allow_hyphen_values = true, help = help::<RedeemArgs>("key"))]
    key: String,
}

/// `forms ask report`.
#[derive(clap::Args, Debug, Clone, PartialEq, Eq)]
pub struct Report {
    #[command(flatten)]
    who: Acting,
    #[arg(value_name = "ID", help = help::<ReportArgs>("id"))]
    id: String,
    #[arg(long, value_name = "OPERATION-KEY", allow_hyphen_values = true, help = help::<ReportArgs>("operation_key"))]
    operation_key: String,
    #[arg(long, allow_hyphen_values = true, value_parser = word::<ExecutionStatus>, help = help::<ReportArgs>("status"))]
    status: ExecutionStatus,
    #[arg(long, allow_hyphen_values = true, help = help::<ReportArgs>("detail"))]
    detail: Option<String>,
    #[arg(long, allow_hyphen_values = true, help = help::<ReportArgs>("key"))]
    key: String,
}

/// `forms ask list`.
#[derive(clap::Args, Debug, Clone, PartialEq, Eq)]
pub struct List {
    #[command(flatten)]
    who: Acting,
    #[arg(long, allow_hyphen_values = true, help = help::<ListArgs>("conversation"))]
    conversation: String,
    #[arg(long, value_name = "N", allow_hyphen_values = true, help = help::<ListArgs>("limit"))]
    limit: Option<usize>,
}

/// `forms ask members`.
#[derive(clap::Args, Debug, Clone, PartialEq, Eq)]
pub struct Members {
    #[command(flatten)]
    who: Operator,
    #[arg(long, allow_hyphen_values = true, help = help::<MembersArgs>("conversation"))]
    conversation: String,
}

/// The role `forms ask join` gives (the command line's own: a tool always adds members).
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A member with contact rights.
    Member,
    /// A manager: the operator's alone to add.
    Manager,
}

/// `forms ask join`.
#[derive(clap::Args, Debug, Clone, PartialEq, Eq)]
pub struct Join {
    #[command(flatten)]
    who: Operator,
    #[arg(long, allow_hyphen_values = true, help = help::<JoinArgs>("conversation"))]
    conversation: String,
    #[arg(value_name = "PRINCIPAL", required = true, num_args = 1.., help = help::<JoinArgs>("principals"))]
    principals: Vec<String>,
    /// member (default) or manager; only the operator adds managers, optional (member |
    /// manager)
    #[arg(long, value_enum, hide_possible_values = true)]
    role: Option<Role>,
}

/// `forms ask remove`, `revoke` and `restore`.
#[derive(clap::Args, Debug, Clone, PartialEq, Eq)]
pub struct Change {
    #[command(flatten)]
    who: Operator,
    #[arg(long, allow_hyphen_values = true, help = help::<RemoveArgs>("conversation"))]
    conversation: String,
    #[arg(value_name = "PRINCIPAL", required = true, num_args = 1.., help = help::<RemoveArgs>("principals"))]
    principals: Vec<String>,
}

/// One operation of `forms ask`: its summary is its argument type's.
#[derive(Subcommand, Debug, Clone, PartialEq)]
pub enum Op {
    #[command(about = about::<OpenArgs>(), long_about = args::summary::<OpenArgs>())]
    Open(Open),
    #[command(about = about::<ShowArgs>(), long_about = args::summary::<ShowArgs>())]
    Show(Show),
    #[command(about = about::<RespondArgs>(), long_about = args::summary::<RespondArgs>())]
    Respond(Respond),
    #[command(about = about::<WaitArgs>(), long_about = args::summary::<WaitArgs>())]
    Wait(Wait),
    #[command(about = about::<CancelArgs>(), long_about = args::summary::<CancelArgs>())]
    Cancel(Cancel),
    #[command(about = about::<ReplaceArgs>(), long_about = args::summary::<ReplaceArgs>())]
    Replace(Replace),
    #[command(about = about::<SupersedeArgs>(), long_about = args::summary::<SupersedeArgs>())]
    Supersede(Supersede),
    #[command(about = about::<LogArgs>(), long_about = args::summary::<LogArgs>())]
    Log(Log),
    #[command(about = about::<MessageArgs>(), long_about = args::summary::<MessageArgs>())]
    Message(Message),
    #[command(about = about::<RedeemArgs>(), long_about = args::summary::<RedeemArgs>())]
    Redeem(Redeem),
    #[command(about = about::<ReportArgs>(), long_about = args::summary::<ReportArgs>())]
    Report(Report),
    #[command(about = about::<ListArgs>(), long_about = args::summary::<ListArgs>())]
    List(List),
    #[command(about = about::<MembersArgs>(), long_about = args::summary::<MembersArgs>())]
    Members(Members),
    #[command(about = about::<JoinArgs>(), long_about = args::summary::<JoinArgs>())]
    Join(Join),
    #[command(about = about::<RemoveArgs>(), long_about = args::summary::<RemoveArgs>())]
    Remove(Change),
    #[command(about = about::<RevokeArgs>(), long_about = args::summary::<RevokeArgs>())]
    Revoke(Change),
    #[command(about = about::<RestoreArgs>(), long_about = args::summary::<RestoreArgs>())]
    Restore(Change),
}

/// A parsed `forms ask` command line: an operation shared with the MCP tools, or answering
/// a form request as a person (`fill`, `page`).
#[derive(Debug, Clone, PartialEq)]
pub enum AskArgs {
    /// An operation shared with the MCP tools, and its name (for its usage). Boxed: the
    /// operations with the most flags are far larger than `fill|page`.
    Op(String, Box<Op>),
    /// `forms ask fill|page`.
    Form(crate::ask_form::Args),
}

impl clap::Args for AskArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        let mut cmd = Op::augment_subcommands(cmd)
            .subcommand_required(true)
            .arg_required_else_help(true)
            .subcommand_value_name("OPERATION");
        let names: Vec<String> = cmd
            .get_subcommands()
            .map(|c| c.get_name().to_owned())
            .collect();
        for name in names {
            cmd = cmd.mut_subcommand(&name, |c| {
                c.after_help(format!("As an MCP tool: ask_{name}."))
            });
        }
        cmd.subcommand(crate::ask_form::command(false))
            .subcommand(crate::ask_form::command(true))
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
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
        Ok(AskArgs::Op(
            name.to_owned(),
            Box::new(Op::from_arg_matches(matches)?),
        ))
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

/// `forms ask …`: runs the parsed operation and prints its line; a usage error found here
/// (a value only the store's clock or the operation can judge) prints the operation's usage.
pub fn main(command: AskArgs) -> ExitCode {
    let (name, op) = match command {
        AskArgs::Op(name, op) => (name, op),
        AskArgs::Form(args) => return crate::ask_form::main(args),
    };
    let (line, code) = match run(*op) {
        Ok(line) => (line, ExitCode::SUCCESS),
        Err(Failure::Refused(line)) => (line, ExitCode::from(1)),
        Err(Failure::Usage(Usage(message))) => {
            return usage_error(&["ask", &name], &visible(&message))
        }
    };
    match print_line(&line) {
        Ok(()) => code,
        Err(_) => ExitCode::from(2),
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

impl From<Refused> for Failure {
    fn from(e: Refused) -> Self {
        Failure::Refused(e.wire())
    }
}

/// The flag of tool argument `field` in the command `C` (`--expires` for `expires_at`).
fn flag_of<C: clap::Args>(field: &str) -> String {
    let cmd = C::augment_args(clap::Command::new("ask"));
    let long = cmd
        .get_arguments()
        .find(|a| a.get_id() == field)
        .and_then(|a| a.get_long().map(str::to_owned));
    match long {
        Some(long) => format!("`--{long}`"),
        None => format!("`{}`", field.to_uppercase()),
    }
}

/// `args`' limits that need nothing but the values, as usage errors naming `C`'s flag.
fn checked<C: clap::Args, A: Operation>(args: A) -> Result<A, Usage> {
    match args.validate() {
        Ok(()) => Ok(args),
        Err(AskError::TooLarge { field, problem }) => {
            Err(Usage(format!("{}: {problem}", flag_of::<C>(&field))))
        }
        Err(e) => Err(Usage(e.to_string())),
    }
}

fn open_store(db: &str) -> Result<Asks, Failure> {
    Ok(Asks::open_location(db)?.with_quotas(Quotas::from_env().map_err(Usage)?))
}

/// Runs `args` as `acting` on `asks`.
fn run_as<A: Operation>(asks: &Asks, acting: &str, args: A) -> Result<Value, Failure> {
    let me = Principal::new(acting)?;
    Ok(args.run(&asks.as_principal(&me))?)
}

/// Checks `args` (`C`'s flags in the messages), opens the store and runs it as `who`.
fn run_checked<C: clap::Args, A: Operation>(who: &Acting, args: A) -> Result<Value, Failure> {
    let args = checked::<C, A>(args)?;
    run_as(&open_store(&who.db)?, &who.acting, args)
}

/// An `--expires` value: a time, or a duration from the store's now.
fn expiry(text: Option<String>, now: Timestamp) -> Result<Option<String>, Usage> {
    text.map(|s| {
        wire::expiry(&s, now).map(|t| t.to_string()).ok_or_else(|| {
            Usage(format!(
                "`--expires` is a time such as 2026-12-31T12:00:00Z or \
                 2026-12-31T14:00:00+02:00, or a duration from now such as 7d, 36h or 90m, \
                 not `{s}`"
            ))
        })
    })
    .transpose()
}

/// Reads `--action`: the bound action at `open`, what is presented at `redeem`.
fn action_json(reader: &mut Reader, arg: JsonArg) -> Result<ActionArg, Usage> {
    let a: Action = reader.json(
        "--action",
        arg,
        "JSON {\"executor\",\"resource_version\",\"arguments\",\"operation_key\"}",
    )?;
    Ok(ActionArg {
        executor: a.executor,
        resource_version: a.resource_version,
        arguments: a.arguments,
        operation_key: a.operation_key,
    })
}

impl Open {
    /// The arguments, with the JSON of `--form` and `--action` read (before the store is
    /// opened, so a file that cannot be read creates no store) and `--expires` left to read
    /// against the store's clock.
    fn args(self) -> Result<(OpenArgs, Option<String>), Usage> {
        let non_empty = |v: Vec<String>| (!v.is_empty()).then_some(v);
        let mut reader = Reader::new();
        let form = self
            .form
            .map(|f| reader.json("--form", f, "JSON {\"message\",\"questions\"}"))
            .transpose()?;
        let action = self
            .action
            .map(|a| action_json(&mut reader, a))
            .transpose()?;
        let args = OpenArgs {
            conversation: self.conversation,
            kind: self.kind,
            body: self.body,
            title: self.title,
            choices: non_empty(self.choices),
            audience: non_empty(self.audience),
            expires_at: None,
            action,
            form,
            key: self.key,
        };
        Ok((args, self.expires_at))
    }
}

impl Respond {
    fn args(self) -> Result<RespondArgs, Failure> {
        let answer = self
            .answer
            .map(|a| Reader::new().text("--answer", a))
            .transpose()?;
        // Files sent with a form's answer: each local file's bytes, named in the answer as
        // `upload:<file name>` (a path in the answer is refused).
        let uploads = self
            .uploads
            .iter()
            .map(|p| forms_ask::Upload::read(p).map(|u| UploadArg::of(&u)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(RespondArgs {
            id: self.id,
            version: self.version,
            outcome: self.outcome,
            answer: answer.map(Answer::Text),
            uploads,
            key: self.key,
        })
    }
}

/// Runs a membership change as `--as` (checked as a manager) or, without it, as the
/// operator; the members are read as the operator.
/// A membership change of `c` (remove, revoke, restore): the arguments `make` builds from
/// its conversation and principals, checked, then run by `run` as [`change`] says.
fn member_change<A: Operation>(
    c: Change,
    make: impl FnOnce(String, Vec<String>) -> A,
    run: impl FnOnce(A, Actor<'_>, Actor<'_>) -> Result<Value, Refused>,
) -> Result<Value, Failure> {
    let args = checked::<Change, _>(make(c.conversation, c.principals))?;
    change(&c.who, args, run)
}

fn change<A>(
    who: &Operator,
    args: A,
    run: impl FnOnce(A, Actor<'_>, Actor<'_>) -> Result<Value, Refused>,
) -> Result<Value, Failure> {
    let asks = open_store(&who.db)?;
    match &who.acting {
        Some(name) => {
            let me = Principal::new(name.as_str())?;
            let me = asks.as_principal(&me);
            Ok(run(args, Actor::Principal(&me), Actor::Operator(&asks))?)
        }
        None => Ok(run(args, Actor::Operator(&asks), Actor::Operator(&asks))?),
    }
}

/// Runs the command and returns the JSON to print.
pub(crate) fn run(op: Op) -> Result<Value, Failure> {
    match op {
        Op::Open(c) => {
            let acting = c.who.acting.clone();
            let db = c.who.db.clone();
            let (mut args, expires) = c.args()?;
            let asks = open_store(&db)?;
            args.expires_at = expiry(expires, asks.now())?;
            run_as(&asks, &acting, args)
        }
        Op::Show(c) => run_checked::<Show, _>(&c.who, ShowArgs { id: c.id }),
        Op::Respond(c) => {
            let who = c.who.clone();
            run_checked::<Respond, _>(&who, c.args()?)
        }
        Op::Wait(c) => run_checked::<Wait, _>(
            &c.who,
            WaitArgs {
                id: c.id,
                timeout_seconds: c.timeout_seconds,
            },
        ),
        Op::Cancel(c) => run_checked::<Cancel, _>(
            &c.who,
            CancelArgs {
                id: c.id,
                version: c.version,
                key: c.key,
            },
        ),
        Op::Replace(c) => {
            let asks = open_store(&c.who.db)?;
            let args = ReplaceArgs {
                id: c.id,
                version: c.version,
                body: c.body,
                title: c.title,
                expires_at: expiry(c.expires_at, asks.now())?,
                key: c.key,
            };
            run_as(&asks, &c.who.acting, args)
        }
        Op::Supersede(c) => run_checked::<Supersede, _>(
            &c.who,
            SupersedeArgs {
                id: c.id,
                version: c.version,
                key: c.key,
            },
        ),
        Op::Log(c) => run_checked::<Log, _>(
            &c.who,
            LogArgs {
                id: c.id,
                after: c.after,
                limit: c.limit,
            },
        ),
        Op::Message(c) => run_checked::<Message, _>(
            &c.who,
            MessageArgs {
                id: c.id,
                text: c.text,
                key: c.key,
            },
        ),
        Op::Redeem(c) => {
            let action = action_json(&mut Reader::new(), c.action)?;
            run_checked::<Redeem, _>(
                &c.who,
                RedeemArgs {
                    id: c.id,
                    action,
                    key: c.key,
                },
            )
        }
        Op::Report(c) => run_checked::<Report, _>(
            &c.who,
            ReportArgs {
                id: c.id,
                operation_key: c.operation_key,
                status: c.status,
                detail: c.detail,
                key: c.key,
            },
        ),
        Op::List(c) => run_checked::<List, _>(
            &c.who,
            ListArgs {
                conversation: c.conversation,
                limit: c.limit,
            },
        ),
        Op::Members(c) => {
            let args = MembersArgs {
                conversation: c.conversation,
            };
            change(&c.who, args, |args, actor, _| args.run_by(actor))
        }
        Op::Join(c) => {
            let args = checked::<Join, _>(JoinArgs {
                conversation: c.conversation,
                principals: c.principals,
            })?;
            match (c.role, &c.who.acting) {
                (Some(Role::Manager), Some(_)) => {
                    Err(Usage("`--role manager` is the operator's: leave out `--as`".into()).into())
                }
                (Some(Role::Manager), None) => {
                    Ok(args.run_as_operator_adding_managers(&open_store(&c.who.db)?)?)
                }
                (Some(Role::Member) | None, _) => {
                    change(&c.who, args, |args, actor, read| args.run_by(actor, read))
                }
            }
        }
        Op::Remove(c) => member_change(
            c,
            |conversation, principals| RemoveArgs {
                conversation,
                principals,
            },
            RemoveArgs::run_by,
        ),
        Op::Revoke(c) => member_change(
            c,
            |conversation, principals| RevokeArgs {
                conversation,
                principals,
            },
            RevokeArgs::run_by,
        ),
        Op::Restore(c) => member_change(
            c,
            |conversation, principals| RestoreArgs {
                conversation,
                principals,
            },
            RestoreArgs::run_by,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The flags of `C` (the acting principal's and `--role` aside) against the tool
    /// arguments of `T`: the same names, `snake_case` ↔ `kebab-case`, with the documented
    /// exceptions, and `T`'s schema closed.
    fn same_fields<C: clap::Args, T: JsonSchema>() -> String {
        let schema = args::schema::<T>();
        assert_eq!(schema["additionalProperties"], false);
        let tool: BTreeSet<String> = schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        let cmd = C::augment_args(clap::Command::new("op"));
        let mut flags = BTreeSet::new();
        for a in cmd.get_arguments() {
            let id = a.get_id().as_str();
            if ["db", "acting", "role", "help"].contains(&id) {
                continue;
            }
            let expected = match id {
                "expires_at" => Some("expires".to_owned()),
                "timeout_seconds" => Some("timeout".to_owned()),
                "choices" => Some("choice".to_owned()),
                "uploads" => Some("upload".to_owned()),
                "id" | "principals" => None,
                _ => Some(id.replace('_', "-")),
            };
            assert_eq!(a.get_long(), expected.as_deref(), "{id}");
            let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
            assert!(
                help.contains(&format!("tool argument `{id}`")),
                "{id}: {help}"
            );
            flags.insert(id.to_owned());
        }
        assert_eq!(flags, tool, "{}", std::any::type_name::<T>());
        std::any::type_name::<T>().to_owned()
    }

    #[test]
    fn every_command_names_the_same_fields_as_its_tool() {
        let checked = [
            same_fields::<Open, OpenArgs>(),
            same_fields::<Show, ShowArgs>(),
            same_fields::<Respond, RespondArgs>(),
            same_fields::<Wait, WaitArgs>(),
            same_fields::<Cancel, CancelArgs>(),
            same_fields::<Replace, ReplaceArgs>(),
            same_fields::<Supersede, SupersedeArgs>(),
            same_fields::<Log, LogArgs>(),
            same_fields::<Message, MessageArgs>(),
            same_fields::<Redeem, RedeemArgs>(),
            same_fields::<Report, ReportArgs>(),
            same_fields::<List, ListArgs>(),
            same_fields::<Members, MembersArgs>(),
            same_fields::<Join, JoinArgs>(),
            same_fields::<Change, RemoveArgs>(),
            same_fields::<Change, RevokeArgs>(),
            same_fields::<Change, RestoreArgs>(),
        ];
        // Every operation of `forms ask` is among them, and each is a tool.
        let ops = Op::augment_subcommands(clap::Command::new("ask"));
        let names: Vec<&str> = ops.get_subcommands().map(|c| c.get_name()).collect();
        assert_eq!(names.len(), checked.len(), "{names:?}");
        for name in names {
            let mut camel = name.to_owned();
            camel[..1].make_ascii_uppercase();
            let ty = format!("::{camel}Args");
            assert!(checked.iter().any(|t| t.ends_with(&ty)), "{name}");
        }
    }
}
