//! The multi-round-trip transport (protocol 2026-07-28 and later), where a server may not send
//! the client requests in the middle of a call: the first call returns an input-required
//! result, and the client retries the call with the answer and the echoed request state.
//!
//! The input request is a core `elicitation/create`. For a client with the extension it has
//! the empty schema
//! `{"type":"object","properties":{}}`; the runtime's native schema travels under
//! `_meta["openai/elicitation"]["requestedSchema"]`, where rmcp's typed elicitation schema
//! cannot drop its `x-openai-*` keys; for a client with core elicitation only, it carries the
//! core schema compiled by [`crate::core_elicitation`]. The answer arrives in the retried call's
//! `inputResponses` and is checked by the runtime's answer checker as the client sent it
//! (the text kept by [`crate::transport`]; over another transport, rmcp's JSON value of it).

use crate::ask::Answer;
use crate::auth::{Caller, Tokens};
use crate::call::FormCall;
use crate::state::{Issued, States};
use crate::transport::RawInput;
use forms_runtime::{DataForm, ErrorCode, FormError};
use rmcp::model::{InputRequest, InputRequiredResult};
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use serde_json::json;
use std::time::Duration;

/// The key of the form's input request in `inputRequests` and `inputResponses`.
pub const INPUT_KEY: &str = "form";

/// What one round of the multi-round-trip flow gives.
pub(crate) enum Round {
    /// The host's answer: the raw JSON text the client sent when the transport kept it.
    Answer(Answer),
    /// The input-required result to return.
    InputRequired(InputRequiredResult),
}

/// Who calls, as the HTTP transport established it ([`Caller`]): the principal of a known
/// bearer token, else the digest of the token presented, else no one; then the live session
/// the request belongs to, if any. Never the client-chosen `Mcp-Session-Id` header alone.
/// Served by another HTTP stack than [`crate::http`], the caller is read from the request's
/// bearer token alone. On stdio (one process, one caller) the binding is empty.
pub(crate) fn caller(ctx: &RequestContext<RoleServer>) -> Vec<u8> {
    let Some(parts) = ctx.extensions.get::<axum::http::request::Parts>() else {
        return Vec::new();
    };
    match parts.extensions.get::<Caller>() {
        Some(caller) => caller.binding(),
        None => Tokens::default()
            .caller(&parts.headers)
            .unwrap_or_else(|_| Caller::anonymous())
            .binding(),
    }
}

/// One round: without a state, the input-required result; with one, the checked state's
/// answer.
pub(crate) async fn round(
    states: &States,
    form: &DataForm,
    binding_of_call: &[u8],
    call: &FormCall,
    timeout: Duration,
    core: bool,
) -> Result<Round, FormError> {
    let ctx = call.context();
    let request_state = call.request_state();
    let responses = call.input_responses();
    let caller = caller(ctx);
    let form_json: serde_json::Value = serde_json::from_str(&form.to_json())
        .map_err(|e| FormError::new(ErrorCode::TransportError, e.to_string()))?;
    let issued = Issued {
        caller: &caller,
        call: binding_of_call,
        form: &form_json,
    };
    let Some(sealed) = request_state else {
        let state = states.seal(&issued, timeout)?;
        let request = if core {
            core_input_request(form)?
        } else {
            input_request(form)?
        };
        let requests = [(INPUT_KEY.to_owned(), request)].into_iter().collect();
        return Ok(Round::InputRequired(InputRequiredResult::new(
            Some(requests),
            Some(state),
        )));
    };
    states.redeem(sealed, &issued, timeout).await?;
    match responses.and_then(|r| r.get(INPUT_KEY)) {
        Some(answer) => Ok(Round::Answer(match RawInput::of(ctx, answer) {
            Some(text) => Answer::Text(text),
            None => Answer::Value(answer.clone()),
        })),
        None => Err(FormError::new(
            ErrorCode::InvalidResponse,
            format!("the retried call carries no inputResponses[{INPUT_KEY:?}]"),
        )),
    }
}

/// The `elicitation/create` input request of `form`.
fn input_request(form: &DataForm) -> Result<InputRequest, FormError> {
    let native = serde_json::to_value(form.native())
        .map_err(|e| FormError::new(ErrorCode::TransportError, e.to_string()))?;
    let request = json!({
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": native.get("message"),
            "requestedSchema": {"type": "object", "properties": {}},
            "_meta": {crate::EXTENSION: {"requestedSchema": native.get("requestedSchema")}},
        }
    });
    serde_json::from_value(request)
        .map_err(|e| FormError::new(ErrorCode::TransportError, e.to_string()))
}

/// The core `elicitation/create` input request of `form`, for a client without the
/// extension: the requested schema compiled by [`crate::core_elicitation`].
fn core_input_request(form: &DataForm) -> Result<InputRequest, FormError> {
    let request = json!({"method": crate::core_elicitation::METHOD, "params": crate::core_elicitation::params_json(form)?});
    serde_json::from_value(request)
        .map_err(|e| FormError::new(ErrorCode::TransportError, e.to_string()))
}
