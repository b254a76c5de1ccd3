//! The native request: what a validated [`DataForm`] compiles to for the host's
//! `openai/elicitation/create` method (rules N1–N10).
//!
//! [`DataForm::native`] returns a [`NativeRequest`] that borrows the form and serializes, through
//! typed structs, to the request params
//! `{"mode":"form","message":…,"requestedSchema":{"type":"object","properties":…,"required":[…]}}`.
//! Properties appear in question order, and the keys inside each property in a fixed order
//! (`type` first, then `format`, `title`, `description`, the type's own keys, and
//! `x-openai-input` last).
//!
//! | Data question   | Native property                                                                  |
//! | --------------- | -------------------------------------------------------------------------------- |
//! | `text`          | `{"type":"string","title","description"?,"maxLength"}` (N2)                      |
//! | `single_select` | `{"type":"string","title","description"?,"oneOf":[…]}` (N3)                      |
//! | `multi_select`  | `{"type":"array",…,"items":{"type":"string","anyOf":[…]},"minItems","maxItems"}` (N4) |
//! | `resource`      | `{"type":"string","format":"uri",…,"x-openai-input":{"type":"resource","options"}}` (N5) |
//! | `resources`     | `{"type":"array",…,"items":{"type":"string","format":"uri"},"minItems","maxItems","x-openai-input":{…,"selection":"explicit"}}` (N6) |
//! | `files`         | as `resources`, with `"userOptions":{"kind":"file","accept"?}` (N7)              |
//!
//! A choice option becomes `{"const":id,"title","description"?,"x-openai-thumbnail"?}`; a
//! resource option keeps `uri`, `name`, `title`, `description`, `mimeType` and `icons`, and its
//! thumbnail moves to `_meta["openai/thumbnail"]` (N8). No `default` is ever written, and every
//! limit that has a default is written out (N9).
//!
//! The other direction, reading a native request that any server sent, is [`NativeView`]: a
//! lenient, order-keeping view that the linter, the terminal filler, the preview page and
//! `forms host` all read forms through.

pub mod page;
mod view;

pub use view::{
    ChoiceList, ChoiceView, ImageView, NativeError, NativeQuestion, NativeView, QuestionKind,
    ResourceView, UserFiles,
};

use crate::data::{ChoiceOption, DataForm, Image, Question, QuestionSpec, ResourceOption};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

/// The native request params of a validated form (rules N1–N10).
///
/// It borrows the form; serialize it with `serde_json` (or call [`DataForm::native_json`]).
///
/// ```
/// use forms_runtime::data::{FormSpec, Question, QuestionSpec};
/// use forms_runtime::DataForm;
///
/// let form = DataForm::new(FormSpec {
///     message: "Tell us about your data".into(),
///     questions: vec![Question {
///         id: "goal".into(),
///         title: "What would you like to understand?".into(),
///         description: None,
///         required: true,
///         kind: QuestionSpec::Text { max_length: None },
///     }],
/// })?;
/// assert_eq!(
///     form.native_json(),
///     r#"{"mode":"form","message":"Tell us about your data","requestedSchema":{"type":"object","#
///         .to_owned()
///         + r#""properties":{"goal":{"type":"string","title":"What would you like to understand?","#
///         + r#""maxLength":4000}},"required":["goal"]}}"#
/// );
/// # Ok::<(), forms_runtime::FormError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct NativeRequest<'a> {
    form: &'a DataForm,
}

impl<'a> NativeRequest<'a> {
    /// The native request of `form`.
    pub fn new(form: &'a DataForm) -> Self {
        NativeRequest { form }
    }

    /// The form this request was compiled from.
    pub fn form(&self) -> &'a DataForm {
        self.form
    }

    /// The native `message`: the form's message, or `""` when the form is a single `text`
    /// question whose title repeats the message (N10; surrounding whitespace is ignored in the
    /// comparison).
    pub fn message(&self) -> &'a str {
        let form = self.form;
        match form.questions() {
            [only]
                if matches!(only.kind, QuestionSpec::Text { .. })
                    && forms_rules::js_trim(&only.title)
                        == forms_rules::js_trim(form.message()) =>
            {
                ""
            }
            _ => form.message(),
        }
    }

    /// The `requestedSchema` alone (for transports that carry it apart from the message).
    pub fn requested_schema(&self) -> RequestedSchema<'a> {
        RequestedSchema { form: self.form }
    }
}

impl Serialize for NativeRequest<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("mode", "form")?;
        map.serialize_entry("message", self.message())?;
        map.serialize_entry("requestedSchema", &self.requested_schema())?;
        map.end()
    }
}

/// The native `requestedSchema` of a form:
/// `{"type":"object","properties":{…},"required":[…]}` (N1). Properties are in question order;
/// `required` lists the required question IDs in question order and is omitted when empty.
#[derive(Debug, Clone, Copy)]
pub struct RequestedSchema<'a> {
    form: &'a DataForm,
}

impl Serialize for RequestedSchema<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let questions = self.form.questions();
        let required: Vec<&str> = questions
            .iter()
            .filter(|q| q.required)
            .map(|q| q.id.as_str())
            .collect();
        let mut map = serializer.serialize_map(Some(if required.is_empty() { 2 } else { 3 }))?;
        map.serialize_entry("type", "object")?;
        map.serialize_entry("properties", &Properties { form: self.form })?;
        if !required.is_empty() {
            map.serialize_entry("required", &required)?;
        }
        map.end()
    }
}

/// The `properties` object, one entry per question, in question order.
struct Properties<'a> {
    form: &'a DataForm,
}

impl Serialize for Properties<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let questions = self.form.questions();
        let mut map = serializer.serialize_map(Some(questions.len()))?;
        for (index, q) in questions.iter().enumerate() {
            map.serialize_entry(q.id.as_str(), &property(self.form, index, q))?;
        }
        map.end()
    }
}

/// One native property. Serialization writes the inner struct as it is.
#[derive(Serialize)]
#[serde(untagged)]
enum Property<'a> {
    Text(TextProperty<'a>),
    Single(SingleProperty<'a>),
    Multi(MultiProperty<'a>),
    Resource(ResourceProperty<'a>),
    Resources(ResourcesProperty<'a>),
}

fn property<'a>(form: &DataForm, index: usize, q: &'a Question) -> Property<'a> {
    let title = q.title.as_str();
    let description = q.description.as_deref();
    // Every array question of a validated form has resolved limits; the fallback is never used.
    let (min_items, max_items) = form
        .selection_limits(index)
        .map_or((0, forms_rules::limits::ITEMS_MAX), |l| {
            (l.min_items, l.max_items)
        });
    match &q.kind {
        QuestionSpec::Text { max_length } => Property::Text(TextProperty {
            ty: "string",
            title,
            description,
            max_length: form
                .max_length(index)
                .or(*max_length)
                .unwrap_or(forms_rules::limits::MAX_LENGTH_DEFAULT),
        }),
        QuestionSpec::SingleSelect { options } => Property::Single(SingleProperty {
            ty: "string",
            title,
            description,
            one_of: choices(options),
        }),
        QuestionSpec::MultiSelect { options, .. } => Property::Multi(MultiProperty {
            ty: "array",
            title,
            description,
            items: ChoiceItems {
                ty: "string",
                any_of: choices(options),
            },
            min_items,
            max_items,
        }),
        QuestionSpec::Resource { options } => Property::Resource(ResourceProperty {
            ty: "string",
            format: "uri",
            title,
            description,
            input: ResourceInput {
                ty: "resource",
                options: resources(options),
                selection: None,
                user_options: None,
            },
        }),
        QuestionSpec::Resources { options, .. } | QuestionSpec::Files { options, .. } => {
            // N7: a `files` question lets the user add local files, filtered by `accept`.
            let user_options = match &q.kind {
                QuestionSpec::Files { accept, .. } => Some(UserOptions {
                    kind: "file",
                    accept: accept.as_deref(),
                }),
                _ => None,
            };
            Property::Resources(ResourcesProperty {
                ty: "array",
                title,
                description,
                items: UriItems {
                    ty: "string",
                    format: "uri",
                },
                min_items,
                max_items,
                input: ResourceInput {
                    ty: "resource",
                    options: resources(options),
                    selection: Some("explicit"),
                    user_options,
                },
            })
        }
    }
}

/// N2.
#[derive(Serialize)]
struct TextProperty<'a> {
    #[serde(rename = "type")]
    ty: &'static str,
    title: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    #[serde(rename = "maxLength")]
    max_length: u32,
}

/// N3.
#[derive(Serialize)]
struct SingleProperty<'a> {
    #[serde(rename = "type")]
    ty: &'static str,
    title: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    #[serde(rename = "oneOf")]
    one_of: Vec<Choice<'a>>,
}

/// N4.
#[derive(Serialize)]
struct MultiProperty<'a> {
    #[serde(rename = "type")]
    ty: &'static str,
    title: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    items: ChoiceItems<'a>,
    #[serde(rename = "minItems")]
    min_items: u32,
    #[serde(rename = "maxItems")]
    max_items: u32,
}

/// The item schema of N4.
#[derive(Serialize)]
struct ChoiceItems<'a> {
    #[serde(rename = "type")]
    ty: &'static str,
    #[serde(rename = "anyOf")]
    any_of: Vec<Choice<'a>>,
}

/// N5.
#[derive(Serialize)]
struct ResourceProperty<'a> {
    #[serde(rename = "type")]
    ty: &'static str,
    format: &'static str,
    title: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    #[serde(rename = "x-openai-input")]
    input: ResourceInput<'a>,
}

/// N6 and N7.
#[derive(Serialize)]
struct ResourcesProperty<'a> {
    #[serde(rename = "type")]
    ty: &'static str,
    title: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    items: UriItems,
    #[serde(rename = "minItems")]
    min_items: u32,
    #[serde(rename = "maxItems")]
    max_items: u32,
    #[serde(rename = "x-openai-input")]
    input: ResourceInput<'a>,
}

/// The item schema of N6 and N7: `{"type":"string","format":"uri"}`.
#[derive(Serialize)]
struct UriItems {
    #[serde(rename = "type")]
    ty: &'static str,
    format: &'static str,
}

/// `x-openai-input` of N5–N7.
#[derive(Serialize)]
struct ResourceInput<'a> {
    #[serde(rename = "type")]
    ty: &'static str,
    options: Vec<NativeResource<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    selection: Option<&'static str>,
    #[serde(rename = "userOptions", skip_serializing_if = "Option::is_none")]
    user_options: Option<UserOptions<'a>>,
}

/// `userOptions` of N7: the user may add local files, filtered by `accept`.
#[derive(Serialize)]
struct UserOptions<'a> {
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    accept: Option<&'a [String]>,
}

/// A choice option of N3 and N4.
#[derive(Serialize)]
struct Choice<'a> {
    #[serde(rename = "const")]
    id: &'a str,
    title: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    #[serde(rename = "x-openai-thumbnail", skip_serializing_if = "Option::is_none")]
    thumbnail: Option<NativeIcon<'a>>,
}

fn choices(options: &[ChoiceOption]) -> Vec<Choice<'_>> {
    options
        .iter()
        .map(|o| Choice {
            id: &o.id,
            title: &o.title,
            description: o.description.as_deref(),
            thumbnail: o.thumbnail.as_ref().map(NativeIcon::from),
        })
        .collect()
}

/// A resource option of N5–N8.
#[derive(Serialize)]
struct NativeResource<'a> {
    uri: &'a str,
    name: &'a str,
    title: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
    mime_type: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    icons: Option<Vec<NativeIcon<'a>>>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<ResourceMeta<'a>>,
}

/// `_meta` of a native resource: only the thumbnail (N8).
#[derive(Serialize)]
struct ResourceMeta<'a> {
    #[serde(rename = "openai/thumbnail")]
    thumbnail: NativeIcon<'a>,
}

fn resources(options: &[ResourceOption]) -> Vec<NativeResource<'_>> {
    options
        .iter()
        .map(|o| NativeResource {
            uri: &o.uri,
            name: &o.name,
            title: &o.title,
            description: o.description.as_deref(),
            mime_type: o.mime_type.as_deref(),
            icons: o
                .icons
                .as_ref()
                .map(|icons| icons.iter().map(NativeIcon::from).collect()),
            meta: o.thumbnail.as_ref().map(|t| ResourceMeta {
                thumbnail: NativeIcon::from(t),
            }),
        })
        .collect()
}

/// A native icon: `{"src","mimeType"?}`.
#[derive(Serialize)]
struct NativeIcon<'a> {
    src: &'a str,
    #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
    mime_type: Option<&'a str>,
}

impl<'a> From<&'a Image> for NativeIcon<'a> {
    fn from(image: &'a Image) -> Self {
        NativeIcon {
            src: &image.src,
            mime_type: image.mime_type.as_deref(),
        }
    }
}

impl DataForm {
    /// The native `openai/elicitation/create` params of this form (N1–N10), borrowing it.
    ///
    /// ```
    /// use forms_runtime::data::{ChoiceOption, FormSpec, Question, QuestionSpec};
    /// use forms_runtime::DataForm;
    ///
    /// let option = |id: &str, title: &str| ChoiceOption {
    ///     id: id.into(),
    ///     title: title.into(),
    ///     description: None,
    ///     thumbnail: None,
    /// };
    /// let form = DataForm::new(FormSpec {
    ///     message: "Set up your weekly report".into(),
    ///     questions: vec![Question {
    ///         id: "sections".into(),
    ///         title: "Sections".into(),
    ///         description: None,
    ///         required: false,
    ///         kind: QuestionSpec::MultiSelect {
    ///             options: vec![option("sales", "Sales"), option("costs", "Costs")],
    ///             min_items: None,
    ///             max_items: None,
    ///         },
    ///     }],
    /// })?;
    /// let params: serde_json::Value = serde_json::to_value(form.native()).unwrap();
    /// assert_eq!(params["requestedSchema"]["properties"]["sections"]["maxItems"], 2);
    /// assert_eq!(params["requestedSchema"]["properties"]["sections"]["minItems"], 0);
    /// assert!(params["requestedSchema"].get("required").is_none());
    /// # Ok::<(), forms_runtime::FormError>(())
    /// ```
    pub fn native(&self) -> NativeRequest<'_> {
        NativeRequest::new(self)
    }
}
