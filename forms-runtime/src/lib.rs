//! Typed Data forms for Rust agents and MCP tools.
//!
//! The runtime holds the Data contract (model-facing `{message, questions}` arguments, rules
//! R1–R27), the compiler to the host's native `openai/elicitation/create` request (N1–N10),
//! and the checker of host answers (V1–V8).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod answer;
pub mod data;
pub mod descriptor;
pub mod error;
pub mod native;
mod prepared;
mod typed;

pub use answer::{Answer, Answers, FileAnswer, FileRefView, Response};
pub use data::DataForm;
pub use error::{ErrorCode, ErrorPayload, FormError, ToolResult};
pub use native::{NativeRequest, RequestedSchema};
pub use prepared::PreparedForm;
pub use typed::{ChoiceMeta, FileRef, Form, FormChoice, Outcome, TypedForm};

/// Derives [`Form`] (and, on a fieldless enum, [`FormChoice`]); see the trait for the field
/// types and attributes.
pub use forms_macros::Form;

/// The shared rules crate, for callers that want a single check.
pub use forms_rules as rules;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;
mod private_inline;

pub use forms_macros::form;
