//! Stage 2's result: the checked form, every value either a literal that passed the rules or
//! a run-time interpolation to convert and validate when the form is built.

use proc_macro2::{Group, Span};

/// A value written literally, or interpolated as `{expr}`.
pub(crate) enum Slot<T> {
    /// Known at compile time and already checked.
    Lit(T),
    /// A brace group holding a Rust expression, emitted unchanged.
    Interp(Group),
}

impl<T> Slot<T> {
    /// The literal, if it is one.
    pub(crate) fn lit(&self) -> Option<&T> {
        match self {
            Slot::Lit(t) => Some(t),
            Slot::Interp(_) => None,
        }
    }
}

/// A string literal and where it was written.
pub(crate) struct Str {
    pub(crate) value: String,
    pub(crate) span: Span,
}

/// An integer literal that passed its range check.
pub(crate) struct Int {
    pub(crate) value: u32,
    pub(crate) span: Span,
}

/// The whole form.
pub(crate) struct Form {
    pub(crate) message: Slot<Str>,
    pub(crate) questions: Slot<Vec<Slot<Question>>>,
}

/// One question written as an object.
pub(crate) struct Question {
    pub(crate) id: Slot<Str>,
    pub(crate) title: Slot<Str>,
    pub(crate) description: Option<Slot<Str>>,
    pub(crate) required: Slot<bool>,
    pub(crate) spec: Spec,
}

/// A list of options: written out, or one run-time `Vec`.
pub(crate) type Options<T> = Slot<Vec<Slot<T>>>;

/// Optional selection limits.
pub(crate) struct Limits {
    pub(crate) min_items: Option<Slot<Int>>,
    pub(crate) max_items: Option<Slot<Int>>,
}

/// The question's type and its type-specific fields.
pub(crate) enum Spec {
    Text {
        max_length: Option<Slot<Int>>,
    },
    SingleSelect {
        options: Options<Choice>,
    },
    MultiSelect {
        options: Options<Choice>,
        limits: Limits,
    },
    Resource {
        options: Options<Resource>,
    },
    Resources {
        options: Options<Resource>,
        limits: Limits,
    },
    Files {
        options: Option<Options<Resource>>,
        limits: Limits,
        accept: Option<Slot<Vec<Slot<Str>>>>,
    },
}

/// A choice option written as an object.
pub(crate) struct Choice {
    pub(crate) id: Slot<Str>,
    pub(crate) title: Slot<Str>,
    pub(crate) description: Option<Slot<Str>>,
    pub(crate) thumbnail: Option<Slot<Image>>,
}

/// A resource option written as an object.
pub(crate) struct Resource {
    pub(crate) uri: Slot<Str>,
    pub(crate) name: Slot<Str>,
    pub(crate) title: Slot<Str>,
    pub(crate) description: Option<Slot<Str>>,
    pub(crate) mime_type: Option<Slot<Str>>,
    pub(crate) icons: Option<Slot<Vec<Slot<Image>>>>,
    pub(crate) thumbnail: Option<Slot<Image>>,
}

/// An image written as an object.
pub(crate) struct Image {
    pub(crate) src: Slot<Str>,
    pub(crate) mime_type: Option<Slot<Str>>,
}
