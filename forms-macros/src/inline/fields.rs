//! Strict objects (R3): each key at most once, unknown keys refused with the list of the
//! keys the object takes.

use super::parse::{Entry, Object};
use crate::ctxt::Ctxt;
use crate::wording;
use forms_rules::{LimitKeys, QuestionKind, Rule, SelectionProblem, Violation};
use proc_macro2::Span;
use std::cell::Cell;

/// The keys of one object, each taken at most once by the checker.
pub(crate) struct Fields<'a> {
    /// How the object is named in messages (`a question`).
    what: &'static str,
    /// The keys the object takes, in the contract's order.
    keys: &'static [&'static str],
    entries: Vec<(&'a Entry, Cell<bool>)>,
    /// The object's opening brace.
    pub(crate) open: Span,
    /// The known keys that unknown keys of the object probably stand for (`title` for
    /// `titel`): such a key is not also reported as missing.
    misspelt: Vec<&'static str>,
}

/// Where to report a missing key of an object, and which keys not to report.
pub(crate) struct Missing {
    /// The object's opening brace.
    pub(crate) open: Span,
    misspelt: Vec<&'static str>,
}

impl Missing {
    /// Whether a missing `key` is already explained by a misspelt key.
    pub(crate) fn explained(&self, key: &str) -> bool {
        self.misspelt.contains(&key)
    }
}

impl<'a> Fields<'a> {
    /// Collects the keys of `obj`, reporting every repeated key (R3).
    pub(crate) fn new(
        cx: &Ctxt,
        obj: &'a Object,
        what: &'static str,
        keys: &'static [&'static str],
    ) -> Self {
        let mut entries: Vec<(&'a Entry, Cell<bool>)> = Vec::new();
        for e in &obj.entries {
            if entries.iter().any(|(f, _)| f.key == e.key) {
                report(
                    cx,
                    e.key_span,
                    format!("duplicate key `{}` in {what}", e.key),
                    Violation::new(Rule::R3, "each key may appear only once"),
                );
            } else {
                entries.push((e, Cell::new(false)));
            }
        }
        let misspelt = entries
            .iter()
            .filter(|(e, _)| !keys.contains(&e.key.as_str()))
            .filter_map(|(e, _)| wording::suggest(&e.key, keys))
            .collect();
        Fields {
            what,
            keys,
            entries,
            open: obj.open,
            misspelt,
        }
    }

    /// The entry for `key`, marking it as understood.
    pub(crate) fn take(&self, key: &str) -> Option<&'a Entry> {
        self.entries
            .iter()
            .find(|(e, _)| e.key == key)
            .map(|(e, used)| {
                used.set(true);
                *e
            })
    }

    /// Where to report a missing key, before the object is finished.
    pub(crate) fn missing(&self) -> Missing {
        Missing {
            open: self.open,
            misspelt: self.misspelt.clone(),
        }
    }

    /// Reports every key nobody took: `default` and the other preselection keys under R21,
    /// anything else under R3. Returns where to report a missing key.
    pub(crate) fn finish(self, cx: &Ctxt) -> Missing {
        for (e, used) in &self.entries {
            if used.get() {
                continue;
            }
            if let Some(v) = forms_rules::check_preselection_key(&e.key) {
                violation(cx, e.key_span, &format!("`{}`", e.key), v);
                continue;
            }
            cx.error_at(
                e.key_span,
                wording::unknown_key(
                    "key",
                    &e.key,
                    &format!("in {}", self.what),
                    self.keys,
                    Some(Rule::R3),
                ),
            );
        }
        self.missing()
    }
}

/// Records `subject` + the violation's problem, worded like rustc:
/// `question id `9x` must start with an ASCII letter; see rule R6`.
pub(crate) fn violation(cx: &Ctxt, span: Span, subject: &str, v: Violation) {
    cx.error_at(span, wording::rule_sentence(subject, &v));
}

/// Records a selection-limit problem, worded by the rules crate with `form!`'s keys as a whole
/// sentence (`` `minItems` must be at least 1 when the question is required; see rule R18 ``).
pub(crate) fn sentence(cx: &Ctxt, span: Span, kind: QuestionKind, p: SelectionProblem) {
    let v = p.violation(kind, LimitKeys::Inline);
    cx.error_at(span, wording::rule_sentence("", &v));
}

/// Records a message that is complete in itself, with its rule:
/// `duplicate key `title` in a question: each key may appear only once; see rule R3`.
pub(crate) fn report(cx: &Ctxt, span: Span, head: String, v: Violation) {
    cx.error_at(span, wording::explained(&head, &v));
}
