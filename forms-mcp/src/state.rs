//! Sealed request states of the multi-round-trip transport.
//!
//! A state is sealed with rmcp's [`RequestStateCodec`] (HMAC-SHA256) and carries a random
//! single-use nonce and keyed digests (keyed with the sealing key, so the state shows nothing
//! of the caller) of what it was issued for: the caller (on HTTP the principal of a known
//! bearer token, else the token's digest, plus the live session the request belongs to; see
//! [`crate::auth::Caller`]; with no token, no one), the tool call (its name and normalized
//! arguments), the form's message and each of its questions. It expires after the timeout.
//! Each failure has its own `invalid_response`: a state that fails integrity verification
//! (altered, forged, or sealed under another key), one issued to another caller, one issued
//! for other arguments, and one whose form was rebuilt differently for the retry (naming the
//! questions that changed: the answer is only ever checked against the form that was shown,
//! so a server whose run-time options change between rounds must keep the first round's).
//! An expired state is `timeout`; one already answered is `invalid_response`. A state is
//! about 400 bytes plus 60 per question, whatever the form's size.
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
    /// The sealing key, which also keys the digests in a state.
    key: Arc<[u8]>,
    used: Used,
}

impl fmt::Debug for States {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("States").finish_non_exhaustive()
    }
}

/// What a sealed state carries: its nonce and keyed digests of what it was issued for, so
/// that a retry that differs is told what differs. The digests are keyed with the sealing key,
/// so the state shows nothing of the caller.
#[derive(serde::Serialize, serde::Deserialize)]
struct Payload {
    n: String,
    /// The caller.
    c: String,
    /// The tool call: its name and arguments.
    a: String,
    /// The whole form as issued.
    f: String,
    /// The form's message.
    m: String,
    /// Each question of the form as issued: its id and digest.
    q: Vec<(String, String)>,
}

/// What a state is issued for, and checked against on the retry.
pub(crate) struct Issued<'a> {
    /// Who calls ([`crate::auth::Caller`]'s binding; empty on stdio).
    pub(crate) caller: &'a [u8],
    /// The tool call: its name and arguments.
    pub(crate) call: &'a [u8],
    /// The form, as the model-facing JSON.
    pub(crate) form: &'a serde_json::Value,
}

/// The associated data every state is sealed with: what it is, never what it is for (that is
/// in the payload, so a mismatch can be named).
const STATE_DATA: &[u8] = b"forms-mcp/state/v3";

impl States {
    pub(crate) fn new(key: &[u8]) -> Result<States, StateKeyError> {
        check_key(key)?;
        let codec =
            RequestStateCodec::try_new(key.to_vec()).map_err(|e| StateKeyError(e.to_string()))?;
        Ok(States {
            codec,
            key: Arc::from(key),
            used: Used::Memory(Mutex::new(HashMap::new())),
        })
    }

    /// A store over a key whose length was already checked.
    pub(crate) fn new_unchecked(key: &[u8]) -> States {
        States {
            codec: RequestStateCodec::new_unchecked(key.to_vec()),
            key: Arc::from(key),
            used: Used::Memory(Mutex::new(HashMap::new())),
        }
    }

    /// The same key, remembering used nonces in `store` instead of in memory.
    pub(crate) fn with_store(&self, store: Arc<dyn UsedStates>) -> States {
        States {
            codec: self.codec.clone(),
            key: Arc::clone(&self.key),
            used: Used::Store(store),
        }
    }

    /// A keyed digest of `bytes` (16 bytes, in hex), labelled `label`.
    fn digest(&self, label: &str, bytes: &[u8]) -> String {
        use sha2::Digest;
        let mut hasher = sha2::Sha256::new();
        hasher.update(b"forms-mcp/state-digest\0");
        hasher.update(&self.key);
        hasher.update(label.as_bytes());
        hasher.update([0]);
        hasher.update(bytes);
        let digest = hasher.finalize();
        crate::secret::hex(digest.get(..16).unwrap_or_default())
    }

    fn payload(&self, nonce: String, issued: &Issued<'_>) -> Payload {
        let form = issued.form;
        let questions = form
            .get("questions")
            .and_then(|q| q.as_array())
            .map(|questions| {
                questions
                    .iter()
                    .enumerate()
                    .map(|(i, q)| {
                        let id = q
                            .get("id")
                            .and_then(|id| id.as_str())
                            .map_or_else(|| format!("#{}", i + 1), str::to_owned);
                        let digest = self.digest("question", q.to_string().as_bytes());
                        (id, digest)
                    })
                    .collect()
            })
            .unwrap_or_default();
        let message = form
            .get("message")
            .map(|m| m.to_string())
            .unwrap_or_default();
        Payload {
            n: nonce,
            c: self.digest("caller", issued.caller),
            a: self.digest("call", issued.call),
            f: self.digest("form", form.to_string().as_bytes()),
            m: self.digest("message", message.as_bytes()),
            q: questions,
        }
    }

    /// A new state issued for `issued`, valid for `ttl`.
    pub(crate) fn seal(&self, issued: &Issued<'_>, ttl: Duration) -> Result<String, FormError> {
        let nonce = random_bytes::<16>()
            .map_err(|e| FormError::new(ErrorCode::TransportError, e.to_string()))?;
        self.codec
            .seal_json_with(
                &self.payload(crate::secret::hex(&nonce), issued),
                &SealOptions::new().associated_data(STATE_DATA).ttl(ttl),
            )
            .map_err(|e| FormError::new(ErrorCode::TransportError, e.to_string()))
    }

    /// Opens `sealed`, checks it was issued for `issued` and marks it used; `ttl` bounds how
    /// long it is remembered. Each mismatch has its own refusal: a state altered or sealed
    /// under another key, issued to another caller, for other arguments, or for a form that
    /// has changed since (naming the questions that changed).
    pub(crate) async fn redeem(
        &self,
        sealed: &str,
        issued: &Issued<'_>,
        ttl: Duration,
    ) -> Result<(), FormError> {
        let refuse = |message: String| FormError::new(ErrorCode::InvalidResponse, message);
        let payload: Payload =
            self.codec
                .open_json_with(sealed, STATE_DATA)
                .map_err(|e| match e {
                    RequestStateError::Expired => FormError::new(
                        ErrorCode::Timeout,
                        "the request state expired: the form was not submitted in time",
                    ),
                    other => refuse(format!(
                    "the request state failed integrity verification ({other}): it was altered, \
                     or sealed under another key (instances that share calls need the same \
                     {STATE_KEY_ENV}); call the tool again without it to be asked afresh"
                )),
                })?;
        let now = self.payload(String::new(), issued);
        if payload.c != now.c {
            return Err(refuse(
                "the request state was issued to another caller".to_owned(),
            ));
        }
        if payload.a != now.a {
            return Err(refuse(
                "the request state was issued for other arguments of this tool: retry the call \
                 with the arguments of the first call"
                    .to_owned(),
            ));
        }
        if payload.f != now.f {
            return Err(refuse(form_changed(&payload, &now)));
        }
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

/// The refusal of a retry whose form differs from the one issued: what changed, and what to
/// do.
fn form_changed(issued: &Payload, now: &Payload) -> String {
    let mut changes = Vec::new();
    if issued.m != now.m {
        changes.push("its message".to_owned());
    }
    for (id, digest) in &issued.q {
        match now.q.iter().find(|(other, _)| other == id) {
            None => changes.push(format!("question {id:?} is gone")),
            Some((_, other)) if other != digest => {
                changes.push(format!("question {id:?} changed (its options or wording)"))
            }
            Some(_) => {}
        }
    }
    for (id, _) in &now.q {
        if !issued.q.iter().any(|(other, _)| other == id) {
            changes.push(format!("question {id:?} is new"));
        }
    }
    if changes.is_empty() {
        changes.push("the order or set of its questions".to_owned());
    }
    format!(
        "the form rebuilt for the retry differs from the one the person answered: {}. The \
         answer is checked only against the form that was shown; the server must build the \
         same form on the retry (keep the run-time options offered in the first round), or \
         the tool must be called again to ask afresh",
        changes.join("; ")
    )
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
