//! The wording of compile errors, shared by `#[derive(Form)]` and `form!` so that the same
//! rule reads the same in both: `question id `_goal` must start with an ASCII letter; see rule
//! R6`. The problem itself always comes from the `forms_rules` [`Violation`]; this module only
//! puts a subject in front of it and the rule after it.

use forms_rules::{QuestionKind, Rule, Violation};

/// Values longer than this are not repeated in a message (the span already shows them).
const SHOWN_MAX: usize = 40;

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

/// The selection-limit keys of a rules-crate problem written as the user writes them, in
/// backticks: `min_items` / `max_items` for the derive, `minItems` / `maxItems` for `form!`.
pub(crate) fn limit_names(v: Violation, min: &str, max: &str) -> Violation {
    Violation {
        rule: v.rule,
        problem: v
            .problem
            .replace("minItems", &format!("`{min}`"))
            .replace("maxItems", &format!("`{max}`")),
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

/// The known key that `key` probably stands for, ignoring case, `_` and `-` (`max_length`
/// for `maxLength` and the other way round).
fn suggest<'k>(key: &str, keys: &[&'k str]) -> Option<&'k str> {
    let fold = |s: &str| -> String {
        s.chars()
            .filter(|c| *c != '_' && *c != '-')
            .flat_map(char::to_lowercase)
            .collect()
    };
    let k = fold(key);
    keys.iter().copied().find(|known| fold(known) == k)
}

/// An unknown key: `unknown form attribute `maxItems` on a field (did you mean `max_items`?);
/// expected one of `id`, …`. `what` names keys of this kind (`form attribute`, `key`),
/// `place` where it was written (`on a field`, `in a question`).
pub(crate) fn unknown_key(what: &str, key: &str, place: &str, keys: &[&str]) -> String {
    let list = keys
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let hint = match suggest(key, keys) {
        Some(k) => format!(" (did you mean `{k}`?)"),
        None => String::new(),
    };
    format!("unknown {what} `{key}` {place}{hint}; expected one of {list}")
}

/// A key written on a question whose type does not take it: `` `accept` applies only to
/// `files` questions, not to `resources` questions; see rule R22 ``.
pub(crate) fn applies_only(key: &str, owners: &str, kind: QuestionKind, rule: Rule) -> String {
    format!("`{key}` applies only to {owners}, not to `{kind}` questions; see rule {rule}")
}
