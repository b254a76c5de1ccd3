//! Items the `form!` macro's expansion names through `<runtime>::__private::inline`.
//!
//! Each `{expr}` of an inline form goes through one of the conversion functions below. Each
//! takes a value of a trait that names, in its compile error, the Rust types it accepts at
//! that place of the form, so a wrong interpolation is reported at the expression in the
//! form's own words. Everything is validated with [`DataForm::new`](crate::DataForm::new) when
//! the form is built.

use crate::data::{ChoiceOption, FormSpec, Image, Question, ResourceOption};
use crate::ErrorCode;
use std::borrow::Cow;

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

/// A run-time text value.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be used as text in `form!`",
    label = "expected `&str`, `String` or `Cow<str>`",
    note = "`form!` takes a `&str`, `String`, `&String` or `Cow<str>` here"
)]
pub trait TextValue {
    /// The owned text.
    fn into_text(self) -> String;
}

impl TextValue for &str {
    fn into_text(self) -> String {
        self.to_owned()
    }
}
impl TextValue for String {
    fn into_text(self) -> String {
        self
    }
}
impl TextValue for &String {
    fn into_text(self) -> String {
        self.clone()
    }
}
impl TextValue for Cow<'_, str> {
    fn into_text(self) -> String {
        self.into_owned()
    }
}

/// A run-time text value of a key that may be left out (`description`, `mimeType`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be used as optional text in `form!`",
    label = "expected `&str`, `String`, or an `Option` of either",
    note = "`form!` takes a `&str`, `String`, `&String`, `Cow<str>`, `Option<&str>` or \
            `Option<String>` here"
)]
pub trait OptionalTextValue {
    /// The owned text, or `None` to leave the key out.
    fn into_optional_text(self) -> Option<String>;
}

impl<T: TextValue> OptionalTextValue for T {
    fn into_optional_text(self) -> Option<String> {
        Some(self.into_text())
    }
}
impl<T: TextValue> OptionalTextValue for Option<T> {
    fn into_optional_text(self) -> Option<String> {
        self.map(TextValue::into_text)
    }
}

/// A run-time boolean (`required`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be used as `required` in `form!`",
    label = "expected `bool`",
    note = "`required` is an explicit `bool` (rule R10)"
)]
pub trait BoolValue {
    /// The flag.
    fn into_bool(self) -> bool;
}
impl BoolValue for bool {
    fn into_bool(self) -> bool {
        self
    }
}
impl BoolValue for &bool {
    fn into_bool(self) -> bool {
        *self
    }
}

/// A run-time count (`maxLength`, `minItems`, `maxItems`): an unsigned integer that fits
/// in `u32`, so no value is ever truncated.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be used as a count in `form!`",
    label = "expected `u8`, `u16` or `u32`",
    note = "`maxLength`, `minItems` and `maxItems` take a `u8`, `u16` or `u32`; convert \
            other integers with `u32::try_from`"
)]
pub trait CountValue {
    /// The count.
    fn into_count(self) -> u32;
}
impl CountValue for u8 {
    fn into_count(self) -> u32 {
        u32::from(self)
    }
}
impl CountValue for u16 {
    fn into_count(self) -> u32 {
        u32::from(self)
    }
}
impl CountValue for u32 {
    fn into_count(self) -> u32 {
        self
    }
}

/// A run-time list, converted item by item (`options`, `icons`, `accept`, `questions`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be used as a list of `{T}` in `form!`",
    label = "expected a `Vec`, slice or array of `{T}`",
    note = "`form!` takes a `Vec<{T}>`, `&[{T}]`, `&Vec<{T}>` or `[{T}; N]` here"
)]
pub trait ListValue<T> {
    /// The items.
    fn into_list(self) -> Vec<T>;
}
impl<T> ListValue<T> for Vec<T> {
    fn into_list(self) -> Vec<T> {
        self
    }
}
impl<T: Clone> ListValue<T> for &[T] {
    fn into_list(self) -> Vec<T> {
        self.to_vec()
    }
}
impl<T: Clone> ListValue<T> for &Vec<T> {
    fn into_list(self) -> Vec<T> {
        self.clone()
    }
}
impl<T, const N: usize> ListValue<T> for [T; N] {
    fn into_list(self) -> Vec<T> {
        Vec::from(self)
    }
}

/// A run-time item of a list (one option, one image, one question).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be used as a `{T}` in `form!`",
    label = "expected `{T}`",
    note = "`form!` takes a `{T}` or a `&{T}` here"
)]
pub trait ItemValue<T> {
    /// The item.
    fn into_item(self) -> T;
}
impl<T> ItemValue<T> for T {
    fn into_item(self) -> T {
        self
    }
}
impl<T: Clone> ItemValue<T> for &T {
    fn into_item(self) -> T {
        self.clone()
    }
}

/// A run-time image of a key that may be left out (`thumbnail`, `preview`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be used as an image in `form!`",
    label = "expected `Image` or `Option<Image>`",
    note = "`form!` takes an `Image`, `&Image` or `Option<Image>` here"
)]
pub trait OptionalImageValue {
    /// The image, or `None` to leave the key out.
    fn into_optional_image(self) -> Option<Image>;
}
impl OptionalImageValue for Image {
    fn into_optional_image(self) -> Option<Image> {
        Some(self)
    }
}
impl OptionalImageValue for &Image {
    fn into_optional_image(self) -> Option<Image> {
        Some(self.clone())
    }
}
impl OptionalImageValue for Option<Image> {
    fn into_optional_image(self) -> Option<Image> {
        self
    }
}

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
