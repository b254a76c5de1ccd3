//! The checks every HTTP request passes before rmcp's transport sees it: one credential, the
//! session's owner, a body read within its time, its size and the shared memory budget, and
//! room for a new session.

use super::sessions::{Owner, Sessions};
use crate::auth::Tokens;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The header naming the MCP session of a request.
const SESSION_HEADER: &str = "mcp-session-id";

/// The bytes of each request body that do not count against the shared budget: small
/// requests are never refused for memory; their total is bounded by the connection cap.
pub(crate) const FREE_BODY_BYTES: usize = 64 * 1024;

/// What the checks need.
pub(crate) struct Guard {
    pub(crate) tokens: Tokens,
    pub(crate) sessions: Arc<Sessions>,
    pub(crate) max_body_bytes: usize,
    pub(crate) body_timeout: Duration,
    /// Bytes of request bodies past [`FREE_BODY_BYTES`] that may be held at once.
    pub(crate) budget: Arc<Semaphore>,
}

/// A refusal: `status` with a short text, closing the connection.
fn refuse(status: StatusCode, text: &str) -> Response {
    let mut response = (status, text.to_owned()).into_response();
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// A refusal for now: `503` with `Retry-After`.
fn busy(text: &str) -> Response {
    let mut response = refuse(StatusCode::SERVICE_UNAVAILABLE, text);
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
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
    let (bytes, _held) = match guard.read_body(&parts.headers, body).await {
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

impl Guard {
    /// Reads a request body whole: at most `max_body_bytes`, within `body_timeout`, with the
    /// bytes past [`FREE_BODY_BYTES`] taken from the shared budget (held until the returned
    /// permit drops). A body that breaks a limit is refused and its connection closed.
    async fn read_body(
        &self,
        headers: &HeaderMap,
        body: Body,
    ) -> Result<(Bytes, Option<OwnedSemaphorePermit>), Response> {
        let too_large = || {
            refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!(
                    "Payload Too Large: the request body exceeds {} bytes",
                    self.max_body_bytes
                ),
            )
        };
        let declared = headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > self.max_body_bytes as u64) {
            return Err(too_large());
        }
        let read = async {
            let mut data = body.into_data_stream();
            let mut buffer: Vec<u8> = Vec::new();
            let mut held: Option<OwnedSemaphorePermit> = None;
            while let Some(frame) = data.next().await {
                let frame = frame.map_err(|_| {
                    refuse(
                        StatusCode::BAD_REQUEST,
                        "Bad Request: the body could not be read",
                    )
                })?;
                let total = buffer.len() + frame.len();
                if total > self.max_body_bytes {
                    return Err(too_large());
                }
                let counted = total.saturating_sub(buffer.len().max(FREE_BODY_BYTES));
                if counted > 0 {
                    // Past the free bytes, grow once to the declared length rather than by
                    // doubling, so the buffer holds about what the budget counts.
                    if let Some(declared) = declared.and_then(|n| usize::try_from(n).ok()) {
                        buffer.reserve_exact(declared.saturating_sub(buffer.len()));
                    }
                    let permit = u32::try_from(counted)
                        .ok()
                        .and_then(|n| self.budget.clone().try_acquire_many_owned(n).ok())
                        .ok_or_else(|| {
                            busy("Service Unavailable: too many large request bodies at once; retry later")
                        })?;
                    match &mut held {
                        Some(held) => held.merge(permit),
                        None => held = Some(permit),
                    }
                }
                buffer.extend_from_slice(&frame);
            }
            Ok((Bytes::from(buffer), held))
        };
        match tokio::time::timeout(self.body_timeout, read).await {
            Ok(read) => read,
            Err(_) => Err(refuse(
                StatusCode::REQUEST_TIMEOUT,
                "Request Timeout: the request body did not arrive in time",
            )),
        }
    }
}
