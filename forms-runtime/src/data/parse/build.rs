//! Stage 3: the strict model, built from the tree with every type and property checked.
//!
//! Every problem is recorded at its [`Loc`] (no path is written out unless it is reported),
//! and the place of each unusable value is marked so that validation does not report on the
//! placeholder put there.

use super::tree::{Json, Num};
use crate::data::findings::{Loc, Marks, Violations};
use crate::data::model::{ChoiceOption, FormSpec, Image, Question, QuestionSpec, ResourceOption};
use crate::data::size::js_number;
use forms_rules::{self as rules, keys, QuestionKind, Rule, Violation};
use std::borrow::Cow;
use std::fmt;

/// An object's entries and its place.
struct Fields<'j> {
    loc: Loc<'j>,
    entries: &'j [(Cow<'j, str>, Json<'j>)],
}

impl<'j> Fields<'j> {
    fn get(&self, key: &str) -> Option<&'j Json<'j>> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    fn at(&self, key: &'j str) -> Loc<'j> {
        self.loc.key(key)
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
pub(super) struct Builder<'j> {
    pub(super) out: Violations<'j>,
    /// The places of unusable values, for the validation pass.
    pub(super) marks: Marks<'j>,
}

fn list(keys: &[&[&str]]) -> String {
    keys.iter()
        .flat_map(|k| k.iter())
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// An owned copy of a string of the tree.
fn owned(s: &str) -> String {
    str::to_owned(s)
}

impl<'j> Builder<'j> {
    /// Records a problem of the input at `loc` and marks it broken. Once the list is full the
    /// problem is only counted (and validation will not run, so the mark is not needed).
    fn report(&mut self, loc: Loc<'j>, value: Option<&str>, v: Violation) {
        self.report_with(loc, value, || v);
    }

    /// [`Builder::report`] of a violation made only when it is kept.
    fn report_with(&mut self, loc: Loc<'j>, value: Option<&str>, v: impl FnOnce() -> Violation) {
        if !self.out.is_full() {
            self.marks.break_at(loc);
        }
        self.out.push_with(loc, value, v);
    }

    /// Reports the count problem `r` of an array at `loc` that has `skipped` elements the tree
    /// did not keep: validation counts only the kept ones, so its own count finding there is
    /// muted.
    fn count(&mut self, loc: Loc<'j>, skipped: usize, r: Result<(), Violation>) {
        if skipped == 0 {
            return;
        }
        self.marks.mute(loc);
        if let Err(v) = r {
            self.out.push(loc, None, v);
        }
    }

    fn wrong_type(&mut self, loc: Loc<'j>, expected: &str, found: &Json<'_>, rule: Rule) {
        let found = found.type_name();
        let hint = if found == "null" {
            "; leave an optional property out instead of writing null"
        } else {
            ""
        };
        self.report_with(loc, None, || {
            Violation::new(rule, format!("expected {expected}, found {found}{hint}"))
        });
    }

    fn missing(&mut self, loc: Loc<'j>, rule: Rule) {
        self.report_with(loc, None, || {
            Violation::new(rule, "is required but missing")
        });
    }

    /// Reports every property of `obj` outside `allowed`, with the most specific rule.
    fn extra_keys(
        &mut self,
        obj: &Fields<'j>,
        allowed: &[&[&str]],
        what: &dyn fmt::Display,
        special: &dyn Fn(&str) -> Option<Violation>,
    ) {
        for (key, _) in obj.entries {
            let key: &'j str = key;
            if allowed.iter().any(|names| names.contains(&key)) {
                continue;
            }
            self.report_with(obj.at(key), None, || {
                rules::check_preselection_key(key)
                    .or_else(|| special(key))
                    .unwrap_or_else(|| {
                        Violation::new(
                            Rule::R3,
                            format!(
                                "is not a property of {what}; it takes only {}",
                                list(allowed)
                            ),
                        )
                    })
            });
        }
    }

    /// A required string property; `""` stands in when it is missing or not a string.
    fn req_str(&mut self, obj: &Fields<'j>, key: &'j str, rule: Rule) -> String {
        match obj.get(key) {
            Some(Json::Str(s)) => owned(s),
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
    fn opt_str(&mut self, obj: &Fields<'j>, key: &'j str, rule: Rule) -> Option<String> {
        match obj.get(key)? {
            Json::Str(s) => Some(owned(s)),
            other => {
                self.wrong_type(obj.at(key), "a string", other, rule);
                None
            }
        }
    }

    /// An integer property (see the module docs on what counts as an integer).
    fn integer(&mut self, loc: Loc<'j>, json: &Json<'_>, rule: Rule) -> Option<Int> {
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
                let f = *f;
                self.report_with(loc, None, || {
                    Violation::new(rule, format!("must be an integer, found {}", js_number(f)))
                });
                None
            }
            other => {
                self.wrong_type(loc, "an integer", other, rule);
                None
            }
        }
    }

    /// Reports an out-of-range integer with the rules crate's violation, naming the value as
    /// written rather than as clamped.
    fn out_of_range(&mut self, loc: Loc<'j>, v: Violation, clamped: i64, shown: &str) {
        self.report_with(loc, None, || {
            let problem = v.problem.replace(&clamped.to_string(), shown);
            Violation::new(v.rule, problem)
        });
    }

    pub(super) fn form(&mut self, json: &'j Json<'j>) -> Option<FormSpec> {
        let Json::Obj(entries, _) = json else {
            self.report(
                Loc::ROOT,
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
            loc: Loc::ROOT,
            entries,
        };
        let message = self.req_str(&obj, "message", Rule::R1);
        let questions = match obj.get("questions") {
            Some(Json::Arr(items, skipped)) => {
                let at = Loc::ROOT.key("questions");
                self.count(
                    at,
                    *skipped,
                    rules::check_question_count(items.len() + skipped),
                );
                items
                    .iter()
                    .enumerate()
                    .map(|(i, q)| self.question(i, q))
                    .collect()
            }
            Some(other) => {
                self.wrong_type(
                    Loc::ROOT.key("questions"),
                    "an array of questions",
                    other,
                    Rule::R2,
                );
                Vec::new()
            }
            None => {
                self.missing(Loc::ROOT.key("questions"), Rule::R2);
                Vec::new()
            }
        };
        self.extra_keys(&obj, &[keys::FORM], &"the form", &|_| None);
        Some(FormSpec { message, questions })
    }

    fn question(&mut self, index: usize, json: &'j Json<'j>) -> Question {
        let loc = Loc::ROOT.key("questions").index(index);
        let placeholder = Question {
            id: String::new(),
            title: String::new(),
            description: None,
            required: false,
            kind: QuestionSpec::Text { max_length: None },
        };
        let Json::Obj(entries, _) = json else {
            self.wrong_type(loc, "a question object", json, Rule::R2);
            return placeholder;
        };
        let obj = Fields { loc, entries };
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
                self.extra_keys(&obj, &[keys::QUESTION_ANY], &"a question", &|_| None);
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
        obj: &Fields<'j>,
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
        let allowed = [keys::QUESTION_COMMON, keys::question_kind(kind)];
        let what = format_args!("a `{kind}` question");
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

    fn max_length(&mut self, obj: &Fields<'j>) -> Option<u32> {
        let path = obj.at("maxLength");
        match self.integer(path, obj.get("maxLength")?, Rule::R11)? {
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
        obj: &Fields<'j>,
        kind: QuestionKind,
        required: bool,
        count: usize,
    ) -> (Option<u32>, Option<u32>) {
        let mut broken = false;
        let mut read = |b: &mut Self, key: &'j str, rule: Rule| -> Option<u32> {
            let path = obj.at(key);
            let json = obj.get(key)?;
            match b.integer(path, json, rule) {
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
            self.marks.mute(obj.loc);
        }
        (min, max)
    }

    fn accept(&mut self, obj: &Fields<'j>) -> Option<Vec<String>> {
        let path = obj.at("accept");
        match obj.get("accept")? {
            Json::Arr(items, skipped) => Some({
                let total = items.len() + skipped;
                self.count(path, *skipped, rules::check_accept_count(total));
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| match item {
                        Json::Str(s) => owned(s),
                        other => {
                            self.wrong_type(path.index(i), "a string", other, Rule::R22);
                            String::new()
                        }
                    })
                    .collect()
            }),
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
        obj: &Fields<'j>,
        kind: QuestionKind,
        item: fn(&mut Self, Loc<'j>, &'j Json<'j>) -> T,
    ) -> Vec<T> {
        let path = obj.at("options");
        match obj.get("options") {
            None => Vec::new(),
            Some(Json::Arr(items, skipped)) => {
                let total = items.len() + skipped;
                self.count(path, *skipped, rules::check_option_count(kind, total));
                items
                    .iter()
                    .enumerate()
                    .map(|(i, o)| item(self, path.index(i), o))
                    .collect()
            }
            Some(other) => {
                self.wrong_type(path, "an array of options", other, kind.options_rule());
                Vec::new()
            }
        }
    }

    fn choice_options(&mut self, obj: &Fields<'j>, kind: QuestionKind) -> Vec<ChoiceOption> {
        self.options(obj, kind, Self::choice)
    }

    fn resource_options(&mut self, obj: &Fields<'j>, kind: QuestionKind) -> Vec<ResourceOption> {
        self.options(obj, kind, Self::resource)
    }

    fn choice(&mut self, path: Loc<'j>, json: &'j Json<'j>) -> ChoiceOption {
        let Json::Obj(entries, _) = json else {
            self.wrong_type(path, "a choice option object", json, Rule::R23);
            return ChoiceOption {
                id: String::new(),
                title: String::new(),
                description: None,
                thumbnail: None,
            };
        };
        let obj = Fields { loc: path, entries };
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
            self.marks.rename_thumbnail(obj.at("thumbnail"));
        }
        self.extra_keys(&obj, &[keys::CHOICE_OPTION], &"a choice option", &|_| None);
        ChoiceOption {
            id,
            title,
            description,
            thumbnail: thumbnail.or(preview),
        }
    }

    fn resource(&mut self, path: Loc<'j>, json: &'j Json<'j>) -> ResourceOption {
        let Json::Obj(entries, _) = json else {
            self.wrong_type(path, "a resource option object", json, Rule::R24);
            return ResourceOption::new("", "", "");
        };
        let obj = Fields { loc: path, entries };
        let uri = self.req_str(&obj, "uri", Rule::R24);
        let name = self.req_str(&obj, "name", Rule::R24);
        let title = self.req_str(&obj, "title", Rule::R24);
        let description = self.opt_str(&obj, "description", Rule::R24);
        let mime_type = self.opt_str(&obj, "mimeType", Rule::R24);
        let icons = match obj.get("icons") {
            None => None,
            Some(Json::Arr(items, skipped)) => {
                let total = items.len() + skipped;
                self.count(obj.at("icons"), *skipped, rules::check_icon_count(total));
                Some(
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, icon)| {
                            let at = obj.at("icons").index(i);
                            self.image(at, icon).unwrap_or_else(|| Image::new(""))
                        })
                        .collect(),
                )
            }
            Some(other) => {
                self.wrong_type(obj.at("icons"), "an array of images", other, Rule::R24);
                None
            }
        };
        let thumbnail = self.opt_image(&obj, "thumbnail");
        self.extra_keys(
            &obj,
            &[keys::RESOURCE_OPTION],
            &"a resource option",
            &|key| {
                (key == "_meta").then(|| {
                    Violation::new(
                        Rule::R3,
                        "is not accepted: Data takes no caller `_meta`; give a picture as \
                     `thumbnail`",
                    )
                })
            },
        );
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

    fn opt_image(&mut self, obj: &Fields<'j>, key: &'j str) -> Option<Image> {
        let json = obj.get(key)?;
        self.image(obj.at(key), json)
    }

    /// An image object; `None` when it is not an object (already reported).
    fn image(&mut self, path: Loc<'j>, json: &'j Json<'j>) -> Option<Image> {
        let Json::Obj(entries, _) = json else {
            self.wrong_type(path, "an image object with `src`", json, Rule::R25);
            return None;
        };
        let obj = Fields { loc: path, entries };
        let src = self.req_str(&obj, "src", Rule::R25);
        let mime_type = self.opt_str(&obj, "mimeType", Rule::R25);
        self.extra_keys(&obj, &[keys::IMAGE], &"an image", &|_| None);
        Some(Image { src, mime_type })
    }
}
