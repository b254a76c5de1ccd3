//! The wire view every surface prints (the `forms ask` commands and the `ask_*` MCP tools
//! alike): a request, a refusal, and how times and durations are read.
//!
//! A request is its serialized form plus `deadline`: the expiry as a time, or `null` when
//! there is none, so the wire's `9999-01-01T00:00:00Z` is never presented as a deadline. In
//! a list a request leaves out its form and saved host response ([`listed`]). A
//! refusal is `{"error":{"code","message"}}`, the code one of [`AskError::code`]'s (or a
//! surface's own: `invalid_arguments`, `unauthenticated`); a conflict or an expiry carries
//! `latest`, the request as it is now.
//!
//! ```
//! use forms_ask::wire;
//! let e = wire::refusal("invalid_arguments", "body: at most 16000 characters, got 16001");
//! assert_eq!(e["error"]["code"], "invalid_arguments");
//! ```

use crate::error::AskError;
use crate::model::{Listed, LogPage, Replaced, Request};
use crate::time::Timestamp;
use serde_json::{json, Value};
use std::time::Duration;

/// A request as every surface gives it: the wire form plus `deadline` (`null` when none).
pub fn request(r: &Request) -> Value {
    let mut v = serde_json::to_value(r).unwrap_or(Value::Null);
    if let Some(obj) = v.as_object_mut() {
        let deadline = r
            .expires_at
            .deadline()
            .map_or(Value::Null, |t| Value::String(t.to_string()));
        obj.insert("deadline".into(), deadline);
    }
    v
}

/// Several requests: `{"requests": [...]}`, each in its list form ([`listed`]).
pub fn requests(list: &[Listed]) -> Value {
    json!({ "requests": list.iter().map(listed).collect::<Vec<_>>() })
}

/// A request as a list gives it: [`request`] without the form and the saved host response
/// (each up to a mebibyte, so a list of hundreds would be a gigabyte; a list never reads
/// them); instead `has_form` says whether it carries a form, and `response_action` is the
/// saved response's action (`"accept"`, `"decline"` or `"cancel"`; `null` while unanswered
/// or without a form). Show and wait give the whole request.
pub fn listed(entry: &Listed) -> Value {
    let mut v = request(&entry.request);
    if let Some(obj) = v.as_object_mut() {
        obj.remove("form");
        obj.remove("response");
        obj.insert("has_form".into(), Value::Bool(entry.has_form));
        let action = entry
            .response_action
            .as_ref()
            .map_or(Value::Null, |a| Value::String(a.clone()));
        obj.insert("response_action".into(), action);
    }
    v
}

/// A page of an audit log: `{"events": [...], "next": CURSOR}`, `next` `null` on the last
/// page (else pass it as `after` for the next one).
pub fn log(page: &LogPage) -> Value {
    json!({ "events": page.events, "next": page.next })
}

/// A replacement: `{previous, replacement}`.
pub fn replaced(r: &Replaced) -> Value {
    json!({
        "previous": request(&r.previous),
        "replacement": request(&r.replacement),
    })
}

/// A refusal with a surface's own code.
pub fn refusal(code: &str, message: &str) -> Value {
    json!({"error": {"code": code, "message": message}})
}

/// An engine's refusal: its code and message, `latest` for a conflict or an expiry, and
/// for a refused form or host response its `findings`, each `{path, rule, problem}` (the
/// rule `null` when the input was not JSON at all).
pub fn error(e: &AskError) -> Value {
    let mut error = json!({ "code": e.code(), "message": e.to_string() });
    if let (Some(latest), Some(obj)) = (e.latest(), error.as_object_mut()) {
        obj.insert("latest".into(), request(latest));
    }
    if let (AskError::Form(form), Some(obj)) = (e, error.as_object_mut()) {
        let findings: Vec<Value> = form
            .findings()
            .iter()
            .map(|f| {
                json!({
                    "path": f.path.to_string(),
                    "rule": f.rule.map(|r| r.as_str()),
                    "problem": f.problem,
                })
            })
            .collect();
        obj.insert("findings".into(), Value::Array(findings));
    }
    json!({ "error": error })
}

/// Reads a time: RFC 3339 with `Z` or an offset (`2026-12-31T12:00:00+02:00`).
pub fn time(s: &str) -> Option<Timestamp> {
    Timestamp::parse(s)
}

/// Reads a duration: a whole number and a unit, `d`, `h`, `m` or `s` (`7d`, `36h`, `90m`).
pub fn duration(s: &str) -> Option<Duration> {
    let unit = s.chars().last()?;
    let secs_per = match unit {
        'd' => 86_400,
        'h' => 3_600,
        'm' => 60,
        's' => 1,
        _ => return None,
    };
    let number = s.get(..s.len().saturating_sub(1))?;
    if number.is_empty() || number.len() > 9 || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u64 = number.parse().ok()?;
    Some(Duration::from_secs(n.checked_mul(secs_per)?))
}

/// Reads an expiry as the CLI takes it: a time ([`time`]) or a duration from `now`
/// ([`duration`]). The engine then checks it lies within 90 days.
pub fn expiry(s: &str, now: Timestamp) -> Option<Timestamp> {
    time(s).or_else(|| duration(s).map(|d| now.plus(d)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_offsets() {
        assert_eq!(duration("7d"), Some(Duration::from_secs(7 * 86_400)));
        assert_eq!(duration("36h"), Some(Duration::from_secs(36 * 3_600)));
        assert_eq!(duration("90m"), Some(Duration::from_secs(90 * 60)));
        for bad in ["", "d", "7", "7w", "-1d", "1.5h", "99999999999d"] {
            assert_eq!(duration(bad), None, "{bad}");
        }
        assert_eq!(
            time("2026-12-31T14:00:00+02:00"),
            time("2026-12-31T12:00:00Z")
        );
        assert_eq!(
            time("2026-12-31T10:30:00-01:30"),
            time("2026-12-31T12:00:00Z")
        );
        assert_eq!(time("2026-12-31T12:00:00+24:00"), None);
        let now = time("2026-01-01T00:00:00Z").unwrap();
        assert_eq!(expiry("36h", now), time("2026-01-02T12:00:00Z"));
    }
}
