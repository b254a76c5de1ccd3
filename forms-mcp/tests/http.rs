//! End to end over streamable HTTP on 127.0.0.1: the real `forms-mcp --http 127.0.0.1:0`
//! binary, an rmcp client acting as the host (protocol 2025-11-25, stateful sessions).

mod common;

use common::*;
use serde_json::{json, Value};
use std::time::Duration;

#[tokio::test]
async fn http_descriptor_accept_decline_and_cancel() {
    let server = start_http(5_000).await;
    let host = Host::new(native_caps(), |params| {
        Reply::Answer(match params["message"].as_str().unwrap() {
            "decline" => json!({"action": "decline"}),
            "cancel" => json!({"action": "cancel"}),
            _ => json!({"action": "accept", "content": {"format": "html", "goal": "Churn"}}),
        })
    });
    let client = connect_http(host.clone(), &server).await;
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(
        serde_json::to_value(&tools).unwrap(),
        json!([forms_runtime::mcp::tool_descriptor()])
    );
    let result = client.call_tool(call(report_form())).await.unwrap();
    assert_eq!(
        payload(&result),
        json!({"action": "accept", "content": {"goal": "Churn", "format": "html"}})
    );
    assert_eq!(
        serde_json::to_value(&result).unwrap()["content"][0]["text"],
        r#"{"action":"accept","content":{"goal":"Churn","format":"html"}}"#
    );
    let (method, params) = host.requests()[0].clone();
    assert_eq!(method, "openai/elicitation/create");
    assert_eq!(
        params["requestedSchema"]["properties"]["format"]["oneOf"][0]["const"],
        "pdf"
    );
    for action in ["decline", "cancel"] {
        let mut form = report_form();
        form["message"] = json!(action);
        let result = client.call_tool(call(form)).await.unwrap();
        assert_eq!(payload(&result), json!({"action": action}));
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn http_invalid_arguments_capability_and_v4_answers() {
    let server = start_http(5_000).await;
    let host = Host::answering(json!({"action": "accept", "content": {"format": "docx"}}));
    let client = connect_http(host.clone(), &server).await;
    let result = client
        .call_tool(call(json!({"message": "Hi", "questions": []})))
        .await
        .unwrap();
    assert_eq!(code(&payload(&result)), Some("invalid_arguments"));
    let result = client.call_tool(call(report_form())).await.unwrap();
    let p = payload(&result);
    assert_eq!(code(&p), Some("invalid_response"));
    assert!(
        p["error"]["message"].as_str().unwrap().ends_with("(V4)"),
        "{p}"
    );
    client.cancel().await.unwrap();

    let host = Host::new(core_caps(), |_| Reply::Answer(json!({"action": "decline"})));
    let client = connect_http(host.clone(), &server).await;
    let result = client.call_tool(call(report_form())).await.unwrap();
    assert_eq!(code(&payload(&result)), Some("unsupported_client"));
    assert!(host.requests().is_empty());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn http_arguments_past_1_mib_are_invalid_arguments_not_http_413() {
    let server = start_http(5_000).await;
    let client = connect_http(Host::answering(json!({"action": "decline"})), &server).await;
    let big = "x".repeat(4_000);
    let questions: Vec<Value> = (0..12)
        .map(|i| {
            json!({"id": format!("q{i}"), "type": "text", "title": "T",
            "required": false, "description": big.clone()})
        })
        .collect();
    let mut arguments = json!({"message": "Hi", "questions": questions});
    arguments["padding"] = json!("y".repeat(1_200_000));
    let result = client.call_tool(call(arguments)).await.unwrap();
    let p = payload(&result);
    assert_eq!(code(&p), Some("invalid_arguments"), "{p}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn http_timeout_host_error_and_cancelled_call() {
    let server = start_http(200).await;
    let host = Host::new(native_caps(), |params| {
        match params["message"].as_str().unwrap() {
            "error" => Reply::Error(-32000, "no renderer"),
            _ => Reply::Hang,
        }
    });
    let client = connect_http(host.clone(), &server).await;
    let result = client.call_tool(call(text_form("hang"))).await.unwrap();
    assert_eq!(code(&payload(&result)), Some("timeout"));
    wait_for(&host, |h| !h.cancelled.lock().unwrap().is_empty()).await;
    let result = client.call_tool(call(text_form("error"))).await.unwrap();
    let p = payload(&result);
    assert_eq!(code(&p), Some("transport_error"), "{p}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn http_a_cancelled_tool_call_cancels_the_hosts_elicitation() {
    let server = start_http(60_000).await;
    let host = Host::new(native_caps(), |_| Reply::Hang);
    let client = connect_http(host.clone(), &server).await;
    let handle = start_hanging_call(&client, &host).await;
    handle.cancel(Some("closed".into())).await.unwrap();
    wait_for(&host, |h| !h.cancelled.lock().unwrap().is_empty()).await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn http_fifty_parallel_calls_each_get_their_own_answer() {
    let server = start_http(10_000).await;
    let host = Host::new(native_caps(), |params| {
        let message = params["message"].as_str().unwrap_or_default().to_owned();
        Reply::Answer(json!({"action": "accept", "content": {"goal": message}}))
    });
    let client = connect_http(host, &server).await;
    let handles: Vec<_> = (0..50)
        .map(|i| {
            let peer = client.peer().clone();
            tokio::spawn(async move {
                let message = format!("Question {i}");
                (
                    message.clone(),
                    peer.call_tool(call(text_form(&message))).await.unwrap(),
                )
            })
        })
        .collect();
    for handle in handles {
        let (message, result) = handle.await.unwrap();
        assert_eq!(payload(&result)["content"]["goal"], message);
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn http_a_port_in_use_is_a_clear_non_zero_exit() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let output = tokio::time::timeout(
        Duration::from_secs(10),
        server_command(1_000)
            .args(["--http", &addr])
            .stderr(std::process::Stdio::piped())
            .output(),
    )
    .await
    .unwrap()
    .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("cannot listen on {addr}")),
        "{stderr}"
    );
    let output = server_command(1_000)
        .args(["--http", "localhost"])
        .stderr(std::process::Stdio::piped())
        .output()
        .await
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}
