//! Stage 3: the strict model, built from the tree with every type and property checked.

use super::tree::{key_path, Json, Num};
use crate::data::model::{ChoiceOption, FormSpec, Image, Question, QuestionSpec, ResourceOption};
use crate::data::size::js_number;
use crate::data::Violations;
use forms_rules::{self as rules, keys, QuestionKind, Rule, Violation};
use std::collections::{HashMap, HashSet};

/// An object's entries and its path.
struct Fields<'j> {
    path: String,
    entries: &'j [(String, Json)],
}

impl<'j> Fields<'j> {
    fn get(&self, key: &str) -> Option<&'j Json> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    fn at(&self, key: &str) -> String {
        key_path(&self.path, key)
    }
}

/// An integer field's value.
enum Int {
    /// Fits the model's `u32`; the range is checked by validation.
    Fits(u32),
    /// Negative or huge: `clamped` to `i64` for the rules crate, `shown` as written.
    Out { clamped: i64, shown: String },
}

/// Builds the model from a tree, recording every problem found on the way.
#[derive(Default)]
pub(super) struct Builder {
    pub(super) out: Violations,
    /// Paths whose value was unusable: validation findings at or below them are dropped,
    /// since they would only describe the placeholder put in its place.
    broken: HashSet<String>,
    /// Paths whose own validation findings are dropped (not those below them).
    muted: HashSet<String>,
    /// Model paths to report under the name the input used (`thumbnail` given as `preview`).
    renamed: HashMap<String, String>,
}

/// `path` and each path above it, longest first (`a.b[0]`, `a.b`, `a`).
fn path_and_parents(path: &str) -> impl Iterator<Item = &str> {
    std::iter::once(path).chain(
        path.rmatch_indices(['.', '['])
            .filter_map(move |(i, _)| path.get(..i)),
    )
}

fn list(keys: &[&str]) -> String {
    keys.iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Builder {
    /// Records a problem of the input at `path` and marks it broken.
    fn report(&mut self, path: String, value: Option<&str>, v: Violation) {
        self.broken.insert(path.clone());
        self.out.push(path, value, v);
    }

    fn wrong_type(&mut self, path: String, expected: &str, found: &Json, rule: Rule) {
        let hint = if matches!(found, Json::Null) {
            "; leave an optional property out instead of writing null"
        } else {
            ""
        };
        self.report(
            path,
            None,
            Violation::new(
                rule,
                format!("expected {expected}, found {}{hint}", found.type_name()),
            ),
        );
    }

    fn missing(&mut self, path: String, rule: Rule) {
        self.report(path, None, Violation::new(rule, "is required but missing"));
    }

    /// Whether a validation finding at `path` only describes a placeholder.
    pub(super) fn covers(&self, path: &str) -> bool {
        self.muted.contains(path) || path_and_parents(path).any(|p| self.broken.contains(p))
    }

    /// Reports every property of `obj` outside `allowed`, with the most specific rule.
    fn extra_keys(
        &mut self,
        obj: &Fields<'_>,
        allowed: &[&str],
        what: &str,
        special: &dyn Fn(&str) -> Option<Violation>,
    ) {
        for (key, _) in obj.entries {
            if allowed.contains(&key.as_str()) {
                continue;
            }
            let v = rules::check_preselection_key(key)
                .or_else(|| special(key))
                .unwrap_or_else(|| {
                    Violation::new(
                        Rule::R3,
                        format!(
                            "is not a property of {what}; it takes only {}",
                            list(allowed)
                        ),
                    )
                });
            self.report(obj.at(key), None, v);
        }
    }

    /// A required string property; `""` stands in when it is missing or not a string.
    fn req_str(&mut self, obj: &Fields<'_>, key: &str, rule: Rule) -> String {
        match obj.get(key) {
            Some(Json::Str(s)) => s.clone(),
            Some(other) => {
                self.wrong_type(obj.at(key), "a string", other, rule);
                String::new()
            }
            None => {
                self.missing(obj.at(key), rule);
                String::new()
            }
        }
    }

    /// An optional string property.
    fn opt_str(&mut self, obj: &Fields<'_>, key: &str, rule: Rule) -> Option<String> {
        match obj.get(key)? {
            Json::Str(s) => Some(s.clone()),
            other => {
                self.wrong_type(obj.at(key), "a string", other, rule);
                None
            }
        }
    }

    /// An integer property (see the module docs on what counts as an integer).
    fn integer(&mut self, path: &str, json: &Json, rule: Rule) -> Option<Int> {
        let out = |clamped: i64, shown: String| Int::Out { clamped, shown };
        match json {
            Json::Num(Num::U(u)) => Some(match u32::try_from(*u) {
                Ok(v) => Int::Fits(v),
                Err(_) => out(i64::try_from(*u).unwrap_or(i64::MAX), u.to_string()),
            }),
            Json::Num(Num::I(i)) => Some(match u32::try_from(*i) {
                Ok(v) => Int::Fits(v),
                Err(_) => out(*i, i.to_string()),
            }),
            Json::Num(Num::F(f)) if f.is_finite() && f.fract() == 0.0 => {
                Some(if (0.0..=f64::from(u32::MAX)).contains(f) {
                    // In range and integral, so the conversion is exact.
                    Int::Fits(*f as u32)
                } else {
                    // `as` saturates at the ends of `i64`.
                    out(*f as i64, js_number(*f))
                })
            }
            Json::Num(Num::F(f)) => {
                self.report(
                    path.to_owned(),
                    None,
                    Violation::new(rule, format!("must be an integer, found {}", js_number(*f))),
                );
                None
            }
            other => {
                self.wrong_type(path.to_owned(), "an integer", other, rule);
                None
            }
        }
    }

    /// Reports an out-of-range integer with the rules crate's violation, naming the value as
    /// written rather than as clamped.
    fn out_of_range(&mut self, path: String, v: Violation, clamped: i64, shown: &str) {
        let problem = v.problem.replace(&clamped.to_string(), shown);
        self.report(path, None, Violation::new(v.rule, problem));
    }

    pub(super) fn form(&mut self, json: &Json) -> Option<FormSpec> {
        let Json::Obj(entries) = json else {
            self.report(
                "arguments".to_owned(),
                None,
                Violation::new(
                    Rule::R3,
                    format!(
                        "expected an object with `message` and `questions`, found {}",
                        json.type_name()
                    ),
                ),
            );
            return None;
        };
        let obj = Fields {
            path: String::new(),
            entries,
        };
        let message = self.req_str(&obj, "message", Rule::R1);
        let questions = match obj.get("questions") {
            Some(Json::Arr(items)) => items
                .iter()
                .enumerate()
                .map(|(i, q)| self.question(i, q))
                .collect(),
            Some(other) => {
                self.wrong_type(
                    "questions".to_owned(),
                    "an array of questions",
                    other,
                    Rule::R2,
                );
                Vec::new()
            }
            None => {
                self.missing("questions".to_owned(), Rule::R2);
                Vec::new()
            }
        };
        self.extra_keys(&obj, keys::FORM, "the form", &|_| None);
        Some(FormSpec { message, questions })
    }

    fn question(&mut self, index: usize, json: &Json) -> Question {
        let path = format!("questions[{index}]");
        let placeholder = Question {
            id: String::new(),
            title: String::new(),
            description: None,
            required: false,
            kind: QuestionSpec::Text { max_length: None },
        };
        let Json::Obj(entries) = json else {
            self.wrong_type(path, "a question object", json, Rule::R2);
            return placeholder;
        };
        let obj = Fields { path, entries };
        let id = self.req_str(&obj, "id", Rule::R6);
        let kind = match obj.get("type") {
            Some(Json::Str(name)) => match QuestionKind::parse(name) {
                Ok(kind) => Some(kind),
                Err(v) => {
                    self.report(obj.at("type"), Some(name), v);
                    None
                }
            },
            Some(other) => {
                self.wrong_type(obj.at("type"), "a string", other, Rule::R7);
                None
            }
            None => {
                self.missing(obj.at("type"), Rule::R7);
                None
            }
        };
        let title = self.req_str(&obj, "title", Rule::R8);
        let description = self.opt_str(&obj, "description", Rule::R9);
        let required = match obj.get("required") {
            Some(Json::Bool(b)) => *b,
            Some(other) => {
                let problem = format!(
                    "expected a boolean, found {}; `required` is an explicit `true` or `false` \
                     with no default",
                    other.type_name()
                );
                self.report(obj.at("required"), None, Violation::new(Rule::R10, problem));
                false
            }
            None => {
                self.report(
                    obj.at("required"),
                    None,
                    Violation::new(
                        Rule::R10,
                        "is required but missing; every question needs an explicit `required` \
                         boolean (there is no default)",
                    ),
                );
                false
            }
        };
        let kind = match kind {
            Some(kind) => self.kind_fields(&obj, kind, required),
            None => {
                // Without a known type only the names of properties can be checked.
                self.extra_keys(&obj, keys::QUESTION_ANY, "a question", &|_| None);
                placeholder.kind
            }
        };
        Question {
            id,
            title,
            description,
            required,
            kind,
        }
    }

    fn kind_fields(
        &mut self,
        obj: &Fields<'_>,
        kind: QuestionKind,
        required: bool,
    ) -> QuestionSpec {
        let spec = match kind {
            QuestionKind::Text => QuestionSpec::Text {
                max_length: self.max_length(obj),
            },
            QuestionKind::SingleSelect => QuestionSpec::SingleSelect {
                options: self.choice_options(obj, kind),
            },
            QuestionKind::MultiSelect => {
                let options = self.choice_options(obj, kind);
                let (min_items, max_items) = self.limits(obj, kind, required, options.len());
                QuestionSpec::MultiSelect {
                    options,
                    min_items,
                    max_items,
                }
            }
            QuestionKind::Resource => QuestionSpec::Resource {
                options: self.resource_options(obj, kind),
            },
            QuestionKind::Resources => {
                let options = self.resource_options(obj, kind);
                let (min_items, max_items) = self.limits(obj, kind, required, options.len());
                QuestionSpec::Resources {
                    options,
                    min_items,
                    max_items,
                }
            }
            QuestionKind::Files => {
                let options = self.resource_options(obj, kind);
                let (min_items, max_items) = self.limits(obj, kind, required, options.len());
                QuestionSpec::Files {
                    options,
                    min_items,
                    max_items,
                    accept: self.accept(obj),
                }
            }
        };
        let allowed = [keys::QUESTION_COMMON, keys::question_kind(kind)].concat();
        let what = format!("a `{kind}` question");
        self.extra_keys(obj, &allowed, &what, &|key| match key {
            "minItems" | "maxItems" => {
                rules::check_selection_limits(kind, required, Some(1), Some(1), 0).err()
            }
            "options" => Some(Violation::new(
                Rule::R3,
                "is not a property of a `text` question: text questions take no options (use \
                 `single_select` or `multi_select` for choices)",
            )),
            "accept" => Some(Violation::new(
                Rule::R3,
                format!("is not a property of a `{kind}` question: only `files` questions take `accept`"),
            )),
            "maxLength" => Some(Violation::new(
                Rule::R3,
                format!(
                    "is not a property of a `{kind}` question: only `text` questions take \
                     `maxLength`"
                ),
            )),
            _ => None,
        });
        spec
    }

    fn max_length(&mut self, obj: &Fields<'_>) -> Option<u32> {
        let path = obj.at("maxLength");
        match self.integer(&path, obj.get("maxLength")?, Rule::R11)? {
            Int::Fits(v) => Some(v),
            Int::Out { clamped, shown } => {
                if let Err(v) = rules::check_max_length(clamped) {
                    self.out_of_range(path, v, clamped, &shown);
                }
                None
            }
        }
    }

    fn limits(
        &mut self,
        obj: &Fields<'_>,
        kind: QuestionKind,
        required: bool,
        count: usize,
    ) -> (Option<u32>, Option<u32>) {
        let mut broken = false;
        let mut read = |b: &mut Self, key: &str, rule: Rule| -> Option<u32> {
            let path = obj.at(key);
            let json = obj.get(key)?;
            match b.integer(&path, json, rule) {
                Some(Int::Fits(v)) => Some(v),
                Some(Int::Out { clamped, shown }) => {
                    let (min, max) = if key == "minItems" {
                        (Some(clamped), None)
                    } else {
                        (None, Some(clamped))
                    };
                    if let Err(v) = rules::check_selection_limits(kind, required, min, max, count) {
                        b.out_of_range(path, v, clamped, &shown);
                    }
                    broken = true;
                    None
                }
                None => {
                    broken = true;
                    None
                }
            }
        };
        let min = read(self, "minItems", Rule::R18);
        let max = read(self, "maxItems", Rule::R19);
        if broken {
            // A limit was unusable: a comparison of the two (R20) would be about a default.
            self.muted.insert(obj.path.clone());
        }
        (min, max)
    }

    fn accept(&mut self, obj: &Fields<'_>) -> Option<Vec<String>> {
        let path = obj.at("accept");
        match obj.get("accept")? {
            Json::Arr(items) => Some(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| match item {
                        Json::Str(s) => s.clone(),
                        other => {
                            self.wrong_type(format!("{path}[{i}]"), "a string", other, Rule::R22);
                            String::new()
                        }
                    })
                    .collect(),
            ),
            other => {
                self.wrong_type(path, "an array of strings", other, Rule::R22);
                None
            }
        }
    }

    /// The items of `obj.options`, each read by `item`; missing options are an empty list
    /// (validation then reports the count where one is needed).
    fn options<T>(
        &mut self,
        obj: &Fields<'_>,
        kind: QuestionKind,
        item: fn(&mut Self, String, &Json) -> T,
    ) -> Vec<T> {
        let path = obj.at("options");
        match obj.get("options") {
            None => Vec::new(),
            Some(Json::Arr(items)) => items
                .iter()
                .enumerate()
                .map(|(i, o)| item(self, format!("{path}[{i}]"), o))
                .collect(),
            Some(other) => {
                self.wrong_type(path, "an array of options", other, kind.options_rule());
                Vec::new()
            }
        }
    }

    fn choice_options(&mut self, obj: &Fields<'_>, kind: QuestionKind) -> Vec<ChoiceOption> {
        self.options(obj, kind, Self::choice)
    }

    fn resource_options(&mut self, obj: &Fields<'_>, kind: QuestionKind) -> Vec<ResourceOption> {
        self.options(obj, kind, Self::resource)
    }

    fn choice(&mut self, path: String, json: &Json) -> ChoiceOption {
        let Json::Obj(entries) = json else {
            self.wrong_type(path, "a choice option object", json, Rule::R23);
            return ChoiceOption {
                id: String::new(),
                title: String::new(),
                description: None,
                thumbnail: None,
            };
        };
        let obj = Fields { path, entries };
        let id = self.req_str(&obj, "id", Rule::R6);
        let title = self.req_str(&obj, "title", Rule::R23);
        let description = self.opt_str(&obj, "description", Rule::R23);
        let thumbnail = self.opt_image(&obj, "thumbnail");
        let preview = self.opt_image(&obj, "preview");
        if obj.get("thumbnail").is_some() && obj.get("preview").is_some() {
            self.report(
                obj.at("preview"),
                None,
                Violation::new(
                    Rule::R23,
                    "must not be given together with `thumbnail`: `preview` is the older name \
                     of `thumbnail`",
                ),
            );
        } else if preview.is_some() {
            self.renamed.insert(obj.at("thumbnail"), obj.at("preview"));
        }
        self.extra_keys(&obj, keys::CHOICE_OPTION, "a choice option", &|_| None);
        ChoiceOption {
            id,
            title,
            description,
            thumbnail: thumbnail.or(preview),
        }
    }

    fn resource(&mut self, path: String, json: &Json) -> ResourceOption {
        let Json::Obj(entries) = json else {
            self.wrong_type(path, "a resource option object", json, Rule::R24);
            return ResourceOption::new("", "", "");
        };
        let obj = Fields { path, entries };
        let uri = self.req_str(&obj, "uri", Rule::R24);
        let name = self.req_str(&obj, "name", Rule::R24);
        let title = self.req_str(&obj, "title", Rule::R24);
        let description = self.opt_str(&obj, "description", Rule::R24);
        let mime_type = self.opt_str(&obj, "mimeType", Rule::R24);
        let icons = match obj.get("icons") {
            None => None,
            Some(Json::Arr(items)) => Some(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, icon)| {
                        let at = format!("{}[{i}]", obj.at("icons"));
                        self.image(at, icon).unwrap_or_else(|| Image::new(""))
                    })
                    .collect(),
            ),
            Some(other) => {
                self.wrong_type(obj.at("icons"), "an array of images", other, Rule::R24);
                None
            }
        };
        let thumbnail = self.opt_image(&obj, "thumbnail");
        self.extra_keys(&obj, keys::RESOURCE_OPTION, "a resource option", &|key| {
            (key == "_meta").then(|| {
                Violation::new(
                    Rule::R3,
                    "is not accepted: Data takes no caller `_meta`; give a picture as \
                     `thumbnail`",
                )
            })
        });
        ResourceOption {
            uri,
            name,
            title,
            description,
            mime_type,
            icons,
            thumbnail,
        }
    }

    fn opt_image(&mut self, obj: &Fields<'_>, key: &str) -> Option<Image> {
        let json = obj.get(key)?;
        self.image(obj.at(key), json)
    }

    /// An image object; `None` when it is not an object (already reported).
    fn image(&mut self, path: String, json: &Json) -> Option<Image> {
        let Json::Obj(entries) = json else {
            self.wrong_type(path, "an image object with `src`", json, Rule::R25);
            return None;
        };
        let obj = Fields { path, entries };
        let src = self.req_str(&obj, "src", Rule::R25);
        let mime_type = self.opt_str(&obj, "mimeType", Rule::R25);
        self.extra_keys(&obj, keys::IMAGE, "an image", &|_| None);
        Some(Image { src, mime_type })
    }

    /// Reports validation findings under the names the input used.
    pub(super) fn rename(&self, path: &mut String) {
        let renamed = path_and_parents(path).find_map(|model| {
            let input = self.renamed.get(model)?;
            Some(format!(
                "{input}{}",
                path.get(model.len()..).unwrap_or_default()
            ))
        });
        if let Some(renamed) = renamed {
            *path = renamed;
        }
    }
}

/// A sort key that lists findings in the order of the Data arguments: the arguments as a
/// whole, `message`, `questions`, then each question by index and its fields in canonical
/// order (options by index), unknown properties last.
pub(super) fn document_order(path: &str) -> (u8, usize, usize, usize) {
    let top = |p: &str, name: &str| {
        p.strip_prefix(name)
            .is_some_and(|r| r.is_empty() || r.starts_with(['.', '[']))
    };
    if top(path, "arguments") {
        return (0, 0, 0, 0);
    }
    if top(path, "message") {
        return (1, 0, 0, 0);
    }
    let Some(rest) = path.strip_prefix("questions") else {
        return (4, 0, 0, 0);
    };
    let Some((index, rest)) = rest.strip_prefix('[').and_then(|r| r.split_once(']')) else {
        return (2, 0, 0, 0);
    };
    let question = index.parse().unwrap_or(usize::MAX);
    let rest = rest.strip_prefix('.').unwrap_or(rest);
    let field = rest.split(['.', '[']).next().unwrap_or("");
    // Fields rank in canonical order; findings about the question as a whole (its selection
    // limits together) come right after `maxItems`.
    let canonical = |name: &str| keys::QUESTION_ANY.iter().position(|f| *f == name);
    let rank = match field {
        "" => canonical("maxItems").map_or(usize::MAX, |i| 2 * i + 1),
        f => canonical(f).map_or(usize::MAX, |i| 2 * i),
    };
    let option = rest
        .strip_prefix("options[")
        .and_then(|r| r.split_once(']'))
        .and_then(|(i, _)| i.parse().ok())
        .unwrap_or(0);
    (3, question, rank, option)
}

#[cfg(test)]
mod tests {
    #![allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )]
    use super::*;

    #[test]
    fn parents_of_a_path() {
        let all: Vec<&str> = path_and_parents("questions[0].options[2].thumbnail.src").collect();
        assert_eq!(
            all,
            [
                "questions[0].options[2].thumbnail.src",
                "questions[0].options[2].thumbnail",
                "questions[0].options[2]",
                "questions[0].options",
                "questions[0]",
                "questions",
            ]
        );
        assert_eq!(path_and_parents("message").collect::<Vec<_>>(), ["message"]);
    }

    #[test]
    fn findings_sort_in_document_order() {
        let mut paths = vec![
            "zz",
            "questions[1].id",
            "questions[0]",
            "questions[0].accept[0]",
            "questions[0].options[2].id",
            "questions[0].options[10].title",
            "questions[0].title",
            "questions",
            "message",
            "arguments",
            "questions[0].hint",
        ];
        paths.sort_by_key(|p| document_order(p));
        assert_eq!(
            paths,
            [
                "arguments",
                "message",
                "questions",
                "questions[0].title",
                "questions[0].options[2].id",
                "questions[0].options[10].title",
                "questions[0]",
                "questions[0].accept[0]",
                "questions[0].hint",
                "questions[1].id",
                "zz",
            ]
        );
    }
}
