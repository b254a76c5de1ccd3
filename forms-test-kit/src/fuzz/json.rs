//! An order-keeping JSON tree, parsed strictly (a repeated key is reported, not overwritten),
//! written in several equivalent styles, and measured as JavaScript's `JSON.stringify` would.

use serde::de::{Deserialize, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// A JSON value whose objects keep their key order.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// A number, kept as serde_json read it.
    Num(serde_json::Number),
    /// A string.
    Str(String),
    /// An array.
    Arr(Vec<Json>),
    /// An object, in key order.
    Obj(Vec<(String, Json)>),
}

/// What strict parsing found.
#[derive(Debug)]
pub enum Parsed {
    /// Well-formed JSON without repeated keys.
    Value(Json),
    /// Well-formed JSON with a repeated key in some object.
    Duplicate,
    /// Not JSON (as serde_json reads it, recursion limit included).
    NotJson,
    /// JSON that serde_json reads only where it ignores a part: a lone surrogate escape, a
    /// number out of `f64`'s range or nesting past its limit inside it. No value to compare.
    Unreadable,
}

/// Parses `text` strictly.
pub fn parse(text: &str) -> Parsed {
    if serde_json::from_str::<serde::de::IgnoredAny>(text).is_err() {
        return Parsed::NotJson;
    }
    match serde_json::from_str::<Json>(text) {
        Ok(v) => Parsed::Value(v),
        Err(e) if e.to_string().starts_with("repeated key") => Parsed::Duplicate,
        Err(_) => Parsed::Unreadable,
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("JSON")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Num(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::Num(v.into()))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Json, E> {
        serde_json::Number::from_f64(v)
            .map(Json::Num)
            .ok_or_else(|| E::custom("not finite"))
    }
    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::Str(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::Str(v))
    }
    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Json>()? {
            items.push(item);
        }
        Ok(Json::Arr(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut members: Vec<(String, Json)> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value::<Json>()?;
            if !seen.insert(key.clone()) {
                return Err(A::Error::custom("repeated key"));
            }
            members.push((key, value));
        }
        Ok(Json::Obj(members))
    }
}

impl Json {
    /// A string value.
    pub fn str(s: impl Into<String>) -> Json {
        Json::Str(s.into())
    }

    /// An object from `(key, value)` pairs.
    pub fn obj<K: Into<String>>(members: impl IntoIterator<Item = (K, Json)>) -> Json {
        Json::Obj(members.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }

    /// An array of strings.
    pub fn strs<S: Into<String>>(items: impl IntoIterator<Item = S>) -> Json {
        Json::Arr(items.into_iter().map(|s| Json::Str(s.into())).collect())
    }

    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The member `key` of an object, mutably.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        match self {
            Json::Obj(m) => m.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Sets (replaces or appends) the member `key` of an object.
    pub fn set(&mut self, key: &str, value: Json) {
        if let Json::Obj(m) = self {
            match m.iter_mut().find(|(k, _)| k == key) {
                Some((_, v)) => *v = value,
                None => m.push((key.to_owned(), value)),
            }
        }
    }

    /// Removes the member `key` of an object.
    pub fn remove(&mut self, key: &str) -> Option<Json> {
        match self {
            Json::Obj(m) => {
                let i = m.iter().position(|(k, _)| k == key)?;
                Some(m.remove(i).1)
            }
            _ => None,
        }
    }

    /// The keys of an object, in order (empty for anything else).
    pub fn keys(&self) -> Vec<&str> {
        match self {
            Json::Obj(m) => m.iter().map(|(k, _)| k.as_str()).collect(),
            _ => Vec::new(),
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The non-negative integer, if this is one.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Json::Num(n) => n.as_u64(),
            _ => None,
        }
    }

    /// The items, if this is an array.
    pub fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Arr(a) => Some(a),
            _ => None,
        }
    }

    /// The strings of an array of strings.
    pub fn as_strs(&self) -> Option<Vec<&str>> {
        self.as_array()?.iter().map(Json::as_str).collect()
    }

    /// Whether the key `key` appears in any object anywhere in this value.
    pub fn has_key_anywhere(&self, key: &str) -> bool {
        match self {
            Json::Obj(m) => m.iter().any(|(k, v)| k == key || v.has_key_anywhere(key)),
            Json::Arr(a) => a.iter().any(|v| v.has_key_anywhere(key)),
            _ => false,
        }
    }

    /// Compact JSON text, as serde_json and `JSON.stringify` write it.
    pub fn compact(&self) -> String {
        self.write(&Style::default())
    }

    /// JSON text in `style`.
    pub fn write(&self, style: &Style) -> String {
        let mut out = String::new();
        write_value(self, style, 0, &mut out);
        out
    }

    /// The value as a `serde_json::Value` (objects lose their key order).
    pub fn to_value(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Num(n) => Value::Number(n.clone()),
            Json::Str(s) => Value::String(s.clone()),
            Json::Arr(a) => Value::Array(a.iter().map(Json::to_value).collect()),
            Json::Obj(m) => {
                Value::Object(m.iter().map(|(k, v)| (k.clone(), v.to_value())).collect())
            }
        }
    }

    /// `JSON.stringify(value).length`: the UTF-16 length of the compact text, numbers
    /// written as JavaScript writes them.
    pub fn js_len(&self) -> usize {
        match self {
            Json::Null => 4,
            Json::Bool(b) => {
                if *b {
                    4
                } else {
                    5
                }
            }
            Json::Num(n) => js_number(n).len(),
            Json::Str(s) => utf16(&serde_json::to_string(s).unwrap_or_default()),
            Json::Arr(a) => {
                2 + a.iter().map(Json::js_len).sum::<usize>() + a.len().saturating_sub(1)
            }
            Json::Obj(m) => {
                2 + m
                    .iter()
                    .map(|(k, v)| {
                        utf16(&serde_json::to_string(k).unwrap_or_default()) + 1 + v.js_len()
                    })
                    .sum::<usize>()
                    + m.len().saturating_sub(1)
            }
        }
    }
}

/// The UTF-16 length of `s`.
pub fn utf16(s: &str) -> usize {
    s.encode_utf16().count()
}

/// A number as JavaScript's `JSON.stringify` writes it (integral values without a fraction).
fn js_number(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    let f = n.as_f64().unwrap_or(0.0);
    if f.fract() == 0.0 && f.abs() < 1e21 {
        format!("{}", f as i128)
    } else {
        format!("{f}")
    }
}

/// How to write JSON text: every style is the same value.
#[derive(Debug, Clone, Default)]
pub struct Style {
    /// Indent with this many spaces and put members on their own lines (0: compact).
    pub indent: usize,
    /// Write every non-ASCII character as a `\u` escape (surrogate pairs beyond the BMP).
    pub escape_non_ascii: bool,
    /// Write integers as `1e2`-style or `4.0`-style numbers where they are exact.
    pub odd_numbers: bool,
}

fn newline(style: &Style, depth: usize, out: &mut String) {
    if style.indent > 0 {
        out.push('\n');
        out.extend(std::iter::repeat_n(' ', style.indent * depth));
    }
}

fn write_value(v: &Json, style: &Style, depth: usize, out: &mut String) {
    match v {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Num(n) => match (style.odd_numbers, n.as_u64()) {
            (true, Some(u)) if u > 0 && u % 100 == 0 => {
                out.push_str(&format!("{}e2", u / 100));
            }
            (true, Some(u)) => out.push_str(&format!("{u}.0")),
            _ => out.push_str(&n.to_string()),
        },
        Json::Str(s) => write_str(s, style, out),
        Json::Arr(a) => {
            out.push('[');
            for (i, item) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(style, depth + 1, out);
                write_value(item, style, depth + 1, out);
            }
            if !a.is_empty() {
                newline(style, depth, out);
            }
            out.push(']');
        }
        Json::Obj(m) => {
            out.push('{');
            for (i, (k, item)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(style, depth + 1, out);
                write_str(k, style, out);
                out.push(':');
                if style.indent > 0 {
                    out.push(' ');
                }
                write_value(item, style, depth + 1, out);
            }
            if !m.is_empty() {
                newline(style, depth, out);
            }
            out.push('}');
        }
    }
}

fn write_str(s: &str, style: &Style, out: &mut String) {
    if !style.escape_non_ascii {
        out.push_str(&serde_json::to_string(s).unwrap_or_default());
        return;
    }
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_ascii() && !c.is_ascii_control() => out.push(c),
            c => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
    out.push('"');
}

/// JavaScript's `String.prototype.trim` whitespace: WhiteSpace and LineTerminator of
/// ECMA-262 (U+FEFF is one, U+0085 is not).
pub fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\u{9}' | '\u{a}' | '\u{b}' | '\u{c}' | '\u{d}' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// `s.trim()` as JavaScript reads it.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_space)
}
