//! The streamable HTTP transport: the MCP endpoint `/mcp` on a local address.
//!
//! Whatever connects is treated as hostile ([`HttpOptions`] holds every limit):
//! - `Host` must name the bound address (`127.0.0.1:PORT`, `localhost:PORT`, `[::1]:PORT`,
//!   or the bound IP), so a DNS-rebound name is refused (403); `--allow-host` adds names.
//! - A present `Origin` must be the server's own origin (`http://` + an allowed host), or
//!   one given with `--allow-origin`; any other is refused (403). Requests without `Origin`
//!   (not from a browser) pass.
//! - Headers must arrive within the header time-out, which also closes idle keep-alive
//!   connections; a body must arrive whole within the body time-out, be at most
//!   [`BODY_BYTES_MAX`], and its bytes past the first 64 KiB come from a budget shared by all
//!   requests (503 when spent), so unfinished bodies cannot take the memory. The host answers
//!   kept for waiting asks ([`crate::transport`]) take from the same budget.
//! - At most `max_connections` connections are open at once (lowered to fit the process's
//!   open-file limit). A connection is busy while a request is in flight on it (an event
//!   stream as long as it is open); when the cap is reached a new connection replaces the
//!   oldest idle one, and when every connection is busy new ones wait in the listen queue.
//! - At most `max_sessions` sessions live at once. A session with no request and no event
//!   stream open is idle; it is closed after the idle time, and when the table is full a new
//!   session replaces the one idle the longest (503 when every session is busy). A call
//!   waiting for the person keeps its session.
//! - A request with two `Authorization` headers is refused (400). A session belongs to the
//!   bearer token that opened it (or to no token); a request with another one is refused
//!   (403). The request's [`Caller`](crate::auth::Caller) travels to the tools in the
//!   request's extensions.

mod guard;
mod sessions;

pub(crate) use crate::serve::FREE_BODY_BYTES;
pub use crate::serve::{parse_origin, RESERVED_FILES};

use crate::auth::Tokens;
use crate::serve::{Bodies, Hosts, Limits};
use crate::FormsServer;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// The path of the MCP endpoint.
pub const ENDPOINT: &str = "/mcp";

/// The largest request body accepted, 4 MiB: well past the contract's 1 MiB argument limit,
/// so oversized arguments get `invalid_arguments` from the contract check instead of an
/// HTTP 413.
pub const BODY_BYTES_MAX: usize = 4 * 1024 * 1024;

/// The default time for a request's headers to arrive, and for an idle connection to stay
/// open: 10 seconds.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// The default time for a request body to arrive whole: 30 seconds.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// The default number of connections served at once: 256.
pub const CONNECTIONS_MAX: usize = 256;

/// The default number of live sessions: 256.
pub const SESSIONS_MAX: usize = 256;

/// The default time after which a session with nothing open is closed: 5 minutes.
pub const SESSION_IDLE: Duration = Duration::from_secs(5 * 60);

/// The default budget for request body bytes past the first 64 KiB of each request: 32 MiB
/// (eight bodies of the largest size at once).
pub const BODY_MEMORY: usize = 32 * 1024 * 1024;

/// The limits and checks of the HTTP transport. [`Default`] gives the documented defaults.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    /// Origins accepted besides the server's own (`http://127.0.0.1:PORT` …), each
    /// `scheme://host[:port]` or `null`.
    pub allow_origins: Vec<String>,
    /// `Host` values accepted besides the bound address, each `host` (any port) or
    /// `host:port`; `*` turns the `Host` check off.
    pub allow_hosts: Vec<String>,
    /// How long a request's headers may take, and how long an idle connection stays open.
    pub header_timeout: Duration,
    /// How long a request body may take to arrive whole.
    pub body_timeout: Duration,
    /// How many connections are open at once.
    pub max_connections: usize,
    /// How many sessions live at once.
    pub max_sessions: usize,
    /// How long a session may stay idle (no request and no event stream open) before it is
    /// closed.
    pub session_idle: Duration,
    /// The largest request body, in bytes.
    pub max_body_bytes: usize,
    /// Bytes of request bodies past the first 64 KiB of each that may be held at once, with
    /// the answers kept for waiting asks past their first 64 KiB.
    pub body_memory: usize,
    /// The bearer tokens the server knows (empty: every caller is known by its token alone,
    /// if any).
    pub tokens: Tokens,
}

impl Default for HttpOptions {
    fn default() -> HttpOptions {
        HttpOptions {
            allow_origins: Vec::new(),
            allow_hosts: Vec::new(),
            header_timeout: HEADER_TIMEOUT,
            body_timeout: BODY_TIMEOUT,
            max_connections: CONNECTIONS_MAX,
            max_sessions: SESSIONS_MAX,
            session_idle: SESSION_IDLE,
            max_body_bytes: BODY_BYTES_MAX,
            body_memory: BODY_MEMORY,
            tokens: Tokens::default(),
        }
    }
}

/// The `Host` values a server bound to `local` accepts by default: the loopback names with
/// its port, and its own address when it is bound to one address.
fn own_hosts(local: SocketAddr) -> Vec<String> {
    let port = local.port();
    let mut hosts = vec![
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
    ];
    let ip = local.ip();
    if !ip.is_loopback() && !ip.is_unspecified() {
        hosts.push(match ip {
            IpAddr::V4(ip) => format!("{ip}:{port}"),
            IpAddr::V6(ip) => format!("[{ip}]:{port}"),
        });
    }
    hosts
}

/// Binds `addr` for the HTTP server. A port of 0 picks a free port; read it from the
/// listener's `local_addr`.
pub async fn bind(addr: SocketAddr) -> std::io::Result<TcpListener> {
    TcpListener::bind(addr).await
}

/// The connection cap [`serve`] applies for `options`: `max_connections`, lowered to fit the
/// process's open-file limit.
pub fn connection_cap(options: &HttpOptions) -> usize {
    limits(options, Hosts::new([], [])).connection_cap()
}

/// The serving limits of `options` with the `Host`/`Origin` check `hosts`.
fn limits(options: &HttpOptions, hosts: Hosts) -> Limits {
    Limits::new(
        options.max_connections,
        options.header_timeout,
        Bodies::new(
            options.max_body_bytes,
            options.body_timeout,
            options.body_memory,
        ),
        hosts,
    )
}

/// The path the URL-mode pages are served under on the `--http` listener.
pub const PAGE_PATH: &str = "/forms-page";

/// Serves `server` on `listener` at [`ENDPOINT`] until `shutdown` is cancelled, with the
/// checks and limits of `options`. Sessions are kept (rmcp's stateful mode), so the mid-call
/// `openai/elicitation/create` of the legacy protocol reaches the host over the session's
/// event stream.
pub async fn serve(
    server: FormsServer,
    listener: TcpListener,
    options: HttpOptions,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let options = &options;
    let local = listener.local_addr()?;
    let mut hosts = own_hosts(local);
    hosts.extend(options.allow_hosts.iter().cloned());
    let mut origins: Vec<String> = own_hosts(local)
        .iter()
        .map(|host| format!("http://{host}"))
        .collect();
    origins.extend(options.allow_origins.iter().cloned());
    // `Host` and `Origin` are checked by the serving stack ([`crate::serve::Hosts`]), before
    // the guard, so rmcp's own checks are off.
    let limits = limits(options, Hosts::new(hosts, origins));
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(true)
        .with_max_request_body_bytes(options.max_body_bytes)
        .with_cancellation_token(shutdown.child_token())
        .disable_allowed_hosts()
        .disable_allowed_origins();
    let sessions = Arc::new(sessions::Sessions::new(
        LocalSessionManager::default(),
        options.max_sessions,
        options.session_idle,
    ));
    let sweeper = sessions.clone();
    let stop = shutdown.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(sweeper.sweep_every());
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = every.tick() => sweeper.sweep().await,
                () = stop.cancelled() => break,
            }
        }
    });
    // URL-mode pages (`--url-mode`) are served on this listener under their own path,
    // outside the bearer-token guard (a browser has no token: the page's secret and code
    // stand for it).
    let pages = server.page_router(PAGE_PATH);
    let service = StreamableHttpService::new(move || Ok(server.clone()), sessions.clone(), config);
    // One memory budget for the bodies being read and the answers kept.
    let guard = Arc::new(guard::Guard {
        tokens: options.tokens.clone(),
        sessions,
    });
    // The guard runs first; then the layer that keeps each host's answer as sent
    // (`crate::transport`) sees the body the guard has read.
    let router = crate::transport::keeping_router(
        axum::Router::new().nest_service(ENDPOINT, service),
        options.max_body_bytes,
        limits.bodies.budget(),
    )
    .layer(axum::middleware::from_fn_with_state(guard, guard::check));
    let router = match pages {
        Some(pages) => router.merge(pages),
        None => router,
    };
    crate::serve::serve(listener, router, limits, shutdown).await;
    Ok(())
}
