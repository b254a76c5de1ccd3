//! The runtime's own JSON reader: the lexical layer under the Data-argument tree
//! (`data/parse/read.rs`) and, as a serde `Deserializer` ([`de`]), under the answer
//! checker.
//!
//! It accepts a subset of what serde_json accepts and reads it to the same values, and it
//! knows when it is outside that subset: then it gives up ([`GiveUp`]) and the caller reads
//! the text again with serde_json, which decides (and words) every refusal of text that is
//! not JSON. So a verdict of this reader is serde_json's verdict by construction where it
//! gives one, and the differential fuzz target (`forms_test_kit::fuzz::targets::reader`)
//! checks that the values agree.
//!
//! What makes it give up: any syntax error, nesting that serde_json would refuse, a `\u`
//! escape of a UTF-16 surrogate that is not part of a pair, and a number it cannot read
//! exactly as serde_json does without serde_json's help (those it hands to serde_json one
//! number at a time). Everything else is read in one pass over the bytes, eight bytes at a
//! time inside strings, with no intermediate tree.

use std::borrow::Cow;

pub(crate) mod de;

/// The reader met something it does not read itself: the caller reads the text with
/// serde_json instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct GiveUp;

/// Most containers serde_json's text parser opens inside each other (its recursion limit).
pub(crate) const LEVELS_MAX: usize = 127;

/// A JSON number as serde_json's `deserialize_any` reports it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Number {
    U(u64),
    I(i64),
    F(f64),
}

/// A cursor over JSON text.
pub(crate) struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    /// The containers [`Reader::skip`] has open (`true` for an object), kept between calls
    /// so that skipping many small arrays allocates once.
    open: Vec<bool>,
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Bit 7 of each byte of `x` that is `"`, `\` or a control character (below 0x20) is set in
/// the lowest such byte (higher bytes may carry false positives).
#[inline]
fn specials(x: u64) -> u64 {
    let quote = x ^ (ONES * u64::from(b'"'));
    let backslash = x ^ (ONES * u64::from(b'\\'));
    (quote.wrapping_sub(ONES) & !quote
        | backslash.wrapping_sub(ONES) & !backslash
        | x.wrapping_sub(ONES * 0x20) & !x)
        & HIGHS
}

impl<'a> Reader<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Reader {
            text,
            bytes: text.as_bytes(),
            at: 0,
            open: Vec::new(),
        }
    }

    /// The byte offset of the next byte to read.
    pub(crate) fn offset(&self) -> usize {
        self.at
    }

    /// Skips JSON whitespace and returns the next byte, without taking it.
    #[inline]
    pub(crate) fn peek(&mut self) -> Option<u8> {
        while let Some(&b) = self.bytes.get(self.at) {
            if b > b' ' || !matches!(b, b' ' | b'\n' | b'\t' | b'\r') {
                return Some(b);
            }
            self.at += 1;
        }
        None
    }

    /// Takes the byte [`Reader::peek`] returned.
    #[inline]
    pub(crate) fn bump(&mut self) {
        self.at += 1;
    }

    /// Takes `byte` after whitespace, or gives up.
    #[inline]
    pub(crate) fn expect(&mut self, byte: u8) -> Result<(), GiveUp> {
        if self.peek() == Some(byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(GiveUp)
        }
    }

    /// After whitespace, the end of the text, or gives up (trailing characters).
    pub(crate) fn end(&mut self) -> Result<(), GiveUp> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(GiveUp),
        }
    }

    /// After a `,` or the opening bracket of an array or object: gives up on a closing
    /// bracket (serde_json refuses a trailing comma) or the end of the text.
    #[inline]
    pub(crate) fn after_comma(&mut self) -> Result<u8, GiveUp> {
        match self.peek() {
            Some(b']' | b'}') | None => Err(GiveUp),
            Some(b) => Ok(b),
        }
    }

    /// After a member of an array or object closed by `close`: takes a `,` and returns
    /// `true` (another member follows), or takes `close` and returns `false`; anything else
    /// gives up.
    #[inline]
    pub(crate) fn more(&mut self, close: u8) -> Result<bool, GiveUp> {
        match self.peek() {
            Some(b',') => {
                self.at += 1;
                self.after_comma()?;
                Ok(true)
            }
            Some(b) if b == close => {
                self.at += 1;
                Ok(false)
            }
            _ => Err(GiveUp),
        }
    }

    /// Reads `null`, `true` or `false` whose first byte was peeked.
    pub(crate) fn literal(&mut self, word: &[u8]) -> Result<(), GiveUp> {
        let end = self.at + word.len();
        if self.bytes.get(self.at..end) == Some(word) {
            self.at = end;
            Ok(())
        } else {
            Err(GiveUp)
        }
    }

    /// Moves past the bytes of a string that need no escape handling; returns the special
    /// byte it stopped at (`"`, `\` or a control character), or `None` at the end.
    #[inline]
    fn run(&mut self) -> Option<u8> {
        while let Some(chunk) = self.bytes.get(self.at..self.at + 8) {
            let x = u64::from_le_bytes(<[u8; 8]>::try_from(chunk).ok()?);
            let found = specials(x);
            if found != 0 {
                self.at += (found.trailing_zeros() / 8) as usize;
                return self.bytes.get(self.at).copied();
            }
            self.at += 8;
        }
        while let Some(&b) = self.bytes.get(self.at) {
            if b == b'"' || b == b'\\' || b < 0x20 {
                return Some(b);
            }
            self.at += 1;
        }
        None
    }

    /// Reads a string whose opening `"` was taken: borrowed from the text when it has no
    /// escapes. Gives up on a control character, a bad escape, a `\u` surrogate outside a
    /// pair, or the end of the text.
    #[inline]
    pub(crate) fn string(&mut self) -> Result<Cow<'a, str>, GiveUp> {
        let start = self.at;
        match self.run() {
            Some(b'"') => {
                let s = self.text.get(start..self.at).ok_or(GiveUp)?;
                self.at += 1;
                Ok(Cow::Borrowed(s))
            }
            Some(b'\\') => {
                let mut owned = String::from(self.text.get(start..self.at).ok_or(GiveUp)?);
                self.escaped(&mut owned)?;
                Ok(Cow::Owned(owned))
            }
            _ => Err(GiveUp),
        }
    }

    /// Checks a string whose opening `"` was taken as [`Reader::string`] does, keeping
    /// nothing. `strict` false reads it as serde_json skips an ignored value: a `\u` escape
    /// is then only checked for four hex digits.
    pub(crate) fn skip_string(&mut self, strict: bool) -> Result<(), GiveUp> {
        loop {
            match self.run() {
                Some(b'"') => {
                    self.at += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    self.at += 1;
                    match self.bytes.get(self.at) {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                            self.at += 1;
                        }
                        Some(b'u') => {
                            self.at += 1;
                            let unit = self.hex4()?;
                            if strict && (0xD800..0xE000).contains(&unit) {
                                self.surrogate_pair(unit)?;
                            }
                        }
                        _ => return Err(GiveUp),
                    }
                }
                _ => return Err(GiveUp),
            }
        }
    }

    /// The rest of a string from its first `\`, appended to `out`.
    fn escaped(&mut self, out: &mut String) -> Result<(), GiveUp> {
        loop {
            // At a backslash.
            self.at += 1;
            let b = *self.bytes.get(self.at).ok_or(GiveUp)?;
            self.at += 1;
            match b {
                b'"' => out.push('"'),
                b'\\' => out.push('\\'),
                b'/' => out.push('/'),
                b'b' => out.push('\u{8}'),
                b'f' => out.push('\u{c}'),
                b'n' => out.push('\n'),
                b'r' => out.push('\r'),
                b't' => out.push('\t'),
                b'u' => {
                    let unit = self.hex4()?;
                    let c = if (0xD800..0xE000).contains(&unit) {
                        self.surrogate_pair(unit)?
                    } else {
                        char::from_u32(u32::from(unit)).ok_or(GiveUp)?
                    };
                    out.push(c);
                }
                _ => return Err(GiveUp),
            }
            let start = self.at;
            let stop = self.run();
            out.push_str(self.text.get(start..self.at).ok_or(GiveUp)?);
            match stop {
                Some(b'"') => {
                    self.at += 1;
                    return Ok(());
                }
                Some(b'\\') => {}
                _ => return Err(GiveUp),
            }
        }
    }

    /// Four hex digits of a `\u` escape.
    fn hex4(&mut self) -> Result<u16, GiveUp> {
        let digits = self.bytes.get(self.at..self.at + 4).ok_or(GiveUp)?;
        let mut unit = 0u16;
        for &d in digits {
            let v = match d {
                b'0'..=b'9' => d - b'0',
                b'a'..=b'f' => d - b'a' + 10,
                b'A'..=b'F' => d - b'A' + 10,
                _ => return Err(GiveUp),
            };
            unit = unit << 4 | u16::from(v);
        }
        self.at += 4;
        Ok(unit)
    }

    /// The character of a leading surrogate `high` and the `\u` escape of a trailing one that
    /// must follow; anything else gives up.
    fn surrogate_pair(&mut self, high: u16) -> Result<char, GiveUp> {
        if !(0xD800..0xDC00).contains(&high) || self.bytes.get(self.at..self.at + 2) != Some(b"\\u")
        {
            return Err(GiveUp);
        }
        self.at += 2;
        let low = self.hex4()?;
        if !(0xDC00..0xE000).contains(&low) {
            return Err(GiveUp);
        }
        let c = 0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
        char::from_u32(c).ok_or(GiveUp)
    }

    /// Reads a number whose first byte (`-` or a digit) was peeked, as serde_json's
    /// `deserialize_any` reads it: an integer to `U` (or `I` when negative), anything else
    /// to `F`. Numbers that are not plain integers are read by serde_json itself.
    #[inline]
    pub(crate) fn number(&mut self) -> Result<Number, GiveUp> {
        let start = self.at;
        let negative = self.bytes.get(self.at) == Some(&b'-');
        if negative {
            self.at += 1;
        }
        let digits = self.at;
        let mut value: u64 = 0;
        let mut overflow = false;
        while let Some(&b) = self.bytes.get(self.at) {
            if !b.is_ascii_digit() {
                break;
            }
            match value
                .checked_mul(10)
                .and_then(|v| v.checked_add(u64::from(b - b'0')))
            {
                Some(v) => value = v,
                None => overflow = true,
            }
            self.at += 1;
        }
        let count = self.at - digits;
        if count == 0 || (count > 1 && self.bytes.get(digits) == Some(&b'0')) {
            return Err(GiveUp);
        }
        if overflow || matches!(self.bytes.get(self.at), Some(b'.' | b'e' | b'E')) {
            self.at = start;
            return self.float();
        }
        Ok(if !negative {
            Number::U(value)
        } else {
            // As serde_json: `-0` and integers below `i64::MIN` are floats.
            let neg = (value as i64).wrapping_neg();
            if neg >= 0 {
                Number::F(-(value as f64))
            } else {
                Number::I(neg)
            }
        })
    }

    /// A number with a fraction, an exponent or too many digits for `u64`: its extent is
    /// found here, its value is serde_json's (which refuses one out of `f64`'s range).
    #[cold]
    fn float(&mut self) -> Result<Number, GiveUp> {
        let start = self.at;
        self.skip_number()?;
        let text = self.text.get(start..self.at).ok_or(GiveUp)?;
        serde_json::from_str::<f64>(text)
            .map(Number::F)
            .map_err(|_| GiveUp)
    }

    /// Moves past a number whose first byte was peeked, checking only its grammar (as
    /// serde_json skips an ignored number).
    #[inline]
    pub(crate) fn skip_number(&mut self) -> Result<(), GiveUp> {
        if self.bytes.get(self.at) == Some(&b'-') {
            self.at += 1;
        }
        match self.bytes.get(self.at) {
            Some(b'0') => {
                self.at += 1;
                if self.bytes.get(self.at).is_some_and(u8::is_ascii_digit) {
                    return Err(GiveUp);
                }
            }
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(GiveUp),
        }
        if self.bytes.get(self.at) == Some(&b'.') {
            self.at += 1;
            let from = self.at;
            self.digits();
            if self.at == from {
                return Err(GiveUp);
            }
        }
        if matches!(self.bytes.get(self.at), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.bytes.get(self.at), Some(b'+' | b'-')) {
                self.at += 1;
            }
            let from = self.at;
            self.digits();
            if self.at == from {
                return Err(GiveUp);
            }
        }
        Ok(())
    }

    #[inline]
    fn digits(&mut self) {
        while self.bytes.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
    }

    /// Reads one value to its end, keeping nothing, as serde_json reads a value it is asked
    /// to ignore (`strict` false: no nesting limit, `\u` escapes and number ranges not
    /// checked) or one it reads whole and drops (`strict`: all of that checked; `level`
    /// containers are already open around it).
    #[inline]
    pub(crate) fn skip(&mut self, strict: bool, level: usize) -> Result<(), GiveUp> {
        match self.peek() {
            Some(b'"') => {
                self.at += 1;
                self.skip_string(strict)
            }
            Some(b'-' | b'0'..=b'9') => {
                if strict {
                    self.number().map(drop)
                } else {
                    self.skip_number()
                }
            }
            Some(b'n') => self.literal(b"null"),
            Some(b't') => self.literal(b"true"),
            Some(b'f') => self.literal(b"false"),
            Some(b @ (b'[' | b'{')) => {
                // `[]` and `{}` without a call.
                let close = if b == b'[' { b']' } else { b'}' };
                if self.bytes.get(self.at + 1) == Some(&close) && !(strict && level >= LEVELS_MAX) {
                    self.at += 2;
                    Ok(())
                } else {
                    self.skip_nested(strict, level)
                }
            }
            _ => Err(GiveUp),
        }
    }

    /// [`Reader::skip`] of an array or object, without recursion: the open containers are
    /// kept on a stack the reader reuses.
    #[inline(never)]
    fn skip_nested(&mut self, strict: bool, level: usize) -> Result<(), GiveUp> {
        let mut open = std::mem::take(&mut self.open);
        open.clear();
        let skipped = self.skip_nested_with(strict, level, &mut open);
        self.open = open;
        skipped
    }

    fn skip_nested_with(
        &mut self,
        strict: bool,
        level: usize,
        open: &mut Vec<bool>,
    ) -> Result<(), GiveUp> {
        loop {
            // At a value.
            match self.peek().ok_or(GiveUp)? {
                b'"' => {
                    self.at += 1;
                    self.skip_string(strict)?;
                }
                b'-' | b'0'..=b'9' => {
                    if strict {
                        self.number()?;
                    } else {
                        self.skip_number()?;
                    }
                }
                b'n' => self.literal(b"null")?,
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b @ (b'[' | b'{') => {
                    self.at += 1;
                    if strict && level + open.len() >= LEVELS_MAX {
                        return Err(GiveUp);
                    }
                    let object = b == b'{';
                    let close = if object { b'}' } else { b']' };
                    if self.peek() == Some(close) {
                        self.at += 1;
                    } else {
                        open.push(object);
                        if object {
                            self.key(strict)?;
                        }
                        continue;
                    }
                }
                _ => return Err(GiveUp),
            }
            // After a value: close what ends here, then go on with the next value.
            loop {
                let Some(&object) = open.last() else {
                    return Ok(());
                };
                match self.peek() {
                    Some(b',') => {
                        self.at += 1;
                        if object {
                            self.key(strict)?;
                        }
                        break;
                    }
                    Some(b']') if !object => {}
                    Some(b'}') if object => {}
                    _ => return Err(GiveUp),
                }
                self.at += 1;
                open.pop();
            }
        }
    }

    /// A property name and its `:`, keeping nothing.
    fn key(&mut self, strict: bool) -> Result<(), GiveUp> {
        self.expect(b'"')?;
        self.skip_string(strict)?;
        self.expect(b':')
    }

    /// Line and column of byte `at`, as serde_json gives a position: lines from 1, the column
    /// counting bytes from the line's start.
    pub(crate) fn position(&self, at: usize) -> (usize, usize) {
        let before = self.bytes.get(..at).unwrap_or(self.bytes);
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let lines = before
            .get(..line_start)
            .unwrap_or_default()
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        (1 + lines, at - line_start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn string(text: &str) -> Result<Cow<'_, str>, GiveUp> {
        let mut r = Reader::new(text);
        r.expect(b'"')?;
        let s = r.string()?;
        r.end()?;
        Ok(s)
    }

    #[test]
    fn strings_read_as_serde_json_reads_them_or_give_up() {
        for text in [
            r#""""#,
            r#""plain text that is longer than eight bytes""#,
            r#""tab\tnew\nline \"quoted\" \\ \/ \b\f\r""#,
            r#""\u00e9\u20AC\ud83d\ude00 after""#,
            "\"caf\u{e9} \u{1F600} and more text\"",
        ] {
            let ours = string(text).unwrap();
            let theirs: String = serde_json::from_str(text).unwrap();
            assert_eq!(ours, theirs, "{text}");
        }
        for text in [
            "\"control \u{1} char\"",
            r#""\ud800 lone""#,
            r#""\udc00""#,
            r#""\ud800\u0041""#,
            r#""\x""#,
            r#""\u12""#,
            r#""unterminated"#,
        ] {
            assert_eq!(string(text), Err(GiveUp), "{text}");
        }
    }

    #[test]
    fn numbers_read_as_serde_json_reads_them_or_give_up() {
        for text in [
            "0",
            "-1",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "-0",
            "1.5",
            "1e21",
            "-2.5E-3",
            "100.0",
        ] {
            let mut r = Reader::new(text);
            let ours = r.number().unwrap();
            r.end().unwrap();
            let theirs: serde_json::Value = serde_json::from_str(text).unwrap();
            let theirs = if let Some(u) = theirs.as_u64() {
                Number::U(u)
            } else if let Some(i) = theirs.as_i64() {
                Number::I(i)
            } else {
                Number::F(theirs.as_f64().unwrap())
            };
            assert_eq!(ours, theirs, "{text}");
            if let Number::F(f) = ours {
                assert_eq!(f.is_sign_negative(), text.starts_with('-'), "{text}");
            }
        }
        for text in ["01", "-", "1.", "1e", "1e+", ".5", "1e400", "-x"] {
            let mut r = Reader::new(text);
            assert!(r.number().and_then(|_| r.end()).is_err(), "{text}");
        }
    }

    #[test]
    fn skipping_checks_what_serde_json_checks_for_each_kind_of_read() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        // (text, accepted when ignored, accepted when read whole)
        for (text, lenient, strict) in [
            (r#"{"a":[1,2,{"b":null}],"c":"d"}"#, true, true),
            (r#""\ud800""#, true, false),
            ("1e400", true, false),
            (deep.as_str(), true, false),
            ("[1,]", false, false),
            (r#"{"a" 1}"#, false, false),
            (r#"{"a":1,}"#, false, false),
            ("[01]", false, false),
            ("tru", false, false),
        ] {
            for (strict_read, expected) in [(false, lenient), (true, strict)] {
                let mut r = Reader::new(text);
                let ok = r.skip(strict_read, 0).and_then(|()| r.end()).is_ok();
                assert_eq!(ok, expected, "{text} strict={strict_read}");
                let theirs = if strict_read {
                    serde_json::from_str::<serde_json::Value>(text).is_ok()
                } else {
                    serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
                };
                assert_eq!(ok, theirs, "serde_json: {text} strict={strict_read}");
            }
        }
    }

    #[test]
    fn positions_count_lines_and_bytes_as_serde_json_does() {
        let r = Reader::new("{\n  \"a\": 1,\n  \"a\": 2\n}");
        assert_eq!(r.position(0), (1, 0));
        assert_eq!(r.position(5), (2, 3));
        assert_eq!(r.position(17), (3, 5));
    }
}
