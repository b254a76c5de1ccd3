//! The legacy transport (protocol 2025-11-25 and older): the server sends the host a
//! `openai/elicitation/create` request in the middle of the tool call and waits for its answer.
//!
//! The request is a JSON-RPC custom request whose params are the runtime's native request as
//! it compiles it ([`DataForm::native_json`]), never rmcp's typed elicitation schema, which
//! would drop every `x-openai-*` key.
//!
//! Known limit: rmcp reads the host's answer into its own result union before this module
//! sees it. An answer shaped like an elicitation result (`{"action":…,"content"?:…}`) arrives
//! as rmcp's typed `ElicitResult`, and on the way its unknown top-level keys and a
//! `"content": null` are lost; an answer of no known shape arrives as a custom result and is
//! checked as sent, except that an object of no known result shape may be read as rmcp's empty
//! result. Everything that survives is checked by the runtime's answer checker (rules V1–V8).
//! The multi-round-trip transport sees the host's raw JSON and has no such limit.

use forms_runtime::{DataForm, ErrorCode, FormError};
use rmcp::model::{
    CancelledNotification, CancelledNotificationParam, ClientResult, CustomRequest,
    ServerNotification, ServerRequest,
};
use rmcp::service::{PeerRequestOptions, RequestContext, ServiceError};
use rmcp::RoleServer;
use std::time::Duration;

/// The host method of a native form request.
pub const ELICITATION_METHOD: &str = "openai/elicitation/create";

/// Sends the native request of `form` to the host through `ctx`'s peer and waits for the
/// answer, at most `timeout` (passed as both the request timeout and the maximum total
/// timeout). Returns the host's answer as JSON, ready for the answer checker.
///
/// Errors: the host answered with a JSON-RPC error or the transport failed →
/// `transport_error`; no answer in time → `timeout` (the host receives
/// `notifications/cancelled`); the tool call was cancelled while waiting →
/// `request_cancelled` (the host receives `notifications/cancelled` for its pending
/// elicitation).
pub(crate) async fn elicit(
    ctx: &RequestContext<RoleServer>,
    form: &DataForm,
    timeout: Duration,
) -> Result<serde_json::Value, FormError> {
    let params: serde_json::Value = serde_json::from_str(form.native_json())
        .map_err(|e| FormError::new(ErrorCode::TransportError, e.to_string()))?;
    let request =
        ServerRequest::CustomRequest(CustomRequest::new(ELICITATION_METHOD, Some(params)));
    let mut options = PeerRequestOptions::with_timeout(timeout);
    options.max_total_timeout = Some(timeout);
    let handle = tokio::select! {
        biased;
        () = ctx.ct.cancelled() => return Err(cancelled()),
        sent = ctx.peer.send_request_with_option(request, options) => sent.map_err(service_error)?,
    };
    let peer = handle.peer.clone();
    let id = handle.id.clone();
    tokio::select! {
        biased;
        answer = handle.await_response() => answer_json(answer.map_err(service_error)?),
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

/// The host's answer as JSON: the typed elicitation result as rmcp read it, or a custom
/// result as sent.
fn answer_json(result: ClientResult) -> Result<serde_json::Value, FormError> {
    let value = match result {
        ClientResult::CustomResult(custom) => Ok(custom.0),
        ClientResult::ElicitResult(elicit) => serde_json::to_value(elicit),
        other => serde_json::to_value(other),
    };
    value.map_err(|e| FormError::new(ErrorCode::InvalidResponse, e.to_string()))
}

/// One of the six codes for a failed request.
pub(crate) fn service_error(error: ServiceError) -> FormError {
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
                "the host answered {ELICITATION_METHOD} with error {}: {}",
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
