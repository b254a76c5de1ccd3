//! Typed forms: a Rust type declares the form (`#[derive(Form)]`) and receives the answers.
//!
//! A [`TypedForm<T>`] is a [`DataForm`] (validated, native request compiled once) plus the
//! offered resource URIs parsed into [`Url`]s once, when the form was built. Decoding a host
//! response runs the runtime's answer checker (every rule V1–V8 applies), which hands each
//! checked value straight to `T`'s fields: choices become enum variants by index, offered
//! URIs are cloned from the parsed ones, and text is moved, not copied. No intermediate
//! answer slots are built.

use crate::answer::{Outcome, Source};
use crate::data::DataForm;
use crate::error::{Finding, FormError, JsonPath};
use forms_rules::Rule;
use std::collections::{BTreeSet, HashSet};
use std::fmt;
use std::hash::{BuildHasher, Hash};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use url::Url;

/// A Rust type that is a form: `#[derive(Form)]` on a struct (one question per field) or on
/// a fieldless enum (one choice option per variant; with a `message` it is also a
/// one-question form by itself).
///
/// ```
/// use forms_runtime::data::ResourceOption;
/// use forms_runtime::{FileRef, Form, Outcome};
/// use url::Url;
///
/// #[derive(Form)]
/// #[form(message = "Set up your weekly report")]
/// struct ReportSetup {
///     /// What would you like to understand?
///     goal: Option<String>,
///     #[form(title = "Report format")]
///     format: Format,
///     #[form(title = "Sections", max_items = 2)]
///     sections: Vec<Section>,
///     #[form(resource, title = "Relevant report templates")]
///     template: Option<Url>,
///     #[form(files, title = "Upload your data", accept = [".csv", "text/csv"])]
///     data: Vec<FileRef>,
/// }
///
/// #[derive(Form, Debug, PartialEq)]
/// enum Format {
///     #[form(title = "PDF", description = "Printable, paginated")]
///     Pdf,
///     #[form(title = "Web page")]
///     Html,
/// }
///
/// #[derive(Form, Debug, PartialEq)]
/// #[form(rename_all = "snake_case")]
/// enum Section {
///     /// Summary
///     Summary,
///     /// Regional breakdown
///     RegionalBreakdown,
///     /// Outlook
///     Outlook,
/// }
///
/// // Resource options are known only at run time: the derive made `ReportSetupParts`.
/// let form = ReportSetup::build(ReportSetupParts {
///     template: vec![ResourceOption::new(
///         "https://example.com/templates/review",
///         "review",
///         "Presentation · Business review",
///     )],
/// })?;
/// assert!(form.data().native_json().starts_with(r#"{"mode":"form","message":"Set up your weekly report""#));
///
/// let answer = r#"{"action":"accept","content":{
///     "format":"Html",
///     "sections":["summary","outlook"],
///     "template":"https://example.com/templates/review",
///     "data":["file:///home/me/q3%20sales.csv"]}}"#;
/// let Outcome::Accepted(setup) = form.decode(answer)? else { unreachable!() };
/// assert_eq!(setup.goal, None);
/// assert_eq!(setup.format, Format::Html);
/// assert_eq!(setup.sections, [Section::Summary, Section::Outlook]);
/// assert_eq!(setup.template.unwrap().as_str(), "https://example.com/templates/review");
/// assert_eq!(setup.data[0].local_path().unwrap().to_str(), Some("/home/me/q3 sales.csv"));
///
/// // Every answer rule applies: three sections exceed `max_items = 2` (V4).
/// let too_many = r#"{"action":"accept","content":{"format":"Pdf",
///     "sections":["summary","outlook","regional_breakdown"]}}"#;
/// assert!(form.decode(too_many).is_err());
/// # Ok::<(), forms_runtime::FormError>(())
/// ```
///
/// # Field types
///
/// In one sentence (the help of the derive's error on any other type): a form field is
/// `String` or `Option<String>` (text); `E` or `Option<E>` (one choice), `Vec<E>`,
/// `BTreeSet<E>` or `HashSet<E>` (several choices) for a fieldless enum `E` deriving `Form`;
/// `Url` or `Option<Url>` with `#[form(resource)]`; `Vec<Url>` with `#[form(resources)]`;
/// `Vec<FileRef>` with `#[form(files)]`. A `BTreeSet<E>` needs `E: Ord` and a `HashSet<E>`
/// `E: Eq + Hash` (see [`ChoiceSet`]).
///
/// | Field type | Question |
/// |---|---|
/// | `String` / `Option<String>` | `text`, required / optional |
/// | `E` / `Option<E>` (an enum deriving `Form`) | `single_select`, required / optional |
/// | `Vec<E>`, `BTreeSet<E>`, `HashSet<E>` | `multi_select`, optional unless `required` |
/// | `Url` / `Option<Url>` with `#[form(resource)]` | `resource`, required / optional |
/// | `Vec<Url>` with `#[form(resources)]` | `resources`, optional unless `required` |
/// | `Vec<FileRef>` with `#[form(files)]` | `files`, optional unless `required` |
///
/// # Attributes
///
/// - On the struct: `message = "…"` (required), `rename_all = "camelCase"` (and the other
///   serde conventions), `parts = "ReportParts"` (the name of the generated parts struct),
///   `crate = "path::to::forms_runtime"` (for a renamed dependency).
/// - On a field: `id`, `title`, `description`, `max_length` (text), `min_items` and
///   `max_items` (arrays), `required` (arrays), `accept = [".csv", "text/csv"]` (files),
///   `offered` (files: the form offers files chosen at run time, through the parts), and the
///   kind markers `resource`, `resources`, `files`. A doc comment's first line is the
///   title and the rest the description when no attribute gives them.
/// - On an enum: `rename_all`, `crate`, and `message`, `id` (default: the enum name in
///   snake_case) and `description` for its own one-question form.
/// - On a variant: `id`, `title` (default: the doc comment's first line, else the variant
///   name as words: `NorthAmerica` → "North America"), `description`, `thumbnail = "https://…"`.
///
/// # Run-time parts
///
/// A `resource` or `resources` question, and a `files` question marked `offered`, has
/// options known only at run time. For such a type the derive generates a struct named
/// `<Name>Parts` (or as `#[form(parts = "…")]` says) with one public
/// `Vec<ResourceOption>` field per such question, named after the field, and sets
/// [`Form::Parts`] to it: leaving one out is a compile error. [`Form::build`] validates the
/// options with the same rules as any Data form (R14–R27). An optional `resource` or
/// `resources` question given no options (a search that found nothing) is left out of the
/// form, and its field decodes as `None` or empty; a required one given none is refused by
/// `build` (R14, R15): the form's author must not ask it. A `files` question stays with no
/// offered files, since the person can still add their own. A type without run-time parts has
/// `Parts = ()` and also implements [`StaticForm`], whose [`StaticForm::form`] cannot fail.
/// On a type with run-time parts, `Name::form()` is a compile error that says to build the
/// form from its parts (the derive gives such a type a hidden associated `form` for that
/// message, so the type cannot define an inherent `form` of its own).
///
/// # When errors arrive
///
/// Every rule knowable at compile time is a compile error at the attribute, with the same
/// functions the runtime uses (`forms_rules`). Limits that cross types (a `Vec<E>`'s
/// `max_items` against the option count of `E`) are checked by const evaluation, which
/// rustc runs after type checking: they arrive in a second wave, once the other errors are
/// fixed. Options supplied at run time are checked by [`Form::build`].
pub trait Form: Sized {
    /// What the form needs at run time: `()` when every question is known at compile time,
    /// otherwise the derived `<Name>Parts` struct with the offered options of each
    /// `resource` and `resources` question and each `files` question marked `offered`.
    type Parts;

    /// Builds the form. Run-time parts are validated with the same rules (R14–R27) as any
    /// Data form, and an error names the Rust field of the question it is about.
    fn build(parts: Self::Parts) -> Result<TypedForm<Self>, FormError>;

    /// Checks a response and decodes it. Called by [`TypedForm::decode`].
    #[doc(hidden)]
    fn __decode_response(
        form: &TypedForm<Self>,
        response: ResponseSource<'_>,
    ) -> Result<Outcome<Self>, FormError>;
}

/// A form with no run-time parts: fully checked at compile time, so getting it cannot fail.
/// `#[derive(Form)]` implements it for every such type; the form is built once per process
/// and shared.
///
/// ```
/// use forms_runtime::{Outcome, StaticForm};
///
/// #[derive(forms_runtime::Form, Debug, PartialEq)]
/// #[form(message = "Pick a format")]
/// enum Format {
///     Pdf,
///     Html,
/// }
///
/// let form = Format::form();
/// assert_eq!(form.decode(r#"{"action":"accept","content":{"format":"Html"}}"#)?, Outcome::Accepted(Format::Html));
/// # Ok::<(), forms_runtime::FormError>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has run-time parts, so it has no form without them",
    label = "`{Self}` needs its parts to build its form",
    note = "a form with `resource`, `resources` or offered `files` questions is built at run \
            time: `let form = {Self}::build(parts)?;` with the generated parts struct",
    note = "ask a built form with `FormAsker::ask_typed(&form, &call)` (forms-mcp), or decode \
            with `form.decode(response)`"
)]
pub trait StaticForm: Form<Parts = ()> {
    /// The form, built once per process.
    fn form() -> TypedForm<Self>;
}

#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct ResponseSource<'a>(pub(crate) Source<'a>);

/// A set of choice options: implemented by `#[derive(Form)]` on a fieldless enum, one option
/// per variant, in declaration order.
///
/// ```
/// use forms_runtime::{Form, FormChoice};
///
/// #[derive(Form, Debug, PartialEq)]
/// enum Format {
///     /// PDF
///     Pdf,
///     #[form(id = "html", title = "Web page")]
///     Web,
/// }
///
/// assert_eq!(Format::COUNT, 2);
/// assert_eq!(Format::from_index(1), Some(Format::Web));
/// assert_eq!(Format::Web.id(), "html");
/// assert_eq!(Format::OPTIONS[0].title, "PDF");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a choice enum deriving `Form`",
    label = "not a supported form field type",
    note = "derive `Form` on `{Self}` if it is a fieldless enum (one option per variant); \
            the derive knows text only as `String` written out, not through a type alias",
    note = "a form field is `String` or `Option<String>` (text); `E` or `Option<E>` (one \
            choice), `Vec<E>`, `BTreeSet<E>` or `HashSet<E>` (several choices) for a fieldless \
            enum `E` deriving `Form`; `Url` or `Option<Url>` with `#[form(resource)]`; \
            `Vec<Url>` with `#[form(resources)]`; `Vec<FileRef>` with `#[form(files)]`"
)]
pub trait FormChoice: Sized + 'static {
    /// The number of options (1–24, rule R12).
    const COUNT: usize;

    /// The options, in declaration order.
    const OPTIONS: &'static [ChoiceMeta];

    /// The option at `index` (declaration order), if there is one.
    fn from_index(index: usize) -> Option<Self>;

    /// The option's position in declaration order.
    fn index(&self) -> usize;

    /// The option's ID as it appears on the wire.
    fn id(&self) -> &'static str {
        self.meta().map_or("", |m| m.id)
    }

    /// The option's static metadata.
    fn meta(&self) -> Option<&'static ChoiceMeta> {
        Self::OPTIONS.get(self.index())
    }
}

/// The collection of a field with several choices: `Vec<E>`, `BTreeSet<E>` (for `E: Ord`)
/// or `HashSet<E>` (for `E: Eq + Hash`). `#[derive(Form)]` makes the field's value with it,
/// from the chosen options in the order given.
///
/// ```
/// use std::collections::BTreeSet;
/// use forms_runtime::ChoiceSet;
///
/// let set: BTreeSet<u8> = ChoiceSet::from_choices(vec![3, 1, 3]);
/// assert_eq!(set.into_iter().collect::<Vec<_>>(), [1, 3]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold the choices of a form field",
    label = "a `BTreeSet<{E}>` needs `{E}: Ord`, a `HashSet<{E}>` needs `{E}: Eq + Hash`",
    note = "derive them on `{E}` (`#[derive(PartialEq, Eq, PartialOrd, Ord)]` for a \
            `BTreeSet`, `#[derive(PartialEq, Eq, Hash)]` for a `HashSet`), or make the field a \
            `Vec<{E}>`"
)]
pub trait ChoiceSet<E>: Sized {
    /// The collection of `choices`, given in the answer's order.
    fn from_choices(choices: Vec<E>) -> Self;
}

// Not offered as the fix of a set's error by rustc's list of impls: the note says it.
#[allow(unknown_or_malformed_diagnostic_attributes)]
#[diagnostic::do_not_recommend]
impl<E> ChoiceSet<E> for Vec<E> {
    fn from_choices(choices: Vec<E>) -> Self {
        choices
    }
}

// `do_not_recommend` (Rust 1.85): a missing `Ord` is reported in `ChoiceSet`'s words, at the
// field, rather than as a bound of this impl.
#[allow(unknown_or_malformed_diagnostic_attributes)]
#[diagnostic::do_not_recommend]
impl<E: Ord> ChoiceSet<E> for BTreeSet<E> {
    fn from_choices(choices: Vec<E>) -> Self {
        choices.into_iter().collect()
    }
}

#[allow(unknown_or_malformed_diagnostic_attributes)]
#[diagnostic::do_not_recommend]
impl<E: Eq + Hash, S: BuildHasher + Default> ChoiceSet<E> for HashSet<E, S> {
    fn from_choices(choices: Vec<E>) -> Self {
        choices.into_iter().collect()
    }
}

/// A choice enum with at least `N` options: `#[derive(Form)]` implements it for `N` from 1
/// to the enum's option count. A field `Vec<E>` with `min_items` or `max_items` above `E`'s
/// option count breaks rule R20; the derive asks this trait of `E` for the larger bound, so
/// that mistake is a compile error at the attribute.
///
/// ```
/// use forms_runtime::{AtLeastOptions, Form};
///
/// #[derive(Form)]
/// enum Format {
///     Pdf,
///     Html,
/// }
///
/// fn two_or_more<E: AtLeastOptions<2>>() {}
/// two_or_more::<Format>();
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has fewer than {N} options",
    label = "above the number of options of `{Self}`",
    note = "`min_items` and `max_items` of a field with several choices of `{Self}` must not \
            exceed its number of variants; see rule R20"
)]
pub trait AtLeastOptions<const N: usize>: FormChoice {
    /// Named by the derive's check, so that the check is a constant expression.
    #[doc(hidden)]
    const OK: () = ();
}

/// The static metadata of one choice option (rule R23), as declared on an enum variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChoiceMeta {
    /// The option ID (rule R6).
    pub id: &'static str,
    /// The option title.
    pub title: &'static str,
    /// The option description.
    pub description: Option<&'static str>,
    /// The thumbnail image `src` (an HTTPS URL or an image data URI).
    pub thumbnail: Option<&'static str>,
}

/// One item of a `files` answer: an offered resource or a file the person added.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FileRef {
    /// One of the offered resources, by its URI.
    Offered(Url),
    /// A file the person picked on their machine (rule R27).
    Local {
        /// The `file:` URI exactly as the host sent it.
        uri: String,
        /// The absolute local path, percent-decoded.
        path: PathBuf,
    },
}

impl FileRef {
    /// The URI as it appears in the answer (for offered resources, as [`Url`] prints it).
    pub fn uri(&self) -> &str {
        match self {
            FileRef::Offered(url) => url.as_str(),
            FileRef::Local { uri, .. } => uri,
        }
    }

    /// The local path of a file the person added; `None` for an offered resource.
    pub fn local_path(&self) -> Option<&Path> {
        match self {
            FileRef::Offered(_) => None,
            FileRef::Local { path, .. } => Some(path),
        }
    }
}

/// A form declared by the Rust type `T`, ready to send and to decode answers into `T`.
///
/// Cloning is cheap (one reference count). The Data form and its native request are
/// [`TypedForm::data`]: `form.data().native_json()`.
pub struct TypedForm<T> {
    inner: Arc<Inner>,
    marker: PhantomData<fn() -> T>,
}

pub(crate) struct Inner {
    pub(crate) data: DataForm,
    /// Per question, its offered resource URIs, parsed once.
    pub(crate) offered: Vec<Box<[Url]>>,
    /// Per question, the Rust field that declared it.
    pub(crate) fields: Vec<String>,
    /// Per question, the index of its field's cell among the derived type's fields; empty
    /// when they are the same (no question was left out of the form).
    pub(crate) cells: Vec<usize>,
}

impl<T> Clone for TypedForm<T> {
    fn clone(&self) -> Self {
        TypedForm {
            inner: Arc::clone(&self.inner),
            marker: PhantomData,
        }
    }
}

impl<T> fmt::Debug for TypedForm<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TypedForm")
            .field("type", &std::any::type_name::<T>())
            .field("form", &self.inner.data)
            .finish()
    }
}

impl<T> TypedForm<T> {
    /// Wraps a validated form whose question `i` was declared by the field `fields[i]`;
    /// parses every offered resource URI once.
    pub(crate) fn from_data(data: DataForm, fields: &[&str]) -> Result<Self, FormError> {
        let mut offered = Vec::with_capacity(data.questions().len());
        for (qi, q) in data.questions().iter().enumerate() {
            let options = q.kind.resource_options();
            let mut urls = Vec::with_capacity(options.len());
            for (oi, o) in options.iter().enumerate() {
                let url = Url::parse(&o.uri).map_err(|e| {
                    FormError::invalid_arguments(Finding::new(
                        JsonPath::arguments()
                            .key("questions")
                            .index(qi)
                            .key("options")
                            .index(oi)
                            .key("uri"),
                        Some(Rule::R24),
                        format!("{:?} cannot be read as a URL: {e}", o.uri),
                    ))
                })?;
                urls.push(url);
            }
            offered.push(urls.into_boxed_slice());
        }
        Ok(TypedForm {
            inner: Arc::new(Inner {
                data,
                offered,
                fields: fields.iter().map(|f| (*f).to_owned()).collect(),
                cells: Vec::new(),
            }),
            marker: PhantomData,
        })
    }

    pub(crate) fn inner(&self) -> &Inner {
        &self.inner
    }

    /// The form with question `q`'s answer going to the field cell `cells[q]` (questions
    /// were left out of the form, so the two orders differ).
    pub(crate) fn with_cells(mut self, cells: Vec<usize>) -> Self {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.cells = cells;
        }
        self
    }

    /// The question whose answer goes to the field cell `cell`, if the form has it.
    pub(crate) fn question_of(&self, cell: usize) -> Option<usize> {
        if self.inner.cells.is_empty() {
            Some(cell)
        } else {
            self.inner.cells.iter().position(|&c| c == cell)
        }
    }

    /// The validated Data form: the model-facing `{message, questions}`
    /// ([`DataForm::to_json`]) and the native request ([`DataForm::native_json`]).
    pub fn data(&self) -> &DataForm {
        &self.inner.data
    }

    /// The offered resources of the question at `question_index`, as parsed URLs.
    pub fn offered(&self, question_index: usize) -> &[Url] {
        self.inner.offered.get(question_index).map_or(&[], |b| b)
    }
}

impl<T: Form> TypedForm<T> {
    /// Checks a host response given as JSON text (rules V1–V8) and, when the person accepted,
    /// decodes the answers into `T`. Any failure is one `invalid_response` error and no
    /// answer is returned.
    pub fn decode(&self, response: &str) -> Result<Outcome<T>, FormError> {
        T::__decode_response(self, ResponseSource(Source::Text(response)))
    }

    /// [`TypedForm::decode`] for an already-parsed response.
    pub fn decode_value(&self, response: &serde_json::Value) -> Result<Outcome<T>, FormError> {
        T::__decode_response(self, ResponseSource(Source::Value(response)))
    }
}
