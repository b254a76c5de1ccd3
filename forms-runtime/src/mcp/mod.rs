//! The MCP side of a form: the `form_elicitation_v2_request` tool's descriptor and the tool
//! result envelope.
//!
//! A tool result carries its payload twice, as the seed asks: as `structuredContent` and as
//! the same JSON text in `content[0].text`, with `isError: true` for errors. The payload is
//! `{"action":"accept","content":{…}}`, `{"action":"decline"}`, `{"action":"cancel"}` or
//! `{"error":{"code":…,"message":…}}`.

mod descriptor;

pub use descriptor::{
    id_pattern, tool_descriptor, Properties, Schema, ToolAnnotations, ToolDescriptor,
    ACCEPT_PATTERN, SCHEMA_DIALECT, TOOL_NAME,
};

use crate::answer::{Answers, Outcome};
use crate::error::FormError;
use serde::ser::{SerializeStruct, Serializer};
use serde::Serialize;
use serde_json::value::RawValue;

/// An MCP tool result: the payload as `structuredContent` and as JSON text in
/// `content[0].text`. Made from a checked outcome ([`ToolResult::from_outcome`]) or an error
/// ([`ToolResult::from_error`], with `isError: true`), so the flag always matches the payload.
///
/// ```
/// use forms_runtime::mcp::ToolResult;
/// use forms_runtime::DataForm;
///
/// let err = DataForm::from_json(r#"{"message":"","questions":[]}"#).unwrap_err();
/// let result = ToolResult::from_error(&err);
/// assert!(result.is_error());
/// let json = result.to_value();
/// assert_eq!(json["isError"], true);
/// assert_eq!(json["structuredContent"]["error"]["code"], "invalid_arguments");
/// let text: serde_json::Value = serde_json::from_str(result.text()).unwrap();
/// assert_eq!(text, json["structuredContent"]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResult {
    /// The payload as compact JSON text; also the `structuredContent`, written as is so that
    /// content keys keep the question order.
    text: String,
    is_error: bool,
}

impl ToolResult {
    /// The result of a checked host response: `accept` with its content, `decline` or
    /// `cancel`; no `isError`.
    pub fn from_outcome(outcome: &Outcome<Answers<'_>>) -> ToolResult {
        ToolResult {
            text: payload_text(outcome),
            is_error: false,
        }
    }

    /// The result of an error: `{"error":{"code":…,"message":…}}` with `isError: true`.
    pub fn from_error(error: &FormError) -> ToolResult {
        ToolResult {
            text: error.to_json(),
            is_error: true,
        }
    }

    /// The result of a check: [`ToolResult::from_outcome`] or [`ToolResult::from_error`].
    pub fn from_result(result: &Result<Outcome<Answers<'_>>, FormError>) -> ToolResult {
        match result {
            Ok(outcome) => ToolResult::from_outcome(outcome),
            Err(error) => ToolResult::from_error(error),
        }
    }

    /// Whether the result is an error.
    pub fn is_error(&self) -> bool {
        self.is_error
    }

    /// The payload as compact JSON text: `content[0].text`.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The payload as a JSON value: `structuredContent`. Its object keys keep the question
    /// order only when serde_json's `preserve_order` feature is on in the build (as it is
    /// wherever `forms-mcp` is built); [`ToolResult::text`] keeps it always.
    pub fn structured_content(&self) -> serde_json::Value {
        serde_json::from_str(&self.text).unwrap_or(serde_json::Value::Null)
    }

    /// The whole result, `{"content":[{"type":"text","text":…}],"structuredContent":…,
    /// "isError"?:true}`, as a JSON value.
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }

    /// The whole result as compact JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// The payload text of `outcome`. Outcomes hold only strings and string-keyed maps, so
/// serializing cannot fail; should it, the text carries the error instead of panicking.
fn payload_text(outcome: &Outcome<Answers<'_>>) -> String {
    serde_json::to_string(outcome).unwrap_or_else(|e| {
        serde_json::json!({"error": {"code": "invalid_response", "message": e.to_string()}})
            .to_string()
    })
}

#[derive(Serialize)]
struct TextContent<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

impl Serialize for ToolResult {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let structured: &RawValue =
            serde_json::from_str(&self.text).map_err(serde::ser::Error::custom)?;
        let mut st = s.serialize_struct("ToolResult", 3)?;
        st.serialize_field(
            "content",
            &[TextContent {
                kind: "text",
                text: &self.text,
            }],
        )?;
        st.serialize_field("structuredContent", structured)?;
        if self.is_error {
            st.serialize_field("isError", &true)?;
        } else {
            st.skip_field("isError")?;
        }
        st.end()
    }
}
