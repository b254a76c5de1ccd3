//! Server-side CPU cost of one accepted typed ask, against rmcp's own unchecked
//! `peer.elicit::<T>()` of a `schemars` type of the same shape, in the same run.
//!
//! ```text
//! cargo bench -p forms-mcp --bench ask_cost
//! ```
//!
//! Three rmcp tool servers, each on its own OS thread with its own current-thread Tokio
//! runtime, each connected to an rmcp client (protocol 2025-11-25) on the main thread over an
//! in-process `tokio::io::duplex` pipe:
//! - `ask`: a `#[tool]` function that asks the derived form `Setup` with
//!   [`FormAsker::ask`], served through [`forms_mcp::transport::capture`]; the client has the
//!   extension, so the ask sends `openai/elicitation/create` (the native request compiled from
//!   the form) and runs the whole answer check (V1–V8) on the raw answer before decoding it;
//! - `ask (core host)`: the same server and tool, asked by a client with core form
//!   elicitation only, so the ask sends a core `elicitation/create` compiled from the form;
//! - `elicit`: a `#[tool]` function that calls rmcp's `peer.elicit::<SetupS>()`
//!   (`SetupS` derives `serde::Deserialize` and `schemars::JsonSchema`: an optional text and
//!   an enum of two strings), served over rmcp's plain line transport on the same pipe,
//!   asked by a client with core form elicitation. rmcp checks nothing but what serde's
//!   `Deserialize` of the struct checks.
//!
//! Every client answers `accept` with the same content (`goal` and `format`) at once, and
//! every tool returns one line of text made from the typed answer; the client checks it.
//!
//! What is measured: the CPU time of the server's thread (its `pthread_getcpuclockid` clock,
//! read from the main thread), which is all the server does: reading the call and the answer
//! off the pipe, rmcp's dispatch, the ask, writing the request and the result. The client's
//! work is on another thread and not counted. The three take turns in rounds of
//! `CALLS` sequential calls; each round gives a per-call figure for each, and the printed
//! figures are medians over the rounds, with the ratio `ask / elicit` taken per round.
//!
//! `FORMS_PROFILE=ask|core|elicit` runs that side alone for `FORMS_PROFILE_ITERS` calls (for
//! `valgrind --tool=callgrind --separate-threads=yes`, whose file for the server's thread
//! counts its instructions).
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

use forms_mcp::{error_response, Asked, FormAsker, FormCall};
use forms_runtime::{Form, Outcome};
use forms_test_kit::forms::report_form as data_arguments;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ClientConfig,
    ContentBlock, CustomRequest, CustomResult, ElicitRequestParams, ElicitResult, Implementation,
    ProtocolVersion,
};
use rmcp::service::{Peer, RequestContext, RunningService};
use rmcp::{
    schemars, tool, tool_handler, tool_router, ClientHandler, ErrorData, RoleClient, RoleServer,
    ServerHandler, ServiceExt,
};
use serde_json::{json, Value};
use std::os::unix::thread::JoinHandleExt;
use std::time::Duration;

const CALLS: usize = 200;
const ROUNDS: usize = 9;
const WARM_UP: usize = 200;
const EXPECTED: &str = "pdf: Weekly revenue";

// ---------------------------------------------------------------------------------------------
// The typed ask.

/// The report set-up.
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
#[form(rename_all = "lowercase")]
enum Format {
    /// PDF
    Pdf,
    /// Web page
    Html,
}

fn text(text: String) -> CallToolResponse {
    CallToolResult::success(vec![ContentBlock::text(text)]).into()
}

#[derive(Clone)]
struct AskServer {
    forms: FormAsker,
    tool_router: ToolRouter<AskServer>,
}

#[tool_router]
impl AskServer {
    /// Asks the report set-up.
    #[tool]
    async fn setup(&self, ask: FormCall) -> CallToolResponse {
        match self.forms.ask::<Setup>(&ask).await {
            Asked::Done(Ok(Outcome::Accepted(setup))) => {
                let format = match setup.format {
                    Format::Pdf => "pdf",
                    Format::Html => "html",
                };
                text(format!("{format}: {}", setup.goal.unwrap_or_default()))
            }
            Asked::Done(Ok(outcome)) => text(format!("not accepted: {}", outcome.action())),
            Asked::Done(Err(error)) => error_response(&error),
            Asked::InputRequired(result) => result.into(),
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for AskServer {}

// ---------------------------------------------------------------------------------------------
// rmcp's elicitation of a schemars type of the same shape.

/// The report set-up.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct SetupS {
    /// What would you like to understand?
    goal: Option<String>,
    /// Report format
    format: FormatS,
}

/// Report format
#[derive(serde::Deserialize, schemars::JsonSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
enum FormatS {
    Pdf,
    Html,
}

rmcp::elicit_safe!(SetupS);

#[derive(Clone)]
struct ElicitServer {
    tool_router: ToolRouter<ElicitServer>,
}

#[tool_router]
impl ElicitServer {
    /// Asks the report set-up.
    #[tool]
    async fn setup(&self, peer: Peer<RoleServer>) -> CallToolResponse {
        match peer.elicit::<SetupS>("Set up your weekly report").await {
            Ok(Some(setup)) => {
                let format = match setup.format {
                    FormatS::Pdf => "pdf",
                    FormatS::Html => "html",
                };
                text(format!("{format}: {}", setup.goal.unwrap_or_default()))
            }
            Ok(None) => text("no content".to_owned()),
            Err(error) => text(format!("error: {error}")),
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for ElicitServer {}

// ---------------------------------------------------------------------------------------------
// The instant host.

#[derive(Clone)]
struct Host {
    caps: Value,
}

fn answer() -> Value {
    json!({"action": "accept", "content": {"goal": "Weekly revenue", "format": "pdf"}})
}

impl ClientHandler for Host {
    async fn on_custom_request(
        &self,
        _request: CustomRequest,
        _ctx: RequestContext<RoleClient>,
    ) -> Result<CustomResult, ErrorData> {
        Ok(CustomResult::new(answer()))
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _ctx: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        Ok(serde_json::from_value(answer()).unwrap())
    }

    fn get_info(&self) -> ClientConfig {
        let caps: ClientCapabilities = serde_json::from_value(self.caps.clone()).unwrap();
        ClientConfig::new(caps, Implementation::new("bench-host", "1"))
            .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }
}

fn native_caps() -> Value {
    json!({"elicitation": {"form": {}}, "extensions": {"openai/elicitation": {"form": {}}}})
}

fn core_caps() -> Value {
    json!({"elicitation": {"form": {}}})
}

// ---------------------------------------------------------------------------------------------
// Harness.

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Ask,
    AskCore,
    Elicit,
    /// The Data tool (`FormsServer`): the form comes in the call's arguments, is checked
    /// and compiled on every call, and the result is the contract's envelope.
    Data,
}

impl Side {
    fn name(self) -> &'static str {
        match self {
            Side::Ask => "ask (extension host)",
            Side::AskCore => "ask (core host)",
            Side::Elicit => "rmcp peer.elicit",
            Side::Data => "Data tool (FormsServer)",
        }
    }
}

/// One server thread and its client.
struct Pair {
    client: RunningService<RoleClient, Host>,
    side: Side,
    clock: libc::clockid_t,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Pair {
    async fn start(side: Side) -> Pair {
        let (client_io, server_io) = tokio::io::duplex(64 * 1024);
        let thread = std::thread::Builder::new()
            .name(format!("server-{}", side.name()))
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                runtime.block_on(async move {
                    let (read, write) = tokio::io::split(server_io);
                    if side == Side::Data {
                        let server = forms_mcp::FormsServer::new(Duration::from_secs(60));
                        let transport = forms_mcp::transport::capture(read, write);
                        let _ = server.serve(transport).await.unwrap().waiting().await;
                    } else if side == Side::Elicit {
                        let server = ElicitServer {
                            tool_router: ElicitServer::tool_router(),
                        };
                        let _ = server.serve((read, write)).await.unwrap().waiting().await;
                    } else {
                        let server = AskServer {
                            forms: FormAsker::new(Duration::from_secs(60)),
                            tool_router: AskServer::tool_router(),
                        };
                        let transport = forms_mcp::transport::capture(read, write);
                        let _ = server.serve(transport).await.unwrap().waiting().await;
                    }
                });
            })
            .unwrap();
        let mut clock: libc::clockid_t = 0;
        // SAFETY: the thread is alive (joined only on drop) and `clock` is a valid out pointer.
        let rc = unsafe { libc::pthread_getcpuclockid(thread.as_pthread_t(), &mut clock) };
        assert_eq!(rc, 0, "pthread_getcpuclockid");
        let caps = if side == Side::Ask || side == Side::Data {
            native_caps()
        } else {
            core_caps()
        };
        let (read, write) = tokio::io::split(client_io);
        let client = Host { caps }.serve((read, write)).await.unwrap();
        Pair {
            client,
            side,
            clock,
            thread: Some(thread),
        }
    }

    /// The server thread's CPU time so far.
    fn cpu(&self) -> Duration {
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `clock` is the live server thread's clock; `now` is a valid out pointer.
        let rc = unsafe { libc::clock_gettime(self.clock, &mut now) };
        assert_eq!(rc, 0, "clock_gettime");
        Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
    }

    async fn call(&self) {
        if self.side == Side::Data {
            let mut request = CallToolRequestParams::new("form_elicitation_v2_request");
            request.arguments = data_arguments().as_object().cloned();
            let result = self.client.call_tool(request).await.unwrap();
            let wire = serde_json::to_value(&result).unwrap();
            assert_eq!(wire["structuredContent"], answer(), "{wire}");
            return;
        }
        let result = self
            .client
            .call_tool(CallToolRequestParams::new("setup"))
            .await
            .unwrap();
        let wire = serde_json::to_value(&result).unwrap();
        assert_eq!(wire["content"][0]["text"], EXPECTED, "{wire}");
    }

    /// Server CPU time per call over `n` sequential calls.
    async fn per_call(&self, n: usize) -> Duration {
        let before = self.cpu();
        for _ in 0..n {
            self.call().await;
        }
        (self.cpu() - before) / n as u32
    }

    async fn stop(mut self) {
        let _ = self.client.cancel().await;
        if let Some(thread) = self.thread.take() {
            thread.join().unwrap();
        }
    }
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

fn spread(values: &[f64]) -> (f64, f64) {
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (min, max)
}

async fn profile(which: &str) {
    let side = match which {
        "ask" => Side::Ask,
        "core" => Side::AskCore,
        "elicit" => Side::Elicit,
        "data" => Side::Data,
        other => panic!("FORMS_PROFILE={other}: ask, core, elicit or data"),
    };
    let iters: usize = std::env::var("FORMS_PROFILE_ITERS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2_000);
    let pair = Pair::start(side).await;
    let per_call = pair.per_call(iters.max(1)).await;
    println!(
        "{}: {iters} calls, {:.1} µs of server CPU per call",
        side.name(),
        per_call.as_secs_f64() * 1e6
    );
    pair.stop().await;
}

async fn bench() {
    let sides = [Side::Ask, Side::AskCore, Side::Elicit, Side::Data];
    let mut pairs = Vec::new();
    for side in sides {
        let pair = Pair::start(side).await;
        pair.per_call(WARM_UP).await;
        pairs.push(pair);
    }
    let mut figures = vec![Vec::new(); sides.len()];
    let mut ratios = Vec::new();
    let mut core_ratios = Vec::new();
    for round in 0..ROUNDS {
        let mut this = [0.0; 4];
        // Turns in a rotating order, so no side always runs first.
        for k in 0..sides.len() {
            let i = (round + k) % sides.len();
            this[i] = pairs[i].per_call(CALLS).await.as_secs_f64() * 1e6;
        }
        for (i, value) in this.iter().enumerate() {
            figures[i].push(*value);
        }
        ratios.push(this[0] / this[2]);
        core_ratios.push(this[1] / this[2]);
    }
    println!("server CPU per accepted call, {ROUNDS} rounds of {CALLS} calls (median, min–max):");
    for (i, side) in sides.iter().enumerate() {
        let (min, max) = spread(&figures[i]);
        println!(
            "  {:<22} {:>7.1} µs   ({min:.1}–{max:.1})",
            side.name(),
            median(&mut figures[i].clone())
        );
    }
    let (min, max) = spread(&ratios);
    println!(
        "ratio ask / elicit:           {:.2}x  ({min:.2}–{max:.2}; target <= 1.0x)",
        median(&mut ratios.clone())
    );
    let (min, max) = spread(&core_ratios);
    println!(
        "ratio ask (core host) / elicit: {:.2}x  ({min:.2}–{max:.2})",
        median(&mut core_ratios.clone())
    );
    for pair in pairs {
        pair.stop().await;
    }
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing and only checks
    // that the bench builds and starts. A profile run needs no flag.
    let profile_side = std::env::var("FORMS_PROFILE").ok();
    if profile_side.is_none() && !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        match profile_side {
            Some(which) => profile(&which).await,
            None => bench().await,
        }
    });
}
