//! An ordinary rmcp tool server that asks the person a typed form on the way.
//!
//! The tools are `#[tool]` functions of a `#[tool_router]` impl, as rmcp teaches; each one
//! that asks takes a [`FormCall`] beside its `Parameters`. `weekly_report` asks a derived form
//! (what to understand, which format) and writes a one-line report plan from the typed
//! answer; `greet` asks one text question without declaring a struct; `pick_format` asks one
//! choice enum. On protocol 2026-07-28 an ask's first round returns the input-required result
//! as it is, and the client's retry runs the same function again to the answer. Serves over
//! rmcp's stdio, through [`forms_mcp::transport::keep`] (which keeps the host's answers as sent):
//!
//! ```text
//! cargo run -p forms-mcp --example report_server
//! ```

use forms_mcp::{error_response, Asked, FormAsker, FormCall};
use forms_runtime::{Form, Outcome};
use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock, ProtocolVersion};
use rmcp::ErrorData as McpError;
use rmcp::{schemars, tool, tool_handler, tool_router, ServerHandler, ServiceExt};
use serde::Deserialize;
use std::borrow::Cow;

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

/// The arguments of `weekly_report`.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct ReportArgs {
    /// The team whose week the report covers (default: everyone).
    team: Option<String>,
}

#[derive(Clone)]
struct ReportServer {
    forms: FormAsker,
    tool_router: ToolRouter<ReportServer>,
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

#[tool_router]
impl ReportServer {
    fn new(forms: FormAsker) -> ReportServer {
        ReportServer {
            forms,
            // `asking` turns a stop that left a tool through `?` into its tool result.
            tool_router: forms_mcp::asking(Self::tool_router()),
        }
    }

    /// Plans the weekly report, asking how to set it up.
    #[tool]
    async fn weekly_report(
        &self,
        Parameters(args): Parameters<ReportArgs>,
        ask: FormCall,
    ) -> CallToolResponse {
        let setup = match self.forms.ask::<Setup>(&ask).await {
            Asked::InputRequired(result) => return result.into(),
            Asked::Done(Ok(Outcome::Accepted(setup))) => setup,
            Asked::Done(Ok(outcome)) => return not_answered(&outcome),
            Asked::Done(Err(error)) => return error_response(&error),
        };
        let goal = setup.goal.as_deref().unwrap_or("the usual metrics");
        let team = args
            .team
            .map(|team| format!(" for {team}"))
            .unwrap_or_default();
        text(format!(
            "Weekly report{team} as a {} about {goal}.",
            setup.format.name()
        ))
    }

    /// Plans the weekly report in one line of asking: every outcome but an accepted answer
    /// (the input-required round, a decline or cancel, a refusal) leaves through `?` as the
    /// tool result the model gets.
    #[tool]
    async fn quick_report(&self, ask: FormCall) -> Result<CallToolResult, McpError> {
        let setup = ask.ask::<Setup>(&self.forms).await?;
        let goal = setup.goal.as_deref().unwrap_or("the usual metrics");
        let text = format!("Quick report as a {} about {goal}.", setup.format.name());
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
    }

    /// Greets the person by name.
    #[tool]
    async fn greet(&self, ask: FormCall) -> CallToolResponse {
        match self.forms.ask_text("What's your name?", &ask).await {
            Asked::InputRequired(result) => result.into(),
            Asked::Done(Ok(Outcome::Accepted(name))) => text(format!("Hello, {name}!")),
            Asked::Done(Ok(outcome)) => not_answered(&outcome),
            Asked::Done(Err(error)) => error_response(&error),
        }
    }

    /// Asks which report format to use.
    #[tool]
    async fn pick_format(&self, ask: FormCall) -> CallToolResponse {
        match self.forms.ask_choice::<Format>(&ask).await {
            Asked::InputRequired(result) => result.into(),
            Asked::Done(Ok(Outcome::Accepted(format))) => {
                text(format!("Format: {}.", format.name()))
            }
            Asked::Done(Ok(outcome)) => not_answered(&outcome),
            Asked::Done(Err(error)) => error_response(&error),
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for ReportServer {
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2026_07_28))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let forms = FormAsker::new(forms_mcp::config::timeout_from_env()?);
    ReportServer::new(forms)
        .serve(forms_mcp::transport::keep(rmcp::transport::stdio()))
        .await?
        .waiting()
        .await?;
    Ok(())
}
