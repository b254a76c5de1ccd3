//! `forms ask fill REQ --db PATH|URL --as NAME [--key KEY]` and `forms ask page REQ …`:
//! answer a form request as NAME, in the terminal or on a local page.
//!
//! The request is read as NAME (who must be allowed to see it). One NAME cannot answer (not in
//! its original audience, no longer a member, contact rights revoked: `not_eligible`) or one
//! no longer open (`conflict`, or `expired`, with the latest state) is refused there, as
//! `respond` would refuse it, before anything is shown. Its stored Data form is asked
//! with the terminal filler of `forms fill` (the same screens, keys and protections), or
//! served as the page of `forms host` (127.0.0.1, a secret URL printed on standard error,
//! `Host` and `Origin` checks, added files copied into a private directory). Every file the
//! person adds (a path typed in the terminal, a file picked on the page) is read here and its
//! bytes sent with the answer as an upload (`upload:<name>`, within the upload limits): the
//! requester gets its own copy, never a path on this machine. The host response is submitted
//! through `respond` with the version read,
//! so a request answered or replaced meanwhile is a `conflict` carrying the latest state, and
//! a response the form's answer rules refuse is `invalid_response` with nothing saved. A
//! terminal that goes away, or a page server that fails, submits nothing (exit 2). The
//! result is one line of JSON on standard output, as every `forms ask` command prints it.

use crate::cli::usage_error;
use crate::io::{print_line, Usage};
use forms_ask::{wire, AskError, Asks, Outcome, Principal, RequestId, State, StoreError};
#[cfg(feature = "host")]
use forms_host::{PageOptions, PageServer};
use forms_runtime::native::NativeView;
use forms_runtime::rules::visible::visible;
use forms_runtime::DataForm;
use serde_json::Value;
use std::io::IsTerminal;
use std::process::ExitCode;
#[cfg(feature = "host")]
use std::sync::Arc;

/// The long help of `fill` and `page`.
const ABOUT: &str = "Answers a request that carries a form as NAME, and submits the response \
with the version read (a request decided or replaced meanwhile is a conflict). `fill` asks in \
the terminal, with the keys of `forms fill` (Enter next / submit, <- back, Space or 1-9 pick, \
Ctrl-D decline, Ctrl-C cancel); `page` serves the form's page on 127.0.0.1 at a secret URL, \
printed on standard error, as `forms host` does. A request NAME may not answer, or one no \
longer open, is refused before anything is shown. Declining and cancelling are saved as the \
person's answer; a terminal that goes away submits nothing (exit 2).";

/// A parsed `forms ask fill|page` command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Args {
    surface: Surface,
    id: String,
    db: String,
    acting: String,
    key: Option<String>,
}

/// `forms ask fill` (`page` = false) or `forms ask page`.
pub fn command(page: bool) -> clap::Command {
    let (name, about) = if page {
        ("page", "Answers a form request on a local page, as NAME.")
    } else {
        ("fill", "Answers a form request in the terminal, as NAME.")
    };
    clap::Command::new(name)
        .about(about)
        .long_about(ABOUT)
        .arg(
            clap::Arg::new("id")
                .value_name("REQ")
                .required(true)
                .help("the request that carries the form"),
        )
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
                .required(true)
                .help("the principal answering (in the request's audience)"),
        )
        .arg(clap::Arg::new("key").long("key").value_name("KEY").help(
            "the retry key of the submission (default: fill-REQ-vVERSION, with the \
                     version read). Once a submission under the default key is saved, any \
                     later one (another run, other answers, a run whose result was lost) is \
                     refused as a conflict carrying the saved request",
        ))
}

impl Args {
    /// The values of `forms ask fill|page`, from its matches.
    pub fn from_matches(name: &str, m: &clap::ArgMatches) -> Result<Args, clap::Error> {
        let text = |id: &str| -> Result<Option<String>, clap::Error> {
            m.try_get_one::<String>(id)
                .map(|v| v.cloned())
                .map_err(|e| clap::Error::raw(clap::error::ErrorKind::ArgumentConflict, e))
        };
        let need = |id: &str| -> Result<String, clap::Error> {
            text(id)?
                .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::MissingRequiredArgument))
        };
        Ok(Args {
            surface: if name == "page" {
                Surface::Page
            } else {
                Surface::Terminal
            },
            id: need("id")?,
            db: need("db")?,
            acting: need("as")?,
            key: text("key")?,
        })
    }

    /// The subcommand's name, for messages.
    pub fn name(&self) -> &'static str {
        match self.surface {
            Surface::Terminal => "fill",
            Surface::Page => "page",
        }
    }
}

/// Where the person answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Surface {
    Terminal,
    Page,
}

/// `forms ask fill|page …`: exit 0 with the resolved request, 1 with a refusal (conflict,
/// invalid_response, not_eligible, a stored form that cannot be read …), 2 for a usage error
/// or a terminal or page that failed (nothing submitted).
pub fn main(args: Args) -> ExitCode {
    let usage = |Usage(message): Usage| usage_error(&["ask", args.name()], &visible(&message));
    if args.surface == Surface::Terminal && !std::io::stdin().is_terminal() {
        return usage(Usage(
            "`ask fill` needs a terminal on standard input to read the answers from; to answer \
             from a script use `forms ask respond --answer JSON|@PATH|-`"
                .into(),
        ));
    }
    let (line, code) = match run(&args) {
        Ok(Ok(line)) => (line, ExitCode::SUCCESS),
        Ok(Err(line)) => (line, ExitCode::from(1)),
        Err(u) => return usage(u),
    };
    match print_line(&line) {
        Ok(()) => code,
        Err(_) => ExitCode::from(2),
    }
}

/// The JSON to print: `Ok` for the saved request, `Err` for a refusal.
fn run(args: &Args) -> Result<Result<Value, Value>, Usage> {
    let refused = |e: forms_ask::AskError| Ok(Err(wire::error(&e)));
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
    // Refused before anything is shown, as `respond` would refuse it: nobody answers a form
    // whose answer cannot be saved.
    if let Err(e) = me.answerable(&request) {
        return refused(e);
    }
    let Some(form) = request.form.as_ref() else {
        return Ok(Err(wire::refusal(
            "invalid_input",
            &format!("request {id} carries no form: answer it with `forms ask respond`"),
        )));
    };
    // A stored form the runtime cannot read is the store's failure, not the command line's.
    let unreadable = |e: &dyn std::fmt::Display| {
        AskError::Store(StoreError::Corrupt(format!(
            "the stored form of request {id}: {e}"
        )))
    };
    let form = match DataForm::from_value(form) {
        Ok(form) => form,
        Err(e) => return refused(unreadable(&e)),
    };
    let view = match NativeView::from_json(form.native_json()) {
        Ok(view) => view,
        Err(e) => return refused(unreadable(&e)),
    };
    // Who asks, above the form: the requester, the request's title and body, its deadline.
    let asker = asker(&request);
    let response = match args.surface {
        Surface::Terminal => crate::fill::fill_view(&view, &asker)
            .map_err(|e| Usage(e.to_string()))?
            .to_string(),
        #[cfg(feature = "host")]
        Surface::Page => page(view, &asker).map_err(Usage)?,
        #[cfg(not(feature = "host"))]
        Surface::Page => {
            return Err(Usage(
                "`ask page` is not built in (it needs the `host` feature)".into(),
            ))
        }
    };
    let key = match &args.key {
        Some(key) => key.clone(),
        None => default_key(&id, request.version),
    };
    // The files the person picked on this machine are sent with the answer (a request that
    // waits takes no paths): their bytes, named in the answer as `upload:<name>`.
    let (response, uploads) = match forms_ask::upload::local_files(&form, &response) {
        Ok(sent) => sent,
        Err(e) => return refused(e),
    };
    match me.respond_with_uploads(
        &id,
        request.version,
        Outcome::Answered,
        Some(&response),
        &uploads,
        &key,
    ) {
        Ok(r) => Ok(Ok(wire::request(&r))),
        // The default key names the request and the version read: it was used before only
        // by a response of this principal that was saved at that version (a run whose result
        // was lost), so the request has moved on. Refused as a conflict with the latest state,
        // as a submission after someone else's would be.
        Err(AskError::RetryKeyReused { .. }) if args.key.is_none() => match me.show(&id) {
            Ok(latest) if latest.state != State::Open || latest.version != request.version => {
                refused(AskError::moved_on(latest))
            }
            Ok(_) => refused(AskError::RetryKeyReused {
                key,
                operation: "respond",
            }),
            Err(e) => refused(e),
        },
        Err(e) => refused(e),
    }
}

/// Who asks the form of `request`, as the person answering it is shown: the requester, the
/// request's title and body (when it has them) and its deadline.
fn asker(request: &forms_ask::Request) -> Vec<(String, String)> {
    let mut lines = vec![("From".to_owned(), request.requester.to_string())];
    if let Some(title) = request.title.as_deref().filter(|t| !t.trim().is_empty()) {
        lines.push(("Request".to_owned(), title.to_owned()));
    }
    if !request.body.trim().is_empty() {
        lines.push(("Message".to_owned(), request.body.clone()));
    }
    lines.push(("Answer by".to_owned(), request.expires_at.to_string()));
    lines
}

/// The retry key used when `--key` is not given.
fn default_key(id: &RequestId, version: u64) -> String {
    format!("fill-{id}-v{version}")
}

#[cfg(feature = "host")]
/// Serves the form's page (the person's page, as `forms host` serves it, headed by `asker`)
/// and waits for its submit; the host response as JSON text. The store is not touched while
/// the runtime runs.
fn page(view: NativeView, asker: &[(String, String)]) -> Result<String, String> {
    let html = crate::preview::render_answer(&view, asker).map_err(|e| e.to_string())?;
    let view = Arc::new(view);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    runtime
        .block_on(async {
            let server = PageServer::start(PageOptions {
                label: "forms ask page",
                ..PageOptions::default()
            })
            .await
            .map_err(|e| format!("cannot serve the page on 127.0.0.1: {e}"))?;
            server.ask(view, html).await
        })
        .map(|response| response.to_string())
}
