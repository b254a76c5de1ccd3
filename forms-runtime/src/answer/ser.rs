//! The tool-result payload of a response: `{"action":"accept","content":{…}}` with content
//! keys in question order, or `{"action":"decline"}` / `{"action":"cancel"}`.
//!
//! Written with typed `Serialize` impls (never through a `serde_json::Value` map, which would
//! sort the keys). Values are what the host sent: strings and arrays of strings.

use super::{Answer, Answers, FileAnswer, Outcome};
use crate::data::QuestionSpec;
use serde::ser::{SerializeMap, SerializeSeq, SerializeStruct, Serializer};
use serde::Serialize;

/// `{"action":"accept","content":…}` with the answers as `content`, or
/// `{"action":"decline"}` / `{"action":"cancel"}`.
impl<T: Serialize> Serialize for Outcome<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Outcome::Accepted(content) => {
                let mut st = s.serialize_struct("Outcome", 2)?;
                st.serialize_field("action", "accept")?;
                st.serialize_field("content", content)?;
                st.end()
            }
            Outcome::Declined | Outcome::Cancelled => {
                let mut st = s.serialize_struct("Outcome", 1)?;
                st.serialize_field("action", self.action())?;
                st.end()
            }
        }
    }
}

/// The `content` object: the answered questions' values as the host sent them, in question
/// order.
impl Serialize for Answers<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.answered()))?;
        for (q, slot) in self.form.questions().iter().zip(&self.slots) {
            if let Some(answer) = slot {
                map.serialize_entry(
                    &q.id,
                    &Value {
                        kind: &q.kind,
                        answer,
                    },
                )?;
            }
        }
        map.end()
    }
}

/// One answer as the host sent it.
struct Value<'a> {
    kind: &'a QuestionSpec,
    answer: &'a Answer,
}

/// A list of option indices, written as the options' ids or URIs.
struct Indices<'a> {
    kind: &'a QuestionSpec,
    list: &'a [usize],
}

/// The id or URI of option `i` of `kind` (choice options have ids, resources URIs).
fn option_str(kind: &QuestionSpec, i: usize) -> &str {
    match kind {
        QuestionSpec::SingleSelect { options } | QuestionSpec::MultiSelect { options, .. } => {
            options.get(i).map_or("", |o| o.id.as_str())
        }
        QuestionSpec::Resource { options }
        | QuestionSpec::Resources { options, .. }
        | QuestionSpec::Files { options, .. } => options.get(i).map_or("", |o| o.uri.as_str()),
        QuestionSpec::Text { .. } => "",
    }
}

impl Serialize for Value<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.answer {
            Answer::Text(t) => s.serialize_str(t),
            Answer::Choice(i) | Answer::Resource(i) => s.serialize_str(option_str(self.kind, *i)),
            Answer::Choices(list) | Answer::Resources(list) => Indices {
                kind: self.kind,
                list,
            }
            .serialize(s),
            Answer::Files(files) => {
                let mut seq = s.serialize_seq(Some(files.len()))?;
                for f in files {
                    match f {
                        FileAnswer::Offered(i) => {
                            seq.serialize_element(option_str(self.kind, *i))?
                        }
                        FileAnswer::Local { uri, .. } => seq.serialize_element(uri)?,
                    }
                }
                seq.end()
            }
        }
    }
}

impl Serialize for Indices<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.list.len()))?;
        for i in self.list {
            seq.serialize_element(option_str(self.kind, *i))?;
        }
        seq.end()
    }
}
