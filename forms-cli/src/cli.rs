//! The command line of `forms`, parsed by clap: one subcommand per command and, under `ask`,
//! one per operation (each converting into its argument type of [`forms_ask::args`], the type the
//! MCP tools take).
//!
//! clap's own errors exit 2 with the message and the usage of the subcommand at fault on
//! standard error; `--help` and `--version` print on standard output and exit 0. A usage
//! error found after parsing (an unreadable file, a value only the command can judge) is
//! printed the same way by [`usage_error`].

use clap::builder::StyledStr;
use clap::builder::{PathBufValueParser, TypedValueParser};
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::io::Input;

#[cfg(feature = "ask")]
pub use crate::ask::AskArgs;
/// `forms ask` in a build without the `ask` feature.
#[cfg(not(feature = "ask"))]
pub type AskArgs = NotBuilt;

/// `forms host` in a build without the `host` feature.
#[cfg(not(feature = "host"))]
pub type HostArgs = NotBuilt;

#[cfg(feature = "ask")]
const ASK_ABOUT: &str =
    "Durable requested replies: open, respond, wait, ... (one subcommand per operation)";
#[cfg(not(feature = "ask"))]
const ASK_ABOUT: &str = "Durable requested replies: not built in (the `ask` feature)";

#[cfg(feature = "host")]
const HOST_ABOUT: &str = "A local host for an MCP server: calls a tool and answers its forms";
#[cfg(not(feature = "host"))]
const HOST_ABOUT: &str = "A local host for an MCP server: not built in (the `host` feature)";

const AFTER_HELP: &str = "\
A missing FILE or RESP, or `-`, reads standard input. A flag that takes JSON takes it inline,
as @PATH to read a file, or as - to read standard input (one - per command); at most 1 MiB.
Output is one line of compact JSON (except the page of `preview` without --out, and
`completions`).
Exit status: 0 success; 1 contract failure, with {\"error\":{\"code\":...,\"message\":...}}
on stdout (invalid_arguments for forms, invalid_response for answers); 2 usage error, or a
result that cannot be written.";

/// The `forms` command line.
#[derive(Debug, Parser)]
#[command(
    name = "forms",
    version,
    about = "Check, compile and answer Data forms through a stable JSON interface",
    after_help = AFTER_HELP,
    subcommand_required = true,
    arg_required_else_help = true
)]
pub struct Cli {
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// One command of `forms`.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Data arguments -> normalized Data JSON on stdout (with --lint, and warnings about what
    /// renders badly)
    Check(CheckArgs),
    /// Data arguments -> native request params on stdout
    Native(InputArgs),
    /// Host response -> tool-result payload on stdout
    // One usage in every error: clap writes a given optional argument as `<RESP|->` in the
    // usage of a missing-argument error and as `[RESP|-]` elsewhere.
    #[command(override_usage = "forms answer --form <FILE> [RESP|-]")]
    Answer(AnswerArgs),
    /// The MCP tool descriptor
    Descriptor,
    /// An HTML page rendering the form as the host does
    Preview(PreviewArgs),
    /// Answer the form in the terminal; the response on stdout
    Fill(FillArgs),
    #[command(about = ASK_ABOUT)]
    Ask(AskArgs),
    #[command(about = HOST_ABOUT)]
    Host(HostArgs),
    /// A shell completion script on stdout
    Completions(CompletionsArgs),
}

/// `forms check [--lint] [FILE|-]`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Also print warnings about what renders badly: {"form":…,"warnings":[…]}
    #[arg(long)]
    pub lint: bool,
    /// The Data arguments (standard input when missing or `-`)
    #[arg(value_name = "FILE|-")]
    pub input: Option<OsString>,
}

impl CheckArgs {
    /// Where the form comes from.
    pub fn input(&self) -> Input {
        Input::from_arg(self.input.clone())
    }
}

/// One optional input, `[FILE|-]`.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// The Data arguments (standard input when missing or `-`)
    #[arg(value_name = "FILE|-")]
    pub input: Option<OsString>,
}

impl InputArgs {
    /// Where the form comes from.
    pub fn input(&self) -> Input {
        Input::from_arg(self.input.clone())
    }
}

/// `forms answer --form FILE [RESP|-]`.
#[derive(Debug, Args)]
pub struct AnswerArgs {
    /// The Data arguments the response answers (`-`: standard input)
    #[arg(long, value_name = "FILE")]
    pub form: PathBuf,
    /// The host response (standard input when missing or `-`)
    #[arg(value_name = "RESP|-")]
    pub response: Option<PathBuf>,
}

/// `forms preview [FILE|-] [--out PATH]`.
#[derive(Debug, Args)]
pub struct PreviewArgs {
    /// A Data form or a native request (standard input when missing or `-`)
    #[arg(value_name = "FILE|-")]
    pub input: Option<OsString>,
    /// Write the page to PATH and print {"page":PATH,"warnings":N} instead of the page
    #[arg(short, long, value_name = "PATH")]
    pub out: Option<PathBuf>,
}

impl PreviewArgs {
    /// Where the form comes from.
    pub fn input(&self) -> Input {
        Input::from_arg(self.input.clone())
    }
}

/// `forms fill FILE`.
#[derive(Debug, Args)]
pub struct FillArgs {
    /// A Data form or a native request; standard input is the keyboard, so not `-`
    #[arg(value_name = "FILE", value_parser = PathBufValueParser::new().try_map(not_stdin))]
    pub input: PathBuf,
}

fn not_stdin(path: PathBuf) -> Result<PathBuf, &'static str> {
    if path.as_os_str() == "-" {
        Err("`fill` reads the keyboard on standard input: give the form as a FILE")
    } else {
        Ok(path)
    }
}

/// `forms completions SHELL`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell the script is for
    #[arg(value_enum)]
    pub shell: Shell,
}

/// A shell `forms completions` writes a script for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Shell {
    /// bash: `source <(forms completions bash)`
    Bash,
    /// zsh: write it as `_forms` in a directory of `$fpath`
    Zsh,
    /// fish: write it to ~/.config/fish/completions/forms.fish
    Fish,
}

/// `forms host [OPTIONS] -- COMMAND [ARGS...]` or `forms host [OPTIONS] --url URL`.
#[cfg(feature = "host")]
#[derive(Debug, Args)]
#[command(after_help = "\
Without --answer or --terminal each form is served as a page on 127.0.0.1 at a secret URL,
printed on standard error; the host waits for the submit. The page and the terminal show which
server asks (its serverInfo) and start from the fields' defaults. Files added on the page are
copied into a private directory (printed when created) and answered by the copy's path.
A URL-mode request (elicitation.url is advertised) shows the server, its message and the full
URL with its host set apart, and opens nothing without consent: the terminal asks y/n, the
page has an Open button, an answer file's accept opens it only with --open-urls. The result
goes to stdout.")]
pub struct HostArgs {
    /// A streamable HTTP server, such as http://127.0.0.1:PORT/mcp
    #[arg(
        long,
        value_name = "URL",
        conflicts_with = "command",
        required_unless_present = "command"
    )]
    pub url: Option<String>,
    /// Call the tool NAME (without it, the tool list is printed)
    #[arg(long, value_name = "NAME")]
    pub call: Option<String>,
    #[arg(
        long = "args",
        value_name = crate::json_arg::value_name("JSON"),
        value_parser = crate::json_arg::JsonArg::parser(),
        allow_hyphen_values = true,
        help = crate::json_arg::help("The tool's arguments, a JSON object (default {})")
    )]
    pub arguments: Option<crate::json_arg::JsonArg>,
    #[arg(
        long,
        value_name = crate::json_arg::value_name("JSON"),
        value_parser = crate::json_arg::JsonArg::parser(),
        allow_hyphen_values = true,
        conflicts_with = "terminal",
        help = crate::json_arg::help(
            "Answer forms with a host response object, or an array of them answering the \
             forms in order"
        )
    )]
    pub answer: Option<crate::json_arg::JsonArg>,
    /// Answer forms in the terminal (`forms fill`)
    #[arg(long)]
    pub terminal: bool,
    /// 2025-11-25 (initialize, mid-call openai/elicitation/create) or 2026-07-28 (discover,
    /// input-required rounds)
    #[arg(
        long,
        value_name = "VERSION",
        default_value = "2025-11-25",
        value_parser = |v: &str| forms_host::parse_protocol(v).map(|_| v.to_owned())
    )]
    pub protocol: String,
    /// Withhold the openai/elicitation extension: advertise core form elicitation only, as
    /// the official SDKs' hosts do
    #[arg(long)]
    pub core_only: bool,
    /// Log every JSON-RPC message on standard error
    #[arg(long)]
    pub trace: bool,
    /// With --answer: open in the browser ($BROWSER, else xdg-open) a URL-mode request's URL
    /// that the answer file accepts (without it the URL is only printed)
    #[arg(long)]
    pub open_urls: bool,
    /// The largest file the page takes, in bytes
    #[arg(long, value_name = "N", default_value_t = forms_host::DEFAULT_MAX_FILE_BYTES)]
    pub max_file_bytes: u64,
    /// The server to start, spoken to over stdio (after `--`)
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<OsString>,
}

/// A subcommand this build leaves out: every argument is taken, so that running it says
/// that it was not built in (exit 2) rather than reporting an argument.
#[derive(Debug, Args)]
#[command(disable_help_flag = true)]
pub struct NotBuilt {
    #[arg(
        num_args = 0..,
        trailing_var_arg = true,
        allow_hyphen_values = true,
        hide = true
    )]
    rest: Vec<OsString>,
}

/// The whole command tree, `ask`'s operations included.
pub fn command() -> clap::Command {
    Cli::command()
}

/// Parses the process's arguments; on a clap error or `--help` / `--version`, prints it and
/// returns the exit status (2 for an error, 0 for help and version).
pub fn parse() -> Result<Cli, ExitCode> {
    let args: Vec<OsString> = std::env::args_os().collect();
    command()
        .try_get_matches_from(&args)
        .and_then(|matches| Cli::from_arg_matches(&matches))
        .map_err(|mut e| {
            // clap leaves the usage out of some errors (a bad or missing value): every usage
            // error shows the usage of the subcommand at fault.
            if e.use_stderr() && e.get(ContextKind::Usage).is_none() {
                if let Some(usage) = usage_at(&args) {
                    e.insert(ContextKind::Usage, ContextValue::StyledStr(usage));
                }
            }
            // Help going to a closed pipe needs no message.
            let _ = e.print();
            ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2))
        })
}

/// The usage of the deepest subcommand `args` name, read leniently.
fn usage_at(args: &[OsString]) -> Option<StyledStr> {
    let matches = command()
        .ignore_errors(true)
        .try_get_matches_from(args)
        .ok()?;
    let mut path = Vec::new();
    let mut at = &matches;
    while let Some((name, sub)) = at.subcommand() {
        path.push(name);
        at = sub;
    }
    let mut root = command();
    root.build();
    Some(find(&mut root, &path)?.render_usage())
}

/// Prints a usage error found after parsing, `message` above the usage of the subcommand at
/// `path` (`["ask", "open"]`), and returns exit status 2.
pub fn usage_error(path: &[&str], message: &str) -> ExitCode {
    let mut root = command();
    root.build();
    let error = match find(&mut root, path) {
        Some(sub) => sub.error(ErrorKind::ValueValidation, message),
        None => root.error(ErrorKind::ValueValidation, message),
    };
    let _ = error.print();
    ExitCode::from(2)
}

fn find<'a>(cmd: &'a mut clap::Command, path: &[&str]) -> Option<&'a mut clap::Command> {
    match path.split_first() {
        None => Some(cmd),
        Some((first, rest)) => find(cmd.find_subcommand_mut(first)?, rest),
    }
}

/// The completion script for `shell`.
pub fn completions(shell: Shell) -> String {
    let shell = match shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
    };
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command(), "forms", &mut script);
    String::from_utf8_lossy(&script).trim_end().to_owned()
}

/// Says that `name` was left out of this build, with the usage of `forms`; exit 2.
#[cfg(any(not(feature = "ask"), not(feature = "host")))]
pub fn not_built(name: &str) -> ExitCode {
    usage_error(
        &[],
        &format!(
            "`forms {name}` is not built in: this `forms` was built without the `{name}` \
             feature (cargo install forms-cli --features {name})"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("forms").chain(args.iter().copied()))
    }

    #[test]
    fn the_command_tree_is_consistent() {
        command().debug_assert();
    }

    #[test]
    fn parses_every_command() {
        let Command::Check(c) = parse(&["check"]).unwrap().command else {
            panic!()
        };
        assert_eq!(c.input(), Input::Stdin);
        let Command::Check(c) = parse(&["check", "-", "--lint"]).unwrap().command else {
            panic!()
        };
        assert!(c.lint);
        assert_eq!(c.input(), Input::Stdin);
        let Command::Native(n) = parse(&["native", "f.json"]).unwrap().command else {
            panic!()
        };
        assert_eq!(n.input(), Input::File("f.json".into()));
        let Command::Answer(a) = parse(&["answer", "r.json", "--form=f.json"])
            .unwrap()
            .command
        else {
            panic!()
        };
        assert_eq!(a.form, PathBuf::from("f.json"));
        assert_eq!(a.response, Some(PathBuf::from("r.json")));
        let Command::Preview(p) = parse(&["preview", "f.json", "-o", "p.html"])
            .unwrap()
            .command
        else {
            panic!()
        };
        assert_eq!(p.input(), Input::File("f.json".into()));
        assert_eq!(p.out, Some(PathBuf::from("p.html")));
        let Command::Preview(p) = parse(&["preview", "--out=p.html"]).unwrap().command else {
            panic!()
        };
        assert_eq!(p.input(), Input::Stdin);
        assert_eq!(p.out, Some(PathBuf::from("p.html")));
        let Command::Fill(f) = parse(&["fill", "f.json"]).unwrap().command else {
            panic!()
        };
        assert_eq!(f.input, PathBuf::from("f.json"));
        assert!(matches!(
            parse(&["descriptor"]).unwrap().command,
            Command::Descriptor
        ));
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
            &["preview", "--out"],
            &["preview", "a", "b"],
            &["preview", "--x"],
            &["preview", "--out="],
            &["preview", "-o", "a", "-o", "b"],
            &["fill"],
            &["fill", "-"],
            &["fill", "a", "b"],
            &["fill", "--x"],
            &["completions"],
            &["completions", "powershell"],
        ] {
            let error = parse(args)
                .err()
                .unwrap_or_else(|| panic!("accepted {args:?}"));
            assert_eq!(error.exit_code(), 2, "{args:?}");
        }
    }
}
