// The front page opens with the crate's README (its example a doctest), then the details.
#![doc = include_str!("../README.md")]
//!
//! # In detail
//!
//! The Data form tool server on [rmcp](https://crates.io/crates/rmcp) 3.11: the MCP tool
//! `form_elicitation_v2_request`, which sends a Data form to the person through the host's
//! native `openai/elicitation/create` request and returns the checked answer.
//!
//! The binary `forms-mcp` serves the tool over stdio (the default) or streamable HTTP
//! (`--http 127.0.0.1:PORT`, endpoint `/mcp`). The library holds the same server,
//! [`FormsServer`], for embedding in an rmcp service.
//!
//! # One call
//! The arguments are checked strictly by the runtime (`invalid_arguments`); the client must
//! have advertised `capabilities.extensions["openai/elicitation"].form`
//! (`unsupported_client`); the runtime's native request is sent to the host as a JSON-RPC
//! custom request `openai/elicitation/create`; the server waits at most the timeout
//! (`timeout`), stops when the tool call is cancelled (`request_cancelled`, and the host
//! receives `notifications/cancelled` for its pending request), and reports a JSON-RPC error
//! or a closed connection as `transport_error`; the answer is checked by the runtime's answer
//! checker (`invalid_response`). The result carries the payload as `structuredContent` and as
//! the same JSON in `content[0].text`, with `isError: true` for errors
//! ([`forms_runtime::mcp::ToolResult`]); built with rmcp's constructors
//! ([`call_tool_result`]), it carries `resultType: "complete"` on protocol 2026-07-28, which
//! rmcp leaves out for older peers.
//!
//! # The host's answer, whole
//! The answer checker judges the answer as the host sent it, on both protocol generations,
//! exactly as `forms answer` judges the same text. rmcp reads every incoming message into its
//! own types first, so the transports of [`transport`] keep the raw JSON text of the parts
//! that hold an answer: [`transport::keep`] over any transport rmcp serves on
//! (`server.serve(forms_mcp::transport::keep(rmcp::transport::stdio()))`, a child process's
//! or a socket's streams, an in-process duplex) and [`transport::http_router`] over rmcp's
//! streamable HTTP service (what [`http::serve`] uses). Served without them, a `#[tool]`
//! function that takes a [`FormCall`] fails its first call with an error naming the fix, and
//! any other ask refuses with `transport_error`, on both protocol generations.
//!
//! # Protocol versions
//! Up to 2025-11-25 (the legacy transport) the server sends the host
//! `openai/elicitation/create` in the middle of the tool call. From 2026-07-28 (the
//! multi-round-trip transport) the first call returns an input-required result and the
//! client retries with the answer: the client's per-request capabilities must hold both
//! `elicitation.form` and `extensions["openai/elicitation"].form`, with no fallback. The
//! request state is sealed with rmcp's `RequestStateCodec`, bound to the arguments and the
//! caller, valid for the timeout and answered once ([`state`]); the key comes from
//! `FORMS_STATE_KEY` (hex, at least 32 bytes) or is random per process.
//!
//! # Requested replies
//! With the `asks` feature (off by default; the binary's `cli` feature turns it on) and `--asks DB`
//! (a SQLite path or a `postgres://` URL) the server also lists the tools of
//! [`forms_ask`]'s durable requested replies, `ask_open` … `ask_restore` ([`replies`]). The
//! principal comes from the session, never from the arguments: over stdio the one fixed at
//! start (`--principal NAME` or `FORMS_ASK_PRINCIPAL`), over HTTP the one the bearer token
//! maps to (`--principal-token NAME=TOKEN` or `FORMS_ASK_PRINCIPAL_TOKENS`); an HTTP call without a known token is refused
//! (`unauthenticated`).
//!
//! # Known limits
//! - rmcp parses the tool arguments into a JSON object before the runtime sees them, so a
//!   repeated key in the arguments is not reported (the last one wins).
//! - The host's answer is judged whole only through the transports of [`transport`]. Over
//!   any other transport an ask refuses (`transport_error`), since rmcp's typed reading of
//!   the answer drops unknown top-level keys and `"content": null`. A transport of rmcp's
//!   typed messages given to [`transport::keep`] has no text: its answers are the values it
//!   carries.
//! - To find the answers, the stdio transport copies each incoming line (at most rmcp's
//!   16 MiB line limit), and the HTTP layer reads the JSON body of a `POST` that may hold one
//!   (at most the body limit) before rmcp does. Only JSON-RPC 2.0 responses to a waited
//!   request are kept, one per request id; over HTTP only those rmcp accepts, within the
//!   memory budget for bodies.
//! - rmcp adds `_meta.progressToken` to the `openai/elicitation/create` params; every other
//!   key is the runtime's native request as compiled.
//! - The native params travel as a `serde_json::Value`, so this crate turns on serde_json's
//!   `preserve_order` to keep the properties in question order; in a workspace build that
//!   feature applies to every crate built with this one.
//! - Used multi-round-trip states are remembered in this process only: instances behind a
//!   load balancer need the same `FORMS_STATE_KEY` and a shared used-state store to refuse a
//!   replay sent to another instance.
//! - On HTTP a state is bound to the principal of a known bearer token, else to the digest of
//!   the token presented, plus the live session the request belongs to, if any ([`auth`]);
//!   a caller without a token is bound to the tool call's arguments (and session) alone.
//!
//! # Timeout
//! `DATA_FORMS_TIMEOUT_MS`, an integer from 1 to 1,500,000, sets how long a call waits for the
//! submission; the default is 15 minutes. It is passed to rmcp as both the request timeout
//! and the maximum total timeout. An invalid value stops the server at start
//! ([`config::timeout_from_env`]).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod ask;
pub mod auth;
mod call;
mod capability;
pub mod config;
mod core_elicitation;
#[cfg(feature = "asks")]
pub mod durable;
pub mod http;
mod input_round;
mod legacy;
pub mod page;
#[cfg(feature = "asks")]
pub mod replies;
pub mod secret;
pub mod serve;
mod server;
pub mod state;
mod stop;
pub mod transport;
mod url_mode;

pub use ask::{error_response, Asked, FormAsker};
pub use call::FormCall;
pub use capability::EXTENSION;
pub use input_round::INPUT_KEY;
pub use legacy::ELICITATION_METHOD;
pub use server::{call_tool_result, tool, FormsServer, PROTOCOL_VERSION_MAX};
pub use stop::{asking, Stop};
pub use url_mode::FILE_RETENTION;
