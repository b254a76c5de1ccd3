//! The person's page server: one small HTTP server on 127.0.0.1 that serves the forms
//! waiting for an answer, each under its own unguessable path, which only the person who
//! reads that URL (and, for a gated page, knows its code) can use. `forms host` and
//! `forms ask page` keep one page for the session ([`PageServer::start`],
//! [`PageServer::ask`]); `forms-mcp`'s URL-mode asks open one page per ask
//! ([`PageServer::open`]).
//!
//! It runs on the serving stack ([`crate::serve`], the one `forms-mcp --http` runs on), as
//! axum routes behind two middlewares:
//!
//! - `Host` must be the bound address (`127.0.0.1:PORT` or `localhost:PORT`), so a name that
//!   rebinds to 127.0.0.1 reaches nothing; a present `Origin` must be that same origin
//!   (`http://127.0.0.1:PORT`), so no other site, no `file://` page and no sandboxed frame
//!   can post (the stack's [`Hosts`] check, with [`Hosts::same_origin`]).
//! - A page's URL carries a secret of 256 random bits (`http://127.0.0.1:PORT/SECRET/`);
//!   every request must start its path with the secret of an open page (compared in constant
//!   time with each), and a POST whose `Sec-Fetch-Site` is not `same-origin` is refused too.
//!   Refusals of these two checks are reported on standard error (the first 20).
//! - A gated page ([`PageServer::open`] with a code) first asks for its code, which the
//!   person was told elsewhere (the URL-mode request's message, shown by their own client):
//!   `POST /SECRET/code` with the right code sets a cookie of another 256 random bits,
//!   scoped to the page's path (`HttpOnly`, `SameSite=Strict`), which every later request
//!   of the page must carry; [`CODE_TRIES`] wrong codes cancel the ask. A second browser
//!   with the URL but without the code is shown the code prompt and answers nothing.
//! - `GET /SECRET/` serves the form waiting for an answer (or a short note when none is).
//!   The page POSTs the host response to `/SECRET/answer/N` (`N` numbers the forms of the
//!   server) as `application/json` only, at most 1 MiB; when the page was opened with an
//!   answer check, a refused answer gets 422 with the findings (the page shows them and the
//!   form stays open); the first taken answer to a waiting form ends it, any later one gets
//!   409.
//! - An added file is POSTed to `/SECRET/file/N?question=ID&name=NAME&type=MIME` as
//!   `application/octet-stream`: the question's `accept` filter and the size limit
//!   ([`PageOptions::max_file_bytes`]) are checked, the bytes are written into the page's
//!   private directory (see `files.rs`), and the answer is `{"uri":"file:///…","path":"/…"}`.
//! - Every response carries `Cache-Control: no-store`, forbids framing
//!   (`Content-Security-Policy: frame-ancestors 'none'`, `X-Frame-Options: DENY`) and sends
//!   no referrer.
//! - Headers must arrive within 10 s (an idle kept-alive connection is closed after as long),
//!   an answer's body within 10 s (read by the stack's [`Bodies`]), an added file with no
//!   pause over 15 s and within 10 minutes; at most 32 connections are open at once (a new one
//!   ends the oldest idle one; while all are busy, new ones wait to be accepted), each for at
//!   most 10 minutes.
//! - At most [`PageOptions::max_pages`] pages opened with [`PageServer::open`] are open at
//!   once ([`DEFAULT_MAX_PAGES`] unless told otherwise): one more is refused, and a page's
//!   place is given back when it closes (with its ask).

mod files;
pub use files::accepts;

use crate::secret::{random_hex, same};
use crate::serve::{Bodies, Hosts, Limits};
use axum::body::{Body, HttpBody};
use axum::extract::{Path as UrlPath, Request, State};
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, Method, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Router};
use forms_runtime::native::NativeView;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::sync::{oneshot, OnceCell};
use tokio_util::sync::CancellationToken;

/// The size limit of one added file unless told otherwise: 100 MiB.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 100 * 1024 * 1024;

/// The wrong codes a gated page takes before its ask is cancelled.
pub const CODE_TRIES: u32 = 5;

/// The pages one page server holds open at once unless told otherwise
/// ([`PageOptions::max_pages`]): 64.
pub const DEFAULT_MAX_PAGES: usize = 64;

/// How the page server behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageOptions {
    /// The largest file, in bytes, the person may add on the page.
    pub max_file_bytes: u64,
    /// The pages opened with [`PageServer::open`] (one per URL-mode ask) held open at once;
    /// one more is refused until a page closes. The session page of
    /// [`PageServer::start`] does not count.
    pub max_pages: usize,
    /// The program named at the start of the server's lines on standard error (`LABEL:
    /// answer the form at URL`); `forms host` by default.
    pub label: &'static str,
}

impl Default for PageOptions {
    fn default() -> Self {
        PageOptions {
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            max_pages: DEFAULT_MAX_PAGES,
            label: "forms host",
        }
    }
}

/// The time a request's headers may take, and an idle kept-alive connection may stay.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// The time an answer's body may take.
const BODY_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest pause within an added file's body.
const UPLOAD_PAUSE: Duration = Duration::from_secs(15);
/// The time an added file's body may take in all.
const UPLOAD_TIME: Duration = Duration::from_secs(600);
/// The longest a connection is served.
const CONNECTION_TIME: Duration = Duration::from_secs(600);
/// The connections served at once; more wait to be accepted.
const CONNECTIONS_MAX: usize = 32;
/// The largest answer body.
const ANSWER_BYTES_MAX: usize = 1024 * 1024;
/// The bytes of answer bodies past the first 64 KiB of each held at once.
const ANSWER_MEMORY: usize = 8 * 1024 * 1024;
/// The refused requests reported on standard error; later ones are counted only.
const SHOWN_REFUSALS: usize = 20;

/// Checks a submitted host response (its JSON text) against the form shown: `Err` holds the
/// findings shown to the person, who corrects the answer and submits again.
pub type AnswerCheck = Arc<dyn Fn(&str) -> Result<(), String> + Send + Sync>;

struct Pending {
    form: u64,
    html: String,
    view: Arc<NativeView>,
    check: Option<AnswerCheck>,
    reply: Option<oneshot::Sender<Value>>,
}

/// The code a gated page asks for, and the cookie of the browser that gave it.
struct Gate {
    code: String,
    tries: u32,
    cookie: Option<String>,
}

/// What happens to a page's added files when it closes.
#[derive(Debug, Clone, Copy)]
enum Keep {
    /// Kept (the host's session: the URIs in the result stay valid).
    Always,
    /// Removed this long after the page closed.
    For(Duration),
}

/// One page: its secret, the form waiting on it, its files and its gate.
struct Slot {
    key: String,
    pending: Option<Pending>,
    files: Arc<OnceCell<PathBuf>>,
    gate: Option<Gate>,
    keep: Keep,
}

/// A form waiting for its answer, as a request to its page sees it.
struct Waiting {
    view: Arc<NativeView>,
    check: Option<AnswerCheck>,
    files: Arc<OnceCell<PathBuf>>,
}

struct Inner {
    options: PageOptions,
    /// The path the pages are served under (`""` on their own listener).
    prefix: String,
    slots: Mutex<Vec<Slot>>,
    forms: AtomicU64,
    refusals: AtomicUsize,
}

/// A page server bound to 127.0.0.1 on a free port.
pub struct PageServer {
    origin: String,
    url: String,
    session: String,
    inner: Arc<Inner>,
}

/// One page of a [`PageServer`] opened with [`PageServer::open`]: closed (and its files
/// scheduled for removal) when dropped.
pub struct PageSlot {
    url: String,
    key: String,
    inner: Arc<Inner>,
}

/// A request the server does not serve, and why.
#[derive(Debug)]
enum Refusal {
    /// A status with a short text.
    Status(StatusCode, String),
    /// A refusal of the serving stack (a body over its limits).
    Response(Box<Response>),
}

impl Refusal {
    /// A request from somewhere other than the page (the caller reports it on stderr).
    fn foreign(reason: impl Into<String>) -> Refusal {
        Refusal::Status(StatusCode::FORBIDDEN, reason.into())
    }

    fn new(status: StatusCode, reason: impl Into<String>) -> Refusal {
        Refusal::Status(status, reason.into())
    }

    fn poisoned() -> Refusal {
        Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, "poisoned")
    }

    fn gone() -> Refusal {
        Refusal::new(
            StatusCode::CONFLICT,
            "this form is no longer waiting for an answer",
        )
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        match self {
            Refusal::Status(status, reason) => (status, reason).into_response(),
            Refusal::Response(response) => *response,
        }
    }
}

impl PageServer {
    /// Binds 127.0.0.1 on a free port, draws the session page's secret and serves in the
    /// background.
    pub async fn start(options: PageOptions) -> std::io::Result<PageServer> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
        let port = listener.local_addr()?.port();
        let session = random_hex::<32>()?;
        let origin = format!("http://127.0.0.1:{port}");
        let url = format!("{origin}/{session}/");
        let inner = Arc::new(Inner {
            options,
            prefix: String::new(),
            slots: Mutex::new(vec![Slot {
                key: session.clone(),
                pending: None,
                files: Arc::default(),
                gate: None,
                keep: Keep::Always,
            }]),
            forms: AtomicU64::new(0),
            refusals: AtomicUsize::new(0),
        });
        let reporter = Arc::clone(&inner);
        let hosts = Hosts::new(
            [format!("127.0.0.1:{port}"), format!("localhost:{port}")],
            [],
        )
        .same_origin()
        .reporting(Arc::new(move |reason: &str| reporter.report(reason)));
        let limits = Limits::new(
            CONNECTIONS_MAX,
            HEADER_TIMEOUT,
            Bodies::new(ANSWER_BYTES_MAX, BODY_TIMEOUT, ANSWER_MEMORY),
            hosts,
        )
        .with_connection_time(CONNECTION_TIME)
        .with_headers(guarded_headers());
        let app = routes(&inner);
        tokio::spawn(crate::serve::serve(
            listener,
            app,
            limits,
            CancellationToken::new(),
        ));
        Ok(PageServer {
            origin,
            url,
            session,
            inner,
        })
    }

    /// A page server without a listener of its own, for another server's listener (such as
    /// `forms-mcp --http`): its routes, to merge into that server's router, answer under
    /// `prefix` (such as `/forms-page`), and its pages are opened with
    /// [`PageServer::open_at`], naming the origin the person reaches that listener at. The
    /// host server's own `Host`/`Origin` checks and limits apply; a page also requires a
    /// present `Origin` to be the request's own (`http://` and its `Host`), and its responses
    /// carry the same no-store, no-framing and no-referrer headers.
    pub fn mounted(options: PageOptions, prefix: &str) -> std::io::Result<(PageServer, Router)> {
        let inner = Arc::new(Inner {
            options,
            prefix: prefix.trim_end_matches('/').to_owned(),
            slots: Mutex::new(Vec::new()),
            forms: AtomicU64::new(0),
            refusals: AtomicUsize::new(0),
        });
        let router = Router::new().nest(&inner.prefix, routes(&inner)).layer(
            axum::middleware::map_response(|mut response: Response| async move {
                response.headers_mut().extend(guarded_headers());
                response
            }),
        );
        Ok((
            PageServer {
                origin: String::new(),
                url: String::new(),
                session: String::new(),
                inner,
            },
            router,
        ))
    }

    /// Whether the pages are served under a path of another server's listener
    /// ([`PageServer::mounted`]).
    pub fn is_mounted(&self) -> bool {
        self.origin.is_empty()
    }

    /// The session page's URL, secret included (empty for a [`PageServer::mounted`] one).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Serves `html` (a page rendering the form `view`, such as
    /// [`forms_runtime::native::page::answer_page`]) on the session page and waits for its
    /// submit; the URL is printed on standard error as `LABEL: answer the form at URL`, with
    /// the label of the [`PageOptions`].
    pub async fn ask(&self, view: Arc<NativeView>, html: String) -> Result<Value, String> {
        eprintln!(
            "{}: answer the form at {}",
            self.inner.options.label, self.url
        );
        self.inner.ask(&self.session, view, html, None).await
    }

    /// Opens a page of its own under a new secret, for one ask: gated by `code` when given
    /// (the page asks for it before it shows the form), its added files in a private
    /// directory of its own, removed `retention` after the page closes.
    ///
    /// When [`PageOptions::max_pages`] pages are open already, no page is opened: the error
    /// is of kind [`std::io::ErrorKind::QuotaExceeded`] and says so. The page's place is
    /// given back when its [`PageSlot`] is dropped.
    pub fn open(&self, code: Option<String>, retention: Duration) -> std::io::Result<PageSlot> {
        self.open_at(&self.origin, code, retention)
    }

    /// [`PageServer::open`], the page's URL starting with `origin` (`http://HOST:PORT`, how
    /// the person reaches the listener the pages are served on).
    pub fn open_at(
        &self,
        origin: &str,
        code: Option<String>,
        retention: Duration,
    ) -> std::io::Result<PageSlot> {
        let key = random_hex::<32>()?;
        let slot = Slot {
            key: key.clone(),
            pending: None,
            files: Arc::default(),
            gate: code.map(|code| Gate {
                code,
                tries: CODE_TRIES,
                cookie: None,
            }),
            keep: Keep::For(retention),
        };
        let mut slots = self
            .inner
            .slots
            .lock()
            .map_err(|_| std::io::Error::other("poisoned"))?;
        let max = self.inner.options.max_pages;
        let open = slots
            .iter()
            .filter(|s| matches!(s.keep, Keep::For(_)))
            .count();
        if open >= max {
            return Err(std::io::Error::new(
                std::io::ErrorKind::QuotaExceeded,
                format!(
                    "{open} forms are already waiting on pages of this server, the most it holds \
                     at once ({max})"
                ),
            ));
        }
        slots.push(slot);
        drop(slots);
        Ok(PageSlot {
            url: format!("{origin}{}/{key}/", self.inner.prefix),
            key,
            inner: Arc::clone(&self.inner),
        })
    }
}

impl std::fmt::Debug for PageServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The secrets stay out of logs.
        f.debug_struct("PageServer")
            .field("origin", &self.origin)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for PageSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL holds the page's secret: it stays out of logs.
        f.debug_struct("PageSlot").finish_non_exhaustive()
    }
}

impl PageSlot {
    /// The page's URL: the server's origin and the page's secret, nothing else.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Serves `html` (a page rendering the form `view`) and waits for its submit: the first
    /// answer `check` takes, or a cancel when the code was given wrong too often.
    pub async fn ask(
        &self,
        view: Arc<NativeView>,
        html: String,
        check: Option<AnswerCheck>,
    ) -> Result<Value, String> {
        self.inner.ask(&self.key, view, html, check).await
    }
}

impl Drop for PageSlot {
    fn drop(&mut self) {
        let Ok(mut slots) = self.inner.slots.lock() else {
            return;
        };
        let Some(at) = slots.iter().position(|s| s.key == self.key) else {
            return;
        };
        let slot = slots.swap_remove(at);
        drop(slots);
        if let (Keep::For(retention), Some(dir)) = (slot.keep, slot.files.get().cloned()) {
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(async move {
                    tokio::time::sleep(retention).await;
                    let _ = tokio::fs::remove_dir_all(&dir).await;
                });
            }
        }
    }
}

/// The page routes, behind the secret check.
fn routes(inner: &Arc<Inner>) -> Router {
    Router::new()
        .route("/{secret}/", get(show))
        .route("/{secret}/code", post(code))
        .route("/{secret}/answer/{form}", post(answer))
        .route("/{secret}/file/{form}", post(add_file))
        .fallback(|| async { Refusal::new(StatusCode::NOT_FOUND, "no such page") })
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(inner),
            secret_check,
        ))
        .with_state(Arc::clone(inner))
}

/// The headers of every response: never cached, never framed, no referrer.
fn guarded_headers() -> Vec<(HeaderName, HeaderValue)> {
    [
        (header::CACHE_CONTROL, "no-store"),
        (header::CONTENT_SECURITY_POLICY, "frame-ancestors 'none'"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        (
            HeaderName::from_static("cross-origin-resource-policy"),
            "same-origin",
        ),
        (
            HeaderName::from_static("cross-origin-opener-policy"),
            "same-origin",
        ),
    ]
    .into_iter()
    .map(|(name, value)| (name, HeaderValue::from_static(value)))
    .collect()
}

/// The name of a gated page's cookie.
const COOKIE: &str = "forms-page";

/// The value of the `forms-page` cookie the request carries.
fn cookie(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value)
}

impl Slot {
    /// Whether the request may see and answer the form: an ungated page, or the cookie of
    /// the browser that gave the code.
    fn admits(&self, headers: &HeaderMap) -> bool {
        match &self.gate {
            None => true,
            Some(Gate {
                cookie: Some(expected),
                ..
            }) => cookie(headers).is_some_and(|got| same(got.as_bytes(), expected.as_bytes())),
            Some(_) => false,
        }
    }
}

/// The secret at the start of a request's path.
fn secret_of(path: &str) -> &str {
    let path = path.strip_prefix('/').unwrap_or(path);
    path.split_once('/').map_or(path, |(key, _)| key)
}

impl Inner {
    fn report(&self, reason: &str) {
        let n = self.refusals.fetch_add(1, Ordering::Relaxed);
        if n < SHOWN_REFUSALS {
            eprintln!(
                "{}: refused a request to the page: {reason}",
                self.options.label
            );
        } else if n == SHOWN_REFUSALS {
            eprintln!(
                "{}: refusing more requests to the page; not shown",
                self.options.label
            );
        }
    }

    /// Runs `f` on the open page whose secret is `key` (compared in constant time with each).
    fn with_slot<R>(&self, key: &str, f: impl FnOnce(&mut Slot) -> R) -> Result<R, Refusal> {
        let mut slots = self.slots.lock().map_err(|_| Refusal::poisoned())?;
        let mut found = None;
        for (i, slot) in slots.iter().enumerate() {
            if same(slot.key.as_bytes(), key.as_bytes()) {
                found = Some(i);
            }
        }
        match found.and_then(|i| slots.get_mut(i)) {
            Some(slot) => Ok(f(slot)),
            None => Err(Refusal::foreign("the page's secret is missing or wrong")),
        }
    }

    async fn ask(
        &self,
        key: &str,
        view: Arc<NativeView>,
        html: String,
        check: Option<AnswerCheck>,
    ) -> Result<Value, String> {
        let (tx, rx) = oneshot::channel();
        let form = self.forms.fetch_add(1, Ordering::Relaxed) + 1;
        let html = forms_runtime::native::page::with_posts(
            &html,
            &format!("{}/{key}/answer/{form}", self.prefix),
            &format!("{}/{key}/file/{form}", self.prefix),
        );
        // The code may have been given wrong too often before the ask began to wait (the
        // browser can have the URL before the server has the client's consent): then the
        // ask is cancelled at once.
        let cancelled = self
            .with_slot(key, |slot| {
                if slot.gate.as_ref().is_some_and(|gate| gate.tries == 0) {
                    return true;
                }
                slot.pending = Some(Pending {
                    form,
                    html,
                    view,
                    check,
                    reply: Some(tx),
                });
                false
            })
            .map_err(|_| "the page is closed".to_owned())?;
        if cancelled {
            return Ok(json!({"action": "cancel"}));
        }
        let answer = rx
            .await
            .map_err(|_| "the page server closed before the submit".to_owned());
        let _ = self.with_slot(key, |slot| {
            if slot.pending.as_ref().is_some_and(|p| p.form == form) {
                slot.pending = None;
            }
        });
        answer
    }

    /// The native request and answer check of form `form` on page `key`, while it waits
    /// for its answer from a browser the page admits.
    fn waiting(&self, key: &str, form: u64, headers: &HeaderMap) -> Result<Waiting, Refusal> {
        self.with_slot(key, |slot| {
            if !slot.admits(headers) {
                return Err(Refusal::foreign("the page's code was not given"));
            }
            match slot.pending.as_ref() {
                Some(p) if p.form == form && p.reply.is_some() => Ok(Waiting {
                    view: Arc::clone(&p.view),
                    check: p.check.clone(),
                    files: Arc::clone(&slot.files),
                }),
                _ => Err(Refusal::gone()),
            }
        })?
    }

    /// A page's private directory of added files, created on first use.
    async fn files_dir<'a>(
        &self,
        files: &'a OnceCell<PathBuf>,
        keep: bool,
    ) -> std::io::Result<&'a Path> {
        let dir = files
            .get_or_try_init(|| async {
                let tag = random_hex::<8>()?;
                let prefix = if keep { "forms-host" } else { "forms-page" };
                let dir = files::create_private_dir(&std::env::temp_dir(), prefix, &tag).await?;
                let kept = if keep {
                    "kept after the session"
                } else {
                    "removed after the retention"
                };
                eprintln!(
                    "{}: files added on the page are copied into {} ({kept})",
                    self.options.label,
                    dir.display()
                );
                Ok::<_, std::io::Error>(dir)
            })
            .await?;
        Ok(dir.as_path())
    }
}

/// The middleware behind the serving stack's `Host`/`Origin` check: the path must start with
/// an open page's secret, and only the page itself may POST (`Sec-Fetch-Site`, when sent,
/// is `same-origin`).
async fn secret_check(State(inner): State<Arc<Inner>>, request: Request, next: Next) -> Response {
    let key = secret_of(request.uri().path());
    let refusal = if let Err(Refusal::Status(_, why)) = inner.with_slot(key, |_| ()) {
        Some(why)
    } else if let Some(origin) = foreign_origin(request.headers()) {
        Some(format!("a request from another origin ({origin})"))
    } else if request.method() == Method::POST {
        request
            .headers()
            .get("sec-fetch-site")
            .filter(|site| site.as_bytes() != b"same-origin")
            .map(|site| {
                format!(
                    "a POST from another site (Sec-Fetch-Site {})",
                    crate::serve::shown(site)
                )
            })
    } else {
        None
    };
    match refusal {
        Some(reason) => {
            inner.report(&reason);
            Refusal::foreign(reason).into_response()
        }
        None => next.run(request).await,
    }
}

/// A present `Origin` that is not the request's own (`http://` and its `Host`), shown.
fn foreign_origin(headers: &HeaderMap) -> Option<String> {
    let origin = headers.get(header::ORIGIN)?;
    let own = headers
        .get(header::HOST)
        .and_then(|host| host.to_str().ok())
        .map(|host| format!("http://{host}"));
    match own {
        Some(own) if origin.as_bytes() == own.as_bytes() => None,
        _ => Some(crate::serve::shown(origin)),
    }
}

/// A small page of its own (the code prompt, a note), with the same look as no script.
fn note_page(title: &str, body: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; form-action 'self'; base-uri 'none'\">\
         <title>{title}</title><style>body{{font:16px system-ui,sans-serif;max-width:36em;margin:3em auto;padding:0 1em}}\
         input{{font:inherit;letter-spacing:.2em}}</style></head><body>{body}</body></html>"
    )
}

/// The code prompt's script: the code is sent with `fetch` (which sends the page's origin
/// under `Referrer-Policy: no-referrer`, where a plain form POST sends `Origin: null`); the
/// right code reloads the page with its cookie, a wrong one shows how many tries are left.
const CODE_SCRIPT: &str = "<script>(function () {\
  var form = document.getElementById('forms-code-form');\
  form.addEventListener('submit', function (ev) {\
    ev.preventDefault();\
    var body = new URLSearchParams(new FormData(form)).toString();\
    fetch(form.getAttribute('action'), { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: body, redirect: 'manual' })\
      .then(function (r) {\
        if (r.ok || r.type === 'opaqueredirect') { location.reload(); return; }\
        return r.text().then(function (html) {\
          var shown = new DOMParser().parseFromString(html, 'text/html');\
          var note = shown.getElementById('forms-note');\
          if (!note) { document.body.innerHTML = shown.body.innerHTML; return; }\
          document.getElementById('forms-note').textContent = note.textContent;\
        });\
      })\
      .catch(function () { document.getElementById('forms-note').textContent = 'Not sent; try again.'; });\
  });\
})();</script>";

fn code_prompt(prefix: &str, key: &str, note: &str) -> String {
    note_page(
        "Enter your code",
        &format!(
            "<h1>Enter your code</h1><p>Your MCP client showed a code of 8 letters and \
             digits with this link. Enter it to see the form.</p><p id=\"forms-note\">{note}</p>\
             <form id=\"forms-code-form\" method=\"post\" action=\"{prefix}/{key}/code\"><input id=\"forms-code\" name=\"code\" \
             autocomplete=\"off\" autofocus maxlength=\"32\" required> \
             <button id=\"forms-code-submit\" type=\"submit\">Continue</button></form>{CODE_SCRIPT}"
        ),
    )
}

async fn show(
    State(inner): State<Arc<Inner>>,
    UrlPath(key): UrlPath<String>,
    headers: HeaderMap,
) -> Response {
    let shown = inner.with_slot(&key, |slot| {
        if !slot.admits(&headers) {
            return Err(());
        }
        Ok(slot.pending.as_ref().map(|p| p.html.clone()))
    });
    let html = match shown {
        Ok(Ok(Some(html))) => html,
        Ok(Err(())) => code_prompt(&inner.prefix, &key, ""),
        _ => note_page(
            inner.options.label,
            "<p>No form is waiting for an answer.</p>",
        ),
    };
    axum::response::Html(html).into_response()
}

/// `POST /SECRET/code` (`code=…`, form-encoded): the right code sets the page's cookie and
/// shows the form; a wrong one counts against [`CODE_TRIES`], after which the ask is
/// cancelled.
async fn code(
    State(inner): State<Arc<Inner>>,
    UrlPath(key): UrlPath<String>,
    Extension(bodies): Extension<Bodies>,
    request: Request,
) -> Result<Response, Refusal> {
    let (parts, body) = request.into_parts();
    let (body, _held) = bodies
        .read(&parts.headers, body)
        .await
        .map_err(|response| Refusal::Response(Box::new(response)))?;
    let given = url::form_urlencoded::parse(&body)
        .find(|(k, _)| k == "code")
        .map(|(_, v)| v.trim().to_ascii_uppercase())
        .unwrap_or_default();
    let cookie = random_hex::<32>()
        .map_err(|e| Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    enum Outcome {
        Open,
        Wrong(u32),
        Cancelled(Option<oneshot::Sender<Value>>),
    }
    let outcome = inner.with_slot(&key, |slot| {
        let Some(gate) = slot.gate.as_mut() else {
            return Outcome::Open;
        };
        if gate.tries == 0 {
            return Outcome::Cancelled(None);
        }
        if gate.cookie.is_none() && same(given.as_bytes(), gate.code.as_bytes()) {
            gate.cookie = Some(cookie.clone());
            return Outcome::Open;
        }
        gate.tries -= 1;
        if gate.tries == 0 {
            Outcome::Cancelled(slot.pending.as_mut().and_then(|p| p.reply.take()))
        } else {
            Outcome::Wrong(gate.tries)
        }
    })?;
    Ok(match outcome {
        Outcome::Open => (
            StatusCode::SEE_OTHER,
            [
                (header::LOCATION, format!("{}/{key}/", inner.prefix)),
                (
                    header::SET_COOKIE,
                    format!(
                        "{COOKIE}={cookie}; Path={}/{key}/; HttpOnly; SameSite=Strict",
                        inner.prefix
                    ),
                ),
            ],
        )
            .into_response(),
        Outcome::Wrong(left) => {
            inner.report("a wrong code");
            (
                StatusCode::FORBIDDEN,
                axum::response::Html(code_prompt(
                    &inner.prefix,
                    &key,
                    &format!("That code is not right; {left} tries left."),
                )),
            )
                .into_response()
        }
        Outcome::Cancelled(reply) => {
            inner.report("a wrong code, the last try");
            if let Some(reply) = reply {
                let _ = reply.send(json!({"action": "cancel"}));
            }
            (
                StatusCode::FORBIDDEN,
                axum::response::Html(note_page(
                    "Cancelled",
                    "<h1>Cancelled</h1><p>The code was given wrong too often; the form was cancelled.</p>",
                )),
            )
                .into_response()
        }
    })
}

/// The media type of a request (`application/json` for `application/json; charset=utf-8`).
fn media_type(headers: &HeaderMap) -> String {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase())
        .unwrap_or_default()
}

/// `415 Unsupported Media Type` unless the body is declared as `expected`; `what` names the
/// body in the reason.
fn sent_as(headers: &HeaderMap, expected: &str, what: &str) -> Result<(), Refusal> {
    if media_type(headers) != expected {
        return Err(Refusal::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!("{what} must be sent as {expected}"),
        ));
    }
    Ok(())
}

fn declared_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok())
}

async fn answer(
    State(inner): State<Arc<Inner>>,
    UrlPath((key, form)): UrlPath<(String, u64)>,
    Extension(bodies): Extension<Bodies>,
    request: Request,
) -> Result<Response, Refusal> {
    sent_as(request.headers(), "application/json", "the answer")?;
    if declared_length(request.headers()).is_some_and(|n| n > bodies.max_bytes() as u64) {
        return Err(Refusal::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("an answer is at most {} bytes", bodies.max_bytes()),
        ));
    }
    let check = inner.waiting(&key, form, request.headers())?.check;
    let (parts, body) = request.into_parts();
    let (body, _held) = bodies
        .read(&parts.headers, body)
        .await
        .map_err(|response| Refusal::Response(Box::new(response)))?;
    let value: Value = serde_json::from_slice(&body)
        .map_err(|e| Refusal::new(StatusCode::BAD_REQUEST, format!("not JSON: {e}")))?;
    if !value.is_object() {
        return Err(Refusal::new(
            StatusCode::BAD_REQUEST,
            "a host response is a JSON object",
        ));
    }
    if let Some(check) = check {
        let text = std::str::from_utf8(&body)
            .map_err(|e| Refusal::new(StatusCode::BAD_REQUEST, e.to_string()))?;
        check(text).map_err(|findings| Refusal::new(StatusCode::UNPROCESSABLE_ENTITY, findings))?;
    }
    let reply = inner.with_slot(&key, |slot| {
        slot.pending
            .as_mut()
            .filter(|p| p.form == form)
            .and_then(|p| p.reply.take())
    })?;
    match reply.map(|reply| reply.send(value)) {
        Some(Ok(())) => Ok(StatusCode::NO_CONTENT.into_response()),
        _ => Err(Refusal::gone()),
    }
}

/// The `question`, `name` and `type` of an added file's request.
fn file_params(uri: &Uri) -> (String, String, String) {
    let (mut question, mut name, mut mime) = (String::new(), String::new(), String::new());
    for (k, v) in url::form_urlencoded::parse(uri.query().unwrap_or_default().as_bytes()) {
        match k.as_ref() {
            "question" => question = v.into_owned(),
            "name" => name = v.into_owned(),
            "type" => mime = v.into_owned(),
            _ => {}
        }
    }
    (question, name, mime)
}

async fn add_file(
    State(inner): State<Arc<Inner>>,
    UrlPath((key, form)): UrlPath<(String, u64)>,
    request: Request,
) -> Result<Response, Refusal> {
    sent_as(request.headers(), "application/octet-stream", "a file")?;
    let (question, name, mime) = file_params(request.uri());
    let Waiting {
        view,
        files: files_cell,
        ..
    } = inner.waiting(&key, form, request.headers())?;
    let keep = inner
        .with_slot(&key, |slot| matches!(slot.keep, Keep::Always))
        .unwrap_or(true);
    let taken = files::file_question(&view, &question).map_err(|why| {
        let why = match why {
            files::NotAFileQuestion::Unknown => "the form has no such question",
            files::NotAFileQuestion::NoUserFiles => "this question takes no added file",
            files::NotAFileQuestion::Folder => "this page cannot send a folder",
        };
        Refusal::new(StatusCode::UNPROCESSABLE_ENTITY, why)
    })?;
    if !files::accepted(&taken.accept, &name, &mime) {
        return Err(Refusal::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!(
                "{name} is not among the accepted types: {}",
                taken.accept.join(", ")
            ),
        ));
    }
    let max = inner.options.max_file_bytes;
    let too_large = || {
        Refusal::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("{name} is larger than the limit of {max} bytes "),
        )
    };
    if declared_length(request.headers()).is_some_and(|n| n > max) {
        return Err(too_large());
    }
    let failed = |e: std::io::Error| {
        Refusal::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("cannot copy {name}: {e}"),
        )
    };
    let dir = inner.files_dir(&files_cell, keep).await.map_err(failed)?;
    let (path, mut file) = files::create_copy(dir, &name).await.map_err(failed)?;
    let copied = tokio::time::timeout(UPLOAD_TIME, async {
        let mut body: Body = request.into_body();
        let mut total = 0u64;
        loop {
            let frame = tokio::time::timeout(
                UPLOAD_PAUSE,
                std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)),
            )
            .await
            .map_err(|_| Refusal::new(StatusCode::REQUEST_TIMEOUT, "the file stopped arriving"))?;
            let Some(frame) = frame else { break };
            let frame = frame.map_err(|e| {
                Refusal::new(StatusCode::BAD_REQUEST, format!("the file broke off: {e}"))
            })?;
            let Ok(data) = frame.into_data() else {
                continue;
            };
            total += data.len() as u64;
            if total > max {
                return Err(too_large());
            }
            file.write_all(&data).await.map_err(failed)?;
        }
        file.flush().await.map_err(failed)?;
        Ok(total)
    })
    .await
    .unwrap_or_else(|_| {
        Err(Refusal::new(
            StatusCode::REQUEST_TIMEOUT,
            "the file took too long",
        ))
    });
    drop(file);
    let bytes = match copied {
        Ok(bytes) => bytes,
        Err(refusal) => {
            let _ = tokio::fs::remove_file(&path).await;
            return Err(refusal);
        }
    };
    let uri = url::Url::from_file_path(&path).map_err(|()| {
        Refusal::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("cannot name {} as a file:// URI", path.display()),
        )
    })?;
    let copy = json!({
        "uri": uri.as_str(),
        "path": path.display().to_string(),
        "bytes": bytes,
    });
    Ok((
        [(header::CONTENT_TYPE, "application/json")],
        copy.to_string(),
    )
        .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    async fn post(port: u16, path: &str, body: &str) -> String {
        let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .unwrap();
        let request = format!(
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: http://127.0.0.1:{port}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut reply = String::new();
        stream.read_to_string(&mut reply).await.unwrap();
        reply
    }

    #[tokio::test]
    async fn an_answer_is_taken_once_and_only_by_its_own_form() {
        let server = PageServer::start(PageOptions::default()).await.unwrap();
        let port: u16 = server.url()["http://127.0.0.1:".len()..]
            .split('/')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let key = server.session.clone();
        let native = NativeView::from_value(
            &json!({"message": "m", "requestedSchema": {"type": "object", "properties": {}}}),
        )
        .unwrap();
        let server = Arc::new(server);
        let asking = {
            let server = Arc::clone(&server);
            let native = Arc::new(native);
            tokio::spawn(async move { server.ask(native, "<body>".to_owned()).await })
        };
        while server.inner.slots.lock().unwrap()[0].pending.is_none() {
            tokio::task::yield_now().await;
        }
        let stale = post(port, &format!("/{key}/answer/2"), r#"{"action":"cancel"}"#).await;
        assert!(stale.starts_with("HTTP/1.1 409"), "{stale}");
        let first = post(port, &format!("/{key}/answer/1"), r#"{"action":"decline"}"#).await;
        assert!(first.starts_with("HTTP/1.1 204"), "{first}");
        let second = post(port, &format!("/{key}/answer/1"), r#"{"action":"cancel"}"#).await;
        assert!(second.starts_with("HTTP/1.1 409"), "{second}");
        assert_eq!(asking.await.unwrap().unwrap(), json!({"action": "decline"}));
    }

    /// One request with `headers`; the whole reply.
    async fn send(port: u16, method: &str, path: &str, headers: &str, body: &str) -> String {
        let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .unwrap();
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{headers}\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut reply = String::new();
        stream.read_to_string(&mut reply).await.unwrap();
        reply
    }

    #[tokio::test]
    async fn a_gated_page_shows_and_takes_nothing_without_its_code_and_checks_answers() {
        let server = PageServer::start(PageOptions::default()).await.unwrap();
        let native = NativeView::from_value(
            &json!({"message": "m", "requestedSchema": {"type": "object", "properties": {}}}),
        )
        .unwrap();
        let slot = server
            .open(Some("ABCDEFGH".into()), Duration::from_secs(1))
            .unwrap();
        let url = slot.url().to_owned();
        let port: u16 = url["http://127.0.0.1:".len()..]
            .split('/')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let base = url["http://127.0.0.1:".len()..]
            .split_once('/')
            .map(|(_, path)| format!("/{}", path.trim_end_matches('/')))
            .unwrap();
        let check: AnswerCheck = Arc::new(|text: &str| {
            if text.contains("decline") {
                Ok(())
            } else {
                Err("content.x: not a question of the form (V2)".to_owned())
            }
        });
        let asking = tokio::spawn(async move {
            slot.ask(
                Arc::new(native),
                "<body>QUESTIONS-HERE".to_owned(),
                Some(check),
            )
            .await
        });
        tokio::time::sleep(Duration::from_millis(100)).await;
        let json = "Content-Type: application/json\r\n";
        let form = "Content-Type: application/x-www-form-urlencoded\r\n";
        // Without the code: the prompt, and no answer is taken.
        let shown = send(port, "GET", &format!("{base}/"), "", "").await;
        assert!(
            shown.contains("Enter your code") && !shown.contains("QUESTIONS-HERE"),
            "{shown}"
        );
        let answer = format!("{base}/answer/1");
        let refused = send(port, "POST", &answer, json, r#"{"action":"decline"}"#).await;
        assert!(refused.starts_with("HTTP/1.1 403"), "{refused}");
        // A wrong code counts; another origin is refused before the code is read.
        let wrong = send(port, "POST", &format!("{base}/code"), form, "code=AAAAAAAA").await;
        assert!(wrong.contains("4 tries left"), "{wrong}");
        let foreign = format!("{form}Origin: http://evil.example\r\n");
        let other = send(
            port,
            "POST",
            &format!("{base}/code"),
            &foreign,
            "code=ABCDEFGH",
        )
        .await;
        assert!(other.starts_with("HTTP/1.1 403"), "{other}");
        // The right code (any case) sets the page's cookie, which shows the form.
        let right = send(port, "POST", &format!("{base}/code"), form, "code=abcdefgh").await;
        assert!(right.starts_with("HTTP/1.1 303"), "{right}");
        let cookie = right
            .lines()
            .find_map(|l| l.strip_prefix("set-cookie: "))
            .and_then(|c| c.split(';').next())
            .unwrap()
            .to_owned();
        let with = format!("Cookie: {cookie}\r\n");
        let shown = send(port, "GET", &format!("{base}/"), &with, "").await;
        assert!(shown.contains("QUESTIONS-HERE"), "{shown}");
        assert!(shown.contains("cache-control: no-store"), "{shown}");
        // The code works once: a second browser giving it is refused.
        let again = send(port, "POST", &format!("{base}/code"), form, "code=ABCDEFGH").await;
        assert!(again.contains("3 tries left"), "{again}");
        // The checker's refusal is the page's, with its findings; the form stays open.
        let with_json = format!("{with}{json}");
        let bad = send(
            port,
            "POST",
            &answer,
            &with_json,
            r#"{"action":"accept","content":{"x":1}}"#,
        )
        .await;
        assert!(
            bad.starts_with("HTTP/1.1 422") && bad.contains("(V2)"),
            "{bad}"
        );
        let good = send(port, "POST", &answer, &with_json, r#"{"action":"decline"}"#).await;
        assert!(good.starts_with("HTTP/1.1 204"), "{good}");
        assert_eq!(asking.await.unwrap().unwrap(), json!({"action": "decline"}));
        // The page closed with its ask: a replay reaches nothing.
        let replay = send(port, "POST", &answer, &with_json, r#"{"action":"decline"}"#).await;
        assert!(replay.starts_with("HTTP/1.1 403"), "{replay}");
    }

    /// A page gated by the code `ABCDEFGH` for an empty form: its server (kept for the test),
    /// the page, the form, the port and the path codes are posted to.
    async fn gated_page() -> (PageServer, PageSlot, NativeView, u16, String) {
        let server = PageServer::start(PageOptions::default()).await.unwrap();
        let native = NativeView::from_value(
            &json!({"message": "m", "requestedSchema": {"type": "object", "properties": {}}}),
        )
        .unwrap();
        let slot = server
            .open(Some("ABCDEFGH".into()), Duration::from_secs(1))
            .unwrap();
        let url = slot.url().to_owned();
        let rest = &url["http://127.0.0.1:".len()..];
        let (port, path) = rest.split_once('/').unwrap();
        let port: u16 = port.parse().unwrap();
        let code = format!("/{path}code");
        (server, slot, native, port, code)
    }

    #[tokio::test]
    async fn wrong_codes_cancel_the_ask() {
        let (_server, slot, native, port, code) = gated_page().await;
        let asking =
            tokio::spawn(async move { slot.ask(Arc::new(native), "<body>".into(), None).await });
        tokio::time::sleep(Duration::from_millis(100)).await;
        let form = "Content-Type: application/x-www-form-urlencoded\r\n";
        for _ in 0..CODE_TRIES {
            let wrong = send(port, "POST", &code, form, "code=ZZZZZZZZ").await;
            assert!(wrong.starts_with("HTTP/1.1 403"), "{wrong}");
        }
        assert_eq!(asking.await.unwrap().unwrap(), json!({"action": "cancel"}));
    }

    #[tokio::test]
    async fn pages_past_the_limit_are_refused_until_one_closes() {
        let server = PageServer::start(PageOptions {
            max_pages: 2,
            ..PageOptions::default()
        })
        .await
        .unwrap();
        let retention = Duration::from_secs(1);
        let first = server.open(None, retention).unwrap();
        let _second = server.open(Some("ABCDEFGH".into()), retention).unwrap();
        let refused = server.open(None, retention).unwrap_err();
        assert_eq!(refused.kind(), std::io::ErrorKind::QuotaExceeded);
        assert!(
            refused
                .to_string()
                .contains("2 forms are already waiting on pages of this server"),
            "{refused}"
        );
        // The session page does not count; a closed page gives its place back.
        assert_eq!(server.inner.slots.lock().unwrap().len(), 3);
        drop(first);
        let _third = server.open(None, retention).unwrap();
        assert!(server.open(None, retention).is_err());
    }

    /// The browser can have the URL before the server has the client's consent: codes given
    /// wrong too often before the ask begins to wait cancel it as soon as it does.
    #[tokio::test]
    async fn wrong_codes_before_the_ask_waits_cancel_it() {
        let (_server, slot, native, port, code) = gated_page().await;
        let form = "Content-Type: application/x-www-form-urlencoded\r\n";
        for _ in 0..CODE_TRIES {
            let wrong = send(port, "POST", &code, form, "code=ZZZZZZZZ").await;
            assert!(wrong.starts_with("HTTP/1.1 403"), "{wrong}");
        }
        let asked = tokio::time::timeout(
            Duration::from_secs(10),
            slot.ask(Arc::new(native), "<body>".into(), None),
        )
        .await
        .expect("the ask waited although its code was given wrong too often");
        assert_eq!(asked.unwrap(), json!({"action": "cancel"}));
    }
}
