//! Typed forms: a Rust type declares the form (`#[derive(Form)]`) and receives the answers.
//!
//! A [`TypedForm<T>`] is a [`PreparedForm`] (validated, native request compiled once) plus the
//! offered resource URIs parsed into [`Url`]s once, when the form was built. Decoding a host
//! response runs the runtime's answer checker (every rule V1–V8 applies), which hands each
//! checked value straight to `T`'s fields: choices become enum variants by index, offered
//! URIs are cloned from the parsed ones, and text is moved, not copied. No intermediate
//! answer slots are built.

use crate::answer::{Action, Sink, Source};
use crate::data::DataForm;
use crate::error::FormError;
use crate::prepared::PreparedForm;
use std::fmt;
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
/// let form = ReportSetup::form(ReportSetupParts {
///     template: vec![ResourceOption::new(
///         "https://example.com/templates/review",
///         "review",
///         "Presentation · Business review",
///     )],
///     data: vec![],
/// })?;
/// assert!(form.native_json().starts_with(r#"{"mode":"form","message":"Set up your weekly report""#));
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
///   serde conventions), `crate = "path::to::forms_runtime"`.
/// - On a field: `id`, `title`, `description`, `max_length` (text), `min_items` and
///   `max_items` (arrays), `required` (arrays), `accept = [".csv", "text/csv"]` (files), and
///   the kind markers `resource`, `resources`, `files`. A doc comment's first line is the
///   title and the rest the description when no attribute gives them.
/// - On an enum: `rename_all`, `crate`, and `message`, `id` (default: the enum name in
///   snake_case) and `description` for its own one-question form.
/// - On a variant: `id`, `title` (default: the doc comment's first line, else the variant
///   name as words: `NorthAmerica` → "North America"), `description`, `thumbnail = "https://…"`.
///
/// Every rule knowable at compile time is checked at compile time, with the same functions
/// the runtime uses (`forms_rules`); options supplied at run time are checked by
/// [`Form::form`].
pub trait Form: Sized {
    /// What the form needs at run time: `()` when every question is known at compile time,
    /// otherwise the derived `<Name>Parts` struct with the offered options of each
    /// `resource`, `resources` and `files` question.
    type Parts;

    /// Builds the form. Run-time parts are validated with the same rules (R14–R27) as any
    /// Data form; a form without parts is built once per process and shared.
    fn form(parts: Self::Parts) -> Result<TypedForm<Self>, FormError>;

    /// Checks a response and decodes it. Called by [`TypedForm::decode`]; the derive
    /// implements it with [`decode_into`], writing each checked answer into its field.
    #[doc(hidden)]
    fn __decode_response(
        form: &TypedForm<Self>,
        response: ResponseSource<'_>,
    ) -> Result<Outcome<Self>, FormError>;
}

/// A host response handed to [`Form::__decode_response`]: JSON text or a parsed value.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct ResponseSource<'a>(Source<'a>);

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
    message = "`{Self}` cannot be the type of a form field",
    label = "not a choice enum deriving `Form`",
    note = "derive `Form` on `{Self}` to make it a choice: a fieldless enum deriving `Form` \
            has one option per variant",
    note = "the other field types are `String` or `Option<String>` (text), `Url` or \
            `Option<Url>` with `#[form(resource)]`, `Vec<Url>` with `#[form(resources)]` and \
            `Vec<FileRef>` with `#[form(files)]`"
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

/// The table of a choice type, made once per field in a constant: the derive's single use
/// of the `FormChoice` bound, so that a field of an unsupported type gets one error.
#[doc(hidden)]
pub struct ChoiceOf<E> {
    /// `E::COUNT`.
    pub count: usize,
    /// `E::OPTIONS`.
    pub options: &'static [ChoiceMeta],
    /// `E::from_index`.
    pub from_index: fn(usize) -> Option<E>,
}

/// The table of `E`; a free function so that a missing `FormChoice` impl is reported with
/// the trait's own message.
#[doc(hidden)]
pub const fn choice_of<E: FormChoice>() -> ChoiceOf<E> {
    ChoiceOf {
        count: E::COUNT,
        options: E::OPTIONS,
        from_index: E::from_index,
    }
}

/// What the person did with a form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome<T> {
    /// The person submitted the form; the answers passed every rule.
    Accepted(T),
    /// The person declined. No answers (V8).
    Declined,
    /// The person cancelled. No answers (V8).
    Cancelled,
}

impl<T> Outcome<T> {
    /// The answers of an accepted form; `None` for decline and cancel.
    pub fn accepted(self) -> Option<T> {
        match self {
            Outcome::Accepted(t) => Some(t),
            Outcome::Declined | Outcome::Cancelled => None,
        }
    }

    /// The wire name of the action: `"accept"`, `"decline"` or `"cancel"`.
    pub fn action(&self) -> &'static str {
        match self {
            Outcome::Accepted(_) => "accept",
            Outcome::Declined => "decline",
            Outcome::Cancelled => "cancel",
        }
    }
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
/// Cloning is cheap (one reference count). Forms without run-time parts are built once per
/// process: every [`Form::form`] call returns a clone of the same value.
pub struct TypedForm<T> {
    inner: Arc<Inner>,
    marker: PhantomData<fn() -> T>,
}

struct Inner {
    prepared: PreparedForm,
    /// Per question, its offered resource URIs, parsed once.
    offered: Vec<Box<[Url]>>,
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
            .field("form", self.inner.prepared.data())
            .finish()
    }
}

impl<T> TypedForm<T> {
    /// Wraps a validated form; parses every offered resource URI once.
    pub(crate) fn from_data(data: DataForm) -> Result<Self, FormError> {
        let mut offered = Vec::with_capacity(data.questions().len());
        for (qi, q) in data.questions().iter().enumerate() {
            let options = q.kind.resource_options();
            let mut urls = Vec::with_capacity(options.len());
            for (oi, o) in options.iter().enumerate() {
                let url = Url::parse(&o.uri).map_err(|e| {
                    FormError::invalid_arguments(format!(
                        "questions[{qi}].options[{oi}].uri: {:?} cannot be read as a URL for \
                         the typed answer: {e}",
                        o.uri
                    ))
                })?;
                urls.push(url);
            }
            offered.push(urls.into_boxed_slice());
        }
        Ok(TypedForm {
            inner: Arc::new(Inner {
                prepared: PreparedForm::new(data),
                offered,
            }),
            marker: PhantomData,
        })
    }

    /// The validated Data form (the model-facing `{message, questions}`).
    pub fn data(&self) -> &DataForm {
        self.inner.prepared.data()
    }

    /// The native request params as compact JSON, compiled once.
    pub fn native_json(&self) -> &str {
        self.inner.prepared.native_json()
    }

    /// The untyped prepared form.
    pub fn prepared(&self) -> &PreparedForm {
        &self.inner.prepared
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

// ---------------------------------------------------------------------------------------------
// Decoding straight into fields: the derive makes one cell per field, in question order, and
// the checker writes each checked value into the cell of its question.

/// Checks `response` against `form` (rules V1–V8), writing every checked answer into
/// `cells`, a tuple of one cell per question in question order; when the person accepted,
/// `take` moves the filled cells into `T`. A failed check returns the error and drops the
/// cells, so no partly decoded value escapes.
#[doc(hidden)]
pub fn decode_into<T, C: Cells>(
    form: &TypedForm<T>,
    response: ResponseSource<'_>,
    mut cells: C,
    take: impl FnOnce(C) -> Result<T, FormError>,
) -> Result<Outcome<T>, FormError> {
    let inner = &*form.inner;
    let mut sink = CellSink {
        cells: &mut cells,
        offered: &inner.offered,
    };
    Ok(
        match inner.prepared.data().check_into(response.0, &mut sink)? {
            Action::Accept => Outcome::Accepted(take(cells)?),
            Action::Decline => Outcome::Declined,
            Action::Cancel => Outcome::Cancelled,
        },
    )
}

/// The error for a required field left empty: the checker refuses such a response (V2), so
/// this means the form and the type disagree.
#[doc(hidden)]
pub fn missing<T>(form: &TypedForm<T>, question_index: usize) -> FormError {
    FormError::invalid_response(format!(
        "content.{}: is required (V2)",
        form.data()
            .questions()
            .get(question_index)
            .map_or("?", |q| q.id.as_str())
    ))
}

/// Where one field's checked answer is written. Each method returns `false` when the answer
/// is of a kind the field cannot hold.
#[doc(hidden)]
pub trait Cell {
    /// A `text` answer.
    fn text(&mut self, _v: String) -> bool {
        false
    }
    /// A `single_select` answer, or one item of a `multi_select` answer.
    fn choice(&mut self, _option: usize) -> bool {
        false
    }
    /// A `resource` answer, or one item of a `resources` answer.
    fn url(&mut self, _url: &Url) -> bool {
        false
    }
    /// One offered item of a `files` answer.
    fn file_offered(&mut self, _url: &Url) -> bool {
        false
    }
    /// One user-added file of a `files` answer.
    fn file_local(&mut self, _uri: String, _path: String) -> bool {
        false
    }
    /// Whether a `files` answer already holds a user-added file with this path.
    fn local_given(&self, _path: &str) -> bool {
        false
    }
    /// Whether the field holds an array answer.
    fn is_array(&self) -> bool {
        false
    }
}

/// The cells of a derived type's fields, one per question in question order: a tuple of
/// [`Cell`]s. Each method hands the value to the cell of question `q`.
#[doc(hidden)]
pub trait Cells {
    /// [`Cell::text`] of question `q`.
    fn text(&mut self, q: usize, v: String) -> bool;
    /// [`Cell::choice`] of question `q`.
    fn choice(&mut self, q: usize, option: usize) -> bool;
    /// [`Cell::url`] of question `q`.
    fn url(&mut self, q: usize, url: &Url) -> bool;
    /// [`Cell::file_offered`] of question `q`.
    fn file_offered(&mut self, q: usize, url: &Url) -> bool;
    /// [`Cell::file_local`] of question `q`.
    fn file_local(&mut self, q: usize, uri: String, path: String) -> bool;
    /// [`Cell::local_given`] of question `q`.
    fn local_given(&self, q: usize, path: &str) -> bool;
    /// [`Cell::is_array`] of question `q`.
    fn is_array(&self, q: usize) -> bool;
}

/// `Cells` for a tuple of cells: a match on the question index, so every cell call is static.
macro_rules! tuple_cells {
    ($($cell:ident $i:tt),+) => {
        impl<$($cell: Cell),+> Cells for ($($cell,)+) {
            fn text(&mut self, q: usize, v: String) -> bool {
                match q {
                    $($i => self.$i.text(v),)+
                    _ => false,
                }
            }
            fn choice(&mut self, q: usize, option: usize) -> bool {
                match q {
                    $($i => self.$i.choice(option),)+
                    _ => false,
                }
            }
            fn url(&mut self, q: usize, url: &Url) -> bool {
                match q {
                    $($i => self.$i.url(url),)+
                    _ => false,
                }
            }
            fn file_offered(&mut self, q: usize, url: &Url) -> bool {
                match q {
                    $($i => self.$i.file_offered(url),)+
                    _ => false,
                }
            }
            fn file_local(&mut self, q: usize, uri: String, path: String) -> bool {
                match q {
                    $($i => self.$i.file_local(uri, path),)+
                    _ => false,
                }
            }
            fn local_given(&self, q: usize, path: &str) -> bool {
                match q {
                    $($i => self.$i.local_given(path),)+
                    _ => false,
                }
            }
            fn is_array(&self, q: usize) -> bool {
                match q {
                    $($i => self.$i.is_array(),)+
                    _ => false,
                }
            }
        }
    };
}

// Up to `limits::QUESTIONS_MAX` (12) questions.
tuple_cells!(C0 0);
tuple_cells!(C0 0, C1 1);
tuple_cells!(C0 0, C1 1, C2 2);
tuple_cells!(C0 0, C1 1, C2 2, C3 3);
tuple_cells!(C0 0, C1 1, C2 2, C3 3, C4 4);
tuple_cells!(C0 0, C1 1, C2 2, C3 3, C4 4, C5 5);
tuple_cells!(C0 0, C1 1, C2 2, C3 3, C4 4, C5 5, C6 6);
tuple_cells!(C0 0, C1 1, C2 2, C3 3, C4 4, C5 5, C6 6, C7 7);
tuple_cells!(C0 0, C1 1, C2 2, C3 3, C4 4, C5 5, C6 6, C7 7, C8 8);
tuple_cells!(C0 0, C1 1, C2 2, C3 3, C4 4, C5 5, C6 6, C7 7, C8 8, C9 9);
tuple_cells!(C0 0, C1 1, C2 2, C3 3, C4 4, C5 5, C6 6, C7 7, C8 8, C9 9, C10 10);
tuple_cells!(C0 0, C1 1, C2 2, C3 3, C4 4, C5 5, C6 6, C7 7, C8 8, C9 9, C10 10, C11 11);

/// The checker's sink for a derived type: each question's value goes to its cell.
struct CellSink<'a, C> {
    cells: &'a mut C,
    offered: &'a [Box<[Url]>],
}

impl<C: Cells> Sink for CellSink<'_, C> {
    fn text(&mut self, q: usize, v: String) -> bool {
        self.cells.text(q, v)
    }

    fn choice(&mut self, q: usize, option: usize) -> bool {
        self.cells.choice(q, option)
    }

    fn resource(&mut self, q: usize, option: usize) -> bool {
        let (offered, cells) = (self.offered, &mut *self.cells);
        match offered.get(q).and_then(|o| o.get(option)) {
            Some(url) => cells.url(q, url),
            None => false,
        }
    }

    fn array(&mut self, q: usize) -> bool {
        self.cells.is_array(q)
    }

    fn choice_item(&mut self, q: usize, option: usize) -> bool {
        self.cells.choice(q, option)
    }

    fn resource_item(&mut self, q: usize, option: usize) -> bool {
        self.resource(q, option)
    }

    fn file_offered(&mut self, q: usize, option: usize) -> bool {
        let (offered, cells) = (self.offered, &mut *self.cells);
        match offered.get(q).and_then(|o| o.get(option)) {
            Some(url) => cells.file_offered(q, url),
            None => false,
        }
    }

    fn file_local(&mut self, q: usize, uri: String, path: String) -> bool {
        self.cells.file_local(q, uri, path)
    }

    fn local_given(&self, q: usize, path: &str) -> bool {
        self.cells.local_given(q, path)
    }
}

/// The cell of a `text` field.
#[doc(hidden)]
#[derive(Default)]
pub struct TextCell(Option<String>);

impl TextCell {
    /// An empty cell.
    pub fn new() -> Self {
        TextCell(None)
    }

    /// The answer of a required field.
    pub fn required<T>(self, form: &TypedForm<T>, q: usize) -> Result<String, FormError> {
        self.0.ok_or_else(|| missing(form, q))
    }

    /// The answer of an optional field.
    pub fn optional(self) -> Option<String> {
        self.0
    }
}

impl Cell for TextCell {
    fn text(&mut self, v: String) -> bool {
        self.0 = Some(v);
        true
    }
}

/// The cell of a `single_select` field of the choice type `E`.
#[doc(hidden)]
pub struct ChoiceCell<E> {
    from_index: fn(usize) -> Option<E>,
    value: Option<E>,
}

impl<E> ChoiceCell<E> {
    /// An empty cell for the choice type of `table`.
    pub fn new(table: &ChoiceOf<E>) -> Self {
        ChoiceCell {
            from_index: table.from_index,
            value: None,
        }
    }

    /// The answer of a required field.
    pub fn required<T>(self, form: &TypedForm<T>, q: usize) -> Result<E, FormError> {
        self.value.ok_or_else(|| missing(form, q))
    }

    /// The answer of an optional field.
    pub fn optional(self) -> Option<E> {
        self.value
    }
}

impl<E> Cell for ChoiceCell<E> {
    fn choice(&mut self, option: usize) -> bool {
        self.value = (self.from_index)(option);
        self.value.is_some()
    }
}

/// The cell of a `multi_select` field of the choice type `E`.
#[doc(hidden)]
pub struct ChoicesCell<E> {
    from_index: fn(usize) -> Option<E>,
    values: Vec<E>,
}

impl<E> ChoicesCell<E> {
    /// An empty cell for the choice type of `table`.
    pub fn new(table: &ChoiceOf<E>) -> Self {
        ChoicesCell {
            from_index: table.from_index,
            values: Vec::new(),
        }
    }

    /// The answers, in the order given, collected into the field's collection (for a
    /// `Vec<E>`, the vector itself).
    pub fn collect<C: FromIterator<E>>(self) -> C {
        self.values.into_iter().collect()
    }
}

impl<E> Cell for ChoicesCell<E> {
    fn choice(&mut self, option: usize) -> bool {
        match (self.from_index)(option) {
            Some(e) => {
                self.values.push(e);
                true
            }
            None => false,
        }
    }

    fn is_array(&self) -> bool {
        true
    }
}

/// The cell of a `resource` field.
#[doc(hidden)]
#[derive(Default)]
pub struct UrlCell(Option<Url>);

impl UrlCell {
    /// An empty cell.
    pub fn new() -> Self {
        UrlCell(None)
    }

    /// The answer of a required field.
    pub fn required<T>(self, form: &TypedForm<T>, q: usize) -> Result<Url, FormError> {
        self.0.ok_or_else(|| missing(form, q))
    }

    /// The answer of an optional field.
    pub fn optional(self) -> Option<Url> {
        self.0
    }
}

impl Cell for UrlCell {
    fn url(&mut self, url: &Url) -> bool {
        self.0 = Some(url.clone());
        true
    }
}

/// The cell of a `resources` field.
#[doc(hidden)]
#[derive(Default)]
pub struct UrlsCell(Vec<Url>);

impl UrlsCell {
    /// An empty cell.
    pub fn new() -> Self {
        UrlsCell(Vec::new())
    }

    /// The answers, in the order given.
    pub fn finish(self) -> Vec<Url> {
        self.0
    }
}

impl Cell for UrlsCell {
    fn url(&mut self, url: &Url) -> bool {
        self.0.push(url.clone());
        true
    }

    fn is_array(&self) -> bool {
        true
    }
}

/// The cell of a `files` field.
#[doc(hidden)]
#[derive(Default)]
pub struct FilesCell(Vec<FileRef>);

impl FilesCell {
    /// An empty cell.
    pub fn new() -> Self {
        FilesCell(Vec::new())
    }

    /// The answers, in the order given.
    pub fn finish(self) -> Vec<FileRef> {
        self.0
    }
}

impl Cell for FilesCell {
    fn file_offered(&mut self, url: &Url) -> bool {
        self.0.push(FileRef::Offered(url.clone()));
        true
    }

    fn file_local(&mut self, uri: String, path: String) -> bool {
        self.0.push(FileRef::Local {
            uri,
            path: PathBuf::from(path),
        });
        true
    }

    fn local_given(&self, path: &str) -> bool {
        self.0.iter().any(|f| match f {
            FileRef::Local { path: p, .. } => p.as_os_str() == path,
            FileRef::Offered(_) => false,
        })
    }

    fn is_array(&self) -> bool {
        true
    }
}
