//! The one reader of whole request bodies: at most a size, within a time-out, with the bytes
//! past the first [`FREE_BODY_BYTES`] of each body taken from a budget shared by all requests.

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The bytes of each request body that do not count against the shared budget: small
/// requests are never refused for memory; their total is bounded by the connection cap.
pub const FREE_BODY_BYTES: usize = 64 * 1024;

/// How request bodies are read: the largest body, the time it may take to arrive whole, and
/// the memory budget (one permit a byte) for the bytes past [`FREE_BODY_BYTES`] of each.
/// Clones share the budget.
#[derive(Clone, Debug)]
pub struct Bodies {
    max_bytes: usize,
    timeout: Duration,
    budget: Arc<Semaphore>,
}

/// A refusal: `status` with a short text, closing the connection.
pub(crate) fn refuse(status: StatusCode, text: &str) -> Response {
    let mut response = (status, text.to_owned()).into_response();
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// A refusal for now: `503` with `Retry-After`.
pub(crate) fn busy(text: &str) -> Response {
    let mut response = refuse(StatusCode::SERVICE_UNAVAILABLE, text);
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

impl Bodies {
    /// Bodies of at most `max_bytes`, arriving within `timeout`, with `memory` bytes past the
    /// free ones held at once.
    pub fn new(max_bytes: usize, timeout: Duration, memory: usize) -> Bodies {
        Bodies {
            max_bytes,
            timeout,
            budget: Arc::new(Semaphore::new(memory.min(Semaphore::MAX_PERMITS))),
        }
    }

    /// The largest body, in bytes.
    pub fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    /// The shared memory budget, one permit a byte (for other holders of request bytes).
    pub fn budget(&self) -> Arc<Semaphore> {
        Arc::clone(&self.budget)
    }

    /// Reads a request body whole: at most the size limit (413), within the time-out (408),
    /// with the bytes past [`FREE_BODY_BYTES`] taken from the shared budget (503 when spent)
    /// and held until the returned permit drops. A body that breaks a limit is refused and
    /// its connection closed.
    pub async fn read(
        &self,
        headers: &HeaderMap,
        body: Body,
    ) -> Result<(Bytes, Option<OwnedSemaphorePermit>), Response> {
        let too_large = || {
            refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!(
                    "Payload Too Large: the request body exceeds {} bytes",
                    self.max_bytes
                ),
            )
        };
        let declared = headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        if declared.is_some_and(|n| n > self.max_bytes as u64) {
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
                if total > self.max_bytes {
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
        match tokio::time::timeout(self.timeout, read).await {
            Ok(read) => read,
            Err(_) => Err(refuse(
                StatusCode::REQUEST_TIMEOUT,
                "Request Timeout: the request body did not arrive in time",
            )),
        }
    }
}
