//! Durable requested replies as MCP tools: the operations of [`forms_ask`] (`ask_open`,
//! `ask_show`, `ask_respond`, `ask_wait`, `ask_cancel`, `ask_replace`, `ask_supersede`,
//! `ask_log`, `ask_message`, `ask_redeem`, `ask_report`, `ask_list`, `ask_members` and the
//! membership changes `ask_join`, `ask_remove`, `ask_revoke`, `ask_restore`, refused as
//! `not_manager` to anyone but an active manager of the conversation), served next to the Data
//! form tool when the server is given a store (`forms-mcp --asks DB`).
//!
//! # Who acts
//! The principal comes from the MCP session, never from the tool arguments (every input
//! schema is closed: an argument naming a principal is refused as an unknown property).
//! - Over stdio one server process is one principal, fixed at start
//!   ([`Principals::fixed`]: `--principal NAME` or `FORMS_ASK_PRINCIPAL`).
//! - Over HTTP the principal is the one the request's bearer token maps to
//!   ([`Principals::tokens`]: `--principal-token NAME=TOKEN`, repeatable, or whitespace-separated
//!   pairs in `FORMS_ASK_PRINCIPAL_TOKENS`, which keeps them out of the process list). A request without
//!   an `Authorization: Bearer …` header, or with a token not in the table, is refused with
//!   `unauthenticated`; a fixed principal is never used for an HTTP caller.
//!
//! # Forms that wait
//! `ask_open` takes a `form` (the Data form arguments, `{message, questions}`, checked with
//! rules R1–R27; refused with the findings): the question's answer is then a host response.
//! `ask_respond` takes it as `answer` (`{"action":"accept","content":{…}}`, decline or
//! cancel, as an object or its JSON text), checked against the stored form (rules V1–V8;
//! refused as `invalid_response` with the findings, nothing saved); `ask_show` and
//! `ask_wait` give the saved one as the request's `response`. A `files` answer sends the
//! files themselves: `uploads` `[{"name":"report.csv","data":"<base64>"}]`, each named in the
//! answer as `"upload:report.csv"`; a `file://` path is refused as `invalid_response` (the
//! responder may be anywhere; the path would be read on the requester's machine). The saved
//! response names each upload by the store's URI, and the requester's decode
//! ([`forms_ask::FormRequest`], [`crate::durable::DurableForms::read`]) gets its own copy.
//!
//! # Results
//! Like the Data tool's: the payload as `structuredContent` and the same JSON in
//! `content[0].text`. A request prints as its wire form plus `deadline` (`null` when it has
//! none, so `9999-01-01T00:00:00Z` is never shown as one); `ask_replace` gives
//! `{previous, replacement}`, `ask_log` `{events, next}` (one page; `next` is the `after` of
//! the following one). A refusal is `isError: true` with
//! `{"error":{"code","message"}}`, the code one of [`forms_ask::AskError::code`]'s, or
//! `invalid_arguments` or `unauthenticated`; a conflict or expiry carries `latest`, the
//! request as it is now.

use crate::auth::{Caller, Tokens};
use forms_ask::{
    ops, wire, Action, AsPrincipal, AskError, Asks, ConversationId, ExecutionStatus, Kind,
    NewRequest, Outcome, Principal, Redeem, Replaced, Replacement, Request, RequestId, Timestamp,
    Upload,
};
use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{CallToolResponse, CallToolResult, Tool};
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

/// The longest `ask_wait` waits in one call, in seconds: [`forms_ask::WAIT_SECONDS_MAX`],
/// the same for `forms ask wait`.
pub const WAIT_SECONDS_MAX: f64 = forms_ask::WAIT_SECONDS_MAX as f64;

/// How a call's principal is found.
#[derive(Clone, Debug, Default)]
pub struct Principals {
    fixed: Option<Principal>,
    tokens: Arc<Tokens>,
}

impl Principals {
    /// One principal for every call that does not come over HTTP (stdio).
    pub fn fixed(principal: Principal) -> Principals {
        Principals {
            fixed: Some(principal),
            tokens: Arc::default(),
        }
    }

    /// HTTP callers: each bearer token maps to its principal.
    pub fn tokens(tokens: Tokens) -> Principals {
        Principals {
            fixed: None,
            tokens: Arc::new(tokens),
        }
    }

    /// The principal of a call: over HTTP the one its bearer token maps to (as the transport
    /// established it, see [`crate::auth::Caller`]), otherwise the fixed one.
    fn of(&self, ctx: &RequestContext<RoleServer>) -> Result<Principal, Value> {
        let Some(parts) = ctx.extensions.get::<axum::http::request::Parts>() else {
            return self.fixed.clone().ok_or_else(|| {
                refusal(
                    "unauthenticated",
                    "this server was started without a principal (--principal)",
                )
            });
        };
        let caller = match parts.extensions.get::<Caller>() {
            Some(caller) => caller.clone(),
            // Served by another HTTP stack than `forms_mcp::http`: read the header here.
            None => self
                .tokens
                .caller(&parts.headers)
                .map_err(|e| refusal("unauthenticated", &e.to_string()))?,
        };
        caller.principal().cloned().ok_or_else(|| {
            refusal(
                "unauthenticated",
                "the request carries no `Authorization: Bearer` token this server knows",
            )
        })
    }
}

/// The requested-reply tools over one store.
#[derive(Clone)]
pub struct AskTools {
    asks: Arc<Engine>,
    principals: Principals,
}

/// The engine, dropped off the async runtime: the synchronous PostgreSQL client blocks on
/// its own runtime when its connections close, which may not happen on a runtime thread.
struct Engine(Option<Arc<Asks>>);

impl Drop for Engine {
    fn drop(&mut self) {
        if let Some(asks) = self.0.take() {
            if tokio::runtime::Handle::try_current().is_ok() {
                std::thread::spawn(move || drop(asks));
            }
        }
    }
}

impl std::fmt::Debug for AskTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AskTools")
            .field("asks", &self.asks.0)
            .field("principals", &self.principals)
            .finish()
    }
}

/// What a tool runs as the session's principal: a synchronous operation on the store (run
/// on the blocking pool), or `ask_wait`, which holds no thread while it waits.
#[derive(Clone)]
enum Run {
    Blocking(Arc<Operation>),
    Wait,
}

/// A synchronous operation: its checked arguments in, the payload or the refusal out.
type Operation = dyn Fn(&AsPrincipal<'_>, Value) -> Result<Value, Value> + Send + Sync;

/// An operation taking its arguments as `A` (a closed struct: an unknown property, a
/// principal among them, is refused as `invalid_arguments`).
fn blocking<A: DeserializeOwned + 'static>(
    f: fn(&AsPrincipal<'_>, A) -> Result<Value, Value>,
) -> Run {
    Run::Blocking(Arc::new(move |handle, arguments| {
        f(handle, args(arguments)?)
    }))
}

/// A boxed tool-call future, as rmcp's router takes it.
type RouteFuture<'a> =
    Pin<Box<dyn Future<Output = Result<CallToolResponse, rmcp::ErrorData>> + Send + 'a>>;

impl AskTools {
    /// The tools over `asks`, acting as the principal `principals` finds for each call.
    pub fn new(asks: Arc<Asks>, principals: Principals) -> AskTools {
        AskTools {
            asks: Arc::new(Engine(Some(asks))),
            principals,
        }
    }

    /// One route of rmcp's router per tool, in a router for any server `S`: the descriptor
    /// from the operation's shared description ([`forms_ask::ops`]), the call run as the
    /// session's principal.
    pub fn router<S: Send + Sync + 'static>(&self) -> ToolRouter<S> {
        let routes = [
            ("ask_open", blocking(open)),
            ("ask_show", blocking(show)),
            ("ask_respond", blocking(respond)),
            ("ask_wait", Run::Wait),
            ("ask_cancel", blocking(cancel)),
            ("ask_replace", blocking(replace)),
            ("ask_supersede", blocking(supersede)),
            ("ask_log", blocking(log)),
            ("ask_message", blocking(message)),
            ("ask_redeem", blocking(redeem)),
            ("ask_report", blocking(report)),
            ("ask_list", blocking(list)),
            ("ask_members", blocking(members)),
            ("ask_join", blocking(join)),
            ("ask_remove", blocking(remove)),
            ("ask_revoke", blocking(revoke)),
            ("ask_restore", blocking(restore)),
        ];
        let mut router = ToolRouter::new();
        for (name, run) in routes {
            if let Some(route) = self.route(name, run) {
                router.add_route(route);
            }
        }
        router
    }

    /// The route of the tool `name`, running `run`.
    fn route<S: Send + Sync + 'static>(&self, name: &str, run: Run) -> Option<ToolRoute<S>> {
        let tool = tool(name)?;
        let tools = self.clone();
        Some(ToolRoute::new_dyn(
            tool,
            move |ctx: ToolCallContext<'_, S>| {
                let tools = tools.clone();
                let run = run.clone();
                let ToolCallContext {
                    request_context,
                    arguments,
                    ..
                } = ctx;
                let call: RouteFuture<'_> = Box::pin(async move {
                    let result = tools.call(run, arguments, &request_context).await;
                    Ok(CallToolResponse::Complete(result))
                });
                call
            },
        ))
    }

    /// One call: the payload, or the refusal, as a tool result.
    async fn call(
        &self,
        run: Run,
        arguments: Option<serde_json::Map<String, Value>>,
        ctx: &RequestContext<RoleServer>,
    ) -> CallToolResult {
        let me = match self.principals.of(ctx) {
            Ok(me) => me,
            Err(error) => return result(error, true),
        };
        let arguments = Value::Object(arguments.unwrap_or_default());
        let Some(asks) = self.asks.0.clone() else {
            return result(refusal("store", "the store is closed"), true);
        };
        let blocking = |e: tokio::task::JoinError| refusal("store", &e.to_string());
        let run = async move {
            match run {
                Run::Blocking(operation) => {
                    let run = tokio::task::spawn_blocking(move || {
                        operation(&asks.as_principal(&me), arguments)
                    });
                    run.await.map_err(blocking)?
                }
                // The first read on the blocking pool; the wait itself holds no thread, and
                // dropping its handle (a cancelled or abandoned call) releases it at once.
                Run::Wait => {
                    let start = tokio::task::spawn_blocking(move || {
                        start_wait(&asks.as_principal(&me), arguments)
                    });
                    let waiting = start.await.map_err(blocking)??;
                    waiting
                        .await
                        .map(|r| request_json(&r))
                        .map_err(|e| ask_error(&e))
                }
            }
        };
        let outcome = tokio::select! {
            outcome = run => outcome,
            () = ctx.ct.cancelled() => Err(refusal("request_cancelled", "the tool call was cancelled")),
        };
        match outcome {
            Ok(payload) => result(payload, false),
            Err(error) => result(error, true),
        }
    }
}

/// The tool result of a payload, built with rmcp's constructors: `structuredContent` and
/// the same JSON in `content[0].text`, `isError` set, and `resultType: "complete"` (rmcp
/// leaves it out for a peer on protocol 2025-11-25 or older).
fn result(payload: Value, is_error: bool) -> CallToolResult {
    if is_error {
        CallToolResult::structured_error(payload)
    } else {
        CallToolResult::structured(payload)
    }
}

fn refusal(code: &str, message: &str) -> Value {
    wire::refusal(code, message)
}

fn ask_error(e: &AskError) -> Value {
    wire::error(e)
}

/// A request as the tools give it: [`forms_ask::wire::request`], with `deadline`.
fn request_json(r: &Request) -> Value {
    wire::request(r)
}

fn args<T: DeserializeOwned>(arguments: Value) -> Result<T, Value> {
    serde_json::from_value(arguments).map_err(|e| refusal("invalid_arguments", &e.to_string()))
}

fn id(raw: &str) -> Result<RequestId, Value> {
    RequestId::new(raw).map_err(|e| ask_error(&e))
}

fn timestamp(raw: Option<&str>) -> Result<Option<Timestamp>, Value> {
    raw.map(|s| {
        Timestamp::parse(s).ok_or_else(|| {
            refusal(
                "invalid_arguments",
                &format!(
                    "expires_at must be an RFC 3339 time such as 2026-12-31T12:00:00Z or \
                     2026-12-31T14:00:00+02:00, not {s:?}"
                ),
            )
        })
    })
    .transpose()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OpenArgs {
    conversation: String,
    #[serde(default)]
    kind: Option<Kind>,
    body: String,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    choices: Option<Vec<String>>,
    #[serde(default)]
    audience: Option<Vec<String>>,
    #[serde(default)]
    expires_at: Option<String>,
    #[serde(default)]
    action: Option<ActionArgs>,
    #[serde(default)]
    form: Option<Value>,
    key: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ActionArgs {
    executor: String,
    resource_version: String,
    arguments: Value,
    operation_key: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct IdArgs {
    id: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RespondArgs {
    id: String,
    version: u64,
    outcome: Outcome,
    #[serde(default)]
    answer: Option<AnswerArg>,
    #[serde(default)]
    uploads: Vec<UploadArg>,
    key: String,
}

/// One file of `ask_respond`'s `uploads`: its name and its bytes in base64.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UploadArg {
    name: String,
    data: String,
}

/// `ask_respond`'s answer: text, or the host response to a question's form as an object
/// (or as its JSON text).
#[derive(Deserialize)]
#[serde(untagged)]
enum AnswerArg {
    Text(String),
    Response(serde_json::Map<String, Value>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WaitArgs {
    id: String,
    #[serde(default)]
    timeout_seconds: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct VersionArgs {
    id: String,
    version: u64,
    key: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReplaceArgs {
    id: String,
    version: u64,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    expires_at: Option<String>,
    key: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MessageArgs {
    id: String,
    text: String,
    key: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RedeemArgs {
    id: String,
    action: ActionArgs,
    key: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReportArgs {
    id: String,
    operation_key: String,
    status: ExecutionStatus,
    #[serde(default)]
    detail: Option<String>,
    key: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListArgs {
    conversation: String,
    #[serde(default)]
    limit: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LogArgs {
    id: String,
    #[serde(default)]
    after: Option<String>,
    #[serde(default)]
    limit: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConversationArgs {
    conversation: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MembershipArgs {
    conversation: String,
    principals: Vec<String>,
}

fn open(handle: &AsPrincipal<'_>, a: OpenArgs) -> Result<Value, Value> {
    let e = |e: AskError| ask_error(&e);
    let conversation = ConversationId::new(a.conversation).map_err(e)?;
    let mut new = match a.kind.unwrap_or_default() {
        Kind::Question => NewRequest::question(a.body),
        Kind::Approval => NewRequest::approval(a.body),
        Kind::Task => NewRequest::task(a.body),
    };
    if let Some(t) = a.title {
        new = new.title(t);
    }
    if let Some(choices) = a.choices {
        new = new.choices(choices);
    }
    if let Some(list) = a.audience {
        let list = list
            .into_iter()
            .map(Principal::new)
            .collect::<Result<Vec<_>, _>>()
            .map_err(e)?;
        new = new.audience(list);
    }
    if let Some(at) = timestamp(a.expires_at.as_deref())? {
        new = new.expires_at(at);
    }
    // Checked with rules R1–R27 by the engine; refused with the findings.
    new.form = a.form;
    if let Some(action) = a.action {
        new = new.action(Action {
            executor: action.executor,
            resource_version: action.resource_version,
            arguments: action.arguments,
            operation_key: action.operation_key,
        });
    }
    let r = handle.open(&conversation, new, &a.key).map_err(e)?;
    Ok(request_json(&r))
}

fn show(handle: &AsPrincipal<'_>, a: IdArgs) -> Result<Value, Value> {
    Ok(request_json(
        &handle.show(&id(&a.id)?).map_err(|e| ask_error(&e))?,
    ))
}

fn log(handle: &AsPrincipal<'_>, a: LogArgs) -> Result<Value, Value> {
    let page = handle
        .log(
            &id(&a.id)?,
            a.after.as_deref(),
            a.limit.unwrap_or(forms_ask::LOG_DEFAULT),
        )
        .map_err(|e| ask_error(&e))?;
    Ok(wire::log(&page))
}

fn respond(handle: &AsPrincipal<'_>, a: RespondArgs) -> Result<Value, Value> {
    let request = id(&a.id)?;
    let answer = match a.answer {
        None => None,
        Some(AnswerArg::Text(text)) => Some(text),
        // The host response, checked against the stored form (rules V1–V8) as its JSON text.
        Some(AnswerArg::Response(object)) => {
            // An object answers a form; to a question without one it would be saved as text.
            let r = handle.show(&request).map_err(|e| ask_error(&e))?;
            if r.form.is_none() {
                return Err(refusal(
                    "invalid_arguments",
                    "answer: an object (a host response) answers a question carrying a form; \
                     this request carries none, so its answer is text",
                ));
            }
            Some(Value::Object(object).to_string())
        }
    };
    // Files sent with a form's answer, each checked (name, size, base64) before any read.
    if a.uploads.len() > forms_ask::UPLOADS_MAX {
        return Err(refusal(
            "invalid_arguments",
            &format!(
                "uploads: at most {} files, got {}",
                forms_ask::UPLOADS_MAX,
                a.uploads.len()
            ),
        ));
    }
    let uploads = a
        .uploads
        .into_iter()
        .map(|u| Upload::from_base64(u.name, &u.data))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| ask_error(&e))?;
    let r = handle
        .respond_with_uploads(
            &request,
            a.version,
            a.outcome,
            answer.as_deref(),
            &uploads,
            &a.key,
        )
        .map_err(|e| ask_error(&e))?;
    Ok(request_json(&r))
}

fn cancel(handle: &AsPrincipal<'_>, a: VersionArgs) -> Result<Value, Value> {
    let r = handle
        .cancel(&id(&a.id)?, a.version, &a.key)
        .map_err(|e| ask_error(&e))?;
    Ok(request_json(&r))
}

fn supersede(handle: &AsPrincipal<'_>, a: VersionArgs) -> Result<Value, Value> {
    let r = handle
        .supersede(&id(&a.id)?, a.version, &a.key)
        .map_err(|e| ask_error(&e))?;
    Ok(request_json(&r))
}

fn replace(handle: &AsPrincipal<'_>, a: ReplaceArgs) -> Result<Value, Value> {
    let change = Replacement {
        body: a.body,
        title: a.title,
        expires_at: timestamp(a.expires_at.as_deref())?,
    };
    let Replaced {
        previous,
        replacement,
    } = handle
        .replace(&id(&a.id)?, a.version, change, &a.key)
        .map_err(|e| ask_error(&e))?;
    Ok(json!({
        "previous": request_json(&previous),
        "replacement": request_json(&replacement),
    }))
}

fn message(handle: &AsPrincipal<'_>, a: MessageArgs) -> Result<Value, Value> {
    let event = handle
        .message(&id(&a.id)?, &a.text, &a.key)
        .map_err(|e| ask_error(&e))?;
    serde_json::to_value(event).map_err(|x| refusal("store", &x.to_string()))
}

fn redeem(handle: &AsPrincipal<'_>, a: RedeemArgs) -> Result<Value, Value> {
    let presented = Redeem {
        executor: a.action.executor,
        resource_version: a.action.resource_version,
        arguments: a.action.arguments,
        operation_key: a.action.operation_key,
    };
    let r = handle
        .redeem(&id(&a.id)?, &presented, &a.key)
        .map_err(|e| ask_error(&e))?;
    Ok(request_json(&r))
}

fn report(handle: &AsPrincipal<'_>, a: ReportArgs) -> Result<Value, Value> {
    let r = handle
        .report_execution(
            &id(&a.id)?,
            &a.operation_key,
            a.status,
            a.detail.as_deref(),
            &a.key,
        )
        .map_err(|e| ask_error(&e))?;
    Ok(request_json(&r))
}

fn list(handle: &AsPrincipal<'_>, a: ListArgs) -> Result<Value, Value> {
    let e = |e: AskError| ask_error(&e);
    let conversation = ConversationId::new(a.conversation).map_err(e)?;
    let limit = a.limit.unwrap_or(forms_ask::LIST_DEFAULT);
    Ok(wire::requests(
        &handle.list(&conversation, limit).map_err(e)?,
    ))
}

fn members(handle: &AsPrincipal<'_>, a: ConversationArgs) -> Result<Value, Value> {
    let e = |e: AskError| ask_error(&e);
    let conversation = ConversationId::new(a.conversation).map_err(e)?;
    let members = handle.members(&conversation).map_err(e)?;
    let events = handle.member_log(&conversation).map_err(e)?;
    Ok(json!({"conversation": conversation, "members": members, "events": events}))
}

/// One membership change of the session's principal, applied to each principal named: refused
/// with `not_manager` unless it is an active manager of the conversation.
type Change = fn(&AsPrincipal<'_>, &ConversationId, &Principal) -> Result<(), AskError>;

fn membership(handle: &AsPrincipal<'_>, a: MembershipArgs, change: Change) -> Result<Value, Value> {
    let e = |e: AskError| ask_error(&e);
    let conversation = ConversationId::new(a.conversation).map_err(e)?;
    if a.principals.is_empty() || a.principals.len() > forms_ask::AUDIENCE_MAX {
        return Err(refusal(
            "invalid_arguments",
            &format!(
                "principals: from 1 to {} principals, got {}",
                forms_ask::AUDIENCE_MAX,
                a.principals.len()
            ),
        ));
    }
    let principals = a
        .principals
        .into_iter()
        .map(Principal::new)
        .collect::<Result<Vec<_>, _>>()
        .map_err(e)?;
    for p in &principals {
        change(handle, &conversation, p).map_err(e)?;
    }
    let members = handle.members(&conversation).map_err(e)?;
    Ok(json!({"conversation": conversation, "members": members}))
}

fn join(handle: &AsPrincipal<'_>, a: MembershipArgs) -> Result<Value, Value> {
    membership(handle, a, |h, c, p| h.join(c, p))
}

fn remove(handle: &AsPrincipal<'_>, a: MembershipArgs) -> Result<Value, Value> {
    membership(handle, a, |h, c, p| h.remove_member(c, p))
}

fn revoke(handle: &AsPrincipal<'_>, a: MembershipArgs) -> Result<Value, Value> {
    membership(handle, a, |h, c, p| h.revoke_contact(c, p))
}

fn restore(handle: &AsPrincipal<'_>, a: MembershipArgs) -> Result<Value, Value> {
    membership(handle, a, |h, c, p| h.restore_contact(c, p))
}

/// Starts `ask_wait`: checks its arguments and reads the request once.
fn start_wait(handle: &AsPrincipal<'_>, arguments: Value) -> Result<forms_ask::WaitHandle, Value> {
    let a: WaitArgs = args(arguments)?;
    let secs = a.timeout_seconds.unwrap_or(30.0);
    if !(secs.is_finite() && (0.0..=WAIT_SECONDS_MAX).contains(&secs)) {
        return Err(refusal(
            "invalid_arguments",
            &format!("timeout_seconds is from 0 to {WAIT_SECONDS_MAX}, not {secs}"),
        ));
    }
    handle
        .start_wait(&id(&a.id)?, Duration::from_secs_f64(secs))
        .map_err(|e| ask_error(&e))
}

/// The descriptor of one tool, from the operation's shared description
/// ([`forms_ask::ops`]): its summary, its closed input schema with the library's limits (no
/// principal anywhere: it comes from the session) and whether it only reads.
fn tool(name: &str) -> Option<Tool> {
    let op = ops::find(name).filter(|op| op.tool && op.tool() == name)?;
    let descriptor = json!({
        "name": name,
        "description": op.summary,
        "inputSchema": op.input_schema(),
        "annotations": {
            "readOnlyHint": op.read_only,
            "destructiveHint": false,
            "idempotentHint": true,
            "openWorldHint": false,
        },
    });
    serde_json::from_value(descriptor).ok()
}
