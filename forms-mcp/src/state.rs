//! Sealed request states of the multi-round-trip transport.
//!
//! A state is sealed with rmcp's [`RequestStateCodec`] (HMAC-SHA256) and carries only a
//! random single-use nonce. It is bound, as associated data, to the normalized Data arguments
//! and to the caller (on HTTP the principal of a known bearer token, else the token's digest,
//! plus the live session the request belongs to; see [`crate::auth::Caller`]; with no token,
//! to the arguments alone), and it expires after the timeout. A state that fails the check
//! (tampered, forged, issued for other arguments or another caller, or sealed under another
//! key) is `invalid_response`; an expired one is `timeout`; one already answered is
//! `invalid_response`.
//!
//! Used nonces are remembered until their state expires: in memory by default, so a state
//! is single use within one process only; with a [`UsedStates`] store (`forms-mcp
//! --asks DB` or `--state-store DB`, a SQLite file or a PostgreSQL database, through
//! [`AskStore`] and `forms_ask::Store::claim_once`), in that store, so a state is single use
//! across every instance sharing it and across restarts. There the check and the record are one atomic write: of
//! instances racing to redeem one state, exactly one accepts it. Several instances behind a
//! load balancer need the same key (`FORMS_STATE_KEY`) and one store. A store that cannot
//! be reached refuses the answer (`transport_error`) rather than risk accepting it twice.

use forms_runtime::{ErrorCode, FormError};
use rmcp::model::{RequestStateCodec, RequestStateError, SealOptions};
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How much longer than its state a used nonce is kept in a store: the clocks of instances
/// sharing the store may differ by up to this much.
pub const STORE_CLOCK_SKEW: Duration = Duration::from_secs(300);

/// The prefix of the single-use keys of request states in a store.
const STORE_KEY_PREFIX: &str = "forms-mcp/state:";

/// The environment variable holding the sealing key: at least 32 bytes, written in hex.
pub const STATE_KEY_ENV: &str = "FORMS_STATE_KEY";

/// The fewest different byte values a sealing key may hold: 32 random bytes hold about 30,
/// so fewer than this is a key made by hand (all zero bytes, a repeated pattern).
pub const STATE_KEY_DISTINCT_MIN: usize = 8;

/// A `FORMS_STATE_KEY` that is not hex, holds fewer than 32 bytes, or is not random (all
/// zero bytes, a short pattern repeated).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateKeyError(String);

impl fmt::Display for StateKeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{STATE_KEY_ENV} must be at least 32 random bytes written as hex (64 or more hex \
             digits, e.g. `openssl rand -hex 32`): {}",
            self.0
        )
    }
}

impl std::error::Error for StateKeyError {}

/// Reads a sealing key from its hex text.
///
/// ```
/// use forms_mcp::state::parse_state_key;
/// let key = "0123456789abcdef".repeat(4);
/// assert_eq!(parse_state_key(&key).unwrap().len(), 32);
/// assert!(parse_state_key(&key[..62]).is_err());
/// assert!(parse_state_key("not hex").is_err());
/// assert!(parse_state_key(&"00".repeat(32)).is_err());
/// assert!(parse_state_key(&"0123".repeat(16)).is_err());
/// ```
pub fn parse_state_key(text: &str) -> Result<Vec<u8>, StateKeyError> {
    let text = text.trim();
    if !text.len().is_multiple_of(2) {
        return Err(StateKeyError("an odd number of hex digits".into()));
    }
    let digit = |b: u8| (b as char).to_digit(16);
    let mut key = Vec::with_capacity(text.len() / 2);
    for pair in text.as_bytes().chunks(2) {
        match pair {
            [hi, lo] => match (digit(*hi), digit(*lo)) {
                (Some(hi), Some(lo)) => key.push((hi * 16 + lo) as u8),
                _ => return Err(StateKeyError("a character that is not a hex digit".into())),
            },
            _ => return Err(StateKeyError("an odd number of hex digits".into())),
        }
    }
    check_key(&key)?;
    Ok(key)
}

/// Refuses a key shorter than 32 bytes or with fewer than [`STATE_KEY_DISTINCT_MIN`]
/// different byte values.
fn check_key(key: &[u8]) -> Result<(), StateKeyError> {
    if key.len() < RequestStateCodec::MIN_KEY_LENGTH {
        return Err(StateKeyError(format!("got {} bytes", key.len())));
    }
    let mut seen = [false; 256];
    for b in key {
        if let Some(slot) = seen.get_mut(usize::from(*b)) {
            *slot = true;
        }
    }
    let distinct = seen.iter().filter(|s| **s).count();
    if distinct < STATE_KEY_DISTINCT_MIN {
        return Err(StateKeyError(if key.iter().all(|b| *b == 0) {
            "all its bytes are zero".to_owned()
        } else {
            format!("it holds only {distinct} different byte values, not a random key")
        }));
    }
    Ok(())
}

/// The sealing key: `FORMS_STATE_KEY` when set, otherwise 32 random bytes for this process.
pub fn state_key_from_env() -> Result<Vec<u8>, StateKeyError> {
    match std::env::var(STATE_KEY_ENV) {
        Ok(text) => parse_state_key(&text),
        Err(std::env::VarError::NotPresent) => Ok(random_key()),
        Err(std::env::VarError::NotUnicode(_)) => Err(StateKeyError("not valid text".into())),
    }
}

/// 32 random bytes for a per-process key. Should the system's random source fail, the bytes
/// come from std's randomly seeded hasher keys instead (also drawn from the system's
/// randomness at start).
pub(crate) fn random_key() -> Vec<u8> {
    random_bytes::<32>()
        .map(|b| b.to_vec())
        .unwrap_or_else(|_| {
            use std::hash::{BuildHasher, Hasher};
            (0..4u8)
                .flat_map(|i| {
                    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
                    h.write_u8(i);
                    h.finish().to_le_bytes()
                })
                .collect()
        })
}

fn random_bytes<const N: usize>() -> Result<[u8; N], getrandom::Error> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes)?;
    Ok(bytes)
}

/// A store of single-use keys shared by instances and kept across restarts, where used
/// request states are remembered ([`crate::FormAsker::with_used_states`]).
pub trait UsedStates: Send + Sync {
    /// A short description for messages (a path, or a URL without its password).
    fn location(&self) -> String;

    /// Records `key` as used for at least `keep`, as one atomic write: `Ok(true)` for the
    /// first claim of a key (or of one whose record has expired), `Ok(false)` when it is
    /// already recorded. It may block; it is called on a blocking thread.
    fn claim_once(&self, key: &str, keep: Duration) -> Result<bool, String>;
}

/// A forms-ask store (SQLite or PostgreSQL) as the used-state store, through
/// `forms_ask::Store::claim_once` and the system clock.
#[cfg(feature = "asks")]
pub struct AskStore(pub Arc<dyn forms_ask::Store>);

#[cfg(feature = "asks")]
impl UsedStates for AskStore {
    fn location(&self) -> String {
        self.0.location()
    }

    fn claim_once(&self, key: &str, keep: Duration) -> Result<bool, String> {
        use forms_ask::{Clock, SystemClock};
        let now = SystemClock.now();
        self.0
            .claim_once(key, now.plus(keep), now)
            .map_err(|e| e.to_string())
    }
}

/// Where used nonces are remembered.
enum Used {
    /// In this process, until their state expires.
    Memory(Mutex<HashMap<String, Instant>>),
    /// In a store shared by instances and kept across restarts.
    Store(Arc<dyn UsedStates>),
}

/// Seals, opens and remembers request states.
pub(crate) struct States {
    codec: RequestStateCodec,
    used: Used,
}

impl fmt::Debug for States {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("States").finish_non_exhaustive()
    }
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Payload {
    n: String,
}

impl States {
    pub(crate) fn new(key: &[u8]) -> Result<States, StateKeyError> {
        check_key(key)?;
        let codec =
            RequestStateCodec::try_new(key.to_vec()).map_err(|e| StateKeyError(e.to_string()))?;
        Ok(States {
            codec,
            used: Used::Memory(Mutex::new(HashMap::new())),
        })
    }

    /// A store over a key whose length was already checked.
    pub(crate) fn new_unchecked(key: &[u8]) -> States {
        States {
            codec: RequestStateCodec::new_unchecked(key.to_vec()),
            used: Used::Memory(Mutex::new(HashMap::new())),
        }
    }

    /// The same key, remembering used nonces in `store` instead of in memory.
    pub(crate) fn with_store(&self, store: Arc<dyn UsedStates>) -> States {
        States {
            codec: self.codec.clone(),
            used: Used::Store(store),
        }
    }

    /// A new state bound to `binding`, valid for `ttl`.
    pub(crate) fn seal(&self, binding: &[u8], ttl: Duration) -> Result<String, FormError> {
        let nonce = random_bytes::<16>()
            .map_err(|e| FormError::new(ErrorCode::TransportError, e.to_string()))?;
        self.codec
            .seal_json_with(
                &Payload {
                    n: crate::secret::hex(&nonce),
                },
                &SealOptions::new().associated_data(binding).ttl(ttl),
            )
            .map_err(|e| FormError::new(ErrorCode::TransportError, e.to_string()))
    }

    /// Opens `sealed` against `binding` and marks it used; `ttl` bounds how long it is
    /// remembered.
    pub(crate) async fn redeem(
        &self,
        sealed: &str,
        binding: &[u8],
        ttl: Duration,
    ) -> Result<(), FormError> {
        let payload: Payload = self
            .codec
            .open_json_with(sealed, binding)
            .map_err(|e| match e {
                RequestStateError::Expired => FormError::new(
                    ErrorCode::Timeout,
                    "the request state expired: the form was not submitted in time",
                ),
                other => FormError::new(
                    ErrorCode::InvalidResponse,
                    format!(
                        "the request state was not issued by this server for these arguments \
                         and this caller ({other})"
                    ),
                ),
            })?;
        let first = match &self.used {
            Used::Memory(used) => {
                let now = Instant::now();
                let mut used = used.lock().map_err(|_| {
                    FormError::new(ErrorCode::TransportError, "state store poisoned")
                })?;
                used.retain(|_, expiry| *expiry > now);
                let first = !used.contains_key(&payload.n);
                if first {
                    used.insert(payload.n, now + ttl);
                }
                first
            }
            Used::Store(store) => claim_in_store(Arc::clone(store), &payload.n, ttl).await?,
        };
        if first {
            Ok(())
        } else {
            Err(FormError::new(
                ErrorCode::InvalidResponse,
                "the request state was already answered once",
            ))
        }
    }
}

/// Claims `nonce` in `store`, kept until its state has expired on every instance's clock.
/// A store's client may block (PostgreSQL's runs its own runtime), so the claim runs on a
/// blocking thread.
async fn claim_in_store(
    store: Arc<dyn UsedStates>,
    nonce: &str,
    ttl: Duration,
) -> Result<bool, FormError> {
    let key = format!("{STORE_KEY_PREFIX}{nonce}");
    let claim = tokio::task::spawn_blocking(move || {
        store
            .claim_once(&key, ttl.saturating_add(STORE_CLOCK_SKEW))
            .map_err(|e| (store.location(), e))
    });
    match claim.await {
        Ok(Ok(first)) => Ok(first),
        Ok(Err((location, e))) => Err(FormError::new(
            ErrorCode::TransportError,
            format!("the used-state store {location} failed, so the answer is refused: {e}"),
        )),
        Err(e) => Err(FormError::new(
            ErrorCode::TransportError,
            format!("the used-state check did not finish: {e}"),
        )),
    }
}
