//! Time: millisecond UTC timestamps written as RFC 3339, the wire's "no expiry", and the
//! injectable clock the engine reads.

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A point in time: milliseconds since 1970-01-01T00:00:00Z, written as RFC 3339 in UTC
/// (`2026-12-01T21:30:00Z`, with `.mmm` when the milliseconds are not zero).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(i64);

const MS_PER_DAY: i64 = 86_400_000;

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day count since 1970-01-01 (H. Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

impl Timestamp {
    /// From milliseconds since the Unix epoch.
    pub const fn from_millis(ms: i64) -> Self {
        Timestamp(ms)
    }

    /// Milliseconds since the Unix epoch.
    pub const fn millis(self) -> i64 {
        self.0
    }

    /// This time plus `d` (saturating).
    pub fn plus(self, d: Duration) -> Self {
        let ms = i64::try_from(d.as_millis()).unwrap_or(i64::MAX);
        Timestamp(self.0.saturating_add(ms))
    }

    /// This time minus `d` (saturating).
    pub fn minus(self, d: Duration) -> Self {
        let ms = i64::try_from(d.as_millis()).unwrap_or(i64::MAX);
        Timestamp(self.0.saturating_sub(ms))
    }

    /// Reads RFC 3339 (`YYYY-MM-DDTHH:MM:SS[.fff]` then `Z` or an offset such as `+02:00`),
    /// as JSON Schema's `date-time` format advertises it; the time is kept in UTC.
    pub fn parse(s: &str) -> Option<Timestamp> {
        let (s, offset_minutes) = split_offset(s)?;
        let (date, time) = s.split_once(['T', 't'])?;
        let num = |part: &str, len: usize| -> Option<i64> {
            if part.len() == len && part.bytes().all(|b| b.is_ascii_digit()) {
                part.parse().ok()
            } else {
                None
            }
        };
        let mut d = date.split('-');
        let (y, m, day) = (num(d.next()?, 4)?, num(d.next()?, 2)?, num(d.next()?, 2)?);
        if d.next().is_some() || !(1..=12).contains(&m) || !(1..=31).contains(&day) {
            return None;
        }
        let (hms, frac) = match time.split_once('.') {
            Some((hms, frac)) => (hms, Some(frac)),
            None => (time, None),
        };
        let mut t = hms.split(':');
        let (h, mi, sec) = (num(t.next()?, 2)?, num(t.next()?, 2)?, num(t.next()?, 2)?);
        if t.next().is_some() || h > 23 || mi > 59 || sec > 59 {
            return None;
        }
        let ms = match frac {
            None => 0,
            Some(f) if !f.is_empty() && f.len() <= 9 && f.bytes().all(|b| b.is_ascii_digit()) => {
                let padded = format!("{f:0<3}");
                padded.get(..3)?.parse::<i64>().ok()?
            }
            Some(_) => return None,
        };
        let days = days_from_civil(y, m, day);
        if civil_from_days(days) != (y, m, day) {
            return None; // 2026-02-30 and the like
        }
        Some(Timestamp(
            days * MS_PER_DAY + ((h * 60 + mi) * 60 + sec) * 1000 + ms - offset_minutes * 60_000,
        ))
    }
}

/// Splits a timestamp's zone off: `Z` (offset 0) or `±HH:MM`, in minutes east of UTC.
fn split_offset(s: &str) -> Option<(&str, i64)> {
    if let Some(rest) = s.strip_suffix('Z').or_else(|| s.strip_suffix('z')) {
        return Some((rest, 0));
    }
    let at = s.len().checked_sub(6)?;
    let (rest, zone) = (s.get(..at)?, s.get(at..)?);
    let bytes = zone.as_bytes();
    let sign = match bytes.first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let digits = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = zone.get(r)?;
        if part.bytes().all(|b| b.is_ascii_digit()) {
            part.parse().ok()
        } else {
            None
        }
    };
    if bytes.get(3) != Some(&b':') {
        return None;
    }
    let (h, m) = (digits(1..3)?, digits(4..6)?);
    if h > 23 || m > 59 {
        return None;
    }
    Some((rest, sign * (h * 60 + m)))
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let days = self.0.div_euclid(MS_PER_DAY);
        let rest = self.0.rem_euclid(MS_PER_DAY);
        let (y, m, d) = civil_from_days(days);
        let (secs, ms) = (rest / 1000, rest % 1000);
        write!(
            f,
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
            secs / 3600,
            secs / 60 % 60,
            secs % 60
        )?;
        if ms != 0 {
            write!(f, ".{ms:03}")?;
        }
        f.write_str("Z")
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Timestamp::parse(&s)
            .ok_or_else(|| de::Error::custom(format!("not an RFC 3339 timestamp: {s:?}")))
    }
}

/// The wire's "no expiry": existing timestamp parsers read it, and nothing presents it as a
/// deadline.
pub const NO_EXPIRY_WIRE: &str = "9999-01-01T00:00:00Z";

/// When a request expires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Expiry {
    /// Never: ordinary requests have no implicit deadline. `9999-01-01T00:00:00Z` on the wire.
    Never,
    /// At this time.
    At(Timestamp),
}

impl Expiry {
    /// Whether the request is past its expiry at `now`.
    pub fn is_past(self, now: Timestamp) -> bool {
        matches!(self, Expiry::At(t) if now >= t)
    }

    /// The deadline, if there is one.
    pub fn deadline(self) -> Option<Timestamp> {
        match self {
            Expiry::Never => None,
            Expiry::At(t) => Some(t),
        }
    }

    /// The wire form: the timestamp, or `9999-01-01T00:00:00Z` for none.
    pub fn wire(self) -> String {
        match self {
            Expiry::Never => NO_EXPIRY_WIRE.to_owned(),
            Expiry::At(t) => t.to_string(),
        }
    }
}

impl fmt::Display for Expiry {
    /// For people: `no deadline`, or the deadline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expiry::Never => f.write_str("no deadline"),
            Expiry::At(t) => t.fmt(f),
        }
    }
}

impl Serialize for Expiry {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.wire())
    }
}

impl<'de> Deserialize<'de> for Expiry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if s == NO_EXPIRY_WIRE {
            return Ok(Expiry::Never);
        }
        Timestamp::parse(&s)
            .map(Expiry::At)
            .ok_or_else(|| de::Error::custom(format!("not an RFC 3339 timestamp: {s:?}")))
    }
}

/// Where the engine reads the time from.
pub trait Clock: Send + Sync {
    /// The current time.
    fn now(&self) -> Timestamp;
}

/// The system's wall clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        let ms = match SystemTime::now().duration_since(UNIX_EPOCH) {
            Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
            Err(e) => -i64::try_from(e.duration().as_millis()).unwrap_or(i64::MAX),
        };
        Timestamp(ms)
    }
}

/// A clock that moves only when told to: for tests of expiry and of a clock that jumps back.
#[derive(Debug, Default)]
pub struct ManualClock(AtomicI64);

impl ManualClock {
    /// A clock standing at `t`.
    pub fn at(t: Timestamp) -> Self {
        ManualClock(AtomicI64::new(t.0))
    }

    /// Sets the time, forwards or backwards.
    pub fn set(&self, t: Timestamp) {
        self.0.store(t.0, Ordering::SeqCst);
    }

    /// Moves the time forward by `d`.
    pub fn advance(&self, d: Duration) {
        let ms = i64::try_from(d.as_millis()).unwrap_or(i64::MAX);
        self.0.fetch_add(ms, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        Timestamp(self.0.load(Ordering::SeqCst))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_round_trips() {
        for s in [
            "1970-01-01T00:00:00Z",
            "2026-12-01T21:30:05.123Z",
            "2000-02-29T23:59:59Z",
            NO_EXPIRY_WIRE,
            "1969-12-31T23:59:59.999Z",
        ] {
            let t = Timestamp::parse(s).unwrap();
            assert_eq!(t.to_string(), s);
        }
        assert_eq!(
            Timestamp::parse("1970-01-01T00:00:01Z").unwrap().millis(),
            1000
        );
        for bad in [
            "2026-02-30T00:00:00Z",
            "2026-1-01T00:00:00Z",
            "2026-01-01 00:00:00",
            "x",
        ] {
            assert_eq!(Timestamp::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn expiry_never_is_the_wire_sentinel_but_no_deadline() {
        assert_eq!(Expiry::Never.wire(), "9999-01-01T00:00:00Z");
        assert_eq!(Expiry::Never.to_string(), "no deadline");
        assert_eq!(
            serde_json::to_string(&Expiry::Never).unwrap(),
            "\"9999-01-01T00:00:00Z\""
        );
        let back: Expiry = serde_json::from_str("\"9999-01-01T00:00:00Z\"").unwrap();
        assert_eq!(back, Expiry::Never);
    }
}
