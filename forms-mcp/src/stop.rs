//! Asking with `?`: [`FormCall::ask`] gives the accepted answer or a [`Stop`], the tool
//! result the model gets instead, which leaves a `#[tool]` function returning
//! `Result<CallToolResult, McpError>` through `?`; [`asking`] wraps the tool router so the
//! stop reaches the model as that tool result.

use crate::ask::{envelope, error_response, Asked, FormAsker};
use crate::call::FormCall;
use forms_runtime::mcp::ToolResult;
use forms_runtime::{Answers, Form, Outcome, StaticForm, TypedForm};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::CallToolResponse;
use rmcp::ErrorData as McpError;
use std::sync::{Arc, Mutex};

/// Why an ask gave no accepted answer, as the tool result to return to the model: the
/// input-required result of a first round (protocol 2026-07-28), the Data tool's
/// `{"action":"decline"}` or `{"action":"cancel"}` envelope, or the `{"error":{…}}` envelope
/// of one of the six codes, exactly what the explicit [`Asked`] form returns.
///
/// It converts into rmcp's `McpError`, so `?` takes it out of a `#[tool]` function that
/// returns `Result<CallToolResult, McpError>`; a router wrapped by [`asking`] then answers
/// the call with the tool result. Through a router not wrapped, the call fails with a
/// JSON-RPC error naming [`asking`].
#[derive(Debug)]
pub struct Stop {
    to: To,
}

/// Who a stop is for.
#[derive(Debug)]
enum To {
    /// The model: a tool result.
    Model {
        response: Box<CallToolResponse>,
        slot: Option<Slot>,
    },
    /// The server: a form the tool could not build, a JSON-RPC error (the author's mistake,
    /// never blamed on the model's arguments).
    Server(McpError),
}

/// Where a stop leaves its tool result for [`asking`]'s wrapper.
#[derive(Debug, Clone, Default)]
pub(crate) struct Slot(Arc<Mutex<Option<CallToolResponse>>>);

/// The message of a stop that reached a router not wrapped by [`asking`].
pub(crate) const NOT_ROUTED: &str = "this tool asked a form with `?`, but its router does not \
     turn the stop into the tool result: build it with \
     `forms_mcp::asking(Self::tool_router())`";

/// The message of a stop taken by [`asking`]'s wrapper (never sent).
const ROUTED: &str = "forms-mcp: the ask stopped the tool call";

impl Stop {
    /// The tool result to return to the model, or the JSON-RPC error of a form the tool
    /// could not build ([`FormCall::ask_parts`]).
    pub fn into_response(self) -> Result<CallToolResponse, McpError> {
        match self.to {
            To::Model { response, .. } => Ok(*response),
            To::Server(error) => Err(error),
        }
    }

    /// The tool result, by reference; `None` for a form the tool could not build.
    pub fn response(&self) -> Option<&CallToolResponse> {
        match &self.to {
            To::Model { response, .. } => Some(response),
            To::Server(_) => None,
        }
    }
}

impl From<Stop> for McpError {
    fn from(stop: Stop) -> McpError {
        match stop.to {
            To::Model {
                response,
                slot: Some(Slot(slot)),
            } => {
                if let Ok(mut kept) = slot.lock() {
                    *kept = Some(*response);
                    return McpError::internal_error(ROUTED, None);
                }
                McpError::internal_error(NOT_ROUTED, None)
            }
            To::Model { slot: None, .. } => McpError::internal_error(NOT_ROUTED, None),
            To::Server(error) => error,
        }
    }
}

/// `router` with every route answering a [`Stop`] that left its function through `?` with
/// the stop's tool result. Build the router with it once:
/// `tool_router: forms_mcp::asking(Self::tool_router())`.
pub fn asking<S: Send + Sync + 'static>(mut router: ToolRouter<S>) -> ToolRouter<S> {
    for route in router.map.values_mut() {
        let inner = Arc::clone(&route.call);
        route.call = Arc::new(move |mut ctx: ToolCallContext<'_, S>| {
            let inner = Arc::clone(&inner);
            let slot = Slot::default();
            ctx.request_context.extensions.insert(slot.clone());
            Box::pin(async move {
                match inner(ctx).await {
                    Err(error) => match slot.0.lock().ok().and_then(|mut kept| kept.take()) {
                        Some(response) => Ok(response),
                        None => Err(error),
                    },
                    done => done,
                }
            })
        });
    }
    router
}

impl FormCall {
    /// Asks the derived form `T` and gives the accepted answer; anything else is a [`Stop`]
    /// (the tool result to return), so that `let setup = call.ask::<Setup>(&forms).await?;`
    /// reads like rmcp's `peer.elicit::<T>()`. The explicit form is [`FormAsker::ask`].
    pub async fn ask<T: StaticForm>(&self, forms: &FormAsker) -> Result<T, Stop> {
        self.stop_or(forms.ask::<T>(self).await)
    }

    /// Asks a built typed form (one with run-time parts, from `T::build(parts)`) and gives
    /// the accepted answer, or a [`Stop`] ([`FormAsker::ask_typed`] is the explicit form).
    pub async fn ask_built<T: Form>(
        &self,
        forms: &FormAsker,
        form: &TypedForm<T>,
    ) -> Result<T, Stop> {
        self.stop_or(forms.ask_typed(form, self).await)
    }

    /// Builds the form of `T` from its run-time parts and asks it, giving the accepted
    /// answer or a [`Stop`]. A form that cannot be built (say, a required `resource`
    /// question given no options, R14) is the tool's own error, not the model's: the stop
    /// is a JSON-RPC internal error naming the problem, not an `invalid_arguments` result.
    /// An optional question given no options is left out of the form (see [`Form`]).
    pub async fn ask_parts<T: Form>(&self, forms: &FormAsker, parts: T::Parts) -> Result<T, Stop> {
        let form = T::build(parts).map_err(|error| Stop {
            to: To::Server(McpError::internal_error(
                format!("the tool's form could not be built: {}", error.message()),
                None,
            )),
        })?;
        self.ask_built(forms, &form).await
    }

    /// Asks one required text question and gives the text, or a [`Stop`]
    /// ([`FormAsker::ask_text`] is the explicit form).
    pub async fn ask_text(&self, forms: &FormAsker, question: &str) -> Result<String, Stop> {
        self.stop_or(forms.ask_text(question, self).await)
    }

    fn stop_or<T>(&self, asked: Asked<T>) -> Result<T, Stop> {
        let response = match asked {
            Asked::Done(Ok(Outcome::Accepted(value))) => return Ok(value),
            Asked::Done(Ok(Outcome::Declined)) => {
                envelope(&ToolResult::from_outcome(&Outcome::<Answers<'_>>::Declined))
            }
            Asked::Done(Ok(Outcome::Cancelled)) => envelope(&ToolResult::from_outcome(
                &Outcome::<Answers<'_>>::Cancelled,
            )),
            Asked::Done(Err(error)) => error_response(&error),
            Asked::InputRequired(result) => CallToolResponse::InputRequired(result),
        };
        Err(Stop {
            to: To::Model {
                response: Box::new(response),
                slot: self.context().extensions.get::<Slot>().cloned(),
            },
        })
    }
}
