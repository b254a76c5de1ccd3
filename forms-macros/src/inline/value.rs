//! Reading one value of the expected shape (a string, a boolean, an integer, a list) from an
//! entry, and running the literal through its rule.

use super::fields::{report, violation, Fields, Missing};
use super::ir::{Int, Slot, Str};
use super::parse::{Entry, Value};
use crate::ctxt::Ctxt;
use crate::wording;
use forms_rules::{Rule, Violation};
use proc_macro2::Span;

/// What reading a key gives: `Ok(None)` when it is absent, `Err(())` when it was wrong (the
/// error is recorded), else the value.
pub(crate) type Got<T> = Result<Option<T>, ()>;

fn wrong_shape(cx: &Ctxt, value: &Value, key: &str, expected: &str) {
    match value {
        Value::Invalid(_) => {}
        Value::Word(w) => cx.error_at(
            w.span(),
            format!(
                "`{key}` takes {expected}; to use the Rust value `{w}`, write it in braces: `{{{w}}}`"
            ),
        ),
        other => cx.error_at(
            other.span(),
            format!("`{key}` takes {expected}, found {}", other.describe()),
        ),
    }
}

/// A string value, literal or interpolated.
pub(crate) fn as_str(cx: &Ctxt, value: &Value, key: &str) -> Result<Slot<Str>, ()> {
    match value {
        Value::Str(s) => Ok(Slot::Lit(Str {
            value: s.value(),
            span: s.span(),
        })),
        Value::Interp(g) => Ok(Slot::Interp(g.clone())),
        other => {
            wrong_shape(
                cx,
                other,
                key,
                "a string literal or a run-time value `{expr}`",
            );
            Err(())
        }
    }
}

/// Drops what a rule returns on success, keeping only its verdict.
pub(crate) fn verdict<T>(r: Result<T, Violation>) -> Result<(), Violation> {
    r.map(|_| ())
}

/// Checks a literal string with `check`; the message names it as `subject` followed by the
/// value when it is short.
pub(crate) fn check_str(
    cx: &Ctxt,
    slot: Slot<Str>,
    subject: &str,
    check: impl FnOnce(&str) -> Result<(), Violation>,
) -> Result<Slot<Str>, ()> {
    if let Slot::Lit(s) = &slot {
        if let Err(v) = check(&s.value) {
            violation(cx, s.span, &wording::subject(subject, &s.value), v);
            return Err(());
        }
    }
    Ok(slot)
}

/// The string under `key`, checked with `check` when it is a literal.
pub(crate) fn string(
    cx: &Ctxt,
    f: &Fields<'_>,
    key: &'static str,
    subject: &str,
    check: impl FnOnce(&str) -> Result<(), Violation>,
) -> Got<Slot<Str>> {
    let Some(e) = f.take(key) else {
        return Ok(None);
    };
    let slot = as_str(cx, &e.value, key)?;
    check_str(cx, slot, subject, check).map(Some)
}

/// An integer under `key`: the literal (possibly negative) and its span, or an interpolation.
pub(crate) fn integer(cx: &Ctxt, e: &Entry, rule: Rule) -> Result<Slot<(i64, Span)>, ()> {
    match &e.value {
        Value::Int(i) => Ok(Slot::Lit((i.value, i.span))),
        Value::Interp(g) => Ok(Slot::Interp(g.clone())),
        other => {
            if !matches!(other, Value::Invalid(_)) {
                report(
                    cx,
                    other.span(),
                    format!("`{}` takes an integer, found {}", e.key, other.describe()),
                    Violation::new(
                        rule,
                        "write an integer literal or a run-time value `{expr}`",
                    ),
                );
            }
            Err(())
        }
    }
}

/// Turns a literal the rules accepted into an [`Int`].
pub(crate) fn to_int(slot: Slot<(i64, Span)>) -> Slot<Int> {
    match slot {
        Slot::Lit((value, span)) => Slot::Lit(Int {
            // The rules accepted it, so it is within 0–16,000.
            value: u32::try_from(value).unwrap_or(u32::MAX),
            span,
        }),
        Slot::Interp(g) => Slot::Interp(g),
    }
}

/// The `required` flag (R10): `true`, `false` or a run-time `bool`.
pub(crate) fn required(cx: &Ctxt, f: &Fields<'_>) -> Got<Slot<bool>> {
    let Some(e) = f.take("required") else {
        return Ok(None);
    };
    match &e.value {
        Value::Bool(b) => Ok(Some(Slot::Lit(b.value))),
        Value::Interp(g) => Ok(Some(Slot::Interp(g.clone()))),
        Value::Invalid(_) => Err(()),
        other => {
            report(
                cx,
                other.span(),
                format!(
                    "`required` takes `true` or `false`, found {}",
                    other.describe()
                ),
                Violation::new(Rule::R10, "it must be an explicit boolean"),
            );
            Err(())
        }
    }
}

/// Records that a mandatory key is missing from the object opened at `at.open`, unless a
/// misspelt key already explains it.
pub(crate) fn missing(cx: &Ctxt, at: &Missing, what: &str, key: &str, rule: Rule, why: &str) {
    if at.explained(key) {
        return;
    }
    report(
        cx,
        at.open,
        format!("{what} is missing `{key}`"),
        Violation::new(rule, why),
    );
}

/// A list under `key`: its items and where it was written, or one interpolation.
pub(crate) fn list<'v>(cx: &Ctxt, e: &'v Entry, expected: &str) -> Result<Slot<&'v [Value]>, ()> {
    match &e.value {
        Value::List(l) => Ok(Slot::Lit(&l.items)),
        Value::Interp(g) => Ok(Slot::Interp(g.clone())),
        other => {
            wrong_shape(cx, other, &e.key, expected);
            Err(())
        }
    }
}
