//! Strict parsing of Data arguments from JSON text (R3, R4, R10, R21 and the type checks).
//!
//! The text goes through three stages, and every problem comes out as one
//! `invalid_arguments` error that lists each violation as `path: problem (Rule)`:
//!
//! 1. **Size pre-scan (R4).** One pass over the bytes computes a lower bound of the compact
//!    JSON length in UTF-16 code units (whitespace outside strings is skipped, a number counts
//!    as one unit, a string escape as one unit, any other character as its UTF-16 length).
//!    Text whose lower bound exceeds 1,048,576 units is refused before any tree is built.
//! 2. **JSON tree.** serde_json's deserializer feeds a private tree that keeps every object's
//!    key order and **refuses duplicate keys** in any object (R3: a property appears once).
//!    Nesting deeper than 127 levels (serde_json's limit), lone UTF-16 surrogates in `\u`
//!    escapes, trailing characters, a byte order mark, `NaN`/`Infinity` and every other syntax
//!    error are refused with a message that gives the line and column; those errors name no rule
//!    because the text is not JSON at all.
//! 3. **Strict model.** Every object is strict (R3: an unknown property is an error naming
//!    it; `default` and `selection` are refused under R21, `minItems`/`maxItems` on a kind
//!    without limits under R17). Types are checked field by field with the field's rule
//!    (`questions[0].title: expected a string, found a number (R8)`). Then the exact compact
//!    length of the arguments is measured as JavaScript's `JSON.stringify(args).length` (R4)
//!    and the model goes through the same validation as [`DataForm::new`], so every rule is
//!    checked by `forms-rules`.
//!
//! Decisions the contract leaves open:
//! - `null` is refused for every field, optional ones included: an optional field is given
//!   with its type or left out.
//! - Integer fields (`maxLength`, `minItems`, `maxItems`) take any JSON number whose value is
//!   an integer, as JSON Schema's `integer` and JavaScript's `Number.isInteger` do: `100`,
//!   `1e2` and `100.0` are all the integer 100 (and are written back as `100`). A fraction
//!   such as `4.5` is refused. Out-of-range values are reported with R11, R18 or R19.
//! - A choice option's `preview` is the older name of `thumbnail`: it is accepted and stored
//!   as `thumbnail`; giving both is an R23 error.

use super::model::{ChoiceOption, FormSpec, Image, Question, QuestionSpec, ResourceOption};
use super::serialize::utf8_bytes_utf16_len;
use super::validate;
use super::DataForm;
use super::Violations;
use crate::error::{Finding, FormError, JsonPath};
use forms_rules::{self as rules, keys, limits, QuestionKind, Rule, Violation};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fmt;

/// Deepest nesting of arrays and objects accepted, as serde_json's text parser allows.
const MAX_DEPTH: usize = 127;

/// Objects with more keys than this check duplicates with a hash set.
const LINEAR_KEYS: usize = 16;

/// Parses and validates Data arguments from JSON text.
pub(crate) fn from_json(text: &str) -> Result<DataForm, FormError> {
    prescan(text)?;
    let tree = parse_tree(text)?;
    from_tree(&tree)
}

/// Validates Data arguments already parsed into a `serde_json::Value`.
pub(crate) fn from_value(value: &serde_json::Value) -> Result<DataForm, FormError> {
    let tree = tree_of_value(value, 0).ok_or_else(|| {
        FormError::invalid_arguments(Finding::new(
            JsonPath::arguments(),
            None,
            format!(
                "not valid Data arguments: arrays and objects nest more than {MAX_DEPTH} levels \
                 deep"
            ),
        ))
    })?;
    from_tree(&tree)
}

// ---------------------------------------------------------------------------------------------
// Stage 1: the size pre-scan.

/// A lower bound of the UTF-16 length of the compact JSON of `text`, counted until it exceeds
/// `cap` (then the count so far is returned).
fn compact_len_lower_bound(text: &str, cap: usize) -> usize {
    let bytes = text.as_bytes();
    let mut n = 0usize;
    let mut i = 0usize;
    let mut in_string = false;
    let mut in_number = false;
    while let Some(&c) = bytes.get(i) {
        if in_string {
            // The run of plain characters up to the next quote or backslash, counted in bulk.
            let rest = bytes.get(i..).unwrap_or_default();
            let run = find_quote_or_backslash(rest);
            n += utf8_bytes_utf16_len(rest.get(..run).unwrap_or_default());
            i += run;
            match bytes.get(i) {
                Some(b'"') => {
                    in_string = false;
                    n += 1;
                    i += 1;
                }
                Some(_) => {
                    // `\uXXXX` and the short escapes each stand for at least one unit.
                    n += 1;
                    i += if bytes.get(i + 1) == Some(&b'u') {
                        6
                    } else {
                        2
                    };
                }
                None => {}
            }
        } else {
            match c {
                b' ' | b'\t' | b'\n' | b'\r' => in_number = false,
                b'"' => {
                    in_string = true;
                    in_number = false;
                    n += 1;
                }
                // A number may shrink when written compactly (`1.000e2` is `100`): count one.
                b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9' => {
                    if !in_number {
                        in_number = true;
                        n += 1;
                    }
                }
                _ => {
                    in_number = false;
                    n += 1;
                }
            }
            i += 1;
        }
        if n > cap {
            break;
        }
    }
    n
}

/// The index of the first `"` or `\\` in `bytes` (its length when there is none), testing 16
/// bytes at a time.
fn find_quote_or_backslash(bytes: &[u8]) -> usize {
    let is_stop = |b: u8| b == b'"' || b == b'\\';
    let first = |b: &[u8]| b.iter().position(|&c| is_stop(c));
    let mut chunks = bytes.chunks_exact(16);
    let mut offset = 0;
    for chunk in &mut chunks {
        if chunk.iter().fold(false, |hit, &c| hit | is_stop(c)) {
            return offset + first(chunk).unwrap_or(16);
        }
        offset += 16;
    }
    let rest = chunks.remainder();
    offset + first(rest).unwrap_or(rest.len())
}

/// The number of bytes of `bytes` that `JSON.stringify` escapes (`"`, `\\`, controls).
fn escaped_count(bytes: &[u8]) -> usize {
    bytes
        .chunks(255)
        .map(|chunk| {
            let mut n: u8 = 0;
            for &b in chunk {
                n += u8::from(b < 0x20 || b == b'"' || b == b'\\');
            }
            usize::from(n)
        })
        .sum()
}

/// R4 before parsing: refuses text whose compact JSON cannot fit in 1 MiB.
fn prescan(text: &str) -> Result<(), FormError> {
    let cap = limits::ARGUMENTS_MAX_UTF16;
    // The lower bound never exceeds the byte length, so short text needs no scan.
    if text.len() <= cap {
        return Ok(());
    }
    rules::check_arguments_size_at_least(compact_len_lower_bound(text, cap)).map_err(|v| {
        FormError::invalid_arguments(Finding::new(
            JsonPath::arguments(),
            Some(v.rule),
            format!(
                "{}; the text cannot fit and was refused before parsing",
                v.problem
            ),
        ))
    })
}

// ---------------------------------------------------------------------------------------------
// Stage 2: the JSON tree.

/// A parsed JSON value that keeps object key order.
#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Num(Num),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

/// A JSON number as serde_json reports it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Num {
    U(u64),
    I(i64),
    F(f64),
}

impl Json {
    /// The type as an error message names it (`a string`, `null`).
    fn type_name(&self) -> &'static str {
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
fn key_path(parent: &str, key: &str) -> String {
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
fn parse_tree(text: &str) -> Result<Json, FormError> {
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
fn tree_of_value(value: &serde_json::Value, depth: usize) -> Option<Json> {
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

// ---------------------------------------------------------------------------------------------
// R4: the exact compact length, as JavaScript's `JSON.stringify(args).length`.

/// The UTF-16 length of `s` as a JSON string literal written by `JSON.stringify`.
fn js_string_len(s: &str) -> usize {
    let bytes = s.as_bytes();
    let units = utf8_bytes_utf16_len(bytes);
    // Most strings need no escape: the count is then the UTF-16 length and the quotes.
    if escaped_count(bytes) == 0 {
        return 2 + units;
    }
    let extra: usize = bytes
        .iter()
        .map(|&b| match b {
            b'"' | b'\\' | 0x08 | 0x0c | b'\n' | b'\r' | b'\t' => 1,
            0..=0x1f => 5,
            _ => 0,
        })
        .sum();
    2 + units + extra
}

/// A number as JavaScript's `Number.prototype.toString` writes it (`100`, `0.5`, `1e+21`,
/// `1.5e-7`); `JSON.stringify` writes non-finite numbers as `null`.
pub(crate) fn js_number(f: f64) -> String {
    if !f.is_finite() {
        return "null".to_owned();
    }
    if f == 0.0 {
        return "0".to_owned();
    }
    // Rust's `{:e}` gives the shortest digits that round-trip, as JavaScript does.
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i64 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let k = digits.len() as i64;
    let n = exp + 1;
    let mut out = String::new();
    if f < 0.0 {
        out.push('-');
    }
    if k <= n && n <= 21 {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', (n - k) as usize));
    } else if 0 < n && n <= 21 {
        let (int, frac) = digits.split_at_checked(n as usize).unwrap_or((&digits, ""));
        out.push_str(int);
        out.push('.');
        out.push_str(frac);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-n) as usize));
        out.push_str(&digits);
    } else {
        let (first, rest) = digits.split_at_checked(1).unwrap_or((&digits, ""));
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        out.push('e');
        out.push(if n > 0 { '+' } else { '-' });
        out.push_str(&(n - 1).unsigned_abs().to_string());
    }
    out
}

/// The length of a number as `JSON.stringify` writes it. JavaScript holds every number as a
/// double, so integers beyond 2^53 are rounded first (`9999999999999999999` is written as
/// `10000000000000000000`).
fn js_number_len(n: Num) -> usize {
    const EXACT: u64 = 1 << 53;
    match n {
        Num::U(u) if u <= EXACT => u.to_string().len(),
        Num::I(i) if i.unsigned_abs() <= EXACT => i.to_string().len(),
        Num::U(u) => js_number(u as f64).len(),
        Num::I(i) => js_number(i as f64).len(),
        Num::F(f) => js_number(f).len(),
    }
}

/// The UTF-16 length of `json`'s compact serialization by `JSON.stringify`.
fn compact_len(json: &Json) -> usize {
    match json {
        Json::Null | Json::Bool(true) => 4,
        Json::Bool(false) => 5,
        Json::Num(n) => js_number_len(*n),
        Json::Str(s) => js_string_len(s),
        Json::Arr(items) => {
            2 + items.len().saturating_sub(1) + items.iter().map(compact_len).sum::<usize>()
        }
        Json::Obj(entries) => {
            2 + entries.len().saturating_sub(1)
                + entries
                    .iter()
                    .map(|(k, v)| js_string_len(k) + 1 + compact_len(v))
                    .sum::<usize>()
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Stage 3: the strict model.

/// An object's entries and its path.
struct Fields<'j> {
    path: String,
    entries: &'j [(String, Json)],
}

impl<'j> Fields<'j> {
    fn get(&self, key: &str) -> Option<&'j Json> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    fn at(&self, key: &str) -> String {
        key_path(&self.path, key)
    }
}

/// An integer field's value.
enum Int {
    /// Fits the model's `u32`; the range is checked by validation.
    Fits(u32),
    /// Negative or huge: `clamped` to `i64` for the rules crate, `shown` as written.
    Out { clamped: i64, shown: String },
}

/// Builds the model from a tree, recording every problem found on the way.
#[derive(Default)]
struct Builder {
    out: Violations,
    /// Paths whose value was unusable: validation findings at or below them are dropped,
    /// since they would only describe the placeholder put in its place.
    broken: HashSet<String>,
    /// Paths whose own validation findings are dropped (not those below them).
    muted: HashSet<String>,
    /// Model paths to report under the name the input used (`thumbnail` given as `preview`).
    renamed: HashMap<String, String>,
}

/// `path` and each path above it, longest first (`a.b[0]`, `a.b`, `a`).
fn path_and_parents(path: &str) -> impl Iterator<Item = &str> {
    std::iter::once(path).chain(
        path.rmatch_indices(['.', '['])
            .filter_map(move |(i, _)| path.get(..i)),
    )
}

fn list(keys: &[&str]) -> String {
    keys.iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Builder {
    /// Records a problem of the input at `path` and marks it broken.
    fn report(&mut self, path: String, value: Option<&str>, v: Violation) {
        self.broken.insert(path.clone());
        self.out.push(path, value, v);
    }

    fn wrong_type(&mut self, path: String, expected: &str, found: &Json, rule: Rule) {
        let hint = if matches!(found, Json::Null) {
            "; leave an optional property out instead of writing null"
        } else {
            ""
        };
        self.report(
            path,
            None,
            Violation::new(
                rule,
                format!("expected {expected}, found {}{hint}", found.type_name()),
            ),
        );
    }

    fn missing(&mut self, path: String, rule: Rule) {
        self.report(path, None, Violation::new(rule, "is required but missing"));
    }

    /// Whether a validation finding at `path` only describes a placeholder.
    fn covers(&self, path: &str) -> bool {
        self.muted.contains(path) || path_and_parents(path).any(|p| self.broken.contains(p))
    }

    /// Reports every property of `obj` outside `allowed`, with the most specific rule.
    fn extra_keys(
        &mut self,
        obj: &Fields<'_>,
        allowed: &[&str],
        what: &str,
        special: &dyn Fn(&str) -> Option<Violation>,
    ) {
        for (key, _) in obj.entries {
            if allowed.contains(&key.as_str()) {
                continue;
            }
            let v = rules::check_preselection_key(key)
                .or_else(|| special(key))
                .unwrap_or_else(|| {
                    Violation::new(
                        Rule::R3,
                        format!(
                            "is not a property of {what}; it takes only {}",
                            list(allowed)
                        ),
                    )
                });
            self.report(obj.at(key), None, v);
        }
    }

    /// A required string property; `""` stands in when it is missing or not a string.
    fn req_str(&mut self, obj: &Fields<'_>, key: &str, rule: Rule) -> String {
        match obj.get(key) {
            Some(Json::Str(s)) => s.clone(),
            Some(other) => {
                self.wrong_type(obj.at(key), "a string", other, rule);
                String::new()
            }
            None => {
                self.missing(obj.at(key), rule);
                String::new()
            }
        }
    }

    /// An optional string property.
    fn opt_str(&mut self, obj: &Fields<'_>, key: &str, rule: Rule) -> Option<String> {
        match obj.get(key)? {
            Json::Str(s) => Some(s.clone()),
            other => {
                self.wrong_type(obj.at(key), "a string", other, rule);
                None
            }
        }
    }

    /// An integer property (see the module docs on what counts as an integer).
    fn integer(&mut self, path: &str, json: &Json, rule: Rule) -> Option<Int> {
        let out = |clamped: i64, shown: String| Int::Out { clamped, shown };
        match json {
            Json::Num(Num::U(u)) => Some(match u32::try_from(*u) {
                Ok(v) => Int::Fits(v),
                Err(_) => out(i64::try_from(*u).unwrap_or(i64::MAX), u.to_string()),
            }),
            Json::Num(Num::I(i)) => Some(match u32::try_from(*i) {
                Ok(v) => Int::Fits(v),
                Err(_) => out(*i, i.to_string()),
            }),
            Json::Num(Num::F(f)) if f.is_finite() && f.fract() == 0.0 => {
                Some(if (0.0..=f64::from(u32::MAX)).contains(f) {
                    // In range and integral, so the conversion is exact.
                    Int::Fits(*f as u32)
                } else {
                    // `as` saturates at the ends of `i64`.
                    out(*f as i64, js_number(*f))
                })
            }
            Json::Num(Num::F(f)) => {
                self.report(
                    path.to_owned(),
                    None,
                    Violation::new(rule, format!("must be an integer, found {}", js_number(*f))),
                );
                None
            }
            other => {
                self.wrong_type(path.to_owned(), "an integer", other, rule);
                None
            }
        }
    }

    /// Reports an out-of-range integer with the rules crate's violation, naming the value as
    /// written rather than as clamped.
    fn out_of_range(&mut self, path: String, v: Violation, clamped: i64, shown: &str) {
        let problem = v.problem.replace(&clamped.to_string(), shown);
        self.report(path, None, Violation::new(v.rule, problem));
    }

    fn form(&mut self, json: &Json) -> Option<FormSpec> {
        let Json::Obj(entries) = json else {
            self.report(
                "arguments".to_owned(),
                None,
                Violation::new(
                    Rule::R3,
                    format!(
                        "expected an object with `message` and `questions`, found {}",
                        json.type_name()
                    ),
                ),
            );
            return None;
        };
        let obj = Fields {
            path: String::new(),
            entries,
        };
        let message = self.req_str(&obj, "message", Rule::R1);
        let questions = match obj.get("questions") {
            Some(Json::Arr(items)) => items
                .iter()
                .enumerate()
                .map(|(i, q)| self.question(i, q))
                .collect(),
            Some(other) => {
                self.wrong_type(
                    "questions".to_owned(),
                    "an array of questions",
                    other,
                    Rule::R2,
                );
                Vec::new()
            }
            None => {
                self.missing("questions".to_owned(), Rule::R2);
                Vec::new()
            }
        };
        self.extra_keys(&obj, keys::FORM, "the form", &|_| None);
        Some(FormSpec { message, questions })
    }

    fn question(&mut self, index: usize, json: &Json) -> Question {
        let path = format!("questions[{index}]");
        let placeholder = Question {
            id: String::new(),
            title: String::new(),
            description: None,
            required: false,
            kind: QuestionSpec::Text { max_length: None },
        };
        let Json::Obj(entries) = json else {
            self.wrong_type(path, "a question object", json, Rule::R2);
            return placeholder;
        };
        let obj = Fields { path, entries };
        let id = self.req_str(&obj, "id", Rule::R6);
        let kind = match obj.get("type") {
            Some(Json::Str(name)) => match QuestionKind::parse(name) {
                Ok(kind) => Some(kind),
                Err(v) => {
                    self.report(obj.at("type"), Some(name), v);
                    None
                }
            },
            Some(other) => {
                self.wrong_type(obj.at("type"), "a string", other, Rule::R7);
                None
            }
            None => {
                self.missing(obj.at("type"), Rule::R7);
                None
            }
        };
        let title = self.req_str(&obj, "title", Rule::R8);
        let description = self.opt_str(&obj, "description", Rule::R9);
        let required = match obj.get("required") {
            Some(Json::Bool(b)) => *b,
            Some(other) => {
                let problem = format!(
                    "expected a boolean, found {}; `required` is an explicit `true` or `false` \
                     with no default",
                    other.type_name()
                );
                self.report(obj.at("required"), None, Violation::new(Rule::R10, problem));
                false
            }
            None => {
                self.report(
                    obj.at("required"),
                    None,
                    Violation::new(
                        Rule::R10,
                        "is required but missing; every question needs an explicit `required` \
                         boolean (there is no default)",
                    ),
                );
                false
            }
        };
        let kind = match kind {
            Some(kind) => self.kind_fields(&obj, kind, required),
            None => {
                // Without a known type only the names of properties can be checked.
                self.extra_keys(&obj, keys::QUESTION_ANY, "a question", &|_| None);
                placeholder.kind
            }
        };
        Question {
            id,
            title,
            description,
            required,
            kind,
        }
    }

    fn kind_fields(
        &mut self,
        obj: &Fields<'_>,
        kind: QuestionKind,
        required: bool,
    ) -> QuestionSpec {
        let spec = match kind {
            QuestionKind::Text => QuestionSpec::Text {
                max_length: self.max_length(obj),
            },
            QuestionKind::SingleSelect => QuestionSpec::SingleSelect {
                options: self.choice_options(obj, kind),
            },
            QuestionKind::MultiSelect => {
                let options = self.choice_options(obj, kind);
                let (min_items, max_items) = self.limits(obj, kind, required, options.len());
                QuestionSpec::MultiSelect {
                    options,
                    min_items,
                    max_items,
                }
            }
            QuestionKind::Resource => QuestionSpec::Resource {
                options: self.resource_options(obj, kind),
            },
            QuestionKind::Resources => {
                let options = self.resource_options(obj, kind);
                let (min_items, max_items) = self.limits(obj, kind, required, options.len());
                QuestionSpec::Resources {
                    options,
                    min_items,
                    max_items,
                }
            }
            QuestionKind::Files => {
                let options = self.resource_options(obj, kind);
                let (min_items, max_items) = self.limits(obj, kind, required, options.len());
                QuestionSpec::Files {
                    options,
                    min_items,
                    max_items,
                    accept: self.accept(obj),
                }
            }
        };
        let allowed = [keys::QUESTION_COMMON, keys::question_kind(kind)].concat();
        let what = format!("a `{kind}` question");
        self.extra_keys(obj, &allowed, &what, &|key| match key {
            "minItems" | "maxItems" => {
                rules::check_selection_limits(kind, required, Some(1), Some(1), 0).err()
            }
            "options" => Some(Violation::new(
                Rule::R3,
                "is not a property of a `text` question: text questions take no options (use \
                 `single_select` or `multi_select` for choices)",
            )),
            "accept" => Some(Violation::new(
                Rule::R3,
                format!("is not a property of a `{kind}` question: only `files` questions take `accept`"),
            )),
            "maxLength" => Some(Violation::new(
                Rule::R3,
                format!(
                    "is not a property of a `{kind}` question: only `text` questions take \
                     `maxLength`"
                ),
            )),
            _ => None,
        });
        spec
    }

    fn max_length(&mut self, obj: &Fields<'_>) -> Option<u32> {
        let path = obj.at("maxLength");
        match self.integer(&path, obj.get("maxLength")?, Rule::R11)? {
            Int::Fits(v) => Some(v),
            Int::Out { clamped, shown } => {
                if let Err(v) = rules::check_max_length(clamped) {
                    self.out_of_range(path, v, clamped, &shown);
                }
                None
            }
        }
    }

    fn limits(
        &mut self,
        obj: &Fields<'_>,
        kind: QuestionKind,
        required: bool,
        count: usize,
    ) -> (Option<u32>, Option<u32>) {
        let mut broken = false;
        let mut read = |b: &mut Self, key: &str, rule: Rule| -> Option<u32> {
            let path = obj.at(key);
            let json = obj.get(key)?;
            match b.integer(&path, json, rule) {
                Some(Int::Fits(v)) => Some(v),
                Some(Int::Out { clamped, shown }) => {
                    let (min, max) = if key == "minItems" {
                        (Some(clamped), None)
                    } else {
                        (None, Some(clamped))
                    };
                    if let Err(v) = rules::check_selection_limits(kind, required, min, max, count) {
                        b.out_of_range(path, v, clamped, &shown);
                    }
                    broken = true;
                    None
                }
                None => {
                    broken = true;
                    None
                }
            }
        };
        let min = read(self, "minItems", Rule::R18);
        let max = read(self, "maxItems", Rule::R19);
        if broken {
            // A limit was unusable: a comparison of the two (R20) would be about a default.
            self.muted.insert(obj.path.clone());
        }
        (min, max)
    }

    fn accept(&mut self, obj: &Fields<'_>) -> Option<Vec<String>> {
        let path = obj.at("accept");
        match obj.get("accept")? {
            Json::Arr(items) => Some(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| match item {
                        Json::Str(s) => s.clone(),
                        other => {
                            self.wrong_type(format!("{path}[{i}]"), "a string", other, Rule::R22);
                            String::new()
                        }
                    })
                    .collect(),
            ),
            other => {
                self.wrong_type(path, "an array of strings", other, Rule::R22);
                None
            }
        }
    }

    /// The items of `obj.options`, each read by `item`; missing options are an empty list
    /// (validation then reports the count where one is needed).
    fn options<T>(
        &mut self,
        obj: &Fields<'_>,
        kind: QuestionKind,
        item: fn(&mut Self, String, &Json) -> T,
    ) -> Vec<T> {
        let path = obj.at("options");
        match obj.get("options") {
            None => Vec::new(),
            Some(Json::Arr(items)) => items
                .iter()
                .enumerate()
                .map(|(i, o)| item(self, format!("{path}[{i}]"), o))
                .collect(),
            Some(other) => {
                self.wrong_type(path, "an array of options", other, kind.options_rule());
                Vec::new()
            }
        }
    }

    fn choice_options(&mut self, obj: &Fields<'_>, kind: QuestionKind) -> Vec<ChoiceOption> {
        self.options(obj, kind, Self::choice)
    }

    fn resource_options(&mut self, obj: &Fields<'_>, kind: QuestionKind) -> Vec<ResourceOption> {
        self.options(obj, kind, Self::resource)
    }

    fn choice(&mut self, path: String, json: &Json) -> ChoiceOption {
        let Json::Obj(entries) = json else {
            self.wrong_type(path, "a choice option object", json, Rule::R23);
            return ChoiceOption {
                id: String::new(),
                title: String::new(),
                description: None,
                thumbnail: None,
            };
        };
        let obj = Fields { path, entries };
        let id = self.req_str(&obj, "id", Rule::R6);
        let title = self.req_str(&obj, "title", Rule::R23);
        let description = self.opt_str(&obj, "description", Rule::R23);
        let thumbnail = self.opt_image(&obj, "thumbnail");
        let preview = self.opt_image(&obj, "preview");
        if obj.get("thumbnail").is_some() && obj.get("preview").is_some() {
            self.report(
                obj.at("preview"),
                None,
                Violation::new(
                    Rule::R23,
                    "must not be given together with `thumbnail`: `preview` is the older name \
                     of `thumbnail`",
                ),
            );
        } else if preview.is_some() {
            self.renamed.insert(obj.at("thumbnail"), obj.at("preview"));
        }
        self.extra_keys(&obj, keys::CHOICE_OPTION, "a choice option", &|_| None);
        ChoiceOption {
            id,
            title,
            description,
            thumbnail: thumbnail.or(preview),
        }
    }

    fn resource(&mut self, path: String, json: &Json) -> ResourceOption {
        let Json::Obj(entries) = json else {
            self.wrong_type(path, "a resource option object", json, Rule::R24);
            return ResourceOption::new("", "", "");
        };
        let obj = Fields { path, entries };
        let uri = self.req_str(&obj, "uri", Rule::R24);
        let name = self.req_str(&obj, "name", Rule::R24);
        let title = self.req_str(&obj, "title", Rule::R24);
        let description = self.opt_str(&obj, "description", Rule::R24);
        let mime_type = self.opt_str(&obj, "mimeType", Rule::R24);
        let icons = match obj.get("icons") {
            None => None,
            Some(Json::Arr(items)) => Some(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, icon)| {
                        let at = format!("{}[{i}]", obj.at("icons"));
                        self.image(at, icon).unwrap_or_else(|| Image::new(""))
                    })
                    .collect(),
            ),
            Some(other) => {
                self.wrong_type(obj.at("icons"), "an array of images", other, Rule::R24);
                None
            }
        };
        let thumbnail = self.opt_image(&obj, "thumbnail");
        self.extra_keys(&obj, keys::RESOURCE_OPTION, "a resource option", &|key| {
            (key == "_meta").then(|| {
                Violation::new(
                    Rule::R3,
                    "is not accepted: Data takes no caller `_meta`; give a picture as \
                     `thumbnail`",
                )
            })
        });
        ResourceOption {
            uri,
            name,
            title,
            description,
            mime_type,
            icons,
            thumbnail,
        }
    }

    fn opt_image(&mut self, obj: &Fields<'_>, key: &str) -> Option<Image> {
        let json = obj.get(key)?;
        self.image(obj.at(key), json)
    }

    /// An image object; `None` when it is not an object (already reported).
    fn image(&mut self, path: String, json: &Json) -> Option<Image> {
        let Json::Obj(entries) = json else {
            self.wrong_type(path, "an image object with `src`", json, Rule::R25);
            return None;
        };
        let obj = Fields { path, entries };
        let src = self.req_str(&obj, "src", Rule::R25);
        let mime_type = self.opt_str(&obj, "mimeType", Rule::R25);
        self.extra_keys(&obj, keys::IMAGE, "an image", &|_| None);
        Some(Image { src, mime_type })
    }

    /// Reports validation findings under the names the input used.
    fn rename(&self, path: &mut String) {
        let renamed = path_and_parents(path).find_map(|model| {
            let input = self.renamed.get(model)?;
            Some(format!(
                "{input}{}",
                path.get(model.len()..).unwrap_or_default()
            ))
        });
        if let Some(renamed) = renamed {
            *path = renamed;
        }
    }
}

/// A sort key that lists findings in the order of the Data arguments: the arguments as a
/// whole, `message`, `questions`, then each question by index and its fields in canonical
/// order (options by index), unknown properties last.
fn document_order(path: &str) -> (u8, usize, usize, usize) {
    let top = |p: &str, name: &str| {
        p.strip_prefix(name)
            .is_some_and(|r| r.is_empty() || r.starts_with(['.', '[']))
    };
    if top(path, "arguments") {
        return (0, 0, 0, 0);
    }
    if top(path, "message") {
        return (1, 0, 0, 0);
    }
    let Some(rest) = path.strip_prefix("questions") else {
        return (4, 0, 0, 0);
    };
    let Some((index, rest)) = rest.strip_prefix('[').and_then(|r| r.split_once(']')) else {
        return (2, 0, 0, 0);
    };
    let question = index.parse().unwrap_or(usize::MAX);
    let rest = rest.strip_prefix('.').unwrap_or(rest);
    let field = rest.split(['.', '[']).next().unwrap_or("");
    // Fields rank in canonical order; findings about the question as a whole (its selection
    // limits together) come right after `maxItems`.
    let canonical = |name: &str| keys::QUESTION_ANY.iter().position(|f| *f == name);
    let rank = match field {
        "" => canonical("maxItems").map_or(usize::MAX, |i| 2 * i + 1),
        f => canonical(f).map_or(usize::MAX, |i| 2 * i),
    };
    let option = rest
        .strip_prefix("options[")
        .and_then(|r| r.split_once(']'))
        .and_then(|(i, _)| i.parse().ok())
        .unwrap_or(0);
    (3, question, rank, option)
}

/// Builds and validates the form of a parsed tree.
fn from_tree(tree: &Json) -> Result<DataForm, FormError> {
    let mut b = Builder::default();
    validate::check_size(&mut b.out, compact_len(tree));
    let Some(spec) = b.form(tree) else {
        return Err(b.out.into_error());
    };
    let mut found = Violations::default();
    let resolved = validate::check_spec(&mut found, &spec);
    found.map_paths(|path| b.rename(path));
    found.retain(|path| !b.covers(path));
    let mut out = b.out;
    out.append(found);
    out.sort_by_path(document_order);
    if out.is_empty() {
        Ok(validate::finish(spec, resolved))
    } else {
        Err(out.into_error())
    }
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
    fn js_number_matches_javascript() {
        for (f, js) in [
            (0.0, "0"),
            (-0.0, "0"),
            (100.0, "100"),
            (1e2, "100"),
            (0.5, "0.5"),
            (-2.5, "-2.5"),
            (4.5, "4.5"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (123_456_789_012_345_680_000.0, "123456789012345680000"),
            (1e-6, "0.000001"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (-1e30, "-1e+30"),
            (f64::NAN, "null"),
        ] {
            assert_eq!(js_number(f), js, "{f:e}");
        }
    }

    fn tree(text: &str) -> Json {
        parse_tree(text).unwrap_or_else(|e| panic!("{text}: {}", e.message()))
    }

    const SAMPLES: &[&str] = &[
        r#"{"message":"Tell me","questions":[]}"#,
        r#"{"a":[1,-2,3.5,1e2,-0,true,false,null],"b":{"c":"d"},"e":[],"f":{}}"#,
        r#"{"q":"quote \" backslash \\ slash \/ nl \n tab \t bs \b ff \f cr \r ctl \u0001 \u001f del  é 😀 \u00e9 \ud83d\ude00 \u2028"}"#,
        "  {\n  \"pretty\" : [ 1 , 2 ,\n 3 ] ,\t\"x\":\"y\" }  ",
        r#"[12345678901234567890,-9223372036854775808,1.0,100.000e-2]"#,
    ];

    #[test]
    fn compact_len_matches_the_compact_serialization() {
        // serde_json writes integers and escapes strings as JSON.stringify does (floats differ:
        // `1.0` against `1`), so samples without floats compare with it directly.
        for text in [SAMPLES[0], SAMPLES[2], SAMPLES[3]] {
            let value: serde_json::Value = serde_json::from_str(text).unwrap();
            let compact = serde_json::to_string(&value).unwrap();
            assert_eq!(
                compact_len(&tree(text)),
                compact.encode_utf16().count(),
                "{text}"
            );
        }
        assert_eq!(
            compact_len(&tree(SAMPLES[4])),
            "[12345678901234567000,-9223372036854776000,1,1]".len()
        );
        // JSON.stringify({"a":[1,-2,3.5,100,0,true,false,null],"b":{"c":"d"},"e":[],"f":{}}).
        assert_eq!(
            compact_len(&tree(SAMPLES[1])),
            r#"{"a":[1,-2,3.5,100,0,true,false,null],"b":{"c":"d"},"e":[],"f":{}}"#.len()
        );
    }

    #[test]
    fn parents_of_a_path() {
        let all: Vec<&str> = path_and_parents("questions[0].options[2].thumbnail.src").collect();
        assert_eq!(
            all,
            [
                "questions[0].options[2].thumbnail.src",
                "questions[0].options[2].thumbnail",
                "questions[0].options[2]",
                "questions[0].options",
                "questions[0]",
                "questions",
            ]
        );
        assert_eq!(path_and_parents("message").collect::<Vec<_>>(), ["message"]);
    }

    #[test]
    fn byte_scans() {
        let text = format!("{}\"{}", "a".repeat(40), "\\".repeat(3));
        assert_eq!(find_quote_or_backslash(text.as_bytes()), 40);
        assert_eq!(find_quote_or_backslash(&text.as_bytes()[41..]), 0);
        assert_eq!(find_quote_or_backslash(b"abc"), 3);
        assert_eq!(find_quote_or_backslash(&[b'a'; 33]), 33);
        assert_eq!(escaped_count(text.as_bytes()), 4);
        assert_eq!(escaped_count("\u{1}\n\tx".repeat(300).as_bytes()), 900);
        let s = "é😀a".repeat(1000);
        assert_eq!(utf8_bytes_utf16_len(s.as_bytes()), s.encode_utf16().count());
    }

    #[test]
    fn large_integers_are_measured_as_doubles() {
        assert_eq!(compact_len(&tree("9007199254740993")), 16);
        // Rounds to 1e19, which JavaScript writes with 20 digits.
        assert_eq!(compact_len(&tree("9999999999999999999")), 20);
        assert_eq!(compact_len(&tree("-9999999999999999999")), 21);
        assert_eq!(compact_len(&tree("18446744073709551615")), 20);
    }

    #[test]
    fn the_pre_scan_is_a_lower_bound() {
        for text in SAMPLES {
            let lower = compact_len_lower_bound(text, usize::MAX);
            assert!(lower <= compact_len(&tree(text)), "{text}");
        }
        // Compact ASCII text without numbers or escapes is measured exactly.
        let text = r#"{"message":"Tell me","questions":[{"id":"a","required":true}]}"#;
        assert_eq!(compact_len_lower_bound(text, usize::MAX), text.len());
        // The scan stops once the cap is passed.
        assert_eq!(compact_len_lower_bound(&"x".repeat(100), 10), 11);
    }

    #[test]
    fn paths_quote_keys_that_are_not_plain_names() {
        assert_eq!(key_path("", "message"), "message");
        assert_eq!(key_path("questions[0]", "x-y"), "questions[0].x-y");
        assert_eq!(key_path("questions[0]", "a b"), "questions[0][\"a b\"]");
        assert_eq!(key_path("", ""), "arguments[\"\"]");
        let long = "k".repeat(50);
        assert_eq!(key_path("", &long), format!("{}…", "k".repeat(40)));
    }

    #[test]
    fn findings_sort_in_document_order() {
        let mut paths = vec![
            "zz",
            "questions[1].id",
            "questions[0]",
            "questions[0].accept[0]",
            "questions[0].options[2].id",
            "questions[0].options[10].title",
            "questions[0].title",
            "questions",
            "message",
            "arguments",
            "questions[0].hint",
        ];
        paths.sort_by_key(|p| document_order(p));
        assert_eq!(
            paths,
            [
                "arguments",
                "message",
                "questions",
                "questions[0].title",
                "questions[0].options[2].id",
                "questions[0].options[10].title",
                "questions[0]",
                "questions[0].accept[0]",
                "questions[0].hint",
                "questions[1].id",
                "zz",
            ]
        );
    }
}
