//! R4, the size of the Data arguments, measured as JavaScript's `JSON.stringify(args).length`
//! (UTF-16 code units of the compact JSON), in the three places it is needed:
//!
//! - **before parsing**: a lower bound read from the raw text, so text that cannot fit in
//!   1 MiB is refused before any tree is built ([`prescan`]);
//! - **on the parsed tree**: the exact compact length of what was read ([`compact_len`]);
//! - **on a built spec**: the length of its normalized JSON ([`spec_utf16_len`]).

use super::findings::{Loc, Violations};
use super::model::FormSpec;
use super::parse::tree::{Json, Num};
use crate::error::{Finding, FormError, JsonPath};
use forms_rules::{self as rules, limits};

// ---------------------------------------------------------------------------------------------
// Before parsing: a lower bound of the compact length.

/// A lower bound of the UTF-16 length of the compact JSON of `text`, counted until it exceeds
/// `cap` (then the count so far is returned).
pub(crate) fn compact_len_lower_bound(text: &str, cap: usize) -> usize {
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
pub(crate) fn prescan(text: &str) -> Result<(), FormError> {
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
// On the tree: the exact compact length.

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
///
/// For a tree read from text with no float (see `parse_tree`) this is at most the text's
/// length in bytes: whitespace is dropped; a string is written with at most as many UTF-16
/// units as its literal has bytes (a raw character takes no more units than UTF-8 bytes, an
/// escape is written as short or shorter, `"`, `\\` and control characters appear in the text
/// escaped already); an integer keeps its digits; elements left out of the tree are not
/// counted. Only a float can grow (`1e21` is written `1e+21`).
pub(crate) fn compact_len(json: &Json) -> usize {
    match json {
        Json::Null | Json::Bool(true) => 4,
        Json::Bool(false) => 5,
        Json::Num(n) => js_number_len(*n),
        Json::Str(s) => js_string_len(s),
        // Elements and properties the tree did not keep are not counted: the text they are in
        // is refused whatever its length.
        Json::Arr(items, _) => {
            2 + items.len().saturating_sub(1) + items.iter().map(compact_len).sum::<usize>()
        }
        Json::Obj(entries, _) => {
            2 + entries.len().saturating_sub(1)
                + entries
                    .iter()
                    .map(|(k, v)| js_string_len(k) + 1 + compact_len(v))
                    .sum::<usize>()
        }
    }
}

// ---------------------------------------------------------------------------------------------
// On a built spec.

/// Counts the UTF-16 code units of the UTF-8 text written to it.
struct Utf16Counter(usize);

impl std::io::Write for Utf16Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += utf8_bytes_utf16_len(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The UTF-16 length of UTF-8 bytes: one unit per character start, two for the four-byte
/// sequences (characters outside the Basic Multilingual Plane).
pub(crate) fn utf8_bytes_utf16_len(buf: &[u8]) -> usize {
    // Byte-wide counters over chunks of 127 bytes (at most 2 per byte, so no overflow) let the
    // compiler count 16 or 32 bytes per instruction.
    buf.chunks(127)
        .map(|chunk| {
            let mut n: u8 = 0;
            for &b in chunk {
                n += u8::from(b & 0xC0 != 0x80) + u8::from(b >= 0xF0);
            }
            usize::from(n)
        })
        .sum()
}

/// R4: the length in UTF-16 code units of `spec`'s compact JSON, as JavaScript's
/// `JSON.stringify(args).length` gives it. serde_json escapes strings exactly as
/// `JSON.stringify` does (`"`, `\`, and control characters, with the short forms `\b \f \n \r
/// \t`), and every number of a spec is a small integer, so the two texts have the same length.
pub(crate) fn spec_utf16_len(spec: &FormSpec) -> usize {
    let mut counter = Utf16Counter(0);
    // Writing to a counter cannot fail and the spec holds only strings, booleans and integers.
    match serde_json::to_writer(&mut counter, spec) {
        Ok(()) => counter.0,
        Err(_) => 0,
    }
}

/// R4: `len` UTF-16 code units of compact JSON must fit in 1 MiB.
pub(crate) fn check_size(out: &mut Violations<'_>, len: usize) {
    out.check(Loc::ROOT, None, rules::check_arguments_size(len));
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::data::parse::tree::parse_tree;

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

    fn tree(text: &str) -> Json<'_> {
        parse_tree(text)
            .unwrap_or_else(|e| panic!("{text}: {}", e.message()))
            .0
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
    fn r4_compact_len_without_floats_is_at_most_the_text_length() {
        let texts = [
            SAMPLES[0],
            SAMPLES[2],
            SAMPLES[3],
            r#"[12345678901234567890,-9223372036854775808,18446744073709551615,-0]"#,
            r#"{"k\u00e9y\n":"\u0000\u007f\u0080\u009f\uffff\ud83d\ude00 é 😀 \/"}"#,
        ];
        for text in texts {
            let (t, _, floats) = parse_tree(text).unwrap();
            assert!(compact_len(&t) <= text.len(), "{text}");
            assert!(!floats || text.contains("-0"), "{text}");
        }
        for text in [SAMPLES[1], SAMPLES[4], "[1e21]", "[1E5]"] {
            assert!(parse_tree(text).unwrap().2, "{text}");
        }
        assert!(compact_len(&tree("[1E5]")) > "[1E5]".len());
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
}
