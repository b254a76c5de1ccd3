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

/// One of a question's two selection limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// `minItems`: the least number of items an answer may hold.
    Min,
    /// `maxItems`: the most items an answer may hold.
    Max,
}

/// How a message spells the selection-limit keys: the way the reader wrote them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitKeys {
    /// The Data JSON keys as the runtime reports them: `minItems must …`.
    Data,
    /// The Data keys in backticks, as `form!` reports them: ``` `minItems` must …```.
    Inline,
    /// The derive's attribute keys in backticks: ``` `min_items` must …```.
    Attribute,
}

impl LimitKeys {
    /// The key of `limit` as a message writes it.
    pub const fn name(self, limit: Limit) -> &'static str {
        match (self, limit) {
            (LimitKeys::Data, Limit::Min) => "minItems",
            (LimitKeys::Data, Limit::Max) => "maxItems",
            (LimitKeys::Inline, Limit::Min) => "`minItems`",
            (LimitKeys::Inline, Limit::Max) => "`maxItems`",
            (LimitKeys::Attribute, Limit::Min) => "`min_items`",
            (LimitKeys::Attribute, Limit::Max) => "`max_items`",
        }
    }
}

/// The options a selection limit is measured against, as a message names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Options<'a> {
    /// A known number of offered options: "the 2 options offered".
    Offered(usize),
    /// The options of a choice type, counted where that type is declared (the derive checks
    /// a `Vec<Format>` field's limits against `Format`'s variants): "the number of options of
    /// `Format`".
    OfType(&'a str),
}

/// What can be wrong with a question's options or selection limits, with the values that
/// make it wrong. [`SelectionProblem::violation`] words it, the one wording used by the
/// derive, `form!` and the runtime; [`SelectionProblem::limit`] names the limit to point at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SelectionProblem {
    /// R12–R16: fewer options than the kind needs.
    TooFewOptions {
        /// The least number of options of the kind.
        least: usize,
    },
    /// R12–R16: more than 24 options.
    TooManyOptions {
        /// The number of options given.
        found: usize,
    },
    /// R17: `minItems` or `maxItems` on a kind without selection limits.
    LimitsNotAllowed,
    /// R18: `minItems` outside 0–24.
    MinOutOfRange {
        /// The `minItems` given.
        found: i64,
    },
    /// R18: a required question with `minItems: 0`.
    RequiredMinZero,
    /// R19: `maxItems` outside 1–24.
    MaxOutOfRange {
        /// The `maxItems` given.
        found: i64,
    },
    /// R20: `minItems` greater than `maxItems`.
    MinAboveMax {
        /// `minItems`, given or by default.
        min: u32,
        /// `maxItems`, given or by default.
        max: u32,
        /// Whether `maxItems` was given (else `max` is its default).
        max_given: bool,
    },
    /// R20: a bound of a `multi_select` or `resources` question above its option count. Each
    /// bound is `Some` when it is the one above the count.
    AboveOptionCount {
        /// `minItems`, when it exceeds the count.
        min: Option<u32>,
        /// `maxItems`, when it exceeds the count.
        max: Option<u32>,
        /// The number of options offered.
        options: usize,
    },
}

impl SelectionProblem {
    /// The rule the problem breaks.
    pub const fn rule(self, kind: QuestionKind) -> Rule {
        match self {
            SelectionProblem::TooFewOptions { .. } | SelectionProblem::TooManyOptions { .. } => {
                kind.options_rule()
            }
            SelectionProblem::LimitsNotAllowed => Rule::R17,
            SelectionProblem::MinOutOfRange { .. } | SelectionProblem::RequiredMinZero => Rule::R18,
            SelectionProblem::MaxOutOfRange { .. } => Rule::R19,
            SelectionProblem::MinAboveMax { .. } | SelectionProblem::AboveOptionCount { .. } => {
                Rule::R20
            }
        }
    }

    /// The limit a report points at: the one out of range, the one above the option count
    /// (`maxItems` when both are), or for `minItems > maxItems` the `maxItems` given.
    /// `None` when the problem is not about one limit (the options, or R17, which is about
    /// the keys being there at all).
    pub const fn limit(self) -> Option<Limit> {
        match self {
            SelectionProblem::MinOutOfRange { .. } | SelectionProblem::RequiredMinZero => {
                Some(Limit::Min)
            }
            SelectionProblem::MaxOutOfRange { .. } => Some(Limit::Max),
            SelectionProblem::AboveOptionCount { max: Some(_), .. } => Some(Limit::Max),
            SelectionProblem::AboveOptionCount { .. } => Some(Limit::Min),
            SelectionProblem::MinAboveMax { max_given, .. } => {
                if max_given {
                    Some(Limit::Max)
                } else {
                    Some(Limit::Min)
                }
            }
            SelectionProblem::TooFewOptions { .. }
            | SelectionProblem::TooManyOptions { .. }
            | SelectionProblem::LimitsNotAllowed => None,
        }
    }

    /// The problem as a phrase that follows the question it is about (see [`Violation`]),
    /// with the limit keys spelt as `keys` says: ``` `min_items` (3) must not exceed
    /// `max_items` (2)``` for the derive, `minItems (3) must not exceed maxItems (2)` for
    /// the runtime.
    pub fn problem(self, kind: QuestionKind, keys: LimitKeys) -> String {
        let (min_key, max_key) = (keys.name(Limit::Min), keys.name(Limit::Max));
        match self {
            SelectionProblem::TooFewOptions { least } => {
                format!("must have at least {least} {}", plural(least, "option"))
            }
            SelectionProblem::TooManyOptions { found } => format!(
                "must have at most {} options, found {found}",
                limits::OPTIONS_MAX
            ),
            SelectionProblem::LimitsNotAllowed => format!(
                "`{kind}` questions take no {min_key} or {max_key}; selection limits apply \
                 only to multi_select, resources and files"
            ),
            SelectionProblem::MinOutOfRange { found } => format!(
                "{min_key} must be an integer from 0 to {}, found {found}",
                limits::ITEMS_MAX
            ),
            SelectionProblem::RequiredMinZero => {
                format!("{min_key} must be at least 1 when the question is required")
            }
            SelectionProblem::MaxOutOfRange { found } => format!(
                "{max_key} must be an integer from {} to {}, found {found}",
                limits::MAX_ITEMS_MIN,
                limits::ITEMS_MAX
            ),
            SelectionProblem::MinAboveMax {
                min,
                max,
                max_given,
            } => {
                let max = if max_given {
                    max.to_string()
                } else {
                    format!("the default {max}")
                };
                format!("{min_key} ({min}) must not exceed {max_key} ({max})")
            }
            SelectionProblem::AboveOptionCount { min, max, options } => {
                bounds_above_options(min, max, keys, "", Options::Offered(options))
            }
        }
    }

    /// The problem as a [`Violation`] of its rule, worded by [`SelectionProblem::problem`].
    pub fn violation(self, kind: QuestionKind, keys: LimitKeys) -> Violation {
        Violation::new(self.rule(kind), self.problem(kind, keys))
    }
}

/// `1 option`, `2 options`.
fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        what.to_owned()
    } else {
        format!("{what}s")
    }
}

/// R20's sentence for limits above the option count: ``` `maxItems` (3) must not exceed the
/// 2 options offered```. `min` and `max` are the limits above the count (at least one is
/// `Some`); `owner`, when not empty, follows them (`of question `formats``).
///
/// ```
/// use forms_rules::{bounds_above_options, LimitKeys, Options};
/// assert_eq!(
///     bounds_above_options(None, Some(3), LimitKeys::Data, "", Options::Offered(2)),
///     "maxItems (3) must not exceed the 2 options offered"
/// );
/// assert_eq!(
///     bounds_above_options(
///         Some(5),
///         Some(5),
///         LimitKeys::Attribute,
///         "of question `formats`",
///         Options::OfType("Format"),
///     ),
///     "`min_items` (5) and `max_items` (5) of question `formats` must not exceed the number \
///      of options of `Format`"
/// );
/// ```
pub fn bounds_above_options(
    min: Option<u32>,
    max: Option<u32>,
    keys: LimitKeys,
    owner: &str,
    options: Options<'_>,
) -> String {
    let bounds: Vec<String> = [(Limit::Min, min), (Limit::Max, max)]
        .into_iter()
        .filter_map(|(limit, n)| n.map(|n| format!("{} ({n})", keys.name(limit))))
        .collect();
    let options = match options {
        Options::Offered(n) => format!("the {n} {} offered", plural(n, "option")),
        Options::OfType(name) => format!("the number of options of `{name}`"),
    };
    let owner = if owner.is_empty() {
        String::new()
    } else {
        format!(" {owner}")
    };
    format!("{}{owner} must not exceed {options}", bounds.join(" and "))
}

/// R12–R16 as a const fn: `None` when `count` options suit `kind`.
pub const fn option_count_problem(kind: QuestionKind, count: usize) -> Option<SelectionProblem> {
    if count < kind.min_options() {
        Some(SelectionProblem::TooFewOptions {
            least: kind.min_options(),
        })
    } else if count > limits::OPTIONS_MAX {
        Some(SelectionProblem::TooManyOptions { found: count })
    } else {
        None
    }
}

/// R12–R16: `count` options suit `kind` (`text` questions have none and are not checked).
pub fn check_option_count(kind: QuestionKind, count: usize) -> Result<(), Violation> {
    match option_count_problem(kind, count) {
        None => Ok(()),
        // The option count has no keys to spell.
        Some(p) => Err(p.violation(kind, LimitKeys::Data)),
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
            return Err(SelectionProblem::MinOutOfRange { found: m })
        }
        Some(0) if required => return Err(SelectionProblem::RequiredMinZero),
        Some(m) => m as u32,
        None => required as u32,
    };
    let bounded = !matches!(kind, QuestionKind::Files);
    let max = match max_items {
        Some(m) if m < limits::MAX_ITEMS_MIN as i64 || m > limits::ITEMS_MAX as i64 => {
            return Err(SelectionProblem::MaxOutOfRange { found: m })
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
        return Err(SelectionProblem::AboveOptionCount {
            min: if min as usize > option_count {
                Some(min)
            } else {
                None
            },
            max: if max as usize > option_count {
                Some(max)
            } else {
                None
            },
            options: option_count,
        });
    }
    if min > max {
        return Err(SelectionProblem::MinAboveMax {
            min,
            max,
            max_given: max_items.is_some(),
        });
    }
    Ok(SelectionLimits {
        min_items: min,
        max_items: max,
    })
}

/// R17–R20: checks a question's `minItems` / `maxItems` and fills in their defaults; a problem
/// is worded with the Data keys (`minItems`), as the runtime reports it.
pub fn check_selection_limits(
    kind: QuestionKind,
    required: bool,
    min_items: Option<i64>,
    max_items: Option<i64>,
    option_count: usize,
) -> Result<SelectionLimits, Violation> {
    resolve_selection_limits(kind, required, min_items, max_items, option_count)
        .map_err(|p| p.violation(kind, LimitKeys::Data))
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
