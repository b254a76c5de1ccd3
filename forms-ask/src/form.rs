//! Forms that wait: a question that carries a Data form, answered durably with a host
//! response and decoded into a Rust type.
//!
//! A live ask blocks a tool call until the person answers (and is gone if the process dies);
//! a form request is a durable [`Kind::Question`] whose question is a Data form. It lives in
//! its conversation like any request: versions, audience, expiry, replace, cancel and
//! conflicts are those of the seed's requests, and only the typed response endpoint
//! ([`AsPrincipal::respond`]) decides it; a follow-up message leaves it open.
//!
//! # How a form request maps onto the kinds, states and outcomes
//! - **Kind**: `question`. Its only outcome stays `answered`.
//! - **Opening** checks the form with rules R1–R27 ([`forms_runtime::DataForm::from_value`]); a form it
//!   refuses is [`AskError::Form`] (`invalid_arguments`, with the findings) and nothing is
//!   stored. A question carries choices or a form, never both; approvals and tasks carry none.
//! - **Responding**: the answer is the host response, `{"action":"accept","content":{…}}`,
//!   `{"action":"decline"}` or `{"action":"cancel"}`, checked against the stored form with the
//!   runtime's answer checker (rules V1–V8). A refused response is [`AskError::Form`]
//!   (`invalid_response`, with the findings) and changes nothing. An accepted one resolves the
//!   request with the outcome `answered` and is saved as given in [`Request::response`].
//! - **Decline and cancel by the person** are saved as what they are: the request is
//!   `resolved` with the outcome `answered`, and the saved response's action says `decline` or
//!   `cancel` (decoded as [`Outcome::Declined`] / [`Outcome::Cancelled`], as a live ask gives
//!   them). The request states `cancelled`, `expired` and `superseded` keep their seed
//!   meanings: the requester withdrew it, its deadline passed, or it was replaced. A person's
//!   "cancel" is never the requester's withdrawal: it is the person's recorded answer, and it
//!   is final like any response.
//! - **Replace** keeps the form, as it keeps the audience and the choices; the replacement
//!   is answered under its own ID.
//! - **Conflicts**: a stale version or a request already decided is [`AskError::Conflict`]
//!   with the latest request, whose `response` is the winner's saved answer.
//!
//! # Typed
//! [`AsPrincipal::open_form`] opens a derived form ([`StaticForm`], or one built with its
//! parts) and returns a [`FormRequest<T>`], whose [`FormRequest::show`] and
//! [`FormRequest::wait`] decode the saved response into `T` (the same [`Outcome<T>`] a live
//! ask gives). After a restart, [`FormRequest::resume`] rebuilds the handle from the request
//! ID and the type (checking that the stored form is `T`'s).
//!
//! ```
//! use forms_ask::{Asks, ConversationId, FormRequest, NewRequest, Principal, SqliteStore};
//! use forms_runtime::{Form, Outcome, StaticForm};
//! use std::time::Duration;
//!
//! #[derive(Form, Debug, PartialEq)]
//! #[form(message = "Release checklist")]
//! struct Checklist {
//!     /// Changelog written?
//!     changelog: Done,
//!     /// Anything else?
//!     notes: Option<String>,
//! }
//!
//! #[derive(Form, Debug, PartialEq)]
//! enum Done {
//!     Yes,
//!     No,
//! }
//!
//! # let dir = std::env::temp_dir().join(format!("forms-ask-form-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir).unwrap();
//! let asks = Asks::new(SqliteStore::open(dir.join("asks.db"))?);
//! let (chat, agent, ana) = (
//!     ConversationId::new("release-42")?,
//!     Principal::new("agent")?,
//!     Principal::new("ana")?,
//! );
//! asks.join(&chat, &agent)?;
//! asks.join(&chat, &ana)?;
//!
//! let me = asks.as_principal(&agent);
//! let pending = me.open_form(
//!     &chat,
//!     &Checklist::form(),
//!     NewRequest::question("When you are back, fill in the release checklist"),
//!     "open-1",
//! )?;
//!
//! // Later, anywhere: Ana answers with a host response, checked against the form.
//! asks.as_principal(&ana).respond_form(
//!     pending.id(),
//!     1,
//!     r#"{"action":"accept","content":{"changelog":"Yes"}}"#,
//!     "answer-1",
//! )?;
//!
//! // After a restart: the handle from the ID and the type.
//! let pending = FormRequest::<Checklist>::resume(&me, pending.id())?;
//! let reply = pending.wait(&me, Duration::from_secs(1))?;
//! assert_eq!(
//!     reply.outcome,
//!     Some(Outcome::Accepted(Checklist { changelog: Done::Yes, notes: None }))
//! );
//! # std::fs::remove_dir_all(&dir).ok();
//! # Ok::<(), forms_ask::AskError>(())
//! ```

use crate::engine::{stored_form, AsPrincipal};
use crate::error::AskError;
use crate::model::State;
use crate::model::{ConversationId, Kind, NewRequest, Outcome as Decided, Request, RequestId};
use crate::store::Store;
use forms_runtime::{Form, Outcome, StaticForm, TypedForm};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// A durable form request seen as the Rust type `T` of its form: decodes the saved host
/// response into `T`. Made by [`AsPrincipal::open_form`], or rebuilt from a request ID by
/// [`FormRequest::resume`] / [`FormRequest::resume_with`]. It holds no engine: each read
/// takes the [`AsPrincipal`] to read as.
///
/// # Files
/// A `files` answer of a request that waits holds uploads, never a path the responder
/// chose (see [`crate::upload`]). Decoding writes each uploaded file into a directory this
/// handle owns, `<dir>/<request ID>/<n>/<name>`, and `T` gets the `file://` URIs of those
/// files (a [`forms_runtime::FileRef::Local`] whose path is there). The directory is the
/// one given to [`FormRequest::uploads_dir`], or else a fresh private one made under the
/// system's temporary directory on the first decode that needs it
/// ([`FormRequest::uploads_dir_in_use`] names it). Offered URIs pass unchanged.
pub struct FormRequest<T> {
    request: Request,
    form: TypedForm<T>,
    store: Arc<dyn Store>,
    dir: Arc<OnceLock<PathBuf>>,
}

impl<T> Clone for FormRequest<T> {
    fn clone(&self) -> Self {
        FormRequest {
            request: self.request.clone(),
            form: self.form.clone(),
            store: Arc::clone(&self.store),
            dir: Arc::clone(&self.dir),
        }
    }
}

impl<T> std::fmt::Debug for FormRequest<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FormRequest")
            .field("type", &std::any::type_name::<T>())
            .field("request", &self.request)
            .finish()
    }
}

/// A form request as read, with its decoded answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormReply<T> {
    /// The request as it is now: inspect its state (open, resolved, cancelled, expired or
    /// superseded, with `replaced_by`) as well as the outcome.
    pub request: Request,
    /// Once resolved, the saved response decoded into `T`: accepted with the answers,
    /// declined or cancelled by the person. `None` while open, and when the request ended
    /// without a response (cancelled by the requester, expired, superseded).
    pub outcome: Option<Outcome<T>>,
}

impl<T> FormReply<T> {
    /// The accepted answers, if the person accepted.
    pub fn accepted(&self) -> Option<&T> {
        match &self.outcome {
            Some(Outcome::Accepted(t)) => Some(t),
            _ => None,
        }
    }
}

impl<T> FormRequest<T> {
    /// The request's ID.
    pub fn id(&self) -> &RequestId {
        &self.request.id
    }

    /// The request as read when the handle was made (opened or resumed).
    pub fn request(&self) -> &Request {
        &self.request
    }

    /// The typed form.
    pub fn form(&self) -> &TypedForm<T> {
        &self.form
    }

    /// The same handle, writing uploaded files under `dir` (made if missing) when it
    /// decodes: `<dir>/<request ID>/<n>/<name>`. `dir` should be the requester's own.
    pub fn uploads_dir(self, dir: impl Into<PathBuf>) -> FormRequest<T> {
        let chosen = OnceLock::new();
        let _ = chosen.set(dir.into());
        FormRequest {
            dir: Arc::new(chosen),
            ..self
        }
    }

    /// The directory uploaded files are written under, once known: the one given to
    /// [`FormRequest::uploads_dir`], or the private one made by the first decode that wrote
    /// a file.
    pub fn uploads_dir_in_use(&self) -> Option<&std::path::Path> {
        self.dir.get().map(PathBuf::as_path)
    }

    /// The uploads directory, made now if none was given.
    fn dir(&self) -> Result<PathBuf, AskError> {
        if let Some(dir) = self.dir.get() {
            return Ok(dir.clone());
        }
        let made = private_dir()?;
        Ok(self.dir.get_or_init(|| made).clone())
    }
}

/// A fresh directory only this user may enter, under the system's temporary directory:
/// made with `create_dir` (never one that already exists, which another user could own).
fn private_dir() -> Result<PathBuf, AskError> {
    let base = std::env::temp_dir();
    let mut last = None;
    for attempt in 0..8u32 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let tag = crate::retry::sha256_hex(&[
            &nanos.to_string(),
            &std::process::id().to_string(),
            &attempt.to_string(),
            &format!("{:p}", &base),
        ]);
        let dir = base.join(format!(
            "forms-ask-uploads-{}",
            tag.get(..24).unwrap_or(&tag)
        ));
        let mut builder = std::fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        match builder.create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) => last = Some(e),
        }
    }
    Err(AskError::InvalidInput(format!(
        "cannot make a directory for uploaded files under {}: {}",
        base.display(),
        last.map_or_else(String::new, |e| e.to_string())
    )))
}

impl<T: Form> FormRequest<T> {
    /// Rebuilds the handle of request `id` for a form built with its parts (`T::build`):
    /// the stored form must be exactly `form`'s, else the request is refused as
    /// `invalid_input` (decoding another form's answers into `T` would be a guess).
    pub fn resume_with(
        me: &AsPrincipal<'_>,
        id: &RequestId,
        form: TypedForm<T>,
    ) -> Result<FormRequest<T>, AskError> {
        let request = me.show(id)?;
        check_same_form(&request, &form)?;
        Ok(FormRequest {
            request,
            form,
            store: me.shared_store(),
            dir: Arc::new(OnceLock::new()),
        })
    }

    /// The request as it is now, with its saved response decoded.
    pub fn show(&self, me: &AsPrincipal<'_>) -> Result<FormReply<T>, AskError> {
        self.decode(me.show(self.id())?)
    }

    /// Waits until the request leaves `open` or `timeout` passes (a timeout only stops
    /// waiting; it never withdraws the request), then decodes as [`FormRequest::show`].
    /// An asynchronous caller starts the wait with [`AsPrincipal::start_wait`], awaits it and
    /// calls [`FormRequest::decode`].
    pub fn wait(&self, me: &AsPrincipal<'_>, timeout: Duration) -> Result<FormReply<T>, AskError> {
        self.decode(me.wait(self.id(), timeout)?)
    }

    /// Decodes a read of this request: the saved response of a resolved request into `T`
    /// (rules V1–V8 are checked again, against `T`'s form).
    pub fn decode(&self, request: Request) -> Result<FormReply<T>, AskError> {
        if request.id != self.request.id {
            return Err(AskError::InvalidInput(format!(
                "request {} is not the handle's request {}",
                request.id, self.request.id
            )));
        }
        let outcome = match (&request.state, &request.outcome, &request.response) {
            (State::Resolved, Some(Decided::Answered), Some(response)) => {
                let response = crate::upload::materialize(
                    self.form.data(),
                    &request.id,
                    response,
                    || self.store.uploads(&request.id),
                    || self.dir(),
                )?;
                Some(self.form.decode_value(&response).map_err(AskError::Form)?)
            }
            _ => None,
        };
        Ok(FormReply { request, outcome })
    }
}

impl<T: StaticForm> FormRequest<T> {
    /// Rebuilds the handle of request `id` from the type alone (after a restart, in another
    /// process): the stored form must be `T`'s, else `invalid_input`.
    pub fn resume(me: &AsPrincipal<'_>, id: &RequestId) -> Result<FormRequest<T>, AskError> {
        FormRequest::resume_with(me, id, T::form())
    }
}

/// Refuses a request whose stored form is not `form`'s (or that carries none).
fn check_same_form<T>(request: &Request, form: &TypedForm<T>) -> Result<(), AskError> {
    match stored_form(request)? {
        Some(stored) if stored == *form.data() => Ok(()),
        Some(_) => Err(AskError::InvalidInput(format!(
            "request {} carries another form than {}'s",
            request.id,
            std::any::type_name::<T>()
        ))),
        None => Err(AskError::InvalidInput(format!(
            "request {} carries no form",
            request.id
        ))),
    }
}

impl AsPrincipal<'_> {
    /// Opens a question carrying the typed form `form` (a [`StaticForm`]'s `T::form()`, or
    /// `T::build(parts)`), described by `new` (its body, title, audience and expiry; it must
    /// be a question without choices), and returns the handle that decodes its answer into
    /// `T`. The form is checked with rules R1–R27 like any Data form.
    pub fn open_form<T: Form>(
        &self,
        conversation: &ConversationId,
        form: &TypedForm<T>,
        new: NewRequest,
        key: &str,
    ) -> Result<FormRequest<T>, AskError> {
        if new.kind != Kind::Question {
            return Err(AskError::InvalidInput(format!(
                "only a question carries a form, not a {}",
                new.kind
            )));
        }
        let request = self.open(conversation, new.form(form.data()), key)?;
        Ok(FormRequest {
            request,
            form: form.clone(),
            store: self.shared_store(),
            dir: Arc::new(OnceLock::new()),
        })
    }

    /// Answers a question carrying a form with a host response given as JSON text: the
    /// same as [`AsPrincipal::respond`] with the outcome `answered` and the response as the
    /// answer.
    pub fn respond_form(
        &self,
        id: &RequestId,
        version: u64,
        response: &str,
        key: &str,
    ) -> Result<Request, AskError> {
        self.respond(id, version, Decided::Answered, Some(response), key)
    }
}
