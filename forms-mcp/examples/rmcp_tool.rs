//! An rmcp `#[tool]` server that asks typed forms, served over rmcp's stdio: the guide's "Ask a
//! typed form from your own rmcp tool" (docs/04-mcp-serving-and-asking.md) shows this file
//! (`cargo run -p forms-mcp --example rmcp_tool`).

use forms_mcp::{error_response, Asked, FormAsker, FormCall};
use forms_runtime::{data::ResourceOption, Form, Outcome, Url};
use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock, ProtocolVersion};
use rmcp::{schemars, tool, tool_handler, tool_router, ServerHandler, ServiceExt};

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

fn text(text: String) -> CallToolResponse {
    CallToolResult::success(vec![ContentBlock::text(text)]).into()
}

/// What the model reads for each outcome of an ask.
fn reply<T>(asked: Asked<T>, accepted: impl FnOnce(T) -> String) -> CallToolResponse {
    match asked {
        // Protocol 2026-07-28: the client shows the form and retries the call with the answer.
        Asked::InputRequired(result) => result.into(),
        Asked::Done(Ok(Outcome::Accepted(answer))) => text(accepted(answer)),
        // "The person chose to decline the form." (or "cancel").
        Asked::Done(Ok(outcome)) => text(format!(
            "The person chose to {} the form.",
            outcome.action()
        )),
        // A refused answer, a client without forms, a time-out: an error result with its code.
        Asked::Done(Err(error)) => error_response(&error),
    }
}

#[tool_router]
impl Tools {
    /// Plans a trip, asking the person where to.
    #[tool]
    async fn plan_trip(&self, call: FormCall) -> CallToolResponse {
        let asked = self.forms.ask::<Trip>(&call).await;
        reply(asked, |trip| {
            format!(
                "Trip to {} ({}).",
                trip.destination,
                trip.notes.unwrap_or_default()
            )
        })
    }

    /// Finds templates for a topic and asks the person which one to use.
    #[tool]
    async fn pick_template(
        &self,
        Parameters(args): Parameters<SearchArgs>,
        call: FormCall,
    ) -> CallToolResponse {
        let found = ["report", "memo"].map(|name| {
            let uri = format!("https://templates.example/{}/{name}", args.topic);
            ResourceOption::new(uri, name, format!("{} {name}", args.topic))
        });
        // Built on every round, the same way: the retry is checked against the form shown.
        let form = match Pick::build(PickParts {
            template: found.to_vec(),
        }) {
            Ok(form) => form,
            Err(error) => {
                return CallToolResult::error(vec![ContentBlock::text(error.to_string())]).into()
            }
        };
        let asked = self.forms.ask_typed(&form, &call).await;
        reply(asked, |pick| format!("Template: {}.", pick.template))
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
        tool_router: Tools::tool_router(),
    };
    // `keep` keeps the host's answers as sent, which asks on protocol 2025-11-25 need.
    let transport = forms_mcp::transport::keep(rmcp::transport::stdio());
    tools.serve(transport).await?.waiting().await?;
    Ok(())
}
