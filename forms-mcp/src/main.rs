//! `forms-mcp`: serves the Data form tool `form_elicitation_v2_request` over MCP.

use clap::error::{ContextKind, ContextValue};
use clap::{Args, CommandFactory, Parser};
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

const ABOUT: &str = "\
Serves the MCP tool form_elicitation_v2_request, which asks the user a native form through
the host (openai/elicitation/create) and returns the checked answer. Without --http it serves
stdio (newline-delimited JSON-RPC).";

const AFTER_HELP: &str = "\
Request bodies are at most 4 MiB. A request with two Authorization headers gets 400; a session
opened with one bearer token (or none) refuses any other (403).

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
mid-call openai/elicitation/create requests before).";

/// The command line: the transport, its limits and the requested-reply options.
#[derive(Debug, Parser)]
#[command(name = "forms-mcp", version, about = ABOUT, after_help = AFTER_HELP)]
struct Options {
    /// Serve streamable HTTP at http://ADDR/mcp instead of stdio (port 0 picks a free port;
    /// the address is printed on stderr as `listening on http://127.0.0.1:PORT/mcp`)
    #[arg(long, value_name = "ADDR")]
    http: Option<SocketAddr>,
    /// Also serve the durable requested-reply tools (ask_open, ask_show, ask_respond, ...)
    /// over the store DB, a SQLite path or a postgres:// URL
    #[arg(long, value_name = "DB")]
    asks: Option<String>,
    /// Over stdio, the principal the ask_* tools act as (one process is one principal;
    /// default $FORMS_ASK_PRINCIPAL)
    #[arg(long, value_name = "NAME")]
    principal: Option<String>,
    /// Over HTTP, a bearer token and the principal it acts as (repeatable; at least 16
    /// characters each); a call without a known token is refused (unauthenticated)
    #[arg(long = "principal-token", value_name = "NAME=TOKEN")]
    tokens: Vec<String>,
    /// Remember answered multi-round-trip request states (2026-07-28) in DB, a SQLite path or
    /// a postgres:// URL, until they expire: single use across every instance sharing DB and
    /// FORMS_STATE_KEY, and across restarts [default: the --asks store when given, else
    /// memory, single use within this process only]
    #[arg(long, value_name = "DB")]
    state_store: Option<String>,
    /// Also ask a client with core elicitation but without the openai/elicitation extension,
    /// through a core elicitation/create compiled from the form (a form with a files question
    /// still gets unsupported_client)
    #[arg(long)]
    core_fallback: bool,
    /// Also ask a client with URL-mode elicitation but without the openai/elicitation
    /// extension (protocol 2025-11-25) on the form's page, served on 127.0.0.1 at a secret URL
    /// behind a code given in the request's message: a form a core form does not carry
    /// whole (files, resource cards, pictures, option descriptions)
    #[arg(long)]
    url_mode: bool,
    /// With --url-mode: every form goes to a URL-mode client on the page
    #[arg(long, requires = "url_mode")]
    page_preferred: bool,
    /// With --url-mode: the forms waiting on pages at once; a call that would open one more
    /// is not asked and ends in transport_error [default: 64]
    #[arg(long, value_name = "N", requires = "url_mode", value_parser = count::<100_000>)]
    max_pages: Option<usize>,
    #[command(flatten)]
    http_limits: HttpLimits,
}

/// The HTTP checks and limits (with `--http` only).
#[derive(Debug, Args)]
#[command(next_help_heading = "HTTP checks and limits")]
struct HttpLimits {
    /// Also accept requests whose Origin is ORIGIN (scheme://host[:port] or null; repeatable).
    /// By default a present Origin must be the server's own (http://127.0.0.1:PORT,
    /// http://localhost:PORT, http://[::1]:PORT); others get 403
    #[arg(long, value_name = "ORIGIN", requires = "http", value_parser = http::parse_origin)]
    allow_origin: Vec<String>,
    /// Also accept the Host header HOST (a name, any port) or HOST:PORT (repeatable); `*`
    /// accepts any Host. By default Host must be 127.0.0.1:PORT, localhost:PORT, [::1]:PORT
    /// or the bound address (refuses DNS rebinding); others get 403
    #[arg(long, value_name = "HOST", requires = "http", value_parser = allowed_host)]
    allow_host: Vec<String>,
    /// Time for a request's headers to arrive, and for an idle connection to stay open
    /// [default: 10]
    #[arg(long, value_name = "SECS", requires = "http", value_parser = seconds)]
    header_timeout: Option<Duration>,
    /// Time for a request body to arrive whole [default: 30]
    #[arg(long, value_name = "SECS", requires = "http", value_parser = seconds)]
    body_timeout: Option<Duration>,
    /// Connections open at once; past that a new one replaces the oldest idle connection, or
    /// waits while all are busy [default: 256, lowered to the open-file limit minus 32]
    #[arg(long, value_name = "N", requires = "http", value_parser = count::<1_000_000>)]
    max_connections: Option<usize>,
    /// Sessions alive at once; when full, a new one replaces the session idle the longest,
    /// or gets 503 if all are busy [default: 256]
    #[arg(long, value_name = "N", requires = "http", value_parser = count::<1_000_000>)]
    max_sessions: Option<usize>,
    /// A session with no request and no event stream open for this long is closed; a call
    /// waiting for the person keeps it [default: 300]
    #[arg(long, value_name = "SECS", requires = "http", value_parser = seconds)]
    session_idle: Option<Duration>,
    /// Memory for request bodies past their first 64 KiB, shared by all requests and by the
    /// answers kept for waiting asks; a body that finds it spent gets 503 [default: 32]
    #[arg(long, value_name = "MIB", requires = "http", value_parser = count::<{ 1 << 20 }>)]
    body_memory: Option<usize>,
}

impl HttpLimits {
    /// The HTTP options: the defaults, with what the command line sets.
    fn options(&self) -> HttpOptions {
        let mut http = HttpOptions::default();
        http.allow_origins.extend(self.allow_origin.iter().cloned());
        http.allow_hosts.extend(self.allow_host.iter().cloned());
        if let Some(t) = self.header_timeout {
            http.header_timeout = t;
        }
        if let Some(t) = self.body_timeout {
            http.body_timeout = t;
        }
        if let Some(t) = self.session_idle {
            http.session_idle = t;
        }
        if let Some(n) = self.max_connections {
            http.max_connections = n;
        }
        if let Some(n) = self.max_sessions {
            http.max_sessions = n;
        }
        if let Some(mib) = self.body_memory {
            http.body_memory = mib * 1024 * 1024;
        }
        http
    }
}

/// Reads a number of seconds, more than 0 and at most a day.
fn seconds(text: &str) -> Result<Duration, String> {
    text.parse::<f64>()
        .ok()
        .filter(|s| *s > 0.0 && *s <= 86_400.0)
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| "a number of seconds from 0 to 86400".to_owned())
}

/// Reads a count from 1 to `MAX`.
fn count<const MAX: usize>(text: &str) -> Result<usize, String> {
    text.parse::<usize>()
        .ok()
        .filter(|n| (1..=MAX).contains(n))
        .ok_or_else(|| format!("a whole number from 1 to {MAX}"))
}

/// Reads an allowed Host header.
fn allowed_host(text: &str) -> Result<String, String> {
    if text.is_empty() || text.contains(['/', ' ', ',']) {
        Err("a host name, HOST:PORT or *".to_owned())
    } else {
        Ok(text.to_owned())
    }
}

/// An environment variable's text: `None` when it is not set, an error naming it when it is
/// not UTF-8 (never silently left out).
fn env_text(name: &str) -> Result<Option<String>, String> {
    match std::env::var(name) {
        Ok(text) => Ok(Some(text)),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => Err(format!("{name} is not UTF-8")),
    }
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
    let http = options.http.is_some();
    let Some(location) = &options.asks else {
        if options.principal.is_some() || !options.tokens.is_empty() {
            return Err("`--principal` and `--principal-token` need `--asks DB`".into());
        }
        return Ok(None);
    };
    let (principals, tokens) = if http {
        let mut pairs = Vec::new();
        for pair in &options.tokens {
            pairs.push(token_pair(pair).map_err(|e| format!("`--principal-token`: {e}"))?);
        }
        if let Some(text) = env_text(TOKENS_ENV)? {
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
            None => env_text(PRINCIPAL_ENV)?.ok_or_else(|| {
                format!("`--asks` over stdio needs `--principal NAME` (or {PRINCIPAL_ENV})")
            })?,
        };
        let principal = Principal::new(name).map_err(|e| e.to_string())?;
        (Principals::fixed(principal), Tokens::default())
    };
    let store = open_store(location)?;
    let asks = Asks::with_clock(Arc::clone(&store), Arc::new(SystemClock))
        .with_quotas(forms_ask::Quotas::from_env()?);
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
    let options = match Options::try_parse() {
        Ok(options) => options,
        Err(mut error) => {
            // clap's message and usage (exit 2), or the help or version asked for (exit 0).
            // clap leaves the usage out of some errors (a bad or missing value): every usage
            // error shows it.
            if error.use_stderr() && error.get(ContextKind::Usage).is_none() {
                let usage = Options::command().render_usage();
                error.insert(ContextKind::Usage, ContextValue::StyledStr(usage));
            }
            let _ = error.print();
            return ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2));
        }
    };
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
        Ok(server) => server
            .with_core_fallback(options.core_fallback)
            .with_url_mode(options.url_mode, options.page_preferred)
            .with_max_pages(
                options
                    .max_pages
                    .unwrap_or(forms_mcp::page::DEFAULT_MAX_PAGES),
            ),
        Err(error) => {
            eprintln!("forms-mcp: {error}");
            return ExitCode::from(2);
        }
    };
    // Opened before the async runtime starts: the PostgreSQL client runs its own.
    let mut http_options = options.http_limits.options();
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
    let http = options.http;
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
        match http {
            Some(addr) => run_http(server, addr, http_options).await,
            None => run_stdio(server).await,
        }
    })
}

async fn run_stdio(server: FormsServer) -> ExitCode {
    // Standard input and output through the runtime's IO driver when both are pipes (as MCP
    // clients start servers), on descriptors of their own, so neither a read nor a write
    // waits for a thread of the blocking pool (rmcp's `stdio_pipes`; any other stream: the
    // blocking handles of `forms_mcp::transport::stdio`). A sequential call is two round trips
    // between processes, and each hand-off to that pool was a thread wake-up on the way.
    let (read, write) = rmcp::transport::stdio_pipes();
    let running = match server
        .serve(forms_mcp::transport::capture(read, write))
        .await
    {
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
