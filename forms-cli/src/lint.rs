//! `forms check --lint`: warnings about forms that are valid but render badly.
//!
//! The lints read the native request, as the host does, so a Data form and a native request
//! are judged alike; a warning's path is written in the vocabulary of the input (Data paths
//! such as `questions[1].options[0]` for a Data form, native paths such as
//! `requestedSchema.properties.format.oneOf[0]` for a native request).

use crate::io::{load_form, Document, Input, Printed, Usage};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A resource or file card caption, and an image card's caption, shows one line of this many
/// characters before it is cut with an ellipsis (200 px at 13 px type in the preview page,
/// the width of the host's card carousel).
pub const CARD_TITLE_CHARS: usize = 32;

/// A plain choice card shows two lines of its title, about this many characters.
pub const CHOICE_TITLE_CHARS: usize = 90;

/// More options than this without a description are hard to tell apart.
pub const OPTIONS_WITHOUT_DESCRIPTION_MAX: usize = 8;

/// One warning: an id, where it applies, what renders badly and a one-line fix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    /// A stable, kebab-case name of the lint.
    pub id: &'static str,
    /// The JSON path of the question or option, in the input's vocabulary.
    pub path: String,
    /// What renders badly.
    pub message: String,
    /// How to fix it, in one line.
    pub fix: String,
}

/// Which vocabulary the paths of the warnings use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathStyle {
    /// `questions[i]…` for a Data form.
    Data,
    /// `requestedSchema.properties.<id>…` for a native request.
    Native,
}

/// How a question's options are shown.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Text,
    Choice,
    Resource,
    Other,
}

/// One option as the renderer sees it.
struct Opt {
    /// The visible title (a resource falls back to its name).
    label: String,
    described: bool,
    thumbnail: bool,
    icon: bool,
    /// The native key path of the option list, e.g. `oneOf` or `x-openai-input.options`.
    native_list: &'static str,
}

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn present(v: &Value, key: &str) -> bool {
    v.get(key).is_some_and(|x| !x.is_null())
}

fn nonempty(v: &Value, key: &str) -> bool {
    str_of(v, key).is_some_and(|s| !forms_runtime::rules::js_trim(s).is_empty())
}

fn list(v: Option<&Value>) -> &[Value] {
    v.and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// The shape and options of one native property.
fn read_property(p: &Value) -> (Shape, Vec<Opt>) {
    let ty = str_of(p, "type").unwrap_or("");
    if let Some(input) = p.get("x-openai-input").filter(|i| i.is_object()) {
        let opts = list(input.get("options"))
            .iter()
            .map(|r| {
                let label = str_of(r, "title")
                    .filter(|t| !forms_runtime::rules::js_trim(t).is_empty())
                    .or_else(|| str_of(r, "name"))
                    .unwrap_or("")
                    .to_owned();
                let meta = r.get("_meta");
                let thumbnail = meta.is_some_and(|m| {
                    present(m, "openai/thumbnail")
                        || m.get("openai/preview").is_some_and(|p| present(p, "src"))
                });
                Opt {
                    label,
                    described: nonempty(r, "description"),
                    thumbnail,
                    icon: !list(r.get("icons")).is_empty(),
                    native_list: "x-openai-input.options",
                }
            })
            .collect();
        return (Shape::Resource, opts);
    }
    let (source, native_list) = match ty {
        "string" => (p.get("oneOf"), "oneOf"),
        "array" => {
            let items = p.get("items");
            (items.and_then(|i| i.get("anyOf")), "items.anyOf")
        }
        _ => (None, ""),
    };
    match source.and_then(Value::as_array) {
        Some(options) => {
            let opts = options
                .iter()
                .map(|o| Opt {
                    label: str_of(o, "title").unwrap_or("").to_owned(),
                    described: nonempty(o, "description"),
                    thumbnail: present(o, "x-openai-thumbnail") || present(o, "x-openai-preview"),
                    icon: false,
                    native_list,
                })
                .collect();
            (Shape::Choice, opts)
        }
        None if ty == "string" => (Shape::Text, Vec::new()),
        None => (Shape::Other, Vec::new()),
    }
}

/// The parts of a native request's params (`{mode, message, requestedSchema}`) the lints
/// and the page read, with the properties in document order.
#[derive(Debug, Clone, Deserialize)]
pub struct NativeView {
    /// The header; an absent or non-string message reads as none.
    #[serde(default)]
    pub message: Value,
    /// The form schema.
    #[serde(rename = "requestedSchema")]
    pub schema: SchemaView,
}

/// `requestedSchema`: `{"type":"object","properties":{…}}`.
#[derive(Debug, Clone, Deserialize)]
pub struct SchemaView {
    /// Must be `"object"`.
    #[serde(rename = "type")]
    pub ty: String,
    /// The fields, in document order.
    pub properties: Ordered,
}

/// A JSON object's entries in document order (`serde_json::Map` sorts its keys).
#[derive(Debug, Clone, Default)]
pub struct Ordered(pub Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Ordered;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Ordered, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<String, Value>()? {
                    entries.push(entry);
                }
                Ok(Ordered(entries))
            }
        }
        d.deserialize_map(V)
    }
}

impl NativeView {
    /// Reads native request params from JSON text.
    pub fn from_json(text: &str) -> Result<NativeView, serde_json::Error> {
        serde_json::from_str(text)
    }
}

/// The warnings of a native request.
pub fn lint_native(request: &NativeView, style: PathStyle) -> Vec<Warning> {
    let properties = &request.schema.properties.0;
    let message = request.message.as_str().unwrap_or("");
    let mut out = Vec::new();
    let question_path = |index: usize, id: &str| match style {
        PathStyle::Data => format!("questions[{index}]"),
        PathStyle::Native => format!("requestedSchema.properties.{id}"),
    };
    let option_path = |index: usize, id: &str, opt: &Opt, j: usize| match style {
        PathStyle::Data => format!("questions[{index}].options[{j}]"),
        PathStyle::Native => format!("requestedSchema.properties.{id}.{}[{j}]", opt.native_list),
    };
    for (index, (id, p)) in properties.iter().enumerate() {
        let id = id.as_str();
        let (shape, opts) = read_property(p);
        let title = str_of(p, "title").unwrap_or("");
        let qpath = question_path(index, id);

        if shape == Shape::Text && properties.len() == 1 {
            let (m, t) = (
                forms_runtime::rules::js_trim(message),
                forms_runtime::rules::js_trim(title),
            );
            if !m.is_empty() && m != t {
                out.push(Warning {
                    id: "single-text-message-differs",
                    path: qpath.clone(),
                    message: format!(
                        "the form's only question is text and its title \"{t}\" differs from the message \"{m}\", so the host shows both as a header and a label"
                    ),
                    fix: "Write the question itself as both `message` and `title`; put context in `description`.".into(),
                });
            }
        }

        let with_thumbnail = opts.iter().filter(|o| o.thumbnail).count();
        if shape == Shape::Choice && with_thumbnail > 0 && with_thumbnail < opts.len() {
            out.push(Warning {
                id: "partial-thumbnails",
                path: qpath.clone(),
                message: format!(
                    "{with_thumbnail} of {} options have a thumbnail, so every option renders as an image card and the other {} show a fallback image",
                    opts.len(),
                    opts.len() - with_thumbnail
                ),
                fix: "Give every option of the question a thumbnail, or none.".into(),
            });
        }

        let image_cards = shape == Shape::Resource || with_thumbnail > 0;
        let limit = if image_cards {
            CARD_TITLE_CHARS
        } else {
            CHOICE_TITLE_CHARS
        };
        for (j, opt) in opts.iter().enumerate() {
            let chars = opt.label.chars().count();
            if shape != Shape::Other && chars > limit {
                let what = if image_cards {
                    "card caption"
                } else {
                    "choice card"
                };
                out.push(Warning {
                    id: "title-truncates",
                    path: option_path(index, id, opt, j),
                    message: format!(
                        "the title has {chars} characters; the {what} shows about {limit} and cuts the rest"
                    ),
                    fix: format!("Shorten the title to {limit} characters or fewer; move detail to the description."),
                });
            }
            if shape == Shape::Resource && !opt.icon && !opt.thumbnail {
                out.push(Warning {
                    id: "resource-without-visual",
                    path: option_path(index, id, opt, j),
                    message: "the card has neither an icon nor a thumbnail, so it shows a generic fallback image".into(),
                    fix: "Add the provider or format logo in `icons`, or a `thumbnail`.".into(),
                });
            }
        }

        let undescribed = opts.iter().filter(|o| !o.described).count();
        if shape == Shape::Choice && undescribed > OPTIONS_WITHOUT_DESCRIPTION_MAX {
            out.push(Warning {
                id: "many-options-without-descriptions",
                path: qpath.clone(),
                message: format!(
                    "{undescribed} of {} options have no description (more than {OPTIONS_WITHOUT_DESCRIPTION_MAX}), which makes a long list hard to tell apart",
                    opts.len()
                ),
                fix: "Add a short `description` to the options, or offer fewer options.".into(),
            });
        }
    }
    out
}

/// Runs `forms check --lint`: the report of a valid form, or the same contract error as
/// `forms check`.
pub fn run(input: &Input) -> Result<Printed, Usage> {
    Ok(match load_form(input)? {
        Ok(form) => match check_report(&form) {
            Ok(line) => Printed::Done(line),
            Err(e) => Printed::Failed(Document::Arguments.error(e.to_string())),
        },
        Err(e) => Printed::Failed(e),
    })
}

/// `forms check --lint`: `{"form":…,"warnings":[…]}` for a valid Data form, the form as
/// `forms check` prints it.
pub fn check_report(form: &forms_runtime::DataForm) -> Result<String, serde_json::Error> {
    let warnings = lint_data(form)?;
    Ok(format!(
        "{{\"form\":{},\"warnings\":{}}}",
        form.to_json(),
        serde_json::to_string(&warnings)?
    ))
}

/// The warnings of a valid Data form, read through its native request.
pub fn lint_data(form: &forms_runtime::DataForm) -> Result<Vec<Warning>, serde_json::Error> {
    let native = NativeView::from_json(form.native_json())?;
    Ok(lint_native(&native, PathStyle::Data))
}
