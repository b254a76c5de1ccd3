//! R7: the six question types.

use crate::{Rule, Violation};

/// The type of a question (R7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QuestionKind {
    /// Free text (`"text"`).
    Text,
    /// One choice option (`"single_select"`).
    SingleSelect,
    /// Several choice options (`"multi_select"`).
    MultiSelect,
    /// One offered resource (`"resource"`).
    Resource,
    /// Several offered resources (`"resources"`).
    Resources,
    /// Offered resources and files the user adds (`"files"`).
    Files,
}

impl QuestionKind {
    /// All six kinds, in the order the contract lists them.
    pub const ALL: [QuestionKind; 6] = [
        QuestionKind::Text,
        QuestionKind::SingleSelect,
        QuestionKind::MultiSelect,
        QuestionKind::Resource,
        QuestionKind::Resources,
        QuestionKind::Files,
    ];

    /// The contract's name for the kind (`"single_select"`).
    pub const fn as_str(self) -> &'static str {
        match self {
            QuestionKind::Text => "text",
            QuestionKind::SingleSelect => "single_select",
            QuestionKind::MultiSelect => "multi_select",
            QuestionKind::Resource => "resource",
            QuestionKind::Resources => "resources",
            QuestionKind::Files => "files",
        }
    }

    /// R7: the kind named `name`, or a violation listing the six names.
    pub fn parse(name: &str) -> Result<QuestionKind, Violation> {
        QuestionKind::ALL
            .into_iter()
            .find(|k| k.as_str() == name)
            .ok_or_else(|| {
                Violation::new(
                    Rule::R7,
                    "must be one of `text`, `single_select`, `multi_select`, `resource`, \
                     `resources`, `files`",
                )
            })
    }

    /// Whether the answer is an array (and the question may have selection limits, R17).
    pub const fn is_array(self) -> bool {
        matches!(
            self,
            QuestionKind::MultiSelect | QuestionKind::Resources | QuestionKind::Files
        )
    }

    /// Whether the question has choice options (`single_select`, `multi_select`).
    pub const fn has_choice_options(self) -> bool {
        matches!(self, QuestionKind::SingleSelect | QuestionKind::MultiSelect)
    }

    /// Whether the question has resource options (`resource`, `resources`, `files`).
    pub const fn has_resource_options(self) -> bool {
        matches!(
            self,
            QuestionKind::Resource | QuestionKind::Resources | QuestionKind::Files
        )
    }

    /// The least number of options the kind needs (R12–R16): 0 for `text` and `files`, else 1.
    pub const fn min_options(self) -> usize {
        match self {
            QuestionKind::Text | QuestionKind::Files => 0,
            _ => crate::limits::OPTIONS_MIN,
        }
    }

    /// The rule that governs answers to the kind (section "Answers"): V3 for `text`, V4 for
    /// `single_select` and `multi_select`, V5 for `resource`, V6 for `resources` and `files`.
    pub const fn answer_rule(self) -> Rule {
        match self {
            QuestionKind::Text => Rule::V3,
            QuestionKind::SingleSelect | QuestionKind::MultiSelect => Rule::V4,
            QuestionKind::Resource => Rule::V5,
            QuestionKind::Resources | QuestionKind::Files => Rule::V6,
        }
    }

    /// The rule that governs the kind's options.
    pub const fn options_rule(self) -> Rule {
        match self {
            QuestionKind::Text => Rule::R11,
            QuestionKind::SingleSelect => Rule::R12,
            QuestionKind::MultiSelect => Rule::R13,
            QuestionKind::Resource => Rule::R14,
            QuestionKind::Resources => Rule::R15,
            QuestionKind::Files => Rule::R16,
        }
    }
}

impl std::fmt::Display for QuestionKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
