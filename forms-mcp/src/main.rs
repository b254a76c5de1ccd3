//! `forms-mcp`: serves the Data form tool `form_elicitation_v2_request` over MCP.

use forms_ask::{Asks, Principal};
use forms_mcp::config::timeout_from_env;
use forms_mcp::replies::{AskTools, Principals};
use forms_mcp::{http, FormsServer};
use rmcp::ServiceExt;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

/// The environment variable naming the stdio principal of the `ask_*` tools.
const PRINCIPAL_ENV: &str = "FORMS_ASK_PRINCIPAL";

/// The environment variable holding more `NAME=TOKEN` pairs for HTTP.
const TOKENS_ENV: &str = "FORMS_ASK_PRINCIPAL_TOKENS";

const HELP: &str = "\
forms-mcp: serves the MCP tool form_elicitation_v2_request, which asks the user a native
form through the host (openai/elicitation/create) and returns the checked answer.

Usage:
  forms-mcp                       serve over stdio (newline-delimited JSON-RPC)
  forms-mcp --http 127.0.0.1:PORT serve streamable HTTP at http://127.0.0.1:PORT/mcp
                                  (PORT 0 picks a free port; the address is printed on
                                  stderr as `listening on http://127.0.0.1:PORT/mcp`)
  forms-mcp --asks DB --principal NAME
                                  also serve the durable requested-reply tools ask_open,
                                  ask_show, ask_respond, ask_wait, ask_cancel, ask_replace,
                                  ask_supersede, ask_log, ask_message, ask_redeem,
                                  ask_report, ask_list, ask_members, ask_join, ask_remove,
                                  ask_revoke and ask_restore over the store DB (a SQLite path or a
                                  postgres:// URL), acting as NAME (stdio: one process is
                                  one principal; default $FORMS_ASK_PRINCIPAL)
  forms-mcp --http ADDR --asks DB --principal-token NAME=TOKEN...
                                  the same over HTTP: a call acts as the principal its
                                  `Authorization: Bearer TOKEN` maps to; a call without a
                                  known token is refused (unauthenticated)
  forms-mcp --core-fallback       also ask a client with core elicitation but without the
                                  openai/elicitation extension, through a core
                                  elicitation/create compiled from the form (an extension of
                                  the contract; a form with a files question still gets
                                  unsupported_client)
  forms-mcp --help                this text
  forms-mcp --version             the version

Environment:
  DATA_FORMS_TIMEOUT_MS  how long a call waits for the submission, an integer from 1 to
                         1500000 milliseconds; default 900000 (15 minutes). An invalid
                         value stops the server at start.
  FORMS_STATE_KEY        the key sealing multi-round-trip request states (protocol
                         2026-07-28), at least 32 bytes written in hex; instances behind
                         one load balancer need the same key. Default: random per process.
  FORMS_ASK_PRINCIPAL    the stdio principal of the ask_* tools when --principal is not given.
  FORMS_ASK_PRINCIPAL_TOKENS
                         more NAME=TOKEN pairs for --http, separated by whitespace; unlike
                         --principal-token it keeps the tokens out of the process list.

The client must advertise capabilities.extensions[\"openai/elicitation\"].form; the server
speaks MCP protocol versions up to 2026-07-28 (multi-round-trip requests from 2026-07-28,
mid-call openai/elicitation/create requests before).
";

enum Mode {
    Stdio,
    Http(SocketAddr),
    Help,
    Version,
}

/// The command line: the transport and the requested-reply options.
struct Options {
    mode: Mode,
    asks: Option<String>,
    principal: Option<String>,
    tokens: Vec<(String, String)>,
    core_fallback: bool,
}

fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        mode: Mode::Stdio,
        asks: None,
        principal: None,
        tokens: Vec::new(),
        core_fallback: false,
    };
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        let mut value = |what: &str| {
            args.next()
                .cloned()
                .ok_or_else(|| format!("`{flag}` takes {what}"))
        };
        match flag.as_str() {
            "--help" | "-h" => options.mode = Mode::Help,
            "--version" | "-V" => options.mode = Mode::Version,
            "--http" => {
                let addr = value("an address such as 127.0.0.1:8080")?;
                options.mode = Mode::Http(addr.parse().map_err(|_| {
                    format!("`--http` takes an address such as 127.0.0.1:8080, got {addr:?}")
                })?);
            }
            "--core-fallback" => options.core_fallback = true,
            "--asks" => options.asks = Some(value("a SQLite path or a postgres:// URL")?),
            "--principal" => options.principal = Some(value("a principal name")?),
            "--principal-token" => {
                let pair = value("NAME=TOKEN")?;
                let (name, token) = pair
                    .split_once('=')
                    .filter(|(n, t)| !n.is_empty() && !t.trim().is_empty())
                    .ok_or_else(|| "`--principal-token` takes NAME=TOKEN".to_owned())?;
                options
                    .tokens
                    .push((name.to_owned(), token.trim().to_owned()));
            }
            other => {
                return Err(format!(
                    "unexpected argument {other:?}; see `forms-mcp --help`"
                ))
            }
        }
    }
    Ok(options)
}

/// Reads `NAME=TOKEN`.
fn token_pair(pair: &str) -> Result<(String, String), String> {
    pair.split_once('=')
        .filter(|(n, t)| !n.is_empty() && !t.trim().is_empty())
        .map(|(n, t)| (n.to_owned(), t.trim().to_owned()))
        .ok_or_else(|| "a principal token is written NAME=TOKEN".to_owned())
}

/// The requested-reply tools the options ask for, or why they cannot be served.
fn replies(options: &Options) -> Result<Option<AskTools>, String> {
    let http = matches!(options.mode, Mode::Http(_));
    let Some(location) = &options.asks else {
        if options.principal.is_some() || !options.tokens.is_empty() {
            return Err("`--principal` and `--principal-token` need `--asks DB`".into());
        }
        return Ok(None);
    };
    let principals = if http {
        let mut pairs = options.tokens.clone();
        if let Ok(text) = std::env::var(TOKENS_ENV) {
            for pair in text.split_whitespace() {
                pairs.push(token_pair(pair).map_err(|e| format!("{TOKENS_ENV}: {e}"))?);
            }
        }
        if options.principal.is_some() {
            return Err("over HTTP the principal comes from the bearer token: use \
                        `--principal-token NAME=TOKEN`, not `--principal`"
                .into());
        }
        if pairs.is_empty() {
            return Err(
                "`--asks` over HTTP needs at least one `--principal-token NAME=TOKEN`".into(),
            );
        }
        let mut tokens = Vec::with_capacity(pairs.len());
        for (name, token) in &pairs {
            if tokens.iter().any(|(t, _): &(String, Principal)| t == token) {
                return Err(format!("the token of {name:?} is given twice"));
            }
            let principal = Principal::new(name.as_str()).map_err(|e| e.to_string())?;
            tokens.push((token.clone(), principal));
        }
        Principals::tokens(tokens)
    } else {
        if !options.tokens.is_empty() {
            return Err("`--principal-token` is for `--http`; over stdio use `--principal`".into());
        }
        let name = match &options.principal {
            Some(name) => name.clone(),
            None => std::env::var(PRINCIPAL_ENV).map_err(|_| {
                format!("`--asks` over stdio needs `--principal NAME` (or {PRINCIPAL_ENV})")
            })?,
        };
        Principals::fixed(Principal::new(name).map_err(|e| e.to_string())?)
    };
    let asks = Asks::open_location(location).map_err(|e| format!("cannot open {location}: {e}"))?;
    Ok(Some(AskTools::new(Arc::new(asks), principals)))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = match parse_args(&args) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("forms-mcp: {message}");
            return ExitCode::from(2);
        }
    };
    match options.mode {
        Mode::Help => {
            print!("{HELP}");
            return ExitCode::SUCCESS;
        }
        Mode::Version => {
            println!("forms-mcp {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Mode::Stdio | Mode::Http(_) => {}
    }
    let timeout = match timeout_from_env() {
        Ok(timeout) => timeout,
        Err(error) => {
            eprintln!("forms-mcp: {error}");
            return ExitCode::from(2);
        }
    };
    let mut server = match forms_mcp::state::state_key_from_env()
        .and_then(|key| FormsServer::with_state_key(timeout, &key))
    {
        Ok(server) => server.with_core_fallback(options.core_fallback),
        Err(error) => {
            eprintln!("forms-mcp: {error}");
            return ExitCode::from(2);
        }
    };
    // Opened before the async runtime starts: the PostgreSQL client runs its own.
    match replies(&options) {
        Ok(Some(tools)) => server = server.with_replies(tools),
        Ok(None) => {}
        Err(error) => {
            eprintln!("forms-mcp: {error}");
            return ExitCode::from(2);
        }
    }
    let mode = options.mode;
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("forms-mcp: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async move {
        match mode {
            Mode::Http(addr) => run_http(server, addr).await,
            _ => run_stdio(server).await,
        }
    })
}

async fn run_stdio(server: FormsServer) -> ExitCode {
    let running = match server.serve(forms_mcp::transport::stdio()).await {
        Ok(running) => running,
        Err(error) => {
            eprintln!("forms-mcp: the client did not initialize: {error}");
            return ExitCode::FAILURE;
        }
    };
    match running.waiting().await {
        Ok(_) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("forms-mcp: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run_http(server: FormsServer, addr: SocketAddr) -> ExitCode {
    let listener = match http::bind(addr).await {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("forms-mcp: cannot listen on {addr}: {error}");
            return ExitCode::FAILURE;
        }
    };
    let local = listener.local_addr().unwrap_or(addr);
    eprintln!("listening on http://{local}{}", http::ENDPOINT);
    let shutdown = tokio_util::sync::CancellationToken::new();
    let on_signal = shutdown.clone();
    tokio::spawn(async move {
        let _ = tokio::signal::ctrl_c().await;
        on_signal.cancel();
    });
    match http::serve(server, listener, shutdown).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("forms-mcp: {error}");
            ExitCode::FAILURE
        }
    }
}
