//! The `form_elicitation_v2_request` tool server: rmcp's [`ServerHandler`] for the Data tool.

use crate::ask::{envelope, error_response, Asked, FormAsker};
use crate::call::FormCall;
use crate::state::StateKeyError;
use forms_runtime::mcp::{tool_descriptor, ToolResult, TOOL_NAME};
use forms_runtime::DataForm;
use rmcp::handler::server::common::FromContextPart;
use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// The newest protocol version this server speaks: 2026-07-28, the multi-round-trip
/// transport. Older versions use the legacy transport, on which the server sends
/// `openai/elicitation/create` to the host in the middle of the tool call.
pub const PROTOCOL_VERSION_MAX: ProtocolVersion = ProtocolVersion::V_2026_07_28;

/// The Data form tool server: one tool, `form_elicitation_v2_request`.
///
/// Each call runs the adapter flow of the contract: the strict argument check
/// (`invalid_arguments`), the capability check (`unsupported_client` unless the client
/// advertised `extensions["openai/elicitation"].form`), the native request sent to the host,
/// the wait (at most the timeout: `timeout`; a cancelled call: `request_cancelled`; a failed
/// transport or a JSON-RPC error: `transport_error`), the answer check (`invalid_response`)
/// and the result envelope ([`ToolResult`]).
///
/// ```no_run
/// use forms_mcp::FormsServer;
/// use rmcp::ServiceExt;
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let server = FormsServer::new(forms_mcp::config::timeout_from_env()?);
/// server.serve(forms_mcp::transport::stdio()).await?.waiting().await?;
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct FormsServer {
    asker: FormAsker,
    tools: ToolRouter<FormsServer>,
}

/// A boxed tool-call future, as rmcp's router takes it.
type RouteFuture<'a> =
    Pin<Box<dyn Future<Output = Result<CallToolResponse, McpError>> + Send + 'a>>;

/// The router of the Data tool: its one route, listed with the runtime's descriptor.
fn data_router() -> ToolRouter<FormsServer> {
    ToolRouter::new().with_route(ToolRoute::new_dyn(tool(), data_call))
}

/// A call of the Data tool, routed.
fn data_call(mut ctx: ToolCallContext<'_, FormsServer>) -> RouteFuture<'_> {
    Box::pin(async move {
        let call = FormCall::from_context_part(&mut ctx)?;
        Ok(ctx.service.ask_data(&call).await)
    })
}

impl FormsServer {
    /// A server that waits at most `timeout` for each submission, sealing multi-round-trip
    /// states with a random key of this process.
    pub fn new(timeout: Duration) -> FormsServer {
        FormsServer {
            asker: FormAsker::new(timeout)
                .with_core_fallback(false)
                .with_url_mode(false),
            tools: data_router(),
        }
    }

    /// A server that waits at most `timeout` and seals multi-round-trip states with `key`
    /// (at least 32 bytes; every instance behind one load balancer needs the same key).
    pub fn with_state_key(timeout: Duration, key: &[u8]) -> Result<FormsServer, StateKeyError> {
        Ok(FormsServer {
            asker: FormAsker::with_state_key(timeout, key)?
                .with_core_fallback(false)
                .with_url_mode(false),
            tools: data_router(),
        })
    }

    /// The same server with the requested-reply tools (`ask_open` …) over a store
    /// ([`crate::replies`]), routed beside the Data tool. Without them only the Data tool is
    /// listed.
    #[cfg(feature = "asks")]
    pub fn with_replies(mut self, tools: crate::replies::AskTools) -> FormsServer {
        self.tools.merge(tools.router());
        self
    }

    /// The same server, remembering used multi-round-trip request states in `store`
    /// ([`FormAsker::with_state_store`]): single use across instances sharing the store and
    /// the key (`FORMS_STATE_KEY`), and across restarts.
    #[cfg(feature = "asks")]
    pub fn with_state_store(mut self, store: Arc<dyn forms_ask::Store>) -> FormsServer {
        self.asker = self.asker.with_state_store(store);
        self
    }

    /// The same server, remembering used multi-round-trip request states in `store`
    /// ([`FormAsker::with_used_states`]).
    pub fn with_used_states(mut self, store: Arc<dyn crate::state::UsedStates>) -> FormsServer {
        self.asker = self.asker.with_used_states(store);
        self
    }

    /// The same server whose Data tool also asks clients with core form elicitation but
    /// without the extension, through a core `elicitation/create` compiled from the form
    /// (an extension of the Data contract, which answers such clients `unsupported_client`;
    /// a form with a `files` question still does). Off by default.
    pub fn with_core_fallback(mut self, on: bool) -> FormsServer {
        self.asker = self.asker.with_core_fallback(on);
        self
    }

    /// The same server whose Data tool also asks clients with URL-mode elicitation but
    /// without the extension (protocol 2025-11-25) on the person's page, served by this
    /// process on 127.0.0.1 ([`FormAsker::with_url_mode`]): a form a core form does not carry
    /// whole, or every form when the client has no core form mode or `page_preferred`. Off by
    /// default (an extension of the Data contract).
    pub fn with_url_mode(mut self, on: bool, page_preferred: bool) -> FormsServer {
        self.asker = self
            .asker
            .with_url_mode(on)
            .with_page_preferred(page_preferred);
        self
    }

    /// The same server, holding at most `max` URL-mode pages open at once
    /// ([`FormAsker::with_max_pages`]; [`crate::page::DEFAULT_MAX_PAGES`] by default): a call
    /// that would open one more ends in `transport_error` without asking.
    pub fn with_max_pages(mut self, max: usize) -> FormsServer {
        self.asker = self.asker.with_max_pages(max);
        self
    }

    /// The routes of the URL-mode pages on the `--http` listener, under `prefix`, when URL
    /// mode is on.
    pub(crate) fn page_router(&self, prefix: &str) -> Option<axum::Router> {
        self.asker.page_router(prefix)
    }

    /// How long a call waits for the host's answer.
    pub fn timeout(&self) -> Duration {
        self.asker.timeout()
    }

    /// One call of the Data tool: the whole adapter flow, ending in the result envelope.
    /// Never an MCP error: every failure is one of the six codes. On protocol 2026-07-28
    /// and later the first call gives an input-required result and the retried call (with
    /// the request state and the input responses) the envelope.
    pub async fn run_call(
        &self,
        request: &CallToolRequestParams,
        ctx: &RequestContext<RoleServer>,
    ) -> CallToolResponse {
        self.ask_data(&FormCall::new(request, ctx)).await
    }

    /// The Data tool's call `call`: its arguments are the form.
    async fn ask_data(&self, call: &FormCall) -> CallToolResponse {
        let empty = serde_json::Map::new();
        let form = match DataForm::from_object(call.arguments().unwrap_or(&empty)) {
            Ok(form) => form,
            Err(error) => return error_response(&error),
        };
        match self.asker.ask_data(&form, call).await {
            Asked::Done(result) => envelope(&ToolResult::from_result(&result)),
            Asked::InputRequired(result) => CallToolResponse::InputRequired(result),
        }
    }
}

/// The tool as rmcp lists it, made from the runtime's descriptor (the one `forms descriptor`
/// prints).
pub fn tool() -> Tool {
    static TOOL: OnceLock<Option<Tool>> = OnceLock::new();
    TOOL.get_or_init(|| {
        serde_json::to_value(tool_descriptor())
            .ok()
            .and_then(|value| serde_json::from_value(value).ok())
    })
    .clone()
    .unwrap_or_else(|| Tool::new(TOOL_NAME, "", Arc::new(serde_json::Map::new())))
}

/// Converts a result envelope into rmcp's tool result, built with rmcp's constructors
/// ([`CallToolResult::structured`] / [`CallToolResult::structured_error`]).
///
/// The result carries `resultType: "complete"`, as protocol 2026-07-28 requires of every
/// tool result; rmcp's server handler leaves it out for a peer on 2025-11-25 or older.
/// Everything else is the envelope as the contract writes it: `content[0].text` is exactly
/// [`ToolResult::text`], `structuredContent` the same JSON, and `isError` is `true` for an
/// error and absent otherwise, so that the result without `resultType` serializes to exactly
/// [`ToolResult::to_json`].
///
/// ```
/// use forms_runtime::mcp::ToolResult;
/// use forms_runtime::DataForm;
///
/// let error = DataForm::from_json("{}").unwrap_err();
/// let envelope = ToolResult::from_error(&error);
/// let mut result = forms_mcp::call_tool_result(&envelope).unwrap();
/// let wire = serde_json::to_value(&result).unwrap();
/// assert_eq!(wire["resultType"], "complete");
/// assert_eq!(wire["isError"], true);
/// result.result_type = None;
/// assert_eq!(serde_json::to_string(&result).unwrap(), envelope.to_json());
/// ```
///
/// # Errors
/// Only if the envelope's text is not JSON, which [`ToolResult`] never makes.
pub fn call_tool_result(result: &ToolResult) -> Result<CallToolResult, McpError> {
    let payload: serde_json::Value = serde_json::from_str(result.text())
        .map_err(|e| McpError::internal_error(e.to_string(), None))?;
    // The text as the runtime wrote it, never a re-serialization of the parsed value (rmcp's
    // `structured` would write one, only to be replaced).
    let content = vec![ContentBlock::text(result.text())];
    let mut built = if result.is_error() {
        CallToolResult::error(content)
    } else {
        let mut built = CallToolResult::success(content);
        // The contract's success envelope has no `isError` at all.
        built.is_error = None;
        built
    };
    built.structured_content = Some(payload);
    Ok(built)
}

impl ServerHandler for FormsServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("forms-mcp", env!("CARGO_PKG_VERSION")))
            .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
            .with_instructions(
                "One tool, form_elicitation_v2_request: asks the user a native form and waits \
                 for the submission.",
            )
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&PROTOCOL_VERSION_MAX))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools.list_all()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.get(name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if !self.tools.has_route(&request.name) {
            return Err(McpError::invalid_params(
                format!(
                    "unknown tool {:?}",
                    request.name.chars().take(80).collect::<String>()
                ),
                None,
            ));
        }
        self.tools
            .call(ToolCallContext::new(self, request, ctx))
            .await
    }
}
