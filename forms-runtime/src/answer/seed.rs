//! The streaming checker: a [`DeserializeSeed`] that reads a host response straight from a
//! serde deserializer (serde_json over text, or a borrowed `serde_json::Value`), checks it
//! against the form while it reads (rules V1–V8) and builds only the answers' own values.
//!
//! Every check failure is recorded in [`Ctx`] with its path and rule before the deserializer
//! is stopped with a placeholder error, so the message does not depend on which deserializer
//! ran (serde_json would otherwise append a text position).

use super::{Answer, Answers, FileAnswer, Response};
use crate::data::{DataForm, Question, QuestionSpec};
use forms_rules::{limits, Rule, SelectionLimits, Violation};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::cell::Cell;
use std::fmt;

/// Values longer than this many characters are shortened in messages.
const QUOTE_MAX: usize = 80;

/// The state shared by the seeds of one check: the form and the first failure.
pub(crate) struct Ctx<'f> {
    pub(crate) form: &'f DataForm,
    failure: Cell<Option<String>>,
}

impl<'f> Ctx<'f> {
    pub(crate) fn new(form: &'f DataForm) -> Self {
        Ctx {
            form,
            failure: Cell::new(None),
        }
    }

    /// Records `message` (the first one wins) and returns the error that stops deserializing.
    fn fail<E: de::Error>(&self, message: String) -> E {
        let first = self.failure.take().unwrap_or(message);
        self.failure.set(Some(first));
        E::custom("invalid response")
    }

    /// The recorded failure, if any.
    pub(crate) fn take_failure(&self) -> Option<String> {
        self.failure.take()
    }
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

// ---------------------------------------------------------------------------------------------
// The response object (V1, V8).

/// Reads a whole response.
pub(crate) struct ResponseSeed<'c, 'f> {
    pub(crate) ctx: &'c Ctx<'f>,
}

impl<'de, 'f> DeserializeSeed<'de> for ResponseSeed<'_, 'f> {
    type Value = Response<'f>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(ResponseVisitor { ctx: self.ctx })
    }
}

struct ResponseVisitor<'c, 'f> {
    ctx: &'c Ctx<'f>,
}

impl ResponseVisitor<'_, '_> {
    fn wrong<E: de::Error>(&self, found: Found) -> E {
        self.ctx.fail(format!(
            "response: must be an object with `action` (and `content` when accepting), found {} ({})",
            found.as_str(),
            Rule::V1
        ))
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Action {
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

enum TopKey {
    Action,
    Content,
    Meta,
}

impl<'de, 'f> Visitor<'de> for ResponseVisitor<'_, 'f> {
    type Value = Response<'f>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a response object")
    }

    refuse!(scalars);
    refuse!(str);
    refuse!(seq);

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let ctx = self.ctx;
        let mut action: Option<Action> = None;
        let mut content: Option<Vec<Option<Answer>>> = None;
        let mut meta = false;
        let duplicate = |key: &str| -> A::Error {
            ctx.fail(format!(
                "response: the key `{key}` is given more than once ({})",
                Rule::V1
            ))
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
                    content = Some(map.next_value_seed(ContentSeed { ctx })?);
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
            None => Err(ctx.fail(format!(
                "response: `action` is missing; it must be \"accept\", \"decline\" or \"cancel\" ({})",
                Rule::V1
            ))),
            Some(a @ (Action::Decline | Action::Cancel)) => {
                if content.is_some() {
                    Err(no_content(ctx, a))
                } else if a == Action::Decline {
                    Ok(Response::Decline)
                } else {
                    Ok(Response::Cancel)
                }
            }
            Some(Action::Accept) => {
                let slots = match content {
                    Some(slots) => slots,
                    None => empty_slots(ctx.form),
                };
                for (q, slot) in ctx.form.questions().iter().zip(&slots) {
                    if q.required && slot.is_none() {
                        return Err(ctx.fail(format!(
                            "content.{}: is required and was not answered ({})",
                            q.id,
                            Rule::V2
                        )));
                    }
                }
                Ok(Response::Accept(Answers {
                    form: ctx.form,
                    slots,
                }))
            }
        }
    }
}

fn no_content<E: de::Error>(ctx: &Ctx<'_>, action: Action) -> E {
    ctx.fail(format!(
        "content: a \"{}\" response carries no content ({}, {})",
        action.as_str(),
        Rule::V1,
        Rule::V8
    ))
}

fn empty_slots(form: &DataForm) -> Vec<Option<Answer>> {
    std::iter::repeat_with(|| None)
        .take(form.questions().len())
        .collect()
}

struct TopKeySeed<'c, 'f> {
    ctx: &'c Ctx<'f>,
}

impl<'de> DeserializeSeed<'de> for TopKeySeed<'_, '_> {
    type Value = TopKey;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

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
            _ => Err(self.ctx.fail(format!(
                "response: unknown key {}; a response has only `action`, `content` and `_meta` ({})",
                Quoted(v),
                Rule::V1
            ))),
        }
    }
}

struct ActionSeed<'c, 'f> {
    ctx: &'c Ctx<'f>,
}

impl ActionSeed<'_, '_> {
    fn wrong<E: de::Error>(&self, found: Found) -> E {
        self.ctx.fail(format!(
            "action: must be \"accept\", \"decline\" or \"cancel\", found {} ({})",
            found.as_str(),
            Rule::V1
        ))
    }
}

impl<'de> DeserializeSeed<'de> for ActionSeed<'_, '_> {
    type Value = Action;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ActionSeed<'_, '_> {
    type Value = Action;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\"accept\", \"decline\" or \"cancel\"")
    }

    refuse!(scalars);
    refuse!(seq);
    refuse!(map);

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        match v {
            "accept" => Ok(Action::Accept),
            "decline" => Ok(Action::Decline),
            "cancel" => Ok(Action::Cancel),
            _ => Err(self.ctx.fail(format!(
                "action: {} is not one of \"accept\", \"decline\", \"cancel\" ({})",
                Quoted(v),
                Rule::V1
            ))),
        }
    }
}

/// `_meta`: any object, ignored.
struct MetaSeed<'c, 'f> {
    ctx: &'c Ctx<'f>,
}

impl MetaSeed<'_, '_> {
    fn wrong<E: de::Error>(&self, found: Found) -> E {
        self.ctx.fail(format!(
            "_meta: must be an object, found {} ({})",
            found.as_str(),
            Rule::V1
        ))
    }
}

impl<'de> DeserializeSeed<'de> for MetaSeed<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

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

struct ContentSeed<'c, 'f> {
    ctx: &'c Ctx<'f>,
}

impl ContentSeed<'_, '_> {
    fn wrong<E: de::Error>(&self, found: Found) -> E {
        self.ctx.fail(format!(
            "content: must be an object keyed by question id, found {} ({})",
            found.as_str(),
            Rule::V1
        ))
    }
}

impl<'de> DeserializeSeed<'de> for ContentSeed<'_, '_> {
    type Value = Vec<Option<Answer>>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ContentSeed<'_, '_> {
    type Value = Vec<Option<Answer>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object keyed by question id")
    }

    refuse!(scalars);
    refuse!(str);
    refuse!(seq);

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let ctx = self.ctx;
        let questions = ctx.form.questions();
        let mut slots = empty_slots(ctx.form);
        while let Some(index) = map.next_key_seed(QuestionKeySeed { ctx })? {
            let (Some(question), Some(slot)) = (questions.get(index), slots.get_mut(index)) else {
                return Err(ctx.fail(format!("content: question {index} is out of range (V2)")));
            };
            if slot.is_some() {
                return Err(ctx.fail(format!(
                    "content.{}: is given more than once ({})",
                    question.id,
                    Rule::V2
                )));
            }
            *slot = Some(map.next_value_seed(AnswerSeed {
                ctx,
                index,
                question,
            })?);
        }
        Ok(slots)
    }
}

/// A `content` key: the index of the question with that id.
struct QuestionKeySeed<'c, 'f> {
    ctx: &'c Ctx<'f>,
}

impl<'de> DeserializeSeed<'de> for QuestionKeySeed<'_, '_> {
    type Value = usize;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for QuestionKeySeed<'_, '_> {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a question id")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        match self.ctx.form.questions().iter().position(|q| q.id == v) {
            Some(i) => Ok(i),
            None => Err(self.ctx.fail(format!(
                "content: {} is not a question id of the form ({})",
                Quoted(v),
                Rule::V2
            ))),
        }
    }
}

/// The rule that governs answers to `question`.
fn answer_rule(question: &Question) -> Rule {
    match question.kind {
        QuestionSpec::Text { .. } => Rule::V3,
        QuestionSpec::SingleSelect { .. } | QuestionSpec::MultiSelect { .. } => Rule::V4,
        QuestionSpec::Resource { .. } => Rule::V5,
        QuestionSpec::Resources { .. } | QuestionSpec::Files { .. } => Rule::V6,
    }
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

fn limits_of(ctx: &Ctx<'_>, index: usize) -> SelectionLimits {
    ctx.form.selection_limits(index).unwrap_or(SelectionLimits {
        min_items: 0,
        max_items: limits::ITEMS_MAX,
    })
}

/// One answer, to the question at `index`.
struct AnswerSeed<'c, 'f> {
    ctx: &'c Ctx<'f>,
    index: usize,
    question: &'f Question,
}

impl AnswerSeed<'_, '_> {
    fn wrong<E: de::Error>(&self, found: Found) -> E {
        self.ctx.fail(format!(
            "content.{}: must be {}, found {} ({})",
            self.question.id,
            answer_shape(self.question),
            found.as_str(),
            answer_rule(self.question)
        ))
    }

    fn violation<E: de::Error>(&self, v: &Violation) -> E {
        self.ctx.fail(format!("content.{}: {v}", self.question.id))
    }

    fn not_offered<E: de::Error>(&self, v: &str, what: &str) -> E {
        self.ctx.fail(format!(
            "content.{}: {} is not an offered {what} ({})",
            self.question.id,
            Quoted(v),
            answer_rule(self.question)
        ))
    }

    fn text<E: de::Error>(&self, v: &str) -> Result<(), E> {
        let max = self
            .ctx
            .form
            .max_length(self.index)
            .unwrap_or(limits::MAX_LENGTH_DEFAULT);
        forms_rules::check_text_answer(v, max, self.question.required)
            .map_err(|e| self.violation(&e))
    }
}

impl<'de> DeserializeSeed<'de> for AnswerSeed<'_, '_> {
    type Value = Answer;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for AnswerSeed<'_, '_> {
    type Value = Answer;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(answer_shape(self.question))
    }

    refuse!(scalars);
    refuse!(map);

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        match &self.question.kind {
            QuestionSpec::Text { .. } => {
                self.text(v)?;
                Ok(Answer::Text(v.to_owned()))
            }
            QuestionSpec::SingleSelect { options } => {
                match options.iter().position(|o| o.id == v) {
                    Some(i) => Ok(Answer::Choice(i)),
                    None => Err(self.not_offered(v, "option id")),
                }
            }
            QuestionSpec::Resource { options } => match options.iter().position(|o| o.uri == v) {
                Some(i) => Ok(Answer::Resource(i)),
                None => Err(self.not_offered(v, "URI")),
            },
            QuestionSpec::MultiSelect { .. }
            | QuestionSpec::Resources { .. }
            | QuestionSpec::Files { .. } => Err(self.wrong(Found::String)),
        }
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        if let QuestionSpec::Text { .. } = self.question.kind {
            self.text(&v)?;
            Ok(Answer::Text(v))
        } else {
            self.visit_str(&v)
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let ctx = self.ctx;
        let question = self.question;
        let kind = match &question.kind {
            QuestionSpec::MultiSelect { .. } => ItemKind::Choice,
            QuestionSpec::Resources { .. } => ItemKind::Resource,
            QuestionSpec::Files { .. } => ItemKind::File,
            QuestionSpec::Text { .. }
            | QuestionSpec::SingleSelect { .. }
            | QuestionSpec::Resource { .. } => return Err(self.wrong(Found::Array)),
        };
        let SelectionLimits {
            min_items,
            max_items,
        } = limits_of(ctx, self.index);
        let max = max_items as usize;
        let mut seen: u32 = 0;
        let mut indices: Vec<usize> = Vec::new();
        let mut files: Vec<FileAnswer> = Vec::new();
        let mut count = 0usize;
        loop {
            let item = seq.next_element_seed(ItemSeed {
                ctx,
                question,
                kind,
                position: count,
            })?;
            let Some(item) = item else { break };
            if count >= max {
                // Count the rest for the message (a syntax error there is reported as such).
                let mut found = count + 1;
                while seq.next_element::<IgnoredAny>()?.is_some() {
                    found += 1;
                }
                return Err(ctx.fail(format!(
                    "content.{}: must have at most {}, found {found} ({})",
                    question.id,
                    items(max),
                    answer_rule(question)
                )));
            }
            let duplicate = match &item {
                Item::Offered(i) => {
                    let bit = 1u32.checked_shl(*i as u32).unwrap_or(0);
                    let dup = seen & bit != 0;
                    seen |= bit;
                    dup
                }
                Item::Local { uri, .. } => files
                    .iter()
                    .any(|f| matches!(f, FileAnswer::Local { uri: u, .. } if u == uri)),
            };
            if duplicate {
                let given = match &item {
                    Item::Offered(i) => match kind {
                        ItemKind::Choice => question
                            .kind
                            .choice_options()
                            .get(*i)
                            .map_or("", |o| o.id.as_str()),
                        ItemKind::Resource | ItemKind::File => question
                            .kind
                            .resource_options()
                            .get(*i)
                            .map_or("", |o| o.uri.as_str()),
                    },
                    Item::Local { uri, .. } => uri.as_str(),
                };
                return Err(ctx.fail(format!(
                    "content.{}[{count}]: {} is given more than once; items must be distinct ({})",
                    question.id,
                    Quoted(given),
                    answer_rule(question)
                )));
            }
            match (kind, item) {
                (ItemKind::File, Item::Offered(i)) => files.push(FileAnswer::Offered(i)),
                (ItemKind::File, Item::Local { uri, path }) => {
                    files.push(FileAnswer::Local { uri, path })
                }
                (_, Item::Offered(i)) => indices.push(i),
                (_, Item::Local { .. }) => {
                    return Err(ctx.fail(format!(
                        "content.{}[{count}]: is not an offered option ({})",
                        question.id,
                        answer_rule(question)
                    )))
                }
            }
            count += 1;
        }
        // V7: an optional array may be empty whatever its `minItems`; an empty answer to an
        // optional question is kept as given.
        let skipped = count == 0 && !question.required;
        if count < min_items as usize && !skipped {
            return Err(ctx.fail(format!(
                "content.{}: must have at least {}, found {count} ({})",
                question.id,
                items(min_items as usize),
                answer_rule(question)
            )));
        }
        Ok(match kind {
            ItemKind::Choice => Answer::Choices(indices),
            ItemKind::Resource => Answer::Resources(indices),
            ItemKind::File => Answer::Files(files),
        })
    }
}

/// `"1 item"`, `"3 items"`.
fn items(n: usize) -> String {
    if n == 1 {
        "1 item".to_owned()
    } else {
        format!("{n} items")
    }
}

#[derive(Clone, Copy)]
enum ItemKind {
    Choice,
    Resource,
    File,
}

/// One array item: an offered option's index, or a user-added file.
enum Item {
    Offered(usize),
    Local { uri: String, path: String },
}

struct ItemSeed<'c, 'f> {
    ctx: &'c Ctx<'f>,
    question: &'f Question,
    kind: ItemKind,
    position: usize,
}

impl ItemSeed<'_, '_> {
    fn wrong<E: de::Error>(&self, found: Found) -> E {
        let what = match self.kind {
            ItemKind::Choice => "an option id (a string)",
            ItemKind::Resource => "an offered URI (a string)",
            ItemKind::File => "an offered URI or a user-added `file:` URI (a string)",
        };
        self.ctx.fail(format!(
            "content.{}[{}]: must be {what}, found {} ({})",
            self.question.id,
            self.position,
            found.as_str(),
            answer_rule(self.question)
        ))
    }
}

impl<'de> DeserializeSeed<'de> for ItemSeed<'_, '_> {
    type Value = Item;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ItemSeed<'_, '_> {
    type Value = Item;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    refuse!(scalars);
    refuse!(seq);
    refuse!(map);

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        let question = self.question;
        match self.kind {
            ItemKind::Choice => {
                if let Some(i) = question
                    .kind
                    .choice_options()
                    .iter()
                    .position(|o| o.id == v)
                {
                    return Ok(Item::Offered(i));
                }
                Err(self.ctx.fail(format!(
                    "content.{}[{}]: {} is not an offered option id ({})",
                    question.id,
                    self.position,
                    Quoted(v),
                    Rule::V4
                )))
            }
            ItemKind::Resource => {
                if let Some(i) = question
                    .kind
                    .resource_options()
                    .iter()
                    .position(|o| o.uri == v)
                {
                    return Ok(Item::Offered(i));
                }
                Err(self.ctx.fail(format!(
                    "content.{}[{}]: {} is not an offered URI ({})",
                    question.id,
                    self.position,
                    Quoted(v),
                    Rule::V6
                )))
            }
            ItemKind::File => {
                if let Some(i) = question
                    .kind
                    .resource_options()
                    .iter()
                    .position(|o| o.uri == v)
                {
                    return Ok(Item::Offered(i));
                }
                match forms_rules::check_file_uri(v) {
                    Ok(file) => Ok(Item::Local {
                        uri: v.to_owned(),
                        path: file.path,
                    }),
                    Err(e) => Err(self.ctx.fail(format!(
                        "content.{}[{}]: {} is not an offered URI, and as a user-added file it {} ({}, {})",
                        question.id,
                        self.position,
                        Quoted(v),
                        e.problem,
                        e.rule,
                        Rule::V6
                    ))),
                }
            }
        }
    }
}
