//! The streaming checker: a [`DeserializeSeed`] that reads a host response straight from a
//! serde deserializer (serde_json over text, or a borrowed `serde_json::Value`), checks it
//! against the form while it reads (rules V1–V8) and hands each checked value to a [`Sink`]:
//! the untyped [`Answers`](super::Answers) slots, or a derived type's fields. Only the
//! answers' own values are built.
//!
//! Every check failure is recorded in [`Ctx`] with its path and rule before the deserializer
//! is stopped with a placeholder error, so the message does not depend on which deserializer
//! ran (serde_json would otherwise append a text position).

use crate::data::{DataForm, Question, QuestionSpec};
use crate::error::{Finding, JsonPath};
use forms_rules::{limits, Rule, SelectionLimits};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::cell::Cell;
use std::fmt;

mod collect;

pub(crate) use collect::refusal;

/// Values longer than this many characters are shortened in messages.
const QUOTE_MAX: usize = forms_rules::SHOWN_CHARS_MAX;

/// The state shared by the seeds of one check: the form and the first failure.
pub(crate) struct Ctx<'f> {
    pub(crate) form: &'f DataForm,
    failure: Cell<Option<Finding>>,
}

impl<'f> Ctx<'f> {
    pub(crate) fn new(form: &'f DataForm) -> Self {
        Ctx {
            form,
            failure: Cell::new(None),
        }
    }

    /// Records a finding of `rule` at `path` (the first one wins) and returns the error that
    /// stops deserializing.
    fn fail<E: de::Error>(&self, path: JsonPath, rule: Rule, problem: String) -> E {
        let first = self
            .failure
            .take()
            .unwrap_or_else(|| Finding::new(path, Some(rule), problem));
        self.failure.set(Some(first));
        E::custom("invalid response")
    }

    /// Fails with `{path}: must be {what}, found {found} ({rule})`.
    fn wrong<E: de::Error>(&self, path: JsonPath, what: &str, found: Found, rule: Rule) -> E {
        self.fail(
            path,
            rule,
            format!("must be {what}, found {}", found.as_str()),
        )
    }

    /// The recorded failure, if any.
    pub(crate) fn take_failure(&self) -> Option<Finding> {
        self.failure.take()
    }
}

/// The path of the answer to the question `id`: `content.<id>`.
fn content_of(id: &str) -> JsonPath {
    JsonPath::response().key("content").key(id)
}

/// Where checked answers go, one value at a time, in the order the response gives them.
///
/// The seeds check every rule before they call the sink; the sink only stores. A method
/// returns `false` when the value does not fit where the sink keeps the question's answer
/// (a typed field of another kind), which the checker reports as a failure.
pub(crate) trait Sink {
    /// Forgets every answer given so far (before the response is read again).
    fn clear(&mut self);
    /// A `text` answer to question `q`.
    fn text(&mut self, q: usize, v: String) -> bool;
    /// A `single_select` answer: the chosen option.
    fn choice(&mut self, q: usize, option: usize) -> bool;
    /// A `resource` answer: the chosen offered resource.
    fn resource(&mut self, q: usize, option: usize) -> bool;
    /// An array answer to question `q` starts (it may stay empty).
    fn array(&mut self, q: usize) -> bool;
    /// One item of a `multi_select` answer.
    fn choice_item(&mut self, q: usize, option: usize) -> bool;
    /// One item of a `resources` answer.
    fn resource_item(&mut self, q: usize, option: usize) -> bool;
    /// One offered item of a `files` answer.
    fn file_offered(&mut self, q: usize, option: usize) -> bool;
    /// One user-added file of a `files` answer.
    fn file_local(&mut self, q: usize, uri: String, path: String) -> bool;
    /// Whether the `files` answer to `q` already holds a user-added file with this path.
    fn local_given(&self, q: usize, path: &str) -> bool;
}

/// A value quoted for a message, shortened when long.
pub(crate) struct Quoted<'a>(pub(crate) &'a str);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.0;
        if s.len() <= QUOTE_MAX || s.chars().count() <= QUOTE_MAX {
            write!(f, "{s:?}")
        } else {
            let cut = s
                .char_indices()
                .nth(QUOTE_MAX - 1)
                .map_or(s.len(), |(i, _)| i);
            let head = s.get(..cut).unwrap_or_default();
            write!(f, "{head:?}…")
        }
    }
}

/// The JSON type of a value that had the wrong shape.
#[derive(Clone, Copy)]
enum Found {
    Null,
    Bool,
    Number,
    String,
    Array,
    Object,
}

impl Found {
    fn as_str(self) -> &'static str {
        match self {
            Found::Null => "null",
            Found::Bool => "a boolean",
            Found::Number => "a number",
            Found::String => "a string",
            Found::Array => "an array",
            Found::Object => "an object",
        }
    }
}

/// The visitor methods for the JSON types a visitor refuses: each calls `self.wrong(found)`.
macro_rules! refuse {
    (scalars) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Err(self.wrong(Found::Bool))
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Err(self.wrong(Found::Number))
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Err(self.wrong(Found::Number))
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Err(self.wrong(Found::Number))
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Err(self.wrong(Found::Null))
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Err(self.wrong(Found::Null))
        }
    };
    (str) => {
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Err(self.wrong(Found::String))
        }
    };
    (seq) => {
        fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
            Err(self.wrong(Found::Array))
        }
    };
    (map) => {
        fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
            Err(self.wrong(Found::Object))
        }
    };
}

/// `DeserializeSeed` for a seed that is its own visitor: it reads any JSON value, or with
/// `str`, a string (an object key). With `sink`, the seed is generic over its [`Sink`].
macro_rules! seed {
    (sink $seed:ident => $value:ty) => {
        impl<'de, 'f, S: Sink> DeserializeSeed<'de> for $seed<'_, 'f, S> {
            type Value = $value;

            fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                d.deserialize_any(self)
            }
        }
    };
    ($seed:ident => $value:ty) => {
        seed!($seed => $value, deserialize_any);
    };
    ($seed:ident => $value:ty, str) => {
        seed!($seed => $value, deserialize_str);
    };
    ($seed:ident => $value:ty, $method:ident) => {
        impl<'de, 'f> DeserializeSeed<'de> for $seed<'_, 'f> {
            type Value = $value;

            fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                d.$method(self)
            }
        }
    };
}

// ---------------------------------------------------------------------------------------------
// The response object (V1, V8).

/// What the person did, once the response passed every check.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Action {
    Accept,
    Decline,
    Cancel,
}

impl Action {
    fn as_str(self) -> &'static str {
        match self {
            Action::Accept => "accept",
            Action::Decline => "decline",
            Action::Cancel => "cancel",
        }
    }
}

/// Reads a whole response; the answers go to the sink.
pub(crate) struct ResponseSeed<'c, 'f, S> {
    pub(crate) ctx: &'c Ctx<'f>,
    pub(crate) sink: &'c mut S,
}

seed!(sink ResponseSeed => Action);

impl<S> ResponseSeed<'_, '_, S> {
    fn wrong<E: de::Error>(&self, found: Found) -> E {
        self.ctx.wrong(
            JsonPath::response(),
            "an object with `action` (and `content` when accepting)",
            found,
            Rule::V1,
        )
    }
}

enum TopKey {
    Action,
    Content,
    Meta,
}

impl<'de, S: Sink> Visitor<'de> for ResponseSeed<'_, '_, S> {
    type Value = Action;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a response object")
    }

    refuse!(scalars);
    refuse!(str);
    refuse!(seq);

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let ctx = self.ctx;
        let sink = self.sink;
        let mut action: Option<Action> = None;
        // The answered questions, one bit per question index.
        let mut content: Option<u64> = None;
        let mut meta = false;
        let duplicate = |key: &str| -> A::Error {
            ctx.fail(
                JsonPath::response(),
                Rule::V1,
                format!("the key `{key}` is given more than once"),
            )
        };
        while let Some(key) = map.next_key_seed(TopKeySeed { ctx })? {
            match key {
                TopKey::Action => {
                    if action.is_some() {
                        return Err(duplicate("action"));
                    }
                    action = Some(map.next_value_seed(ActionSeed { ctx })?);
                }
                TopKey::Content => {
                    if content.is_some() {
                        return Err(duplicate("content"));
                    }
                    if let Some(a @ (Action::Decline | Action::Cancel)) = action {
                        return Err(no_content(ctx, a));
                    }
                    content = Some(map.next_value_seed(ContentSeed {
                        ctx,
                        sink: &mut *sink,
                    })?);
                }
                TopKey::Meta => {
                    if meta {
                        return Err(duplicate("_meta"));
                    }
                    meta = true;
                    map.next_value_seed(MetaSeed { ctx })?;
                }
            }
        }
        match action {
            None => Err(ctx.fail(
                JsonPath::response(),
                Rule::V1,
                "`action` is missing; it must be \"accept\", \"decline\" or \"cancel\"".to_owned(),
            )),
            Some(a @ (Action::Decline | Action::Cancel)) => {
                if content.is_some() {
                    Err(no_content(ctx, a))
                } else {
                    Ok(a)
                }
            }
            Some(Action::Accept) => {
                let answered = content.unwrap_or(0);
                for (i, q) in ctx.form.questions().iter().enumerate() {
                    if q.required && answered & bit(i) == 0 {
                        return Err(ctx.fail(
                            content_of(&q.id),
                            Rule::V2,
                            "is required and was not answered".to_owned(),
                        ));
                    }
                }
                Ok(Action::Accept)
            }
        }
    }
}

/// The bit of question `index` in a set of answered questions (a form has at most
/// `limits::QUESTIONS_MAX` questions).
fn bit(index: usize) -> u64 {
    u32::try_from(index)
        .ok()
        .and_then(|i| 1u64.checked_shl(i))
        .unwrap_or(0)
}

fn no_content<E: de::Error>(ctx: &Ctx<'_>, action: Action) -> E {
    let finding = no_content_finding(action);
    ctx.fail(finding.path, Rule::V1, finding.problem)
}

/// A decline or cancel that carries `content` (V1: such a response is `{"action":…}` alone).
fn no_content_finding(action: Action) -> Finding {
    Finding::new(
        JsonPath::response().key("content"),
        Some(Rule::V1),
        format!(
            "a \"{}\" response carries no content; decline and cancel never yield answers",
            action.as_str()
        ),
    )
}

struct TopKeySeed<'c, 'f> {
    ctx: &'c Ctx<'f>,
}

seed!(TopKeySeed => TopKey, str);

impl<'de> Visitor<'de> for TopKeySeed<'_, '_> {
    type Value = TopKey;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`action`, `content` or `_meta`")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        match v {
            "action" => Ok(TopKey::Action),
            "content" => Ok(TopKey::Content),
            "_meta" => Ok(TopKey::Meta),
            _ => Err(self.ctx.fail(
                JsonPath::response(),
                Rule::V1,
                format!(
                    "unknown key {}; a response has only `action`, `content` and `_meta`",
                    Quoted(v)
                ),
            )),
        }
    }
}

struct ActionSeed<'c, 'f> {
    ctx: &'c Ctx<'f>,
}

const ACTIONS: &str = "\"accept\", \"decline\" or \"cancel\"";

impl ActionSeed<'_, '_> {
    fn wrong<E: de::Error>(&self, found: Found) -> E {
        self.ctx
            .wrong(JsonPath::response().key("action"), ACTIONS, found, Rule::V1)
    }
}

seed!(ActionSeed => Action);

impl<'de> Visitor<'de> for ActionSeed<'_, '_> {
    type Value = Action;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(ACTIONS)
    }

    refuse!(scalars);
    refuse!(seq);
    refuse!(map);

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        match v {
            "accept" => Ok(Action::Accept),
            "decline" => Ok(Action::Decline),
            "cancel" => Ok(Action::Cancel),
            _ => Err(self.ctx.fail(
                JsonPath::response().key("action"),
                Rule::V1,
                format!(
                    "{} is not one of \"accept\", \"decline\", \"cancel\"",
                    Quoted(v)
                ),
            )),
        }
    }
}

/// `_meta`: any object, ignored.
struct MetaSeed<'c, 'f> {
    ctx: &'c Ctx<'f>,
}

impl MetaSeed<'_, '_> {
    fn wrong<E: de::Error>(&self, found: Found) -> E {
        self.ctx.wrong(
            JsonPath::response().key("_meta"),
            "an object",
            found,
            Rule::V1,
        )
    }
}

seed!(MetaSeed => ());

impl<'de> Visitor<'de> for MetaSeed<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    refuse!(scalars);
    refuse!(str);
    refuse!(seq);

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// The content object (V2) and one answer per question (V3–V7).

/// Reads `content`; its value is the set of answered questions, one bit per index.
struct ContentSeed<'c, 'f, S> {
    ctx: &'c Ctx<'f>,
    sink: &'c mut S,
}

impl<S> ContentSeed<'_, '_, S> {
    fn wrong<E: de::Error>(&self, found: Found) -> E {
        self.ctx.wrong(
            JsonPath::response().key("content"),
            "an object keyed by question id",
            found,
            Rule::V1,
        )
    }
}

seed!(sink ContentSeed => u64);

impl<'de, S: Sink> Visitor<'de> for ContentSeed<'_, '_, S> {
    type Value = u64;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object keyed by question id")
    }

    refuse!(scalars);
    refuse!(str);
    refuse!(seq);

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let ctx = self.ctx;
        let sink = self.sink;
        let questions = ctx.form.questions();
        let mut answered: u64 = 0;
        let mut next = 0;
        while let Some(index) = map.next_key_seed(QuestionKeySeed { ctx, next })? {
            let Some(question) = questions.get(index) else {
                return Err(ctx.fail(
                    JsonPath::response().key("content"),
                    Rule::V2,
                    format!("question {index} is out of range"),
                ));
            };
            if answered & bit(index) != 0 {
                return Err(ctx.fail(
                    content_of(&question.id),
                    Rule::V2,
                    "is given more than once".to_owned(),
                ));
            }
            answered |= bit(index);
            next = index + 1;
            map.next_value_seed(AnswerSeed {
                ctx,
                sink: &mut *sink,
                index,
                question,
            })?;
        }
        Ok(answered)
    }
}

/// A `content` key: the index of the question with that id. Keys usually come in question
/// order, so the question after the previous key (`next`) is tried first.
struct QuestionKeySeed<'c, 'f> {
    ctx: &'c Ctx<'f>,
    next: usize,
}

seed!(QuestionKeySeed => usize, str);

impl<'de> Visitor<'de> for QuestionKeySeed<'_, '_> {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a question id")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        let questions = self.ctx.form.questions();
        if questions.get(self.next).is_some_and(|q| same(&q.id, v)) {
            return Ok(self.next);
        }
        match questions.iter().position(|q| same(&q.id, v)) {
            Some(i) => Ok(i),
            None => Err(self.ctx.fail(
                JsonPath::response().key("content"),
                Rule::V2,
                format!("{} is not a question id of the form", Quoted(v)),
            )),
        }
    }
}

/// The rule that governs answers to `question`.
fn answer_rule(question: &Question) -> Rule {
    question.kind.kind().answer_rule()
}

/// What an answer to `question` must be, as a phrase.
fn answer_shape(question: &Question) -> &'static str {
    match question.kind {
        QuestionSpec::Text { .. } => "a string",
        QuestionSpec::SingleSelect { .. } => "one option id (a string)",
        QuestionSpec::MultiSelect { .. } => "an array of option ids",
        QuestionSpec::Resource { .. } => {
            "one offered URI (a string); to skip the question, leave its key out"
        }
        QuestionSpec::Resources { .. } => "an array of offered URIs",
        QuestionSpec::Files { .. } => "an array of offered URIs or user-added `file:` URIs",
    }
}

/// The index of the option of `question` that `v` names exactly: a choice option by its id,
/// a resource option by its URI.
#[inline]
fn offered(question: &Question, v: &str) -> Option<usize> {
    match &question.kind {
        QuestionSpec::Text { .. } => None,
        QuestionSpec::SingleSelect { options } | QuestionSpec::MultiSelect { options, .. } => {
            options.iter().position(|o| same(&o.id, v))
        }
        QuestionSpec::Resource { options }
        | QuestionSpec::Resources { options, .. }
        | QuestionSpec::Files { options, .. } => options.iter().position(|o| same(&o.uri, v)),
    }
}

/// `a == b`, comparing the lengths and then the last bytes first: offered URIs and ids of one
/// question often share a long prefix.
#[inline]
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.as_bytes().last() == b.as_bytes().last() && a == b
}

/// The id or URI of the option of `question` at `index`.
fn offered_name(question: &Question, index: usize) -> &str {
    let kind = &question.kind;
    kind.choice_options()
        .get(index)
        .map(|o| o.id.as_str())
        .or_else(|| kind.resource_options().get(index).map(|o| o.uri.as_str()))
        .unwrap_or_default()
}

/// Whether an offered option of the question at `q` already given (a bit of `seen`) names
/// the local file `path`.
fn offered_given(form: &DataForm, q: usize, question: &Question, seen: u32, path: &str) -> bool {
    seen != 0
        && (0..question.kind.resource_options().len()).any(|i| {
            let given = u32::try_from(i)
                .ok()
                .and_then(|i| 1u32.checked_shl(i))
                .is_some_and(|bit| seen & bit != 0);
            given && form.offered_path(q, i).is_some_and(|p| p == path)
        })
}

/// The failure for `v` at `path`, which names no option of `question`.
fn not_offered<E: de::Error>(ctx: &Ctx<'_>, path: JsonPath, v: &str, question: &Question) -> E {
    let what = match question.kind {
        QuestionSpec::SingleSelect { .. } | QuestionSpec::MultiSelect { .. } => "option id",
        _ => "URI",
    };
    ctx.fail(
        path,
        answer_rule(question),
        format!("{} is not an offered {what}", Quoted(v)),
    )
}

/// The failure for an answer the sink cannot keep: the form and the sink's type disagree,
/// which the derive prevents; reported rather than trusted.
fn unfit<E: de::Error>(ctx: &Ctx<'_>, question: &Question) -> E {
    ctx.fail(
        content_of(&question.id),
        answer_rule(question),
        "the checked answer does not fit the field's type".to_owned(),
    )
}

fn limits_of(ctx: &Ctx<'_>, index: usize) -> SelectionLimits {
    ctx.form.selection_limits(index).unwrap_or(SelectionLimits {
        min_items: 0,
        max_items: limits::ITEMS_MAX,
    })
}

/// One answer, to the question at `index`.
struct AnswerSeed<'c, 'f, S> {
    ctx: &'c Ctx<'f>,
    sink: &'c mut S,
    index: usize,
    question: &'f Question,
}

impl<S> AnswerSeed<'_, '_, S> {
    fn wrong<E: de::Error>(&self, found: Found) -> E {
        self.ctx.wrong(
            content_of(&self.question.id),
            answer_shape(self.question),
            found,
            answer_rule(self.question),
        )
    }

    fn text<E: de::Error>(&self, v: &str) -> Result<(), E> {
        let max = self
            .ctx
            .form
            .max_length(self.index)
            .unwrap_or(limits::MAX_LENGTH_DEFAULT);
        forms_rules::check_text_answer(v, max, self.question.required).map_err(|e| {
            self.ctx
                .fail(content_of(&self.question.id), e.rule, e.problem)
        })
    }

    /// `kept` is what the sink said; `false` fails the check.
    fn kept<E: de::Error>(&self, kept: bool) -> Result<(), E> {
        if kept {
            Ok(())
        } else {
            Err(unfit(self.ctx, self.question))
        }
    }
}

seed!(sink AnswerSeed => ());

impl<'de, S: Sink> Visitor<'de> for AnswerSeed<'_, '_, S> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(answer_shape(self.question))
    }

    refuse!(scalars);
    refuse!(map);

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        let question = self.question;
        let index = || {
            offered(question, v)
                .ok_or_else(|| not_offered(self.ctx, content_of(&question.id), v, question))
        };
        let q = self.index;
        let kept = match &question.kind {
            QuestionSpec::Text { .. } => {
                self.text(v)?;
                self.sink.text(q, v.to_owned())
            }
            QuestionSpec::SingleSelect { .. } => {
                let i = index()?;
                self.sink.choice(q, i)
            }
            QuestionSpec::Resource { .. } => {
                let i = index()?;
                self.sink.resource(q, i)
            }
            QuestionSpec::MultiSelect { .. }
            | QuestionSpec::Resources { .. }
            | QuestionSpec::Files { .. } => return Err(self.wrong(Found::String)),
        };
        self.kept(kept)
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        if let QuestionSpec::Text { .. } = self.question.kind {
            self.text(&v)?;
            let kept = self.sink.text(self.index, v);
            self.kept(kept)
        } else {
            self.visit_str(&v)
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let ctx = self.ctx;
        let question = self.question;
        let q = self.index;
        let items = match question.kind {
            QuestionSpec::MultiSelect { .. } => Items::Choices,
            QuestionSpec::Resources { .. } => Items::Resources,
            QuestionSpec::Files { .. } => Items::Files,
            QuestionSpec::Text { .. }
            | QuestionSpec::SingleSelect { .. }
            | QuestionSpec::Resource { .. } => return Err(self.wrong(Found::Array)),
        };
        let sink = self.sink;
        if !sink.array(q) {
            return Err(unfit(ctx, question));
        }
        let limits = limits_of(ctx, q);
        let max = limits.max_items as usize;
        // Offered options already given, one bit per option index (at most 24 options).
        let mut seen: u32 = 0;
        let mut count = 0usize;
        while seq
            .next_element_seed(ItemSeed {
                ctx,
                sink: &mut *sink,
                question,
                index: q,
                items,
                position: count,
                seen: &mut seen,
                keep: count < max,
            })?
            .is_some()
        {
            count += 1;
            if count > max {
                // Too many: count the rest for the message (a syntax error there is reported
                // as such) and let the count check below refuse the answer.
                while seq.next_element::<IgnoredAny>()?.is_some() {
                    count += 1;
                }
                break;
            }
        }
        // V4, V6 and V7 (an empty answer to an optional question is kept as given).
        forms_rules::check_answer_count(question.kind.kind(), count, limits, question.required)
            .map_err(|v| ctx.fail(content_of(&question.id), v.rule, v.problem))
    }
}

/// The kind of an array answer's items.
#[derive(Clone, Copy)]
enum Items {
    Choices,
    Resources,
    Files,
}

/// One item of an array answer: an offered option, or (for a `files` question only) a
/// user-added file. Unless the answer already has too many items (`keep` is false), a
/// repeated item is refused and the item goes to the sink.
struct ItemSeed<'c, 'f, S> {
    ctx: &'c Ctx<'f>,
    sink: &'c mut S,
    question: &'f Question,
    index: usize,
    items: Items,
    position: usize,
    seen: &'c mut u32,
    keep: bool,
}

impl<S> ItemSeed<'_, '_, S> {
    fn wrong<E: de::Error>(&self, found: Found) -> E {
        let what = match self.question.kind {
            QuestionSpec::MultiSelect { .. } => "an option id (a string)",
            QuestionSpec::Files { .. } => "an offered URI or a user-added `file:` URI (a string)",
            _ => "an offered URI (a string)",
        };
        self.ctx.wrong(
            content_of(&self.question.id).index(self.position),
            what,
            found,
            answer_rule(self.question),
        )
    }

    /// The failure for an item given twice.
    fn repeated<E: de::Error>(&self, given: &str) -> E {
        self.ctx.fail(
            content_of(&self.question.id).index(self.position),
            answer_rule(self.question),
            format!(
                "{} is given more than once; items must be distinct",
                Quoted(given)
            ),
        )
    }
}

seed!(sink ItemSeed => ());

impl<'de, S: Sink> Visitor<'de> for ItemSeed<'_, '_, S> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    refuse!(scalars);
    refuse!(seq);
    refuse!(map);

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        let question = self.question;
        let q = self.index;
        let kept = if let Some(i) = offered(question, v) {
            if !self.keep {
                return Ok(());
            }
            let bit = u32::try_from(i)
                .ok()
                .and_then(|i| 1u32.checked_shl(i))
                .unwrap_or(0);
            if *self.seen & bit != 0 {
                return Err(self.repeated(offered_name(question, i)));
            }
            // An offered `file:` URI names the same local file as a user-added item or another
            // offered item with the same decoded path.
            if let Items::Files = self.items {
                let form = self.ctx.form;
                if let Some(path) = form.offered_path(q, i) {
                    if self.sink.local_given(q, path)
                        || offered_given(form, q, question, *self.seen, path)
                    {
                        return Err(self.repeated(v));
                    }
                }
            }
            *self.seen |= bit;
            match self.items {
                Items::Choices => self.sink.choice_item(q, i),
                Items::Resources => self.sink.resource_item(q, i),
                Items::Files => self.sink.file_offered(q, i),
            }
        } else {
            let id = &question.id;
            let at = self.position;
            if !matches!(self.items, Items::Files) {
                return Err(not_offered(self.ctx, content_of(id).index(at), v, question));
            }
            let file = forms_rules::check_file_uri(v).map_err(|e| {
                self.ctx.fail(
                    content_of(id).index(at),
                    Rule::V6,
                    format!(
                        "{} is not an offered URI, and as a user-added file it {}; see {}",
                        Quoted(v),
                        e.problem,
                        e.rule
                    ),
                )
            })?;
            if !self.keep {
                return Ok(());
            }
            // One local file named twice (`file:///a`, `file://localhost/a`, `file:///%61`)
            // is a repeat too: compare the decoded paths.
            if self.sink.local_given(q, &file.path)
                || offered_given(self.ctx.form, q, question, *self.seen, &file.path)
            {
                return Err(self.repeated(v));
            }
            self.sink.file_local(q, v.to_owned(), file.path)
        };
        if kept {
            Ok(())
        } else {
            Err(unfit(self.ctx, question))
        }
    }
}
