//! Errors and the MCP tool-result envelope.

use crate::answer::Response;
use serde::Serialize;
use std::fmt;

/// The six error codes of the contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// Input failed the advertised contract, uniqueness, size, or selection-limit checks.
    InvalidArguments,
    /// The host did not advertise native form support.
    UnsupportedClient,
    /// Submitted values or the host response failed validation; no answers were applied.
    InvalidResponse,
    /// The tool request was interrupted before a valid submission.
    RequestCancelled,
    /// The submission did not arrive within the configured request timeout.
    Timeout,
    /// Elicitation failed before a valid response arrived.
    TransportError,
}

impl ErrorCode {
    /// The code as it appears on the wire (`"invalid_arguments"`).
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArguments => "invalid_arguments",
            ErrorCode::UnsupportedClient => "unsupported_client",
            ErrorCode::InvalidResponse => "invalid_response",
            ErrorCode::RequestCancelled => "request_cancelled",
            ErrorCode::Timeout => "timeout",
            ErrorCode::TransportError => "transport_error",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error of the contract: a code and a message that names the JSON path and the rule
/// (`questions[3].options[0].id: "9x" must start with an ASCII letter (R6)`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{code}: {message}")]
pub struct FormError {
    /// Which of the six codes.
    pub code: ErrorCode,
    /// What was wrong, for a person or a model to read.
    pub message: String,
}

impl FormError {
    /// An error with `code` and `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        FormError {
            code,
            message: message.into(),
        }
    }

    /// An `invalid_arguments` error.
    pub fn invalid_arguments(message: impl Into<String>) -> Self {
        FormError::new(ErrorCode::InvalidArguments, message)
    }

    /// An `invalid_response` error.
    pub fn invalid_response(message: impl Into<String>) -> Self {
        FormError::new(ErrorCode::InvalidResponse, message)
    }

    /// The error as a tool-result payload: `{"error":{"code":…,"message":…}}`.
    pub fn payload(&self) -> ErrorPayload<'_> {
        ErrorPayload { error: self }
    }
}

/// The tool-result payload of an error: `{"error":{"code":…,"message":…}}`.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ErrorPayload<'a> {
    /// The error.
    pub error: &'a FormError,
}

/// An MCP tool result carrying its payload both as `structuredContent` and as JSON text in
/// `content[0].text`. Made by [`ToolResult::answer`] (a checked response) or
/// [`ToolResult::error`] (with `isError: true`), so the flag always matches the payload.
///
/// ```
/// use forms_runtime::{FormError, ToolResult};
/// let err = FormError::invalid_arguments("message: must not be empty or only whitespace (R1)");
/// let payload = err.payload();
/// let result = ToolResult::error(&payload);
/// let json = serde_json::to_value(&result).unwrap();
/// assert_eq!(json["isError"], true);
/// assert_eq!(json["structuredContent"]["error"]["code"], "invalid_arguments");
/// let text: serde_json::Value =
///     serde_json::from_str(json["content"][0]["text"].as_str().unwrap()).unwrap();
/// assert_eq!(text, json["structuredContent"]);
/// ```
#[derive(Debug, Clone, Serialize)]
pub struct ToolResult<'a, P: Serialize> {
    content: [TextContent; 1],
    #[serde(rename = "structuredContent")]
    structured_content: &'a P,
    #[serde(rename = "isError", skip_serializing_if = "is_false")]
    is_error: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

#[derive(Debug, Clone, Serialize)]
struct TextContent {
    #[serde(rename = "type")]
    kind: &'static str,
    text: String,
}

impl<'a, 'f> ToolResult<'a, Response<'f>> {
    /// The result of a checked host response (`accept`, `decline` or `cancel`); no `isError`.
    pub fn answer(response: &'a Response<'f>) -> Self {
        ToolResult::wrap(response, false)
    }
}

impl<'a, 'e> ToolResult<'a, ErrorPayload<'e>> {
    /// The result of an error, with `isError: true`.
    pub fn error(payload: &'a ErrorPayload<'e>) -> Self {
        ToolResult::wrap(payload, true)
    }
}

impl<'a, P: Serialize> ToolResult<'a, P> {
    fn wrap(payload: &'a P, is_error: bool) -> Self {
        // Both payloads hold only strings and string-keyed maps, so serializing cannot fail;
        // should it, the text carries the error instead of panicking.
        let text = serde_json::to_string(payload).unwrap_or_else(|e| {
            format!(
                "{{\"error\":{{\"code\":\"invalid_response\",\"message\":{}}}}}",
                serde_json::Value::String(e.to_string())
            )
        });
        ToolResult {
            content: [TextContent { kind: "text", text }],
            structured_content: payload,
            is_error,
        }
    }

    /// Whether the result is an error.
    pub fn is_error(&self) -> bool {
        self.is_error
    }
}
