//! RFC 3986 URIs, credential checks (R24, R26) and user-added file URIs (R27).

use crate::{check_max_chars, limits, Rule, Violation};
use std::net::Ipv6Addr;

/// Words that make a query or fragment parameter name credential-like (R26).
///
/// A parameter name is judged as a server reads it and in every spelling of its words:
///
/// 1. It is decoded: `+` is a space and `%XX` escapes are decoded (`%74oken` is `token`).
/// 2. It is split into words at every character that is not a letter (`_`, `-`, `.`, space,
///    `[`, `]`, digits, …) and where the case changes (`accessToken` → `access`, `token`;
///    `X-Amz-Signature` → `x`, `amz`, `signature`; `APIKey` → `api`, `key`), and the words are
///    lowercased. A `[]` suffix (`token[]`) and array keys (`user[token]`) are words like any
///    other.
/// 3. The words are also joined into one lowercase word (`access_token` → `accesstoken`),
///    which catches names written without separators or case changes.
///
/// The name is credential-like when any of its words is one of these; when the joined word
/// contains one of [`CREDENTIAL_INFIXES`] or ends with one of [`CREDENTIAL_SUFFIXES`]; or
/// when the joined word is `key` (a name that is only `key`). So `token`, `access_token`,
/// `accessToken`, `access-token`, `token[]`, `oauth_token`, `sessionToken`, `jwt`,
/// `X-Amz-Signature`, `api+key`, `APIKey` and `auth` are refused, while `author`,
/// `authority`, `authuser`, `monkey`, `keyword`, `sort_key`, `tokenizer`, `secretary`, `page`
/// and `sort` are ordinary names. `authorization` is refused (it is the name of the HTTP
/// header that carries credentials).
pub const CREDENTIAL_WORDS: &[&str] = &[
    "token",
    "tokens",
    "secret",
    "secrets",
    "password",
    "passwords",
    "passwd",
    "pwd",
    "pass",
    "passphrase",
    "credential",
    "credentials",
    "auth",
    "authorization",
    "bearer",
    "jwt",
    "signature",
    "sig",
    "hmac",
    "session",
    "apikey",
];

/// Credential words that are refused anywhere inside a parameter name's joined word (see
/// [`CREDENTIAL_WORDS`]): `xapikey`, `awsaccesskeyid`, `userpassword`, `xgoogcredential`.
pub const CREDENTIAL_INFIXES: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "credential",
    "signature",
    "apikey",
    "accesskey",
    "privatekey",
    "secretkey",
    "clientkey",
    "signingkey",
    "subscriptionkey",
    "jwt",
];

/// Credential words that are refused at the end of a parameter name's joined word (see
/// [`CREDENTIAL_WORDS`]): `accesstoken`, `idtoken`, `clientsecret`, `phpsessid`,
/// `googleaccessid`. Only at the end, so that `tokenizer` and `secretary` stay ordinary.
pub const CREDENTIAL_SUFFIXES: &[&str] = &[
    "token",
    "tokens",
    "secret",
    "secrets",
    "pwd",
    "sessionid",
    "sessid",
    "accessid",
    "accesskeyid",
];

/// A parameter name decoded as a server reads it: `+` is a space, `%XX` escapes are decoded
/// (bytes that are not UTF-8 become U+FFFD).
fn decode_param_name(name: &str) -> String {
    let spaced = name.replace('+', " ");
    match percent_decode(&spaced) {
        Some(decoded) => decoded,
        None => String::from_utf8_lossy(&percent_decode_bytes(&spaced).0).into_owned(),
    }
}

/// The lowercase words of a decoded parameter name (see [`CREDENTIAL_WORDS`]).
fn name_words(name: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphabetic() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            continue;
        }
        let prev = i.checked_sub(1).and_then(|p| chars.get(p)).copied();
        let next = chars.get(i + 1).copied();
        // A word starts at an uppercase letter after a lowercase one (`accessToken`), and at
        // the last uppercase letter of a run followed by a lowercase one (`APIKey`).
        let boundary = c.is_uppercase()
            && prev.is_some_and(|p| {
                p.is_lowercase() || (p.is_uppercase() && next.is_some_and(char::is_lowercase))
            });
        if boundary && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// Whether `name`, a query or fragment parameter name as written in the URI (escapes and
/// `+` not yet decoded), is credential-like (R26): see [`CREDENTIAL_WORDS`] for the rule.
///
/// ```
/// use forms_rules::is_credential_param;
/// assert!(is_credential_param("access_token"));
/// assert!(is_credential_param("accessToken"));
/// assert!(is_credential_param("token%5B%5D"));
/// assert!(is_credential_param("X-Amz-Signature"));
/// assert!(!is_credential_param("author"));
/// assert!(!is_credential_param("monkey"));
/// ```
pub fn is_credential_param(name: &str) -> bool {
    credential_words_of(name).is_some()
}

/// The words of `name` when it is credential-like, else `None`.
fn credential_words_of(name: &str) -> Option<Vec<String>> {
    let words = name_words(&decode_param_name(name));
    let joined: String = words.concat();
    let credential = words.iter().any(|w| CREDENTIAL_WORDS.contains(&w.as_str()))
        || CREDENTIAL_INFIXES.iter().any(|w| joined.contains(w))
        || CREDENTIAL_SUFFIXES.iter().any(|w| joined.ends_with(w))
        || joined == "key";
    credential.then_some(words)
}

/// The parts of an absolute RFC 3986 URI, borrowed from the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UriParts<'a> {
    /// The scheme, without the colon.
    pub scheme: &'a str,
    /// The authority after `//`, when there is one (it may be empty: `file:///x`).
    pub authority: Option<&'a str>,
    /// The user information before `@` in the authority.
    pub userinfo: Option<&'a str>,
    /// The host (empty when there is no authority or it is empty).
    pub host: &'a str,
    /// The port digits after the host's `:`.
    pub port: Option<&'a str>,
    /// The path (possibly empty).
    pub path: &'a str,
    /// The query after `?`.
    pub query: Option<&'a str>,
    /// The fragment after `#`.
    pub fragment: Option<&'a str>,
}

// Character classes of RFC 3986, as bit flags in one lookup table.
const UNRESERVED: u8 = 1;
const SUB_DELIM: u8 = 2;
const COLON_AT: u8 = 4; // ':' and '@', the rest of `pchar`
const SLASH: u8 = 8;
const QUESTION: u8 = 16;
const COLON: u8 = 32;

// Indexing is in bounds: `c < 256` in the loop, and a `u8` indexes a 256-entry table.
#[allow(clippy::indexing_slicing)]
const CLASSES: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            UNRESERVED
        } else if matches!(
            b,
            b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'='
        ) {
            SUB_DELIM
        } else if b == b':' {
            COLON_AT | COLON
        } else if b == b'@' {
            COLON_AT
        } else if b == b'/' {
            SLASH
        } else if b == b'?' {
            QUESTION
        } else {
            0
        };
        c += 1;
    }
    t
};

#[inline]
#[allow(clippy::indexing_slicing)]
fn class(b: u8) -> u8 {
    CLASSES[b as usize]
}

/// Checks that every byte of `s` is in one of the classes of `mask` or starts a valid `%XX`
/// escape.
#[inline]
fn all_chars(s: &str, mask: u8) -> bool {
    escapes(s, mask).is_some()
}

/// [`all_chars`], and whether `s` has any `%XX` escape: `None` when a byte is refused.
#[inline]
fn escapes(s: &str, mask: u8) -> Option<bool> {
    let b = s.as_bytes();
    let mut any = false;
    for (i, &c) in b.iter().enumerate() {
        if class(c) & mask != 0 {
            continue;
        }
        // The two hex digits of an escape are letters or digits, which every mask admits, so
        // they need no skipping.
        let hex = |at: usize| b.get(at).is_some_and(u8::is_ascii_hexdigit);
        if c == b'%' && hex(i + 1) && hex(i + 2) {
            any = true;
        } else {
            return None;
        }
    }
    Some(any)
}

const PCHAR: u8 = UNRESERVED | SUB_DELIM | COLON_AT;

/// An RFC 3986 host: an IPv6 literal in brackets, or a reg-name (an IPv4 address is one). The
/// IPvFuture literals of RFC 3986 (`[v1.x]`) are refused: WHATWG parsers cannot read them.
fn valid_host(host: &str) -> bool {
    if let Some(inner) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return inner.parse::<Ipv6Addr>().is_ok();
    }
    all_chars(host, UNRESERVED | SUB_DELIM)
}

/// A port: decimal digits (leading zeros allowed) of a number at most 65,535, or empty (RFC
/// 3986 allows an empty port; it means the scheme's default).
fn valid_port(port: &str) -> bool {
    port.bytes().all(|c| c.is_ascii_digit())
        && port.trim_start_matches('0').len() <= 5
        && (port.is_empty() || port.parse::<u32>().is_ok_and(|p| p <= u32::from(u16::MAX)))
}

/// The schemes WHATWG URL parsers ("what hosts use") treat as special, ASCII lowercase.
const SPECIAL_SCHEMES: &[&str] = &["http", "https", "ws", "wss", "ftp", "file"];

/// Whether a path segment is `.` or `..`, also written with `%2e` (which WHATWG parsers read
/// as a dot in a segment of its own).
fn is_dot_segment(segment: &str) -> bool {
    segment.len() <= 6
        && matches!(
            segment.to_ascii_lowercase().as_str(),
            "." | ".." | "%2e" | ".%2e" | "%2e." | "%2e%2e"
        )
}

/// Whether a host of a special scheme is one a WHATWG parser reads as written (up to ASCII
/// case): no `%` escapes (WHATWG decodes them, so `ex%61mple.com` is `example.com`), and when
/// the last label is a number (WHATWG then reads the host as an IPv4 address, so `0x7f.1` is
/// `127.0.0.1`), exactly four decimal labels 0–255 without leading zeros.
fn whatwg_host_agrees(host: &str) -> bool {
    if host.starts_with('[') {
        return true; // An IPv6 literal, already parsed.
    }
    if host.contains('%') {
        return false;
    }
    let labels: Vec<&str> = host.split('.').collect();
    let last = match labels.as_slice() {
        [.., last, ""] if labels.len() > 1 => *last,
        [.., last] => *last,
        [] => "",
    };
    let hex = |l: &str| {
        l.get(..2).is_some_and(|p| p.eq_ignore_ascii_case("0x"))
            && l.bytes().skip(2).all(|c| c.is_ascii_hexdigit())
    };
    let numeric = (!last.is_empty() && last.bytes().all(|c| c.is_ascii_digit())) || hex(last);
    if !numeric {
        return true;
    }
    labels.len() == 4
        && labels.iter().all(|l| {
            !l.is_empty()
                && l.len() <= 3
                && l.bytes().all(|c| c.is_ascii_digit())
                && !(l.len() > 1 && l.starts_with('0'))
                && l.parse::<u16>().is_ok_and(|n| n <= 255)
        })
}

/// Whether a WHATWG URL parser (what hosts use; the `url` crate is one) reads `parts` as
/// written: the same scheme and host (up to ASCII case), port, path and query.
///
/// - A special scheme (`http`, `https`, `ws`, `wss`, `ftp`, `file`, in any case) has an
///   authority (`//`): WHATWG reads `https:user:pw@host/x` and `https:/host` as if they had
///   one. All but `file` name a host. A `file` URI has no port and no user information.
/// - A special host has no `%` escape and is not an IPv4 address in another notation.
/// - An empty host has no port and no user information (WHATWG refuses them).
/// - A hierarchical path (after an authority, or starting with `/`) has no `.` or `..`
///   segment, also written `%2e` (WHATWG removes them).
///
/// Spaces, control characters, backslashes and non-ASCII characters, which WHATWG strips,
/// rewrites or encodes, are already refused by the RFC 3986 grammar. One difference is kept:
/// WHATWG writes `'` in the query of a special URL as `%27`, the same character to a server.
fn whatwg_agrees(parts: &UriParts<'_>) -> bool {
    let special = SPECIAL_SCHEMES
        .iter()
        .any(|s| s.eq_ignore_ascii_case(parts.scheme));
    let file = parts.scheme.eq_ignore_ascii_case("file");
    if special {
        if parts.authority.is_none() || !whatwg_host_agrees(parts.host) {
            return false;
        }
        if file && (parts.port.is_some() || parts.userinfo.is_some()) {
            return false;
        }
        if !file && parts.host.is_empty() {
            return false;
        }
    }
    if parts.authority.is_some()
        && parts.host.is_empty()
        && (parts.port.is_some() || parts.userinfo.is_some())
    {
        return false;
    }
    let hierarchical = parts.authority.is_some() || parts.path.starts_with('/');
    !(hierarchical && parts.path.split('/').any(is_dot_segment))
}

/// Parses `s` as an absolute RFC 3986 URI (`scheme ":" hier-part [ "?" query ] [ "#" fragment ]`)
/// that a WHATWG URL parser reads the same way. Returns `None` when it is not one: relative
/// references, spaces, control and non-ASCII characters, backslashes, broken `%` escapes,
/// ports above 65,535, and anything a WHATWG parser would read differently (an `https:` URI
/// without `//` and a host, a `%` escape in an `https` host, `.` and `..` path segments, …:
/// see the rules below) are all refused.
///
/// WHATWG agreement: a special scheme (`http`, `https`, `ws`, `wss`, `ftp`, `file`, in any
/// case) needs `//`, and all but `file` a nonempty host; a `file` URI has no port or user
/// information; a special host has no `%` escape and, when its last label is a number, is a
/// plain dotted-decimal IPv4 address; an empty host has no port or user information; a path
/// after an authority or starting with `/` has no `.` or `..` segment (nor `%2e`); IPvFuture
/// literals are refused. The scheme and a special host may differ from a WHATWG reading in
/// ASCII case only, and the query of a special URI in `'` (which WHATWG writes as `%27`).
///
/// ```
/// let u = forms_rules::parse_uri("https://example.com:8443/a/b?x=1#top").unwrap();
/// assert_eq!((u.scheme, u.host, u.port, u.path), ("https", "example.com", Some("8443"), "/a/b"));
/// assert!(forms_rules::parse_uri("/relative/path").is_none());
/// assert!(forms_rules::parse_uri("https://example.com/a b").is_none());
/// assert!(forms_rules::parse_uri("https:user:pw@example.com/x").is_none());
/// assert!(forms_rules::parse_uri("https://example.com:65536/").is_none());
/// ```
pub fn parse_uri(s: &str) -> Option<UriParts<'_>> {
    split_uri(s).filter(whatwg_agrees)
}

/// The RFC 3986 grammar of [`parse_uri`], without the WHATWG agreement.
fn split_uri(s: &str) -> Option<UriParts<'_>> {
    let colon = s.find(':')?;
    let scheme = s.get(..colon)?;
    let mut sb = scheme.bytes();
    if !sb.next()?.is_ascii_alphabetic()
        || !sb.all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'))
    {
        return None;
    }
    let rest = s.get(colon + 1..)?;
    let (rest, fragment) = match rest.split_once('#') {
        Some((r, f)) => (r, Some(f)),
        None => (rest, None),
    };
    let (hier, query) = match rest.split_once('?') {
        Some((h, q)) => (h, Some(q)),
        None => (rest, None),
    };
    let qf_ok = |t: &str| all_chars(t, PCHAR | SLASH | QUESTION);
    if !query.is_none_or(qf_ok) || !fragment.is_none_or(qf_ok) {
        return None;
    }
    let (authority, path) = match hier.strip_prefix("//") {
        Some(after) => {
            let end = after.find('/').unwrap_or(after.len());
            (Some(after.get(..end)?), after.get(end..)?)
        }
        None => (None, hier),
    };
    if !all_chars(path, PCHAR | SLASH) {
        return None;
    }
    let (mut userinfo, mut host, mut port) = (None, "", None);
    if let Some(auth) = authority {
        let hostport = match auth.rsplit_once('@') {
            Some((ui, hp)) => {
                if !all_chars(ui, UNRESERVED | SUB_DELIM | COLON) {
                    return None;
                }
                userinfo = Some(ui);
                hp
            }
            None => auth,
        };
        // The port follows the last ':' that is not inside an IP literal.
        let split = match hostport.rfind(']') {
            Some(close) => hostport.get(close..)?.find(':').map(|i| close + i),
            None => hostport.find(':'),
        };
        match split {
            Some(i) => {
                host = hostport.get(..i)?;
                let p = hostport.get(i + 1..)?;
                if !valid_port(p) {
                    return None;
                }
                port = Some(p);
            }
            None => host = hostport,
        }
        if !valid_host(host) {
            return None;
        }
    }
    Some(UriParts {
        scheme,
        authority,
        userinfo,
        host,
        port,
        path,
        query,
        fragment,
    })
}

/// The value of an ASCII hex digit.
fn hex_value(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// Decodes `%XX` escapes of a text that [`parse_uri`] accepted. Returns `None` if the decoded
/// bytes are not UTF-8.
pub(crate) fn percent_decode(s: &str) -> Option<String> {
    if !s.contains('%') {
        return Some(s.to_owned());
    }
    let (bytes, whole) = percent_decode_bytes(s);
    if whole {
        String::from_utf8(bytes).ok()
    } else {
        None
    }
}

/// Decodes the `%XX` escapes of `s` into bytes; a `%` that starts no escape is kept. The flag
/// is false when there was such a `%`.
fn percent_decode_bytes(s: &str) -> (Vec<u8>, bool) {
    let b = s.as_bytes();
    let Some(first) = b.iter().position(|&c| c == b'%') else {
        return (b.to_vec(), true);
    };
    let mut whole = true;
    let mut out = Vec::with_capacity(b.len());
    out.extend_from_slice(b.get(..first).unwrap_or_default());
    let mut i = first;
    while let Some(rest) = b.get(i..).filter(|r| !r.is_empty()) {
        let escape = match rest {
            [b'%', h, l, ..] => hex_value(*h).zip(hex_value(*l)),
            _ => None,
        };
        if let Some((h, l)) = escape {
            out.push(h << 4 | l);
            i += 3;
        } else {
            // Copy the run up to the next escape at once (a lone `%` is kept).
            whole &= rest.first() != Some(&b'%');
            let run = 1 + rest
                .iter()
                .skip(1)
                .position(|&c| c == b'%')
                .unwrap_or(rest.len() - 1);
            out.extend_from_slice(rest.get(..run).unwrap_or_default());
            i += run;
        }
    }
    (out, whole)
}

/// The names of the `name=value` parameters of a query or fragment, as written.
///
/// Parameters are separated by `&` or `;`, and also by `?`, so that parameters after a route
/// in a fragment (`#/callback?access_token=…`) or a nested query are found too.
fn param_names(part: &str) -> impl Iterator<Item = &str> + '_ {
    part.split(['&', ';', '?'])
        .filter(|p| !p.is_empty())
        .map(|p| p.split_once('=').map_or(p, |(n, _)| n))
}

/// R26: refuses user information and credential-like parameters in the query or fragment.
/// `allow_sig` admits the `sig` parameter (the scoped image exception).
pub(crate) fn check_credentials(parts: &UriParts<'_>, allow_sig: bool) -> Result<(), Violation> {
    if parts.userinfo.is_some() {
        return Err(Violation::new(
            Rule::R26,
            "must not carry a username or password",
        ));
    }
    for part in [parts.query, parts.fragment].into_iter().flatten() {
        for name in param_names(part) {
            let Some(words) = credential_words_of(name) else {
                continue;
            };
            // The scoped image exception: a name that is only the word `sig`.
            if allow_sig && words.len() == 1 && words.first().is_some_and(|w| w == "sig") {
                continue;
            }
            let shown = decode_param_name(name);
            return Err(Violation::new(
                Rule::R26,
                format!("must not carry the credential-like parameter `{shown}`"),
            ));
        }
    }
    Ok(())
}

/// R24 and R26: a resource option's identity URI: an absolute URI of at most 8,192 characters,
/// without a username, password or credential-like parameter.
///
/// ```
/// assert!(forms_rules::check_resource_uri("https://example.com/templates/review").is_ok());
/// assert!(forms_rules::check_resource_uri("templates/review").is_err());
/// assert!(forms_rules::check_resource_uri("https://example.com/x?token=abc").is_err());
/// ```
pub fn check_resource_uri(uri: &str) -> Result<(), Violation> {
    check_max_chars(uri, limits::URI_MAX, Rule::R24)?;
    let parts = parse_uri(uri).ok_or_else(|| {
        Violation::new(
            Rule::R24,
            "must be an absolute URI (RFC 3986: a scheme, no spaces, valid % escapes)",
        )
    })?;
    check_credentials(&parts, false)
}

/// A user-added file (R27), with its path decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileUri {
    /// The absolute local path, percent-decoded (`/home/me/data 1.csv`).
    pub path: String,
}

/// R27: a user-added file answer: `file:` scheme, empty or `localhost` authority, an absolute
/// path, and no username, password, port, query or fragment; and the decoded path keeps its
/// shape: it does not start with `//` (`file:////server/share/x` is a network share), has no
/// encoded `/` or `\` (`%2F`, `%5C`), no `.` or `..` segment (also written `%2e`), and no
/// control character (C0, DEL, C1) once decoded.
///
/// A Windows drive path is a local absolute path like any other: `file:///C:/x.csv` gives the
/// path `/C:/x.csv`, as WHATWG parsers read it.
///
/// ```
/// let f = forms_rules::check_file_uri("file:///home/me/q3%20sales.csv").unwrap();
/// assert_eq!(f.path, "/home/me/q3 sales.csv");
/// assert!(forms_rules::check_file_uri("file://server/share/x.csv").is_err());
/// assert!(forms_rules::check_file_uri("file:////server/share/x.csv").is_err());
/// assert!(forms_rules::check_file_uri("file:///home/me/../x.csv").is_err());
/// ```
pub fn check_file_uri(uri: &str) -> Result<FileUri, Violation> {
    // The usual form, `file:///` and an absolute path of plain path characters and `%XX`
    // escapes, is what `split_uri` splits into an empty authority and that path, with no
    // query or fragment: take the path directly.
    if let Some(path) = uri.strip_prefix("file://") {
        if path.starts_with('/') {
            if let Some(checked) = local_path(path) {
                return checked;
            }
        }
    }
    check_file_uri_parsed(uri)
}

/// [`check_file_uri`] through the general URI parser.
fn check_file_uri_parsed(uri: &str) -> Result<FileUri, Violation> {
    let bad = |why: &str| Violation::new(Rule::R27, why.to_owned());
    let parts = split_uri(uri).ok_or_else(|| bad("must be an absolute `file://` URI"))?;
    if !parts.scheme.eq_ignore_ascii_case("file") {
        return Err(bad("must use the `file:` scheme"));
    }
    match parts.authority {
        None => {
            return Err(bad(
                "must be a `file://` URI with an empty or `localhost` authority",
            ))
        }
        Some(a) if !(a.is_empty() || a.eq_ignore_ascii_case("localhost")) => {
            return Err(bad(
                "must have an empty or `localhost` authority, with no username, password or port",
            ))
        }
        Some(_) => {}
    }
    if parts.query.is_some() || parts.fragment.is_some() {
        return Err(bad("must not have a query or fragment"));
    }
    if !parts.path.starts_with('/') {
        return Err(bad("must name an absolute path"));
    }
    // `split_uri` admitted only path characters and valid escapes.
    local_path(parts.path).unwrap_or_else(|| Err(bad("must be an absolute `file://` URI")))
}

// What a byte of a `file:` URI's path is to [`local_path`], as bit flags in one lookup table:
// 0 for a path character other than `/` and `.`. `PATH_DOTLIKE` marks what may start a `.`
// or `..` segment after a `/` (`.` itself, or `%` of `%2e`).
const PATH_SLASH: u8 = 1;
const PATH_DOTLIKE: u8 = 2;
const PATH_PERCENT: u8 = 4;
const PATH_OTHER: u8 = 8;

// Indexing is in bounds: `c < 256` in the loop, and a `u8` indexes a 256-entry table.
#[allow(clippy::indexing_slicing)]
const PATH_BYTES: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = if c == b'.' as usize {
            PATH_DOTLIKE
        } else if CLASSES[c] & PCHAR != 0 {
            0
        } else if c == b'/' as usize {
            PATH_SLASH
        } else if c == b'%' as usize {
            PATH_DOTLIKE | PATH_PERCENT
        } else {
            PATH_OTHER
        };
        c += 1;
    }
    t
};

/// What `c` is in a path ([`PATH_BYTES`]).
#[inline]
#[allow(clippy::indexing_slicing)]
fn path_byte(c: u8) -> u8 {
    PATH_BYTES[c as usize]
}

/// Whether `segment`, as written between two `/` of a path, decodes to `.` or `..` (each dot
/// written as itself or as `%2e`/`%2E`).
fn dot_segment(segment: &[u8]) -> bool {
    // The longest such segment is `%2e%2e`.
    if segment.is_empty() || segment.len() > 6 {
        return false;
    }
    let (mut rest, mut dots) = (segment, 0);
    while !rest.is_empty() {
        rest = match rest {
            [b'.', after @ ..] => after,
            [b'%', b'2', b'e' | b'E', after @ ..] => after,
            _ => return false,
        };
        dots += 1;
    }
    dots <= 2
}

/// What the escapes of a path decode to, besides its bytes.
struct Decoded {
    bytes: Vec<u8>,
    /// An escape decodes to `/` or `\`.
    separator: bool,
    /// An escape decodes to a byte of 0x80 or more.
    high: bool,
    /// The first escape that decodes to an ASCII control character (C0 or DEL).
    control: Option<u8>,
}

/// Decodes the `%XX` escapes of `raw`, whose every `%` must start one (`None` otherwise).
/// Runs between escapes are copied at once.
fn decode_escapes(raw: &[u8]) -> Option<Decoded> {
    let mut decoded = Decoded {
        bytes: Vec::with_capacity(raw.len()),
        separator: false,
        high: false,
        control: None,
    };
    let mut rest = raw;
    while let Some(at) = rest.iter().position(|&c| c == b'%') {
        let (run, escape) = rest.split_at(at);
        decoded.bytes.extend_from_slice(run);
        let [_, h, l, after @ ..] = escape else {
            return None;
        };
        let d = hex_value(*h)? << 4 | hex_value(*l)?;
        decoded.separator |= d == b'/' || d == b'\\';
        decoded.high |= d >= 0x80;
        if decoded.control.is_none() && (d < 0x20 || d == 0x7f) {
            decoded.control = Some(d);
        }
        decoded.bytes.push(d);
        rest = after;
    }
    decoded.bytes.extend_from_slice(rest);
    Some(decoded)
}

/// R27: the path of a user-added file URI (absolute), decoded, when it keeps its shape once
/// decoded. `None` when `raw` has a byte that is neither a path character nor the start of a
/// valid `%XX` escape (the caller then reads the URI with the general parser).
///
/// One pass over the bytes checks the characters (one table lookup per byte, no branch) and
/// notes whether a `/` is followed by `.` or `%`; only then are the segments looked at for
/// `.` and `..` (also escaped). A path with escapes is then decoded in a second pass, which
/// finds encoded separators and escaped control characters; one without is its own decoded
/// path. The problems are reported in a fixed
/// order (encoded separator, UTF-8, `//`, dot segment, control character), whatever their
/// order in the path. The one allocation is the decoded path the result owns.
fn local_path(raw: &str) -> Option<Result<FileUri, Violation>> {
    let bad = |why: &str| Violation::new(Rule::R27, why.to_owned());
    let b = raw.as_bytes();
    // With no branch per byte: every kind of byte seen, and whether a `/` is followed by
    // what may start a dot segment (`/.`, `/%`).
    let (mut seen, mut slash_dotlike, mut previous) = (0u8, 0u8, 0u8);
    for &c in b {
        let kind = path_byte(c);
        seen |= kind;
        slash_dotlike |= (previous << 1) & kind;
        previous = kind;
    }
    if seen & PATH_OTHER != 0 {
        return None;
    }
    let dot = slash_dotlike & PATH_DOTLIKE != 0 && b.split(|&c| c == b'/').any(dot_segment);
    let (path, control) = if seen & PATH_PERCENT != 0 {
        let decoded = decode_escapes(b)?;
        if decoded.separator {
            return Some(Err(bad(
                "must not encode a path separator (`%2F` or `%5C`); the decoded path must \
                 keep its shape",
            )));
        }
        let Ok(path) = String::from_utf8(decoded.bytes) else {
            return Some(Err(bad("must decode to a UTF-8 path")));
        };
        let control = if decoded.high {
            path.chars().find(|c| c.is_control())
        } else {
            decoded.control.map(char::from)
        };
        (path, control)
    } else {
        // Every byte is a printable ASCII path character.
        (raw.to_owned(), None)
    };
    if path.starts_with("//") {
        return Some(Err(bad(
            "must not start with `//` (a network share); it must name a local absolute path",
        )));
    }
    if dot {
        return Some(Err(bad("must not have `.` or `..` path segments")));
    }
    if let Some(c) = control {
        return Some(Err(bad(&format!(
            "must not contain a control character (U+{:04X}) once decoded",
            u32::from(c)
        ))));
    }
    Some(Ok(FileUri { path }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r27_file_uri_fast_path_agrees_with_the_parser() {
        for uri in [
            "file:///Users/me/Documents/pricing-changes.pdf",
            "file:///Users/me/Downloads/q2%20churn%20by%20segment.csv",
            "file:///a/b%2Fc",
            "file:////server/share/a.csv",
            "file://localhost//server/a",
            "file:///a/%2e%2e/b",
            "file:///a/./b",
            "file:///a%C2%85",
            "FILE:////server/x",
            "FILE:///a/../b",
            "file:///%C3%A9t%C3%A9.txt",
            "file:///",
            "file:///%ff",
            "file:///a%00b",
            "file:///a%2",
            "file:///a%zz",
            "file:///a b",
            "file:///x?",
            "file:///x#y",
            "file:///caf\u{e9}",
            "file://localhost/x",
            "file://h/x",
            "FILE:///x",
            "file:///a/%2e",
            "file:///a/...",
            "file:///a/.x/..b",
            "file:///./",
            "file:///..",
            "file:///a/%2E%2e/",
            "file:///a/%5c",
            "file:///a/%5C%ff",
            "file:///a/%ff%2f",
            "file:///%01%C2%85",
            "file:///a%C2%85%01",
            "file:///a%7f",
            "file:///%2F%2Fserver",
            "file:///%2e/%01",
            "file:////%01",
            "file:///a/../%ff",
        ] {
            assert_eq!(check_file_uri(uri), check_file_uri_parsed(uri), "{uri}");
        }
        assert_eq!(
            check_file_uri("file:///%C3%A9t%C3%A9%20x").unwrap().path,
            "/\u{e9}t\u{e9} x"
        );
        assert!(check_file_uri("file:///a%00b").is_err());
    }

    #[test]
    fn percent_decode_runs_and_escapes() {
        assert_eq!(percent_decode("abc").unwrap(), "abc");
        assert_eq!(percent_decode("%41b%2fc%2F").unwrap(), "Ab/c/");
        assert_eq!(percent_decode("x%20").unwrap(), "x ");
        assert!(percent_decode("%ff").is_none());
        assert!(percent_decode("%4").is_none());
    }
}
