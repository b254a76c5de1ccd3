//! Items the macros' generated code names through `::forms_runtime::__private`. Not part of
//! the public API; no item here carries a version number.

pub mod decode;
pub mod inline;
pub mod reader;

pub use decode::*;
pub use forms_rules as rules;
pub use std::sync::LazyLock as Lazy;

pub use crate::answer::Outcome;
pub use crate::data::{
    ChoiceOption, DataForm, FormSpec, Image, Question, QuestionSpec, ResourceOption,
};
pub use crate::error::FormError;
pub use crate::typed::{
    AtLeastOptions, ChoiceMeta, ChoiceSet, FileRef, Form, FormChoice, ResponseSource, StaticForm,
    TypedForm,
};
pub use core::option::Option::{self, None, Some};
pub use core::result::Result::{self, Err, Ok};
pub use std::clone::Clone;
pub use std::vec::Vec;
pub use url::Url;

fn opt(s: Option<&str>) -> Option<String> {
    s.map(str::to_owned)
}

/// A question; the derive spells out its `kind`.
pub fn question(
    id: &str,
    title: &str,
    description: Option<&str>,
    required: bool,
    kind: QuestionSpec,
) -> Question {
    Question {
        id: id.to_owned(),
        title: title.to_owned(),
        description: opt(description),
        required,
        kind,
    }
}

/// The choice options of a choice type, from its static metadata.
pub fn choice_options(options: &[ChoiceMeta]) -> Vec<ChoiceOption> {
    options
        .iter()
        .map(|o| ChoiceOption {
            id: o.id.to_owned(),
            title: o.title.to_owned(),
            description: opt(o.description),
            thumbnail: o.thumbnail.map(Image::new),
        })
        .collect()
}

/// A `single_select` kind over the options of a choice type.
pub fn single_select<E>(choice: &ChoiceOf<E>) -> QuestionSpec {
    QuestionSpec::SingleSelect {
        options: choice_options(choice.options),
    }
}

/// A `multi_select` kind over the options of a choice type.
pub fn multi_select<E>(
    choice: &ChoiceOf<E>,
    min_items: Option<u32>,
    max_items: Option<u32>,
) -> QuestionSpec {
    QuestionSpec::MultiSelect {
        options: choice_options(choice.options),
        min_items,
        max_items,
    }
}

/// A `files` question's `accept` list.
pub fn accept(list: Option<&[&str]>) -> Option<Vec<String>> {
    list.map(|a| a.iter().map(|s| (*s).to_owned()).collect())
}

/// Validates the form (R1–R27) and prepares it: native request compiled, offered URIs
/// parsed. `fields[i]` is the Rust field that declared question `i`; errors name it.
///
/// An optional `resource` or `resources` question whose run-time options are empty is left
/// out of the form: there is nothing to offer, and its field decodes as `None` or empty. A
/// required one with no options stays in and fails R14/R15, the author's error.
pub fn build<T, const N: usize>(
    message: &str,
    questions: [Question; N],
    fields: [&str; N],
) -> Result<TypedForm<T>, FormError> {
    let mut kept = Vec::with_capacity(N);
    let mut kept_fields = Vec::with_capacity(N);
    let mut cells = Vec::with_capacity(N);
    for (cell, (question, field)) in questions.into_iter().zip(fields).enumerate() {
        if !nothing_to_offer(&question) {
            kept.push(question);
            kept_fields.push(field);
            cells.push(cell);
        }
    }
    let identity = cells.len() == N;
    DataForm::new(FormSpec {
        message: message.to_owned(),
        questions: kept,
    })
    .and_then(|data| TypedForm::from_data(data, &kept_fields))
    .map(|form| {
        if identity {
            form
        } else {
            form.with_cells(cells)
        }
    })
    .map_err(|e| e.with_fields(&kept_fields))
}

/// An optional `resource` or `resources` question built with no options.
fn nothing_to_offer(q: &Question) -> bool {
    match &q.kind {
        QuestionSpec::Resource { options } => !q.required && options.is_empty(),
        QuestionSpec::Resources {
            options, min_items, ..
        } => !q.required && options.is_empty() && min_items.unwrap_or(0) == 0,
        _ => false,
    }
}

/// The form of a type without run-time parts, from its build. The derive checked every rule
/// at compile time, with the same functions the build runs, so the build cannot fail; if it
/// ever did, the compile-time and run-time checks disagree, which is a bug in this crate,
/// reported as such rather than answered with a form that breaks the contract.
#[allow(clippy::panic)]
pub fn checked<T>(built: Result<TypedForm<T>, FormError>) -> TypedForm<T> {
    match built {
        Ok(form) => form,
        Err(e) => panic!(
            "forms: a form checked at compile time failed its run-time check ({e}); \
             please report this bug"
        ),
    }
}

/// A clone of a form built once per process.
pub fn cached<T>(form: &Lazy<TypedForm<T>>) -> TypedForm<T> {
    TypedForm::clone(form)
}

/// The body of the stub `StaticForm` impl emitted when the derive reported errors; never
/// reached, since the crate does not compile.
#[allow(clippy::panic)]
pub fn never<T>() -> T {
    panic!("the form's `#[derive(Form)]` reported compile errors")
}

/// The body of the stub impls emitted when the derive reported errors; never reached, since
/// the crate does not compile.
pub fn failed<T>() -> Result<T, FormError> {
    Err(FormError::new(
        crate::ErrorCode::InvalidArguments,
        "the form's `#[derive(Form)]` reported compile errors",
    ))
}
