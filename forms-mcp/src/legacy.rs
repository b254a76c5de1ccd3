//! The legacy transport (protocol 2025-11-25 and older): the server sends the host a
//! `openai/elicitation/create` request in the middle of the tool call and waits for its answer.
//!
//! The request is a JSON-RPC custom request whose params are the runtime's native request as
//! it compiles it ([`DataForm::native_json`]), never rmcp's typed elicitation schema, which
//! would drop every `x-openai-*` key.
//!
//! # The answer, whole
//! rmcp reads the host's response into its own result union before this module sees it: an
//! answer shaped like an elicitation result (`{"action":…,"content"?:…}`) becomes rmcp's
//! typed `ElicitResult`, which drops unknown top-level keys and reads `"content": null` as no
//! content, and `{}` becomes its empty result. rmcp offers no hook for the raw result of a
//! request (its peer hands back the typed union only), so the answer is taken from the
//! transport instead: the transports of [`crate::transport`] keep the raw JSON text of the
//! responses that may answer an ask waiting on the connection (every response between its
//! request leaving and its id being known, then the responses to that id), and the ask uses
//! the one for its request id that rmcp's own reading turns into exactly what rmcp
//! delivered. That text
//! is what the runtime's answer checker judges (rules V1–V8, a repeated key included), the
//! same text `forms answer` would be given. Served over a transport that keeps no answers,
//! the ask refuses with `transport_error` rather than judge what rmcp left of the answer.

use crate::transport::Capture;
use forms_runtime::{DataForm, ErrorCode, FormError};
use rmcp::model::{
    CancelledNotification, CancelledNotificationParam, CustomRequest, ServerNotification,
    ServerRequest,
};
use rmcp::service::{PeerRequestOptions, RequestContext, ServiceError};
use rmcp::RoleServer;
use serde_json::value::RawValue;
use std::time::Duration;

/// The host method of a native form request.
pub const ELICITATION_METHOD: &str = "openai/elicitation/create";

/// Sends the native request of `form` to the host through `ctx`'s peer and waits for the
/// answer, at most `timeout` (passed as both the request timeout and the maximum total
/// timeout). Returns the host's answer as the raw JSON text it sent, ready for the answer
/// checker.
///
/// Errors: the transport keeps no answers, the host answered with a JSON-RPC error or the
/// transport failed → `transport_error`; no answer in time → `timeout` (the host receives
/// `notifications/cancelled`); the tool call was cancelled while waiting →
/// `request_cancelled` (the host receives `notifications/cancelled` for its pending
/// elicitation).
pub(crate) async fn elicit(
    ctx: &RequestContext<RoleServer>,
    form: &DataForm,
    timeout: Duration,
) -> Result<Box<RawValue>, FormError> {
    // The same JSON as `form.native_json()`, built as a value without writing and re-reading
    // the text.
    let params = serde_json::to_value(form.native())
        .map_err(|e| FormError::new(ErrorCode::TransportError, e.to_string()))?;
    let request =
        ServerRequest::CustomRequest(CustomRequest::new(ELICITATION_METHOD, Some(params)));
    send(ctx, request, ELICITATION_METHOD, timeout).await
}

/// Sends `request` (a form request of the method `method`) to the host through `ctx`'s
/// peer and waits for the answer, as [`elicit`] does.
pub(crate) async fn send(
    ctx: &RequestContext<RoleServer>,
    request: ServerRequest,
    method: &str,
    timeout: Duration,
) -> Result<Box<RawValue>, FormError> {
    let Some(capture) = Capture::of(ctx) else {
        return Err(FormError::new(
            ErrorCode::TransportError,
            crate::transport::NOT_KEPT,
        ));
    };
    let mut options = PeerRequestOptions::with_timeout(timeout);
    options.max_total_timeout = Some(timeout);
    // Keep the connection's responses from before the request leaves, so that its answer
    // cannot arrive unseen.
    let mut waiting = capture.wait();
    let handle = tokio::select! {
        biased;
        () = ctx.ct.cancelled() => return Err(cancelled()),
        sent = ctx.peer.send_request_with_option(request, options) => sent.map_err(|e| service_error(e, method))?,
    };
    let peer = handle.peer.clone();
    let id = handle.id.clone();
    waiting.expect(id.clone());
    tokio::select! {
        biased;
        answer = handle.await_response() => {
            let delivered = answer.map_err(|e| service_error(e, method))?;
            waiting.take(&id, &delivered).ok_or_else(|| FormError::new(
                ErrorCode::TransportError,
                format!("the host's answer to {method} could not be read as sent"),
            ))
        }
        () = ctx.ct.cancelled() => {
            let notification = CancelledNotification::new(CancelledNotificationParam::new(
                Some(id),
                Some("the tool call was cancelled".to_owned()),
            ));
            let _ = peer
                .send_notification(ServerNotification::CancelledNotification(notification))
                .await;
            Err(cancelled())
        }
    }
}

fn cancelled() -> FormError {
    FormError::new(
        ErrorCode::RequestCancelled,
        "the tool call was cancelled before the form was submitted",
    )
}

/// One of the six codes for a failed request.
pub(crate) fn service_error(error: ServiceError, method: &str) -> FormError {
    match error {
        ServiceError::Timeout { timeout } => FormError::new(
            ErrorCode::Timeout,
            format!(
                "the form was not submitted within {} ms",
                timeout.as_millis()
            ),
        ),
        ServiceError::Cancelled { .. } => cancelled(),
        ServiceError::McpError(e) => FormError::new(
            ErrorCode::TransportError,
            format!(
                "the host answered {method} with error {}: {}",
                e.code.0,
                shorten(&e.message)
            ),
        ),
        ServiceError::TransportClosed => FormError::new(
            ErrorCode::TransportError,
            "the connection to the host closed before the form was submitted",
        ),
        other => FormError::new(
            ErrorCode::TransportError,
            format!(
                "the form could not reach the host: {}",
                shorten(&other.to_string())
            ),
        ),
    }
}

fn shorten(text: &str) -> String {
    const MAX: usize = 200;
    if text.chars().count() <= MAX {
        text.to_owned()
    } else {
        text.chars().take(MAX).chain("…".chars()).collect()
    }
}
