//! Who calls over HTTP: bearer tokens and the principals they stand for.
//!
//! A token table is given at start (`--principal-token NAME=TOKEN`,
//! `FORMS_ASK_PRINCIPAL_TOKENS`). Only the SHA-256 digest of each token is kept; a presented
//! token is hashed and its digest compared with every entry in constant time, so neither the
//! time taken nor the comparison tells which bytes of a token matched, or how long a known
//! token is. A token shorter than [`TOKEN_CHARS_MIN`] characters is refused at start.
//!
//! The `Authorization` header is read once per HTTP request by the transport
//! ([`crate::http`]), which stores the verdict as a [`Caller`] in the request's extensions;
//! the tools read the [`Caller`] from there. The scheme `Bearer` is matched without regard to
//! case; a request with two `Authorization` headers is refused as a whole ([`AuthError`]).
//! A token the table does not know names no principal (the `ask_*` tools refuse it), but it
//! still tells callers apart: its digest is the caller's credential, which a session and a
//! request state are bound to.

#[cfg(not(feature = "asks"))]
pub use self::name::Principal;
use axum::http::header::AUTHORIZATION;
use axum::http::HeaderMap;
#[cfg(feature = "asks")]
pub use forms_ask::Principal;
use sha2::{Digest, Sha256};
use std::fmt;

/// The fewest characters a principal's token may have.
pub const TOKEN_CHARS_MIN: usize = 16;

/// A token table that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TokenError {
    /// A token shorter than [`TOKEN_CHARS_MIN`] characters.
    #[error(
        "the token of {name:?} has {chars} characters; a principal token needs at least \
         {TOKEN_CHARS_MIN} (use a random one, e.g. `openssl rand -hex 32`)"
    )]
    TooShort {
        /// The principal the token is for.
        name: String,
        /// How many characters it has.
        chars: usize,
    },
    /// The same token given for two entries.
    #[error("the token of {name:?} is given twice")]
    Duplicate {
        /// The principal of the second entry.
        name: String,
    },
}

/// A request whose `Authorization` header cannot be read as one credential.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// Two or more `Authorization` headers.
    #[error("the request carries more than one Authorization header")]
    Repeated,
}

/// One entry of the table: the digest of a token and its principal.
#[derive(Clone)]
struct Entry {
    digest: [u8; 32],
    principal: Principal,
}

/// The bearer tokens a server accepts and the principal each one stands for.
///
/// ```
/// use forms_ask::Principal;
/// use forms_mcp::auth::Tokens;
/// let ana = Principal::new("ana").unwrap();
/// let tokens = Tokens::new([("0123456789abcdef-ana".to_owned(), ana)]).unwrap();
/// assert_eq!(tokens.len(), 1);
/// assert!(Tokens::new([("short".to_owned(), Principal::new("bo").unwrap())]).is_err());
/// ```
#[derive(Clone, Default)]
pub struct Tokens {
    entries: Vec<Entry>,
}

impl fmt::Debug for Tokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print a token or its digest.
        f.debug_struct("Tokens")
            .field("entries", &self.entries.len())
            .finish()
    }
}

fn digest(token: &[u8]) -> [u8; 32] {
    Sha256::digest(token).into()
}

/// Compares two digests in time independent of where they differ.
fn same_digest(a: &[u8; 32], b: &[u8; 32]) -> bool {
    crate::secret::same(a, b)
}

impl Tokens {
    /// A table from `TOKEN, principal` pairs. Each token has at least [`TOKEN_CHARS_MIN`]
    /// characters and appears once; several tokens may stand for one principal.
    pub fn new(pairs: impl IntoIterator<Item = (String, Principal)>) -> Result<Tokens, TokenError> {
        let mut entries: Vec<Entry> = Vec::new();
        for (token, principal) in pairs {
            let chars = token.chars().count();
            if chars < TOKEN_CHARS_MIN {
                return Err(TokenError::TooShort {
                    name: principal.as_str().to_owned(),
                    chars,
                });
            }
            let digest = digest(token.as_bytes());
            if entries.iter().any(|e| same_digest(&e.digest, &digest)) {
                return Err(TokenError::Duplicate {
                    name: principal.as_str().to_owned(),
                });
            }
            entries.push(Entry { digest, principal });
        }
        Ok(Tokens { entries })
    }

    /// How many tokens the table holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the table holds no token.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Who sends a request with `headers`: the digest of its bearer token, if it has one,
    /// and the principal that token stands for, if the table knows it. No `Authorization`
    /// header, or another scheme, is anonymous; two `Authorization` headers are an error.
    pub fn caller(&self, headers: &HeaderMap) -> Result<Caller, AuthError> {
        let mut values = headers.get_all(AUTHORIZATION).iter();
        let value = values.next();
        if values.next().is_some() {
            return Err(AuthError::Repeated);
        }
        let Some(token) = value.and_then(|v| bearer(v.as_bytes())) else {
            return Ok(Caller::anonymous());
        };
        let presented = digest(token);
        // Every entry is compared, so the time taken does not tell which one matched.
        let mut principal = None;
        for entry in &self.entries {
            if same_digest(&entry.digest, &presented) && principal.is_none() {
                principal = Some(entry.principal.clone());
            }
        }
        Ok(Caller {
            credential: Some(presented),
            principal,
            session: None,
        })
    }
}

/// The token of an `Authorization: Bearer TOKEN` value; the scheme is matched without regard
/// to case (RFC 9110 section 11.1).
fn bearer(value: &[u8]) -> Option<&[u8]> {
    const SCHEME: &[u8] = b"bearer";
    let scheme = value.get(..SCHEME.len())?;
    let rest = value.get(SCHEME.len()..)?;
    if !scheme.eq_ignore_ascii_case(SCHEME) || rest.first() != Some(&b' ') {
        return None;
    }
    let token = rest.trim_ascii();
    (!token.is_empty()).then_some(token)
}

/// Who sends one HTTP request, as the transport established it: the digest of the bearer
/// token it presented (its credential), the principal that token stands for when the server
/// knows it, and the MCP session the request belongs to when it names a live session opened
/// with the same credential.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Caller {
    credential: Option<[u8; 32]>,
    principal: Option<Principal>,
    session: Option<String>,
}

impl fmt::Debug for Caller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Caller")
            .field("credential", &self.credential.is_some())
            .field("principal", &self.principal)
            .field("session", &self.session)
            .finish()
    }
}

impl Caller {
    /// A caller without a bearer token.
    pub fn anonymous() -> Caller {
        Caller::default()
    }

    /// The principal of the caller's token, if it presented one the server knows.
    pub fn principal(&self) -> Option<&Principal> {
        self.principal.as_ref()
    }

    /// The session the request belongs to, if any.
    pub fn session(&self) -> Option<&str> {
        self.session.as_deref()
    }

    /// Whether `self` and `other` present the same credential: the same bearer token, or
    /// both none.
    pub fn same_credential(&self, other: &Caller) -> bool {
        match (&self.credential, &other.credential) {
            (Some(a), Some(b)) => same_digest(a, b),
            (None, None) => true,
            _ => false,
        }
    }

    /// What a multi-round-trip request state is bound to: the principal when the token is
    /// known, else the token's digest, else nothing (anonymous); then the session, if any.
    pub(crate) fn binding(&self) -> Vec<u8> {
        let mut bytes = Vec::new();
        match (&self.principal, &self.credential) {
            (Some(principal), _) => {
                bytes.extend_from_slice(b"principal:");
                bytes.extend_from_slice(principal.as_str().as_bytes());
            }
            (None, Some(credential)) => {
                bytes.extend_from_slice(b"bearer-sha256:");
                bytes.extend_from_slice(credential);
            }
            (None, None) => bytes.extend_from_slice(b"anonymous"),
        }
        if let Some(session) = &self.session {
            bytes.extend_from_slice(b"\0session:");
            bytes.extend_from_slice(session.as_bytes());
        }
        bytes
    }

    /// The caller within `session`.
    pub(crate) fn in_session(mut self, session: String) -> Caller {
        self.session = Some(session);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn table() -> Tokens {
        Tokens::new([
            (
                "tok-ana-0123456789".to_owned(),
                Principal::new("ana").unwrap(),
            ),
            (
                "tok-bo-0123456789a".to_owned(),
                Principal::new("bo").unwrap(),
            ),
        ])
        .unwrap()
    }

    fn headers(values: &[&'static str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for v in values {
            headers.append(AUTHORIZATION, HeaderValue::from_static(v));
        }
        headers
    }

    #[test]
    fn the_scheme_is_matched_without_regard_to_case() {
        for value in [
            "Bearer tok-ana-0123456789",
            "bearer tok-ana-0123456789",
            "BEARER  tok-ana-0123456789 ",
            "BeArEr tok-ana-0123456789",
        ] {
            let caller = table().caller(&headers(&[value])).unwrap();
            assert_eq!(caller.principal().unwrap().as_str(), "ana", "{value}");
        }
        for value in [
            "Basic tok-ana-0123456789",
            "Bearertok-ana-0123456789",
            "Bearer",
        ] {
            let caller = table().caller(&headers(&[value])).unwrap();
            assert_eq!(caller, Caller::anonymous(), "{value}");
        }
        for value in ["Bearer tok-ana-012345678", "Bearer tok-ana-0123456789x"] {
            let caller = table().caller(&headers(&[value])).unwrap();
            assert_eq!(caller.principal(), None, "{value}");
            assert!(!caller.same_credential(&Caller::anonymous()), "{value}");
        }
    }

    #[test]
    fn two_authorization_headers_are_refused() {
        let two = headers(&["Bearer tok-ana-0123456789", "Bearer tok-ana-0123456789"]);
        assert_eq!(table().caller(&two), Err(AuthError::Repeated));
    }

    #[test]
    fn weak_or_repeated_tokens_are_refused() {
        let ana = || Principal::new("ana").unwrap();
        let short = Tokens::new([("x".repeat(15), ana())]).unwrap_err();
        assert!(short.to_string().contains("at least 16"), "{short}");
        assert!(Tokens::new([("x".repeat(16), ana())]).is_ok());
        let twice = Tokens::new([("x".repeat(16), ana()), ("x".repeat(16), ana())]);
        assert!(matches!(twice, Err(TokenError::Duplicate { .. })));
    }

    #[test]
    fn two_tokens_of_one_principal_are_two_credentials() {
        let tokens = Tokens::new([
            (
                "tok-ana-one-0123456".to_owned(),
                Principal::new("ana").unwrap(),
            ),
            (
                "tok-ana-two-0123456".to_owned(),
                Principal::new("ana").unwrap(),
            ),
        ])
        .unwrap();
        let one = tokens
            .caller(&headers(&["Bearer tok-ana-one-0123456"]))
            .unwrap();
        let two = tokens
            .caller(&headers(&["Bearer tok-ana-two-0123456"]))
            .unwrap();
        assert_eq!(one.principal(), two.principal());
        assert!(!one.same_credential(&two));
        assert!(Caller::anonymous().same_credential(&Caller::anonymous()));
    }
}

/// Without the `asks` feature: the name a token stands for (with it, the principal of
/// `forms_ask`).
#[cfg(not(feature = "asks"))]
mod name {
    /// Someone who calls the server: the name a bearer token stands for.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct Principal(String);

    impl Principal {
        /// The principal named `name` (any name: without forms-ask there is no rule to
        /// break, so this never fails).
        pub fn new(name: impl Into<String>) -> Result<Principal, std::convert::Infallible> {
            Ok(Principal(name.into()))
        }

        /// The name.
        pub fn as_str(&self) -> &str {
            &self.0
        }
    }
}
