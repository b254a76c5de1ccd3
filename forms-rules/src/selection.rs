//! R12–R20: option counts and selection limits.
//!
//! The core checks are `const fn`s so that the derive can check limits that cross types (a
//! `Vec<E>` field's `max_items` against the option count of the enum `E`) in a const assertion,
//! with the same code the runtime runs.

use crate::{limits, QuestionKind, Rule, Violation};

/// Selection limits with their defaults filled in (R18, R19).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SelectionLimits {
    /// The least number of items an answer may hold.
    pub min_items: u32,
    /// The most items an answer may hold.
    pub max_items: u32,
}

/// What can be wrong with a question's options or selection limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SelectionProblem {
    /// R12–R16: too few options for the kind.
    TooFewOptions,
    /// R12–R16: more than 24 options.
    TooManyOptions,
    /// R17: `minItems` or `maxItems` on a kind without selection limits.
    LimitsNotAllowed,
    /// R18: `minItems` outside 0–24.
    MinOutOfRange,
    /// R18: a required question with `minItems: 0`.
    RequiredMinZero,
    /// R19: `maxItems` outside 1–24.
    MaxOutOfRange,
    /// R20: `minItems` greater than `maxItems`.
    MinAboveMax,
    /// R20: a bound of a `multi_select` or `resources` question above its option count.
    AboveOptionCount,
}

impl SelectionProblem {
    /// The rule the problem breaks.
    pub const fn rule(self, kind: QuestionKind) -> Rule {
        match self {
            SelectionProblem::TooFewOptions | SelectionProblem::TooManyOptions => {
                kind.options_rule()
            }
            SelectionProblem::LimitsNotAllowed => Rule::R17,
            SelectionProblem::MinOutOfRange | SelectionProblem::RequiredMinZero => Rule::R18,
            SelectionProblem::MaxOutOfRange => Rule::R19,
            SelectionProblem::MinAboveMax | SelectionProblem::AboveOptionCount => Rule::R20,
        }
    }

    /// A fixed description of the problem, usable in a const assertion.
    pub const fn describe(self) -> &'static str {
        match self {
            SelectionProblem::TooFewOptions => "the question needs at least one option (R12-R15)",
            SelectionProblem::TooManyOptions => "a question has at most 24 options (R12-R16)",
            SelectionProblem::LimitsNotAllowed => {
                "selection limits apply only to multi_select, resources and files (R17)"
            }
            SelectionProblem::MinOutOfRange => "min_items must be an integer from 0 to 24 (R18)",
            SelectionProblem::RequiredMinZero => {
                "a required array question cannot have min_items = 0 (R18)"
            }
            SelectionProblem::MaxOutOfRange => "max_items must be an integer from 1 to 24 (R19)",
            SelectionProblem::MinAboveMax => "min_items must not exceed max_items (R20)",
            SelectionProblem::AboveOptionCount => {
                "selection limits must not exceed the number of options (R20)"
            }
        }
    }
}

/// R12–R16 as a const fn: `None` when `count` options suit `kind`.
pub const fn option_count_problem(kind: QuestionKind, count: usize) -> Option<SelectionProblem> {
    if count < kind.min_options() {
        Some(SelectionProblem::TooFewOptions)
    } else if count > limits::OPTIONS_MAX {
        Some(SelectionProblem::TooManyOptions)
    } else {
        None
    }
}

/// R12–R16: `count` options suit `kind` (`text` questions have none and are not checked).
pub fn check_option_count(kind: QuestionKind, count: usize) -> Result<(), Violation> {
    match option_count_problem(kind, count) {
        None => Ok(()),
        Some(SelectionProblem::TooFewOptions) => Err(Violation::new(
            kind.options_rule(),
            format!("must have at least {} option", kind.min_options()),
        )),
        Some(p) => Err(Violation::new(
            p.rule(kind),
            format!(
                "must have at most {} options, found {count}",
                limits::OPTIONS_MAX
            ),
        )),
    }
}

/// R17–R20 as a const fn: the limits with defaults filled in, or the first problem.
///
/// `option_count` is the number of offered options; for `files` it does not bound the limits,
/// since the user may add files of their own.
pub const fn resolve_selection_limits(
    kind: QuestionKind,
    required: bool,
    min_items: Option<i64>,
    max_items: Option<i64>,
    option_count: usize,
) -> Result<SelectionLimits, SelectionProblem> {
    if !kind.is_array() {
        return if min_items.is_some() || max_items.is_some() {
            Err(SelectionProblem::LimitsNotAllowed)
        } else {
            Ok(SelectionLimits {
                min_items: 0,
                max_items: 0,
            })
        };
    }
    let min = match min_items {
        Some(m) if m < 0 || m > limits::ITEMS_MAX as i64 => {
            return Err(SelectionProblem::MinOutOfRange)
        }
        Some(0) if required => return Err(SelectionProblem::RequiredMinZero),
        Some(m) => m as u32,
        None => required as u32,
    };
    let bounded = !matches!(kind, QuestionKind::Files);
    let max = match max_items {
        Some(m) if m < limits::MAX_ITEMS_MIN as i64 || m > limits::ITEMS_MAX as i64 => {
            return Err(SelectionProblem::MaxOutOfRange)
        }
        Some(m) => m as u32,
        None if bounded => {
            if option_count > limits::ITEMS_MAX as usize {
                limits::ITEMS_MAX
            } else {
                option_count as u32
            }
        }
        None => limits::ITEMS_MAX,
    };
    if bounded && (min as usize > option_count || max as usize > option_count) {
        return Err(SelectionProblem::AboveOptionCount);
    }
    if min > max {
        return Err(SelectionProblem::MinAboveMax);
    }
    Ok(SelectionLimits {
        min_items: min,
        max_items: max,
    })
}

/// R17–R20: checks a question's `minItems` / `maxItems` and fills in their defaults.
pub fn check_selection_limits(
    kind: QuestionKind,
    required: bool,
    min_items: Option<i64>,
    max_items: Option<i64>,
    option_count: usize,
) -> Result<SelectionLimits, Violation> {
    resolve_selection_limits(kind, required, min_items, max_items, option_count).map_err(|p| {
        let problem = match p {
            SelectionProblem::LimitsNotAllowed => format!(
                "`{kind}` questions take no minItems or maxItems; selection limits apply only \
                 to multi_select, resources and files"
            ),
            SelectionProblem::MinOutOfRange => format!(
                "minItems must be an integer from 0 to {}, found {}",
                limits::ITEMS_MAX,
                min_items.unwrap_or_default()
            ),
            SelectionProblem::RequiredMinZero => {
                "minItems must be at least 1 when the question is required".to_owned()
            }
            SelectionProblem::MaxOutOfRange => format!(
                "maxItems must be an integer from {} to {}, found {}",
                limits::MAX_ITEMS_MIN,
                limits::ITEMS_MAX,
                max_items.unwrap_or_default()
            ),
            SelectionProblem::MinAboveMax => {
                let max = match max_items {
                    Some(m) => m.to_string(),
                    None => format!("the default {}", limits::ITEMS_MAX.min(option_count as u32)),
                };
                format!(
                    "minItems ({}) must not exceed maxItems ({max})",
                    min_items.unwrap_or(i64::from(required))
                )
            }
            SelectionProblem::AboveOptionCount => format!(
                "minItems and maxItems must not exceed the {option_count} {} offered",
                if option_count == 1 {
                    "option"
                } else {
                    "options"
                }
            ),
            SelectionProblem::TooFewOptions | SelectionProblem::TooManyOptions => {
                p.describe().to_owned()
            }
        };
        Violation::new(p.rule(kind), problem)
    })
}

/// V4 and V6 with V7: the number of items in an answer to an array question of `kind`, against
/// its resolved `limits`. An optional question may be answered with an empty array whatever
/// its `minItems` (V7).
///
/// ```
/// use forms_rules::{check_answer_count, QuestionKind, SelectionLimits};
/// let limits = SelectionLimits { min_items: 2, max_items: 3 };
/// assert!(check_answer_count(QuestionKind::MultiSelect, 3, limits, true).is_ok());
/// assert!(check_answer_count(QuestionKind::MultiSelect, 0, limits, false).is_ok());
/// let v = check_answer_count(QuestionKind::Resources, 4, limits, false).unwrap_err();
/// assert_eq!(v.to_string(), "must have at most 3 items, found 4 (V6)");
/// ```
pub fn check_answer_count(
    kind: QuestionKind,
    count: usize,
    limits: SelectionLimits,
    required: bool,
) -> Result<(), Violation> {
    fn items(n: u32) -> String {
        if n == 1 {
            "1 item".to_owned()
        } else {
            format!("{n} items")
        }
    }
    let (min, max) = (limits.min_items, limits.max_items);
    let skipped = count == 0 && !required;
    let (bound, n) = if count > max as usize {
        ("at most", max)
    } else if count < min as usize && !skipped {
        ("at least", min)
    } else {
        return Ok(());
    };
    Err(Violation::new(
        kind.answer_rule(),
        format!("must have {bound} {}, found {count}", items(n)),
    ))
}
