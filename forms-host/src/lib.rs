// The front page opens with the crate's README (its example a doctest), then the details.
#![doc = include_str!("../README.md")]
//!
//! # In detail
//!
//! A local host for any MCP server (`forms host`, `forms ask page`): connects to a server over stdio or
//! streamable HTTP as a host that advertises native forms, lists the tools, calls one, and
//! answers every form the server asks on the way.
//!
//! The host initializes with `capabilities.elicitation.form` and
//! `capabilities.extensions["openai/elicitation"].form` on both protocol generations. Up to
//! 2025-11-25 a form arrives as the mid-call request `openai/elicitation/create`, whose params
//! are the native request; from 2026-07-28 it arrives as an input-required round whose
//! `elicitation/create` input request carries the native schema under
//! `_meta["openai/elicitation"].requestedSchema` (the core schema is then empty), and rmcp's
//! client retries the call with the answer. Either way the request is read once, as
//! [`forms_runtime::native::NativeView`], the form is shown from that view by an [`Answerer`],
//! and its answer sent back as given.
//!
//! With [`HostOptions::core_only`] (`forms host --core-only`) the host withholds the
//! extension: it advertises `capabilities.elicitation.form` alone, as the hosts built on the
//! official SDKs do, so a server asks it through core `elicitation/create` requests whose
//! `requestedSchema` is the form itself (for `forms-mcp`, the core schema compiled from the
//! Data form); a native `openai/elicitation/create` then gets "method not found", and a
//! native schema under `_meta` is ignored.
//!
//! A malformed form request is answered with a JSON-RPC error (`-32602`, invalid params),
//! explained on standard error, and the session goes on.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod trace;
mod url_mode;
pub mod visible;

pub use forms_mcp::page::{accepts, PageOptions, PageServer, DEFAULT_MAX_FILE_BYTES};
pub use url_mode::{open_in_browser, url_response, UrlRequest};

use forms_runtime::native::NativeView;
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, CustomNotification, CustomRequest,
    CustomResult, ElicitRequestParams, ElicitResult, Implementation, ProtocolVersion,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::transport::Transport;
use rmcp::{ClientHandler, ErrorData as McpError, RoleClient, ServiceExt};
use serde_json::{json, Map, Value};
use std::collections::HashSet;
use std::ffi::OsString;
use std::sync::{Arc, Mutex};

/// Renders a form (the host's [`NativeView`] of the request, and who asks it) as an HTML
/// page whose Submit, Decline and Cancel POST the host response JSON to the URL in the
/// `<body data-forms-post>` attribute; an error says why the page could not be made.
pub type RenderPage = Arc<dyn Fn(&NativeView, &Asker) -> Result<String, String> + Send + Sync>;

/// Answers one form (the host's [`NativeView`] of the request, and who asks it) with a host
/// response such as `{"action":"accept","content":{…}}`, blocking (it runs on a blocking
/// thread); an error says why the form was not answered.
pub type AnswerFn = Arc<dyn Fn(&NativeView, &Asker) -> Result<Value, String> + Send + Sync>;

/// The input-required rounds one tool call may take (2026-07-28): enough for a URL-mode
/// interaction the person takes half an hour over, asked again every [`URL_REPEAT_PAUSE`].
pub const ROUNDS_MAX: usize = 900;

/// How long the host waits before answering again, without asking the person again, a
/// URL-mode request they already accepted in this call (2026-07-28: the server asks again
/// until the interaction is done).
pub const URL_REPEAT_PAUSE: std::time::Duration = std::time::Duration::from_secs(2);

/// Answers a URL-mode request (who asks it, the message, the URL with its host apart) with
/// `{"action":"accept"}` (the person consented to open the URL, and it was opened),
/// `{"action":"decline"}` or `{"action":"cancel"}`, blocking; an error says why it was not
/// answered.
pub type ConsentFn = Arc<dyn Fn(&UrlRequest, &Asker) -> Result<Value, String> + Send + Sync>;

/// Who asks a form, as the person answering it is shown above the form (the page's header,
/// the top of every terminal screen): lines of a label and a text, in order, such as
/// `("Asked by", "forms-mcp 0.1.0")`. The texts are the peer's own: a page shows them as
/// text, a terminal through `visible`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Asker {
    /// The lines, label and text.
    pub lines: Vec<(String, String)>,
}

impl Asker {
    /// The server that asks, from its `serverInfo`: `Asked by` its title, name and version
    /// (`Files (files-server 1.2.0)`, or `files-server 1.2.0` without a title); a server
    /// that gave none is named as such. The MCP specification has the client show which
    /// server requests the information.
    pub fn server(info: Option<&Implementation>) -> Asker {
        let text = match info {
            None => "a server that did not give its name".to_owned(),
            Some(i) => {
                let plain = if i.version.is_empty() {
                    i.name.clone()
                } else {
                    format!("{} {}", i.name, i.version)
                };
                match i.title.as_deref().map(str::trim) {
                    Some(title) if !title.is_empty() && title != i.name => {
                        format!("{title} ({plain})")
                    }
                    _ => plain,
                }
            }
        };
        Asker::default().line("Asked by", text)
    }

    /// Adds a line.
    pub fn line(mut self, label: impl Into<String>, text: impl Into<String>) -> Asker {
        self.lines.push((label.into(), text.into()));
        self
    }
}

/// How the host answers a form.
#[derive(Clone)]
pub enum Answerer {
    /// Host responses read from a file: one object answers every form; an array answers the
    /// forms in order, one each.
    Scripted(Vec<Value>, bool),
    /// The browser: the page is served on 127.0.0.1 behind a secret URL and the host waits
    /// for its submit (see [`PageServer`]).
    Page(RenderPage, PageOptions),
    /// Any other way of answering (the hook of a terminal fill).
    Custom(AnswerFn),
}

impl Answerer {
    /// Reads the JSON of `--answer`: a host response object, or an array of them.
    pub fn from_answer_file(text: &str) -> Result<Answerer, String> {
        match serde_json::from_str::<Value>(text) {
            Ok(Value::Array(list)) => Ok(Answerer::Scripted(list, false)),
            Ok(value @ Value::Object(_)) => Ok(Answerer::Scripted(vec![value], true)),
            Ok(_) => Err("must hold a host response object or an array of them".to_owned()),
            Err(e) => Err(format!("is not JSON: {e}")),
        }
    }
}

/// Where the server is.
#[derive(Debug, Clone)]
pub enum Target {
    /// A command (program and arguments) started as a child process, spoken to over stdio.
    Command(Vec<OsString>),
    /// A streamable HTTP endpoint such as `http://127.0.0.1:8080/mcp`.
    Url(String),
}

/// What one `forms host` run does.
#[derive(Clone)]
pub struct HostOptions {
    /// The server.
    pub target: Target,
    /// The protocol version asked for: 2025-11-25 (initialize, mid-call requests) or
    /// 2026-07-28 (discover, input-required rounds).
    pub protocol: ProtocolVersion,
    /// The tool to call and its arguments; `None` lists the tools only.
    pub call: Option<(String, Map<String, Value>)>,
    /// How forms are answered.
    pub answerer: Answerer,
    /// Whether every JSON-RPC message is logged on standard error.
    pub trace: bool,
    /// Whether the host withholds the `openai/elicitation` extension and advertises core
    /// form elicitation only.
    pub core_only: bool,
    /// How a URL-mode request is answered besides the [`Answerer`]'s own way: the terminal's
    /// y/n question. Without it, scripted answers answer it (the next response of the file),
    /// the page answerer serves a consent page, and a custom answerer declines it.
    pub consent: Option<ConsentFn>,
    /// Whether a URL-mode request that a scripted answer accepts is opened in the browser
    /// ([`open_in_browser`]); without it the URL is only printed.
    pub open_urls: bool,
}

/// The capabilities the host advertises: core elicitation in form and URL mode and, unless
/// `core_only`, the `openai/elicitation` extension's forms.
pub fn host_capabilities(core_only: bool) -> Value {
    if core_only {
        json!({"elicitation": {"form": {}, "url": {}}})
    } else {
        json!({"elicitation": {"form": {}, "url": {}},
               "extensions": {forms_mcp::EXTENSION: {"form": {}}}})
    }
}

/// Parses a protocol version given on the command line.
pub fn parse_protocol(text: &str) -> Result<ProtocolVersion, String> {
    match text {
        "2026-07-28" => Ok(ProtocolVersion::V_2026_07_28),
        "2025-11-25" => Ok(ProtocolVersion::V_2025_11_25),
        "2025-06-18" => Ok(ProtocolVersion::V_2025_06_18),
        "2025-03-26" => Ok(ProtocolVersion::V_2025_03_26),
        other => Err(format!(
            "unknown protocol version {other:?}; use 2025-11-25 or 2026-07-28"
        )),
    }
}

#[derive(Clone)]
struct HostClient {
    protocol: ProtocolVersion,
    answerer: Answerer,
    core_only: bool,
    next: Arc<Mutex<usize>>,
    page: Arc<tokio::sync::OnceCell<PageServer>>,
    consent: Option<ConsentFn>,
    open_urls: bool,
    /// The `elicitationId`s of URL-mode requests the person accepted, until the server says
    /// they are complete.
    opened: Arc<Mutex<HashSet<String>>>,
    /// The URLs of URL-mode requests the person accepted in this session (2026-07-28: a
    /// request asked again before the interaction is done is not put to the person again).
    accepted_urls: Arc<Mutex<HashSet<String>>>,
}

impl HostClient {
    /// The index of the next request answered (forms and URL requests in one count).
    fn next_index(&self) -> Result<usize, String> {
        let mut next = self.next.lock().map_err(|_| "poisoned".to_owned())?;
        let index = *next;
        *next += 1;
        Ok(index)
    }

    /// The scripted response number `index`.
    fn scripted(list: &[Value], every: bool, index: usize) -> Result<Value, String> {
        let chosen = if every { list.first() } else { list.get(index) };
        chosen.cloned().ok_or_else(|| {
            format!(
                "the answer file holds {} responses; request {} has none",
                list.len(),
                index + 1
            )
        })
    }

    async fn page_server(&self, options: PageOptions) -> Result<&PageServer, String> {
        self.page
            .get_or_try_init(|| PageServer::start(options))
            .await
            .map_err(|e| format!("cannot serve the page: {e}"))
    }

    /// Asks the person about the URL-mode request `request` and returns the host response
    /// (accept, decline or cancel, without content). Nothing is opened without consent.
    async fn answer_url(&self, request: UrlRequest, asker: Asker) -> Result<Value, String> {
        // 2026-07-28: the server asks again, in the next input-required round, until the
        // person has finished; they consented once, so they are not asked again.
        let repeat = !self.protocol.has_initialize()
            && self
                .accepted_urls
                .lock()
                .map_err(|_| "poisoned".to_owned())?
                .contains(&request.url);
        if repeat {
            eprintln!(
                "forms host: still waiting for you to finish on {} (the server asked again; not asking you again)",
                visible::visible(&request.host)
            );
            tokio::time::sleep(URL_REPEAT_PAUSE).await;
            return Ok(json!({"action": "accept"}));
        }
        let index = self.next_index()?;
        let request_url = request.url.clone();
        let (before, host, after) = request.split();
        eprintln!(
            "forms host: {} asks you to open {}[{}]{} ({})",
            visible::visible(
                asker
                    .lines
                    .first()
                    .map_or("the server", |(_, t)| t.as_str())
            ),
            visible::visible(before),
            visible::visible(host),
            visible::visible(after),
            visible::visible(&request.message),
        );
        for warning in &request.warnings {
            eprintln!("forms host: warning: {warning}");
        }
        let answer = if let Some(consent) = &self.consent {
            let consent = Arc::clone(consent);
            tokio::task::spawn_blocking(move || consent(&request, &asker))
                .await
                .map_err(|e| e.to_string())??
        } else {
            match &self.answerer {
                Answerer::Scripted(list, every) => {
                    let answer = url_response(Self::scripted(list, *every, index)?)?;
                    if accepted(&answer) {
                        if self.open_urls {
                            open_in_browser(&request.url)?;
                            eprintln!("forms host: opened {}", visible::visible(&request.url));
                        } else {
                            eprintln!(
                                "forms host: accepted but not opened (give --open-urls to open it): {}",
                                visible::visible(&request.url)
                            );
                        }
                    }
                    answer
                }
                Answerer::Page(_, options) => {
                    let page = self.page_server(*options).await?;
                    let html = url_mode::consent_page(&request, &asker.lines);
                    let empty = NativeView::from_request(
                        &json!({"message": "", "requestedSchema": {"type": "object", "properties": {}}}),
                    )
                    .map_err(|e| e.to_string())?;
                    page.ask(Arc::new(empty), html).await?
                }
                Answerer::Custom(_) => {
                    eprintln!("forms host: declined: this answerer cannot ask about a URL");
                    json!({"action": "decline"})
                }
            }
        };
        let answer = url_response(answer)?;
        if accepted(&answer) {
            if let Ok(mut urls) = self.accepted_urls.lock() {
                urls.insert(request_url);
            }
        }
        Ok(answer)
    }

    /// Shows the form `view`, asked by `asker`, and returns the host response.
    async fn answer(&self, view: NativeView, asker: Asker) -> Result<Value, String> {
        let index = self.next_index()?;
        match &self.answerer {
            Answerer::Scripted(list, every) => Self::scripted(list, *every, index),
            Answerer::Page(render, options) => {
                let page = self.page_server(*options).await?;
                let html = render(&view, &asker)?;
                page.ask(Arc::new(view), html).await
            }
            Answerer::Custom(answer) => {
                let answer = Arc::clone(answer);
                tokio::task::spawn_blocking(move || answer(&view, &asker))
                    .await
                    .map_err(|e| e.to_string())?
            }
        }
    }
}

/// Reads `params` as a form request, native or core, as the host does before showing it
/// ([`NativeView::from_request`]): an object with a string `message` and a `requestedSchema`
/// of type `"object"` whose `properties` is an object (a core `requestedSchema` is an object
/// of that shape too).
pub fn check_native(params: &Value) -> Result<NativeView, String> {
    NativeView::from_request(params).map_err(|e| e.to_string())
}

/// Whether a host response accepts.
fn accepted(answer: &Value) -> bool {
    answer.get("action").and_then(Value::as_str) == Some("accept")
}

/// The server asking, from the handshake of the session `ctx` belongs to.
fn asker_of(ctx: &RequestContext<RoleClient>) -> Asker {
    let info = ctx.peer.peer_info();
    Asker::server(info.as_ref().and_then(|i| i.server_info.as_ref()))
}

fn malformed(method: &str, why: &str) -> McpError {
    let message = format!("malformed {method} request: {why}");
    eprintln!(
        "forms host: the server sent a {}; answered with a JSON-RPC error, still running",
        visible::visible(&message)
    );
    McpError::invalid_params(message, None)
}

impl ClientHandler for HostClient {
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        ctx: RequestContext<RoleClient>,
    ) -> Result<CustomResult, McpError> {
        if request.method != forms_mcp::ELICITATION_METHOD || self.core_only {
            return Err(McpError::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                format!("this host does not handle `{}`", request.method),
                None,
            ));
        }
        let params = request.params.unwrap_or(Value::Null);
        let view =
            check_native(&params).map_err(|why| malformed(forms_mcp::ELICITATION_METHOD, &why))?;
        match self.answer(view, asker_of(&ctx)).await {
            Ok(answer) => Ok(CustomResult::new(answer)),
            Err(why) => {
                eprintln!(
                    "forms host: the form was not answered: {}",
                    visible::visible(&why)
                );
                Err(McpError::internal_error(why, None))
            }
        }
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        ctx: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        if let ElicitRequestParams::UrlElicitationParams {
            message,
            url,
            elicitation_id,
            ..
        } = &request
        {
            let read = UrlRequest::read(message, url, elicitation_id)
                .map_err(|why| malformed("elicitation/create", &why))?;
            let id = read.elicitation_id.clone();
            let answer = self.answer_url(read, asker_of(&ctx)).await.map_err(|why| {
                eprintln!(
                    "forms host: the URL request was not answered: {}",
                    visible::visible(&why)
                );
                McpError::internal_error(why, None)
            })?;
            if accepted(&answer) && !id.is_empty() {
                if let Ok(mut opened) = self.opened.lock() {
                    opened.insert(id);
                }
            }
            return serde_json::from_value(answer).map_err(|e| {
                McpError::internal_error(format!("the answer is not a host response: {e}"), None)
            });
        }
        let mut params = serde_json::to_value(&request)
            .map_err(|e| malformed("elicitation/create", &e.to_string()))?;
        let meta = serde_json::to_value(&ctx.meta).unwrap_or(Value::Null);
        // The native schema travels under _meta; a core elicitation is shown as it is, and
        // so is every one a host without the extension gets.
        let native = meta
            .pointer("/openai~1elicitation/requestedSchema")
            .filter(|_| !self.core_only);
        if let Some(schema) = native {
            if let Some(object) = params.as_object_mut() {
                object.insert("requestedSchema".to_owned(), schema.clone());
            }
        }
        if let Some(object) = params.as_object_mut() {
            object.remove("_meta");
        }
        let view = check_native(&params).map_err(|why| malformed("elicitation/create", &why))?;
        let answer = match self.answer(view, asker_of(&ctx)).await {
            Ok(answer) => answer,
            Err(why) => {
                eprintln!(
                    "forms host: the form was not answered: {}",
                    visible::visible(&why)
                );
                return Err(McpError::internal_error(why, None));
            }
        };
        serde_json::from_value(answer).map_err(|e| {
            eprintln!(
                "forms host: the answer is not a host response: {}",
                visible::visible(&e.to_string())
            );
            McpError::internal_error(format!("the answer is not a host response: {e}"), None)
        })
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        _context: NotificationContext<RoleClient>,
    ) {
        if notification.method != "notifications/elicitation/complete" {
            return;
        }
        let id = notification
            .params
            .as_ref()
            .and_then(|p| p.get("elicitationId"))
            .and_then(Value::as_str);
        // Unknown and already completed IDs are ignored, as the specification requires.
        let known = match (id, self.opened.lock()) {
            (Some(id), Ok(mut opened)) => opened.remove(id),
            _ => false,
        };
        if let (true, Some(id)) = (known, id) {
            eprintln!(
                "forms host: the server says the interaction you opened is complete (elicitation {})",
                visible::visible(id)
            );
        }
    }

    fn get_info(&self) -> ClientConfig {
        let caps: ClientCapabilities =
            serde_json::from_value(host_capabilities(self.core_only)).unwrap_or_default();
        ClientConfig::new(
            caps,
            Implementation::new("forms-host", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(self.protocol.clone())
    }
}

/// Runs one session: connects, lists the tools, calls the tool when asked, and returns the
/// JSON to print (the tool list, or the call's result).
pub fn run(options: HostOptions) -> Result<Value, String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    runtime.block_on(run_async(options))
}

async fn run_async(options: HostOptions) -> Result<Value, String> {
    let client = HostClient {
        protocol: options.protocol.clone(),
        answerer: options.answerer.clone(),
        core_only: options.core_only,
        next: Arc::default(),
        page: Arc::default(),
        consent: options.consent.clone(),
        open_urls: options.open_urls,
        opened: Arc::default(),
        accepted_urls: Arc::default(),
    };
    match &options.target {
        Target::Command(argv) => {
            let Some((program, args)) = argv.split_first() else {
                return Err("no server command after `--`".to_owned());
            };
            let mut command = tokio::process::Command::new(program);
            command.args(args).kill_on_drop(true);
            let transport = rmcp::transport::TokioChildProcess::new(command)
                .map_err(|e| format!("cannot start {}: {e}", program.to_string_lossy()))?;
            session(client, trace::traced(transport, options.trace), &options).await
        }
        Target::Url(url) => {
            let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url.as_str());
            session(client, trace::traced(transport, options.trace), &options).await
        }
    }
}

async fn session<T>(
    client: HostClient,
    transport: T,
    options: &HostOptions,
) -> Result<Value, String>
where
    T: Transport<RoleClient> + 'static,
{
    use rmcp::{ClientLifecycleMode, ClientServiceExt};
    let running: RunningService<RoleClient, HostClient> = if options.protocol.has_initialize() {
        client.serve(transport).await
    } else {
        let preferred_versions = vec![options.protocol.clone()];
        client
            .serve_with_lifecycle(
                transport,
                ClientLifecycleMode::Discover { preferred_versions },
            )
            .await
    }
    .map_err(|e| format!("the server did not start a session: {e}"))?;
    let outcome = drive(&running, options).await;
    let _ = running.cancel().await;
    outcome
}

async fn drive(
    running: &RunningService<RoleClient, HostClient>,
    options: &HostOptions,
) -> Result<Value, String> {
    let tools = running
        .list_all_tools()
        .await
        .map_err(|e| format!("tools/list failed: {e}"))?;
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    let Some((name, arguments)) = &options.call else {
        return serde_json::to_value(&tools)
            .map(|tools| json!({"tools": tools}))
            .map_err(|e| e.to_string());
    };
    if !names.contains(&name.as_str()) {
        return Err(format!(
            "the server has no tool `{name}`; its tools: {}",
            names.join(", ")
        ));
    }
    eprintln!("forms host: calling `{}`", visible::visible(name));
    let params = CallToolRequestParams::new(name.clone()).with_arguments(arguments.clone());
    let result = running
        .call_tool_with_mrtr_max_rounds(params, ROUNDS_MAX)
        .await
        .map_err(|e| format!("tools/call `{name}` failed: {e}"))?;
    serde_json::to_value(&result).map_err(|e| e.to_string())
}
