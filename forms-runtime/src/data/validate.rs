//! Validation of a [`FormSpec`] against rules R1–R27. R3, R10 and R21 are properties of the
//! JSON text and are checked by the parser; R4 is measured by `size.rs`, on a built spec here
//! and on the JSON it read by the parser.

use super::model::{ChoiceOption, FormSpec, Image, Question, QuestionSpec, ResourceOption};
use super::{size, DataForm, Resolved};
use crate::error::{ErrorCode, Finding, FormError, JsonPath};
use forms_rules::{self as rules, limits, Violation};

/// Every violation found in one pass, each with the JSON path it belongs to.
#[derive(Debug, Default)]
pub(crate) struct Violations {
    list: Vec<(String, Option<String>, Violation)>,
}

/// Values shorter than this are quoted in messages; longer ones are not repeated.
const QUOTE_MAX: usize = forms_rules::SHOWN_CHARS_MAX;

impl Violations {
    /// Records `v` at `path`, quoting `value` when it is short.
    pub(crate) fn push(&mut self, path: String, value: Option<&str>, v: Violation) {
        let value = value
            .filter(|s| s.chars().count() <= QUOTE_MAX)
            .map(str::to_owned);
        self.list.push((path, value, v));
    }

    /// Records the error of `r`, if any.
    pub(crate) fn check<T>(
        &mut self,
        path: impl FnOnce() -> String,
        value: Option<&str>,
        r: Result<T, Violation>,
    ) -> Option<T> {
        match r {
            Ok(t) => Some(t),
            Err(v) => {
                self.push(path(), value, v);
                None
            }
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Keeps only the violations whose path satisfies `keep`.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&str) -> bool) {
        self.list.retain(|(path, _, _)| keep(path));
    }

    /// Sorts the violations by `key` of their paths, keeping the order of equal keys.
    pub(crate) fn sort_by_path<K: Ord>(&mut self, mut key: impl FnMut(&str) -> K) {
        self.list.sort_by_cached_key(|(path, _, _)| key(path));
    }

    /// Rewrites every path with `f`.
    pub(crate) fn map_paths(&mut self, mut f: impl FnMut(&mut String)) {
        for (path, _, _) in &mut self.list {
            f(path);
        }
    }

    /// Moves every violation of `other` after these.
    pub(crate) fn append(&mut self, mut other: Violations) {
        self.list.append(&mut other.list);
    }

    /// One `invalid_arguments` error listing every violation, in the order found. At most
    /// `MESSAGE_FINDINGS_MAX` are spelled out; the message then says how many more there are.
    pub(crate) fn into_error(self) -> FormError {
        let findings = self
            .list
            .into_iter()
            .map(|(path, value, v)| {
                let problem = match value {
                    Some(val) => format!("{val:?} {}", v.problem),
                    None => v.problem,
                };
                Finding::new(path_of(&path), Some(v.rule), problem)
            })
            .collect();
        FormError::from_findings(ErrorCode::InvalidArguments, findings, 0)
    }
}

/// Reads back a path rendered as `questions[2].options[0].id` or `arguments["odd key"]`.
/// Transitional: the parser still carries rendered paths.
pub(crate) fn path_of(rendered: &str) -> JsonPath {
    let mut path = JsonPath::arguments();
    let rest = rendered.strip_prefix("arguments").unwrap_or(rendered);
    let mut chars = rest.chars().peekable();
    let mut key = String::new();
    while let Some(c) = chars.next() {
        match c {
            '.' => {
                if !key.is_empty() {
                    path.push_key(std::mem::take(&mut key));
                }
            }
            '[' => {
                if !key.is_empty() {
                    path.push_key(std::mem::take(&mut key));
                }
                if chars.peek() == Some(&'"') {
                    chars.next();
                    let mut quoted = String::new();
                    while let Some(c) = chars.next() {
                        match c {
                            '\\' => {
                                if let Some(n) = chars.next() {
                                    quoted.push(n);
                                }
                            }
                            '"' => break,
                            c => quoted.push(c),
                        }
                    }
                    let _ = chars.next(); // ']'
                    path.push_key(quoted);
                } else {
                    let digits: String = chars.by_ref().take_while(|c| *c != ']').collect();
                    path.push_index(digits.parse().unwrap_or(0));
                }
            }
            c => key.push(c),
        }
    }
    if !key.is_empty() {
        path.push_key(key);
    }
    path
}

fn check_image(out: &mut Violations, path: &str, image: &Image) {
    out.check(
        || format!("{path}.src"),
        None,
        rules::check_image_src(&image.src),
    );
    if let Some(m) = &image.mime_type {
        out.check(
            || format!("{path}.mimeType"),
            Some(m),
            rules::check_image_mime_type(m),
        );
    }
}

fn check_choice(out: &mut Violations, path: &str, o: &ChoiceOption) {
    out.check(|| format!("{path}.id"), Some(&o.id), rules::check_id(&o.id));
    out.check(
        || format!("{path}.title"),
        None,
        rules::check_option_title(&o.title),
    );
    if let Some(d) = &o.description {
        out.check(
            || format!("{path}.description"),
            None,
            rules::check_option_description(d),
        );
    }
    if let Some(t) = &o.thumbnail {
        check_image(out, &format!("{path}.thumbnail"), t);
    }
}

fn check_resource(out: &mut Violations, path: &str, o: &ResourceOption) {
    out.check(
        || format!("{path}.uri"),
        Some(&o.uri),
        rules::check_resource_uri(&o.uri),
    );
    out.check(
        || format!("{path}.name"),
        None,
        rules::check_resource_label(&o.name),
    );
    out.check(
        || format!("{path}.title"),
        None,
        rules::check_resource_label(&o.title),
    );
    if let Some(d) = &o.description {
        out.check(
            || format!("{path}.description"),
            None,
            rules::check_resource_description(d),
        );
    }
    if let Some(m) = &o.mime_type {
        out.check(
            || format!("{path}.mimeType"),
            Some(m),
            rules::check_resource_mime_type(m),
        );
    }
    if let Some(icons) = &o.icons {
        out.check(
            || format!("{path}.icons"),
            None,
            rules::check_icon_count(icons.len()),
        );
        for (i, icon) in icons.iter().enumerate() {
            check_image(out, &format!("{path}.icons[{i}]"), icon);
        }
    }
    if let Some(t) = &o.thumbnail {
        check_image(out, &format!("{path}.thumbnail"), t);
    }
}

/// R5: reports every value of `items` (by `key`) that an earlier item already has.
fn check_unique<T>(
    out: &mut Violations,
    path: &str,
    field: &str,
    items: &[T],
    key: impl Fn(&T) -> &str,
    what: &str,
) {
    for (i, first) in rules::repeated_keys(items.iter().map(&key)) {
        out.push(
            format!("{path}[{i}].{field}"),
            items.get(i).map(&key),
            Violation::new(
                rules::Rule::R5,
                format!("repeats the {what} of {path}[{first}]; {what}s must be unique"),
            ),
        );
    }
}

fn check_question(out: &mut Violations, qi: usize, q: &Question) -> Resolved {
    let path = format!("questions[{qi}]");
    out.check(|| format!("{path}.id"), Some(&q.id), rules::check_id(&q.id));
    out.check(
        || format!("{path}.title"),
        None,
        rules::check_title(&q.title),
    );
    if let Some(d) = &q.description {
        out.check(
            || format!("{path}.description"),
            None,
            rules::check_description(d),
        );
    }
    let mut max_length = limits::MAX_LENGTH_DEFAULT;
    if let QuestionSpec::Text {
        max_length: Some(m),
    } = &q.kind
    {
        if let Some(m) = out.check(
            || format!("{path}.maxLength"),
            None,
            rules::check_max_length(i64::from(*m)),
        ) {
            max_length = m;
        }
    }
    check_options(out, &path, &q.kind);
    if let QuestionSpec::Files {
        accept: Some(accept),
        ..
    } = &q.kind
    {
        if let Err((at, v)) = rules::check_accept_list(accept) {
            match at {
                Some(i) => out.push(
                    format!("{path}.accept[{i}]"),
                    accept.get(i).map(String::as_str),
                    v,
                ),
                None => out.push(format!("{path}.accept"), None, v),
            }
        }
    }
    let limits = check_limits(out, &path, q);
    Resolved {
        max_length,
        min_items: limits.min_items,
        max_items: limits.max_items,
    }
}

/// R5, R12–R16, R23, R24: a question's options, each one and their count.
fn check_options(out: &mut Violations, path: &str, kind: &QuestionSpec) {
    match kind {
        QuestionSpec::Text { .. } => return,
        QuestionSpec::SingleSelect { options } | QuestionSpec::MultiSelect { options, .. } => {
            for (i, o) in options.iter().enumerate() {
                check_choice(out, &format!("{path}.options[{i}]"), o);
            }
            let path = format!("{path}.options");
            check_unique(out, &path, "id", options, |o| &o.id, "option id");
        }
        QuestionSpec::Resource { options }
        | QuestionSpec::Resources { options, .. }
        | QuestionSpec::Files { options, .. } => {
            for (i, o) in options.iter().enumerate() {
                check_resource(out, &format!("{path}.options[{i}]"), o);
            }
            check_unique(
                out,
                &format!("{path}.options"),
                "uri",
                options,
                |o| &o.uri,
                "uri",
            );
        }
    }
    out.check(
        || format!("{path}.options"),
        None,
        rules::check_option_count(kind.kind(), kind.option_count()),
    );
}

/// R17–R20: a question's selection limits, with defaults applied (zero when broken or when the
/// kind has none). A problem with one given bound is reported at that bound's path.
fn check_limits(out: &mut Violations, path: &str, q: &Question) -> rules::SelectionLimits {
    let (min, max) = q.kind.given_limits();
    let limits = rules::check_selection_limits(
        q.kind.kind(),
        q.required,
        min.map(i64::from),
        max.map(i64::from),
        q.kind.option_count(),
    );
    let field = match (&limits, min, max) {
        (Err(v), Some(_), _) if v.rule == rules::Rule::R18 => ".minItems",
        (Err(v), _, Some(_)) if v.rule == rules::Rule::R19 => ".maxItems",
        _ => "",
    };
    out.check(|| format!("{path}{field}"), None, limits)
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
        return Err(out.into_error());
    }
    Ok(finish(spec, resolved))
}

/// Records every violation of `spec` of the rules R1, R2 and R5–R26 (R4 is separate, see
/// [`check_size`]) and returns each question's limits with defaults applied.
pub(crate) fn check_spec(out: &mut Violations, spec: &FormSpec) -> Vec<Resolved> {
    out.check(
        || "message".to_owned(),
        None,
        rules::check_message(&spec.message),
    );
    out.check(
        || "questions".to_owned(),
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
        "questions",
        "id",
        &spec.questions,
        |q| &q.id,
        "question id",
    );
    resolved
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
