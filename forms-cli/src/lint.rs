//! `forms check --lint`: warnings about forms that are valid but render badly.
//!
//! The lints read the native request through the host's view of it
//! ([`forms_runtime::native::NativeView`]), so a Data form and a native request are judged
//! alike, and a field or option the host cannot read is itself a warning. A warning's path is
//! written in the vocabulary of the input (Data paths such as `questions[1].options[0]` for a
//! Data form, native paths such as `requestedSchema.properties.format.oneOf[0]` for a native
//! request).

use crate::io::{load_form, Document, Input, Printed, Usage};
use forms_runtime::native::{NativeQuestion, NativeView, QuestionKind};
use serde::Serialize;

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

/// What the renderer will show of one option (its label and whether it has a description,
/// thumbnail or icon), and where its list sits in the native request.
struct RenderedOption<'a> {
    /// The visible title (a resource falls back to its name).
    label: &'a str,
    described: bool,
    thumbnail: bool,
    icon: bool,
    /// The native key path of the option list, e.g. `oneOf` or `x-openai-input.options`.
    native_list: &'static str,
}

fn nonempty(text: Option<&str>) -> bool {
    text.is_some_and(|s| !forms_runtime::rules::js_trim(s).is_empty())
}

/// The shape and options of one question. A plain `enum` list (a core field) has no
/// descriptions or thumbnails to give, so it is not linted.
fn read_question(q: &NativeQuestion) -> (Shape, Vec<RenderedOption<'_>>) {
    match &q.kind {
        QuestionKind::Resource { options, .. } | QuestionKind::Resources { options, .. } => {
            let opts = options
                .iter()
                .map(|r| RenderedOption {
                    label: r.label(),
                    described: nonempty(r.description.as_deref()),
                    thumbnail: r.thumbnail.is_some(),
                    icon: !r.icons.is_empty(),
                    native_list: "x-openai-input.options",
                })
                .collect();
            (Shape::Resource, opts)
        }
        QuestionKind::SingleSelect { options, list }
        | QuestionKind::MultiSelect { options, list, .. }
            if !list.is_enum() =>
        {
            let opts = options
                .iter()
                .map(|o| RenderedOption {
                    label: o.label(),
                    described: nonempty(o.description.as_deref()),
                    thumbnail: o.thumbnail.is_some(),
                    icon: false,
                    native_list: list.path(),
                })
                .collect();
            (Shape::Choice, opts)
        }
        QuestionKind::Text { .. } => (Shape::Text, Vec::new()),
        _ => (Shape::Other, Vec::new()),
    }
}

/// The warnings of a native request.
pub fn lint_native(request: &NativeView, style: PathStyle) -> Vec<Warning> {
    let properties = &request.questions;
    let message = request.message();
    let mut out = Vec::new();
    let question_path = |index: usize, id: &str| match style {
        PathStyle::Data => format!("questions[{index}]"),
        PathStyle::Native => format!("requestedSchema.properties.{id}"),
    };
    let option_path = |index: usize, id: &str, opt: &RenderedOption<'_>, j: usize| match style {
        PathStyle::Data => format!("questions[{index}].options[{j}]"),
        PathStyle::Native => format!("requestedSchema.properties.{id}.{}[{j}]", opt.native_list),
    };
    for (index, q) in properties.iter().enumerate() {
        let id = q.id.as_str();
        let (shape, opts) = read_question(q);
        let title = q.title.as_deref().unwrap_or("");
        let qpath = question_path(index, id);

        if let QuestionKind::Unreadable { reason } = &q.kind {
            out.push(Warning {
                id: "unreadable-question",
                path: qpath.clone(),
                message: format!("the host cannot show this field: {reason}"),
                fix: "Use a field the host renders: text, a choice (`oneOf`, `items.anyOf`), resources (`x-openai-input`), a number or a boolean.".into(),
            });
        }
        for note in &q.notes {
            out.push(Warning {
                id: "unreadable-option",
                path: qpath.clone(),
                message: format!("the host leaves out an option: {note}"),
                fix: "Give every choice option a string `const` and every resource a string `uri`."
                    .into(),
            });
        }

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

        if shape == Shape::Choice || shape == Shape::Resource {
            for (j, opt) in opts.iter().enumerate() {
                let label = forms_runtime::rules::js_trim(opt.label);
                let earlier = opts
                    .iter()
                    .take(j)
                    .position(|o| forms_runtime::rules::js_trim(o.label) == label);
                if let Some(k) = earlier {
                    out.push(Warning {
                        id: "duplicate-option-title",
                        path: option_path(index, id, opt, j),
                        message: format!(
                            "the title \"{label}\" is also the title of option {k}, so the two options look the same"
                        ),
                        fix: "Give every option of the question its own title; put what they share in the question's title.".into(),
                    });
                }
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
            Ok(report) => Printed::Done(report),
            Err(e) => Printed::Failed(Document::Arguments.error(e.to_string())),
        },
        Err(e) => Printed::Failed(e),
    })
}

/// `forms check --lint`: `{"form":…,"warnings":[…]}` for a valid Data form, the form as
/// `forms check` prints it.
pub fn check_report(form: &forms_runtime::DataForm) -> Result<serde_json::Value, String> {
    let warnings = lint_data(form).map_err(|e| e.to_string())?;
    let form: serde_json::Value =
        serde_json::from_str(&form.to_json()).map_err(|e| e.to_string())?;
    Ok(serde_json::json!({
        "form": form,
        "warnings": serde_json::to_value(&warnings).map_err(|e| e.to_string())?,
    }))
}

/// The warnings of a valid Data form, read through its native request.
pub fn lint_data(
    form: &forms_runtime::DataForm,
) -> Result<Vec<Warning>, forms_runtime::native::NativeError> {
    let native = NativeView::from_json(form.native_json())?;
    Ok(lint_native(&native, PathStyle::Data))
}
