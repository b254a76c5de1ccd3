//! Request IDs: derived from the time, the process, a counter and the writer's retry key.

use crate::model::{Principal, RequestId};
use crate::retry::sha256_hex;
use std::sync::atomic::{AtomicU64, Ordering};

/// A fresh request ID: `req_` and 24 hex digits, from the time, the process, a counter and
/// the writer's key.
pub(super) fn new_id(me: &Principal, key: &str) -> RequestId {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let digest = sha256_hex(&[
        &nanos.to_string(),
        &std::process::id().to_string(),
        &n.to_string(),
        me.as_str(),
        key,
    ]);
    RequestId::made(format!("req_{}", digest.get(..24).unwrap_or(&digest)))
}
