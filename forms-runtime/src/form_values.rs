//! The Rust values `form!` takes in braces, `{expr}`, at each place of an inline form: each
//! trait names, in its compile error, the types it accepts there, so a value of the wrong
//! type is reported at the expression in the form's own words.
//!
//! ```
//! use forms_runtime::form_values::TextValue;
//!
//! assert_eq!(TextValue::into_text("Goal"), "Goal");
//! ```

use crate::data::Image;
use std::borrow::Cow;

// `do_not_recommend` (Rust 1.85) on the impls: an error names the trait and its note, not
// a list of this crate's impls.

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

#[allow(unknown_or_malformed_diagnostic_attributes)]
#[diagnostic::do_not_recommend]
impl TextValue for &str {
    fn into_text(self) -> String {
        self.to_owned()
    }
}
#[allow(unknown_or_malformed_diagnostic_attributes)]
#[diagnostic::do_not_recommend]
impl TextValue for String {
    fn into_text(self) -> String {
        self
    }
}
#[allow(unknown_or_malformed_diagnostic_attributes)]
#[diagnostic::do_not_recommend]
impl TextValue for &String {
    fn into_text(self) -> String {
        self.clone()
    }
}
#[allow(unknown_or_malformed_diagnostic_attributes)]
#[diagnostic::do_not_recommend]
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

#[allow(unknown_or_malformed_diagnostic_attributes)]
#[diagnostic::do_not_recommend]
impl<T: TextValue> OptionalTextValue for T {
    fn into_optional_text(self) -> Option<String> {
        Some(self.into_text())
    }
}
#[allow(unknown_or_malformed_diagnostic_attributes)]
#[diagnostic::do_not_recommend]
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
#[allow(unknown_or_malformed_diagnostic_attributes)]
#[diagnostic::do_not_recommend]
impl BoolValue for bool {
    fn into_bool(self) -> bool {
        self
    }
}
#[allow(unknown_or_malformed_diagnostic_attributes)]
#[diagnostic::do_not_recommend]
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
#[allow(unknown_or_malformed_diagnostic_attributes)]
#[diagnostic::do_not_recommend]
impl CountValue for u8 {
    fn into_count(self) -> u32 {
        u32::from(self)
    }
}
#[allow(unknown_or_malformed_diagnostic_attributes)]
#[diagnostic::do_not_recommend]
impl CountValue for u16 {
    fn into_count(self) -> u32 {
        u32::from(self)
    }
}
#[allow(unknown_or_malformed_diagnostic_attributes)]
#[diagnostic::do_not_recommend]
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
#[allow(unknown_or_malformed_diagnostic_attributes)]
#[diagnostic::do_not_recommend]
impl<T> ListValue<T> for Vec<T> {
    fn into_list(self) -> Vec<T> {
        self
    }
}
#[allow(unknown_or_malformed_diagnostic_attributes)]
#[diagnostic::do_not_recommend]
impl<T: Clone> ListValue<T> for &[T] {
    fn into_list(self) -> Vec<T> {
        self.to_vec()
    }
}
#[allow(unknown_or_malformed_diagnostic_attributes)]
#[diagnostic::do_not_recommend]
impl<T: Clone> ListValue<T> for &Vec<T> {
    fn into_list(self) -> Vec<T> {
        self.clone()
    }
}
#[allow(unknown_or_malformed_diagnostic_attributes)]
#[diagnostic::do_not_recommend]
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
#[allow(unknown_or_malformed_diagnostic_attributes)]
#[diagnostic::do_not_recommend]
impl<T> ItemValue<T> for T {
    fn into_item(self) -> T {
        self
    }
}
#[allow(unknown_or_malformed_diagnostic_attributes)]
#[diagnostic::do_not_recommend]
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
#[allow(unknown_or_malformed_diagnostic_attributes)]
#[diagnostic::do_not_recommend]
impl OptionalImageValue for Image {
    fn into_optional_image(self) -> Option<Image> {
        Some(self)
    }
}
#[allow(unknown_or_malformed_diagnostic_attributes)]
#[diagnostic::do_not_recommend]
impl OptionalImageValue for &Image {
    fn into_optional_image(self) -> Option<Image> {
        Some(self.clone())
    }
}
#[allow(unknown_or_malformed_diagnostic_attributes)]
#[diagnostic::do_not_recommend]
impl OptionalImageValue for Option<Image> {
    fn into_optional_image(self) -> Option<Image> {
        self
    }
}
