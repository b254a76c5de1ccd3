//! R25 and R26: images (choice thumbnails, resource icons and thumbnails).

use crate::uri::{check_credentials, parse_uri};
use crate::{check_max_chars, limits, Rule, Violation};

/// The image types a data URI may carry (R25).
pub const DATA_URI_IMAGE_TYPES: &[&str] = &["png", "jpeg", "jpg", "gif", "webp", "avif"];

/// Whether `host` may carry the `sig` parameter on an image: it matches
/// `^sdmntpr[a-z0-9]*\.oaiusercontent\.com$`, case-insensitively.
pub fn is_signed_image_host(host: &str) -> bool {
    let lower = host.to_ascii_lowercase();
    lower
        .strip_prefix("sdmntpr")
        .and_then(|r| r.strip_suffix(".oaiusercontent.com"))
        .is_some_and(|mid| {
            mid.bytes()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
}

/// R25 and R26: an image `src`: at most 262,144 characters, an HTTPS URL (no username,
/// password or credential-like parameter, but see [`is_signed_image_host`]) or a base64 data
/// URI of PNG, JPEG, GIF, WebP or AVIF.
///
/// ```
/// use forms_rules::check_image_src;
/// assert!(check_image_src("https://example.com/logo.png").is_ok());
/// assert!(check_image_src("data:image/png;base64,iVBORw0KGgo=").is_ok());
/// assert!(check_image_src("http://example.com/logo.png").is_err());
/// assert!(check_image_src("data:image/svg+xml;base64,PHN2Zz4=").is_err());
/// assert!(check_image_src("https://sdmntprwestus.oaiusercontent.com/f?sig=abc").is_ok());
/// ```
pub fn check_image_src(src: &str) -> Result<(), Violation> {
    check_max_chars(src, limits::IMAGE_SRC_MAX, Rule::R25)?;
    if src.len() >= 5
        && src
            .get(..5)
            .is_some_and(|p| p.eq_ignore_ascii_case("data:"))
    {
        return check_data_uri(src);
    }
    let parts = parse_uri(src).ok_or_else(|| {
        Violation::new(
            Rule::R25,
            "must be an HTTPS URL or a base64 data URI of a PNG, JPEG, GIF, WebP or AVIF image",
        )
    })?;
    if !parts.scheme.eq_ignore_ascii_case("https") {
        return Err(Violation::new(
            Rule::R25,
            format!(
                "must be an HTTPS URL or an image data URI; `{}:` images are not accepted",
                parts.scheme.to_ascii_lowercase()
            ),
        ));
    }
    if parts.host.is_empty() {
        return Err(Violation::new(Rule::R25, "must name a host"));
    }
    check_credentials(&parts, is_signed_image_host(parts.host))
}

/// An RFC 2045 `token`: printable ASCII but for space and `()<>@,;:\"/[]?=`.
fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes().all(|c| {
            c.is_ascii_graphic()
                && !matches!(
                    c,
                    b'(' | b')'
                        | b'<'
                        | b'>'
                        | b'@'
                        | b','
                        | b';'
                        | b':'
                        | b'\\'
                        | b'"'
                        | b'/'
                        | b'['
                        | b']'
                        | b'?'
                        | b'='
                )
        })
}

/// A base64 image data URI (RFC 2397): `data:image/<type>[;<name>=<value>]…;base64,<data>`.
/// The scheme, the media type and `base64` are case-insensitive; parameters (`name=a.png`)
/// may come before `;base64`.
fn check_data_uri(src: &str) -> Result<(), Violation> {
    let bad = |why: String| Violation::new(Rule::R25, why);
    let shape = || bad("a data URI must be `data:image/<type>;base64,<data>`".into());
    // The caller matched `data:` in any case.
    let (header, data) = src
        .get(5..)
        .and_then(|rest| rest.split_once(','))
        .ok_or_else(shape)?;
    let mut params = header.split(';');
    let media = params.next().unwrap_or_default();
    let (ty, subtype) = media.split_once('/').ok_or_else(shape)?;
    if !ty.eq_ignore_ascii_case("image") {
        return Err(shape());
    }
    if !DATA_URI_IMAGE_TYPES
        .iter()
        .any(|t| t.eq_ignore_ascii_case(subtype))
    {
        return Err(bad(format!(
            "must not be an `image/{subtype}` data URI; only png, jpeg, jpg, gif, webp and avif \
             are accepted"
        )));
    }
    let params: Vec<&str> = params.collect();
    let (last, middle) = params.split_last().ok_or_else(|| {
        bad("a data URI must be base64: `data:image/<type>;base64,<data>`".into())
    })?;
    if !last.eq_ignore_ascii_case("base64") {
        return Err(bad(
            "a data URI must be base64: `data:image/<type>;base64,<data>`".into(),
        ));
    }
    for p in middle {
        if !p
            .split_once('=')
            .is_some_and(|(name, value)| is_token(name) && is_token(value))
        {
            return Err(bad(
                "a data URI parameter before `;base64` must be `<name>=<value>` (RFC 2045 tokens)"
                    .into(),
            ));
        }
    }
    let body = data.trim_end_matches('=');
    let padding = data.len() - body.len();
    // Base64 encodes 3 bytes as 4 characters: a last group of one character is never valid,
    // and padded data comes in whole groups of four.
    if body.is_empty()
        || padding > 2
        || body.len() % 4 == 1
        || (padding > 0 && data.len() % 4 != 0)
        || !is_base64(body.as_bytes())
    {
        return Err(bad(
            "must carry nonempty base64 data (A-Z, a-z, 0-9, +, /; `=` padding only to a \
             multiple of four characters)"
                .into(),
        ));
    }
    Ok(())
}

/// Whether every byte is in the base64 alphabet (`A-Z a-z 0-9 + /`). Counts the other bytes
/// with byte-wide counters over chunks, which the compiler turns into vector instructions
/// (image data URIs run to 262,144 characters).
fn is_base64(bytes: &[u8]) -> bool {
    bytes.chunks(255).all(|chunk| {
        let mut bad: u8 = 0;
        for &c in chunk {
            let ok = c.wrapping_sub(b'A') < 26
                || c.wrapping_sub(b'a') < 26
                || c.wrapping_sub(b'0') < 10
                || c == b'+'
                || c == b'/';
            bad += u8::from(!ok);
        }
        bad == 0
    })
}

/// R25: an image's `mimeType` is at most 100 characters.
pub fn check_image_mime_type(mime_type: &str) -> Result<(), Violation> {
    check_max_chars(mime_type, limits::MIME_TYPE_MAX, Rule::R25)
}
