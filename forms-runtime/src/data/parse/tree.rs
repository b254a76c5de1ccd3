//! Stage 2: the JSON tree, read by serde_json's deserializer into a private tree that keeps
//! every object's key order and refuses duplicate keys (R3).

use super::MAX_DEPTH;
use crate::error::{Finding, FormError, JsonPath};
use forms_rules::Rule;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashSet;
use std::fmt;

/// Objects with more keys than this check duplicates with a hash set.
const LINEAR_KEYS: usize = 16;

/// A parsed JSON value that keeps object key order. Strings and keys borrow from the text
/// (or the `serde_json::Value`) they were read from unless they had escapes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json<'a> {
    Null,
    Bool(bool),
    Num(Num),
    Str(Cow<'a, str>),
    Arr(Vec<Json<'a>>),
    Obj(Vec<(Cow<'a, str>, Json<'a>)>),
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
            Json::Arr(_) => "an array",
            Json::Obj(_) => "an object",
        }
    }
}

/// Where a value sits, as a chain of borrowed steps (turned into a path only for an error).
#[derive(Clone, Copy)]
enum At<'a> {
    Root,
    Key(&'a At<'a>, &'a str),
    Index(&'a At<'a>, usize),
}

impl At<'_> {
    fn to_path(self) -> JsonPath {
        match self {
            At::Root => JsonPath::arguments(),
            At::Key(p, k) => p.to_path().key(k),
            At::Index(p, i) => p.to_path().index(i),
        }
    }
}

/// Shared state of one parse: the path of a duplicate key, when one is found.
#[derive(Default)]
struct Ctx {
    duplicate: RefCell<Option<JsonPath>>,
}

/// Deserializes one value at `at`.
struct ValueSeed<'a> {
    ctx: &'a Ctx,
    at: At<'a>,
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
        while let Some(item) = seq.next_element_seed(ValueSeed {
            ctx: self.ctx,
            at: At::Index(&self.at, items.len()),
        })? {
            items.push(item);
        }
        Ok(Json::Arr(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json<'de>, A::Error> {
        let mut entries: Vec<(Cow<'de, str>, Json<'de>)> = Vec::with_capacity(OBJECT_CAPACITY);
        let mut seen: Option<HashSet<Cow<'de, str>>> = None;
        while let Some(key) = map.next_key_seed(KeySeed)? {
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
            })?;
            entries.push((key, value));
        }
        Ok(Json::Obj(entries))
    }
}

/// Room for the properties of most objects of the Data arguments (an option has up to seven).
const OBJECT_CAPACITY: usize = 8;

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

/// Parses `text` into a tree, or explains why it is not JSON.
pub(crate) fn parse_tree(text: &str) -> Result<Json<'_>, FormError> {
    let ctx = Ctx::default();
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed = ValueSeed {
        ctx: &ctx,
        at: At::Root,
    }
    .deserialize(&mut de)
    .and_then(|tree| de.end().map(|()| tree));
    parsed.map_err(|e| {
        if let Some(path) = ctx.duplicate.take() {
            return FormError::invalid_arguments(Finding::new(
                path,
                Some(Rule::R3),
                format!(
                    "repeats a property name (line {}, column {}); each property may appear \
                     only once",
                    e.line(),
                    e.column()
                ),
            ));
        }
        FormError::invalid_arguments(Finding::new(
            JsonPath::arguments(),
            Some(Rule::R3),
            crate::syntax::not_json(text, &e),
        ))
    })
}

/// Converts a `serde_json::Value`, refusing nesting deeper than [`MAX_DEPTH`].
pub(crate) fn tree_of_value(value: &serde_json::Value, depth: usize) -> Option<Json<'_>> {
    use serde_json::Value;
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
            if depth >= MAX_DEPTH {
                return None;
            }
            Json::Arr(
                items
                    .iter()
                    .map(|v| tree_of_value(v, depth + 1))
                    .collect::<Option<_>>()?,
            )
        }
        Value::Object(map) => {
            if depth >= MAX_DEPTH {
                return None;
            }
            Json::Obj(
                map.iter()
                    .map(|(k, v)| Some((Cow::Borrowed(k.as_str()), tree_of_value(v, depth + 1)?)))
                    .collect::<Option<_>>()?,
            )
        }
    })
}
