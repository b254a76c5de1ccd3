//! The JSON-RPC scanner: finds, in a message's bytes, the parts that hold an answer.

use rmcp::model::{JsonObject, RequestId};
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// What a message holds for an ask.
pub(super) enum Found<'a> {
    /// A response: its id and raw result.
    Result(RequestId, &'a RawValue),
    /// A `tools/call` request with `inputResponses[INPUT_KEY]`: its id and that raw entry.
    Input(RequestId, &'a RawValue),
    Nothing,
}

/// An object's members in order, as raw JSON; a key given twice appears twice.
pub(super) struct Members<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'a> Members<'a> {
    pub(super) fn read(raw: &'a RawValue) -> Option<Members<'a>> {
        serde_json::from_str(raw.get()).ok()
    }

    /// The member `key`, when it is given exactly once.
    pub(super) fn one(&self, key: &str) -> Option<&'a RawValue> {
        let mut found = self.0.iter().filter(|(k, _)| k == key);
        let first = found.next()?;
        found.next().is_none().then_some(first.1)
    }

    /// The member `key`'s last value, as a JSON map reads it.
    pub(super) fn last(&self, key: &str) -> Option<&'a RawValue> {
        self.0.iter().rev().find(|(k, _)| k == key).map(|(_, v)| *v)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Members<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MembersVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for MembersVisitor<'a> {
            type Value = Members<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members<'a>, A::Error> {
                let mut members = Vec::new();
                while let Some((key, value)) = map.next_entry::<Cow<'a, str>, &'a RawValue>()? {
                    members.push((key, value));
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(MembersVisitor(std::marker::PhantomData))
    }
}

/// What the JSON-RPC 2.0 message `bytes` holds for an ask: nothing unless it has
/// `"jsonrpc":"2.0"` (once), as rmcp requires. A message rmcp would not read the same way is
/// harmless: a kept part is used only where it reads as what rmcp delivered.
pub(super) fn find(bytes: &[u8]) -> Found<'_> {
    // One reading of the whole line: the members' values are checked as JSON as they are
    // read, so a line that is not one JSON object is nothing.
    let Ok(members) = serde_json::from_slice::<Members<'_>>(bytes) else {
        return Found::Nothing;
    };
    let version_2 = members
        .one("jsonrpc")
        .and_then(|version| serde_json::from_str::<Cow<'_, str>>(version.get()).ok())
        .is_some_and(|version| version == "2.0");
    if !version_2 {
        return Found::Nothing;
    }
    let Some(id) = members
        .one("id")
        .and_then(|id| serde_json::from_str::<RequestId>(id.get()).ok())
    else {
        return Found::Nothing;
    };
    match (members.one("method"), members.one("result")) {
        (None, Some(result)) if members.one("error").is_none() => Found::Result(id, result),
        (Some(method), None)
            if serde_json::from_str::<Cow<'_, str>>(method.get())
                .is_ok_and(|method| method == "tools/call") =>
        {
            members
                .one("params")
                .and_then(Members::read)
                .and_then(|params| params.last("inputResponses"))
                .and_then(Members::read)
                .and_then(|responses| responses.last(crate::INPUT_KEY))
                .map_or(Found::Nothing, |input| Found::Input(id, input))
        }
        _ => Found::Nothing,
    }
}

/// The arguments of the `tools/call` request `bytes`, as rmcp reads them (a repeated key:
/// the last one wins).
pub(super) fn call_arguments(bytes: &[u8]) -> Option<JsonObject> {
    let message = serde_json::from_slice::<&RawValue>(bytes).ok()?;
    let arguments = Members::read(message)?
        .one("params")
        .and_then(Members::read)?
        .last("arguments")?;
    serde_json::from_str::<Option<JsonObject>>(arguments.get())
        .ok()
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result_of(line: &str) -> Option<(RequestId, String)> {
        match find(line.as_bytes()) {
            Found::Result(id, raw) => Some((id, raw.get().to_owned())),
            _ => None,
        }
    }

    fn input_of(line: &str) -> Option<(RequestId, String)> {
        match find(line.as_bytes()) {
            Found::Input(id, raw) => Some((id, raw.get().to_owned())),
            _ => None,
        }
    }

    #[test]
    fn finds_a_result_as_sent() {
        let (id, raw) = result_of(
            r#"{"jsonrpc":"2.0","id":3,"result":{"action":"decline","content":null,"x":1}}"#,
        )
        .unwrap();
        assert_eq!(id, RequestId::Number(3));
        assert_eq!(raw, r#"{"action":"decline","content":null,"x":1}"#);
        let (_, raw) = result_of(r#"{"id":"a","jsonrpc":"2.0","result":null}"#).unwrap();
        assert_eq!(raw, "null");
        let (_, raw) =
            result_of(r#"{"jsonrpc":"2.0","id":1,"result":{"action":"cancel","action":"x"}}"#)
                .unwrap();
        assert_eq!(raw, r#"{"action":"cancel","action":"x"}"#);
        // Not a response, or not one rmcp reads.
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{},"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","result":{}}"#,
            r#"{"jsonrpc":"2.0","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
            // Not JSON-RPC 2.0: rmcp refuses these.
            r#"{"jsonrpc":"1.0","id":1,"result":{}}"#,
            r#"{"id":1,"result":{}}"#,
            r#"{"jsonrpc":2.0,"id":1,"result":{}}"#,
            r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"result":{}}"#,
            "[]",
            "not json",
        ] {
            assert!(result_of(line).is_none(), "{line}");
        }
    }

    #[test]
    fn finds_the_input_response_of_a_retried_call() {
        let (id, raw) = input_of(
            r#"{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"t","inputResponses":{"other":1,"form":{"action":"accept","action":"cancel"}}}}"#,
        )
        .unwrap();
        assert_eq!(id, RequestId::String("c".into()));
        assert_eq!(raw, r#"{"action":"accept","action":"cancel"}"#);
        // A map keeps a repeated key's last value; so does this.
        let (_, raw) = input_of(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"inputResponses":{"form":1,"form":2}}}"#,
        )
        .unwrap();
        assert_eq!(raw, "2");
        for line in [
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"inputResponses":{"form":1}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"inputResponses":{"form":1}}}"#,
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"inputResponses":{"form":1}}}"#,
        ] {
            assert!(input_of(line).is_none(), "{line}");
        }
    }
}
