//! End to end over stdio: the real `forms-mcp` binary as a child process, driven by an rmcp
//! client acting as the host (protocol 2025-11-25, the legacy transport).
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod common;

use common::*;
use rmcp::model::ServerResult;
use serde_json::{json, Value};
use std::time::Duration;

#[tokio::test]
async fn descriptor_is_the_runtime_descriptor_with_its_annotations() {
    let client = connect_stdio(Host::answering(json!({"action": "decline"})), 5_000).await;
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 1);
    let listed = serde_json::to_value(&tools[0]).unwrap();
    let expected = serde_json::to_value(forms_runtime::mcp::tool_descriptor()).unwrap();
    assert_eq!(listed, expected);
    assert_eq!(
        listed["annotations"],
        json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": false,
               "openWorldHint": false})
    );
    assert!(listed.get("outputSchema").is_none());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn accept_returns_the_checked_content_as_structured_content_and_text() {
    let host = Host::answering(json!({"action": "accept",
        "content": {"format": "pdf", "goal": "Weekly revenue"}}));
    let client = connect_stdio(host.clone(), 5_000).await;
    let result = client.call_tool(call(report_form())).await.unwrap();
    let wire = serde_json::to_value(&result).unwrap();
    assert_eq!(
        payload(&result),
        json!({"action": "accept", "content": {"goal": "Weekly revenue", "format": "pdf"}})
    );
    // The text keeps the question order, not the host's.
    assert_eq!(
        wire["content"][0]["text"],
        r#"{"action":"accept","content":{"goal":"Weekly revenue","format":"pdf"}}"#
    );
    // The host received the runtime's native request, properties in question order.
    let requests = host.requests();
    assert_eq!(requests.len(), 1);
    let (method, mut params) = requests[0].clone();
    assert_eq!(method, "openai/elicitation/create");
    params.as_object_mut().unwrap().remove("_meta");
    let form = forms_runtime::DataForm::from_value(&report_form()).unwrap();
    let native: Value = serde_json::from_str(form.native_json()).unwrap();
    assert_eq!(params, native);
    let keys: Vec<&String> = params["requestedSchema"]["properties"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["goal", "format"]);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn v8_decline_and_cancel_are_outcomes_without_answers() {
    for action in ["decline", "cancel"] {
        let host = Host::answering(json!({"action": action, "_meta": {"reason": "closed"}}));
        let client = connect_stdio(host, 5_000).await;
        let result = client.call_tool(call(report_form())).await.unwrap();
        assert_eq!(payload(&result), json!({"action": action}), "{action}");
        assert_ne!(result.is_error, Some(true));
        client.cancel().await.unwrap();
        // V8: a decline or cancel that carries content is refused, never read as answers.
        let host = Host::answering(json!({"action": action, "content": {"format": "pdf"}}));
        let client = connect_stdio(host, 5_000).await;
        let result = client.call_tool(call(report_form())).await.unwrap();
        assert_eq!(
            code(&payload(&result)),
            Some("invalid_response"),
            "{action}"
        );
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn invalid_arguments_never_reach_the_host() {
    let host = Host::answering(json!({"action": "decline"}));
    let client = connect_stdio(host.clone(), 5_000).await;
    let cases = [
        json!({"message": "", "questions": []}),
        json!({"message": "Hi", "questions": [{"id": "9x", "type": "text", "title": "T",
                                              "required": false}]}),
        json!({"message": "Hi", "questions": [{"id": "a", "type": "text", "title": "T",
                                              "required": false, "default": "x"}]}),
        json!({}),
    ];
    for arguments in cases {
        let result = client.call_tool(call(arguments.clone())).await.unwrap();
        let p = payload(&result);
        assert_eq!(code(&p), Some("invalid_arguments"), "{arguments}: {p}");
        assert_eq!(result.is_error, Some(true));
    }
    // Oversized arguments: the contract's 1 MiB limit.
    let big = "x".repeat(2_000);
    let questions: Vec<Value> = (0..12)
        .map(|i| {
            json!({"id": format!("q{i}"), "type": "single_select", "title": "T",
            "required": false,
            "options": (0..24).map(|j| json!({"id": format!("o{j}"), "title": "O",
                "description": big.clone()})).collect::<Vec<_>>()})
        })
        .collect();
    let result = client
        .call_tool(call(json!({"message": "Hi", "questions": questions})))
        .await
        .unwrap();
    assert_eq!(code(&payload(&result)), Some("invalid_arguments"));
    assert!(host.requests().is_empty());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_client_without_the_openai_extension_is_an_unsupported_client() {
    for caps in [
        core_caps(),
        json!({}),
        json!({"extensions": {"openai/elicitation": {}}}),
    ] {
        let host = Host::new(caps.clone(), |_| {
            Reply::Answer(json!({"action": "decline"}))
        });
        let client = connect_stdio(host.clone(), 5_000).await;
        let result = client.call_tool(call(report_form())).await.unwrap();
        let p = payload(&result);
        assert_eq!(code(&p), Some("unsupported_client"), "{caps}: {p}");
        assert!(host.requests().is_empty());
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn v4_an_answer_that_is_not_an_offered_option_is_an_invalid_response() {
    let host = Host::answering(json!({"action": "accept", "content": {"format": "docx"}}));
    let client = connect_stdio(host, 5_000).await;
    let result = client.call_tool(call(report_form())).await.unwrap();
    let p = payload(&result);
    assert_eq!(code(&p), Some("invalid_response"));
    assert_eq!(
        p["error"]["message"],
        r#"content.format: "docx" is not an offered option id (V4)"#
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn v2_v3_answers_breaking_rules_are_invalid_responses() {
    let cases = [
        // V2: an unknown key, a missing required answer.
        (
            json!({"action": "accept", "content": {"format": "pdf", "other": "x"}}),
            "(V2)",
        ),
        (json!({"action": "accept", "content": {}}), "(V2)"),
        // V3: text too long for its maxLength of 100, required text blank.
        (
            json!({"action": "accept", "content": {"goal": "x".repeat(101)}}),
            "(V3)",
        ),
    ];
    let client = connect_stdio(
        Host::new(native_caps(), {
            let answers: Vec<Value> = cases.iter().map(|c| c.0.clone()).collect();
            move |params| {
                let i: usize = params["message"].as_str().unwrap().parse().unwrap();
                Reply::Answer(answers[i].clone())
            }
        }),
        5_000,
    )
    .await;
    for (i, (_, rule)) in cases.iter().enumerate() {
        let mut form = if i < 2 { report_form() } else { text_form("x") };
        form["message"] = json!(i.to_string());
        let result = client.call_tool(call(form)).await.unwrap();
        let p = payload(&result);
        assert_eq!(code(&p), Some("invalid_response"), "{i}: {p}");
        assert!(
            p["error"]["message"].as_str().unwrap().contains(rule),
            "{i}: {p}"
        );
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn v1_answers_of_no_elicitation_shape_are_invalid_responses() {
    for answer in [
        json!({"content": {"format": "pdf"}}),
        json!({"action": "maybe"}),
        json!({"action": "accept", "content": "pdf"}),
        json!({"action": "accept"}),
        json!([1, 2]),
        json!("accept"),
    ] {
        let client = connect_stdio(Host::answering(answer.clone()), 5_000).await;
        let result = client.call_tool(call(report_form())).await.unwrap();
        let p = payload(&result);
        assert_eq!(code(&p), Some("invalid_response"), "{answer}: {p}");
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn no_answer_within_the_timeout_is_a_timeout_and_the_host_is_told() {
    let host = Host::new(native_caps(), |_| Reply::Hang);
    let client = connect_stdio(host.clone(), 200).await;
    let started = std::time::Instant::now();
    let result = client.call_tool(call(report_form())).await.unwrap();
    let p = payload(&result);
    assert_eq!(code(&p), Some("timeout"), "{p}");
    assert!(started.elapsed() >= Duration::from_millis(200));
    assert!(started.elapsed() < Duration::from_secs(10));
    wait_for(&host, |h| !h.cancelled.lock().unwrap().is_empty()).await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_json_rpc_error_from_the_host_is_a_transport_error() {
    let host = Host::new(native_caps(), |_| Reply::Error(-32603, "renderer crashed"));
    let client = connect_stdio(host, 5_000).await;
    let result = client.call_tool(call(report_form())).await.unwrap();
    let p = payload(&result);
    assert_eq!(code(&p), Some("transport_error"), "{p}");
    assert!(p["error"]["message"]
        .as_str()
        .unwrap()
        .contains("renderer crashed"));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_tool_call_cancelled_while_waiting_cancels_the_hosts_elicitation() {
    let host = Host::new(native_caps(), |params| {
        if params["message"] == "hang" {
            Reply::Hang
        } else {
            Reply::Answer(json!({"action": "decline"}))
        }
    });
    let client = connect_stdio(host.clone(), 60_000).await;
    let handle = start_hanging_call(&client, &host).await;
    handle
        .cancel(Some("user closed the chat".into()))
        .await
        .unwrap();
    wait_for(&host, |h| !h.cancelled.lock().unwrap().is_empty()).await;
    let cancelled = host.cancelled.lock().unwrap().clone();
    assert_eq!(cancelled.len(), 1);
    assert!(cancelled[0].request_id.is_some());
    // The server keeps serving.
    let result = client.call_tool(call(text_form("next"))).await.unwrap();
    assert_eq!(payload(&result), json!({"action": "decline"}));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn fifty_parallel_calls_on_one_connection_each_get_their_own_answer() {
    let host = Host::new(native_caps(), |params| {
        let message = params["message"].as_str().unwrap_or_default().to_owned();
        Reply::Answer(json!({"action": "accept", "content": {"goal": message}}))
    });
    let client = connect_stdio(host, 5_000).await;
    let peer = client.peer().clone();
    let calls = (0..50).map(|i| {
        let peer = peer.clone();
        async move {
            let message = format!("Question number {i}");
            let result = peer.call_tool(call(text_form(&message))).await.unwrap();
            (message, result)
        }
    });
    let results = futures_join_all(calls).await;
    assert_eq!(results.len(), 50);
    for (message, result) in results {
        assert_eq!(
            payload(&result),
            json!({"action": "accept", "content": {"goal": message}})
        );
    }
    client.cancel().await.unwrap();
}

async fn futures_join_all<F: std::future::Future + Send + 'static>(
    futures: impl Iterator<Item = F>,
) -> Vec<F::Output>
where
    F::Output: Send + 'static,
{
    let handles: Vec<_> = futures.map(tokio::spawn).collect();
    let mut out = Vec::new();
    for handle in handles {
        out.push(handle.await.unwrap());
    }
    out
}

#[tokio::test]
async fn an_unknown_tool_is_an_mcp_error() {
    let client = connect_stdio(Host::answering(json!({"action": "decline"})), 5_000).await;
    let mut params = call(report_form());
    params.name = "other_tool".into();
    let error = client.call_tool(params).await.unwrap_err();
    assert!(error.to_string().contains("other_tool"), "{error}");
    let _ = ServerResult::empty(());
    client.cancel().await.unwrap();
}

/// The server reads its stdin pipe and writes its stdout pipe through descriptors of its own,
/// non-blocking, served by the runtime's IO driver (no read or write waits for a thread of
/// the blocking pool), and leaves descriptors 0 and 1 as the client made them: blocking.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn stdio_pipes_are_served_non_blocking_on_descriptors_of_their_own() {
    let transport = rmcp::transport::TokioChildProcess::new(server_command(5_000)).unwrap();
    let pid = transport.id().unwrap();
    let host = Host::answering(json!({"action": "accept",
        "content": {"format": "pdf", "goal": "Weekly revenue"}}));
    let client = connect_transport(host, transport).await;
    let result = client.call_tool(call(report_form())).await.unwrap();
    assert_eq!(payload(&result)["action"], "accept");

    let target = |fd: &str| {
        std::fs::read_link(format!("/proc/{pid}/fd/{fd}"))
            .unwrap()
            .to_string_lossy()
            .into_owned()
    };
    let non_blocking = |fd: &str| {
        let info = std::fs::read_to_string(format!("/proc/{pid}/fdinfo/{fd}")).unwrap();
        let flags = info
            .lines()
            .find_map(|line| line.strip_prefix("flags:"))
            .map(|flags| u32::from_str_radix(flags.trim(), 8).unwrap())
            .unwrap();
        flags & libc::O_NONBLOCK as u32 != 0
    };
    let descriptors: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for standard in ["0", "1"] {
        let pipe = target(standard);
        assert!(pipe.starts_with("pipe:"), "fd {standard}: {pipe}");
        assert!(
            !non_blocking(standard),
            "fd {standard} was made non-blocking"
        );
        let own: Vec<&String> = descriptors
            .iter()
            .filter(|fd| fd.as_str() != standard && target(fd) == pipe)
            .collect();
        assert_eq!(own.len(), 1, "fd {standard}: {own:?}");
        assert!(non_blocking(own[0]), "fd {}", own[0]);
    }
    client.cancel().await.unwrap();
}
