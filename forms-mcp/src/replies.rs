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
//! # Tools
//! Each tool is a `#[tool]` function of [`AskTools`] taking its operation's arguments as one
//! type of [`forms_ask::args`] (`Parameters<…OpenArgs>`): its input schema, its summary and
//! its limits are that type's, the same the `forms ask` commands are built from; the acting
//! principal comes from the call (an extractor, like [`crate::FormCall`]).
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
use crate::durable::Engine;
use forms_ask::args::{
    self, CancelArgs, JoinArgs, ListArgs, LogArgs, MembersArgs, MessageArgs, OpenArgs, Operation,
    RedeemArgs, Refused, RemoveArgs, ReplaceArgs, ReportArgs, RespondArgs, RestoreArgs, RevokeArgs,
    ShowArgs, SupersedeArgs, WaitArgs,
};
use forms_ask::{wire, Asks, Principal};
use rmcp::handler::server::common::FromContextPart;
use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::schemars::{JsonSchema, Schema, SchemaGenerator};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, RoleServer};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use std::borrow::Cow;
use std::future::Future;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

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

impl std::fmt::Debug for AskTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AskTools")
            .field("asks", &self.asks.0)
            .field("principals", &self.principals)
            .finish()
    }
}

/// Who calls a tool, taken by each `#[tool]` function like [`crate::FormCall`]: the
/// principal the call acts as (or the `unauthenticated` refusal), found by [`Principals`]
/// from the session or the HTTP request, never from the arguments, and the call's
/// cancellation.
pub struct Acting {
    principal: Result<Principal, Value>,
    cancelled: CancellationToken,
}

impl FromContextPart<ToolCallContext<'_, AskTools>> for Acting {
    fn from_context_part(
        context: &mut ToolCallContext<'_, AskTools>,
    ) -> Result<Self, rmcp::ErrorData> {
        let request = context.request_context();
        Ok(Acting {
            principal: context.service.principals.of(request),
            cancelled: request.ct.clone(),
        })
    }
}

/// An operation's arguments as a tool takes them: read into `T`, or the reason they are not
/// one (refused as `invalid_arguments`, a tool result, not a protocol error). Its schema is
/// `T`'s, each description on one line.
pub struct Checked<T>(Result<T, String>);

impl<'de, T: DeserializeOwned> Deserialize<'de> for Checked<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let arguments = Value::deserialize(deserializer)?;
        Ok(Checked(
            serde_json::from_value(arguments).map_err(|e| e.to_string()),
        ))
    }
}

impl<T: JsonSchema> JsonSchema for Checked<T> {
    fn schema_name() -> Cow<'static, str> {
        T::schema_name()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut schema = Value::from(T::json_schema(generator));
        args::one_line(&mut schema);
        Schema::try_from(schema).unwrap_or_else(|_| Schema::default())
    }
}

impl AskTools {
    /// The tools over `asks`, acting as the principal `principals` finds for each call.
    pub fn new(asks: Arc<Asks>, principals: Principals) -> AskTools {
        AskTools {
            asks: Arc::new(Engine(Some(asks))),
            principals,
        }
    }

    /// The tools' routes in a router for any server `S` (each call runs on these tools):
    /// the `#[tool]` functions below, their input schemas those of [`forms_ask::args`].
    pub fn router<S: Send + Sync + 'static>(&self) -> ToolRouter<S> {
        let mut router = ToolRouter::new();
        for route in AskTools::tools() {
            let mut attr = route.attr.clone();
            // The schema as the tools always published it: without the generator's `$schema`.
            let mut schema = attr.input_schema.as_ref().clone();
            schema.remove("$schema");
            attr.input_schema = Arc::new(schema);
            let (call, tools) = (route.call.clone(), self.clone());
            router.add_route(ToolRoute::new_dyn(
                attr,
                move |ctx: ToolCallContext<'_, S>| {
                    let (call, tools) = (call.clone(), tools.clone());
                    let name = ctx.name.clone();
                    let arguments = ctx.arguments;
                    let request_context = ctx.request_context;
                    Box::pin(async move {
                        let mut on_tools = ToolCallContext::new(
                            &tools,
                            CallToolRequestParams::new(name),
                            request_context,
                        );
                        on_tools.arguments = arguments;
                        call(on_tools).await
                    })
                },
            ));
        }
        router
    }

    /// The principal, the store and the arguments of a call, or the refusal: a call without
    /// a principal is refused before its arguments are read.
    fn ready<A>(
        &self,
        acting: &Acting,
        args: Checked<A>,
    ) -> Result<(Arc<Asks>, Principal, A), Value> {
        let me = acting.principal.clone()?;
        let asks = self
            .asks
            .0
            .clone()
            .ok_or_else(|| refusal("store", "the store is closed"))?;
        let args = args.0.map_err(|e| refusal("invalid_arguments", &e))?;
        Ok((asks, me, args))
    }

    /// A synchronous operation, run on the blocking pool as the caller.
    async fn blocking<A: Operation>(&self, acting: Acting, args: Checked<A>) -> CallToolResult {
        let (asks, me, args) = match self.ready(&acting, args) {
            Ok(ready) => ready,
            Err(refused) => return CallToolResult::structured_error(refused),
        };
        let run = async move {
            let run = tokio::task::spawn_blocking(move || {
                args.run(&asks.as_principal(&me)).map_err(|e| e.wire())
            });
            run.await.map_err(joined)?
        };
        finish(&acting, run).await
    }
}

/// The payload, or the refusal, as a tool result (`structuredContent` and the same JSON in
/// `content[0].text`, `isError` on a refusal), unless the call is cancelled first.
async fn finish(
    acting: &Acting,
    run: impl Future<Output = Result<Value, Value>>,
) -> CallToolResult {
    let outcome = tokio::select! {
        outcome = run => outcome,
        () = acting.cancelled.cancelled() => Err(refusal("request_cancelled", "the tool call was cancelled")),
    };
    match outcome {
        Ok(payload) => CallToolResult::structured(payload),
        Err(refused) => CallToolResult::structured_error(refused),
    }
}

fn refusal(code: &str, message: &str) -> Value {
    wire::refusal(code, message)
}

fn joined(e: tokio::task::JoinError) -> Value {
    refusal("store", &e.to_string())
}

/// Each tool: its operation's arguments and summary ([`forms_ask::args`]), whether it only
/// reads, run as the caller.
#[tool_router(router = tools)]
impl AskTools {
    #[tool(description = args::summary::<OpenArgs>(), annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false))]
    async fn ask_open(
        &self,
        acting: Acting,
        Parameters(args): Parameters<Checked<OpenArgs>>,
    ) -> CallToolResult {
        self.blocking(acting, args).await
    }

    #[tool(description = args::summary::<ShowArgs>(), annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false))]
    async fn ask_show(
        &self,
        acting: Acting,
        Parameters(args): Parameters<Checked<ShowArgs>>,
    ) -> CallToolResult {
        self.blocking(acting, args).await
    }

    #[tool(description = args::summary::<RespondArgs>(), annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false))]
    async fn ask_respond(
        &self,
        acting: Acting,
        Parameters(args): Parameters<Checked<RespondArgs>>,
    ) -> CallToolResult {
        self.blocking(acting, args).await
    }

    /// The first read on the blocking pool; the wait itself holds no thread, and dropping
    /// its handle (a cancelled or abandoned call) releases it at once.
    #[tool(description = args::summary::<WaitArgs>(), annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false))]
    async fn ask_wait(
        &self,
        acting: Acting,
        Parameters(args): Parameters<Checked<WaitArgs>>,
    ) -> CallToolResult {
        let (asks, me, args) = match self.ready(&acting, args) {
            Ok(ready) => ready,
            Err(refused) => return CallToolResult::structured_error(refused),
        };
        let run = async move {
            let start = tokio::task::spawn_blocking(move || {
                args.start(&asks.as_principal(&me)).map_err(|e| e.wire())
            });
            let waiting = start.await.map_err(joined)??;
            waiting
                .await
                .map(|r| wire::request(&r))
                .map_err(|e| Refused::from(e).wire())
        };
        finish(&acting, run).await
    }

    #[tool(description = args::summary::<CancelArgs>(), annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false))]
    async fn ask_cancel(
        &self,
        acting: Acting,
        Parameters(args): Parameters<Checked<CancelArgs>>,
    ) -> CallToolResult {
        self.blocking(acting, args).await
    }

    #[tool(description = args::summary::<ReplaceArgs>(), annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false))]
    async fn ask_replace(
        &self,
        acting: Acting,
        Parameters(args): Parameters<Checked<ReplaceArgs>>,
    ) -> CallToolResult {
        self.blocking(acting, args).await
    }

    #[tool(description = args::summary::<SupersedeArgs>(), annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false))]
    async fn ask_supersede(
        &self,
        acting: Acting,
        Parameters(args): Parameters<Checked<SupersedeArgs>>,
    ) -> CallToolResult {
        self.blocking(acting, args).await
    }

    #[tool(description = args::summary::<LogArgs>(), annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false))]
    async fn ask_log(
        &self,
        acting: Acting,
        Parameters(args): Parameters<Checked<LogArgs>>,
    ) -> CallToolResult {
        self.blocking(acting, args).await
    }

    #[tool(description = args::summary::<MessageArgs>(), annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false))]
    async fn ask_message(
        &self,
        acting: Acting,
        Parameters(args): Parameters<Checked<MessageArgs>>,
    ) -> CallToolResult {
        self.blocking(acting, args).await
    }

    #[tool(description = args::summary::<RedeemArgs>(), annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false))]
    async fn ask_redeem(
        &self,
        acting: Acting,
        Parameters(args): Parameters<Checked<RedeemArgs>>,
    ) -> CallToolResult {
        self.blocking(acting, args).await
    }

    #[tool(description = args::summary::<ReportArgs>(), annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false))]
    async fn ask_report(
        &self,
        acting: Acting,
        Parameters(args): Parameters<Checked<ReportArgs>>,
    ) -> CallToolResult {
        self.blocking(acting, args).await
    }

    #[tool(description = args::summary::<ListArgs>(), annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false))]
    async fn ask_list(
        &self,
        acting: Acting,
        Parameters(args): Parameters<Checked<ListArgs>>,
    ) -> CallToolResult {
        self.blocking(acting, args).await
    }

    #[tool(description = args::summary::<MembersArgs>(), annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false))]
    async fn ask_members(
        &self,
        acting: Acting,
        Parameters(args): Parameters<Checked<MembersArgs>>,
    ) -> CallToolResult {
        self.blocking(acting, args).await
    }

    #[tool(description = args::summary::<JoinArgs>(), annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false))]
    async fn ask_join(
        &self,
        acting: Acting,
        Parameters(args): Parameters<Checked<JoinArgs>>,
    ) -> CallToolResult {
        self.blocking(acting, args).await
    }

    #[tool(description = args::summary::<RemoveArgs>(), annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false))]
    async fn ask_remove(
        &self,
        acting: Acting,
        Parameters(args): Parameters<Checked<RemoveArgs>>,
    ) -> CallToolResult {
        self.blocking(acting, args).await
    }

    #[tool(description = args::summary::<RevokeArgs>(), annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false))]
    async fn ask_revoke(
        &self,
        acting: Acting,
        Parameters(args): Parameters<Checked<RevokeArgs>>,
    ) -> CallToolResult {
        self.blocking(acting, args).await
    }

    #[tool(description = args::summary::<RestoreArgs>(), annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false))]
    async fn ask_restore(
        &self,
        acting: Acting,
        Parameters(args): Parameters<Checked<RestoreArgs>>,
    ) -> CallToolResult {
        self.blocking(acting, args).await
    }
}
