//! An ordinary MCP tool server that asks the person a typed form on the way.
//!
//! `weekly_report` asks a derived form (what to understand, which format) and writes a
//! one-line report plan from the typed answer; `greet` asks one text question without
//! declaring a struct; `pick_format` asks one choice enum. Serves over stdio:
//!
//! ```text
//! cargo run -p forms-mcp --example report_server
//! ```

use forms_mcp::{error_response, Asked, FormAsker};
use forms_runtime::{Form, Outcome};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use std::borrow::Cow;
use std::sync::Arc;

/// The report set-up the tool asks for.
#[derive(Form, Debug)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// What would you like to understand?
    goal: Option<String>,
    /// Report format
    format: Format,
}

/// Report format
#[derive(Form, Debug, Clone, Copy)]
#[form(message = "Which format should the report use?")]
enum Format {
    /// PDF
    Pdf,
    /// Web page
    Html,
}

impl Format {
    fn name(self) -> &'static str {
        match self {
            Format::Pdf => "PDF",
            Format::Html => "web page",
        }
    }
}

#[derive(Clone)]
struct ReportServer {
    asker: FormAsker,
}

fn text(text: String) -> CallToolResponse {
    CallToolResult::success(vec![ContentBlock::text(text)]).into()
}

fn not_answered<T>(outcome: &Outcome<T>) -> CallToolResponse {
    text(format!(
        "The person chose to {} the form.",
        outcome.action()
    ))
}

impl ReportServer {
    async fn weekly_report(
        &self,
        request: &CallToolRequestParams,
        ctx: &RequestContext<RoleServer>,
    ) -> CallToolResponse {
        let setup = match self.asker.ask_form::<Setup>(request, ctx).await {
            Asked::InputRequired(result) => return result.into(),
            Asked::Done(Ok(Outcome::Accepted(setup))) => setup,
            Asked::Done(Ok(outcome)) => return not_answered(&outcome),
            Asked::Done(Err(error)) => return error_response(&error),
        };
        let goal = setup.goal.as_deref().unwrap_or("the usual metrics");
        text(format!(
            "Weekly report as a {} about {goal}.",
            setup.format.name()
        ))
    }

    async fn greet(
        &self,
        request: &CallToolRequestParams,
        ctx: &RequestContext<RoleServer>,
    ) -> CallToolResponse {
        match self.asker.ask_text("What's your name?", request, ctx).await {
            Asked::InputRequired(result) => result.into(),
            Asked::Done(Ok(Outcome::Accepted(name))) => text(format!("Hello, {name}!")),
            Asked::Done(Ok(outcome)) => not_answered(&outcome),
            Asked::Done(Err(error)) => error_response(&error),
        }
    }

    async fn pick_format(
        &self,
        request: &CallToolRequestParams,
        ctx: &RequestContext<RoleServer>,
    ) -> CallToolResponse {
        match self.asker.ask_choice::<Format>(request, ctx).await {
            Asked::InputRequired(result) => result.into(),
            Asked::Done(Ok(Outcome::Accepted(format))) => {
                text(format!("Format: {}.", format.name()))
            }
            Asked::Done(Ok(outcome)) => not_answered(&outcome),
            Asked::Done(Err(error)) => error_response(&error),
        }
    }
}

fn tool(name: &'static str, description: &'static str) -> Tool {
    let schema = serde_json::json!({"type": "object", "properties": {}});
    let serde_json::Value::Object(schema) = schema else {
        unreachable!("an object literal")
    };
    Tool::new(name, description, Arc::new(schema))
}

impl ServerHandler for ReportServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2026_07_28))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(vec![
            tool(
                "weekly_report",
                "Plans the weekly report, asking how to set it up.",
            ),
            tool("greet", "Greets the person by name."),
            tool("pick_format", "Asks which report format to use."),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        match request.name.as_ref() {
            "weekly_report" => Ok(self.weekly_report(&request, &ctx).await),
            "greet" => Ok(self.greet(&request, &ctx).await),
            "pick_format" => Ok(self.pick_format(&request, &ctx).await),
            other => Err(McpError::invalid_params(
                format!("unknown tool {other:?}"),
                None,
            )),
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = ReportServer {
        asker: FormAsker::new(forms_mcp::config::timeout_from_env()?),
    };
    server
        .serve(forms_mcp::transport::stdio())
        .await?
        .waiting()
        .await?;
    Ok(())
}
