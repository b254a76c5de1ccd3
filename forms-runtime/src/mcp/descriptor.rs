//! The MCP tool descriptor of `form_elicitation_v2_request`: what a model sees when the tool
//! is listed.
//!
//! The descriptor carries the tool's name, its behavioral description (four sections: *When
//! to call*, *Question types*, *Build the form*, *Results and boundaries*), the JSON input
//! schema of the Data arguments and the annotations. It advertises no `outputSchema`; results
//! still carry structured content (see [`ToolResult`](super::ToolResult)).
//!
//! Every number in the description and the schema comes from [`forms_rules::limits`], so the
//! descriptor cannot drift from the checks the runtime applies. The schema is at most as
//! permissive as the runtime: the few rules JSON Schema cannot express (uniqueness of IDs and
//! URIs, selection limits against the option count, URI and image syntax, the 1 MiB size
//! limit) are stated in the descriptions and enforced when the form is validated.
//!
//! Everything is built from typed [`Serialize`] structs, so the JSON key order is fixed (and
//! object properties keep the order written here) even though `serde_json` sorts `Value` maps.
//!
//! ```
//! use forms_runtime::mcp::{tool_descriptor, TOOL_NAME};
//! let d = tool_descriptor();
//! assert_eq!(d.name, TOOL_NAME);
//! assert!(d.annotations.read_only_hint);
//! let json = serde_json::to_value(&d)?;
//! assert_eq!(json["inputSchema"]["required"][0], "message");
//! assert!(json.get("outputSchema").is_none());
//! # Ok::<(), serde_json::Error>(())
//! ```

use forms_rules::limits::{
    ACCEPT_MAX, ACCEPT_MIN, ARGUMENTS_MAX_UTF16, DESCRIPTION_MAX, ICONS_MAX, ID_MAX, IMAGE_SRC_MAX,
    ITEMS_MAX, MAX_ITEMS_MIN, MAX_LENGTH_DEFAULT, MAX_LENGTH_MAX, MAX_LENGTH_MIN, MESSAGE_MAX,
    MIME_TYPE_MAX, OPTIONS_MAX, OPTIONS_MIN, OPTION_DESCRIPTION_MAX, OPTION_TITLE_MAX,
    QUESTIONS_MAX, QUESTIONS_MIN, TITLE_MAX, URI_MAX,
};
use forms_rules::QuestionKind;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

/// The tool's name. A host may prefix it with a server namespace.
pub const TOOL_NAME: &str = "form_elicitation_v2_request";

/// The JSON Schema dialect the input schema declares.
pub const SCHEMA_DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// An MCP tool descriptor: `{"name","description","inputSchema","annotations"}`, in that order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolDescriptor {
    /// The tool's name, [`TOOL_NAME`].
    pub name: &'static str,
    /// The behavioral description the model reads.
    pub description: String,
    /// The JSON Schema of the tool's arguments.
    #[serde(rename = "inputSchema")]
    pub input_schema: Schema,
    /// The MCP behavior hints.
    pub annotations: ToolAnnotations,
}

/// The MCP tool annotations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ToolAnnotations {
    /// The tool changes nothing in the user's environment (`true`).
    #[serde(rename = "readOnlyHint")]
    pub read_only_hint: bool,
    /// The tool performs no destructive update (`false`).
    #[serde(rename = "destructiveHint")]
    pub destructive_hint: bool,
    /// Calling twice asks the user twice, so the tool is not idempotent (`false`).
    #[serde(rename = "idempotentHint")]
    pub idempotent_hint: bool,
    /// The tool talks only to the user's host, not to an open world (`false`).
    #[serde(rename = "openWorldHint")]
    pub open_world_hint: bool,
}

/// A JSON Schema node, with the keywords the descriptor uses. Absent keywords are omitted;
/// present ones are written in the order of the fields below.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Schema {
    /// `$schema`: the dialect, on the root only.
    #[serde(rename = "$schema", skip_serializing_if = "Option::is_none")]
    pub dialect: Option<&'static str>,
    /// `$ref`: a reference into the root's `$defs`.
    #[serde(rename = "$ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<&'static str>,
    /// `type`.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub ty: Option<&'static str>,
    /// `description`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `enum`.
    #[serde(rename = "enum", skip_serializing_if = "Option::is_none")]
    pub enumeration: Option<Vec<&'static str>>,
    /// `format`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<&'static str>,
    /// `pattern`, an ECMA-262 regular expression.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// `minLength`, in characters.
    #[serde(rename = "minLength", skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// `maxLength`, in characters.
    #[serde(rename = "maxLength", skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// `minimum`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minimum: Option<u64>,
    /// `maximum`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maximum: Option<u64>,
    /// `items`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<Box<Schema>>,
    /// `minItems`.
    #[serde(rename = "minItems", skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// `maxItems`.
    #[serde(rename = "maxItems", skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// `uniqueItems`.
    #[serde(rename = "uniqueItems", skip_serializing_if = "Option::is_none")]
    pub unique_items: Option<bool>,
    /// `properties`, in the order given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub properties: Option<Properties>,
    /// `required`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required: Option<Vec<&'static str>>,
    /// `additionalProperties`; always `false` on the descriptor's objects.
    #[serde(
        rename = "additionalProperties",
        skip_serializing_if = "Option::is_none"
    )]
    pub additional_properties: Option<bool>,
    /// `not`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not: Option<Box<Schema>>,
    /// `oneOf`.
    #[serde(rename = "oneOf", skip_serializing_if = "Option::is_none")]
    pub one_of: Option<Vec<Schema>>,
    /// `$defs`, on the root only.
    #[serde(rename = "$defs", skip_serializing_if = "Option::is_none")]
    pub defs: Option<Properties>,
}

/// An ordered map of names to schemas (`properties`, `$defs`), serialized in insertion order.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Properties(pub Vec<(&'static str, Schema)>);

impl Properties {
    /// The schema named `name`.
    pub fn get(&self, name: &str) -> Option<&Schema> {
        self.0.iter().find(|(n, _)| *n == name).map(|(_, s)| s)
    }

    /// The names, in order.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.0.iter().map(|(n, _)| *n)
    }
}

impl Serialize for Properties {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, schema) in &self.0 {
            map.serialize_entry(name, schema)?;
        }
        map.end()
    }
}

/// `$ref` targets of the shared definitions.
const IMAGE_REF: &str = "#/$defs/image";
const CHOICE_OPTION_REF: &str = "#/$defs/choiceOption";
const RESOURCE_OPTION_REF: &str = "#/$defs/resourceOption";

/// Widens a `usize` or `u32` limit to a schema number.
fn n<T: TryInto<u64>>(limit: T) -> Option<u64> {
    limit.try_into().ok()
}

/// The descriptor of `form_elicitation_v2_request`.
pub fn tool_descriptor() -> ToolDescriptor {
    ToolDescriptor {
        name: TOOL_NAME,
        description: description(),
        input_schema: input_schema(),
        annotations: ToolAnnotations {
            read_only_hint: true,
            destructive_hint: false,
            idempotent_hint: false,
            open_world_hint: false,
        },
    }
}

/// The ID syntax of R6, `^[A-Za-z][A-Za-z0-9_-]{0,63}$`, built from the limit.
pub fn id_pattern() -> String {
    format!("^[A-Za-z][A-Za-z0-9_-]{{0,{}}}$", ID_MAX.saturating_sub(1))
}

/// A `files.accept` entry (R22): `.ext`, or `type/subtype` of RFC 9110 token characters whose
/// type is not `*`.
pub const ACCEPT_PATTERN: &str =
    "^(\\.[A-Za-z0-9._+-]+|(?!\\*/)[A-Za-z0-9!#$%&'*+.^_`|~-]+/[A-Za-z0-9!#$%&'*+.^_`|~-]+)$";

/// A string that contains a non-whitespace character.
const NOT_BLANK: &str = "\\S";

fn description() -> String {
    format!(
        "Ask the user to fill in one native form and wait for the final submission. The call \
blocks until the user submits, declines or cancels, or the request times out.

## When to call
- Reserve this blocking tool for two cases: required source material is missing and prevents \
meaningful progress (for example the data to analyze, or the template the user wants followed), \
or the user explicitly asked to be asked, to choose, or to have you wait for their input.
- For any other uncertainty, deliver a best-effort result and ask follow-up questions \
asynchronously. Do not call it merely to collect optional preferences for a task that is \
already sufficiently specified: making questions optional does not make the call nonblocking.
- The tool only collects answers. It does not discover resources, fetch images, inspect or \
upload files, install anything, edit artifacts or run analysis. Discover templates, thumbnails \
and icons before calling.

## Question types
- text: free text, optional maxLength {MAX_LENGTH_MIN}-{MAX_LENGTH_MAX} characters \
({MAX_LENGTH_DEFAULT} when omitted). Answer: a string; required text must contain a \
non-whitespace character.
- single_select: {OPTIONS_MIN}-{OPTIONS_MAX} choice options. Answer: one exact option id.
- multi_select: {OPTIONS_MIN}-{OPTIONS_MAX} choice options, optional minItems/maxItems. \
Answer: an array of distinct option ids.
- resource: {OPTIONS_MIN}-{OPTIONS_MAX} resource options; use it for templates and any answer \
that identifies a real resource. Answer: one exact offered uri; a skipped question is left out.
- resources: {OPTIONS_MIN}-{OPTIONS_MAX} resource options, optional minItems/maxItems. Answer: \
an array of distinct offered uris.
- files: 0-{OPTIONS_MAX} offered resource options, optional minItems/maxItems and accept. \
Answer: an array of offered uris or absolute local file:// URIs the user picked.
Selection limits exist only on multi_select, resources and files. minItems is 0-{ITEMS_MAX} \
(when omitted: 1 if required, else 0; a required question cannot use 0); maxItems is \
{MAX_ITEMS_MIN}-{ITEMS_MAX} (when omitted: the option count, or {ITEMS_MAX} for files); \
minItems <= maxItems, and for multi_select and resources neither may exceed the option count.

## Build the form
- message is the short header ({MESSAGE_MAX} characters at most). For a single text or choice \
question, put the actual question in both message and the question title, such as \"What would \
you like to understand?\". For several independent questions, use a concise shared heading and \
self-contained question titles. Use action titles for direct actions, such as \"Upload your \
data\". Put helpful context in description; omit repetition.
- Limits are ceilings, not targets: ask only what you need. Set required explicitly on every \
question; intake questions, including files, use false.
- For templates: type resource, required false, an action heading such as \"Choose a report \
template\" as message, and a distinct collection title such as \"Relevant report templates\".
- A resource card shows its title as the caption and in its hover/focus strip. Prefix the title \
with the real type, such as \"Presentation · Business review\", \"Site · Growth dashboard\" or \
\"Document · Weekly update\", and keep it concise. Put the available provider or format logo in \
icons (at most {ICONS_MAX}) and the discovered preview in thumbnail; for Sites pass the fresh \
screenshot_url unchanged. Without a thumbnail the card shows the icon or a generic fallback.
- Use only URIs and images from verified discovery results. Images are HTTPS URLs or base64 \
PNG, JPEG, GIF, WebP or AVIF data URIs: no SVG, no local files, no usernames, passwords or \
credential-like query parameters (signed sdmntpr*.oaiusercontent.com image URLs keep their sig).
- There are no defaults: nothing is preselected, the tool has no default parameter, and saved \
settings are not applied. Every object is strict (unknown properties are errors); ids are \
unique in the form, option ids and uris unique in their question; the arguments as compact JSON \
are at most {ARGUMENTS_MAX_UTF16} UTF-16 code units (1 MiB).

## Results and boundaries
- The result is {{\"action\":\"accept\",\"content\":{{...}}}} with answers keyed by question \
id, {{\"action\":\"decline\"}}, {{\"action\":\"cancel\"}}, or \
{{\"error\":{{\"code\",\"message\"}}}} with code invalid_arguments, unsupported_client, \
invalid_response, request_cancelled, timeout or transport_error.
- Only accepted content supplies answers; a skipped question is absent from it. Decline, \
cancel, timeout and errors yield no answers: never treat them as a chosen template, a default \
or permission to change anything.
- A picked file URI names what the user chose; it does not prove the file's type, upload or \
readability."
    )
}

fn string(description: impl Into<String>) -> Schema {
    Schema {
        ty: Some("string"),
        description: Some(description.into()),
        ..Schema::default()
    }
}

/// A string of at most `max` characters.
fn bounded(max: usize, description: impl Into<String>) -> Schema {
    Schema {
        max_length: n(max),
        ..string(description)
    }
}

/// A string that must hold a non-whitespace character, at most `max` characters.
fn label(max: usize, description: impl Into<String>) -> Schema {
    Schema {
        pattern: Some(NOT_BLANK.into()),
        min_length: Some(1),
        ..bounded(max, description)
    }
}

/// An id (R6): a question id or a choice option id.
fn id(description: impl Into<String>) -> Schema {
    Schema {
        pattern: Some(id_pattern()),
        min_length: Some(1),
        ..bounded(ID_MAX, description)
    }
}

/// An integer from `min` to `max`.
fn integer(min: impl TryInto<u64>, max: impl TryInto<u64>, description: String) -> Schema {
    Schema {
        ty: Some("integer"),
        description: Some(description),
        minimum: n(min),
        maximum: n(max),
        ..Schema::default()
    }
}

/// An array of `min` to `max` items, each the `$ref` `target`.
fn array_of(target: &'static str, min: usize, max: usize, description: String) -> Schema {
    Schema {
        ty: Some("array"),
        description: Some(description),
        items: Some(Box::new(Schema {
            reference: Some(target),
            ..Schema::default()
        })),
        min_items: n(min),
        max_items: n(max),
        ..Schema::default()
    }
}

fn reference(target: &'static str, description: impl Into<String>) -> Schema {
    Schema {
        reference: Some(target),
        description: Some(description.into()),
        ..Schema::default()
    }
}

fn object(
    description: Option<String>,
    properties: Vec<(&'static str, Schema)>,
    required: Vec<&'static str>,
) -> Schema {
    Schema {
        ty: Some("object"),
        description,
        properties: Some(Properties(properties)),
        required: Some(required),
        additional_properties: Some(false),
        ..Schema::default()
    }
}

fn input_schema() -> Schema {
    let questions = Schema {
        ty: Some("array"),
        description: Some(format!(
            "{QUESTIONS_MIN}-{QUESTIONS_MAX} questions in display order; ids unique in the form. \
             Ask only what you need."
        )),
        items: Some(Box::new(Schema {
            description: Some("One question; `type` selects its fields.".into()),
            one_of: Some(QuestionKind::ALL.into_iter().map(question).collect()),
            ..Schema::default()
        })),
        min_items: n(QUESTIONS_MIN),
        max_items: n(QUESTIONS_MAX),
        ..Schema::default()
    };
    let message = label(
        MESSAGE_MAX,
        format!(
            "The form header, 1-{MESSAGE_MAX} characters. For a single question, the question \
             itself (also used as its title); for several, a concise shared heading; for a \
             template picker, an action such as \"Choose a report template\"."
        ),
    );
    Schema {
        dialect: Some(SCHEMA_DIALECT),
        ..object(
            None,
            vec![("message", message), ("questions", questions)],
            vec!["message", "questions"],
        )
    }
    .with_defs(definitions())
}

impl Schema {
    fn with_defs(self, defs: Properties) -> Schema {
        Schema {
            defs: Some(defs),
            ..self
        }
    }
}

fn definitions() -> Properties {
    Properties(vec![
        ("image", image()),
        ("choiceOption", choice_option()),
        ("resourceOption", resource_option()),
    ])
}

fn image() -> Schema {
    object(
        Some(
            "An image the server validates but never fetches: an HTTPS URL or a base64 data \
             URI of image/png, image/jpeg, image/jpg, image/gif, image/webp or image/avif."
                .into(),
        ),
        vec![
            (
                "src",
                Schema {
                    min_length: Some(1),
                    max_length: n(IMAGE_SRC_MAX),
                    ..string(format!(
                        "HTTPS URL or base64 raster data URI, at most {IMAGE_SRC_MAX} characters. \
                         No SVG, http: or file: images; no username, password or credential-like \
                         query parameters (signed sdmntpr*.oaiusercontent.com URLs keep their \
                         sig). Pass discovered URLs unchanged."
                    ))
                },
            ),
            (
                "mimeType",
                bounded(
                    MIME_TYPE_MAX,
                    format!("Optional image media type, at most {MIME_TYPE_MAX} characters."),
                ),
            ),
        ],
        vec!["src"],
    )
}

fn choice_option() -> Schema {
    let mut schema = object(
        Some("A choice. The answer names it by its exact id.".into()),
        vec![
            (
                "id",
                id(format!(
                    "The value returned when chosen; unique in the question. An ASCII letter, \
                     then letters, digits, _ or -, at most {ID_MAX} characters."
                )),
            ),
            (
                "title",
                label(
                    OPTION_TITLE_MAX,
                    format!("The choice's visible label, at most {OPTION_TITLE_MAX} characters."),
                ),
            ),
            (
                "description",
                bounded(
                    OPTION_DESCRIPTION_MAX,
                    format!(
                        "Optional secondary text, at most {OPTION_DESCRIPTION_MAX} characters."
                    ),
                ),
            ),
            (
                "thumbnail",
                reference(IMAGE_REF, "Optional picture shown with the choice."),
            ),
            (
                "preview",
                reference(
                    IMAGE_REF,
                    "Older alias of thumbnail; prefer thumbnail and never give both.",
                ),
            ),
        ],
        vec!["id", "title"],
    );
    schema.not = Some(Box::new(Schema {
        required: Some(vec!["thumbnail", "preview"]),
        ..Schema::default()
    }));
    schema
}

fn resource_option() -> Schema {
    object(
        Some(
            "An offered resource card, from verified discovery results. The answer names it by \
             its exact uri."
                .into(),
        ),
        vec![
            (
                "uri",
                Schema {
                    format: Some("uri"),
                    min_length: Some(1),
                    max_length: n(URI_MAX),
                    ..string(format!(
                        "The resource's identity and the value returned when chosen: an absolute \
                         URI, at most {URI_MAX} characters, unique in the question, with no \
                         username, password or credential-like query parameters."
                    ))
                },
            ),
            (
                "name",
                label(
                    OPTION_TITLE_MAX,
                    format!(
                        "The logical name (file name or slug), at most {OPTION_TITLE_MAX} \
                         characters."
                    ),
                ),
            ),
            (
                "title",
                label(
                    OPTION_TITLE_MAX,
                    format!(
                        "The card caption, also shown in the thumbnail hover/focus strip. Prefix \
                         the real type, such as \"Presentation · Business review\" or \"Site · \
                         Growth dashboard\"; keep it concise (at most {OPTION_TITLE_MAX} \
                         characters; long captions truncate)."
                    ),
                ),
            ),
            (
                "description",
                bounded(
                    OPTION_DESCRIPTION_MAX,
                    format!(
                        "Optional, at most {OPTION_DESCRIPTION_MAX} characters; current cards do \
                         not display it."
                    ),
                ),
            ),
            (
                "mimeType",
                bounded(
                    MIME_TYPE_MAX,
                    format!(
                        "Optional media type of the resource, at most {MIME_TYPE_MAX} characters."
                    ),
                ),
            ),
            (
                "icons",
                Schema {
                    min_items: None,
                    ..array_of(
                        IMAGE_REF,
                        0,
                        ICONS_MAX,
                        format!(
                            "At most {ICONS_MAX} authentic provider or format logos. Shown with \
                             the title on hover/focus, and as the card visual when there is no \
                             thumbnail."
                        ),
                    )
                },
            ),
            (
                "thumbnail",
                reference(
                    IMAGE_REF,
                    "The card image: a provider thumbnail, retained preview or rendered page \
                     preview (for Sites, the fresh screenshot_url unchanged).",
                ),
            ),
        ],
        vec!["uri", "name", "title"],
    )
}

/// The schema of one question of `kind`: the common fields, then the kind's own.
fn question(kind: QuestionKind) -> Schema {
    let (answer, extra) = match kind {
        QuestionKind::Text => (
            "Free text. The answer is a string.",
            vec![("maxLength", max_length())],
        ),
        QuestionKind::SingleSelect => (
            "One choice, shown as radios. The answer is one exact option id.",
            vec![("options", choice_options())],
        ),
        QuestionKind::MultiSelect => (
            "Several choices, shown as checkboxes. The answer is an array of distinct option ids.",
            vec![
                ("options", choice_options()),
                ("minItems", min_items()),
                ("maxItems", max_items(false)),
            ],
        ),
        QuestionKind::Resource => (
            "One offered resource card (use for templates). The answer is one exact offered uri.",
            vec![("options", resource_options(kind.min_options()))],
        ),
        QuestionKind::Resources => (
            "Several offered resource cards. The answer is an array of distinct offered uris.",
            vec![
                ("options", resource_options(kind.min_options())),
                ("minItems", min_items()),
                ("maxItems", max_items(false)),
            ],
        ),
        QuestionKind::Files => (
            "Files: offered resource cards and files the user picks. The answer is an array of \
             distinct offered uris or absolute local file:// URIs; it does not prove a file's \
             type, upload or readability.",
            vec![
                ("options", resource_options(kind.min_options())),
                ("minItems", min_items()),
                ("maxItems", max_items(true)),
                ("accept", accept()),
            ],
        ),
    };
    let mut properties = common_fields(kind);
    properties.extend(extra);
    let mut required = vec!["id", "type", "title", "required"];
    if kind.min_options() > 0 {
        required.push("options");
    }
    object(Some(answer.into()), properties, required)
}

fn common_fields(kind: QuestionKind) -> Vec<(&'static str, Schema)> {
    vec![
        (
            "id",
            id(format!(
                "Unique in the form; the answer's key in content. An ASCII letter, then \
                 letters, digits, _ or -, at most {ID_MAX} characters."
            )),
        ),
        (
            "type",
            Schema {
                ty: Some("string"),
                enumeration: Some(vec![kind.as_str()]),
                ..Schema::default()
            },
        ),
        (
            "title",
            label(
                TITLE_MAX,
                format!(
                    "The field label above the input, at most {TITLE_MAX} characters. With one \
                     question, repeat the message's question; with several, make each title \
                     self-contained; for direct actions use an action (\"Upload your data\"); \
                     for a template picker, a collection title (\"Relevant report templates\")."
                ),
            ),
        ),
        (
            "description",
            bounded(
                DESCRIPTION_MAX,
                format!(
                    "Optional help under the title, at most {DESCRIPTION_MAX} characters. Omit it \
                     unless it adds useful context."
                ),
            ),
        ),
        (
            "required",
            Schema {
                ty: Some("boolean"),
                description: Some(
                    "Explicit, no default. true: the user must answer before submitting. false: \
                     the user may skip, and a skipped question is left out of the content (text \
                     and arrays may also come back empty). The call blocks either way."
                        .into(),
                ),
                ..Schema::default()
            },
        ),
    ]
}

fn max_length() -> Schema {
    integer(
        MAX_LENGTH_MIN,
        MAX_LENGTH_MAX,
        format!(
            "Optional longest answer in characters, {MAX_LENGTH_MIN}-{MAX_LENGTH_MAX}; \
             {MAX_LENGTH_DEFAULT} when omitted."
        ),
    )
}

fn min_items() -> Schema {
    integer(
        0u32,
        ITEMS_MAX,
        format!(
            "Optional fewest answers, 0-{ITEMS_MAX}; when omitted 1 if required, else 0. A \
             required question cannot use 0. At most maxItems."
        ),
    )
}

fn max_items(files: bool) -> Schema {
    let default = if files {
        format!("{ITEMS_MAX}")
    } else {
        "the option count; it may not exceed the option count".into()
    };
    integer(
        MAX_ITEMS_MIN,
        ITEMS_MAX,
        format!("Optional most answers, {MAX_ITEMS_MIN}-{ITEMS_MAX}; when omitted {default}."),
    )
}

fn choice_options() -> Schema {
    array_of(
        CHOICE_OPTION_REF,
        OPTIONS_MIN,
        OPTIONS_MAX,
        format!(
            "{OPTIONS_MIN}-{OPTIONS_MAX} choices in display order, ids unique. Nothing is \
             preselected."
        ),
    )
}

fn resource_options(min: usize) -> Schema {
    let what = if min == 0 {
        format!("Optional offered files or resources, 0-{OPTIONS_MAX}")
    } else {
        format!("{min}-{OPTIONS_MAX} offered resources")
    };
    array_of(
        RESOURCE_OPTION_REF,
        min,
        OPTIONS_MAX,
        format!(
            "{what} in display order, uris unique, from verified discovery results. Nothing is \
             preselected."
        ),
    )
}

fn accept() -> Schema {
    Schema {
        ty: Some("array"),
        description: Some(format!(
            "Optional picker filter: {ACCEPT_MIN}-{ACCEPT_MAX} distinct filename extensions or \
             MIME types, such as [\".csv\", \"text/csv\"] or [\"image/*\"]. The host applies it; \
             it does not prove a file's content type."
        )),
        items: Some(Box::new(Schema {
            ty: Some("string"),
            pattern: Some(ACCEPT_PATTERN.into()),
            ..Schema::default()
        })),
        min_items: n(ACCEPT_MIN),
        max_items: n(ACCEPT_MAX),
        unique_items: Some(true),
        ..Schema::default()
    }
}
