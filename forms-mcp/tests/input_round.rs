//! The multi-round-trip transport (protocol 2026-07-28) end to end, over stdio and HTTP: the
//! input-required result, the sealed request state and the raw answer check.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod common;

use common::*;
use rmcp::model::{CallToolRequestParams, CallToolResponse, CallToolResult, InputRequiredResult};
use rmcp::service::RunningService;
use rmcp::RoleClient;
use serde_json::{json, Value};
use std::time::Duration;

fn modern(caps: Value) -> Host {
    Host::new(caps, |_| Reply::Answer(json!({"action": "decline"}))).modern()
}

async fn first_round(
    client: &RunningService<RoleClient, Host>,
    form: Value,
) -> InputRequiredResult {
    match client.call_tool_once(call(form)).await.unwrap() {
        CallToolResponse::InputRequired(result) => result,
        other => panic!("expected input required, got {other:?}"),
    }
}

async fn retry(
    client: &RunningService<RoleClient, Host>,
    form: Value,
    state: Option<String>,
    answer: Option<Value>,
) -> CallToolResult {
    let mut params: CallToolRequestParams = call(form);
    params.request_state = state;
    params.input_responses = answer.map(|a| [("form".to_owned(), a)].into_iter().collect());
    match client.call_tool_once(params).await.unwrap() {
        CallToolResponse::Complete(result) => result,
        other => panic!("expected a result, got {other:?}"),
    }
}

fn accept_pdf() -> Value {
    json!({"action": "accept", "content": {"format": "pdf"}})
}

#[tokio::test]
async fn input_round_rmcp_client_rounds_reach_an_accepted_answer() {
    let host = Host::new(native_caps(), |params| {
        // The real schema travels under _meta; the core schema is empty.
        assert_eq!(
            params["requestedSchema"],
            json!({"type": "object", "properties": {}})
        );
        let schema = &params["_meta"]["openai/elicitation"]["requestedSchema"];
        assert_eq!(schema["properties"]["format"]["oneOf"][1]["const"], "html");
        Reply::Answer(json!({"action": "accept", "content": {"format": "html"}}))
    })
    .modern();
    let client = connect_stdio(host.clone(), 5_000).await;
    let result = client.call_tool(call(report_form())).await.unwrap();
    assert_eq!(
        payload(&result),
        json!({"action": "accept", "content": {"format": "html"}})
    );
    assert_eq!(host.requests().len(), 1);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn input_round_input_required_carries_the_native_schema_under_meta() {
    let client = connect_stdio(modern(native_caps()), 5_000).await;
    let result = first_round(&client, report_form()).await;
    let wire = serde_json::to_value(&result).unwrap();
    assert_eq!(wire["resultType"], "input_required");
    let request = &wire["inputRequests"]["form"];
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["mode"], "form");
    assert_eq!(request["params"]["message"], "Set up your weekly report");
    assert_eq!(
        request["params"]["requestedSchema"],
        json!({"type": "object", "properties": {}})
    );
    let form = forms_runtime::DataForm::from_value(&report_form()).unwrap();
    let native: Value = serde_json::from_str(form.native_json()).unwrap();
    assert_eq!(
        request["params"]["_meta"]["openai/elicitation"]["requestedSchema"],
        native["requestedSchema"]
    );
    assert!(wire["requestState"].as_str().is_some_and(|s| !s.is_empty()));

    let state = result.request_state.clone();
    let done = retry(&client, report_form(), state, Some(accept_pdf())).await;
    assert_eq!(payload(&done), accept_pdf());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn input_round_answers_are_checked_as_raw_json() {
    let client = connect_stdio(modern(native_caps()), 5_000).await;
    for (answer, rule) in [
        // Unknown top-level keys and `content: null` are seen on this path (V1).
        (
            json!({"action": "accept", "content": {"format": "pdf"}, "extra": 1}),
            "V1",
        ),
        (json!({"action": "accept", "content": null}), "V1"),
        (
            json!({"action": "accept", "content": {"format": "docx"}}),
            "V4",
        ),
        (
            json!({"action": "accept", "content": {"format": "pdf", "other": "x"}}),
            "V2",
        ),
    ] {
        let state = first_round(&client, report_form()).await.request_state;
        let done = retry(&client, report_form(), state, Some(answer.clone())).await;
        let p = payload(&done);
        assert_eq!(code(&p), Some("invalid_response"), "{answer}: {p}");
        assert!(
            p["error"]["message"].as_str().unwrap().contains(rule),
            "{answer}: {p}"
        );
    }
    let state = first_round(&client, report_form()).await.request_state;
    let done = retry(
        &client,
        report_form(),
        state,
        Some(json!({"action": "decline"})),
    )
    .await;
    assert_eq!(payload(&done), json!({"action": "decline"}));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn input_round_tampered_foreign_and_replayed_states_are_invalid_responses() {
    let client = connect_stdio(modern(native_caps()), 5_000).await;
    // Tampered: one character of the tag changed.
    let state = first_round(&client, report_form())
        .await
        .request_state
        .unwrap();
    let mut tampered = state.clone().into_bytes();
    let last = tampered.len() - 2;
    tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(tampered).unwrap();
    for bad in [tampered, "rs1.garbage".to_owned(), String::new()] {
        let done = retry(
            &client,
            report_form(),
            Some(bad.clone()),
            Some(accept_pdf()),
        )
        .await;
        assert_eq!(code(&payload(&done)), Some("invalid_response"), "{bad}");
    }
    // Issued for other arguments.
    let mut other = report_form();
    other["message"] = json!("Another heading");
    let done = retry(&client, other, Some(state.clone()), Some(accept_pdf())).await;
    assert_eq!(code(&payload(&done)), Some("invalid_response"));
    // Issued by another server (another random key).
    let other_server = connect_stdio(modern(native_caps()), 5_000).await;
    let foreign = first_round(&other_server, report_form())
        .await
        .request_state;
    let done = retry(&client, report_form(), foreign, Some(accept_pdf())).await;
    assert_eq!(code(&payload(&done)), Some("invalid_response"));
    // Missing answer, then the good answer, then the same state again.
    let done = retry(&client, report_form(), Some(state.clone()), None).await;
    assert_invalid_response(&done, "inputResponses");
    let state = first_round(&client, report_form()).await.request_state;
    let done = retry(&client, report_form(), state.clone(), Some(accept_pdf())).await;
    assert_eq!(payload(&done), accept_pdf());
    let done = retry(&client, report_form(), state, Some(accept_pdf())).await;
    assert_invalid_response(&done, "already answered");
    other_server.cancel().await.unwrap();
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn input_round_an_expired_state_is_a_timeout() {
    let client = connect_stdio(modern(native_caps()), 200).await;
    let state = first_round(&client, report_form()).await.request_state;
    tokio::time::sleep(Duration::from_millis(350)).await;
    let done = retry(&client, report_form(), state, Some(accept_pdf())).await;
    assert_eq!(code(&payload(&done)), Some("timeout"));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn input_round_needs_both_form_capabilities() {
    for caps in [
        core_caps(),
        json!({"extensions": {"openai/elicitation": {"form": {}}}}),
        json!({}),
    ] {
        let client = connect_stdio(modern(caps.clone()), 5_000).await;
        let result = client.call_tool(call(report_form())).await.unwrap();
        assert_eq!(
            code(&payload(&result)),
            Some("unsupported_client"),
            "{caps}"
        );
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn input_round_instances_sharing_forms_state_key_accept_each_others_states() {
    let key = "0123456789abcdef".repeat(4);
    let with_key = || {
        let mut command = server_command(5_000);
        command.env("FORMS_STATE_KEY", &key);
        command
    };
    let a = connect_command(modern(native_caps()), with_key()).await;
    let b = connect_command(modern(native_caps()), with_key()).await;
    let state = first_round(&a, report_form()).await.request_state;
    let done = retry(&b, report_form(), state, Some(accept_pdf())).await;
    assert_eq!(payload(&done), accept_pdf());
    a.cancel().await.unwrap();
    b.cancel().await.unwrap();

    let output = server_command(5_000)
        .env("FORMS_STATE_KEY", "abcd")
        .stderr(std::process::Stdio::piped())
        .output()
        .await
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("FORMS_STATE_KEY"));
}

#[tokio::test]
async fn input_round_http_a_state_is_bound_to_its_caller() {
    let server = start_http(5_000).await;
    let alice = connect_http_as(modern(native_caps()), &server, Some("alice-token")).await;
    let bob = connect_http_as(modern(native_caps()), &server, Some("bob-token")).await;
    let state = first_round(&alice, report_form()).await.request_state;
    let done = retry(&bob, report_form(), state.clone(), Some(accept_pdf())).await;
    assert_eq!(code(&payload(&done)), Some("invalid_response"));
    let done = retry(&alice, report_form(), state, Some(accept_pdf())).await;
    assert_eq!(payload(&done), accept_pdf());

    // The automatic rounds of an rmcp client over HTTP, and the capability check.
    let host = Host::new(native_caps(), |_| {
        Reply::Answer(json!({"action": "accept", "content": {"format": "html"}}))
    })
    .modern();
    let client = connect_http(host, &server).await;
    let result = client.call_tool(call(report_form())).await.unwrap();
    assert_eq!(payload(&result)["content"]["format"], "html");
    let core = connect_http(modern(core_caps()), &server).await;
    let result = core.call_tool(call(report_form())).await.unwrap();
    assert_eq!(code(&payload(&result)), Some("unsupported_client"));
    for c in [alice, bob, client, core] {
        c.cancel().await.unwrap();
    }
}
