//! The axum middleware: reads the JSON body of a `POST` that may hold an answer before rmcp does.

use super::kept::{Answers, Capture, Keeping, RawInput};
use super::scan::{call_arguments, find, Found};
use crate::call::CallArguments;
use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::pin::Pin;
use std::sync::Arc;

pub(super) struct HttpCapture {
    pub(super) answers: Arc<Answers>,
    pub(super) max_body_bytes: usize,
}

pub(super) async fn keep_http(
    State(state): State<Arc<HttpCapture>>,
    request: Request,
    next: Next,
) -> Response {
    let (mut parts, body) = request.into_parts();
    let session: Option<Arc<str>> = parts
        .headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(Arc::from);
    // Every request learns that its transport keeps answers; a request without a session
    // (2026-07-28, stateless) has no connection a response could come back on, and none is
    // ever kept for the empty one.
    parts.extensions.insert(Capture {
        answers: state.answers.clone(),
        connection: session.clone().unwrap_or_else(|| Arc::from("")),
        typed: false,
    });
    let json = parts
        .headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(';')
                .next()
                .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
        });
    // Only two kinds of message hold an answer: a response on a session where an ask waits,
    // and a 2026-07-28 `tools/call` (which names its method in `Mcp-Method`; rmcp refuses one
    // that does not). Every other body goes to rmcp unread.
    let waited_on = session
        .as_deref()
        .is_some_and(|session| state.answers.waits_on(session));
    let call = parts
        .headers
        .get("mcp-method")
        .is_some_and(|method| method.as_bytes() == b"tools/call");
    if parts.method != axum::http::Method::POST || !json || !(waited_on || call) {
        return next.run(Request::from_parts(parts, body)).await;
    }
    let bytes = match collect(body, state.max_body_bytes).await {
        Ok(bytes) => bytes,
        Err(response) => return response,
    };
    if call {
        parts
            .extensions
            .insert(CallArguments(call_arguments(&bytes).map(Arc::new)));
    }
    // A response kept before rmcp reads it (its answer may reach the ask before rmcp's
    // `202 Accepted` reaches this layer), and dropped again when rmcp refuses it.
    let mut kept = None;
    match find(&bytes) {
        Found::Result(id, result) => {
            if let Some(connection) = &session {
                match state.answers.keep_result(connection, id, result) {
                    Keeping::Kept(serial) => kept = Some((connection.clone(), serial)),
                    Keeping::Not => {}
                    Keeping::Spent => return spent(),
                }
            }
        }
        Found::Input(_, input) => {
            parts.extensions.insert(RawInput(input.to_owned()));
        }
        Found::Nothing => {}
    }
    let response = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    if let Some((connection, serial)) = kept {
        if !response.status().is_success() {
            state.answers.drop_result(&connection, serial);
        }
    }
    response
}

/// The refusal of a response that finds the memory budget spent: `503` with `Retry-After`,
/// closing the connection, as for a body.
pub(super) fn spent() -> Response {
    let mut response = (
        axum::http::StatusCode::SERVICE_UNAVAILABLE,
        "Service Unavailable: too many large answers held at once; retry later",
    )
        .into_response();
    let headers = response.headers_mut();
    headers.insert(
        axum::http::header::CONNECTION,
        axum::http::HeaderValue::from_static("close"),
    );
    headers.insert(
        axum::http::header::RETRY_AFTER,
        axum::http::HeaderValue::from_static("1"),
    );
    response
}

/// The whole body, at most `max` bytes; the refusals are rmcp's. A body in one frame (as
/// the server's guard hands it on, already read) is taken as it is, not copied.
pub(super) async fn collect(mut body: Body, max: usize) -> Result<Bytes, Response> {
    let mut first: Option<Bytes> = None;
    let mut collected = Vec::new();
    loop {
        match std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
            None => break,
            Some(Ok(frame)) => {
                let Ok(data) = frame.into_data() else {
                    continue;
                };
                let held = first.as_ref().map_or(collected.len(), Bytes::len);
                if data.len() > max.saturating_sub(held) {
                    return Err((
                        axum::http::StatusCode::PAYLOAD_TOO_LARGE,
                        format!("Payload Too Large: request body exceeds {max} bytes"),
                    )
                        .into_response());
                }
                if first.is_none() && collected.is_empty() {
                    first = Some(data);
                } else {
                    if let Some(first) = first.take() {
                        collected.extend_from_slice(&first);
                    }
                    collected.extend_from_slice(&data);
                }
            }
            Some(Err(_)) => {
                return Err((
                    axum::http::StatusCode::BAD_REQUEST,
                    "Bad Request: the request body could not be read",
                )
                    .into_response())
            }
        }
    }
    Ok(first.unwrap_or_else(|| Bytes::from(collected)))
}
