//! The `form_elicitation_v2_request` tool server: rmcp's [`ServerHandler`] for the Data tool.

use crate::capability::legacy_form_support;
use crate::legacy;
use forms_runtime::mcp::{tool_descriptor, ToolResult, TOOL_NAME};
use forms_runtime::{DataForm, ErrorCode, FormError};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use std::borrow::Cow;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// The newest protocol version this server speaks: the legacy transport, on which the server
/// sends `openai/elicitation/create` to the host in the middle of the tool call.
pub const MAX_PROTOCOL_VERSION: ProtocolVersion = ProtocolVersion::V_2025_11_25;

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
/// server.serve(rmcp::transport::stdio()).await?.waiting().await?;
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct FormsServer {
    timeout: Duration,
}

impl FormsServer {
    /// A server that waits at most `timeout` for each submission.
    pub fn new(timeout: Duration) -> FormsServer {
        FormsServer { timeout }
    }

    /// How long a call waits for the host's answer.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// One tool call with the Data arguments `arguments`: the whole adapter flow, ending in
    /// the result envelope. Never an MCP error: every failure is one of the six codes.
    pub async fn run_call(
        &self,
        arguments: serde_json::Value,
        ctx: &RequestContext<RoleServer>,
    ) -> ToolResult {
        match self.ask(&arguments, ctx).await {
            Ok(result) => result,
            Err(error) => ToolResult::from_error(&error),
        }
    }

    async fn ask(
        &self,
        arguments: &serde_json::Value,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<ToolResult, FormError> {
        let form = DataForm::from_value(arguments)?;
        if !legacy_form_support(ctx.client_capabilities().as_ref()) {
            return Err(unsupported_client());
        }
        let answer = legacy::elicit(ctx, &form, self.timeout).await?;
        let outcome = form.check_response_value(&answer)?;
        Ok(ToolResult::from_outcome(&outcome))
    }
}

/// The `unsupported_client` error of a client without native form support.
pub(crate) fn unsupported_client() -> FormError {
    FormError::new(
        ErrorCode::UnsupportedClient,
        "the client did not advertise native form support \
         (capabilities.extensions[\"openai/elicitation\"].form)",
    )
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

/// Converts a result envelope into rmcp's tool result.
pub fn call_tool_result(result: &ToolResult) -> Result<CallToolResult, McpError> {
    serde_json::from_str(&result.to_json())
        .map_err(|e| McpError::internal_error(e.to_string(), None))
}

impl ServerHandler for FormsServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("forms-mcp", env!("CARGO_PKG_VERSION")))
            .with_protocol_version(MAX_PROTOCOL_VERSION)
            .with_instructions(
                "One tool, form_elicitation_v2_request: asks the user a native form and waits \
                 for the submission.",
            )
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&MAX_PROTOCOL_VERSION))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(vec![tool()]))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        (name == TOOL_NAME).then(tool)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if request.name != TOOL_NAME {
            return Err(McpError::invalid_params(
                format!(
                    "unknown tool {:?}",
                    request.name.chars().take(80).collect::<String>()
                ),
                None,
            ));
        }
        let arguments = serde_json::Value::Object(request.arguments.unwrap_or_default());
        let result = self.run_call(arguments, &ctx).await;
        call_tool_result(&result).map(CallToolResponse::Complete)
    }
}
