//! Validation of a [`FormSpec`] against rules R1–R27. R3, R10 and R21 are properties of the
//! JSON text and are checked by the parser; R4 is measured by `size.rs`, on a built spec here
//! and on the JSON it read by the parser.

use super::findings::{Loc, Violations};
use super::model::{ChoiceOption, FormSpec, Image, Question, QuestionSpec, ResourceOption};
use super::{size, DataForm, Resolved};
use crate::error::FormError;
use forms_rules::{self as rules, limits, Violation};

fn check_image(out: &mut Violations<'_>, at: Loc<'static>, image: &Image) {
    out.check(at.key("src"), None, rules::check_image_src(&image.src));
    if let Some(m) = &image.mime_type {
        out.check(at.key("mimeType"), Some(m), rules::check_image_mime_type(m));
    }
}

fn check_choice(out: &mut Violations<'_>, at: Loc<'static>, o: &ChoiceOption) {
    out.check(at.key("id"), Some(&o.id), rules::check_id(&o.id));
    out.check(at.key("title"), None, rules::check_option_title(&o.title));
    if let Some(d) = &o.description {
        out.check(
            at.key("description"),
            None,
            rules::check_option_description(d),
        );
    }
    if let Some(t) = &o.thumbnail {
        check_image(out, at.key("thumbnail"), t);
    }
}

fn check_resource(out: &mut Violations<'_>, at: Loc<'static>, o: &ResourceOption) {
    out.check(
        at.key("uri"),
        Some(&o.uri),
        rules::check_resource_uri(&o.uri),
    );
    out.check(at.key("name"), None, rules::check_resource_label(&o.name));
    out.check(at.key("title"), None, rules::check_resource_label(&o.title));
    if let Some(d) = &o.description {
        out.check(
            at.key("description"),
            None,
            rules::check_resource_description(d),
        );
    }
    if let Some(m) = &o.mime_type {
        out.check(
            at.key("mimeType"),
            Some(m),
            rules::check_resource_mime_type(m),
        );
    }
    if let Some(icons) = &o.icons {
        out.check(at.key("icons"), None, rules::check_icon_count(icons.len()));
        for (i, icon) in icons.iter().enumerate() {
            check_image(out, at.key("icons").index(i), icon);
        }
    }
    if let Some(t) = &o.thumbnail {
        check_image(out, at.key("thumbnail"), t);
    }
}

/// R5: reports every value of `items` (by `key`) that an earlier item already has.
fn check_unique<T>(
    out: &mut Violations<'_>,
    at: Loc<'static>,
    field: &'static str,
    items: &[T],
    key: impl Fn(&T) -> &str,
    what: &str,
) {
    for (i, first) in rules::repeated_keys(items.iter().map(&key)) {
        out.push_with(at.index(i).key(field), items.get(i).map(&key), || {
            Violation::new(
                rules::Rule::R5,
                format!(
                    "repeats the {what} of {}; {what}s must be unique",
                    at.index(first).to_path()
                ),
            )
        });
    }
}

fn check_question(out: &mut Violations<'_>, qi: usize, q: &Question) -> Resolved {
    let at = Loc::ROOT.key("questions").index(qi);
    out.check(at.key("id"), Some(&q.id), rules::check_id(&q.id));
    out.check(at.key("title"), None, rules::check_title(&q.title));
    if let Some(d) = &q.description {
        out.check(at.key("description"), None, rules::check_description(d));
    }
    let mut max_length = limits::MAX_LENGTH_DEFAULT;
    if let QuestionSpec::Text {
        max_length: Some(m),
    } = &q.kind
    {
        if let Some(m) = out.check(
            at.key("maxLength"),
            None,
            rules::check_max_length(i64::from(*m)),
        ) {
            max_length = m;
        }
    }
    check_options(out, at, &q.kind);
    if let QuestionSpec::Files {
        accept: Some(accept),
        ..
    } = &q.kind
    {
        if let Err((item, v)) = rules::check_accept_list(accept) {
            match item {
                Some(i) => out.push(
                    at.key("accept").index(i),
                    accept.get(i).map(String::as_str),
                    v,
                ),
                None => out.push(at.key("accept"), None, v),
            }
        }
    }
    let limits = check_limits(out, at, q);
    Resolved {
        max_length,
        min_items: limits.min_items,
        max_items: limits.max_items,
    }
}

/// R5, R12–R16, R23, R24: a question's options, each one and their count.
fn check_options(out: &mut Violations<'_>, at: Loc<'static>, kind: &QuestionSpec) {
    match kind {
        QuestionSpec::Text { .. } => return,
        QuestionSpec::SingleSelect { options } | QuestionSpec::MultiSelect { options, .. } => {
            for (i, o) in options.iter().enumerate() {
                check_choice(out, at.key("options").index(i), o);
            }
            check_unique(
                out,
                at.key("options"),
                "id",
                options,
                |o| &o.id,
                "option id",
            );
        }
        QuestionSpec::Resource { options }
        | QuestionSpec::Resources { options, .. }
        | QuestionSpec::Files { options, .. } => {
            for (i, o) in options.iter().enumerate() {
                check_resource(out, at.key("options").index(i), o);
            }
            check_unique(out, at.key("options"), "uri", options, |o| &o.uri, "uri");
        }
    }
    out.check(
        at.key("options"),
        None,
        rules::check_option_count(kind.kind(), kind.option_count()),
    );
}

/// R17–R20: a question's selection limits, with defaults applied (zero when broken or when the
/// kind has none). A problem with one given bound is reported at that bound's path.
fn check_limits(
    out: &mut Violations<'_>,
    at: Loc<'static>,
    q: &Question,
) -> rules::SelectionLimits {
    let (min, max) = q.kind.given_limits();
    let limits = rules::check_selection_limits(
        q.kind.kind(),
        q.required,
        min.map(i64::from),
        max.map(i64::from),
        q.kind.option_count(),
    );
    let at = match (&limits, min, max) {
        (Err(v), Some(_), _) if v.rule == rules::Rule::R18 => at.key("minItems"),
        (Err(v), _, Some(_)) if v.rule == rules::Rule::R19 => at.key("maxItems"),
        _ => at,
    };
    out.check(at, None, limits)
        .unwrap_or(rules::SelectionLimits {
            min_items: 0,
            max_items: 0,
        })
}

/// Validates `spec` against every rule that applies to a built form (R4 measured on the spec's
/// compact JSON); on success the form is ready for the native compiler and the answer checker.
pub(crate) fn validate(spec: FormSpec) -> Result<DataForm, FormError> {
    let mut out = Violations::default();
    size::check_size(&mut out, size::spec_utf16_len(&spec));
    let resolved = check_spec(&mut out, &spec);
    if !out.is_empty() {
        return Err(out.into_error(true));
    }
    Ok(finish(spec, resolved))
}

/// Records every violation of `spec` of the rules R1, R2 and R5–R26 (R4 is separate, see
/// [`check_size`]) and returns each question's limits with defaults applied.
pub(crate) fn check_spec(out: &mut Violations<'_>, spec: &FormSpec) -> Vec<Resolved> {
    out.check(
        Loc::ROOT.key("message"),
        None,
        rules::check_message(&spec.message),
    );
    out.check(
        Loc::ROOT.key("questions"),
        None,
        rules::check_question_count(spec.questions.len()),
    );
    let resolved: Vec<Resolved> = spec
        .questions
        .iter()
        .enumerate()
        .map(|(i, q)| check_question(out, i, q))
        .collect();
    check_unique(
        out,
        Loc::ROOT.key("questions"),
        "id",
        &spec.questions,
        |q| &q.id,
        "question id",
    );
    resolved
}

/// Records only that `spec` has too many questions or a question too many options (R2,
/// R12–R16): what stays true of a model the parser had to stop checking, whatever its
/// placeholders hold.
pub(crate) fn check_too_many(out: &mut Violations<'_>, spec: &FormSpec) {
    let questions = spec.questions.len();
    if questions > limits::QUESTIONS_MAX {
        out.check(
            Loc::ROOT.key("questions"),
            None,
            rules::check_question_count(questions),
        );
    }
    for (i, q) in spec.questions.iter().enumerate() {
        let count = q.kind.option_count();
        if count > limits::OPTIONS_MAX {
            out.check(
                Loc::ROOT.key("questions").index(i).key("options"),
                None,
                rules::check_option_count(q.kind.kind(), count),
            );
        }
    }
}

/// The form made of a spec that passed every check.
pub(crate) fn finish(spec: FormSpec, resolved: Vec<Resolved>) -> DataForm {
    DataForm::from_parts(normalize(spec), resolved)
}

/// Trims the labels the contract trims (titles, names; JavaScript's whitespace set) so every
/// later stage sees the normalized text.
fn normalize(mut spec: FormSpec) -> FormSpec {
    fn trim(s: &mut String) {
        let t = forms_rules::js_trim(s);
        if t.len() != s.len() {
            *s = t.to_owned();
        }
    }
    for q in &mut spec.questions {
        trim(&mut q.title);
        match &mut q.kind {
            QuestionSpec::Text { .. } => {}
            QuestionSpec::SingleSelect { options } | QuestionSpec::MultiSelect { options, .. } => {
                for o in options {
                    trim(&mut o.title);
                }
            }
            QuestionSpec::Resource { options }
            | QuestionSpec::Resources { options, .. }
            | QuestionSpec::Files { options, .. } => {
                for o in options {
                    trim(&mut o.name);
                    trim(&mut o.title);
                }
            }
        }
    }
    spec
}
