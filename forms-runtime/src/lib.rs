// The front page opens with the crate's README (its example a doctest), then the details.
#![doc = include_str!("../README.md")]
//!
//! # In detail
//!
//! Typed Data forms for Rust agents and MCP tools.
//!
//! The runtime holds the Data contract (model-facing `{message, questions}` arguments, rules
//! R1–R27), the compiler to the host's native `openai/elicitation/create` request (N1–N10),
//! and the checker of host answers (V1–V8).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod answer;
pub mod data;
pub mod error;
pub mod form_values;
mod json;
pub mod mcp;
pub mod native;
mod syntax;
mod typed;

#[doc(hidden)]
pub mod __private;

pub use answer::{Answers, FileRefView, Outcome};
pub use data::DataForm;
pub use error::{ErrorCode, Finding, FormError, JsonPath, PathSegment};
pub use native::{NativeRequest, RequestedSchema};
pub use typed::{
    AtLeastOptions, ChoiceMeta, ChoiceSet, FileRef, Form, FormChoice, StaticForm, TypedForm,
};

/// Derives [`Form`] (and, on a fieldless enum, [`FormChoice`]); see the trait for the field
/// types and attributes.
pub use forms_macros::Form;

/// The URL type of `resource` and `resources` answers and offered files, re-exported so that
/// one dependency line is enough.
pub use url::Url;

/// The shared rules crate: the contract's limits, the [`Rule`](rules::Rule) codes that every
/// message cites, and each rule as a plain function.
pub use forms_rules as rules;

/// Declares a Data form inline, in the contract's own vocabulary (the JSON keys of the
/// `form_elicitation_v2_request` arguments).
///
/// Literal parts are checked at compile time with the rules the runtime uses (IDs, titles,
/// counts, selection limits, images, URIs, unknown and repeated keys); every mistake of one
/// invocation is reported in one compile, spanned at the key or value. Any value may instead
/// be `{expr}`, a Rust value supplied at run time: a `&str`/`String` for text, a `bool` for
/// `required`, a `u8`/`u16`/`u32` for a count, a `Vec<ChoiceOption>`/`Vec<ResourceOption>`
/// for a whole `options` list, a `ChoiceOption`/`ResourceOption` for one option, an `Image`
/// for an image. Run-time values are converted where they stand, in the order of the
/// contract's fields.
///
/// The macro evaluates to `Result<forms_runtime::DataForm, forms_runtime::FormError>`: the
/// form is validated with `DataForm::new` when it is built; errors about run-time values
/// name their JSON path. A form without `{expr}` is
/// built once per process and each evaluation returns a cheap clone. The runtime is named
/// through `$crate`, so the macro works under a renamed dependency.
///
/// ```
/// use forms_runtime::data::ResourceOption;
///
/// let templates = vec![ResourceOption::new(
///     "https://example.com/templates/review",
///     "business-review",
///     "Presentation · Business review",
/// )];
/// let form = forms_runtime::form! {
///     message: "Set up your weekly report",
///     questions: [
///         { id: "goal", type: text, title: "What would you like to understand?",
///           required: false, maxLength: 2000 },
///         { id: "format", type: single_select, title: "Report format", required: true,
///           options: [ { id: "pdf", title: "PDF", description: "Printable" },
///                      { id: "html", title: "Web page" } ] },
///         { id: "template", type: resource, title: "Relevant report templates",
///           required: false, options: {templates} },
///         { id: "data", type: files, title: "Upload your data", required: false,
///           accept: [".csv", "text/csv"] },
///     ],
/// }?;
/// assert_eq!(form.questions().len(), 4);
/// # Ok::<(), forms_runtime::FormError>(())
/// ```
#[macro_export]
macro_rules! form {
    ($($form:tt)*) => {
        $crate::__private::inline::form_impl!($crate; $($form)*)
    };
}
