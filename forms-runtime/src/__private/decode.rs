//! Decoding straight into a derived type's fields: the derive makes one cell per field, in
//! question order, and the checker writes each checked answer into the cell of its question.

use crate::answer::{Action, Sink};
use crate::error::{Finding, FormError, JsonPath};
use crate::typed::{ChoiceMeta, FileRef, FormChoice, ResponseSource, TypedForm};
use crate::Outcome;
use std::path::PathBuf;
use url::Url;

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
    let inner = form.inner();
    let mut sink = CellSink {
        cells: &mut cells,
        offered: &inner.offered,
        map: &inner.cells,
    };
    let checked = inner.data.check_into(response.0, &mut sink).map_err(|e| {
        e.with_answer_fields(|path| {
            let i = inner.data.question_index(path.answer_id()?)?;
            inner.fields.get(i).map(String::as_str)
        })
    })?;
    Ok(match checked {
        Action::Accept => Outcome::Accepted(take(cells)?),
        Action::Decline => Outcome::Declined,
        Action::Cancel => Outcome::Cancelled,
    })
}

/// The error for a required field left empty: the checker refuses such a response (V2), so
/// this means the form and the type disagree. `field_index` is the field's place in the type.
#[doc(hidden)]
pub fn missing<T>(form: &TypedForm<T>, field_index: usize) -> FormError {
    let id = form
        .question_of(field_index)
        .and_then(|q| form.data().questions().get(q))
        .map_or("?", |q| q.id.as_str());
    FormError::invalid_response(Finding::new(
        JsonPath::response().key("content").key(id),
        Some(forms_rules::Rule::V2),
        "is required",
    ))
}

/// Where one field's checked answer is written. Each method returns `false` when the answer
/// is of a kind the field cannot hold.
#[doc(hidden)]
pub trait Cell {
    /// Empties the cell (before the response is read again).
    fn clear(&mut self);
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
    /// [`Cell::clear`] of every cell.
    fn clear(&mut self);
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
            fn clear(&mut self) {
                $(self.$i.clear();)+
            }
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

/// The checker's sink for a derived type: each question's value goes to its field's cell.
struct CellSink<'a, C> {
    cells: &'a mut C,
    offered: &'a [Box<[Url]>],
    /// Question → cell, when questions were left out of the form; empty otherwise.
    map: &'a [usize],
}

impl<C> CellSink<'_, C> {
    /// The cell of question `q`.
    fn cell(&self, q: usize) -> usize {
        self.map.get(q).copied().unwrap_or(q)
    }
}

impl<C: Cells> Sink for CellSink<'_, C> {
    fn clear(&mut self) {
        self.cells.clear();
    }

    fn text(&mut self, q: usize, v: String) -> bool {
        let c = self.cell(q);
        self.cells.text(c, v)
    }

    fn choice(&mut self, q: usize, option: usize) -> bool {
        let c = self.cell(q);
        self.cells.choice(c, option)
    }

    fn resource(&mut self, q: usize, option: usize) -> bool {
        let c = self.cell(q);
        let (offered, cells) = (self.offered, &mut *self.cells);
        match offered.get(q).and_then(|o| o.get(option)) {
            Some(url) => cells.url(c, url),
            None => false,
        }
    }

    fn array(&mut self, q: usize) -> bool {
        let c = self.cell(q);
        self.cells.is_array(c)
    }

    fn choice_item(&mut self, q: usize, option: usize) -> bool {
        self.choice(q, option)
    }

    fn resource_item(&mut self, q: usize, option: usize) -> bool {
        self.resource(q, option)
    }

    fn file_offered(&mut self, q: usize, option: usize) -> bool {
        let c = self.cell(q);
        let (offered, cells) = (self.offered, &mut *self.cells);
        match offered.get(q).and_then(|o| o.get(option)) {
            Some(url) => cells.file_offered(c, url),
            None => false,
        }
    }

    fn file_local(&mut self, q: usize, uri: String, path: String) -> bool {
        let c = self.cell(q);
        self.cells.file_local(c, uri, path)
    }

    fn local_given(&self, q: usize, path: &str) -> bool {
        self.cells.local_given(self.cell(q), path)
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
    fn clear(&mut self) {
        self.0 = None;
    }

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
    fn clear(&mut self) {
        self.value = None;
    }

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

    /// The answers, in the order given; the field's [`ChoiceSet`](crate::ChoiceSet) makes
    /// its collection of them.
    pub fn into_vec(self) -> Vec<E> {
        self.values
    }
}

impl<E> Cell for ChoicesCell<E> {
    fn clear(&mut self) {
        self.values.clear();
    }

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
    fn clear(&mut self) {
        self.0 = None;
    }

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
    fn clear(&mut self) {
        self.0.clear();
    }

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
    fn clear(&mut self) {
        self.0.clear();
    }

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
