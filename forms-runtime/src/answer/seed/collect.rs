//! Every problem of a refused response.
//!
//! The streaming checker stops at the first failure, so accepting costs one pass and nothing
//! more. Once a response is certainly refused, this walks it again and checks each part on
//! its own with the same seeds: each top-level key, each `content` entry, each item of an
//! array answer, and the missing required questions. A part that fails is reported and the
//! walk goes on with the next part, so the error lists every failing part in document order,
//! at most [`FINDINGS_MAX`] of them, and counts the rest.
//!
//! What one part reports: one finding per top-level key, per `content` entry and per item of
//! an array answer (items past `maxItems + 1` are only counted, as the count finding says);
//! a response that is not an object, or a `content` that is not an object, is one finding.
//! When the text is not JSON after the first failure, the error has two findings: that
//! failure and the syntax error.
//!
//! Each part is read again from the text (or the value), so the walk costs a few passes
//! over the response: bounded per byte, like the check itself.

use super::{
    bit, content_of, limits_of, no_content_finding, ActionSeed, AnswerSeed, Ctx, ItemSeed, Items,
    MetaSeed, QuestionKeySeed, TopKeySeed,
};
use super::{Action, ContentSeed, ResponseSeed};
use crate::answer::{SlotSink, Source};
use crate::data::{DataForm, Question, QuestionSpec};
use crate::error::{ErrorCode, Finding, FormError, JsonPath, FINDINGS_MAX};
use forms_rules::Rule;
use serde::de::value::{Error as PlainError, StrDeserializer};
use serde::de::{self, DeserializeSeed, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

/// A JSON value of the response: a slice of its text, or a part of a parsed value.
#[derive(Clone, Copy)]
enum Node<'a> {
    Raw(&'a RawValue),
    Value(&'a serde_json::Value),
}

impl<'a> Node<'a> {
    /// Runs `seed` over this value: its result, or `None` when it failed.
    fn run<T, D>(self, seed: D) -> Option<T>
    where
        D: for<'de> DeserializeSeed<'de, Value = T>,
    {
        match self {
            Node::Raw(raw) => {
                let mut de = serde_json::Deserializer::from_str(raw.get());
                seed.deserialize(&mut de).ok()
            }
            Node::Value(v) => seed.deserialize(v).ok(),
        }
    }

    /// The members of an object, in the order given (repeated keys included for text).
    fn entries(self) -> Option<Vec<(Cow<'a, str>, Node<'a>)>> {
        match self {
            Node::Raw(raw) => {
                let text = raw.get().trim_start();
                if !text.starts_with('{') {
                    return None;
                }
                let members = serde_json::from_str::<Members<'a>>(text).ok()?;
                Some(
                    members
                        .0
                        .into_iter()
                        .map(|(k, v)| (Cow::Owned(k), Node::Raw(v)))
                        .collect(),
                )
            }
            Node::Value(v) => v.as_object().map(|m| {
                m.iter()
                    .map(|(k, v)| (Cow::Borrowed(k.as_str()), Node::Value(v)))
                    .collect()
            }),
        }
    }

    /// The items of an array.
    fn items(self) -> Option<Vec<Node<'a>>> {
        match self {
            Node::Raw(raw) => {
                let text = raw.get().trim_start();
                if !text.starts_with('[') {
                    return None;
                }
                let items = serde_json::from_str::<Vec<&'a RawValue>>(text).ok()?;
                Some(items.into_iter().map(Node::Raw).collect())
            }
            Node::Value(v) => v.as_array().map(|a| a.iter().map(Node::Value).collect()),
        }
    }
}

/// The members of an object as slices of its text.
struct Members<'a>(Vec<(String, &'a RawValue)>);

impl<'de> serde::Deserialize<'de> for Members<'de> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(MembersVisitor)
    }
}

struct MembersVisitor;

impl<'de> Visitor<'de> for MembersVisitor {
    type Value = Members<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members = Vec::new();
        while let Some(member) = map.next_entry::<String, &'de RawValue>()? {
            members.push(member);
        }
        Ok(Members(members))
    }
}

/// The error of a refused response whose first failure is `first`: `first`, then every other
/// problem in document order (see the module's docs).
pub(crate) fn refusal(form: &DataForm, source: Source<'_>, first: Finding) -> FormError {
    let root = match source {
        Source::Value(v) => Node::Value(v),
        Source::Text(text) => match serde_json::from_str::<&RawValue>(text) {
            Ok(raw) => Node::Raw(raw),
            Err(e) => {
                let not_json = Finding::new(
                    JsonPath::response(),
                    Some(Rule::V1),
                    crate::syntax::not_json(text, &e),
                );
                return FormError::from_findings(
                    ErrorCode::InvalidResponse,
                    vec![first, not_json],
                    0,
                );
            }
        },
    };
    let ctx = Ctx::new(form);
    let mut sink = SlotSink {
        form,
        slots: std::iter::repeat_with(|| None)
            .take(form.questions().len())
            .collect(),
    };
    let mut walk = Walk {
        ctx: &ctx,
        found: vec![first.clone()],
        first,
        first_met: false,
        more: 0,
    };
    walk.response(root, &mut sink);
    FormError::from_findings(ErrorCode::InvalidResponse, walk.found, walk.more)
}

/// The walk over a refused response: the findings so far.
struct Walk<'c, 'f> {
    ctx: &'c Ctx<'f>,
    /// `first`, then the other findings, at most [`FINDINGS_MAX`].
    found: Vec<Finding>,
    first: Finding,
    /// Whether the walk met `first` again (it is listed once, first).
    first_met: bool,
    more: usize,
}

impl<'f> Walk<'_, 'f> {
    fn push(&mut self, finding: Finding) {
        if !self.first_met && finding == self.first {
            self.first_met = true;
        } else if self.found.len() < FINDINGS_MAX {
            self.found.push(finding);
        } else {
            self.more += 1;
        }
    }

    /// Runs `seed` over `node`; a failure is recorded.
    fn check<T, D>(&mut self, node: Node<'_>, seed: D) -> Option<T>
    where
        D: for<'de> DeserializeSeed<'de, Value = T>,
    {
        let result = node.run(seed);
        if result.is_none() {
            if let Some(finding) = self.ctx.take_failure() {
                self.push(finding);
            }
        }
        result
    }

    /// Runs the key seed `seed` over the object key `key`; a failure is recorded.
    fn check_key<T, D>(&mut self, key: &str, seed: D) -> Option<T>
    where
        D: for<'de> DeserializeSeed<'de, Value = T>,
    {
        let result = seed
            .deserialize(StrDeserializer::<PlainError>::new(key))
            .ok();
        if result.is_none() {
            if let Some(finding) = self.ctx.take_failure() {
                self.push(finding);
            }
        }
        result
    }

    /// The response object (V1, V8) and the required questions (V2).
    fn response(&mut self, root: Node<'_>, sink: &mut SlotSink<'_>) {
        let ctx = self.ctx;
        let Some(members) = root.entries() else {
            self.check(root, ResponseSeed { ctx, sink });
            return;
        };
        let repeated = |key: &str| {
            Finding::new(
                JsonPath::response(),
                Some(Rule::V1),
                format!("the key `{key}` is given more than once"),
            )
        };
        let mut action: Option<Action> = None;
        let mut action_given = false;
        // `Some` once `content` was read: the answered questions, or `None` when it is not
        // an object.
        let mut content: Option<Option<u64>> = None;
        let mut content_given = false;
        let mut meta = false;
        for (key, value) in members {
            match key.as_ref() {
                "action" if action_given => self.push(repeated("action")),
                "action" => {
                    action_given = true;
                    action = self.check(value, ActionSeed { ctx });
                }
                "content" if content_given => self.push(repeated("content")),
                "content" => {
                    content_given = true;
                    match action {
                        Some(a @ (Action::Decline | Action::Cancel)) => {
                            self.push(no_content_finding(a));
                        }
                        _ => content = Some(self.content(value, sink)),
                    }
                }
                "_meta" if meta => self.push(repeated("_meta")),
                "_meta" => {
                    meta = true;
                    self.check(value, MetaSeed { ctx });
                }
                other => {
                    self.check_key(other, TopKeySeed { ctx });
                }
            }
        }
        if !action_given {
            self.push(Finding::new(
                JsonPath::response(),
                Some(Rule::V1),
                "`action` is missing; it must be \"accept\", \"decline\" or \"cancel\"",
            ));
        }
        match (action, content) {
            (Some(a @ (Action::Decline | Action::Cancel)), Some(_)) => {
                self.push(no_content_finding(a));
            }
            (Some(Action::Accept), Some(None)) => {}
            (Some(Action::Accept), answered) => {
                let answered = answered.flatten().unwrap_or(0);
                for (i, q) in ctx.form.questions().iter().enumerate() {
                    if q.required && answered & bit(i) == 0 {
                        self.push(Finding::new(
                            content_of(&q.id),
                            Some(Rule::V2),
                            "is required and was not answered",
                        ));
                    }
                }
            }
            _ => {}
        }
    }

    /// `content` (V2): the answered questions, or `None` when it is not an object.
    fn content(&mut self, node: Node<'_>, sink: &mut SlotSink<'_>) -> Option<u64> {
        let ctx = self.ctx;
        let Some(members) = node.entries() else {
            self.check(node, ContentSeed { ctx, sink });
            return None;
        };
        let questions = ctx.form.questions();
        let mut answered: u64 = 0;
        let mut next = 0;
        for (key, value) in members {
            let Some(index) = self.check_key(&key, QuestionKeySeed { ctx, next }) else {
                continue;
            };
            let Some(question) = questions.get(index) else {
                continue;
            };
            if answered & bit(index) != 0 {
                self.push(Finding::new(
                    content_of(&question.id),
                    Some(Rule::V2),
                    "is given more than once",
                ));
                continue;
            }
            answered |= bit(index);
            next = index + 1;
            self.answer(value, sink, index, question);
        }
        Some(answered)
    }

    /// One answer (V3–V7): an array answer item by item, any other at once.
    fn answer(
        &mut self,
        node: Node<'_>,
        sink: &mut SlotSink<'_>,
        index: usize,
        question: &'f Question,
    ) {
        let ctx = self.ctx;
        let items = match question.kind {
            QuestionSpec::MultiSelect { .. } => Some(Items::Choices),
            QuestionSpec::Resources { .. } => Some(Items::Resources),
            QuestionSpec::Files { .. } => Some(Items::Files),
            _ => None,
        };
        let (Some(items), Some(list)) = (items, node.items()) else {
            self.check(
                node,
                AnswerSeed {
                    ctx,
                    sink,
                    index,
                    question,
                },
            );
            return;
        };
        crate::answer::Sink::array(sink, index);
        let limits = limits_of(ctx, index);
        let max = limits.max_items as usize;
        let mut seen: u32 = 0;
        for (position, item) in list.iter().enumerate().take(max.saturating_add(1)) {
            self.check(
                *item,
                ItemSeed {
                    ctx,
                    sink: &mut *sink,
                    question,
                    index,
                    items,
                    position,
                    seen: &mut seen,
                    keep: position < max,
                },
            );
        }
        if let Err(v) = forms_rules::check_answer_count(
            question.kind.kind(),
            list.len(),
            limits,
            question.required,
        ) {
            self.push(Finding::new(
                content_of(&question.id),
                Some(v.rule),
                v.problem,
            ));
        }
    }
}
