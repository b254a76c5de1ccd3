//! The Data contract's model: what a form is made of, before validation.
//!
//! These are plain values with public fields, built by hand, by the derive, or by
//! [`DataForm::from_json`](crate::DataForm::from_json). Nothing reaches the native compiler or
//! the answer checker until [`DataForm::new`](crate::DataForm::new) has validated it.

use forms_rules::QuestionKind;

/// A form before validation: the model-facing `{message, questions}` arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormSpec {
    /// The short form header (R1).
    pub message: String,
    /// The questions, in display order (R2).
    pub questions: Vec<Question>,
}

/// One question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    /// Unique in the form; `^[A-Za-z][A-Za-z0-9_-]{0,63}$` (R5, R6).
    pub id: String,
    /// Trimmed, nonempty, at most 80 characters (R8).
    pub title: String,
    /// At most 2,000 characters (R9).
    pub description: Option<String>,
    /// Whether an answer is mandatory (R10).
    pub required: bool,
    /// The question's type and its type-specific fields.
    pub kind: QuestionSpec,
}

/// A question's type and the fields that belong to it (R7, R11–R22).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QuestionSpec {
    /// `text`: free text.
    Text {
        /// 1–16,000; 4,000 when `None` (R11).
        max_length: Option<u32>,
    },
    /// `single_select`: one of 1–24 choice options (R12).
    SingleSelect {
        /// The choices.
        options: Vec<ChoiceOption>,
    },
    /// `multi_select`: several of 1–24 choice options (R13).
    MultiSelect {
        /// The choices.
        options: Vec<ChoiceOption>,
        /// R18.
        min_items: Option<u32>,
        /// R19.
        max_items: Option<u32>,
    },
    /// `resource`: one of 1–24 offered resources (R14).
    Resource {
        /// The offered resources.
        options: Vec<ResourceOption>,
    },
    /// `resources`: several of 1–24 offered resources (R15).
    Resources {
        /// The offered resources.
        options: Vec<ResourceOption>,
        /// R18.
        min_items: Option<u32>,
        /// R19.
        max_items: Option<u32>,
    },
    /// `files`: offered resources (0–24) and files the user adds (R16).
    Files {
        /// The offered resources (may be empty).
        options: Vec<ResourceOption>,
        /// R18.
        min_items: Option<u32>,
        /// R19.
        max_items: Option<u32>,
        /// The picker's filter: 1–12 extensions or MIME types (R22).
        accept: Option<Vec<String>>,
    },
}

impl QuestionSpec {
    /// The question's type.
    pub fn kind(&self) -> QuestionKind {
        match self {
            QuestionSpec::Text { .. } => QuestionKind::Text,
            QuestionSpec::SingleSelect { .. } => QuestionKind::SingleSelect,
            QuestionSpec::MultiSelect { .. } => QuestionKind::MultiSelect,
            QuestionSpec::Resource { .. } => QuestionKind::Resource,
            QuestionSpec::Resources { .. } => QuestionKind::Resources,
            QuestionSpec::Files { .. } => QuestionKind::Files,
        }
    }

    /// The choice options of a `single_select` or `multi_select` question (else empty).
    pub fn choice_options(&self) -> &[ChoiceOption] {
        match self {
            QuestionSpec::SingleSelect { options } | QuestionSpec::MultiSelect { options, .. } => {
                options
            }
            _ => &[],
        }
    }

    /// The resource options of a `resource`, `resources` or `files` question (else empty).
    pub fn resource_options(&self) -> &[ResourceOption] {
        match self {
            QuestionSpec::Resource { options }
            | QuestionSpec::Resources { options, .. }
            | QuestionSpec::Files { options, .. } => options,
            _ => &[],
        }
    }

    /// The `minItems` / `maxItems` given (both `None` for kinds without selection limits).
    pub fn given_limits(&self) -> (Option<u32>, Option<u32>) {
        match self {
            QuestionSpec::MultiSelect {
                min_items,
                max_items,
                ..
            }
            | QuestionSpec::Resources {
                min_items,
                max_items,
                ..
            }
            | QuestionSpec::Files {
                min_items,
                max_items,
                ..
            } => (*min_items, *max_items),
            _ => (None, None),
        }
    }

    /// The number of options the question offers.
    pub fn option_count(&self) -> usize {
        self.choice_options().len() + self.resource_options().len()
    }
}

/// A choice option of a `single_select` or `multi_select` question (R23).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChoiceOption {
    /// Unique in the question; same syntax as question IDs (R5, R6).
    pub id: String,
    /// Trimmed, nonempty, at most 500 characters.
    pub title: String,
    /// At most 1,000 characters.
    pub description: Option<String>,
    /// A picture for the option; the Data field `preview` is its older alias.
    pub thumbnail: Option<Image>,
}

/// An offered resource of a `resource`, `resources` or `files` question (R24).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceOption {
    /// The resource's identity: an absolute URI, at most 8,192 characters, unique in the question.
    pub uri: String,
    /// Logical name: trimmed, nonempty, at most 500 characters.
    pub name: String,
    /// Display label: trimmed, nonempty, at most 500 characters.
    pub title: String,
    /// At most 1,000 characters.
    pub description: Option<String>,
    /// At most 100 characters.
    pub mime_type: Option<String>,
    /// At most two provider or format icons.
    pub icons: Option<Vec<Image>>,
    /// The card picture; compiles to `_meta["openai/thumbnail"]`.
    pub thumbnail: Option<Image>,
}

impl ResourceOption {
    /// A resource option with its three required fields.
    pub fn new(uri: impl Into<String>, name: impl Into<String>, title: impl Into<String>) -> Self {
        ResourceOption {
            uri: uri.into(),
            name: name.into(),
            title: title.into(),
            description: None,
            mime_type: None,
            icons: None,
            thumbnail: None,
        }
    }
}

/// An image: an HTTPS URL or a base64 data URI of a raster type (R25, R26).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// At most 262,144 characters.
    pub src: String,
    /// At most 100 characters.
    pub mime_type: Option<String>,
}

impl Image {
    /// An image with no `mimeType`.
    pub fn new(src: impl Into<String>) -> Self {
        Image {
            src: src.into(),
            mime_type: None,
        }
    }
}
