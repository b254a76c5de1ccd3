//! [`FormCall`]: the tool call an ask belongs to, taken by a `#[tool]` function as one of its
//! arguments, beside rmcp's `Parameters`.

use rmcp::handler::server::common::FromContextPart;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{CallToolRequestParams, ClientCapabilities, InputResponses, JsonObject};
use rmcp::service::{Peer, RequestContext};
use rmcp::RoleServer;
use std::borrow::Cow;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// The tool call a form is asked in: what [`crate::FormAsker`] needs of it.
///
/// It holds the call's name and arguments (a 2026-07-28 request state is bound to both), the
/// request state and input responses of a retried call, and the request's context: the peer
/// and the client's capabilities, the cancellation token, and the request extensions (where
/// the transports of [`crate::transport`] leave the host's answer as sent, and where rmcp's
/// HTTP transport leaves the HTTP request's parts).
///
/// Take it as an argument of a `#[tool]` function (it implements rmcp's `FromContextPart`
/// for tool calls, like `Parameters`, `RequestState` or `RequestContext`), or build one from
/// a hand-written `call_tool`'s request and context with [`FormCall::new`]. It reads the
/// call without taking anything from it, and its place among the function's arguments does
/// not matter for the arguments: rmcp's `Parameters` takes them from the call, so a
/// `FormCall` after it finds them where [`crate::transport::keep`] (or
/// [`crate::transport::http_router`]) kept them. Over a transport served without those, taking
/// a `FormCall` fails the tool call with an error naming the fix. rmcp's `RequestState` and
/// `InputResponses` take what they read: a function that takes them as well takes its
/// `FormCall` before them.
///
/// ```no_run
/// use forms_mcp::{FormAsker, FormCall};
/// use forms_runtime::Form;
/// use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
/// use rmcp::model::{CallToolResult, ContentBlock};
/// use rmcp::{schemars, tool, tool_handler, tool_router, ErrorData as McpError, ServerHandler};
///
/// /// The set-up of the weekly report.
/// #[derive(Form)]
/// #[form(message = "Set up your weekly report")]
/// struct Setup {
///     /// What would you like to understand?
///     goal: Option<String>,
///     /// Report format
///     format: Format,
/// }
///
/// /// Report format
/// #[derive(Form)]
/// enum Format {
///     /// PDF
///     Pdf,
///     /// Web page
///     Html,
/// }
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct ReportArgs {
///     /// Whose week
///     team: String,
/// }
///
/// #[derive(Clone)]
/// struct Reports {
///     forms: FormAsker,
///     tool_router: ToolRouter<Reports>,
/// }
///
/// impl Reports {
///     fn new(forms: FormAsker) -> Self {
///         // `asking` turns an ask's `?` into the tool result the model gets.
///         let tool_router = forms_mcp::asking(Self::tool_router());
///         Reports { forms, tool_router }
///     }
/// }
///
/// #[tool_router]
/// impl Reports {
///     /// Plans the weekly report, asking how to set it up.
///     #[tool]
///     async fn weekly_report(
///         &self,
///         Parameters(args): Parameters<ReportArgs>,
///         call: FormCall,
///     ) -> Result<CallToolResult, McpError> {
///         // Anything but an accepted answer (the input-required round, a decline, a refused
///         // answer, a client without forms) leaves through `?` as the model's tool result.
///         let setup = call.ask::<Setup>(&self.forms).await?;
///         let format = match setup.format { Format::Pdf => "PDF", Format::Html => "web page" };
///         let text = format!("{}'s report as a {format}", args.team);
///         Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
///     }
/// }
///
/// #[tool_handler]
/// impl ServerHandler for Reports {}
/// ```
#[derive(Debug, Clone)]
pub struct FormCall {
    name: Cow<'static, str>,
    /// Shared with the copy the transport kept, so a `FormCall` (and each clone of it) holds
    /// no copy of its own.
    arguments: Option<Arc<JsonObject>>,
    request_state: Option<String>,
    input_responses: Option<InputResponses>,
    context: RequestContext<RoleServer>,
}

/// The arguments of a `tools/call` request, left in its extensions by the transports of
/// [`crate::transport`] (rmcp's `Parameters` takes them from the tool call before a later
/// argument of the function is read). Shared: a [`FormCall`] of the call holds the same map.
#[derive(Debug, Clone)]
pub(crate) struct CallArguments(pub(crate) Option<Arc<JsonObject>>);

impl CallArguments {
    /// The arguments the transport kept for the request of `context`: `None` when it kept
    /// none (another transport), `Some(None)` when the call had none.
    fn of(context: &RequestContext<RoleServer>) -> Option<Option<Arc<JsonObject>>> {
        context
            .extensions
            .get::<CallArguments>()
            .or_else(|| {
                context
                    .extensions
                    .get::<axum::http::request::Parts>()
                    .and_then(|parts| parts.extensions.get::<CallArguments>())
            })
            .map(|kept| kept.0.clone())
    }

    /// The call's arguments: the transport's shared copy when it kept one, else a copy of
    /// `arguments` (what the call still holds; `None` once `Parameters` took them).
    fn shared(
        context: &RequestContext<RoleServer>,
        arguments: Option<&JsonObject>,
    ) -> Option<Arc<JsonObject>> {
        match (CallArguments::of(context), arguments) {
            (Some(Some(kept)), _) => Some(kept),
            (_, Some(arguments)) => Some(Arc::new(arguments.clone())),
            (kept, None) => kept.flatten(),
        }
    }
}

impl FormCall {
    /// The call `request`, handled in `context` (for a hand-written
    /// `ServerHandler::call_tool`).
    pub fn new(request: &CallToolRequestParams, context: &RequestContext<RoleServer>) -> FormCall {
        FormCall {
            name: request.name.clone(),
            arguments: CallArguments::shared(context, request.arguments.as_ref()),
            request_state: request.request_state.clone(),
            input_responses: request.input_responses.clone(),
            context: context.clone(),
        }
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The call's arguments.
    pub fn arguments(&self) -> Option<&JsonObject> {
        self.arguments.as_deref()
    }

    /// The request state a retried call echoes (protocol 2026-07-28).
    pub fn request_state(&self) -> Option<&str> {
        self.request_state.as_deref()
    }

    /// The answers a retried call carries (protocol 2026-07-28).
    pub fn input_responses(&self) -> Option<&InputResponses> {
        self.input_responses.as_ref()
    }

    /// The request's context: peer, metadata, extensions and cancellation token.
    pub fn context(&self) -> &RequestContext<RoleServer> {
        &self.context
    }

    /// The client.
    pub fn peer(&self) -> &Peer<RoleServer> {
        &self.context.peer
    }

    /// The client's capabilities for this request (per request on 2026-07-28, else the
    /// session's).
    pub fn client_capabilities(&self) -> Option<ClientCapabilities> {
        self.context.client_capabilities()
    }

    /// Cancelled when the client cancels the call.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.context.ct
    }
}

impl<S> FromContextPart<ToolCallContext<'_, S>> for FormCall {
    fn from_context_part(context: &mut ToolCallContext<'_, S>) -> Result<Self, rmcp::ErrorData> {
        let request_context = context.request_context();
        if crate::transport::Capture::of(request_context).is_none() {
            return Err(rmcp::ErrorData::internal_error(
                crate::transport::NOT_KEPT.to_owned(),
                None,
            ));
        }
        // `Parameters` before this argument may have taken the arguments; the transport kept
        // them, shared.
        let arguments = CallArguments::shared(request_context, context.arguments.as_ref());
        Ok(FormCall {
            name: context.name.clone(),
            arguments,
            request_state: context.request_state.clone(),
            input_responses: context.input_responses.clone(),
            context: request_context.clone(),
        })
    }
}
