//! The `forms` command: a stable JSON interface to the Data form runtime.
//!
//! ```text
//! forms check  [--lint] [FILE|-]      Data arguments -> normalized Data JSON on stdout, exit 0
//! forms native [FILE|-]               Data arguments -> native request params on stdout, exit 0
//! forms answer --form FILE [RESP|-]   host response -> tool-result payload on stdout, exit 0
//! forms descriptor                    the MCP tool descriptor
//! forms preview [FILE|-] [--out PATH] an HTML page rendering the form as the host does
//! forms fill FILE                     answer the form in the terminal; the response on stdout
//! forms ask OPERATION --db PATH|URL …  durable requested replies (`ask` feature)
//! forms host [OPTIONS] -- COMMAND …   a local host for an MCP server (`host` feature)
//! forms completions bash|zsh|fish     a shell completion script
//! ```
//!
//! Every command and every `ask` operation has its own `--help`; `forms --version` prints
//! the version. Flags take their value as `--flag VALUE` or `--flag=VALUE`. A missing `FILE`
//! (or `-`) means standard input. A flag that takes JSON (`ask open --form` and `--action`,
//! `ask respond --answer`, `ask redeem --action`, `host --args` and `--answer`) takes it
//! inline, as `@PATH` (the file's contents) or as `-` (standard input, for one flag per
//! command), at most 1 MiB (1,048,576 bytes) however it is given. Every result is one line of compact JSON on standard
//! output, followed by a newline; inside its strings and keys, control characters (C0, DEL,
//! C1) and bidirectional controls are written as `\uXXXX`, so text from a form, a server or
//! a store reaches the terminal as text, never as a command to it.
//!
//! Exit status:
//! - `0`: success; standard output holds the result (for `answer`, the tool-result payload of
//!   an accepted, declined or cancelled response).
//! - `1`: the input failed the contract; standard output holds
//!   `{"error":{"code":…,"message":…}}`. `check`, `native` and the `--form` file of `answer`
//!   report `invalid_arguments`; the response of `answer` reports `invalid_response`. Input
//!   that is not UTF-8 is such a failure too.
//! - `2`: a usage error (unknown command or flag, a missing or bad value, extra arguments,
//!   an argument that is not UTF-8 where text is expected, an unreadable file, a JSON flag's
//!   value over 1 MiB or two JSON flags reading standard input, a command this build leaves
//!   out) or a failure to write the output; a message and the usage of the
//!   command go to standard error.
#![forbid(unsafe_code)]

#[cfg(feature = "ask")]
mod ask;
#[cfg(feature = "ask")]
mod ask_form;
mod cli;
mod fill;
#[cfg(feature = "host")]
mod host;
mod io;
#[cfg(any(feature = "ask", feature = "host"))]
mod json_arg;
mod lint;
mod preview;

use cli::{AnswerArgs, Command};
use forms_runtime::mcp::tool_descriptor;
use io::{load_form, parse_json, print_line, to_json, utf8, Document, Input, Printed, Usage};
use std::process::ExitCode;

/// `forms answer`: the tool-result payload of the response, judged against the form.
fn answer(args: &AnswerArgs) -> Result<Printed, Usage> {
    let form = Input::from_arg(Some(args.form.clone().into_os_string()));
    let response = Input::from_arg(args.response.clone().map(|p| p.into_os_string()));
    if form == Input::Stdin && response == Input::Stdin {
        return Err(Usage(
            "the form and the response cannot both come from standard input".into(),
        ));
    }
    let form = match load_form(&form)? {
        Ok(form) => form,
        Err(e) => return Ok(Printed::Failed(e)),
    };
    let bytes = response.read()?;
    Ok(
        match utf8(&bytes, Document::Response).and_then(|text| form.check_response(text)) {
            Ok(outcome) => to_json(&outcome, Document::Response),
            Err(e) => Printed::Failed(e),
        },
    )
}

/// How a command ended.
enum Ran {
    /// What a command that prints one line printed, with the command's name for the usage
    /// of a usage error.
    Line(&'static str, Result<Printed, Usage>),
    /// A command that printed its own output (`ask`, `host`, a command left out).
    Exited(ExitCode),
}

fn run(command: Command) -> Ran {
    let (name, printed) = match command {
        Command::Check(args) if args.lint => ("check", lint::run(&args.input())),
        Command::Check(args) => (
            "check",
            load_form(&args.input()).map(|form| match form {
                Ok(form) => parse_json(&form.to_json(), Document::Arguments),
                Err(e) => Printed::Failed(e),
            }),
        ),
        Command::Native(args) => (
            "native",
            load_form(&args.input()).map(|form| match form {
                Ok(form) => parse_json(form.native_json(), Document::Arguments),
                Err(e) => Printed::Failed(e),
            }),
        ),
        Command::Answer(args) => ("answer", answer(&args)),
        Command::Descriptor => (
            "descriptor",
            Ok(to_json(&tool_descriptor(), Document::Arguments)),
        ),
        Command::Preview(args) => ("preview", preview::run(&args)),
        Command::Fill(args) => ("fill", fill::run(&args)),
        Command::Completions(args) => (
            "completions",
            Ok(Printed::Own(cli::completions(args.shell))),
        ),
        #[cfg(feature = "ask")]
        Command::Ask(args) => return Ran::Exited(ask::main(args)),
        #[cfg(not(feature = "ask"))]
        Command::Ask(_) => return Ran::Exited(cli::not_built("ask")),
        #[cfg(feature = "host")]
        Command::Host(args) => return Ran::Exited(host::main(args)),
        #[cfg(not(feature = "host"))]
        Command::Host(_) => return Ran::Exited(cli::not_built("host")),
    };
    Ran::Line(name, printed)
}

fn main() -> ExitCode {
    let command = match cli::parse() {
        Ok(cli) => cli.command,
        Err(code) => return code,
    };
    let (name, printed) = match run(command) {
        Ran::Line(name, printed) => (name, printed),
        Ran::Exited(code) => return code,
    };
    let written = match printed {
        Ok(Printed::Done(value)) => print_line(&value).map(|()| ExitCode::SUCCESS),
        Ok(Printed::Failed(e)) => print_line(&e.to_value()).map(|()| ExitCode::from(1)),
        Ok(Printed::Own(text)) => print_own(&text).map(|()| ExitCode::SUCCESS),
        Ok(Printed::Unwritten(message)) => {
            eprintln!("forms: {message}");
            return ExitCode::from(2);
        }
        Err(Usage(message)) => return cli::usage_error(&[name], &message),
    };
    match written {
        Ok(code) => code,
        // A reader that went away (`forms descriptor | head`) needs no message.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::from(2),
        Err(e) => {
            eprintln!("forms: cannot write the result: {e}");
            ExitCode::from(2)
        }
    }
}

/// Writes a document of this program's own (a completion script, the preview page) and a
/// newline to standard output.
fn print_own(text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.write_all(b"\n")?;
    out.flush()
}
