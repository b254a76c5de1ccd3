//! A typed, lenient, order-keeping view of a native request, read from any server.
//!
//! [`NativeView`] is what a host reads from the params of `openai/elicitation/create` (or of a
//! core `elicitation/create`): the message and, in document order, every question with its
//! kind, title, description, limits, options, resources, offered files and images. It is read
//! once, and every consumer (the linter, the terminal filler, the preview page, `forms host`)
//! works from it instead of reading the JSON again.
//!
//! Lenient means it reads what a host would show: unknown keys are ignored; a field that is
//! missing or of the wrong type reads as absent; an option that cannot be read is left out
//! and noted in [`NativeQuestion::notes`]; a question that cannot be read at all is kept as
//! [`QuestionKind::Unreadable`] with the reason. Only a request without an object
//! `requestedSchema.properties` fails to read ([`NativeError`]). [`NativeView::from_request`]
//! adds the checks a host makes before it shows a form (a string `message`, a schema of type
//! `"object"`).
//!
//! The view serializes (with `serde_json`) to one JSON shape, the one the preview page's
//! script reads: `{"mode","message","schemaType","questions":[{"id","title","description",
//! "required","default","notes","kind",…}]}`, where `kind` is `text`, `single_select`,
//! `multi_select`, `resource`, `resources`, `number`, `boolean` or `unreadable` and the
//! other keys are the kind's own fields in camelCase.
//!
//! ```
//! use forms_runtime::native::{NativeView, QuestionKind};
//!
//! let view = NativeView::from_json(r#"{"mode":"form","message":"Report","requestedSchema":{
//!     "type":"object","required":["format"],"properties":{
//!       "format":{"type":"string","title":"Format","oneOf":[{"const":"pdf","title":"PDF"}]},
//!       "notes":{"type":"string","title":"Notes","maxLength":200,"x-unknown":true},
//!       "when":{"type":"object"}}}}"#)?;
//! let ids: Vec<&str> = view.questions.iter().map(|q| q.id.as_str()).collect();
//! assert_eq!(ids, ["format", "notes", "when"]);
//! assert!(view.questions[0].required);
//! assert!(matches!(&view.questions[0].kind,
//!     QuestionKind::SingleSelect { options, .. } if options[0].value == "pdf"));
//! assert!(matches!(view.questions[1].kind,
//!     QuestionKind::Text { max_length: Some(200), .. }));
//! assert!(matches!(&view.questions[2].kind, QuestionKind::Unreadable { .. }));
//! # Ok::<(), forms_runtime::native::NativeError>(())
//! ```

use forms_rules::is_js_blank;
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Why a request could not be read as a form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NativeError(String);

impl NativeError {
    fn new(why: impl Into<String>) -> NativeError {
        NativeError(why.into())
    }

    /// The reason, in one line (it may quote the request).
    pub fn reason(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for NativeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NativeError {}

/// The host's view of a native request's params.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NativeView {
    /// `mode`, when it is a string (`"form"` for a native request).
    pub mode: Option<String>,
    /// `message`, when it is a string.
    pub message: Option<String>,
    /// `requestedSchema.type`, when it is a string (a form's is `"object"`).
    pub schema_type: Option<String>,
    /// The questions (`requestedSchema.properties`), in document order.
    pub questions: Vec<NativeQuestion>,
}

/// One question: a property of `requestedSchema.properties`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NativeQuestion {
    /// The property's key.
    pub id: String,
    /// `title`, when it is a string.
    pub title: Option<String>,
    /// `description`, when it is a string.
    pub description: Option<String>,
    /// Whether `requestedSchema.required` lists the question.
    pub required: bool,
    /// `default`, as given (core elicitation fields may carry one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    /// Parts of the question that could not be read and were left out (an option without a
    /// string `const` or `uri`, …), one line each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// What kind of answer it takes, with the kind's own fields.
    #[serde(flatten)]
    pub kind: QuestionKind,
}

/// The kind of a question, as a host tells it from the property's shape.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum QuestionKind {
    /// `{"type":"string"}` with no options (N2, and core text fields).
    #[serde(rename_all = "camelCase")]
    Text {
        /// `minLength`.
        min_length: Option<u64>,
        /// `maxLength`.
        max_length: Option<u64>,
        /// `format` (`email`, `uri`, `date`, `date-time` for core fields).
        format: Option<String>,
    },
    /// `{"type":"string"}` with a `oneOf` (N3) or a core `enum` list: one choice.
    #[serde(rename_all = "camelCase")]
    SingleSelect {
        /// The options, in order.
        options: Vec<ChoiceView>,
        /// Where the options were read from.
        list: ChoiceList,
    },
    /// `{"type":"array"}` with `items.anyOf` (N4), `items.oneOf` or `items.enum`: several
    /// choices.
    #[serde(rename_all = "camelCase")]
    MultiSelect {
        /// The options, in order.
        options: Vec<ChoiceView>,
        /// Where the options were read from.
        list: ChoiceList,
        /// `minItems`.
        min_items: Option<u64>,
        /// `maxItems`.
        max_items: Option<u64>,
    },
    /// `{"type":"string"}` with `x-openai-input`: one resource (N5).
    #[serde(rename_all = "camelCase")]
    Resource {
        /// `x-openai-input.options`, in order.
        options: Vec<ResourceView>,
        /// Whether, and which, local files the person may add.
        files: Option<UserFiles>,
    },
    /// `{"type":"array"}` with `x-openai-input`: several resources (N6) or files (N7).
    #[serde(rename_all = "camelCase")]
    Resources {
        /// `x-openai-input.options`, in order.
        options: Vec<ResourceView>,
        /// Whether, and which, local files the person may add.
        files: Option<UserFiles>,
        /// `minItems`.
        min_items: Option<u64>,
        /// `maxItems`.
        max_items: Option<u64>,
        /// `x-openai-input.selection` (`"explicit"`, or `"implicit"`: every option starts
        /// picked).
        selection: Option<String>,
    },
    /// A core `integer` or `number` field.
    #[serde(rename_all = "camelCase")]
    Number {
        /// Whether it takes whole numbers only (`"type":"integer"`).
        integer: bool,
        /// `minimum`.
        minimum: Option<f64>,
        /// `maximum`.
        maximum: Option<f64>,
    },
    /// A core `boolean` field.
    Boolean,
    /// A property no host can show, kept so that a consumer can warn about it or refuse it.
    Unreadable {
        /// Why, in words (`a field of type \`object\``, `not an object`, …).
        reason: String,
    },
}

/// Where a choice question's options are in the property, for paths in messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ChoiceList {
    /// `oneOf` (N3).
    OneOf,
    /// `enum`, titled by `enumNames` (core).
    Enum,
    /// `items.anyOf` (N4).
    ItemsAnyOf,
    /// `items.oneOf`.
    ItemsOneOf,
    /// `items.enum`, titled by `items.enumNames` (core).
    ItemsEnum,
}

impl ChoiceList {
    /// The list's key path inside the property (`oneOf`, `items.anyOf`, …).
    pub fn path(self) -> &'static str {
        match self {
            ChoiceList::OneOf => "oneOf",
            ChoiceList::Enum => "enum",
            ChoiceList::ItemsAnyOf => "items.anyOf",
            ChoiceList::ItemsOneOf => "items.oneOf",
            ChoiceList::ItemsEnum => "items.enum",
        }
    }

    /// Whether the list is a plain `enum` of values, whose options have no description or
    /// thumbnail to give.
    pub fn is_enum(self) -> bool {
        matches!(self, ChoiceList::Enum | ChoiceList::ItemsEnum)
    }
}

/// One option of a choice question.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChoiceView {
    /// The answer value (`const`, or the `enum` entry).
    pub value: String,
    /// `title` (or the `enumNames` entry), when it is a string.
    pub title: Option<String>,
    /// `description`, when it is a string.
    pub description: Option<String>,
    /// `x-openai-thumbnail` (or the older `x-openai-preview`), when it is an object.
    pub thumbnail: Option<ImageView>,
}

impl ChoiceView {
    /// What the option shows: its title, or its value when the title is absent or empty.
    pub fn label(&self) -> &str {
        self.title
            .as_deref()
            .filter(|t| !t.is_empty())
            .unwrap_or(&self.value)
    }
}

/// One offered resource of a resource or files question.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceView {
    /// `uri`: the answer value.
    pub uri: String,
    /// `name`, when it is a string.
    pub name: Option<String>,
    /// `title`, when it is a string.
    pub title: Option<String>,
    /// `description`, when it is a string.
    pub description: Option<String>,
    /// `mimeType`, when it is a string.
    pub mime_type: Option<String>,
    /// `icons`, in order (only the objects among them).
    pub icons: Vec<ImageView>,
    /// `_meta["openai/thumbnail"]` when it is an object, else `_meta["openai/preview"]` when
    /// it is an object with a string `src`.
    pub thumbnail: Option<ImageView>,
}

impl ResourceView {
    /// What the card's caption shows: the title unless it is blank, else the name, else the
    /// URI.
    pub fn label(&self) -> &str {
        self.title
            .as_deref()
            .filter(|t| !is_js_blank(t))
            .or(self.name.as_deref())
            .unwrap_or(&self.uri)
    }

    /// The icon a light page shows: the first not marked `"theme":"dark"`, else the first.
    pub fn icon(&self) -> Option<&ImageView> {
        self.icons
            .iter()
            .find(|i| i.theme.as_deref() != Some("dark"))
            .or_else(|| self.icons.first())
    }
}

/// An image: an icon or a thumbnail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageView {
    /// `src`, when it is a string (a page shows only `https:`, `http:` and `data:image/`).
    pub src: Option<String>,
    /// `mimeType`, when it is a string.
    pub mime_type: Option<String>,
    /// `theme` (`"light"` or `"dark"`), when it is a string.
    pub theme: Option<String>,
}

/// The local files a person may add to a resource question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UserFiles {
    /// Whether folders are added instead of files (`"kind":"directory"`).
    pub directory: bool,
    /// The `accept` filter (extensions such as `.csv`, MIME types such as `image/*`); empty
    /// takes every file.
    pub accept: Vec<String>,
}

fn text(object: &Map<String, Value>, key: &str) -> Option<String> {
    object.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn count(object: &Map<String, Value>, key: &str) -> Option<u64> {
    object.get(key).and_then(Value::as_u64)
}

fn array<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a [Value]> {
    object.get(key).and_then(Value::as_array).map(Vec::as_slice)
}

/// The kind of a JSON value, in words.
fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn image(value: &Value) -> Option<ImageView> {
    let object = value.as_object()?;
    Some(ImageView {
        src: text(object, "src"),
        mime_type: text(object, "mimeType"),
        theme: text(object, "theme"),
    })
}

impl NativeView {
    /// Reads native request params from JSON text, keeping the question order of the text
    /// whatever `serde_json`'s map order.
    pub fn from_json(json: &str) -> Result<NativeView, NativeError> {
        let value: Value = serde_json::from_str(json)
            .map_err(|e| NativeError::new(format!("the request is not JSON: {e}")))?;
        // The property keys in document order, read apart: `serde_json::Map` sorts its keys
        // unless the `preserve_order` feature is on somewhere in the build.
        let order = serde_json::from_str::<OrderProbe>(json)
            .ok()
            .and_then(|p| p.schema)
            .and_then(|s| s.properties)
            .map(|k| k.0);
        NativeView::read(&value, order.as_deref())
    }

    /// Reads native request params from a JSON value. Questions come in the value's map
    /// order, which is the document order when `serde_json`'s `preserve_order` feature is on.
    pub fn from_value(params: &Value) -> Result<NativeView, NativeError> {
        NativeView::read(params, None)
    }

    /// Reads params as a host does before it shows a form: as [`NativeView::from_value`], and
    /// the params must also hold a string `message` and a schema of type `"object"`.
    pub fn from_request(params: &Value) -> Result<NativeView, NativeError> {
        if let Some(object) = params.as_object() {
            match object.get("message") {
                Some(Value::String(_)) => {}
                Some(other) => {
                    return Err(NativeError::new(format!(
                        "`message` is {}, not a string",
                        kind_of(other)
                    )))
                }
                None => return Err(NativeError::new("`message` is missing")),
            }
        }
        let view = NativeView::read(params, None)?;
        if view.schema_type.as_deref() != Some("object") {
            return Err(NativeError::new("`requestedSchema.type` is not \"object\""));
        }
        Ok(view)
    }

    /// The question with key `id`.
    pub fn question(&self, id: &str) -> Option<&NativeQuestion> {
        self.questions.iter().find(|q| q.id == id)
    }

    /// The message, or `""` when there is none.
    pub fn message(&self) -> &str {
        self.message.as_deref().unwrap_or("")
    }

    fn read(params: &Value, order: Option<&[String]>) -> Result<NativeView, NativeError> {
        let Some(object) = params.as_object() else {
            return Err(NativeError::new(format!(
                "the params are not an object but {}",
                kind_of(params)
            )));
        };
        let schema = match object.get("requestedSchema") {
            Some(Value::Object(schema)) => schema,
            Some(other) => {
                return Err(NativeError::new(format!(
                    "`requestedSchema` is {}, not an object",
                    kind_of(other)
                )))
            }
            None => return Err(NativeError::new("`requestedSchema` is missing")),
        };
        let properties = match schema.get("properties") {
            Some(Value::Object(properties)) => properties,
            Some(other) => {
                return Err(NativeError::new(format!(
                    "`requestedSchema.properties` is {}, not an object",
                    kind_of(other)
                )))
            }
            None => return Err(NativeError::new("`requestedSchema.properties` is missing")),
        };
        let required: Vec<&str> = array(schema, "required")
            .unwrap_or_default()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let mut entries: Vec<(&String, &Value)> = Vec::with_capacity(properties.len());
        match order {
            Some(order) => {
                for key in order {
                    let fresh = !entries.iter().any(|(k, _)| *k == key);
                    if let (true, Some((k, v))) = (fresh, properties.get_key_value(key)) {
                        entries.push((k, v));
                    }
                }
                // Anything the probe missed keeps the map's order, after the rest.
                for (k, v) in properties {
                    if !entries.iter().any(|(seen, _)| *seen == k) {
                        entries.push((k, v));
                    }
                }
            }
            None => entries.extend(properties.iter()),
        }
        let questions = entries
            .into_iter()
            .map(|(id, property)| question(id, property, required.contains(&id.as_str())))
            .collect();
        Ok(NativeView {
            mode: text(object, "mode"),
            message: text(object, "message"),
            schema_type: text(schema, "type"),
            questions,
        })
    }
}

fn question(id: &str, property: &Value, required: bool) -> NativeQuestion {
    let mut notes = Vec::new();
    let Some(p) = property.as_object() else {
        return NativeQuestion {
            id: id.to_owned(),
            title: None,
            description: None,
            required,
            default: None,
            notes,
            kind: QuestionKind::Unreadable {
                reason: format!("the property is {}, not an object", kind_of(property)),
            },
        };
    };
    let kind = kind(p, &mut notes);
    NativeQuestion {
        id: id.to_owned(),
        title: text(p, "title"),
        description: text(p, "description"),
        required,
        default: p.get("default").cloned(),
        notes,
        kind,
    }
}

fn kind(p: &Map<String, Value>, notes: &mut Vec<String>) -> QuestionKind {
    let ty = p.get("type").and_then(Value::as_str);
    let items = p.get("items").and_then(Value::as_object);
    if let Some(input) = p.get("x-openai-input").and_then(Value::as_object) {
        let options = resources(input, notes);
        let files = user_files(input, &options);
        return match ty {
            Some("string") => QuestionKind::Resource { options, files },
            Some("array") => QuestionKind::Resources {
                options,
                files,
                min_items: count(p, "minItems"),
                max_items: count(p, "maxItems"),
                selection: text(input, "selection"),
            },
            _ => unreadable(ty, "with `x-openai-input`"),
        };
    }
    match ty {
        Some("string") => {
            if let Some(list) = array(p, "oneOf") {
                QuestionKind::SingleSelect {
                    options: choices(list, notes, "oneOf"),
                    list: ChoiceList::OneOf,
                }
            } else if let Some(list) = array(p, "enum") {
                QuestionKind::SingleSelect {
                    options: enum_choices(list, array(p, "enumNames"), notes, "enum"),
                    list: ChoiceList::Enum,
                }
            } else {
                QuestionKind::Text {
                    min_length: count(p, "minLength"),
                    max_length: count(p, "maxLength"),
                    format: text(p, "format"),
                }
            }
        }
        Some("array") => {
            let (options, list) = match items {
                Some(items) => {
                    if let Some(list) = array(items, "anyOf") {
                        (choices(list, notes, "items.anyOf"), ChoiceList::ItemsAnyOf)
                    } else if let Some(list) = array(items, "oneOf") {
                        (choices(list, notes, "items.oneOf"), ChoiceList::ItemsOneOf)
                    } else if let Some(list) = array(items, "enum") {
                        let names = array(items, "enumNames");
                        (
                            enum_choices(list, names, notes, "items.enum"),
                            ChoiceList::ItemsEnum,
                        )
                    } else {
                        return unreadable(
                            ty,
                            "without `items.anyOf`, `items.oneOf` or `items.enum`",
                        );
                    }
                }
                None => return unreadable(ty, "without `items`"),
            };
            QuestionKind::MultiSelect {
                options,
                list,
                min_items: count(p, "minItems"),
                max_items: count(p, "maxItems"),
            }
        }
        Some(t @ ("integer" | "number")) => QuestionKind::Number {
            integer: t == "integer",
            minimum: p.get("minimum").and_then(Value::as_f64),
            maximum: p.get("maximum").and_then(Value::as_f64),
        },
        Some("boolean") => QuestionKind::Boolean,
        _ => unreadable(ty, ""),
    }
}

fn unreadable(ty: Option<&str>, detail: &str) -> QuestionKind {
    let what = match ty {
        Some(ty) => format!("a field of type `{ty}`"),
        None => "a field without a string `type`".to_owned(),
    };
    let reason = if detail.is_empty() {
        what
    } else {
        format!("{what} {detail}")
    };
    QuestionKind::Unreadable { reason }
}

fn choices(list: &[Value], notes: &mut Vec<String>, path: &str) -> Vec<ChoiceView> {
    let mut out = Vec::with_capacity(list.len());
    for (j, option) in list.iter().enumerate() {
        let Some(o) = option.as_object() else {
            notes.push(format!("{path}[{j}] is {}, not an object", kind_of(option)));
            continue;
        };
        let Some(value) = text(o, "const") else {
            notes.push(format!("{path}[{j}] has no string `const`"));
            continue;
        };
        let thumbnail = o
            .get("x-openai-thumbnail")
            .and_then(image)
            .or_else(|| o.get("x-openai-preview").and_then(image));
        out.push(ChoiceView {
            value,
            title: text(o, "title"),
            description: text(o, "description"),
            thumbnail,
        });
    }
    out
}

fn enum_choices(
    list: &[Value],
    names: Option<&[Value]>,
    notes: &mut Vec<String>,
    path: &str,
) -> Vec<ChoiceView> {
    let mut out = Vec::with_capacity(list.len());
    for (j, entry) in list.iter().enumerate() {
        let Some(value) = entry.as_str() else {
            notes.push(format!("{path}[{j}] is {}, not a string", kind_of(entry)));
            continue;
        };
        out.push(ChoiceView {
            value: value.to_owned(),
            title: names
                .and_then(|n| n.get(j))
                .and_then(Value::as_str)
                .map(str::to_owned),
            description: None,
            thumbnail: None,
        });
    }
    out
}

fn resources(input: &Map<String, Value>, notes: &mut Vec<String>) -> Vec<ResourceView> {
    let list = array(input, "options").unwrap_or_default();
    let mut out = Vec::with_capacity(list.len());
    for (j, option) in list.iter().enumerate() {
        let path = format!("x-openai-input.options[{j}]");
        let Some(r) = option.as_object() else {
            notes.push(format!("{path} is {}, not an object", kind_of(option)));
            continue;
        };
        let Some(uri) = text(r, "uri") else {
            notes.push(format!("{path} has no string `uri`"));
            continue;
        };
        let meta = r.get("_meta").and_then(Value::as_object);
        let thumbnail = meta.and_then(|m| {
            m.get("openai/thumbnail").and_then(image).or_else(|| {
                m.get("openai/preview")
                    .and_then(image)
                    .filter(|i| i.src.is_some())
            })
        });
        out.push(ResourceView {
            uri,
            name: text(r, "name"),
            title: text(r, "title"),
            description: text(r, "description"),
            mime_type: text(r, "mimeType"),
            icons: array(r, "icons")
                .unwrap_or_default()
                .iter()
                .filter_map(image)
                .collect(),
            thumbnail,
        });
    }
    out
}

/// `userOptions`; an input of the older `"type":"file"` with no options takes any file.
fn user_files(input: &Map<String, Value>, options: &[ResourceView]) -> Option<UserFiles> {
    match input.get("userOptions") {
        Some(Value::Object(user)) => Some(UserFiles {
            directory: user.get("kind").and_then(Value::as_str) == Some("directory"),
            accept: array(user, "accept")
                .unwrap_or_default()
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
        }),
        _ if input.get("type").and_then(Value::as_str) == Some("file") && options.is_empty() => {
            Some(UserFiles {
                directory: false,
                accept: Vec::new(),
            })
        }
        _ => None,
    }
}

/// Reads only `requestedSchema.properties`' keys, in document order.
#[derive(Deserialize)]
struct OrderProbe {
    #[serde(rename = "requestedSchema", default)]
    schema: Option<SchemaProbe>,
}

#[derive(Deserialize)]
struct SchemaProbe {
    #[serde(default)]
    properties: Option<Keys>,
}

/// An object's keys in document order; any other JSON value reads as no keys.
struct Keys(Vec<String>);

impl<'de> Deserialize<'de> for Keys {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeysVisitor;
        impl<'de> Visitor<'de> for KeysVisitor {
            type Value = Keys;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Keys, A::Error> {
                let mut keys = Vec::new();
                while let Some((key, IgnoredAny)) = map.next_entry::<String, IgnoredAny>()? {
                    keys.push(key);
                }
                Ok(Keys(keys))
            }
        }
        d.deserialize_map(KeysVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::DataForm;
    use serde_json::json;

    fn view(value: Value) -> NativeView {
        NativeView::from_json(&value.to_string()).unwrap()
    }

    #[test]
    fn a_compiled_form_reads_back_with_every_field() {
        let form = DataForm::from_json(
            &json!({"message": "Set up", "questions": [
                {"id": "z", "type": "text", "title": "Goal", "description": "Why", "required": true,
                 "maxLength": 30},
                {"id": "a", "type": "single_select", "title": "Format", "required": false,
                 "options": [{"id": "pdf", "title": "PDF", "description": "Print",
                              "thumbnail": {"src": "https://e.com/t.png"}}]},
                {"id": "m", "type": "multi_select", "title": "Parts", "required": false,
                 "options": [{"id": "x", "title": "X"}, {"id": "y", "title": "Y"}], "maxItems": 1},
                {"id": "r", "type": "resource", "title": "Template", "required": false,
                 "options": [{"uri": "https://e.com/r", "name": "r1", "title": "R one",
                              "mimeType": "text/html",
                              "icons": [{"src": "https://e.com/l.png"}],
                              "thumbnail": {"src": "https://e.com/th.png"}}]},
                {"id": "f", "type": "files", "title": "Data", "required": false,
                 "accept": [".csv", "text/csv"], "maxItems": 3}]})
            .to_string(),
        )
        .unwrap();
        let v = NativeView::from_json(form.native_json()).unwrap();
        assert_eq!(v.mode.as_deref(), Some("form"));
        assert_eq!(v.message(), "Set up");
        assert_eq!(v.schema_type.as_deref(), Some("object"));
        let ids: Vec<&str> = v.questions.iter().map(|q| q.id.as_str()).collect();
        assert_eq!(ids, ["z", "a", "m", "r", "f"]);
        let [z, a, m, r, f] = &v.questions[..] else {
            panic!("five questions")
        };
        assert!(z.required && !a.required);
        assert_eq!(z.description.as_deref(), Some("Why"));
        assert_eq!(
            z.kind,
            QuestionKind::Text {
                min_length: None,
                max_length: Some(30),
                format: None
            }
        );
        let QuestionKind::SingleSelect { options, list } = &a.kind else {
            panic!("{a:?}")
        };
        assert_eq!(*list, ChoiceList::OneOf);
        assert_eq!(options[0].label(), "PDF");
        assert_eq!(options[0].description.as_deref(), Some("Print"));
        assert_eq!(
            options[0].thumbnail.as_ref().unwrap().src.as_deref(),
            Some("https://e.com/t.png")
        );
        assert!(
            matches!(&m.kind, QuestionKind::MultiSelect { options, list: ChoiceList::ItemsAnyOf,
            min_items: Some(0), max_items: Some(1) } if options.len() == 2)
        );
        let QuestionKind::Resource { options, files } = &r.kind else {
            panic!("{r:?}")
        };
        assert_eq!(files, &None);
        assert_eq!(options[0].label(), "R one");
        assert_eq!(options[0].mime_type.as_deref(), Some("text/html"));
        assert_eq!(
            options[0].icon().unwrap().src.as_deref(),
            Some("https://e.com/l.png")
        );
        assert_eq!(
            options[0].thumbnail.as_ref().unwrap().src.as_deref(),
            Some("https://e.com/th.png")
        );
        let QuestionKind::Resources {
            files,
            max_items,
            selection,
            ..
        } = &f.kind
        else {
            panic!("{f:?}")
        };
        assert_eq!(
            files,
            &Some(UserFiles {
                directory: false,
                accept: vec![".csv".into(), "text/csv".into()]
            })
        );
        assert_eq!(
            (*max_items, selection.as_deref()),
            (Some(3), Some("explicit"))
        );
    }

    #[test]
    fn document_order_is_kept_from_text() {
        let text = r#"{"message":"m","requestedSchema":{"type":"object","properties":{
            "zeta":{"type":"string"},"alpha":{"type":"boolean"},"mid":{"type":"number"}}}}"#;
        let v = NativeView::from_json(text).unwrap();
        let ids: Vec<&str> = v.questions.iter().map(|q| q.id.as_str()).collect();
        assert_eq!(ids, ["zeta", "alpha", "mid"]);
    }

    #[test]
    fn core_fields_read_with_defaults_limits_and_enum_names() {
        let v = view(
            json!({"message": "Settings", "requestedSchema": {"type": "object",
            "required": ["count", 7], "properties": {
                "count": {"type": "integer", "minimum": 1, "maximum": 10, "default": 3},
                "ratio": {"type": "number", "maximum": 1.5},
                "agree": {"type": "boolean", "default": true},
                "size": {"type": "string", "enum": ["s", "m", 3], "enumNames": ["Small"]},
                "tags": {"type": "array", "items": {"enum": ["a", "b"]}},
                "mail": {"type": "string", "format": "email", "minLength": 3}}}}),
        );
        let q = |id: &str| v.question(id).unwrap();
        assert!(q("count").required && !q("ratio").required);
        assert_eq!(q("count").default, Some(json!(3)));
        assert_eq!(
            q("count").kind,
            QuestionKind::Number {
                integer: true,
                minimum: Some(1.0),
                maximum: Some(10.0)
            }
        );
        assert_eq!(q("agree").kind, QuestionKind::Boolean);
        let QuestionKind::SingleSelect { options, list } = &q("size").kind else {
            panic!()
        };
        assert_eq!(*list, ChoiceList::Enum);
        let labels: Vec<&str> = options.iter().map(ChoiceView::label).collect();
        assert_eq!(labels, ["Small", "m"]);
        assert_eq!(q("size").notes, ["enum[2] is a number, not a string"]);
        assert!(matches!(&q("tags").kind,
            QuestionKind::MultiSelect { list: ChoiceList::ItemsEnum, options, .. } if options.len() == 2));
        assert_eq!(
            q("mail").kind,
            QuestionKind::Text {
                min_length: Some(3),
                max_length: None,
                format: Some("email".into())
            }
        );
    }

    #[test]
    fn what_cannot_be_read_is_kept_with_a_reason() {
        let v = view(json!({"message": 5, "requestedSchema": {"properties": {
            "obj": {"type": "object", "title": "Nested"},
            "bare": 3,
            "notype": {"title": "x"},
            "arr": {"type": "array", "items": {"type": "string"}},
            "odd": {"type": "object", "x-openai-input": {"type": "resource"}},
            "half": {"type": "string", "oneOf": [{"const": "a"}, {"title": "no const"}, 4]},
            "res": {"type": "array", "x-openai-input": {"options": [{"name": "no uri"},
                {"uri": "https://e.com", "_meta": {"openai/preview": {"src": "https://e.com/p"}},
                 "icons": [{"src": "https://e.com/d.png", "theme": "dark"}, "x",
                           {"src": "https://e.com/l.png", "theme": "light"}]}]}}}}}));
        assert_eq!(v.message, None);
        assert_eq!(v.schema_type, None);
        let reason = |id: &str| match &v.question(id).unwrap().kind {
            QuestionKind::Unreadable { reason } => reason.clone(),
            other => panic!("{id}: {other:?}"),
        };
        assert_eq!(reason("obj"), "a field of type `object`");
        assert_eq!(reason("bare"), "the property is a number, not an object");
        assert_eq!(reason("notype"), "a field without a string `type`");
        assert!(reason("arr").contains("without `items.anyOf`"));
        assert!(reason("odd").contains("with `x-openai-input`"));
        assert_eq!(v.question("obj").unwrap().title.as_deref(), Some("Nested"));
        let half = v.question("half").unwrap();
        assert!(
            matches!(&half.kind, QuestionKind::SingleSelect { options, .. } if options.len() == 1)
        );
        assert_eq!(
            half.notes,
            [
                "oneOf[1] has no string `const`",
                "oneOf[2] is a number, not an object"
            ]
        );
        let res = v.question("res").unwrap();
        let QuestionKind::Resources { options, files, .. } = &res.kind else {
            panic!()
        };
        assert_eq!(options.len(), 1);
        assert_eq!(options[0].label(), "https://e.com");
        assert!(options[0].thumbnail.is_some());
        assert_eq!(options[0].icons.len(), 2);
        assert_eq!(
            options[0].icon().unwrap().src.as_deref(),
            Some("https://e.com/l.png")
        );
        assert_eq!(files, &None);
        assert_eq!(res.notes, ["x-openai-input.options[0] has no string `uri`"]);
    }

    #[test]
    fn only_a_missing_or_malformed_schema_fails_and_a_host_checks_more() {
        for (params, why) in [
            (json!([1]), "the params are not an object but an array"),
            (json!({"message": "m"}), "`requestedSchema` is missing"),
            (
                json!({"requestedSchema": "x"}),
                "`requestedSchema` is a string, not an object",
            ),
            (
                json!({"requestedSchema": {"type": "object"}}),
                "`requestedSchema.properties` is missing",
            ),
            (
                json!({"requestedSchema": {"properties": []}}),
                "`requestedSchema.properties` is an array, not an object",
            ),
        ] {
            assert_eq!(NativeView::from_value(&params).unwrap_err().reason(), why);
            assert_eq!(
                NativeView::from_json(&params.to_string())
                    .unwrap_err()
                    .reason(),
                why
            );
        }
        assert!(NativeView::from_json("{")
            .unwrap_err()
            .reason()
            .contains("not JSON"));
        let schema = json!({"type": "object", "properties": {}});
        assert!(NativeView::from_value(&json!({"requestedSchema": schema})).is_ok());
        for (params, why) in [
            (json!({"requestedSchema": schema}), "`message` is missing"),
            (
                json!({"message": 1, "requestedSchema": schema}),
                "`message` is a number, not a string",
            ),
            (
                json!({"message": "m", "requestedSchema": {"properties": {}}}),
                "`requestedSchema.type` is not \"object\"",
            ),
        ] {
            assert_eq!(NativeView::from_request(&params).unwrap_err().reason(), why);
        }
        assert!(
            NativeView::from_request(&json!({"message": "m", "requestedSchema": schema})).is_ok()
        );
    }

    #[test]
    fn the_view_serializes_to_one_tagged_shape() {
        let v = view(json!({"message": "m", "requestedSchema": {"type": "object",
            "required": ["a"], "properties": {
                "a": {"type": "string", "title": "A", "maxLength": 5},
                "b": {"type": "array", "x-openai-input": {"type": "file"}, "maxItems": 2}}}}));
        assert_eq!(
            serde_json::to_value(&v).unwrap(),
            json!({"mode": null, "message": "m", "schemaType": "object", "questions": [
                {"id": "a", "title": "A", "description": null, "required": true, "kind": "text",
                 "minLength": null, "maxLength": 5, "format": null},
                {"id": "b", "title": null, "description": null, "required": false,
                 "kind": "resources", "options": [], "files": {"directory": false, "accept": []},
                 "minItems": null, "maxItems": 2, "selection": null}]})
        );
    }

    /// Every JSON pointer to a value inside `value`.
    fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (k, v) in map {
                    let key = k.replace('~', "~0").replace('/', "~1");
                    pointers(v, format!("{at}/{key}"), out);
                }
            }
            Value::Array(list) => {
                for (i, v) in list.iter().enumerate() {
                    pointers(v, format!("{at}/{i}"), out);
                }
            }
            _ => {}
        }
        out.push(at);
    }

    #[test]
    fn every_value_replaced_by_any_type_still_reads_or_fails_cleanly() {
        let request = json!({"mode": "form", "message": "m", "requestedSchema": {
            "type": "object", "required": ["a", "r"], "properties": {
                "a": {"type": "string", "title": "A", "oneOf": [
                    {"const": "x", "title": "X", "x-openai-thumbnail": {"src": "https://e.com/t"}}]},
                "m": {"type": "array", "items": {"anyOf": [{"const": "y"}]}, "minItems": 1},
                "e": {"type": "array", "items": {"enum": ["p"], "enumNames": ["P"]}},
                "r": {"type": "array", "minItems": 0, "maxItems": 2, "x-openai-input": {
                    "type": "resource", "selection": "explicit",
                    "userOptions": {"kind": "file", "accept": [".csv"]},
                    "options": [{"uri": "https://e.com/1", "name": "n", "icons": [{"src": "i"}],
                                 "_meta": {"openai/thumbnail": {"src": "t"}}}]}},
                "n": {"type": "number", "minimum": 0, "default": 1},
                "t": {"type": "string", "maxLength": 3}}}});
        let mut all = Vec::new();
        pointers(&request, String::new(), &mut all);
        let replacements = [
            json!(null),
            json!(true),
            json!(-1),
            json!(1.5),
            json!(""),
            json!("object"),
            json!([]),
            json!([{}]),
            json!({}),
        ];
        let mut read = 0;
        for pointer in &all {
            for replacement in &replacements {
                let mut mutated = request.clone();
                match mutated.pointer_mut(pointer) {
                    Some(slot) => *slot = replacement.clone(),
                    None => continue,
                }
                let text = mutated.to_string();
                match NativeView::from_json(&text) {
                    Ok(v) => {
                        read += 1;
                        let properties = mutated
                            .pointer("/requestedSchema/properties")
                            .and_then(Value::as_object)
                            .map_or(0, |p| p.len());
                        assert_eq!(v.questions.len(), properties, "{text}");
                        assert_eq!(v, NativeView::from_value(&mutated).unwrap(), "{text}");
                        serde_json::to_string(&v).unwrap();
                    }
                    Err(e) => assert!(!e.reason().is_empty()),
                }
                // Truncated text fails cleanly.
                for cut in [1, text.len() / 2, text.len() - 1] {
                    assert!(NativeView::from_json(text.get(..cut).unwrap_or("")).is_err());
                }
            }
        }
        assert!(read > all.len(), "{read} of {} read", all.len());
    }

    #[test]
    fn any_text_reads_without_panicking() {
        for text in [
            "",
            "null",
            "[]",
            "{\"requestedSchema\":{\"properties\":{\"a\":[]}}}",
            "{\"requestedSchema\":{\"properties\":{\"a\":{\"type\":\"array\",\"items\":7}}}}",
            "{\"requestedSchema\":{\"properties\":{\"a\":{\"type\":\"string\",\"oneOf\":{}}}}}",
            "{\"requestedSchema\":{\"properties\":{\"a\":1,\"a\":{\"type\":\"boolean\"}}}}",
        ] {
            let _ = NativeView::from_json(text);
        }
        let dup = NativeView::from_json(
            "{\"requestedSchema\":{\"properties\":{\"a\":1,\"b\":true,\"a\":{\"type\":\"boolean\"}}}}",
        )
        .unwrap();
        let ids: Vec<&str> = dup.questions.iter().map(|q| q.id.as_str()).collect();
        assert_eq!(ids, ["a", "b"]);
        assert_eq!(dup.questions[0].kind, QuestionKind::Boolean);
    }
}
