//! The checks every HTTP request passes before rmcp's transport sees it: one credential, the
//! session's owner, a body read whole through the serving stack's [`Bodies`] (within its
//! time, its size and the shared memory budget), and room for a new session.

use super::sessions::{Owner, Sessions};
use crate::auth::Tokens;
use crate::serve::bodies::{busy, refuse};
use crate::serve::Bodies;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use std::sync::Arc;

/// The header naming the MCP session of a request.
const SESSION_HEADER: &str = "mcp-session-id";

/// What the checks need.
pub(crate) struct Guard {
    pub(crate) tokens: Tokens,
    pub(crate) sessions: Arc<Sessions>,
}

/// The middleware: runs the checks, hands rmcp the request with its body read and the
/// [`Caller`] in its extensions, and records the owner of a session the request opened.
pub(crate) async fn check(
    State(guard): State<Arc<Guard>>,
    request: Request,
    next: Next,
) -> Response {
    let caller = match guard.tokens.caller(request.headers()) {
        Ok(caller) => caller,
        Err(error) => return refuse(StatusCode::BAD_REQUEST, &error.to_string()),
    };
    let named = request
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let caller = match &named {
        None => caller,
        Some(id) => match guard.sessions.owner(id) {
            // No live session: rmcp answers 404 (or, from 2026-07-28, serves the request
            // without a session).
            Owner::Unknown => caller,
            Owner::Of(Some(owner)) if owner.same_credential(&caller) => {
                caller.in_session(id.clone())
            }
            Owner::Of(_) => {
                return refuse(
                    StatusCode::FORBIDDEN,
                    "Forbidden: this session was opened with another credential",
                )
            }
        },
    };
    let (mut parts, body) = request.into_parts();
    let Some(bodies) = parts.extensions.get::<Bodies>().cloned() else {
        return refuse(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Internal Server Error: served without the body limits",
        );
    };
    let (bytes, _held) = match bodies.read(&parts.headers, body).await {
        Ok(read) => read,
        Err(response) => return response,
    };
    if named.is_none()
        && parts.method == Method::POST
        && !guard.sessions.has_room()
        && is_initialize(&bytes)
    {
        return busy("Service Unavailable: every session slot is busy; retry later");
    }
    parts.extensions.insert(caller.clone());
    let response = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    if named.is_none() {
        if let Some(id) = response
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
        {
            guard.sessions.claim(id, &caller);
        }
    }
    response
}

/// Whether `body` is a JSON-RPC `initialize` request.
fn is_initialize(body: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Method<'a> {
        #[serde(borrow)]
        method: Option<std::borrow::Cow<'a, str>>,
    }
    serde_json::from_slice::<Method<'_>>(body)
        .is_ok_and(|m| m.method.as_deref() == Some("initialize"))
}
