//! Forms that wait, for tool authors: instead of blocking a tool call until the person
//! answers (a live ask, [`FormAsker`]), hand the form to a [`forms_ask`] store as a durable
//! form request, return its ID to the model at once, and read the decoded answer in a later
//! call, after any number of restarts.
//!
//! The choice is per call: [`DurableForms::ask`] takes a [`Delivery`], `Live` (the live ask,
//! unchanged) or `Durable` (the store). A durable ask gives [`Asking::Waiting`] with the
//! [`FormRequest<T>`]; [`waiting_result`] is the tool result that tells the model the request
//! ID. A later call ([`DurableForms::read`], or `ask_wait` / `ask_show` over MCP) gives the
//! [`FormReply<T>`], whose outcome is the same [`Outcome<T>`] a live ask gives, decoded from
//! the saved host response.
//!
//! The store's calls are synchronous (the PostgreSQL client blocks): every one runs on
//! Tokio's blocking pool, and a wait holds no thread while it waits.
//!
//! ```no_run
//! use forms_mcp::durable::{waiting_result, Asking, Delivery, DurableForms};
//! use forms_mcp::{FormAsker, FormCall};
//! use forms_ask::{Asks, ConversationId, NewRequest, Principal, RequestId};
//! use forms_runtime::{Form, Outcome};
//! use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock};
//! use std::sync::Arc;
//! use std::time::Duration;
//!
//! #[derive(Form, Debug)]
//! #[form(message = "Release checklist")]
//! struct Checklist {
//!     /// Changelog written?
//!     changelog: Done,
//! }
//!
//! #[derive(Form, Debug)]
//! enum Done {
//!     Yes,
//!     No,
//! }
//!
//! async fn checklist(
//!     asker: &FormAsker,
//!     durable: &DurableForms,
//!     call: &FormCall,
//!     person_is_away: bool,
//! ) -> CallToolResponse {
//!     let delivery = if person_is_away {
//!         Delivery::durable(
//!             ConversationId::new("release-42").unwrap(),
//!             Principal::new("agent").unwrap(),
//!             NewRequest::question("When you are back, fill in the checklist"),
//!             "checklist-1.4",
//!         )
//!     } else {
//!         Delivery::Live
//!     };
//!     match durable.ask::<Checklist>(asker, call, delivery).await {
//!         Asking::Waiting(pending) => waiting_result(&pending).into(),
//!         Asking::InputRequired(result) => result.into(),
//!         Asking::Done(Ok(Outcome::Accepted(list))) => {
//!             CallToolResult::success(vec![ContentBlock::text(format!("{list:?}"))]).into()
//!         }
//!         Asking::Done(Ok(_)) => CallToolResult::success(vec![ContentBlock::text("skipped")]).into(),
//!         Asking::Done(Err(error)) => forms_mcp::error_response(&error),
//!         Asking::Refused(error) => CallToolResult::structured_error(forms_ask::wire::error(&error)).into(),
//!     }
//! }
//!
//! // A later call, in any process sharing the store:
//! async fn checklist_result(durable: &DurableForms, id: RequestId) -> String {
//!     let agent = Principal::new("agent").unwrap();
//!     match durable.read::<Checklist>(&agent, &id, Duration::from_secs(30)).await {
//!         Ok(reply) => match reply.outcome {
//!             Some(Outcome::Accepted(list)) => format!("{list:?}"),
//!             Some(other) => format!("the person chose to {}", other.action()),
//!             None => format!("still {}", reply.request.state),
//!         },
//!         Err(e) => e.to_string(),
//!     }
//! }
//! ```

use crate::{Asked, FormAsker, FormCall};
use forms_ask::{
    wire, AskError, Asks, ConversationId, FormReply, FormRequest, NewRequest, Principal, RequestId,
    StoreError,
};
use forms_runtime::{Form, FormError, Outcome, StaticForm, TypedForm};
use rmcp::model::{CallToolResult, InputRequiredResult};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

/// Where forms that wait are kept: one engine over a store, shared by clones. The engine is
/// dropped off the asynchronous runtime (the synchronous PostgreSQL client blocks on its own
/// runtime when its connections close, which may not happen on a runtime thread).
#[derive(Clone, Debug)]
pub struct DurableForms {
    engine: Arc<Engine>,
}

/// The engine, dropped off the async runtime: the synchronous PostgreSQL client blocks on
/// its own runtime when its connections close, which may not happen on a runtime thread.
/// Shared by [`DurableForms`] and the requested-reply tools (`replies`).
#[derive(Debug)]
pub(crate) struct Engine(pub(crate) Option<Arc<Asks>>);

impl Drop for Engine {
    fn drop(&mut self) {
        if let Some(asks) = self.0.take() {
            if tokio::runtime::Handle::try_current().is_ok() {
                std::thread::spawn(move || drop(asks));
            }
        }
    }
}

/// How one call asks its form.
#[derive(Debug, Clone)]
pub enum Delivery {
    /// Now, blocking the tool call until the person answers ([`FormAsker`]).
    Live,
    /// Durably, as a form request in the store ([`Delivery::durable`]).
    Durable(Box<Handover>),
}

/// Where a durable form request goes: a form request in `conversation`, opened by
/// `requester` and described by `request` (body, title, audience, expiry: a question without
/// choices), with the retry key `key` (a retried call with the same key opens nothing new).
#[derive(Debug, Clone)]
pub struct Handover {
    /// The conversation the request lives in.
    pub conversation: ConversationId,
    /// Who asks (a member of the conversation).
    pub requester: Principal,
    /// The question around the form.
    pub request: NewRequest,
    /// The retry key of the opening.
    pub key: String,
}

impl Delivery {
    /// Durably: see [`Handover`].
    pub fn durable(
        conversation: ConversationId,
        requester: Principal,
        request: NewRequest,
        key: impl Into<String>,
    ) -> Delivery {
        Delivery::Durable(Box::new(Handover {
            conversation,
            requester,
            request,
            key: key.into(),
        }))
    }
}

/// What asking gives: a live ask's result, or the form request now waiting in the store.
#[derive(Debug)]
pub enum Asking<T> {
    /// Asked live: the person answered (or the ask failed with one of the six codes).
    Done(Result<Outcome<T>, FormError>),
    /// Asked live on the multi-round-trip protocol: return this from the tool.
    InputRequired(InputRequiredResult),
    /// Handed to the store: return [`waiting_result`] to the model; read the answer later.
    Waiting(Box<FormRequest<T>>),
    /// The store refused to open the request (not a member, an invalid form, the store …).
    Refused(AskError),
}

impl DurableForms {
    /// Forms that wait in the store of `asks`.
    pub fn new(asks: Arc<Asks>) -> DurableForms {
        DurableForms {
            engine: Arc::new(Engine(Some(asks))),
        }
    }

    /// The engine (present until this value is dropped).
    fn asks(&self) -> Result<Arc<Asks>, AskError> {
        self.engine
            .0
            .clone()
            .ok_or_else(|| AskError::Store(StoreError::Other("the store is closed".into())))
    }

    /// Asks the derived form `T`, live or durably as `delivery` says.
    pub async fn ask<T: StaticForm + Send + 'static>(
        &self,
        asker: &FormAsker,
        call: &FormCall,
        delivery: Delivery,
    ) -> Asking<T> {
        self.ask_typed(&T::form(), asker, call, delivery).await
    }

    /// Asks a built typed form (one with run-time parts), live or durably.
    pub async fn ask_typed<T: Form + Send + 'static>(
        &self,
        form: &TypedForm<T>,
        asker: &FormAsker,
        call: &FormCall,
        delivery: Delivery,
    ) -> Asking<T> {
        match delivery {
            Delivery::Live => match asker.ask_typed(form, call).await {
                Asked::Done(result) => Asking::Done(result),
                Asked::InputRequired(result) => Asking::InputRequired(result),
            },
            Delivery::Durable(to) => match self
                .hand_over(form, &to.conversation, &to.requester, to.request, &to.key)
                .await
            {
                Ok(pending) => Asking::Waiting(Box::new(pending)),
                Err(e) => Asking::Refused(e),
            },
        }
    }

    /// Opens the form request without asking live: the form is checked (rules R1–R27) and
    /// stored, and the handle returned at once.
    pub async fn hand_over<T: Form + Send + 'static>(
        &self,
        form: &TypedForm<T>,
        conversation: &ConversationId,
        requester: &Principal,
        request: NewRequest,
        key: &str,
    ) -> Result<FormRequest<T>, AskError> {
        let (asks, form, conversation, requester, key) = (
            self.asks()?,
            form.clone(),
            conversation.clone(),
            requester.clone(),
            key.to_owned(),
        );
        blocking(move || {
            asks.as_principal(&requester)
                .open_form(&conversation, &form, request, &key)
        })
        .await
    }

    /// The form request `id` as `reader` sees it now, or once it leaves `open` (at most
    /// `wait`; zero reads at once), with the saved response decoded into `T`.
    pub async fn read<T: StaticForm + Send + 'static>(
        &self,
        reader: &Principal,
        id: &RequestId,
        wait: Duration,
    ) -> Result<FormReply<T>, AskError> {
        self.read_with(T::form(), reader, id, wait).await
    }

    /// [`DurableForms::read`] for a form built with its parts: the stored form must be
    /// `form`'s.
    pub async fn read_with<T: Form + Send + 'static>(
        &self,
        form: TypedForm<T>,
        reader: &Principal,
        id: &RequestId,
        wait: Duration,
    ) -> Result<FormReply<T>, AskError> {
        let (asks, reader, id) = (self.asks()?, reader.clone(), id.clone());
        // The first read on the blocking pool; the wait itself holds no thread.
        let (pending, waiting) = blocking(move || {
            let me = asks.as_principal(&reader);
            let pending = FormRequest::resume_with(&me, &id, form)?;
            let waiting = me.start_wait(&id, wait)?;
            Ok((pending, waiting))
        })
        .await?;
        let request = waiting.await?;
        pending.decode(request)
    }
}

/// The tool result that hands a waiting form request back to the model: its ID, where it
/// lives and how to read the answer later.
pub fn waiting_result<T>(pending: &FormRequest<T>) -> CallToolResult {
    let request = pending.request();
    CallToolResult::structured(json!({
        "status": "waiting",
        "id": request.id,
        "conversation": request.conversation,
        "note": "the form waits for the person in the conversation; read the answer later \
                 (ask_wait or ask_show with this id)",
        "request": wire::request(request),
    }))
}

/// Runs a store call on the blocking pool.
async fn blocking<R: Send + 'static>(
    f: impl FnOnce() -> Result<R, AskError> + Send + 'static,
) -> Result<R, AskError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| AskError::Store(StoreError::Other(format!("a store call failed: {e}"))))?
}
