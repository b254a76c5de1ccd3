//! Items the `form!` macro's expansion names through `<runtime>::__private::inline`.
//!
//! Each `{expr}` of an inline form goes through one of the conversion functions below. Each
//! takes a value of a trait that names, in its compile error, the Rust types it accepts at
//! that place of the form, so a wrong interpolation is reported at the expression in the
//! form's own words. Everything is validated with [`DataForm::new`](crate::DataForm::new) when
//! the form is built.

use crate::data::{ChoiceOption, FormSpec, Image, Question, ResourceOption};
use crate::ErrorCode;

pub use crate::data::{
    ChoiceOption as ChoiceOptionModel, FormSpec as FormSpecModel, Image as ImageModel,
    Question as QuestionModel, QuestionSpec as QuestionSpecModel,
    ResourceOption as ResourceOptionModel,
};
pub use crate::{DataForm, FormError};
pub use forms_macros::form as form_impl;
pub use std::clone::Clone;
pub use std::option::Option::{self, None, Some};
pub use std::result::Result;
pub use std::string::String;
pub use std::sync::LazyLock as Lazy;
pub use std::vec::Vec;

/// Validates `spec` (rules R1–R27) and compiles its native request.
pub fn prepare(spec: FormSpec) -> Result<DataForm, FormError> {
    DataForm::new(spec)
}

/// A string literal of the form.
pub fn lit(s: &'static str) -> String {
    String::from(s)
}

/// A list written out in the form.
pub fn list<T, const N: usize>(items: [T; N]) -> Vec<T> {
    Vec::from(items)
}

pub use crate::form_values::*;

/// Converts an interpolated text.
pub fn text<T: TextValue>(value: T) -> String {
    value.into_text()
}

/// Converts an interpolated optional text.
pub fn optional_text<T: OptionalTextValue>(value: T) -> Option<String> {
    value.into_optional_text()
}

/// Converts an interpolated `required`.
pub fn flag<T: BoolValue>(value: T) -> bool {
    value.into_bool()
}

/// Converts an interpolated count.
pub fn count<T: CountValue>(value: T) -> u32 {
    value.into_count()
}

/// Converts an interpolated list of questions.
pub fn questions<T: ListValue<Question>>(value: T) -> Vec<Question> {
    value.into_list()
}

/// Converts one interpolated question.
pub fn question<T: ItemValue<Question>>(value: T) -> Question {
    value.into_item()
}

/// Converts an interpolated list of choice options.
pub fn choice_options<T: ListValue<ChoiceOption>>(value: T) -> Vec<ChoiceOption> {
    value.into_list()
}

/// Converts one interpolated choice option.
pub fn choice_option<T: ItemValue<ChoiceOption>>(value: T) -> ChoiceOption {
    value.into_item()
}

/// Converts an interpolated list of resource options.
pub fn resource_options<T: ListValue<ResourceOption>>(value: T) -> Vec<ResourceOption> {
    value.into_list()
}

/// Converts one interpolated resource option.
pub fn resource_option<T: ItemValue<ResourceOption>>(value: T) -> ResourceOption {
    value.into_item()
}

/// Converts an interpolated list of icons.
pub fn images<T: ListValue<Image>>(value: T) -> Vec<Image> {
    value.into_list()
}

/// Converts one interpolated icon.
pub fn image<T: ItemValue<Image>>(value: T) -> Image {
    value.into_item()
}

/// Converts an interpolated optional image.
pub fn optional_image<T: OptionalImageValue>(value: T) -> Option<Image> {
    value.into_optional_image()
}

/// Converts an interpolated `accept` list.
pub fn accept<T: ListValue<S>, S: TextValue>(value: T) -> Vec<String> {
    value.into_list().into_iter().map(S::into_text).collect()
}

/// The value of an invocation that failed to compile; never reached at run time, it only
/// gives the expression its type so that no follow-on error hides the real one.
pub fn unreachable_form() -> Result<DataForm, FormError> {
    Err(FormError::new(
        ErrorCode::InvalidArguments,
        "the form did not compile",
    ))
}
