//! The streamable HTTP transport: the MCP endpoint `/mcp` on a local address.

use crate::FormsServer;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// The path of the MCP endpoint.
pub const ENDPOINT: &str = "/mcp";

/// The largest request body accepted, 4 MiB: well past the contract's 1 MiB argument limit,
/// so oversized arguments get `invalid_arguments` from the contract check instead of an
/// HTTP 413.
pub const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// Binds `addr` for the HTTP server. A port of 0 picks a free port; read it from the
/// listener's `local_addr`.
pub async fn bind(addr: SocketAddr) -> std::io::Result<TcpListener> {
    TcpListener::bind(addr).await
}

/// Serves `server` on `listener` at [`ENDPOINT`] until `shutdown` is cancelled. Sessions are
/// kept (rmcp's stateful mode), so the mid-call `openai/elicitation/create` of the legacy
/// protocol reaches the host over the session's event stream.
pub async fn serve(
    server: FormsServer,
    listener: TcpListener,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(true)
        .with_max_request_body_bytes(MAX_BODY_BYTES)
        .with_cancellation_token(shutdown.child_token());
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    // The layer that keeps each host's answer as sent (`crate::transport`).
    let router = crate::transport::http_router(
        axum::Router::new().nest_service(ENDPOINT, service),
        MAX_BODY_BYTES,
    );
    axum::serve(listener, router)
        .with_graceful_shutdown(async move { shutdown.cancelled_owned().await })
        .await
}
