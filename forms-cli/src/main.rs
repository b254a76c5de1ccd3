//! The `forms` command: a stable JSON interface to the Data form runtime.
//!
//! ```text
//! forms check  [FILE|-]               Data arguments -> normalized Data JSON on stdout, exit 0
//! forms native [FILE|-]               Data arguments -> native request params on stdout, exit 0
//! forms answer --form FILE [RESP|-]   host response -> tool-result payload on stdout, exit 0
//! forms descriptor                    the MCP tool descriptor
//! forms ask OPERATION --db PATH|URL …  durable requested replies (`forms ask OP --help`)
//! ```
//!
//! A missing `FILE` (or `-`) means standard input. Every result is one line of compact JSON
//! on standard output, followed by a newline.
//!
//! Exit status:
//! - `0`: success; standard output holds the result (for `answer`, the tool-result payload of
//!   an accepted, declined or cancelled response).
//! - `1`: the input failed the contract; standard output holds
//!   `{"error":{"code":…,"message":…}}`. `check`, `native` and the `--form` file of `answer`
//!   report `invalid_arguments`; the response of `answer` reports `invalid_response`. Input
//!   that is not UTF-8 is such a failure too.
//! - `2`: a usage error (unknown command or flag, missing `--form` value, extra arguments, an
//!   unreadable file) or a failure to write the output; a message goes to standard error.
#![forbid(unsafe_code)]

mod ask;
mod ask_form;
mod fill;
mod host;
mod lint;
mod preview;

use forms_runtime::mcp::{tool_descriptor, ToolResult};
use forms_runtime::rules::Rule;
use forms_runtime::{DataForm, Finding, FormError, JsonPath};
use serde::Serialize;
use std::ffi::{OsStr, OsString};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "\
usage:
  forms check  [FILE|-]               Data arguments -> normalized Data JSON on stdout, exit 0
  forms native [FILE|-]               Data arguments -> native request params on stdout, exit 0
  forms answer --form FILE [RESP|-]   host response -> tool-result payload on stdout, exit 0
  forms host [OPTIONS] -- COMMAND      a local host for an MCP server (see `forms host --help`)
  forms check --lint [FILE|-]         the normalized form and warnings about what renders badly
  forms preview [FILE|-] [--out PATH] an HTML page rendering the form as the host does
  forms fill FILE                     answer the form in the terminal; the response on stdout
  forms descriptor                    the MCP tool descriptor
  forms ask OPERATION --db PATH|URL [--as NAME] ...
                      durable requested replies: open, show, respond, wait, cancel, replace,
                      supersede, log, message, redeem, report, list, members, join, remove,
                      revoke, restore (`forms ask --help`; `forms ask OPERATION --help`)
  forms --help                        this text
  forms --version                     the version

A missing FILE or RESP, or `-`, reads standard input. Output is one line of compact JSON.
Exit status: 0 success; 1 contract failure, with {\"error\":{\"code\":...,\"message\":...}}
on stdout (invalid_arguments for forms, invalid_response for answers); 2 usage error.
";

/// Where an input comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Input {
    Stdin,
    File(PathBuf),
}

impl Input {
    fn from_arg(arg: Option<OsString>) -> Input {
        match arg {
            None => Input::Stdin,
            Some(a) if a == "-" => Input::Stdin,
            Some(a) => Input::File(PathBuf::from(a)),
        }
    }

    fn read(&self) -> Result<Vec<u8>, Usage> {
        match self {
            Input::Stdin => {
                let mut buf = Vec::new();
                std::io::stdin()
                    .lock()
                    .read_to_end(&mut buf)
                    .map_err(|e| Usage(format!("cannot read standard input: {e}")))?;
                Ok(buf)
            }
            Input::File(path) => std::fs::read(path)
                .map_err(|e| Usage(format!("cannot read {}: {e}", path.display()))),
        }
    }
}

/// A parsed command line.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Command {
    Help,
    Version,
    Check(Input),
    Native(Input),
    Answer { form: Input, response: Input },
    Descriptor,
    Lint(Input),
    Preview(preview::Args),
    Fill(fill::Args),
}

/// A usage error: the message printed before the usage text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Usage(pub(crate) String);

fn is_help(arg: &OsStr) -> bool {
    arg == "--help" || arg == "-h"
}

/// Whether `arg` looks like a flag (`-` alone names standard input).
fn is_flag(arg: &OsStr) -> bool {
    arg.as_encoded_bytes().starts_with(b"-") && arg != "-"
}

fn lossy(arg: &OsStr) -> String {
    arg.to_string_lossy().into_owned()
}

/// The one optional positional input of `check` and `native`.
fn single_input(command: &str, args: Vec<OsString>) -> Result<Input, Usage> {
    let mut input = None;
    for arg in args {
        if is_flag(&arg) {
            return Err(Usage(format!(
                "unknown option `{}` for `{command}`",
                lossy(&arg)
            )));
        }
        if input.is_some() {
            return Err(Usage(format!(
                "unexpected argument `{}`: `{command}` takes at most one input",
                lossy(&arg)
            )));
        }
        input = Some(arg);
    }
    Ok(Input::from_arg(input))
}

fn answer_inputs(args: Vec<OsString>) -> Result<Command, Usage> {
    let mut form = None;
    let mut response = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let value = if arg == "--form" {
            Some(
                args.next()
                    .ok_or_else(|| Usage("`--form` needs a FILE".into()))?,
            )
        } else if arg.as_encoded_bytes().starts_with(b"--form=") {
            let value = arg
                .to_str()
                .and_then(|s| s.strip_prefix("--form="))
                .ok_or_else(|| Usage("write `--form FILE` for a path that is not UTF-8".into()))?;
            Some(OsString::from(value))
        } else {
            None
        };
        if let Some(value) = value {
            if form.is_some() {
                return Err(Usage("`--form` given twice".into()));
            }
            if value.is_empty() {
                return Err(Usage("`--form` needs a FILE".into()));
            }
            form = Some(value);
            continue;
        }
        if is_flag(&arg) {
            return Err(Usage(format!(
                "unknown option `{}` for `answer`",
                lossy(&arg)
            )));
        }
        if response.is_some() {
            return Err(Usage(format!(
                "unexpected argument `{}`: `answer` takes at most one response",
                lossy(&arg)
            )));
        }
        response = Some(arg);
    }
    let form = form.ok_or_else(|| Usage("`answer` needs `--form FILE`".into()))?;
    let form = Input::from_arg(Some(form));
    let response = Input::from_arg(response);
    if form == Input::Stdin && response == Input::Stdin {
        return Err(Usage(
            "the form and the response cannot both come from standard input".into(),
        ));
    }
    Ok(Command::Answer { form, response })
}

fn parse_args(args: Vec<OsString>) -> Result<Command, Usage> {
    if args.iter().any(|a| is_help(a)) {
        return Ok(Command::Help);
    }
    if args.len() == 1 && args.iter().any(|a| a == "--version" || a == "-V") {
        return Ok(Command::Version);
    }
    let mut args = args.into_iter();
    let Some(command) = args.next() else {
        return Err(Usage("missing command".into()));
    };
    let rest: Vec<OsString> = args.collect();
    match command.to_str() {
        Some("help") if rest.is_empty() => Ok(Command::Help),
        Some("check") if rest.iter().any(|a| a == "--lint") => lint::parse(rest).map(Command::Lint),
        Some("preview") => preview::parse(rest).map(Command::Preview),
        Some("fill") => fill::parse(rest).map(Command::Fill),
        Some("check") => single_input("check", rest).map(Command::Check),
        Some("native") => single_input("native", rest).map(Command::Native),
        Some("answer") => answer_inputs(rest),
        Some("descriptor") => match rest.first() {
            None => Ok(Command::Descriptor),
            Some(a) => Err(Usage(format!(
                "unexpected argument `{}`: `descriptor` takes none",
                lossy(a)
            ))),
        },
        _ => Err(Usage(format!("unknown command `{}`", lossy(&command)))),
    }
}

/// What the command prints on standard output.
enum Outcome {
    /// A result, exit 0.
    Done(String),
    /// A contract failure, exit 1.
    Failed(FormError),
}

/// Serializes `value` as compact JSON. The values printed here hold only strings, numbers,
/// booleans, sequences and string-keyed maps, so this cannot fail in practice; should it,
/// the failure is reported as a contract error instead of a panic.
fn to_json<T: Serialize>(value: &T, what: Document) -> Outcome {
    match serde_json::to_string(value) {
        Ok(s) => Outcome::Done(s),
        Err(e) => Outcome::Failed(what.error(format!("cannot serialize the result: {e}"))),
    }
}

/// The two documents the command reads, each with its error code and the rule that text
/// which is not JSON at all breaks.
#[derive(Clone, Copy)]
enum Document {
    Arguments,
    Response,
}

impl Document {
    fn error(self, problem: String) -> FormError {
        match self {
            Document::Arguments => FormError::invalid_arguments(Finding::new(
                JsonPath::arguments(),
                Some(Rule::R3),
                problem,
            )),
            Document::Response => FormError::invalid_response(Finding::new(
                JsonPath::response(),
                Some(Rule::V1),
                problem,
            )),
        }
    }
}

/// Decodes `bytes` as UTF-8, or reports that the document is not UTF-8.
fn utf8(bytes: &[u8], what: Document) -> Result<&str, FormError> {
    std::str::from_utf8(bytes).map_err(|e| {
        what.error(format!(
            "is not valid UTF-8 (invalid byte at offset {})",
            e.valid_up_to()
        ))
    })
}

/// Reads and validates the Data arguments from `input`.
fn load_form(input: &Input) -> Result<Result<DataForm, FormError>, Usage> {
    let bytes = input.read()?;
    Ok(utf8(&bytes, Document::Arguments).and_then(DataForm::from_json))
}

fn run(command: Command) -> Result<Outcome, Usage> {
    Ok(match command {
        Command::Help => Outcome::Done(String::new()),
        Command::Version => Outcome::Done(format!("forms {}", env!("CARGO_PKG_VERSION"))),
        Command::Descriptor => to_json(&tool_descriptor(), Document::Arguments),
        Command::Check(input) => match load_form(&input)? {
            Ok(form) => Outcome::Done(form.to_json()),
            Err(e) => Outcome::Failed(e),
        },
        Command::Lint(input) => lint::run(&input)?,
        Command::Preview(args) => preview::run(&args)?,
        Command::Fill(args) => fill::run(&args)?,
        Command::Native(input) => match load_form(&input)? {
            Ok(form) => Outcome::Done(form.native_json().to_owned()),
            Err(e) => Outcome::Failed(e),
        },
        Command::Answer { form, response } => {
            let form = match load_form(&form)? {
                Ok(form) => form,
                Err(e) => return Ok(Outcome::Failed(e)),
            };
            let bytes = response.read()?;
            match utf8(&bytes, Document::Response).and_then(|text| form.check_response(text)) {
                Ok(outcome) => to_json(&outcome, Document::Response),
                Err(e) => Outcome::Failed(e),
            }
        }
    })
}

/// Writes `line` and a newline to standard output.
fn print_line(line: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(line.as_bytes())?;
    out.write_all(b"\n")?;
    out.flush()
}

fn usage_error(message: &str) -> ExitCode {
    eprint!("forms: {message}\n\n{USAGE}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let mut args: Vec<OsString> = std::env::args_os().skip(1).collect();
    if args.first().is_some_and(|a| a == "host") {
        return host::main(args.split_off(1));
    }
    if args.first().is_some_and(|a| a == "ask") {
        return ask::main(args.split_off(1));
    }
    let command = match parse_args(args) {
        Ok(c) => c,
        Err(Usage(message)) => return usage_error(&message),
    };
    if command == Command::Help {
        print!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let (line, code) = match run(command) {
        Ok(Outcome::Done(line)) => (line, ExitCode::SUCCESS),
        Ok(Outcome::Failed(e)) => (
            ToolResult::from_error(&e).text().to_owned(),
            ExitCode::from(1),
        ),
        Err(Usage(message)) => return usage_error(&message),
    };
    match print_line(&line) {
        Ok(()) => code,
        // A reader that went away (`forms descriptor | head`) needs no message.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::from(2),
        Err(e) => {
            eprintln!("forms: cannot write the result: {e}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )]
    use super::*;

    fn parse(args: &[&str]) -> Result<Command, Usage> {
        parse_args(args.iter().map(OsString::from).collect())
    }

    fn file(p: &str) -> Input {
        Input::File(PathBuf::from(p))
    }

    #[test]
    fn parses_every_command() {
        assert_eq!(parse(&["check"]), Ok(Command::Check(Input::Stdin)));
        assert_eq!(parse(&["check", "-"]), Ok(Command::Check(Input::Stdin)));
        assert_eq!(
            parse(&["native", "f.json"]),
            Ok(Command::Native(file("f.json")))
        );
        assert_eq!(parse(&["descriptor"]), Ok(Command::Descriptor));
        assert_eq!(
            parse(&["answer", "--form", "f.json"]),
            Ok(Command::Answer {
                form: file("f.json"),
                response: Input::Stdin
            })
        );
        assert_eq!(
            parse(&["answer", "r.json", "--form=f.json"]),
            Ok(Command::Answer {
                form: file("f.json"),
                response: file("r.json")
            })
        );
        assert_eq!(
            parse(&["answer", "--form", "-", "r.json"]),
            Ok(Command::Answer {
                form: Input::Stdin,
                response: file("r.json")
            })
        );
        assert_eq!(parse(&["--help"]), Ok(Command::Help));
        assert_eq!(parse(&["check", "-h"]), Ok(Command::Help));
        assert_eq!(parse(&["help"]), Ok(Command::Help));
    }

    #[test]
    fn refuses_bad_usage() {
        for args in [
            &[][..],
            &["frobnicate"],
            &["check", "a", "b"],
            &["check", "--pretty"],
            &["native", "-x"],
            &["descriptor", "extra"],
            &["answer"],
            &["answer", "r.json"],
            &["answer", "--form"],
            &["answer", "--form="],
            &["answer", "--form", "a", "--form", "b"],
            &["answer", "--form", "f", "r1", "r2"],
            &["answer", "--form", "f", "--verbose"],
            &["answer", "--form", "-"],
            &["answer", "--form", "-", "-"],
            &["help", "check"],
        ] {
            assert!(parse(args).is_err(), "accepted {args:?}");
        }
    }
}
