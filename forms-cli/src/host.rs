//! `forms host`: a local host for any MCP server. The MCP client lives in
//! `forms_mcp::host`; this module parses the command line and gives it the preview page as
//! the browser answerer.

use crate::lossy;
use forms_mcp::host::{self, Answerer, HostOptions, PageOptions, Target};
use forms_runtime::native::NativeView;
use serde_json::{Map, Value};
use std::ffi::OsString;
use std::process::ExitCode;
use std::sync::Arc;

const USAGE: &str = "\
usage: forms host [OPTIONS] -- COMMAND [ARGS...]   a server started over stdio
       forms host [OPTIONS] --url http://127.0.0.1:PORT/mcp   a streamable HTTP server
options:
  --call NAME          call the tool NAME (without it, the tool list is printed)
  --args JSON|@FILE    the tool's arguments, a JSON object (default {})
  --answer FILE        answer forms from FILE: a host response object, or an array of
                       them answering the forms in order
  --terminal           answer forms in the terminal (`forms fill`)
  --protocol VERSION   2025-11-25 (default: initialize, mid-call openai/elicitation/create)
                       or 2026-07-28 (discover, input-required rounds)
  --core-only          withhold the openai/elicitation extension: advertise core form
                       elicitation only, as the official SDKs' hosts do
  --trace              log every JSON-RPC message on standard error
  --max-file-bytes N   the largest file the page takes, in bytes (default 104857600, 100 MiB)
Without --answer or --terminal each form is served as the preview page on 127.0.0.1 at a
secret URL, printed on standard error; the host waits for the submit. Files added on the page
are copied into a private directory (printed when created) and answered by the copy's path.
The result goes to stdout.
";

fn usage(message: &str) -> ExitCode {
    eprintln!("forms host: {message}\n{USAGE}");
    ExitCode::from(2)
}

fn text_arg(value: Option<OsString>, flag: &str) -> Result<String, String> {
    let value = value.ok_or_else(|| format!("`{flag}` needs a value"))?;
    value
        .into_string()
        .map_err(|v| format!("`{flag}` value is not UTF-8: {}", lossy(&v)))
}

fn read(path: &str, what: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {what} {path}: {e}"))
}

fn parse(args: Vec<OsString>) -> Result<Option<HostOptions>, String> {
    let mut url = None;
    let mut command = None;
    let mut call = None;
    let mut arguments = None;
    let mut answer = None;
    let mut terminal = false;
    let mut protocol = host::parse_protocol("2025-11-25")?;
    let mut trace = false;
    let mut core_only = false;
    let mut page = PageOptions::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.to_str() {
            Some("--") => {
                command = Some(args.by_ref().collect::<Vec<_>>());
                break;
            }
            Some("--help" | "-h") => return Ok(None),
            Some("--url") => url = Some(text_arg(args.next(), "--url")?),
            Some("--call") => call = Some(text_arg(args.next(), "--call")?),
            Some("--args") => arguments = Some(text_arg(args.next(), "--args")?),
            Some("--answer") => answer = Some(text_arg(args.next(), "--answer")?),
            Some("--protocol") => {
                protocol = host::parse_protocol(&text_arg(args.next(), "--protocol")?)?
            }
            Some("--max-file-bytes") => {
                let text = text_arg(args.next(), "--max-file-bytes")?;
                page.max_file_bytes = text.parse().map_err(|_| {
                    format!("`--max-file-bytes` must be a number of bytes, not {text:?}")
                })?;
            }
            Some("--terminal") => terminal = true,
            Some("--trace") => trace = true,
            Some("--core-only") => core_only = true,
            _ => return Err(format!("unexpected argument `{}`", lossy(&arg))),
        }
    }
    let target = match (url, command) {
        (Some(url), None) => Target::Url(url),
        (None, Some(command)) if !command.is_empty() => Target::Command(command),
        (Some(_), Some(_)) => return Err("give either `--url` or `-- COMMAND`, not both".into()),
        _ => return Err("no server: give `-- COMMAND [ARGS...]` or `--url URL`".into()),
    };
    let arguments: Map<String, Value> = match arguments {
        None => Map::new(),
        Some(text) => {
            let text = match text.strip_prefix('@') {
                Some(path) => read(path, "the arguments file")?,
                None => text,
            };
            match serde_json::from_str(&text) {
                Ok(Value::Object(map)) => map,
                Ok(_) => return Err("`--args` must be a JSON object".into()),
                Err(e) => return Err(format!("`--args` is not JSON: {e}")),
            }
        }
    };
    let answerer = match (answer, terminal) {
        (Some(_), true) => return Err("give either `--answer` or `--terminal`, not both".into()),
        (Some(path), false) => Answerer::from_answer_file(&read(&path, "the answer file")?)
            .map_err(|e| format!("the answer file {path} {e}"))?,
        // Each form is asked in the terminal, as `forms fill` asks it.
        (None, true) => Answerer::Custom(Arc::new(|form: &NativeView| {
            crate::fill::fill_view(form).map_err(|e| e.to_string())
        })),
        (None, false) => Answerer::Page(
            Arc::new(|form: &NativeView| {
                crate::preview::render_view(form, "forms host")
                    .map(|page| page.html)
                    .map_err(|e| format!("cannot make the page: {e}"))
            }),
            page,
        ),
    };
    Ok(Some(HostOptions {
        target,
        protocol,
        call: call.map(|name| (name, arguments)),
        answerer,
        trace,
        core_only,
    }))
}

/// Runs `forms host`: the result JSON on stdout and exit 0; a failed session exits 1 with a
/// message on stderr; a usage error exits 2.
pub fn main(args: Vec<OsString>) -> ExitCode {
    let options = match parse(args) {
        Ok(Some(options)) => options,
        Ok(None) => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => return usage(&message),
    };
    match host::run(options) {
        // The result and the message hold the server's text: printed as the terminal shows it.
        Ok(result) => match crate::print_line(&crate::fill::visible_json(&result.to_string())) {
            Ok(()) => ExitCode::SUCCESS,
            Err(_) => ExitCode::from(2),
        },
        Err(message) => {
            eprintln!("forms host: {}", crate::fill::visible(&message));
            ExitCode::FAILURE
        }
    }
}
