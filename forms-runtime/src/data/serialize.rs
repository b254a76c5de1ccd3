//! The normalized Data JSON: typed `Serialize` impls that write every object's keys in the
//! canonical order (the R4 size of a built form is measured in `size.rs`).
//!
//! Canonical order:
//! - form: `message`, `questions`;
//! - question: `id`, `type`, `title`, `description`?, `required`, then the kind's fields:
//!   `maxLength`? (text) | `options` (choice and resource kinds; omitted for `files` when it
//!   offers none) | `minItems`? `maxItems`? (array kinds) | `accept`? (files);
//! - choice option: `id`, `title`, `description`?, `thumbnail`?;
//! - resource option: `uri`, `name`, `title`, `description`?, `mimeType`?, `icons`?, `thumbnail`?;
//! - image: `src`, `mimeType`?.
//!
//! Optional fields that were not given stay omitted: no default is written out.

use super::model::{ChoiceOption, FormSpec, Image, Question, QuestionSpec, ResourceOption};
use super::DataForm;
use serde::ser::{Serialize, SerializeStruct, Serializer};

impl Serialize for FormSpec {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("FormSpec", 2)?;
        s.serialize_field("message", &self.message)?;
        s.serialize_field("questions", &self.questions)?;
        s.end()
    }
}

impl Serialize for DataForm {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.spec().serialize(serializer)
    }
}

/// Writes `value` under `key` when it is present.
fn opt<S: SerializeStruct, T: Serialize + ?Sized>(
    s: &mut S,
    key: &'static str,
    value: Option<&T>,
) -> Result<(), S::Error> {
    match value {
        Some(v) => s.serialize_field(key, v),
        None => s.skip_field(key),
    }
}

impl Serialize for Question {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Question", 9)?;
        s.serialize_field("id", &self.id)?;
        s.serialize_field("type", self.kind.kind().as_str())?;
        s.serialize_field("title", &self.title)?;
        opt(&mut s, "description", self.description.as_ref())?;
        s.serialize_field("required", &self.required)?;
        match &self.kind {
            QuestionSpec::Text { max_length } => opt(&mut s, "maxLength", max_length.as_ref())?,
            QuestionSpec::SingleSelect { options } => s.serialize_field("options", options)?,
            QuestionSpec::MultiSelect {
                options,
                min_items,
                max_items,
            } => {
                s.serialize_field("options", options)?;
                opt(&mut s, "minItems", min_items.as_ref())?;
                opt(&mut s, "maxItems", max_items.as_ref())?;
            }
            QuestionSpec::Resource { options } => s.serialize_field("options", options)?,
            QuestionSpec::Resources {
                options,
                min_items,
                max_items,
            } => {
                s.serialize_field("options", options)?;
                opt(&mut s, "minItems", min_items.as_ref())?;
                opt(&mut s, "maxItems", max_items.as_ref())?;
            }
            QuestionSpec::Files {
                options,
                min_items,
                max_items,
                accept,
            } => {
                // `options` is optional for files; an empty list is the same as none.
                opt(&mut s, "options", Some(options).filter(|o| !o.is_empty()))?;
                opt(&mut s, "minItems", min_items.as_ref())?;
                opt(&mut s, "maxItems", max_items.as_ref())?;
                opt(&mut s, "accept", accept.as_ref())?;
            }
        }
        s.end()
    }
}

impl Serialize for ChoiceOption {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("ChoiceOption", 4)?;
        s.serialize_field("id", &self.id)?;
        s.serialize_field("title", &self.title)?;
        opt(&mut s, "description", self.description.as_ref())?;
        opt(&mut s, "thumbnail", self.thumbnail.as_ref())?;
        s.end()
    }
}

impl Serialize for ResourceOption {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("ResourceOption", 7)?;
        s.serialize_field("uri", &self.uri)?;
        s.serialize_field("name", &self.name)?;
        s.serialize_field("title", &self.title)?;
        opt(&mut s, "description", self.description.as_ref())?;
        opt(&mut s, "mimeType", self.mime_type.as_ref())?;
        opt(&mut s, "icons", self.icons.as_ref())?;
        opt(&mut s, "thumbnail", self.thumbnail.as_ref())?;
        s.end()
    }
}

impl Serialize for Image {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Image", 2)?;
        s.serialize_field("src", &self.src)?;
        opt(&mut s, "mimeType", self.mime_type.as_ref())?;
        s.end()
    }
}

/// The compact normalized JSON of `form`.
pub(crate) fn to_json(form: &DataForm) -> String {
    // Serializing strings, booleans and integers into a `Vec` cannot fail.
    serde_json::to_string(form).unwrap_or_default()
}
