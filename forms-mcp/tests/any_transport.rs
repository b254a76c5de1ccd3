//! `forms_mcp::transport::keep` over transports rmcp serves on (an in-process duplex here;
//! rmcp's stdio in the example server's tests), and the refusal of a server served without
//! it: the tool call fails at once with an error naming the fix, on both generations.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod common;

use common::{native_caps, payload, Host};
use forms_mcp::{error_response, Asked, FormAsker, FormCall};
use forms_runtime::DataForm;
use forms_runtime::{Form, Outcome};
use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ProtocolVersion,
};
use rmcp::{schemars, tool, tool_handler, tool_router, ServerHandler, ServiceExt};
use serde_json::json;
use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Pick a colour
#[derive(Form)]
#[form(message = "Pick a colour")]
struct Pick {
    /// Colour
    colour: Colour,
}

/// Colour
#[derive(Form)]
enum Colour {
    /// Red
    Red,
    /// Blue
    Blue,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct PaintArgs {
    /// What to paint
    thing: String,
}

#[derive(Clone)]
struct Painter {
    forms: FormAsker,
    /// How many times `choose` built its form: its options change with each build when
    /// `changing`.
    builds: Arc<AtomicUsize>,
    changing: bool,
    tool_router: ToolRouter<Painter>,
}

#[tool_router]
impl Painter {
    /// Paints a thing in the colour the person picks.
    #[tool]
    async fn paint(
        &self,
        Parameters(args): Parameters<PaintArgs>,
        call: FormCall,
    ) -> CallToolResponse {
        match self.forms.ask::<Pick>(&call).await {
            Asked::InputRequired(result) => result.into(),
            Asked::Done(Ok(Outcome::Accepted(pick))) => {
                let colour = match pick.colour {
                    Colour::Red => "red",
                    Colour::Blue => "blue",
                };
                CallToolResult::success(vec![ContentBlock::text(format!(
                    "{} painted {colour}",
                    args.thing
                ))])
                .into()
            }
            Asked::Done(Ok(_)) => {
                CallToolResult::success(vec![ContentBlock::text("no paint")]).into()
            }
            Asked::Done(Err(error)) => error_response(&error),
        }
    }
}

#[tool_router(router = choose_router)]
impl Painter {
    /// Asks the person to choose among run-time options (rebuilt on every call).
    #[tool]
    async fn choose(&self, call: FormCall) -> CallToolResponse {
        let build = self.builds.fetch_add(1, Ordering::SeqCst);
        let extra = if self.changing {
            format!("new{build}")
        } else {
            "new".to_owned()
        };
        let form = DataForm::from_json(
            &json!({"message": "Choose one", "questions": [
                {"id": "item", "type": "single_select", "title": "Item", "required": true,
                 "options": [{"id": "a", "title": "A"}, {"id": extra, "title": "Fresh"}]}]})
            .to_string(),
        )
        .unwrap();
        match self.forms.ask_data(&form, &call).await {
            Asked::InputRequired(result) => result.into(),
            Asked::Done(Ok(Outcome::Accepted(answers))) => {
                CallToolResult::success(vec![ContentBlock::text(format!(
                    "chose {:?}",
                    answers.choice("item")
                ))])
                .into()
            }
            Asked::Done(Ok(_)) => CallToolResult::success(vec![ContentBlock::text("none")]).into(),
            Asked::Done(Err(error)) => error_response(&error),
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Painter {
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2026_07_28))
    }
}

fn painter() -> Painter {
    Painter {
        forms: FormAsker::new(Duration::from_secs(5)),
        builds: Arc::default(),
        changing: true,
        tool_router: Painter::tool_router() + Painter::choose_router(),
    }
}

fn paint() -> CallToolRequestParams {
    CallToolRequestParams::new("paint")
        .with_arguments(json!({"thing": "fence"}).as_object().unwrap().clone())
}

fn text_of(result: &CallToolResult) -> String {
    result.content[0].as_text().unwrap().text.clone()
}

/// Serves a painter over an in-process duplex, through `keep` or bare, and connects `host`.
async fn connect(host: Host, kept: bool) -> rmcp::service::RunningService<rmcp::RoleClient, Host> {
    connect_to(painter(), host, kept).await
}

async fn connect_to(
    painter: Painter,
    host: Host,
    kept: bool,
) -> rmcp::service::RunningService<rmcp::RoleClient, Host> {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let running = if kept {
            painter.serve(forms_mcp::transport::keep(server_io)).await
        } else {
            painter.serve(tokio::io::split(server_io)).await
        };
        if let Ok(running) = running {
            let _ = running.waiting().await;
        }
    });
    common::connect_transport(host, tokio::io::split(client_io)).await
}

#[tokio::test]
async fn keep_over_a_duplex_asks_on_both_generations_and_judges_the_text_as_sent() {
    let accept = json!({"action": "accept", "content": {"colour": "Blue"}});
    for modern in [false, true] {
        let host = Host::answering(accept.clone());
        let host = if modern { host.modern() } else { host };
        let client = connect(host, true).await;
        let result = client.call_tool(paint()).await.unwrap();
        assert_eq!(text_of(&result), "fence painted blue", "modern: {modern}");
        client.cancel().await.unwrap();
    }
    // An unknown top-level key, which rmcp's typed reading would drop: judged as sent.
    let host = Host::answering(json!({"action": "accept", "content": {"colour": "Red"}, "x": 1}));
    let client = connect(host, true).await;
    let result = client.call_tool(paint()).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    assert_eq!(payload(&result)["error"]["code"], "invalid_response");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_server_served_without_keep_fails_the_first_tool_call_naming_the_fix() {
    for modern in [false, true] {
        let host = Host::new(native_caps(), |_| panic!("no form may be sent"));
        let host = if modern { host.modern() } else { host };
        let client = connect(host.clone(), false).await;
        let error = client.call_tool(paint()).await.unwrap_err().to_string();
        assert!(
            error.contains("forms_mcp::transport::keep"),
            "modern: {modern}: {error}"
        );
        assert!(host.requests().is_empty());
        client.cancel().await.unwrap();
    }
}

/// A form rebuilt with other options between the first round and the retry (2026-07-28) is
/// refused with its own message naming the question that changed, not blaming the arguments
/// or the caller; rebuilt the same, it is accepted. On 2025-11-25 each call is one round, so
/// options that change from call to call are fine.
#[tokio::test]
async fn options_that_change_between_rounds_are_named_not_blamed_on_the_arguments() {
    let answer = json!({"action": "accept", "content": {"item": "a"}});
    for changing in [true, false] {
        let host = Host::answering(answer.clone()).modern();
        let mut server = painter();
        server.changing = changing;
        let client = connect_to(server, host, true).await;
        let first = client
            .call_tool_once(CallToolRequestParams::new("choose"))
            .await
            .unwrap();
        let CallToolResponse::InputRequired(first) = first else {
            panic!("expected input required, got {first:?}")
        };
        let mut retry = CallToolRequestParams::new("choose");
        retry.request_state = first.request_state;
        retry.input_responses = Some([("form".to_owned(), answer.clone())].into_iter().collect());
        let CallToolResponse::Complete(result) = client.call_tool_once(retry).await.unwrap() else {
            panic!("expected a complete result")
        };
        if changing {
            let error = &payload(&result)["error"];
            assert_eq!(error["code"], "invalid_response");
            let message = error["message"].as_str().unwrap();
            assert!(message.contains("question \"item\" changed"), "{message}");
            assert!(
                !message.contains("arguments") && !message.contains("caller"),
                "{message}"
            );
        } else {
            assert_eq!(text_of(&result), "chose Some(\"a\")");
        }
        client.cancel().await.unwrap();
    }
    let client = connect(Host::answering(answer.clone()), true).await;
    for _ in 0..2 {
        let result = client
            .call_tool(CallToolRequestParams::new("choose"))
            .await
            .unwrap();
        assert_eq!(text_of(&result), "chose Some(\"a\")");
    }
    client.cancel().await.unwrap();
}

/// A state altered on its way is refused for its integrity, without blaming the arguments,
/// which are the same.
#[tokio::test]
async fn an_altered_state_is_refused_without_blaming_the_same_arguments() {
    let answer = json!({"action": "accept", "content": {"colour": "Red"}});
    let client = connect(Host::answering(answer.clone()).modern(), true).await;
    let CallToolResponse::InputRequired(first) = client.call_tool_once(paint()).await.unwrap()
    else {
        panic!("expected input required")
    };
    let mut state = first.request_state.unwrap();
    let last = state.pop().unwrap();
    state.push(if last == 'A' { 'B' } else { 'A' });
    let mut retry = paint();
    retry.request_state = Some(state);
    retry.input_responses = Some([("form".to_owned(), answer)].into_iter().collect());
    let CallToolResponse::Complete(result) = client.call_tool_once(retry).await.unwrap() else {
        panic!("expected a complete result")
    };
    let message = payload(&result)["error"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(message.contains("integrity"), "{message}");
    assert!(!message.contains("arguments"), "{message}");
    client.cancel().await.unwrap();
}
