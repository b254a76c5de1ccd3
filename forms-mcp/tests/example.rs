//! The example server `report_server` (an ordinary tool that asks a typed form on the way),
//! run as a real child process and driven by the scripted host, on both transports.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

use forms_test_kit::bins;
mod common;

use common::*;
use rmcp::model::{CallToolRequestParams, CallToolResponse};
use serde_json::{json, Value};
use std::path::PathBuf;
use tokio::process::Command;

/// The example's binary, built on demand.
fn example_binary() -> PathBuf {
    bins::example("report_server")
}

fn example_command() -> Command {
    let mut command = Command::new(example_binary());
    command
        .env("DATA_FORMS_TIMEOUT_MS", "5000")
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true);
    command
}

fn tool(name: &'static str) -> CallToolRequestParams {
    CallToolRequestParams::new(name)
}

/// Calls the example's tool `name` once, on a connection of its own from `host`.
async fn call_once(host: Host, name: &'static str) -> rmcp::model::CallToolResult {
    let client = connect_command(host, example_command()).await;
    let result = client.call_tool(tool(name)).await.unwrap();
    client.cancel().await.unwrap();
    result
}

fn text_of(result: &rmcp::model::CallToolResult) -> String {
    serde_json::to_value(result).unwrap()["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn scripted(params: &Value) -> Reply {
    // Legacy requests carry the native schema at the top, multi-round-trip ones under _meta.
    let schema = if params["requestedSchema"]["properties"] == json!({}) {
        params["_meta"]["openai/elicitation"]["requestedSchema"].clone()
    } else {
        params["requestedSchema"].clone()
    };
    let properties = schema["properties"].as_object().unwrap();
    let keys: Vec<&str> = properties.keys().map(String::as_str).collect();
    Reply::Answer(match keys.as_slice() {
        ["goal", "format"] => json!({"action": "accept",
            "content": {"goal": "churn by region", "format": "Html"}}),
        ["answer"] => json!({"action": "accept", "content": {"answer": "Ada"}}),
        ["format"] => json!({"action": "accept", "content": {"format": "Pdf"}}),
        other => panic!("unexpected form {other:?}"),
    })
}

/// Calls the example's `weekly_report` and `greet` tools, checking the text each returns.
async fn weekly_report_then_greet(client: &rmcp::service::RunningService<rmcp::RoleClient, Host>) {
    let result = client.call_tool(tool("weekly_report")).await.unwrap();
    assert_eq!(
        text_of(&result),
        "Weekly report as a web page about churn by region."
    );
    let result = client.call_tool(tool("greet")).await.unwrap();
    assert_eq!(text_of(&result), "Hello, Ada!");
}

#[tokio::test]
async fn example_server_asks_typed_forms_on_the_way_over_the_legacy_transport() {
    let host = Host::new(native_caps(), scripted);
    let client = connect_command(host.clone(), example_command()).await;
    weekly_report_then_greet(&client).await;
    let result = client.call_tool(tool("pick_format")).await.unwrap();
    assert_eq!(text_of(&result), "Format: PDF.");
    let requests = host.requests();
    assert_eq!(requests.len(), 3);
    assert!(requests
        .iter()
        .all(|(m, _)| m == "openai/elicitation/create"));
    // The one text question's title repeats the message, so the native header is empty (N10).
    assert_eq!(requests[1].1["message"], "");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn example_server_asks_typed_forms_over_multi_round_trip() {
    let host = Host::new(native_caps(), scripted).modern();
    let client = connect_command(host.clone(), example_command()).await;
    weekly_report_then_greet(&client).await;
    assert!(host
        .requests()
        .iter()
        .all(|(m, _)| m == "elicitation/create"));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn example_server_declined_and_unsupported_and_invalid_answers() {
    let host = Host::answering(json!({"action": "decline"}));
    let result = call_once(host, "weekly_report").await;
    assert_eq!(text_of(&result), "The person chose to decline the form.");

    // A host with core elicitation only is asked through a core elicitation/create.
    let host = Host::new(core_caps(), scripted);
    let result = call_once(host.clone(), "greet").await;
    assert_eq!(text_of(&result), "Hello, Ada!");
    let requests = host.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].0, "elicitation/create");
    assert_eq!(
        requests[0].1["requestedSchema"]["properties"]["answer"]["minLength"], 1,
        "{:?}",
        requests[0].1
    );

    // A host without any form elicitation cannot be asked.
    let host = Host::new(json!({}), scripted);
    let result = call_once(host, "greet").await;
    assert_eq!(code(&payload(&result)), Some("unsupported_client"));

    let host = Host::answering(json!({"action": "accept", "content": {"format": "Docx"}}));
    let result = call_once(host, "pick_format").await;
    assert_invalid_response(&result, "(V4)");
}

fn with_arguments(mut call: CallToolRequestParams, arguments: Value) -> CallToolRequestParams {
    call.arguments = Some(arguments.as_object().unwrap().clone());
    call
}

fn answered(mut call: CallToolRequestParams, state: Option<String>) -> CallToolRequestParams {
    let answer = json!({"action": "accept", "content": {"goal": "churn", "format": "Pdf"}});
    call.request_state = state;
    call.input_responses = Some([("form".to_owned(), answer)].into_iter().collect());
    call
}

/// `weekly_report` takes `Parameters` before its `FormCall`, so the arguments are gone from
/// the tool call by the time the ask reads it: the state is still bound to them (the
/// transport kept them), on a core-only host too.
#[tokio::test]
async fn example_server_binds_the_state_to_the_arguments_parameters_took() {
    for caps in [native_caps(), core_caps()] {
        let host = Host::new(caps.clone(), scripted).modern();
        let client = connect_command(host.clone(), example_command()).await;
        let sales = with_arguments(tool("weekly_report"), json!({"team": "Sales"}));
        let result = client.call_tool(sales.clone()).await.unwrap();
        assert_eq!(
            text_of(&result),
            "Weekly report for Sales as a web page about churn by region.",
            "{caps}"
        );
        let first_round = |call: CallToolRequestParams| {
            let client = &client;
            async move {
                match client.call_tool_once(call).await.unwrap() {
                    CallToolResponse::InputRequired(result) => result.request_state,
                    other => panic!("expected input required, got {other:?}"),
                }
            }
        };
        let done = |call: CallToolRequestParams| {
            let client = &client;
            async move {
                match client.call_tool_once(call).await.unwrap() {
                    CallToolResponse::Complete(result) => result,
                    other => panic!("expected a result, got {other:?}"),
                }
            }
        };
        // A state issued for Sales, retried for Ops: refused.
        let state = first_round(sales.clone()).await;
        let ops = with_arguments(tool("weekly_report"), json!({"team": "Ops"}));
        let result = done(answered(ops, state)).await;
        assert_eq!(code(&payload(&result)), Some("invalid_response"), "{caps}");
        // Retried with the arguments it was issued for: answered.
        let state = first_round(sales.clone()).await;
        let result = done(answered(sales.clone(), state)).await;
        assert_eq!(
            text_of(&result),
            "Weekly report for Sales as a PDF about churn.",
            "{caps}"
        );
        // An argument the tool does not take is refused by its closed parameters.
        let unknown = with_arguments(tool("weekly_report"), json!({"principal": "root"}));
        let result = done(unknown).await;
        assert_eq!(result.is_error, Some(true), "{caps}");
        client.cancel().await.unwrap();
    }
}

/// `quick_report` asks with `?`: the accepted answer is the value on both transports, and a
/// decline, a refusal and an unsupported client leave the function as the same tool results
/// the explicit `Asked` form returns (the Data envelopes), not as JSON-RPC errors.
#[tokio::test]
async fn example_server_asks_with_the_question_mark() {
    for modern in [false, true] {
        let host = Host::new(native_caps(), scripted);
        let host = if modern { host.modern() } else { host };
        let result = call_once(host, "quick_report").await;
        assert_eq!(
            text_of(&result),
            "Quick report as a web page about churn by region.",
            "modern: {modern}"
        );
    }

    let host = Host::answering(json!({"action": "decline"}));
    let result = call_once(host, "quick_report").await;
    assert_eq!(payload(&result), json!({"action": "decline"}));
    assert_ne!(result.is_error, Some(true));

    let host = Host::answering(json!({"action": "accept", "content": {"format": "Docx"}}));
    let result = call_once(host, "quick_report").await;
    assert_eq!(code(&payload(&result)), Some("invalid_response"));
    assert_eq!(result.is_error, Some(true));

    let host = Host::new(json!({}), scripted);
    let result = call_once(host, "quick_report").await;
    assert_eq!(code(&payload(&result)), Some("unsupported_client"));
}
