//! Stage 2: the JSON tree, read by serde_json's deserializer into a private tree that keeps
//! every object's key order and refuses duplicate keys (R3).

use super::DEPTH_MAX;
use crate::error::{Finding, FormError, JsonPath};
use forms_rules::{keys, Rule};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::fmt;

/// Objects with more keys than this check duplicates with a hash set.
pub(super) const LINEAR_KEYS: usize = 16;

/// A parsed JSON value that keeps object key order. Strings and keys borrow from the text
/// (or the `serde_json::Value`) they were read from unless they had escapes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json<'a> {
    Null,
    Bool(bool),
    Num(Num),
    Str(Cow<'a, str>),
    /// The elements kept, and how many more were read and not kept.
    Arr(Vec<Json<'a>>, usize),
    /// The properties kept, and how many more were read and not kept.
    Obj(Vec<(Cow<'a, str>, Json<'a>)>, usize),
}

/// A JSON number as serde_json reports it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Num {
    U(u64),
    I(i64),
    F(f64),
}

impl Json<'_> {
    /// The type as an error message names it (`a string`, `null`).
    pub(crate) fn type_name(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Num(_) => "a number",
            Json::Str(_) => "a string",
            Json::Arr(..) => "an array",
            Json::Obj(..) => "an object",
        }
    }
}

/// Where a value sits, as a chain of borrowed steps (turned into a path only for an error).
#[derive(Clone, Copy)]
pub(super) enum At<'a> {
    Root,
    Key(&'a At<'a>, &'a str),
    Index(&'a At<'a>, usize),
}

impl At<'_> {
    pub(super) fn to_path(self) -> JsonPath {
        match self {
            At::Root => JsonPath::arguments(),
            At::Key(p, k) => p.to_path().key(k),
            At::Index(p, i) => p.to_path().index(i),
        }
    }
}

/// The most elements of an array, or properties of an object, the tree keeps. No array of a
/// valid form holds more than 24 elements and no object more than 9 properties; past this
/// the text is still read to its end (its syntax checked, elements counted, the contract's
/// property names kept) but not kept, so a hostile input costs little more than reading it.
/// What is read past this is refused with the findings of what was kept: unknown properties
/// there are not checked for repeats, nor is nesting deeper than 127 levels there reported
/// as such.
pub(crate) const KEPT: usize = 128;

/// Arrays and objects at this depth or deeper are read and counted, not kept: no array or
/// object of a valid form is nested this deep (an icon object is at depth 6).
pub(crate) const KEPT_DEPTH: usize = 8;

/// Shared state of one parse: the path of a duplicate key, when one is found, and whether
/// any part of the text was read without being kept.
#[derive(Default)]
struct Ctx {
    duplicate: RefCell<Option<JsonPath>>,
    skipped: Cell<bool>,
    floats: Cell<bool>,
}

/// Deserializes one value at `at`, `depth` arrays and objects deep.
struct ValueSeed<'a> {
    ctx: &'a Ctx,
    at: At<'a>,
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Json<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Json<'de>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Json<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Json<'de>, E> {
        Ok(Json::Bool(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Json<'de>, E> {
        Ok(Json::Num(Num::U(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Json<'de>, E> {
        Ok(Json::Num(Num::I(v)))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Json<'de>, E> {
        self.ctx.floats.set(true);
        Ok(Json::Num(Num::F(v)))
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Json<'de>, E> {
        Ok(Json::Str(Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Json<'de>, E> {
        Ok(Json::Str(Cow::Owned(v.to_owned())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Json<'de>, E> {
        Ok(Json::Str(Cow::Owned(v)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json<'de>, A::Error> {
        let mut items = Vec::new();
        let keep = if self.depth >= KEPT_DEPTH { 0 } else { KEPT };
        while items.len() < keep {
            let seed = ValueSeed {
                ctx: self.ctx,
                at: At::Index(&self.at, items.len()),
                depth: self.depth + 1,
            };
            match seq.next_element_seed(seed)? {
                Some(item) => items.push(item),
                None => return Ok(Json::Arr(items, 0)),
            }
        }
        let mut skipped = 0;
        if self.depth >= KEPT_DEPTH {
            // Too deep to keep, yet still within the nesting limit that tells text from JSON.
            while seq.next_element_seed(Skip)?.is_some() {
                skipped += 1;
            }
        } else {
            while seq.next_element::<IgnoredAny>()?.is_some() {
                skipped += 1;
            }
        }
        if skipped > 0 {
            self.ctx.skipped.set(true);
        }
        Ok(Json::Arr(items, skipped))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json<'de>, A::Error> {
        let mut entries: Vec<(Cow<'de, str>, Json<'de>)> = Vec::new();
        let mut skipped = 0;
        let mut seen: Option<HashSet<Cow<'de, str>>> = None;
        while let Some(key) = map.next_key_seed(KeySeed)? {
            // Past `KEPT` properties, only those the contract names are kept (an object cannot
            // hold more than about twenty of them without repeating one).
            if self.depth >= KEPT_DEPTH {
                map.next_value_seed(Skip)?;
                skipped += 1;
                continue;
            }
            if entries.len() >= KEPT && !is_contract_name(&key) {
                map.next_value::<IgnoredAny>()?;
                skipped += 1;
                continue;
            }
            let repeated = match &mut seen {
                Some(set) => !set.insert(key.clone()),
                None => entries.iter().any(|(k, _)| *k == key),
            };
            if repeated {
                *self.ctx.duplicate.borrow_mut() = Some(At::Key(&self.at, &key).to_path());
                return Err(de::Error::custom("duplicate key"));
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
            let value = map.next_value_seed(ValueSeed {
                ctx: self.ctx,
                at: At::Key(&self.at, &key),
                depth: self.depth + 1,
            })?;
            entries.push((key, value));
        }
        if skipped > 0 {
            self.ctx.skipped.set(true);
        }
        Ok(Json::Obj(entries, skipped))
    }
}

/// Whether `key` is a property name of the contract (of any object), or one that would
/// preselect an answer (R21): the properties worth keeping in an object too large to keep
/// whole.
pub(super) fn is_contract_name(key: &str) -> bool {
    [
        keys::FORM,
        keys::QUESTION_ANY,
        keys::CHOICE_OPTION,
        keys::RESOURCE_OPTION,
        keys::IMAGE,
    ]
    .iter()
    .any(|names| names.contains(&key))
        || forms_rules::check_preselection_key(key).is_some()
}

/// Reads one value to its end without keeping it: its syntax is checked as serde_json checks
/// any value (nesting depth included), nothing is allocated.
struct Skip;

impl<'de> DeserializeSeed<'de> for Skip {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Skip {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_borrowed_str<E: de::Error>(self, _: &'de str) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(Skip)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_key_seed(Skip)?.is_some() {
            map.next_value_seed(Skip)?;
        }
        Ok(())
    }
}

/// Deserializes a property name, borrowed from the text when it has no escapes.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a property name")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}

/// Parses `text` into a tree, or explains why it is not JSON. The first flag tells whether
/// parts of the text were read without being kept (see [`KEPT`]); the second whether the tree
/// keeps a number that is not an integer (one written `1e21` or `1.5` in the text: the only
/// values whose `JSON.stringify` form can be longer than their text).
///
/// The runtime's own reader ([`super::read`]) reads it; where that reader gives up (text
/// that is not JSON, a lone surrogate escape, nesting at serde_json's limit), serde_json
/// reads it ([`parse_tree_serde`]), so every verdict and message is the serde path's.
pub(crate) fn parse_tree(text: &str) -> Result<(Json<'_>, bool, bool), FormError> {
    match super::read::tree(text) {
        Ok(read) => Ok(read),
        Err(super::read::Stop::Duplicate(e)) => Err(e),
        Err(super::read::Stop::GiveUp) => parse_tree_serde(text),
    }
}

/// [`parse_tree`] by serde_json's deserializer and this module's visitors alone: the
/// reference the runtime's own reader is checked against.
pub(crate) fn parse_tree_serde(text: &str) -> Result<(Json<'_>, bool, bool), FormError> {
    let ctx = Ctx::default();
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed = ValueSeed {
        ctx: &ctx,
        at: At::Root,
        depth: 0,
    }
    .deserialize(&mut de)
    .and_then(|tree| {
        de.end()
            .map(|()| (tree, ctx.skipped.get(), ctx.floats.get()))
    });
    parsed.map_err(|e| {
        if let Some(path) = ctx.duplicate.take() {
            return duplicate_key(path, e.line(), e.column());
        }
        FormError::invalid_arguments(Finding::new(
            JsonPath::arguments(),
            Some(Rule::R3),
            crate::syntax::not_json(text, &e),
        ))
    })
}

/// The refusal of a property name repeated at `path`, found at `line` and `column`.
pub(super) fn duplicate_key(path: JsonPath, line: usize, column: usize) -> FormError {
    FormError::invalid_arguments(Finding::new(
        path,
        Some(Rule::R3),
        format!(
            "repeats a property name (line {line}, column {column}); each property may appear \
             only once"
        ),
    ))
}

/// Converts a `serde_json::Value`, refusing nesting deeper than [`DEPTH_MAX`]. As for text,
/// at most [`KEPT`] elements or properties of each array or object are kept, none below
/// [`KEPT_DEPTH`]; `skipped` is set when any were left out.
pub(crate) fn tree_of_value<'v>(
    value: &'v serde_json::Value,
    depth: usize,
    skipped: &mut bool,
) -> Option<Json<'v>> {
    use serde_json::Value;
    let keep = if depth >= KEPT_DEPTH { 0 } else { KEPT };
    Some(match value {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Number(n) => Json::Num(if let Some(u) = n.as_u64() {
            Num::U(u)
        } else if let Some(i) = n.as_i64() {
            Num::I(i)
        } else {
            Num::F(n.as_f64()?)
        }),
        Value::String(s) => Json::Str(Cow::Borrowed(s)),
        Value::Array(items) => {
            if depth >= DEPTH_MAX {
                return None;
            }
            let rest = items.get(keep..).unwrap_or_default();
            if !rest.is_empty() {
                *skipped = true;
                if rest.iter().any(|v| too_deep(v, depth + 1)) {
                    return None;
                }
            }
            Json::Arr(
                items
                    .iter()
                    .take(keep)
                    .map(|v| tree_of_value(v, depth + 1, skipped))
                    .collect::<Option<_>>()?,
                rest.len(),
            )
        }
        Value::Object(map) => return tree_of_map(map, depth, skipped),
    })
}

/// [`tree_of_value`] of an object's members.
pub(crate) fn tree_of_map<'v>(
    map: &'v serde_json::Map<String, serde_json::Value>,
    depth: usize,
    skipped: &mut bool,
) -> Option<Json<'v>> {
    if depth >= DEPTH_MAX {
        return None;
    }
    let keep = if depth >= KEPT_DEPTH { 0 } else { KEPT };
    let rest = map.len().saturating_sub(keep);
    if rest > 0 {
        *skipped = true;
        if map.values().skip(keep).any(|v| too_deep(v, depth + 1)) {
            return None;
        }
    }
    Some(Json::Obj(
        map.iter()
            .take(keep)
            .map(|(k, v)| {
                Some((
                    Cow::Borrowed(k.as_str()),
                    tree_of_value(v, depth + 1, skipped)?,
                ))
            })
            .collect::<Option<_>>()?,
        rest,
    ))
}

/// Whether `value`, `depth` arrays and objects deep, nests deeper than [`DEPTH_MAX`].
fn too_deep(value: &serde_json::Value, depth: usize) -> bool {
    use serde_json::Value;
    match value {
        Value::Array(items) => depth >= DEPTH_MAX || items.iter().any(|v| too_deep(v, depth + 1)),
        Value::Object(map) => depth >= DEPTH_MAX || map.values().any(|v| too_deep(v, depth + 1)),
        _ => false,
    }
}
