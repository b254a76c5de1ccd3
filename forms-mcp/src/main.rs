//! `forms-mcp`: serves the Data form tool `form_elicitation_v2_request` over MCP.

use forms_ask::{Asks, Principal, Store, SystemClock};
use forms_mcp::auth::Tokens;
use forms_mcp::config::timeout_from_env;
use forms_mcp::http::{self, HttpOptions};
use forms_mcp::replies::{AskTools, Principals};
use forms_mcp::FormsServer;
use rmcp::ServiceExt;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

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
                                  known token is refused (unauthenticated); each token
                                  has at least 16 characters
  forms-mcp --state-store DB      remember answered multi-round-trip request states (protocol
                                  2026-07-28) in DB, a SQLite path or a postgres:// URL,
                                  until they expire: a state is then single use across every
                                  instance sharing DB and FORMS_STATE_KEY, and across
                                  restarts. Default: the `--asks` store when given, else
                                  memory (single use within this process only)
  forms-mcp --core-fallback       also ask a client with core elicitation but without the
                                  openai/elicitation extension, through a core
                                  elicitation/create compiled from the form (an extension of
                                  the contract; a form with a files question still gets
                                  unsupported_client)
  forms-mcp --help                this text
  forms-mcp --version             the version

HTTP checks and limits (defaults in brackets):
  --allow-origin ORIGIN   also accept requests whose Origin is ORIGIN
                          (scheme://host[:port] or null; repeatable). By default a
                          present Origin must be the server's own (http://127.0.0.1:PORT,
                          http://localhost:PORT, http://[::1]:PORT); others get 403.
  --allow-host HOST       also accept the Host header HOST (a name, any port) or
                          HOST:PORT (repeatable); `*` accepts any Host. By default Host
                          must be 127.0.0.1:PORT, localhost:PORT, [::1]:PORT or the
                          bound address (refuses DNS rebinding); others get 403.
  --header-timeout SECS   time for a request's headers to arrive, and for an idle
                          connection to stay open [10]
  --body-timeout SECS     time for a request body to arrive whole [30]
  --max-connections N     connections open at once; past that a new one replaces the
                          oldest idle connection, or waits while all are busy [256,
                          lowered to the open-file limit minus 32]
  --max-sessions N        sessions alive at once; when full, a new one replaces the
                          session idle the longest, or gets 503 if all are busy [256]
  --session-idle SECS     a session with no request and no event stream open for this
                          long is closed; a call waiting for the person keeps it [300]
  --body-memory MIB       memory for request bodies past their first 64 KiB, shared
                          by all requests; a body that finds it spent gets 503 [32]
  Request bodies are at most 4 MiB. A request with two Authorization headers gets
  400; a session opened with one bearer token (or none) refuses any other (403).

Environment:
  DATA_FORMS_TIMEOUT_MS  how long a call waits for the submission, an integer from 1 to
                         1500000 milliseconds; default 900000 (15 minutes). An invalid
                         value stops the server at start.
  FORMS_STATE_KEY        the key sealing multi-round-trip request states (protocol
                         2026-07-28), at least 32 random bytes written in hex (a key of
                         zero bytes or a short repeated pattern stops the server at
                         start); instances behind one load balancer need the same key
                         (and one store, `--asks` or `--state-store`, to refuse a state
                         answered on another instance). Default: random per process.
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

/// The command line: the transport, its limits and the requested-reply options.
struct Options {
    mode: Mode,
    asks: Option<String>,
    /// Where used request states are remembered (`--state-store`).
    state_store: Option<String>,
    principal: Option<String>,
    tokens: Vec<(String, String)>,
    core_fallback: bool,
    http: HttpOptions,
    /// Whether an HTTP-only flag was given.
    http_flags: bool,
}

/// Reads a number of seconds, more than 0 and at most a day.
fn seconds(flag: &str, text: &str) -> Result<Duration, String> {
    text.parse::<f64>()
        .ok()
        .filter(|s| *s > 0.0 && *s <= 86_400.0)
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| format!("`{flag}` takes a number of seconds from 0 to 86400, got {text:?}"))
}

/// Reads a count from 1 to `max`.
fn count(flag: &str, text: &str, max: usize) -> Result<usize, String> {
    text.parse::<usize>()
        .ok()
        .filter(|n| (1..=max).contains(n))
        .ok_or_else(|| format!("`{flag}` takes a whole number from 1 to {max}, got {text:?}"))
}

fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        mode: Mode::Stdio,
        asks: None,
        state_store: None,
        principal: None,
        tokens: Vec::new(),
        http: HttpOptions::default(),
        http_flags: false,
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
            "--state-store" => {
                options.state_store = Some(value("a SQLite path or a postgres:// URL")?);
            }
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
            "--allow-origin" => {
                let origin = http::parse_origin(&value("an origin such as https://app.example")?)
                    .map_err(|e| format!("`--allow-origin`: {e}"))?;
                options.http.allow_origins.push(origin);
                options.http_flags = true;
            }
            "--allow-host" => {
                let host = value("a host name, HOST:PORT or *")?;
                if host.is_empty() || host.contains(['/', ' ', ',']) {
                    return Err(format!(
                        "`--allow-host` takes a host name, HOST:PORT or *, got {host:?}"
                    ));
                }
                options.http.allow_hosts.push(host);
                options.http_flags = true;
            }
            "--header-timeout" => {
                options.http.header_timeout = seconds(flag, &value("seconds")?)?;
                options.http_flags = true;
            }
            "--body-timeout" => {
                options.http.body_timeout = seconds(flag, &value("seconds")?)?;
                options.http_flags = true;
            }
            "--session-idle" => {
                options.http.session_idle = seconds(flag, &value("seconds")?)?;
                options.http_flags = true;
            }
            "--max-connections" => {
                options.http.max_connections = count(flag, &value("a number")?, 1_000_000)?;
                options.http_flags = true;
            }
            "--max-sessions" => {
                options.http.max_sessions = count(flag, &value("a number")?, 1_000_000)?;
                options.http_flags = true;
            }
            "--body-memory" => {
                let mib = count(flag, &value("a number of MiB")?, 1 << 20)?;
                options.http.body_memory = mib * 1024 * 1024;
                options.http_flags = true;
            }
            other => {
                return Err(format!(
                    "unexpected argument {other:?}; see `forms-mcp --help`"
                ))
            }
        }
    }
    if options.http_flags && !matches!(options.mode, Mode::Http(_) | Mode::Help | Mode::Version) {
        return Err("the HTTP checks and limits are for `--http ADDR`".into());
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

/// The requested-reply tools the options ask for (with their store, and the token table of
/// HTTP callers), or why they cannot be served.
#[allow(clippy::type_complexity)]
fn replies(options: &Options) -> Result<Option<(AskTools, Arc<dyn Store>, Tokens)>, String> {
    let http = matches!(options.mode, Mode::Http(_));
    let Some(location) = &options.asks else {
        if options.principal.is_some() || !options.tokens.is_empty() {
            return Err("`--principal` and `--principal-token` need `--asks DB`".into());
        }
        return Ok(None);
    };
    let (principals, tokens) = if http {
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
        for (name, token) in pairs {
            let principal = Principal::new(name.as_str()).map_err(|e| e.to_string())?;
            tokens.push((token, principal));
        }
        let tokens = Tokens::new(tokens).map_err(|e| e.to_string())?;
        (Principals::tokens(tokens.clone()), tokens)
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
        let principal = Principal::new(name).map_err(|e| e.to_string())?;
        (Principals::fixed(principal), Tokens::default())
    };
    let store = open_store(location)?;
    let asks = Asks::with_clock(Arc::clone(&store), Arc::new(SystemClock));
    Ok(Some((
        AskTools::new(Arc::new(asks), principals),
        store,
        tokens,
    )))
}

/// Opens the store at `location` (a SQLite path or a `postgres://` URL).
fn open_store(location: &str) -> Result<Arc<dyn Store>, String> {
    forms_ask::store::open_location(location).map_err(|e| format!("cannot open {location}: {e}"))
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
    let mut http_options = options.http.clone();
    let mut asks_store = None;
    match replies(&options) {
        Ok(Some((tools, store, tokens))) => {
            server = server.with_replies(tools);
            asks_store = Some(store);
            http_options.tokens = tokens;
        }
        Ok(None) => {}
        Err(error) => {
            eprintln!("forms-mcp: {error}");
            return ExitCode::from(2);
        }
    }
    // Used request states: in the `--state-store` store (the `--asks` one when it names the
    // same location), else in the `--asks` store, else in memory.
    let state_store = match (&options.state_store, asks_store) {
        (Some(location), Some(store)) if options.asks.as_deref() == Some(location.as_str()) => {
            Some(store)
        }
        (Some(location), _) => match open_store(location) {
            Ok(store) => Some(store),
            Err(error) => {
                eprintln!("forms-mcp: `--state-store`: {error}");
                return ExitCode::from(2);
            }
        },
        (None, store) => store,
    };
    if let Some(store) = state_store {
        server = server.with_state_store(store);
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
            Mode::Http(addr) => run_http(server, addr, http_options).await,
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

async fn run_http(server: FormsServer, addr: SocketAddr, options: HttpOptions) -> ExitCode {
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
    let cap = http::connection_cap(&options);
    if cap < options.max_connections {
        eprintln!(
            "forms-mcp: serving at most {cap} connections at once, to fit the open-file limit"
        );
    }
    match http::serve(server, listener, options, shutdown).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("forms-mcp: {error}");
            ExitCode::FAILURE
        }
    }
}
