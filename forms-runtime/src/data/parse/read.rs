//! Stage 2 without serde: the Data-argument tree read by the runtime's own reader
//! ([`crate::json`]), the same tree [`super::tree`]'s serde visitors build from serde_json.
//!
//! It keeps what the serde path keeps ([`KEPT`] elements or properties, nothing below
//! [`KEPT_DEPTH`]), reads what the serde path reads past that the way serde_json reads it
//! (an ignored value without its nesting limit, `\u` or range checks; a value read whole
//! below [`KEPT_DEPTH`] with them) and refuses a repeated property name at the same byte
//! with the same words. It counts the elements of a cut array in one tight loop, which is
//! what the serde path cannot do (serde_json hands a deserializer one element at a time).
//!
//! On anything else it gives up and [`super::tree::parse_tree`] reads the text with
//! serde_json, whose account of text that is not JSON (line, column, words) the messages
//! keep.

use super::tree::{is_contract_name, At, Json, Num, KEPT, KEPT_DEPTH, LINEAR_KEYS};
use crate::error::FormError;
use crate::json::{GiveUp, Number, Reader, LEVELS_MAX};
use std::borrow::Cow;
use std::collections::HashSet;

/// Why the reader stopped before the end.
pub(super) enum Stop {
    /// Read it with serde_json.
    GiveUp,
    /// A repeated property name: the refusal, as the serde path words it.
    Duplicate(FormError),
}

impl From<GiveUp> for Stop {
    fn from(_: GiveUp) -> Stop {
        Stop::GiveUp
    }
}

/// What one read found besides the tree.
#[derive(Default)]
struct Found {
    skipped: bool,
    floats: bool,
}

/// Reads `text` into a tree with the flags of [`super::tree::parse_tree`].
pub(super) fn tree(text: &str) -> Result<(Json<'_>, bool, bool), Stop> {
    let mut r = Reader::new(text);
    let mut found = Found::default();
    let tree = value(&mut r, &mut found, At::Root, 0)?;
    r.end()?;
    Ok((tree, found.skipped, found.floats))
}

/// One value at `at`, `depth` arrays and objects deep (as `ValueSeed`).
fn value<'a>(
    r: &mut Reader<'a>,
    found: &mut Found,
    at: At<'_>,
    depth: usize,
) -> Result<Json<'a>, Stop> {
    Ok(match r.peek().ok_or(GiveUp)? {
        b'"' => {
            r.bump();
            Json::Str(r.string()?)
        }
        b'-' | b'0'..=b'9' => Json::Num(match r.number()? {
            Number::U(u) => Num::U(u),
            Number::I(i) => Num::I(i),
            Number::F(f) => {
                found.floats = true;
                Num::F(f)
            }
        }),
        b'n' => {
            r.literal(b"null")?;
            Json::Null
        }
        b't' => {
            r.literal(b"true")?;
            Json::Bool(true)
        }
        b'f' => {
            r.literal(b"false")?;
            Json::Bool(false)
        }
        b'[' => {
            r.bump();
            if depth + 1 > LEVELS_MAX {
                return Err(Stop::GiveUp);
            }
            array(r, found, at, depth)?
        }
        b'{' => {
            r.bump();
            if depth + 1 > LEVELS_MAX {
                return Err(Stop::GiveUp);
            }
            object(r, found, at, depth)?
        }
        _ => return Err(Stop::GiveUp),
    })
}

/// An array whose `[` was taken.
fn array<'a>(
    r: &mut Reader<'a>,
    found: &mut Found,
    at: At<'_>,
    depth: usize,
) -> Result<Json<'a>, Stop> {
    let mut items = Vec::new();
    if r.peek() == Some(b']') {
        r.bump();
        return Ok(Json::Arr(items, 0));
    }
    let keep = if depth >= KEPT_DEPTH { 0 } else { KEPT };
    let strict = depth >= KEPT_DEPTH;
    let mut skipped = 0;
    loop {
        // At an element.
        if items.len() < keep {
            items.push(value(r, found, At::Index(&at, items.len()), depth + 1)?);
        } else {
            r.skip(strict, depth + 1)?;
            skipped += 1;
        }
        if !r.more(b']')? {
            break;
        }
        if items.len() >= keep && !strict {
            skipped += count_rest(r)?;
            break;
        }
    }
    if skipped > 0 {
        found.skipped = true;
    }
    Ok(Json::Arr(items, skipped))
}

/// Past the elements an array keeps, after a `,`: reads and counts the rest up to and with
/// its `]`, as values serde_json ignores. Runs of small integers (the cheapest elements to
/// write) are read without leaving the loop.
fn count_rest(r: &mut Reader<'_>) -> Result<usize, GiveUp> {
    let mut count = 0;
    loop {
        r.skip(false, 0)?;
        count += 1;
        // Spelled out rather than `Reader::more`: this is the loop a flood spends its time
        // in, and it is tighter this way (the 1 MiB flood: 2.46 ms against 2.77 ms).
        match r.peek() {
            Some(b',') => {
                r.bump();
                r.after_comma()?;
            }
            Some(b']') => {
                r.bump();
                return Ok(count);
            }
            _ => return Err(GiveUp),
        }
    }
}

/// An object whose `{` was taken.
fn object<'a>(
    r: &mut Reader<'a>,
    found: &mut Found,
    at: At<'_>,
    depth: usize,
) -> Result<Json<'a>, Stop> {
    let mut entries: Vec<(Cow<'a, str>, Json<'a>)> = Vec::new();
    let mut skipped = 0;
    let mut seen: Option<HashSet<Cow<'a, str>>> = None;
    if r.peek() == Some(b'}') {
        r.bump();
        return Ok(Json::Obj(entries, 0));
    }
    loop {
        r.expect(b'"')?;
        let key = r.string()?;
        if depth >= KEPT_DEPTH {
            r.expect(b':')?;
            r.skip(true, depth + 1)?;
            skipped += 1;
        } else if entries.len() >= KEPT && !is_contract_name(&key) {
            r.expect(b':')?;
            r.skip(false, depth + 1)?;
            skipped += 1;
        } else {
            let repeated = match &mut seen {
                Some(set) => !set.insert(key.clone()),
                None => entries.iter().any(|(k, _)| *k == key),
            };
            if repeated {
                return Err(Stop::Duplicate(duplicate(r, &at, &key)));
            }
            if seen.is_none() && entries.len() >= LINEAR_KEYS {
                seen = Some(
                    entries
                        .iter()
                        .map(|(k, _)| k.clone())
                        .chain(std::iter::once(key.clone()))
                        .collect(),
                );
            }
            r.expect(b':')?;
            let item = value(r, found, At::Key(&at, &key), depth + 1)?;
            entries.push((key, item));
        }
        if !r.more(b'}')? {
            break;
        }
    }
    if skipped > 0 {
        found.skipped = true;
    }
    Ok(Json::Obj(entries, skipped))
}

/// The refusal of the repeated property `key` of the object at `at`, read up to its closing
/// `"`. serde_json looks for the object's end before it reports: it places the error at the
/// first byte after the key that is not whitespace, or after it when that byte is a `}`.
fn duplicate(r: &mut Reader<'_>, at: &At<'_>, key: &str) -> FormError {
    if r.peek() == Some(b'}') {
        r.bump();
    }
    let (line, column) = r.position(r.offset());
    super::tree::duplicate_key(At::Key(at, key).to_path(), line, column)
}
