//! An rmcp `#[tool]` server that asks typed forms, served over rmcp's stdio: the guide's "Ask a
//! typed form from your own rmcp tool" (docs/04-mcp-serving-and-asking.md) shows this file
//! (`cargo run -p forms-mcp --example rmcp_tool`).

use forms_mcp::{FormAsker, FormCall};
use forms_runtime::{data::ResourceOption, Form, Url};
use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{CallToolResult, ContentBlock, ProtocolVersion};
use rmcp::{schemars, tool, tool_handler, tool_router, ErrorData as McpError};
use rmcp::{ServerHandler, ServiceExt};

/// A static form: its questions are known when the crate compiles.
#[derive(Form)]
#[form(message = "Plan the trip")]
struct Trip {
    /// Where to?
    destination: String,
    /// Anything we should know?
    notes: Option<String>,
}

/// A form with run-time options: the templates a search found.
#[derive(Form)]
#[form(message = "Pick a template")]
struct Pick {
    /// Template
    #[form(resource)]
    template: Url,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct SearchArgs {
    /// What the template is for
    topic: String,
}

#[derive(Clone)]
struct Tools {
    forms: FormAsker,
    tool_router: ToolRouter<Tools>,
}

/// A stand-in for a real search: two templates, none for the topic "nothing".
fn search(topic: &str) -> Vec<ResourceOption> {
    if topic == "nothing" {
        return Vec::new();
    }
    ["report", "memo"]
        .map(|name| {
            let uri = format!("https://templates.example/{topic}/{name}");
            ResourceOption::new(uri, name, format!("{topic} {name}"))
        })
        .to_vec()
}

fn text(text: String) -> Result<CallToolResult, McpError> {
    Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
}

#[tool_router]
impl Tools {
    /// Plans a trip, asking the person where to.
    #[tool]
    async fn plan_trip(&self, call: FormCall) -> Result<CallToolResult, McpError> {
        // Anything but an accepted answer leaves through `?` as the tool result the model
        // gets: the input-required result of protocol 2026-07-28 (the client shows the form
        // and retries the call with the answer), {"action":"decline"} or "cancel", or the
        // error of a refused answer, a client without forms or a time-out.
        let trip = call.ask::<Trip>(&self.forms).await?;
        let notes = trip.notes.unwrap_or_default();
        text(format!("Trip to {} ({notes}).", trip.destination))
    }

    /// Finds templates for a topic and asks the person which one to use.
    #[tool]
    async fn pick_template(
        &self,
        Parameters(args): Parameters<SearchArgs>,
        call: FormCall,
    ) -> Result<CallToolResult, McpError> {
        // Built on every round, the same way: the retry is checked against the form shown.
        // A required question with nothing to offer is this tool's error, not the model's.
        let pick = call
            .ask_parts::<Pick>(
                &self.forms,
                PickParts {
                    template: search(&args.topic),
                },
            )
            .await?;
        text(format!("Template: {}.", pick.template))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Tools {
    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        ProtocolVersion::known_up_to(&ProtocolVersion::V_2026_07_28).into()
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let forms = FormAsker::new(forms_mcp::config::timeout_from_env()?);
    let tools = Tools {
        forms,
        // `asking` turns an ask's `?` into the tool result the model gets.
        tool_router: forms_mcp::asking(Tools::tool_router()),
    };
    // `keep` keeps the host's answers as sent, which asks on protocol 2025-11-25 need.
    let transport = forms_mcp::transport::keep(rmcp::transport::stdio());
    tools.serve(transport).await?.waiting().await?;
    Ok(())
}
