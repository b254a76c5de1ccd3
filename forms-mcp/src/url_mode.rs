//! Forms on hosts with core URL-mode elicitation only (protocol 2025-11-25): the whole
//! native form, served by this server as the person's page ([`crate::page`]), reached
//! through an `elicitation/create` request with `mode: "url"`.
//!
//! When the client advertises `capabilities.elicitation.url` but not the extension, a form
//! that a core form would not carry whole (files, resource cards, pictures, option
//! descriptions: [`crate::core_elicitation::fully_carried`]), or any form when the author
//! asks for the page ([`crate::FormAsker::with_page_preferred`]), is asked this way:
//!
//! 1. The page is opened on the page server (started on demand on 127.0.0.1, a free port)
//!    under a new secret of 256 random bits: the URL holds that secret only, no form
//!    content (at most [`crate::page::PageOptions::max_pages`] pages are open at once: an ask
//!    that would open one more is not asked and ends in `transport_error`). A code of 8 characters from an unambiguous alphabet is drawn; the page asks
//!    for it before it shows the form, and [`crate::page::CODE_TRIES`] wrong codes cancel the
//!    ask. The code is only in the request's `message`, which only the person's own client
//!    shows: the URL alone answers nothing (the specification has the server make sure the
//!    person who opens the URL is the one who started the elicitation).
//! 2. `elicitation/create` goes to the client with `mode: "url"`, the `url`, a new
//!    `elicitationId` and the `message` (the form's message, then the code). The client's
//!    `accept` is the person's consent to open the URL, not the answer; `decline` and
//!    `cancel` end the ask as the outcome they name.
//! 3. After consent the ask waits, at most what is left of its timeout, for the page's
//!    submission. Each submission is checked on submit with the answer checker (rules
//!    V1–V8) against the form shown; a refused one is shown on the page with its findings
//!    and the form stays open. The first taken submission (accept, decline or cancel) ends
//!    the ask, is answered to the tool as a host's answer would be, and
//!    `notifications/elicitation/complete` with the `elicitationId` goes to that client only
//!    (also when the ask ends by its timeout or the tool call's cancellation).
//! 4. The page closes with the ask (later requests to its URL are refused). Files added on
//!    it are copied into a private directory of the page (0700, copies 0600, the question's
//!    `accept` and [`crate::page::DEFAULT_MAX_FILE_BYTES`] enforced), answered as `file://`
//!    URIs of the copies, and removed [`FILE_RETENTION`] after the ask ends.

use crate::ask::Answer;
use crate::call::FormCall;
use crate::input_round::{Round, INPUT_KEY};
use crate::legacy;
use crate::page::{AnswerCheck, PageOptions, PageServer, PageSlot};
use crate::secret::random_hex;
use crate::state::{Issued, States};
use forms_runtime::native::NativeView;
use forms_runtime::{DataForm, ErrorCode, FormError};
use rmcp::model::{
    CustomNotification, ElicitRequest, ElicitRequestParams, ServerNotification, ServerRequest,
};
use rmcp::model::{InputRequest, InputRequiredResult};
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tokio::sync::watch;
use tokio::sync::OnceCell;

/// How long the copies of files added on a URL-mode page are kept after its ask ends: one
/// hour, for the tool to read them; then the page's directory is removed (files left by a
/// process that exits before are not).
pub const FILE_RETENTION: Duration = Duration::from_secs(3600);

/// The method of the completion notification.
pub(crate) const COMPLETE_METHOD: &str = "notifications/elicitation/complete";

/// The alphabet of the page's code: capitals and digits without `0`/`O`, `1`/`I`/`L`.
const CODE_ALPHABET: &[u8; 31] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/// The characters of the page's code (31^8, about 39.6 random bits).
const CODE_LENGTH: usize = 8;

/// The page server of an asker, started on the first URL-mode ask.
pub(crate) type Pages = Arc<OnceCell<PageServer>>;

/// Whether `caps` advertise URL-mode elicitation (`elicitation.url`).
pub(crate) fn url_support(caps: Option<&rmcp::model::ClientCapabilities>) -> bool {
    caps.and_then(|caps| caps.elicitation.as_ref())
        .is_some_and(|elicitation| elicitation.url.is_some())
}

/// A new code for a page.
pub(crate) fn new_code() -> std::io::Result<String> {
    // Bytes under 248 (8 × 31) map evenly onto the alphabet; the others are drawn again.
    let mut code = String::with_capacity(CODE_LENGTH);
    for _ in 0..16 {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(std::io::Error::other)?;
        for b in bytes.iter().filter(|&&b| b < 248) {
            if code.len() == CODE_LENGTH {
                return Ok(code);
            }
            if let Some(&c) = CODE_ALPHABET.get(usize::from(b % 31)) {
                code.push(char::from(c));
            }
        }
        if code.len() == CODE_LENGTH {
            return Ok(code);
        }
    }
    Err(std::io::Error::other(
        "the random source gave too few usable bytes",
    ))
}

fn transport_error(why: impl std::fmt::Display) -> FormError {
    FormError::new(ErrorCode::TransportError, why.to_string())
}

/// The request's message: the form's message, then where to answer and the code.
fn message(form: &DataForm, code: &str, timeout: Duration) -> String {
    let minutes = timeout.as_secs().div_ceil(60).max(1);
    format!(
        "{}\n\nAnswer this form on the page at the link (it can show files, pictures and \
         cards). When the page asks, enter the code {code}. The page works for {minutes} \
         minute{}; only you should use it.",
        form.message(),
        if minutes == 1 { "" } else { "s" }
    )
}

/// A page opened for one URL-mode ask: its slot, what it shows, its checker and the
/// URL-mode request's params.
struct Opened {
    slot: PageSlot,
    view: NativeView,
    html: String,
    check: AnswerCheck,
    elicitation_id: String,
    params: Value,
}

/// Opens the page of `form` (starting the page server on the first use) and makes the
/// URL-mode request's params: `mode`, `message` (with the code), `url`, `elicitationId`.
async fn open(
    pages: &Pages,
    options: PageOptions,
    ctx: &RequestContext<RoleServer>,
    form: &DataForm,
    timeout: Duration,
) -> Result<Opened, FormError> {
    let server = pages
        .get_or_try_init(|| PageServer::start(options))
        .await
        .map_err(|e| transport_error(format!("cannot serve the form's page: {e}")))?;
    let code = new_code().map_err(transport_error)?;
    let slot = if server.is_mounted() {
        // Served on the listener the tool call came through: the person reaches it at the
        // host the client used (already checked by that listener).
        let host = ctx
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.headers.get(axum::http::header::HOST))
            .and_then(|host| host.to_str().ok())
            .ok_or_else(|| transport_error("the tool call came without a Host header"))?;
        server.open_at(
            &format!("http://{host}"),
            Some(code.clone()),
            FILE_RETENTION,
        )
    } else {
        server.open(Some(code.clone()), FILE_RETENTION)
    }
    .map_err(|e| {
        if e.kind() == std::io::ErrorKind::QuotaExceeded {
            // Too many pages open: the form is not asked (no request goes to the client).
            transport_error(format!(
                "cannot open the form's page: {e}; the form was not asked (ask again once \
                 one of them is answered or ends)"
            ))
        } else {
            transport_error(e)
        }
    })?;
    let elicitation_id = random_hex::<16>().map_err(transport_error)?;
    let view = NativeView::from_json(form.native_json()).map_err(transport_error)?;
    let mut asker = Vec::new();
    if let Some(info) = ctx.peer.peer_info() {
        let client = &info.client_info;
        asker.push((
            "Asked through".to_owned(),
            format!("{} {}", client.name, client.version),
        ));
    }
    let html = forms_runtime::native::page::answer_page(&view, &asker).map_err(transport_error)?;
    let checker = form.clone();
    let check: AnswerCheck = Arc::new(move |text: &str| {
        checker
            .check_response(text)
            .map(|_| ())
            .map_err(|e| e.message().to_owned())
    });
    let params = json!({
        "mode": "url",
        "message": message(form, &code, timeout),
        "url": slot.url(),
        "elicitationId": elicitation_id,
    });
    Ok(Opened {
        slot,
        view,
        html,
        check,
        elicitation_id,
        params,
    })
}

/// The page's submission, or why there is none, as an ask ends.
fn submitted(
    answer: Result<Result<Value, String>, tokio::time::error::Elapsed>,
    timeout: Duration,
) -> Result<Box<RawValue>, FormError> {
    match answer {
        Ok(Ok(value)) => serde_json::value::to_raw_value(&value).map_err(transport_error),
        Ok(Err(why)) => Err(transport_error(why)),
        Err(_) => Err(FormError::new(
            ErrorCode::Timeout,
            format!(
                "the form was not submitted within {} ms",
                timeout.as_millis()
            ),
        )),
    }
}

/// The action of a client's answer to a URL-mode request.
fn consent_action(consent: &str) -> Result<String, FormError> {
    serde_json::from_str::<Value>(consent)
        .ok()
        .and_then(|v| v.get("action").and_then(Value::as_str).map(str::to_owned))
        .filter(|a| matches!(a.as_str(), "accept" | "decline" | "cancel"))
        .ok_or_else(|| {
            FormError::new(
                ErrorCode::InvalidResponse,
                "action: the client's answer to the URL-mode request is not accept, decline or cancel",
            )
        })
}

/// Asks `form` in URL mode through `ctx`'s client and waits for the page's submission, at
/// most `timeout` in all; the answer is the submitted host response's JSON text, already
/// checked against the form.
pub(crate) async fn ask(
    pages: &Pages,
    options: PageOptions,
    ctx: &RequestContext<RoleServer>,
    form: &DataForm,
    timeout: Duration,
) -> Result<Box<RawValue>, FormError> {
    let started = Instant::now();
    let Opened {
        slot,
        view,
        html,
        check,
        elicitation_id,
        params,
    } = open(pages, options, ctx, form, timeout).await?;
    let params: ElicitRequestParams = serde_json::from_value(params).map_err(transport_error)?;
    let request = ServerRequest::ElicitRequest(ElicitRequest::new(params));
    let consent = legacy::send(ctx, request, "elicitation/create", timeout).await?;
    if consent_action(consent.get())? != "accept" {
        // The person declined or dismissed opening the page: that is the outcome.
        return Ok(consent);
    }
    let left = timeout.saturating_sub(started.elapsed());
    let outcome = tokio::select! {
        biased;
        () = ctx.ct.cancelled() => Err(FormError::new(
            ErrorCode::RequestCancelled,
            "the tool call was cancelled before the form was submitted",
        )),
        answer = tokio::time::timeout(left, slot.ask(Arc::new(view), html, Some(check))) => submitted(answer, timeout),
    };
    drop(slot);
    let complete = CustomNotification::new(
        COMPLETE_METHOD,
        Some(json!({"elicitationId": elicitation_id})),
    );
    let _ = ctx
        .peer
        .send_notification(ServerNotification::CustomNotification(complete))
        .await;
    outcome
}

/// How long a retried call waits for the page's submission before it returns the same
/// interaction again (2026-07-28).
const ROUND_WAIT: Duration = Duration::from_secs(5);

/// A URL-mode interaction of protocol 2026-07-28, kept between the rounds of one tool call:
/// the input request sent (sent again, the same, until the page is submitted), whom and
/// which call it was issued to, and the page's submission when it comes.
pub(crate) struct Interaction {
    caller: Vec<u8>,
    call: Vec<u8>,
    request: InputRequest,
    answer: watch::Receiver<Option<Result<String, FormError>>>,
    page: tokio::task::AbortHandle,
}

impl std::fmt::Debug for Interaction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Interaction").finish_non_exhaustive()
    }
}

/// The open interactions of an asker, by the request state issued with each.
pub(crate) type Interactions = Arc<Mutex<HashMap<String, Interaction>>>;

fn take(interactions: &Interactions, state: &str) -> Option<Interaction> {
    interactions
        .lock()
        .ok()
        .and_then(|mut map| map.remove(state))
}

/// One round of a URL-mode ask on 2026-07-28.
///
/// The first call opens the page (as on 2025-11-25) and returns the input-required result
/// whose input request is the URL-mode `elicitation/create`, with a sealed request state;
/// the page waits for its submission in the background, at most `timeout`. A retry carrying
/// that state and the client's consent (`inputResponses["form"]`, `{"action":"accept"}`)
/// waits up to [`ROUND_WAIT`] for the submission: without it, the same input request and
/// the same state are returned again (no second page, no second upload directory); with it,
/// the state is redeemed (single-use, as every state) and the submission is the answer. A
/// consent of `decline` or `cancel` closes the page and is the answer.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn round(
    pages: &Pages,
    options: PageOptions,
    interactions: &Interactions,
    states: &States,
    form: &DataForm,
    binding_of_call: &[u8],
    call: &FormCall,
    timeout: Duration,
) -> Result<Round, FormError> {
    let ctx = call.context();
    let caller = crate::input_round::caller(ctx);
    let form_json: Value = serde_json::from_str(&form.to_json()).map_err(transport_error)?;
    let issued = Issued {
        caller: &caller,
        call: binding_of_call,
        form: &form_json,
    };
    let Some(sealed) = call.request_state() else {
        let Opened {
            slot,
            view,
            html,
            check,
            params,
            ..
        } = open(pages, options, ctx, form, timeout).await?;
        let state = states.seal(&issued, timeout)?;
        let request: InputRequest =
            serde_json::from_value(json!({"method": "elicitation/create", "params": params}))
                .map_err(transport_error)?;
        let (tx, rx) = watch::channel(None);
        let page = tokio::spawn(async move {
            let answer =
                tokio::time::timeout(timeout, slot.ask(Arc::new(view), html, Some(check))).await;
            let answer = submitted(answer, timeout).map(|raw| raw.get().to_owned());
            // The page closes with its submission (or its end); later requests get nothing.
            drop(slot);
            let _ = tx.send(Some(answer));
        })
        .abort_handle();
        if let Ok(mut map) = interactions.lock() {
            map.insert(
                state.clone(),
                Interaction {
                    caller: caller.clone(),
                    call: binding_of_call.to_vec(),
                    request: request.clone(),
                    answer: rx,
                    page,
                },
            );
        }
        // Forgotten with its state.
        let forget = (Arc::clone(interactions), state.clone());
        tokio::spawn(async move {
            tokio::time::sleep(timeout + ROUND_WAIT).await;
            if let Some(open) = take(&forget.0, &forget.1) {
                open.page.abort();
            }
        });
        let requests = [(INPUT_KEY.to_owned(), request)].into_iter().collect();
        return Ok(Round::InputRequired(InputRequiredResult::new(
            Some(requests),
            Some(state),
        )));
    };
    let open = interactions.lock().ok().and_then(|map| {
        map.get(sealed)
            .filter(|open| open.caller == caller && open.call == binding_of_call)
            .map(|open| (open.request.clone(), open.answer.clone(), open.page.clone()))
    });
    let Some((request, mut answer, page)) = open else {
        // Not an interaction of this process (or no longer open): the state says why.
        states.redeem(sealed, &issued, timeout).await?;
        return Err(FormError::new(
            ErrorCode::InvalidResponse,
            "the URL-mode interaction of this request state is no longer open",
        ));
    };
    let consent = match call.input_responses().and_then(|r| r.get(INPUT_KEY)) {
        Some(consent) => consent_action(&consent.to_string())?,
        None => {
            return Err(FormError::new(
                ErrorCode::InvalidResponse,
                format!("the retried call carries no inputResponses[{INPUT_KEY:?}]"),
            ))
        }
    };
    if consent != "accept" {
        take(interactions, sealed);
        page.abort();
        states.redeem(sealed, &issued, timeout).await?;
        let answer = serde_json::value::to_raw_value(&json!({"action": consent}))
            .map_err(transport_error)?;
        return Ok(Round::Answer(Answer::Text(answer)));
    }
    let waited = tokio::select! {
        biased;
        () = ctx.ct.cancelled() => None,
        waited = tokio::time::timeout(ROUND_WAIT, answer.wait_for(Option::is_some)) => {
            waited.ok().and_then(Result::ok).and_then(|got| got.clone())
        }
    };
    match waited {
        None => {
            // Not submitted yet: the same interaction again, under the same state.
            let requests = [(INPUT_KEY.to_owned(), request)].into_iter().collect();
            Ok(Round::InputRequired(InputRequiredResult::new(
                Some(requests),
                Some(sealed.to_owned()),
            )))
        }
        Some(result) => {
            take(interactions, sealed);
            states.redeem(sealed, &issued, timeout).await?;
            let text = result?;
            let raw = RawValue::from_string(text).map_err(transport_error)?;
            Ok(Round::Answer(Answer::Text(raw)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_eight_unambiguous_characters() {
        for _ in 0..100 {
            let code = new_code().unwrap();
            assert_eq!(code.len(), CODE_LENGTH);
            assert!(code.bytes().all(|b| CODE_ALPHABET.contains(&b)), "{code}");
            assert!(!code.contains(['0', 'O', '1', 'I', 'L']), "{code}");
        }
        assert_ne!(new_code().unwrap(), new_code().unwrap());
    }
}
