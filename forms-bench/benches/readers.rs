//! The JSON readers a Rust user would pick for speed, side by side in one run, on the three
//! jobs forms gives a JSON reader:
//!
//! 1. **form**: reading Data arguments into an order-keeping tree that refuses a duplicate
//!    key (the contract needs it, so a map type that keeps the last value will not do), at
//!    most 128 elements of an array kept and the rest read and counted, as the runtime's
//!    tree does: the typical 93 KB form and the largest valid form (1 MiB);
//! 2. **answer**: reading a host answer (the 12-question answer of `decode.rs`) into a plain
//!    struct of `String`s through serde;
//! 3. **skip**: what the bounds cut, the hostile inputs of `forms-test-kit/src/inputs.rs`
//!    (each ≤ 1 MiB): the same tree reader, whose cost there is mostly reading elements it
//!    counts and does not keep, against the largest valid form.
//!
//! Readers: `serde_json` (what forms uses), `sonic-rs` (SIMD, its serde `Deserializer` and
//! its own `Value`), `simd-json` (SIMD, tape then serde; it needs a mutable copy of the text,
//! which is counted), and a byte-level validating skipper written here (`skip`): the floor a
//! reader of our own could reach on the parts it only counts. The same visitors run over
//! every serde reader, so a difference is the reader's.
//!
//! Run with `cargo bench -p forms-bench --bench readers --features readers`; each line prints
//! the median of interleaved rounds, each figure the fastest round.
// Benchmark code: a failed unwrap, expect or index is a failed run.
#![allow(clippy::restriction)]

use forms_test_kit::inputs;
use forms_test_kit::timing::best_per_call;

use criterion::black_box;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::time::Duration;

mod answer;
use answer::{PlainResponse, ANSWER};

/// Kept elements of an array (as the runtime's tree).
const KEPT: usize = 128;

/// An order-keeping tree; `Arr` and `Obj` carry the count of what was read and not kept.
#[allow(dead_code)]
enum Json<'a> {
    Null,
    Bool(bool),
    U(u64),
    I(i64),
    F(f64),
    Str(Cow<'a, str>),
    Arr(Vec<Json<'a>>, usize),
    Obj(Vec<(Cow<'a, str>, Json<'a>)>, usize),
}

struct Tree;

impl<'de> DeserializeSeed<'de> for Tree {
    type Value = Json<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Json<'de>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Tree {
    type Value = Json<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("JSON")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Json<'de>, E> {
        Ok(Json::Bool(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Json<'de>, E> {
        Ok(Json::U(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Json<'de>, E> {
        Ok(Json::I(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Json<'de>, E> {
        Ok(Json::F(v))
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
        while items.len() < KEPT {
            match seq.next_element_seed(Tree)? {
                Some(item) => items.push(item),
                None => return Ok(Json::Arr(items, 0)),
            }
        }
        let mut skipped = 0;
        while seq.next_element::<IgnoredAny>()?.is_some() {
            skipped += 1;
        }
        Ok(Json::Arr(items, skipped))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json<'de>, A::Error> {
        let mut entries: Vec<(Cow<'de, str>, Json<'de>)> = Vec::new();
        let mut seen: Option<HashSet<Cow<'de, str>>> = None;
        let mut skipped = 0;
        while let Some(key) = map.next_key_seed(Key)? {
            if entries.len() >= KEPT {
                map.next_value::<IgnoredAny>()?;
                skipped += 1;
                continue;
            }
            let repeated = match &mut seen {
                Some(set) => !set.insert(key.clone()),
                None => entries.iter().any(|(k, _)| *k == key),
            };
            if repeated {
                return Err(de::Error::custom("duplicate key"));
            }
            if seen.is_none() && entries.len() >= 16 {
                seen = Some(entries.iter().map(|(k, _)| k.clone()).collect());
            }
            let value = map.next_value_seed(Tree)?;
            entries.push((key, value));
        }
        Ok(Json::Obj(entries, skipped))
    }
}

struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Cow<'de, str>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v))
    }
}

// ---------------------------------------------------------------------------------------------
// The readers, each reading `text` with the tree visitor (`Ok` when it is JSON with no
// duplicate key).

fn tree_serde_json(text: &str) -> bool {
    let mut de = serde_json::Deserializer::from_str(text);
    Tree.deserialize(&mut de)
        .and_then(|t| de.end().map(|()| t))
        .is_ok()
}

fn tree_sonic(text: &str) -> bool {
    let mut de = sonic_rs::Deserializer::from_str(text);
    Tree.deserialize(&mut de)
        .and_then(|t| de.end().map(|()| t))
        .is_ok()
}

fn tree_simd(text: &str) -> bool {
    let mut bytes = text.as_bytes().to_vec();
    match simd_json::Deserializer::from_slice(&mut bytes) {
        Ok(mut de) => Tree.deserialize(&mut de).is_ok(),
        Err(_) => false,
    }
}

/// A validating skip of one JSON value of `b` at `i` (whitespace before it included),
/// returning the index after it; `depth` bounds nesting as serde_json does (128). The text is
/// a `str`, so it is UTF-8; strings are checked for control characters and escapes.
fn skip(b: &[u8], mut i: usize, depth: usize) -> Option<usize> {
    i = ws(b, i);
    match *b.get(i)? {
        b'"' => string(b, i + 1),
        b'[' => {
            let depth = depth.checked_sub(1)?;
            i = ws(b, i + 1);
            if b.get(i) == Some(&b']') {
                return Some(i + 1);
            }
            loop {
                i = ws(b, skip(b, i, depth)?);
                match *b.get(i)? {
                    b',' => i += 1,
                    b']' => return Some(i + 1),
                    _ => return None,
                }
            }
        }
        b'{' => {
            let depth = depth.checked_sub(1)?;
            i = ws(b, i + 1);
            if b.get(i) == Some(&b'}') {
                return Some(i + 1);
            }
            loop {
                if b.get(i) != Some(&b'"') {
                    return None;
                }
                i = ws(b, string(b, i + 1)?);
                if b.get(i) != Some(&b':') {
                    return None;
                }
                i = ws(b, skip(b, i + 1, depth)?);
                match *b.get(i)? {
                    b',' => i = ws(b, i + 1),
                    b'}' => return Some(i + 1),
                    _ => return None,
                }
            }
        }
        b't' => literal(b, i, b"true"),
        b'f' => literal(b, i, b"false"),
        b'n' => literal(b, i, b"null"),
        _ => number(b, i),
    }
}

/// Counts the elements of the array at `i` (validating them), returning the index after it.
fn count_array(b: &[u8], mut i: usize) -> Option<(usize, usize)> {
    i = ws(b, i);
    if b.get(i) != Some(&b'[') {
        return None;
    }
    i = ws(b, i + 1);
    if b.get(i) == Some(&b']') {
        return Some((i + 1, 0));
    }
    let mut n = 0;
    loop {
        i = ws(b, skip(b, i, 127)?);
        n += 1;
        match *b.get(i)? {
            b',' => i += 1,
            b']' => return Some((i + 1, n)),
            _ => return None,
        }
    }
}

#[inline]
fn ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\n' | b'\r' | b'\t')) {
        i += 1;
    }
    i
}

fn literal(b: &[u8], i: usize, word: &[u8]) -> Option<usize> {
    (b.get(i..i + word.len())? == word).then_some(i + word.len())
}

fn string(b: &[u8], mut i: usize) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    loop {
        // Eight bytes at a time while none is `"`, `\\` or a control character.
        while let Some(chunk) = b.get(i..i + 8) {
            let x = u64::from_le_bytes(chunk.try_into().ok()?);
            let quote = x ^ (LO * u64::from(b'"'));
            let backslash = x ^ (LO * u64::from(b'\\'));
            let special = (quote.wrapping_sub(LO) & !quote)
                | (backslash.wrapping_sub(LO) & !backslash)
                | (x.wrapping_sub(LO * 0x20) & !x);
            if special & HI != 0 {
                break;
            }
            i += 8;
        }
        match *b.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => match *b.get(i + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                b'u' => {
                    let hex = b.get(i + 2..i + 6)?;
                    if !hex.iter().all(u8::is_ascii_hexdigit) {
                        return None;
                    }
                    i += 6;
                }
                _ => return None,
            },
            0..=0x1f => return None,
            _ => i += 1,
        }
    }
}

fn number(b: &[u8], mut i: usize) -> Option<usize> {
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match *b.get(i)? {
        b'0' => i += 1,
        b'1'..=b'9' => {
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
        }
        _ => return None,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return None;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return None;
        }
    }
    Some(i)
}

/// The whole text skipped by the skipper above.
fn skip_all(text: &str) -> bool {
    let b = text.as_bytes();
    skip(b, 0, 128).is_some_and(|end| ws(b, end) == b.len())
}

// ---------------------------------------------------------------------------------------------
// The host answer.

fn answer_serde_json(text: &str) -> PlainResponse {
    serde_json::from_str(text).unwrap()
}

fn answer_sonic(text: &str) -> PlainResponse {
    sonic_rs::from_str(text).unwrap()
}

fn answer_simd(text: &str) -> PlainResponse {
    let mut bytes = text.as_bytes().to_vec();
    simd_json::serde::from_slice(&mut bytes).unwrap()
}

// ---------------------------------------------------------------------------------------------

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

type Reader = (&'static str, fn(&str) -> bool);
type AnswerReader = (&'static str, fn(&str) -> PlainResponse);

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let typical = inputs::typical_form();
    let largest = inputs::largest_valid_form();
    let hostile = inputs::hostile_inputs();

    let readers: [Reader; 4] = [
        ("serde_json tree", tree_serde_json),
        ("sonic-rs tree", tree_sonic),
        ("simd-json tree", tree_simd),
        ("own skipper (validate only)", skip_all),
    ];
    // Every reader agrees on what is JSON with no repeated key.
    for (name, read) in &readers {
        assert!(read(&typical), "{name}");
        assert!(read(&largest), "{name}");
        assert!(read(r#"{"a":1,"b":[1,2]}"#), "{name}");
        assert!(!read(r#"{"a":1,"b":[1,2}"#), "{name}");
        if !name.starts_with("own") {
            assert!(!read(r#"{"a":1,"a":2}"#), "{name}");
        }
    }
    for (name, text) in &hostile {
        // Each hostile input is JSON, and the serde readers agree on it (a key repeated past
        // the 128 kept properties is not looked for, as in the runtime's tree).
        let expected = tree_serde_json(text);
        for (reader, read) in &readers {
            let want = expected || reader.starts_with("own");
            assert_eq!(read(text), want, "{reader} on {name}");
        }
    }
    let r = answer_serde_json(ANSWER);
    assert_eq!(r.content.sections.len(), 4);
    assert_eq!(answer_sonic(ANSWER).content.data, r.content.data);
    assert_eq!(answer_simd(ANSWER).content.goal, r.content.goal);

    let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
    let value = |text: &str| {
        black_box(serde_json::from_str::<serde_json::Value>(black_box(text)).unwrap());
    };

    // 1. Data forms into the tree, against serde_json's Value of the same text.
    println!("== job 1: a Data form into an order-keeping tree with duplicate-key detection");
    for (label, text) in [
        ("93 KB form", &typical),
        ("1 MiB largest valid form", &largest),
    ] {
        let calls = if text.len() > 500_000 { 5 } else { 50 };
        let mut best = [Duration::MAX; 5];
        let mut ratios = vec![Vec::new(); 5];
        for _ in 0..9 {
            let base = best_per_call(3, calls, || value(text));
            best[4] = best[4].min(base);
            for (k, (_, read)) in readers.iter().enumerate() {
                let t = best_per_call(3, calls, || {
                    black_box(read(black_box(text)));
                });
                best[k] = best[k].min(t);
                ratios[k].push(ratio(t, base));
            }
            let t = best_per_call(3, calls, || {
                black_box(sonic_rs::from_str::<sonic_rs::Value>(black_box(text)).unwrap());
            });
            ratios[4].push(ratio(t, base));
        }
        println!("{label}: serde_json::Value {:?} (best)", best[4]);
        for (k, (name, _)) in readers.iter().enumerate() {
            println!(
                "  {name:<30} {:>10.1?}  {:.2}x serde_json::Value",
                best[k],
                median(ratios[k].clone())
            );
        }
        println!(
            "  {:<30} {:>10}  {:.2}x serde_json::Value (no duplicate check)",
            "sonic_rs::Value",
            "",
            median(ratios[4].clone())
        );
    }

    // 2. The host answer into a plain struct.
    println!("== job 2: a host answer (12 questions) into a plain struct of Strings");
    let answers: [AnswerReader; 3] = [
        ("serde_json", answer_serde_json),
        ("sonic-rs", answer_sonic),
        ("simd-json", answer_simd),
    ];
    let mut best = [Duration::MAX; 3];
    let mut ratios = vec![Vec::new(); 3];
    for _ in 0..9 {
        let mut round = [Duration::ZERO; 3];
        for (k, (_, read)) in answers.iter().enumerate() {
            round[k] = best_per_call(3, 20_000, || {
                black_box(read(black_box(ANSWER)));
            });
            best[k] = best[k].min(round[k]);
        }
        for k in 0..3 {
            ratios[k].push(ratio(round[k], round[0]));
        }
    }
    for (k, (name, _)) in answers.iter().enumerate() {
        println!(
            "  {name:<30} {:>10.1?}  {:.2}x serde_json",
            best[k],
            median(ratios[k].clone())
        );
    }

    // 3. Hostile inputs: each reader's time to read them, against what accepting the largest
    // valid form costs today (`DataForm::from_json`, reading and every rule), measured in the
    // same round: the floor each reader would put under the refusal ratio.
    println!(
        "== job 3: what the bounds cut: reading each hostile input / DataForm::from_json of the largest valid form"
    );
    let runtime = |text: &str| {
        black_box(forms_runtime::DataForm::from_json(black_box(text)).is_ok());
    };
    let mut table = vec![vec![Vec::new(); readers.len() + 1]; hostile.len()];
    let mut valid = Duration::MAX;
    let mut reads = vec![Duration::MAX; readers.len()];
    for _ in 0..5 {
        let tv = best_per_call(3, 5, || runtime(&largest));
        valid = valid.min(tv);
        for (k, (_, read)) in readers.iter().enumerate() {
            let t = best_per_call(3, 5, || {
                black_box(read(black_box(&largest)));
            });
            reads[k] = reads[k].min(t);
        }
        for (h, (_, text)) in hostile.iter().enumerate() {
            let t = best_per_call(3, 5, || runtime(text));
            table[h][0].push(ratio(t, tv));
            for (k, (_, read)) in readers.iter().enumerate() {
                let t = best_per_call(3, 5, || {
                    black_box(read(black_box(text)));
                });
                table[h][k + 1].push(ratio(t, tv));
            }
        }
    }
    println!("  DataForm::from_json of the largest valid form: {valid:.1?} (best)");
    print!("  {:<36} {:>16}", "input", "forms today");
    for (name, _) in &readers {
        print!(" {:>16}", name.split(' ').next().unwrap_or(name));
    }
    println!();
    print!("  {:<36} {:>16}", "reading the largest valid form", "");
    for r in &reads {
        print!(" {:>16}", format!("{r:.1?}"));
    }
    println!();
    for (h, (name, _)) in hostile.iter().enumerate() {
        print!("  {name:<36}");
        for cell in &table[h] {
            print!(" {:>15.2}x", median(cell.clone()));
        }
        println!();
    }
    // The cut array alone: counting the 1 MiB flood's elements.
    let flood = &hostile[1].1;
    let start = flood.find("\"options\":").unwrap() + "\"options\":".len();
    let (_, n) = count_array(flood.as_bytes(), start).unwrap();
    println!("  (the 1 MiB flood's cut array has {n} elements)");
}
