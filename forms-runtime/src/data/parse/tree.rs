//! Stage 2: the JSON tree, read by serde_json's deserializer into a private tree that keeps
//! every object's key order and refuses duplicate keys (R3).

use super::MAX_DEPTH;
use crate::data::validate;
use crate::error::{Finding, FormError, JsonPath};
use forms_rules::{self as rules, Rule};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::cell::RefCell;
use std::collections::HashSet;
use std::fmt;

/// Objects with more keys than this check duplicates with a hash set.
const LINEAR_KEYS: usize = 16;

/// A parsed JSON value that keeps object key order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    Num(Num),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

/// A JSON number as serde_json reports it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Num {
    U(u64),
    I(i64),
    F(f64),
}

impl Json {
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

/// Where a value sits, as a chain of borrowed steps (rendered only for an error).
#[derive(Clone, Copy)]
enum At<'a> {
    Root,
    Key(&'a At<'a>, &'a str),
    Index(&'a At<'a>, usize),
}

impl At<'_> {
    fn render(&self) -> String {
        match self {
            At::Root => "arguments".to_owned(),
            At::Key(At::Root, k) => key_path("", k),
            At::Key(p, k) => key_path(&p.render(), k),
            At::Index(p, i) => format!("{}[{i}]", p.render()),
        }
    }
}

/// The path of property `key` of the object at `parent` (`""` for the arguments object).
/// Keys that are not plain names are quoted, and long ones shortened.
pub(crate) fn key_path(parent: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'$'));
    let shown: String = if key.chars().count() > rules::SHOWN_CHARS_MAX {
        key.chars()
            .take(rules::SHOWN_CHARS_MAX)
            .chain(std::iter::once('…'))
            .collect()
    } else {
        key.to_owned()
    };
    match (parent.is_empty(), plain) {
        (true, true) => shown,
        (false, true) => format!("{parent}.{shown}"),
        (true, false) => format!("arguments[{shown:?}]"),
        (false, false) => format!("{parent}[{shown:?}]"),
    }
}

/// Shared state of one parse: the path of a duplicate key, when one is found.
#[derive(Default)]
struct Ctx {
    duplicate: RefCell<Option<String>>,
}

/// Deserializes one value at `at`.
struct ValueSeed<'a> {
    ctx: &'a Ctx,
    at: At<'a>,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Json;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Json, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Json, E> {
        Ok(Json::Num(Num::U(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Num(Num::I(v)))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Json, E> {
        Ok(Json::Num(Num::F(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Json, E> {
        Ok(Json::Str(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Json, E> {
        Ok(Json::Str(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(ValueSeed {
            ctx: self.ctx,
            at: At::Index(&self.at, items.len()),
        })? {
            items.push(item);
        }
        Ok(Json::Arr(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut entries: Vec<(String, Json)> = Vec::new();
        let mut seen: Option<HashSet<String>> = None;
        while let Some(key) = map.next_key::<String>()? {
            let repeated = match &mut seen {
                Some(set) => !set.insert(key.clone()),
                None => entries.iter().any(|(k, _)| *k == key),
            };
            if repeated {
                *self.ctx.duplicate.borrow_mut() = Some(At::Key(&self.at, &key).render());
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

/// Parses `text` into a tree, or explains why it is not JSON.
pub(crate) fn parse_tree(text: &str) -> Result<Json, FormError> {
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
                validate::path_of(&path),
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
pub(crate) fn tree_of_value(value: &serde_json::Value, depth: usize) -> Option<Json> {
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
        Value::String(s) => Json::Str(s.clone()),
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
                    .map(|(k, v)| Some((k.clone(), tree_of_value(v, depth + 1)?)))
                    .collect::<Option<_>>()?,
            )
        }
    })
}

#[cfg(test)]
mod tests {
    #![allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )]
    use super::*;

    #[test]
    fn paths_quote_keys_that_are_not_plain_names() {
        assert_eq!(key_path("", "message"), "message");
        assert_eq!(key_path("questions[0]", "x-y"), "questions[0].x-y");
        assert_eq!(key_path("questions[0]", "a b"), "questions[0][\"a b\"]");
        assert_eq!(key_path("", ""), "arguments[\"\"]");
        let long = "k".repeat(50);
        assert_eq!(key_path("", &long), format!("{}…", "k".repeat(40)));
    }
}
