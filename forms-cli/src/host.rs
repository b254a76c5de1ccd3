//! `forms host`: a local host for any MCP server. The MCP client lives in
//! `forms_host`; this module reads the files the command line names and gives it the preview page as
//! the browser answerer.

use crate::cli::{usage_error, HostArgs};
use crate::io::{print_line, Usage};
use crate::json_arg::{JsonArg, Reader};
use forms_host::{self as host, Answerer, Asker, HostOptions, PageOptions, Target};
use forms_runtime::native::NativeView;
use forms_runtime::rules::visible::visible;
use serde_json::{Map, Value};
use std::process::ExitCode;
use std::sync::Arc;

/// The session `args` describe: what clap checked, and the files and JSON it names.
fn options(args: HostArgs) -> Result<HostOptions, Usage> {
    let HostArgs {
        url,
        call,
        arguments,
        answer,
        terminal,
        protocol,
        core_only,
        trace,
        open_urls,
        max_file_bytes,
        command,
    } = args;
    let protocol = host::parse_protocol(&protocol).map_err(Usage)?;
    let page = PageOptions {
        max_file_bytes,
        ..PageOptions::default()
    };
    let target = match (url, command) {
        (Some(url), command) if command.is_empty() => Target::Url(url),
        (None, command) if !command.is_empty() => Target::Command(command),
        (Some(_), _) => {
            return Err(Usage(
                "give either `--url` or `-- COMMAND`, not both".into(),
            ))
        }
        (None, _) => {
            return Err(Usage(
                "no server: give `-- COMMAND [ARGS...]` or `--url URL`".into(),
            ))
        }
    };
    // `--terminal` reads the keyboard on standard input (and clap keeps `--answer` from it).
    if terminal && arguments == Some(JsonArg::Stdin) {
        return Err(Usage(
            "`--terminal` reads the keyboard on standard input: give `--args` inline or as \
             @PATH"
                .into(),
        ));
    }
    let mut reader = Reader::new();
    let arguments: Map<String, Value> = match arguments {
        None => Map::new(),
        Some(arg) => reader.json("--args", arg, "a JSON object")?,
    };
    let answerer = match (answer, terminal) {
        (Some(_), true) => {
            return Err(Usage(
                "give either `--answer` or `--terminal`, not both".into(),
            ))
        }
        (Some(arg), false) => Answerer::from_answer_file(&reader.text("--answer", arg)?)
            .map_err(|e| Usage(format!("`--answer` {e}")))?,
        // Each form is asked in the terminal, as `forms fill` asks it.
        (None, true) => Answerer::Custom(Arc::new(|form: &NativeView, asker: &Asker| {
            crate::fill::fill_view(form, &asker.lines).map_err(|e| e.to_string())
        })),
        // The person's page: who asks, the form, and nothing meant for its author.
        (None, false) => Answerer::Page(
            Arc::new(|form: &NativeView, asker: &Asker| {
                crate::preview::render_answer(form, &asker.lines)
                    .map_err(|e| format!("cannot make the page: {e}"))
            }),
            page,
        ),
    };
    // In the terminal, a URL-mode request asks y/n, and only a yes opens the URL.
    let consent: Option<host::ConsentFn> = terminal.then(|| {
        Arc::new(|request: &host::UrlRequest, asker: &Asker| {
            let answer = crate::fill::consent_url(
                &asker.lines,
                &request.message,
                request.split(),
                &request.warnings,
            )
            .map_err(|e| e.to_string())?;
            if answer.get("action").and_then(Value::as_str) == Some("accept") {
                host::open_in_browser(&request.url)?;
            }
            Ok(answer)
        }) as host::ConsentFn
    });
    Ok(HostOptions {
        target,
        protocol,
        call: call.map(|name| (name, arguments)),
        answerer,
        trace,
        core_only,
        consent,
        open_urls,
    })
}

/// Runs `forms host`: the result JSON on stdout and exit 0; a failed session exits 1 with a
/// message on stderr; a usage error exits 2.
pub fn main(args: HostArgs) -> ExitCode {
    let options = match options(args) {
        Ok(options) => options,
        Err(Usage(message)) => return usage_error(&["host"], &message),
    };
    match host::run(options) {
        // The result and the message hold the server's text: printed as the terminal shows it
        // (the result as every JSON line is, through `print_line`).
        Ok(result) => match print_line(&result) {
            Ok(()) => ExitCode::SUCCESS,
            Err(_) => ExitCode::from(2),
        },
        Err(message) => {
            eprintln!("forms host: {}", visible(&message));
            ExitCode::FAILURE
        }
    }
}
