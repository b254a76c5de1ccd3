//! How many URL-mode pages one `forms-mcp --url-mode` process holds open at once: a real
//! process (over stdio with `--max-pages 3`, over HTTP with the default 64) and an rmcp
//! client advertising URL-mode elicitation only, which consents to every URL-mode request
//! and leaves the page open. Cap calls each open a page and wait; one more is refused as
//! `transport_error` naming the limit, and the client is asked nothing for it. A page ended
//! by the person (the code, then Decline, posted as the page's own script does) or a call
//! cancelled by the client gives its place back: the next call opens a page again.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod common;

use common::*;
use rmcp::model::{CallToolRequest, ClientRequest, ServerResult};
use rmcp::service::{PeerRequestOptions, RequestHandle, RunningService};
use rmcp::RoleClient;
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A client with URL-mode elicitation and no form mode of any kind.
fn url_caps() -> Value {
    json!({"elicitation": {"url": {}}})
}

/// A form with a `files` question: a core form does not carry it, so it goes on a page.
fn files_form(n: usize) -> Value {
    json!({"message": format!("Send file {n}"), "questions": [
        {"id": "data", "type": "files", "title": "The data", "required": true}]})
}

/// A host that consents to every URL-mode request (and so leaves the page waiting).
fn consenting_host() -> Host {
    Host::new(url_caps(), |_| Reply::Answer(json!({"action": "accept"})))
}

/// The URL-mode requests the host has been sent.
fn url_requests(host: &Host) -> Vec<Value> {
    host.requests()
        .into_iter()
        .filter(|(method, params)| method == "elicitation/create" && params["mode"] == "url")
        .map(|(_, params)| params)
        .collect()
}

/// Sends a call of `files_form(n)` and waits until the host was asked its URL-mode request.
async fn open_page(
    client: &RunningService<RoleClient, Host>,
    host: &Host,
    n: usize,
) -> (RequestHandle<RoleClient>, Value) {
    let before = url_requests(host).len();
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(call(files_form(n))));
    let handle = client
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    wait_for(host, |h| url_requests(h).len() > before).await;
    let params = url_requests(host).pop().unwrap();
    assert!(
        params["message"]
            .as_str()
            .unwrap()
            .contains(&format!("Send file {n}")),
        "{params}"
    );
    (handle, params)
}

/// The payload of a call's result.
async fn result_of(handle: RequestHandle<RoleClient>) -> Value {
    let response = tokio::time::timeout(Duration::from_secs(20), handle.await_response())
        .await
        .expect("no tool result within 20 s")
        .unwrap();
    let ServerResult::CallToolResult(result) = response else {
        panic!("not a tool result: {response:?}")
    };
    payload(&result)
}

/// Calls once more past the limit and checks the refusal: `transport_error` naming the
/// limit, and no request to the client.
async fn refused_past(client: &RunningService<RoleClient, Host>, host: &Host, max: usize) {
    let asked = url_requests(host).len();
    let started = Instant::now();
    let result = tokio::time::timeout(
        Duration::from_secs(20),
        client.call_tool(call(files_form(999))),
    )
    .await
    .expect("the call past the limit did not end")
    .unwrap();
    let payload = payload(&result);
    assert_eq!(code(&payload), Some("transport_error"), "{payload}");
    let message = payload["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!(
            "{max} forms are already waiting on pages of this server, the most it holds at once ({max})"
        )) && message.contains("the form was not asked"),
        "{message}"
    );
    assert_eq!(
        url_requests(host).len(),
        asked,
        "the client was asked anyway"
    );
    eprintln!("refused past {max} pages in {:?}", started.elapsed());
}

/// One HTTP request to the page listener; the status, the headers and the body.
async fn send(port: u16, method: &str, path: &str, headers: &str, body: &str) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: http://127.0.0.1:{port}\r\n\
         {headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut reply = String::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_string(&mut reply))
        .await
        .expect("no reply within 10 s")
        .unwrap();
    let status = reply
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, reply)
}

/// The person ends the page of a URL-mode request: the code from the message, then Decline,
/// as the page's own script posts it.
async fn decline_on_page(params: &Value) {
    let url = params["url"].as_str().unwrap();
    let message = params["message"].as_str().unwrap();
    let at = message.find("enter the code ").unwrap() + "enter the code ".len();
    let code = &message[at..at + 8];
    let rest = url.strip_prefix("http://127.0.0.1:").unwrap();
    let (port, path) = rest.split_once('/').unwrap();
    let port: u16 = port.parse().unwrap();
    let base = format!("/{path}");
    let form = "Content-Type: application/x-www-form-urlencoded\r\n";
    let (status, reply) = send(
        port,
        "POST",
        &format!("{base}code"),
        form,
        &format!("code={code}"),
    )
    .await;
    assert_eq!(status, 303, "{reply}");
    let cookie = reply
        .lines()
        .find_map(|l| l.strip_prefix("set-cookie: "))
        .and_then(|c| c.split(';').next())
        .unwrap()
        .to_owned();
    let with = format!("Cookie: {cookie}\r\n");
    let (status, page) = send(port, "GET", &base, &with, "").await;
    assert_eq!(status, 200, "{page}");
    let at = page.find("data-forms-post=\"").unwrap() + "data-forms-post=\"".len();
    let post = &page[at..at + page[at..].find('"').unwrap()];
    let json = format!("{with}Content-Type: application/json\r\n");
    let (status, reply) = send(port, "POST", post, &json, r#"{"action":"decline"}"#).await;
    assert_eq!(status, 204, "{reply}");
}

/// Opens `max` pages, checks the refusal of one more, and that an ask ended on its page and
/// one cancelled by the client each give a place back.
async fn fill_and_free(client: &RunningService<RoleClient, Host>, host: &Host, max: usize) {
    let started = Instant::now();
    let mut open = Vec::new();
    for n in 0..max {
        open.push(open_page(client, host, n).await);
    }
    eprintln!("{max} pages open in {:?}", started.elapsed());
    refused_past(client, host, max).await;

    // The person declines on the first page: its ask ends, its place is given back.
    let (handle, params) = open.remove(0);
    decline_on_page(&params).await;
    assert_eq!(result_of(handle).await, json!({"action": "decline"}));
    open.push(open_page(client, host, max).await);
    refused_past(client, host, max).await;

    // The client cancels the second call: its page closes, its place is given back.
    let (handle, params) = open.remove(0);
    handle.cancel(Some("the person left".into())).await.unwrap();
    let url = params["url"].as_str().unwrap().to_owned();
    let rest = url.strip_prefix("http://127.0.0.1:").unwrap();
    let (port, path) = rest.split_once('/').unwrap();
    let port: u16 = port.parse().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (status, _) = send(port, "GET", &format!("/{path}"), "", "").await;
        if status == 403 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the cancelled call's page stayed open"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    open.push(open_page(client, host, max + 1).await);
    refused_past(client, host, max).await;
    for (handle, _) in open {
        handle.cancel(None).await.unwrap();
    }
}

#[tokio::test]
async fn a_stdio_server_holds_max_pages_and_gives_a_place_back_when_an_ask_ends() {
    let host = consenting_host();
    let mut command = server_command(60_000);
    command.args(["--url-mode", "--max-pages", "3"]);
    let client = connect_command(host.clone(), command).await;
    fill_and_free(&client, &host, 3).await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn an_http_server_holds_64_pages_by_default() {
    let server = start_http_with(60_000, &["--url-mode"], &[]).await;
    let host = consenting_host();
    let client = connect_http(host.clone(), &server).await;
    let pid = server.child.id().unwrap();
    fill_and_free(&client, &host, forms_mcp::page::DEFAULT_MAX_PAGES).await;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let peak = status.lines().find(|l| l.starts_with("VmHWM:"));
    eprintln!("the server's peak memory with 64 pages open: {peak:?}");
    client.cancel().await.unwrap();
}
