//! The wording of compile errors, shared by `#[derive(Form)]` and `form!` so that the same
//! rule reads the same in both: `question id `_goal` must start with an ASCII letter; see rule
//! R6`. The problem itself always comes from the `forms_rules` [`Violation`] (for selection
//! limits, from `SelectionProblem::violation`, which spells the keys as the macro's user
//! writes them); this module only puts a subject in front of it and the rule after it.

use forms_rules::{QuestionKind, Rule, Violation};

/// Values longer than this many characters are not repeated in a message (the span already
/// shows them); the one limit for every value a message quotes.
const SHOWN_MAX: usize = forms_rules::SHOWN_CHARS_MAX;

/// Every field type `#[derive(Form)]` takes, in one sentence: the help of an unsupported
/// type. The same words are in `FormChoice`'s `on_unimplemented` note, the `Form` trait's
/// rustdoc and RULES.md (a unit test compares them).
pub(crate) const SUPPORTED_TYPES: &str = "a form field is `String` or `Option<String>` (text); \
    `E` or `Option<E>` (one choice), `Vec<E>`, `BTreeSet<E>` or `HashSet<E>` (several choices) \
    for a fieldless enum `E` deriving `Form`; `Url` or `Option<Url>` with `#[form(resource)]`; \
    `Vec<Url>` with `#[form(resources)]`; `Vec<FileRef>` with `#[form(files)]`";

/// `subject problem; see rule R6`, or `problem; see rule R6` when the subject is empty.
pub(crate) fn rule_sentence(subject: &str, v: &Violation) -> String {
    if subject.is_empty() {
        format!("{}; see rule {}", v.problem, v.rule)
    } else {
        format!("{subject} {}; see rule {}", v.problem, v.rule)
    }
}

/// A message complete in itself followed by the rule's reason:
/// `duplicate key `title` in a question: each key may appear only once; see rule R3`.
pub(crate) fn explained(head: &str, v: &Violation) -> String {
    format!("{head}: {}; see rule {}", v.problem, v.rule)
}

/// `what `value``: the value in backticks when it is short enough to repeat, not blank and
/// free of backticks; otherwise `what` alone.
pub(crate) fn subject(what: &str, value: &str) -> String {
    if value.trim().is_empty() || value.chars().count() > SHOWN_MAX || value.contains('`') {
        what.to_owned()
    } else {
        format!("{what} `{value}`")
    }
}

/// R5: `question id `goal` is already used by field `goal`; question ids must be unique in a
/// form; see rule R5`. `what` names the value (`question id`), `earlier` the item that has it
/// first, `scope` where it must be unique.
pub(crate) fn duplicate(what: &str, value: &str, earlier: &str, scope: &str) -> String {
    let v = Violation::new(
        Rule::R5,
        format!("is already used by {earlier}; {what}s must be unique in {scope}"),
    );
    rule_sentence(&subject(what, value), &v)
}

/// The known key that `key` probably stands for: the same key written in another case
/// convention (`max_length` for `maxLength` and the other way round), else the closest key
/// within a small edit distance (`title` for `titel`). `None` when nothing is close.
pub(crate) fn suggest<'k>(key: &str, keys: &[&'k str]) -> Option<&'k str> {
    let fold = |s: &str| -> Vec<char> {
        s.chars()
            .filter(|c| *c != '_' && *c != '-')
            .flat_map(char::to_lowercase)
            .collect()
    };
    let k = fold(key);
    if let Some(same) = keys.iter().copied().find(|known| fold(known) == k) {
        return Some(same);
    }
    // One edit per three characters, at most two: `id` is not suggested for `to`.
    let allowed = (k.len() / 3).clamp(1, 2);
    keys.iter()
        .copied()
        .map(|known| (edit_distance(&k, &fold(known)), known))
        .filter(|(d, _)| *d <= allowed)
        .min_by_key(|(d, _)| *d)
        .map(|(_, known)| known)
}

/// The optimal-string-alignment distance: insertions, deletions, substitutions and swaps of
/// two neighbours (`titel` → `title` is one edit) each cost one.
fn edit_distance(a: &[char], b: &[char]) -> usize {
    // Three rows of the classic table: two rows back (for swaps), the previous one, this one.
    let mut before: Vec<usize> = Vec::new();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut row = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            let mut best = (prev.get(j).copied().unwrap_or(usize::MAX) + cost)
                .min(prev.get(j + 1).copied().unwrap_or(usize::MAX) + 1)
                .min(row.get(j).copied().unwrap_or(usize::MAX) + 1);
            let swapped = i > 0 && j > 0 && a.get(i - 1) == Some(cb) && b.get(j - 1) == Some(ca);
            if swapped {
                if let Some(d) = before.get(j - 1) {
                    best = best.min(d + 1);
                }
            }
            if let Some(cell) = row.get_mut(j + 1) {
                *cell = best;
            }
        }
        before = std::mem::replace(&mut prev, row);
    }
    prev.last().copied().unwrap_or(0)
}

/// An unknown key: `unknown form attribute `titel` on a field; did you mean `title`?` when a
/// known key is close (`unknown key `titel` in a question (did you mean `title`?); see rule
/// R3` with a rule), else `…; expected one of `id`, …`. `what` names keys of this kind
/// (`form attribute`, `key`), `place` where it was written (`on a field`, `in a question`),
/// `rule` the contract rule that refuses it, if any (`form!` follows R3).
pub(crate) fn unknown_key(
    what: &str,
    key: &str,
    place: &str,
    keys: &[&str],
    rule: Option<Rule>,
) -> String {
    let rule = rule.map(|r| format!("; see rule {r}")).unwrap_or_default();
    match suggest(key, keys) {
        Some(k) if rule.is_empty() => {
            format!("unknown {what} `{key}` {place}; did you mean `{k}`?")
        }
        Some(k) => format!("unknown {what} `{key}` {place} (did you mean `{k}`?){rule}"),
        None => {
            let list = keys
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ");
            format!("unknown {what} `{key}` {place}; expected one of {list}{rule}")
        }
    }
}

/// A key written on a question whose type does not take it: `` `accept` applies only to
/// `files` questions, not to `resources` questions; see rule R22 ``.
pub(crate) fn applies_only(key: &str, owners: &str, kind: QuestionKind, rule: Rule) -> String {
    format!("`{key}` applies only to {owners}, not to `{kind}` questions; see rule {rule}")
}
