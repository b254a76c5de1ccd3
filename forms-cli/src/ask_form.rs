//! `forms ask fill REQ --db PATH|URL --as NAME [--key KEY]` and `forms ask page REQ …`:
//! answer a form request as NAME, in the terminal or on a local page.
//!
//! The request is read as NAME (who must be allowed to see it); its stored Data form is asked
//! with the terminal filler of `forms fill` (the same screens, keys and protections), or
//! served as the page of `forms host` (127.0.0.1, a secret URL printed on standard error,
//! `Host` and `Origin` checks, added files copied into a private directory and answered by
//! the copy's path). The host response is submitted through `respond` with the version read,
//! so a request answered or replaced meanwhile is a `conflict` carrying the latest state, and
//! a response the form's answer rules refuse is `invalid_response` with nothing saved. The
//! result is one line of JSON on standard output, as every `forms ask` command prints it.

use crate::Usage;
use forms_ask::{wire, Asks, Outcome, Principal, RequestId};
use forms_mcp::host::{PageOptions, PageServer};
use forms_runtime::native::NativeView;
use forms_runtime::DataForm;
use std::ffi::OsString;
use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;

const USAGE: &str = "usage: forms ask fill REQ --db PATH|URL --as NAME [--key KEY]
       forms ask page REQ --db PATH|URL --as NAME [--key KEY]

Answers a request that carries a form as NAME, and submits the response with the version
read (a request decided or replaced meanwhile is a conflict). `fill` asks in the terminal,
with the keys of `forms fill` (Enter next / submit, <- back, Space or 1-9 pick, Ctrl-D
decline, Ctrl-C cancel); `page` serves the form's page on 127.0.0.1 at a secret URL, printed
on standard error, as `forms host` does. Declining and cancelling are saved as the person's
answer.

  --db PATH|URL        a SQLite file, or a postgres:// URL
  --as NAME            the principal answering (in the request's audience)
  --key KEY            the retry key (default: fill-REQ-vVERSION)
";

struct Args {
    id: String,
    db: String,
    acting: String,
    key: Option<String>,
}

fn parse(args: Vec<OsString>) -> Result<Args, Usage> {
    let mut args = args.into_iter();
    let (mut id, mut db, mut acting, mut key) = (None, None, None, None);
    while let Some(arg) = args.next() {
        let arg = arg
            .into_string()
            .map_err(|a| Usage(format!("argument `{}` is not UTF-8", a.to_string_lossy())))?;
        let (name, inline) = match arg.strip_prefix("--") {
            Some(flag) => match flag.split_once('=') {
                Some((n, v)) => (Some(n.to_owned()), Some(v.to_owned())),
                None => (Some(flag.to_owned()), None),
            },
            None => (None, None),
        };
        let Some(name) = name else {
            if id.replace(arg).is_some() {
                return Err(Usage("`ask fill` takes one request ID".into()));
            }
            continue;
        };
        let slot = match name.as_str() {
            "db" => &mut db,
            "as" => &mut acting,
            "key" => &mut key,
            other => return Err(Usage(format!("unknown option `--{other}` for `ask fill`"))),
        };
        let value = match inline {
            Some(v) => v,
            None => args
                .next()
                .and_then(|v| v.into_string().ok())
                .ok_or_else(|| Usage(format!("`--{name}` needs a value")))?,
        };
        if slot.replace(value).is_some() {
            return Err(Usage(format!("`--{name}` given twice")));
        }
    }
    Ok(Args {
        id: id.ok_or_else(|| Usage("`ask fill` needs a request ID".into()))?,
        db: db.ok_or_else(|| Usage("`ask fill` needs `--db PATH|URL`".into()))?,
        acting: acting.ok_or_else(|| Usage("`ask fill` needs `--as NAME`".into()))?,
        key,
    })
}

/// Where the person answers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Surface {
    Terminal,
    Page,
}

/// `forms ask fill|page …`: exit 0 with the resolved request, 1 with a refusal (conflict,
/// invalid_response, not_eligible …), 2 for a usage error or a terminal or page that failed.
pub(crate) fn main(op: &str, args: Vec<OsString>) -> ExitCode {
    let surface = if op == "page" {
        Surface::Page
    } else {
        Surface::Terminal
    };
    if args
        .iter()
        .any(|a| a.to_str().is_some_and(|a| a == "--help" || a == "-h"))
    {
        print!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let usage = |Usage(message): Usage| {
        eprint!(
            "forms ask {op}: {}\n\n{USAGE}",
            crate::fill::visible(&message)
        );
        ExitCode::from(2)
    };
    let args = match parse(args) {
        Ok(a) => a,
        Err(u) => return usage(u),
    };
    if surface == Surface::Terminal && !std::io::stdin().is_terminal() {
        return usage(Usage(
            "`ask fill` needs a terminal on standard input to read the answers from; to answer \
             from a script use `forms ask respond --answer JSON`"
                .into(),
        ));
    }
    let (line, code) = match run(&args, surface) {
        Ok(Ok(line)) => (line, ExitCode::SUCCESS),
        Ok(Err(line)) => (line, ExitCode::from(1)),
        Err(u) => return usage(u),
    };
    match crate::print_line(&line) {
        Ok(()) => code,
        Err(_) => ExitCode::from(2),
    }
}

/// The line to print: `Ok` for the saved request, `Err` for a refusal.
fn run(args: &Args, surface: Surface) -> Result<Result<String, String>, Usage> {
    let refused = |e: forms_ask::AskError| Ok(Err(wire::error(&e).to_string()));
    let asks = match Asks::open_location(&args.db) {
        Ok(a) => a,
        Err(e) => return refused(e),
    };
    let (me, id) = match (
        Principal::new(args.acting.as_str()),
        RequestId::new(args.id.as_str()),
    ) {
        (Ok(me), Ok(id)) => (me, id),
        (Err(e), _) | (_, Err(e)) => return refused(e),
    };
    let me = asks.as_principal(&me);
    let request = match me.show(&id) {
        Ok(r) => r,
        Err(e) => return refused(e),
    };
    let Some(form) = request.form.as_ref() else {
        return Ok(Err(wire::refusal(
            "invalid_input",
            &format!("request {id} carries no form: answer it with `forms ask respond`"),
        )
        .to_string()));
    };
    let form = DataForm::from_value(form).map_err(|e| Usage(format!("the stored form: {e}")))?;
    let response = match surface {
        Surface::Terminal => {
            let view = NativeView::from_json(form.native_json())
                .map_err(|e| Usage(format!("the stored form: {e}")))?;
            crate::fill::fill_view(&view)
                .map_err(|e| Usage(e.to_string()))?
                .to_string()
        }
        Surface::Page => page(&form).map_err(Usage)?,
    };
    let key = args
        .key
        .clone()
        .unwrap_or_else(|| format!("fill-{id}-v{}", request.version));
    match me.respond(
        &id,
        request.version,
        Outcome::Answered,
        Some(&response),
        &key,
    ) {
        Ok(r) => Ok(Ok(wire::request(&r).to_string())),
        Err(e) => refused(e),
    }
}

/// Serves the form's page (the preview page, as `forms host` serves it) and waits for its
/// submit; the host response as JSON text. The store is not touched while the runtime runs.
fn page(form: &DataForm) -> Result<String, String> {
    let html = crate::preview::render(&form.to_json(), "forms ask")
        .map_err(|e| e.to_string())?
        .html;
    let view = Arc::new(NativeView::from_json(form.native_json()).map_err(|e| e.to_string())?);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    runtime
        .block_on(async {
            let server = PageServer::start(PageOptions::default())
                .await
                .map_err(|e| format!("cannot serve the page on 127.0.0.1: {e}"))?;
            server.ask(view, html).await
        })
        .map(|response| response.to_string())
}
