//! Typed asking for rmcp server authors: ask the person a derived form (or a `form!` /
//! [`DataForm`]) from inside any tool, and get the typed outcome.
//!
//! A `#[tool]` function takes a [`FormCall`] beside its `Parameters` and asks with
//! [`FormAsker::ask`] (its doc example is a whole server); a hand-written
//! `ServerHandler::call_tool` asks with [`FormAsker::ask_form`], which takes the request and
//! its context. Because the multi-round-trip transport (protocol 2026-07-28) returns instead
//! of waiting, asking is two-phase over the call: an ask gives either [`Asked::Done`] with the
//! checked outcome, or [`Asked::InputRequired`] with the result to return from the tool; the
//! client then retries the same call with the answer and the same ask, run again, gives
//! `Done`. On older protocols the ask sends `openai/elicitation/create` to the host (or a core
//! `elicitation/create` to a host without the extension) and waits, so it is always `Done`.
//! The capability rules, the timeout and the error codes are the tool's.
//!
//! ```no_run
//! use forms_mcp::{Asked, FormAsker};
//! use forms_runtime::{Form, Outcome};
//! use rmcp::model::{CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock};
//! use rmcp::service::RequestContext;
//! use rmcp::RoleServer;
//!
//! #[derive(Form)]
//! #[form(message = "Set up your weekly report")]
//! struct Setup {
//!     /// What would you like to understand?
//!     goal: Option<String>,
//!     /// Report format
//!     format: Format,
//! }
//!
//! #[derive(Form)]
//! enum Format {
//!     Pdf,
//!     Html,
//! }
//!
//! async fn weekly_report(
//!     asker: &FormAsker,
//!     request: &CallToolRequestParams,
//!     ctx: &RequestContext<RoleServer>,
//! ) -> CallToolResponse {
//!     let setup = match asker.ask_form::<Setup>(request, ctx).await {
//!         Asked::InputRequired(result) => return result.into(),
//!         Asked::Done(Ok(Outcome::Accepted(setup))) => setup,
//!         Asked::Done(Ok(_)) => return CallToolResult::success(vec![ContentBlock::text("skipped")]).into(),
//!         Asked::Done(Err(error)) => return forms_mcp::error_response(&error),
//!     };
//!     let format = match setup.format { Format::Pdf => "PDF", Format::Html => "web page" };
//!     CallToolResult::success(vec![ContentBlock::text(format!("a {format} report"))]).into()
//! }
//! ```

use crate::call::FormCall;
use crate::capability::{input_round_form_support, legacy_form_support};
use crate::input_round::{self, Round};
use crate::state::{random_key, StateKeyError, States};
use crate::{core_elicitation, legacy};
use forms_runtime::data::{FormSpec, Question, QuestionSpec};
use forms_runtime::mcp::ToolResult;
use forms_runtime::{
    Answers, DataForm, ErrorCode, Form, FormError, Outcome, StaticForm, TypedForm,
};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ElicitRequest, InputRequiredResult,
    ServerRequest,
};
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use std::sync::Arc;
use std::time::Duration;

/// What an ask gives: the checked outcome, or the input-required result to return from the
/// tool (multi-round-trip, first round).
#[derive(Debug)]
pub enum Asked<T> {
    /// The person answered (or the ask failed with one of the six codes).
    Done(Result<Outcome<T>, FormError>),
    /// Return this from the tool; the client retries the call with the answer.
    InputRequired(InputRequiredResult),
}

impl<T> Asked<T> {
    /// Maps an accepted answer.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Asked<U> {
        match self {
            Asked::Done(result) => Asked::Done(result.map(|outcome| outcome.map(f))),
            Asked::InputRequired(result) => Asked::InputRequired(result),
        }
    }
}

/// The tool response of an ask's error: the `{"error":{…}}` envelope with `isError: true`.
pub fn error_response(error: &FormError) -> CallToolResponse {
    envelope(&ToolResult::from_error(error))
}

/// The tool response of a result envelope ([`crate::call_tool_result`]).
pub(crate) fn envelope(result: &ToolResult) -> CallToolResponse {
    CallToolResponse::Complete(
        crate::call_tool_result(result).unwrap_or_else(|_| CallToolResult::error(vec![])),
    )
}

/// Asks forms on behalf of one server: the timeout and the request-state key.
///
/// Keep one in the server struct and clone it freely (clones share the used-state store).
#[derive(Debug, Clone)]
pub struct FormAsker {
    timeout: Duration,
    states: Arc<States>,
    core_fallback: bool,
    url_mode: bool,
    page_preferred: bool,
    max_pages: usize,
    pages: crate::url_mode::Pages,
    interactions: crate::url_mode::Interactions,
}

/// What asking gives before the answer check.
pub(crate) enum Raw {
    Answer(Answer),
    InputRequired(InputRequiredResult),
}

/// The host's answer, for the answer checker.
pub(crate) enum Answer {
    /// The JSON text the host sent ([`crate::transport`]).
    Text(Box<serde_json::value::RawValue>),
    /// rmcp's reading of it, where the transport kept no text (multi-round-trip only: it
    /// differs from the text only for a repeated key).
    Value(serde_json::Value),
}

impl FormAsker {
    /// An asker that waits at most `timeout` and seals states with a random key of this
    /// process.
    pub fn new(timeout: Duration) -> FormAsker {
        let key = random_key();
        let states = States::new(&key).unwrap_or_else(|_| States::new_unchecked(&key));
        FormAsker {
            timeout,
            states: Arc::new(states),
            core_fallback: true,
            url_mode: true,
            page_preferred: false,
            max_pages: crate::page::DEFAULT_MAX_PAGES,
            pages: Arc::default(),
            interactions: Arc::default(),
        }
    }

    /// An asker whose states are sealed with `key` (at least 32 bytes); instances behind
    /// one load balancer need the same key.
    pub fn with_state_key(timeout: Duration, key: &[u8]) -> Result<FormAsker, StateKeyError> {
        Ok(FormAsker {
            timeout,
            states: Arc::new(States::new(key)?),
            core_fallback: true,
            url_mode: true,
            page_preferred: false,
            max_pages: crate::page::DEFAULT_MAX_PAGES,
            pages: Arc::default(),
            interactions: Arc::default(),
        })
    }

    /// The same asker, remembering used request states in `store` instead of in this
    /// process: a state answered once is refused on every instance sharing the store and the
    /// key, and after a restart. Clones made before keep the in-memory set.
    pub fn with_used_states(mut self, store: Arc<dyn crate::state::UsedStates>) -> FormAsker {
        self.states = Arc::new(self.states.with_store(store));
        self
    }

    /// [`FormAsker::with_used_states`] over a forms-ask store (a SQLite file or a PostgreSQL
    /// database, [`forms_ask::Store::claim_once`]).
    #[cfg(feature = "asks")]
    pub fn with_state_store(self, store: Arc<dyn forms_ask::Store>) -> FormAsker {
        self.with_used_states(Arc::new(crate::state::AskStore(store)))
    }

    /// Whether a client without the extension but with core form elicitation is asked
    /// through a core `elicitation/create` compiled from the same form (text as a string with
    /// its limits, choices and resources as titled enums of their ids and URIs, images
    /// dropped; a `files` question gives `unsupported_client` naming it); on by default. Off, such a client gets `unsupported_client`,
    /// as the Data tool's contract says.
    pub fn with_core_fallback(mut self, on: bool) -> FormAsker {
        self.core_fallback = on;
        self
    }

    /// Whether a client without the extension but with URL-mode elicitation
    /// (`capabilities.elicitation.url`, protocol 2025-11-25) is asked a form that a core form
    /// would not carry whole (a `files` question, resource cards, pictures, option
    /// descriptions) on the person's page, served by this process on 127.0.0.1 (see
    /// [`crate::page`]): the client gets an `elicitation/create` request in URL mode, and the
    /// page's checked submission is the answer. On by default; a form a core form carries
    /// whole still goes as a core form.
    pub fn with_url_mode(mut self, on: bool) -> FormAsker {
        self.url_mode = on;
        self
    }

    /// Whether every form goes to a URL-mode client on the page, even one a core form
    /// carries whole (off by default). Needs [`FormAsker::with_url_mode`] on.
    pub fn with_page_preferred(mut self, on: bool) -> FormAsker {
        self.page_preferred = on;
        self
    }

    /// How many URL-mode pages this asker holds open at once
    /// ([`crate::page::PageOptions::max_pages`], [`crate::page::DEFAULT_MAX_PAGES`] by
    /// default): an ask that would open one more is not asked and ends in `transport_error`
    /// saying so; a page's place is given back when its ask ends. Set it before the first
    /// URL-mode ask (the page server starts with the first, keeping its options).
    pub fn with_max_pages(mut self, max: usize) -> FormAsker {
        self.max_pages = max;
        self
    }

    /// The options of the asker's page server.
    fn page_options(&self) -> crate::page::PageOptions {
        crate::page::PageOptions {
            label: "forms-mcp",
            max_pages: self.max_pages,
            ..crate::page::PageOptions::default()
        }
    }

    /// The routes of the person's pages on another server's listener, under `prefix` (see
    /// [`crate::page::PageServer::mounted`]), when URL mode is on and no page server was
    /// started yet; the asker's URL-mode pages are then served there, at the origin of the
    /// tool call's own HTTP request.
    pub(crate) fn page_router(&self, prefix: &str) -> Option<axum::Router> {
        if !self.url_mode || self.pages.initialized() {
            return None;
        }
        let (server, router) =
            crate::page::PageServer::mounted(self.page_options(), prefix).ok()?;
        self.pages.set(server).ok()?;
        Some(router)
    }

    /// How long an ask waits for the submission (and how long a state lives).
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Asks the derived form `T` in the tool call `call`.
    pub async fn ask<T: StaticForm>(&self, call: &FormCall) -> Asked<T> {
        self.ask_typed(&T::form(), call).await
    }

    /// Asks the derived form `T`, inside the tool call `request` of a hand-written
    /// `ServerHandler::call_tool` ([`FormAsker::ask`] with [`FormCall::new`]).
    pub async fn ask_form<T: StaticForm>(
        &self,
        request: &CallToolRequestParams,
        ctx: &RequestContext<RoleServer>,
    ) -> Asked<T> {
        self.ask(&FormCall::new(request, ctx)).await
    }

    /// Asks a built typed form (one with run-time parts, from [`Form::build`]).
    pub async fn ask_typed<T: Form>(&self, form: &TypedForm<T>, call: &FormCall) -> Asked<T> {
        match self.ask_raw(form.data(), call).await {
            Ok(Raw::Answer(Answer::Text(answer))) => Asked::Done(form.decode(answer.get())),
            Ok(Raw::Answer(Answer::Value(answer))) => Asked::Done(form.decode_value(&answer)),
            Ok(Raw::InputRequired(result)) => Asked::InputRequired(result),
            Err(error) => Asked::Done(Err(error)),
        }
    }

    /// Asks an untyped form (from `form!` or [`DataForm::from_json`]).
    pub async fn ask_data<'f>(&self, form: &'f DataForm, call: &FormCall) -> Asked<Answers<'f>> {
        match self.ask_raw(form, call).await {
            Ok(Raw::Answer(Answer::Text(answer))) => Asked::Done(form.check_response(answer.get())),
            Ok(Raw::Answer(Answer::Value(answer))) => {
                Asked::Done(form.check_response_value(&answer))
            }
            Ok(Raw::InputRequired(result)) => Asked::InputRequired(result),
            Err(error) => Asked::Done(Err(error)),
        }
    }

    /// Asks one required text question, `question` (1–80 characters) as both the form's
    /// message and the field's title; the accepted answer is the text.
    pub async fn ask_text(&self, question: &str, call: &FormCall) -> Asked<String> {
        let form = match text_form(question) {
            Ok(form) => form,
            Err(error) => return Asked::Done(Err(error)),
        };
        match self.ask_data(&form, call).await {
            Asked::Done(result) => Asked::Done(result.and_then(|outcome| {
                match outcome {
                    Outcome::Accepted(answers) => answers
                        .text(TEXT_ID)
                        .map(|text| Outcome::Accepted(text.to_owned()))
                        .ok_or_else(|| {
                            FormError::new(
                                ErrorCode::InvalidResponse,
                                "content.answer: missing (V2)",
                            )
                        }),
                    Outcome::Declined => Ok(Outcome::Declined),
                    Outcome::Cancelled => Ok(Outcome::Cancelled),
                }
            })),
            Asked::InputRequired(result) => Asked::InputRequired(result),
        }
    }

    /// Asks one choice: a fieldless enum deriving `Form` is its own one-question form, so
    /// this is [`FormAsker::ask`] under the name a reader looks for.
    pub async fn ask_choice<E: StaticForm + forms_runtime::FormChoice>(
        &self,
        call: &FormCall,
    ) -> Asked<E> {
        self.ask::<E>(call).await
    }

    /// The adapter flow up to the host's raw answer.
    pub(crate) async fn ask_raw(&self, form: &DataForm, call: &FormCall) -> Result<Raw, FormError> {
        let ctx = call.context();
        let caps = ctx.client_capabilities();
        let multi_round_trip = ctx.protocol_version().is_some_and(|v| !v.has_initialize());
        let native = if multi_round_trip {
            input_round_form_support(caps.as_ref())
        } else {
            legacy_form_support(caps.as_ref())
        };
        // Without the extension, a client with URL-mode elicitation gets the page for a form
        // a core form does not carry whole.
        let page = !native
            && self.url_mode
            && crate::url_mode::url_support(caps.as_ref())
            && (self.page_preferred
                || !core_elicitation::fully_carried(form)
                || !core_elicitation::core_form_support(caps.as_ref()));
        // Without the extension, a client with core form elicitation gets the core schema.
        let core = !native
            && !page
            && self.core_fallback
            && core_elicitation::core_form_support(caps.as_ref());
        if !native && !core && !page {
            return Err(unsupported_client());
        }
        if crate::transport::Capture::of(ctx).is_none() {
            return Err(FormError::new(
                ErrorCode::TransportError,
                crate::transport::NOT_KEPT,
            ));
        }
        if multi_round_trip && page {
            let binding = tool_call_binding(call);
            return Ok(
                match crate::url_mode::round(
                    &self.pages,
                    self.page_options(),
                    &self.interactions,
                    &self.states,
                    form,
                    &binding,
                    call,
                    self.timeout,
                )
                .await?
                {
                    Round::Answer(answer) => Raw::Answer(answer),
                    Round::InputRequired(result) => Raw::InputRequired(result),
                },
            );
        }
        if multi_round_trip {
            let binding = tool_call_binding(call);
            return Ok(
                match input_round::round(&self.states, form, &binding, call, self.timeout, core)
                    .await?
                {
                    Round::Answer(answer) => Raw::Answer(answer),
                    Round::InputRequired(result) => Raw::InputRequired(result),
                },
            );
        }
        let answer = if page {
            crate::url_mode::ask(&self.pages, self.page_options(), ctx, form, self.timeout).await
        } else if core {
            let request =
                ServerRequest::ElicitRequest(ElicitRequest::new(core_elicitation::params(form)?));
            legacy::send(ctx, request, core_elicitation::METHOD, self.timeout).await
        } else {
            legacy::elicit(ctx, form, self.timeout).await
        };
        answer.map(|text| Raw::Answer(Answer::Text(text)))
    }
}

/// The tool call a state belongs to: its name and arguments.
fn tool_call_binding(call: &FormCall) -> Vec<u8> {
    let mut bytes = call.name().as_bytes().to_vec();
    bytes.push(0);
    if let Some(arguments) = call.arguments() {
        bytes.extend_from_slice(
            serde_json::to_string(arguments)
                .unwrap_or_default()
                .as_bytes(),
        );
    }
    bytes
}

const TEXT_ID: &str = "answer";

fn text_form(question: &str) -> Result<DataForm, FormError> {
    DataForm::new(FormSpec {
        message: question.to_owned(),
        questions: vec![Question {
            id: TEXT_ID.to_owned(),
            title: question.to_owned(),
            description: None,
            required: true,
            kind: QuestionSpec::Text { max_length: None },
        }],
    })
}

/// The `unsupported_client` error of a client without native form support.
pub(crate) fn unsupported_client() -> FormError {
    FormError::new(
        ErrorCode::UnsupportedClient,
        "the client did not advertise native form support \
         (capabilities.extensions[\"openai/elicitation\"].form)",
    )
}
