//! The browser answerer: one small HTTP server on 127.0.0.1 for the whole session, which only
//! the person who reads the printed URL can use.
//!
//! It runs on forms-mcp's serving stack ([`forms_mcp::serve`], the one `forms-mcp --http`
//! runs on), as axum routes behind two middlewares:
//!
//! - `Host` must be the bound address (`127.0.0.1:PORT` or `localhost:PORT`), so a name that
//!   rebinds to 127.0.0.1 reaches nothing; a present `Origin` must be that same origin
//!   (`http://127.0.0.1:PORT`), so no other site, no `file://` page and no sandboxed frame
//!   can post (the stack's [`Hosts`] check, with [`Hosts::same_origin`]).
//! - The URL carries a secret of 256 random bits (`http://127.0.0.1:PORT/SECRET/`); every
//!   request must start its path with it (compared in constant time), and a POST whose
//!   `Sec-Fetch-Site` is not `same-origin` is refused too. Refusals of these two checks are
//!   reported on standard error (the first 20).
//! - `GET /SECRET/` serves the form waiting for an answer (or a short note when none is).
//!   The page POSTs the host response to `/SECRET/answer/N` (`N` numbers the forms of the
//!   session) as `application/json` only, at most 1 MiB; the first answer to a waiting form is
//!   taken, any later one gets 409.
//! - An added file is POSTed to `/SECRET/file/N?question=ID&name=NAME&type=MIME` as
//!   `application/octet-stream`: the question's `accept` filter and the size limit
//!   ([`PageOptions::max_file_bytes`]) are checked, the bytes are written into the session's
//!   private directory (see [`files`]), and the answer is `{"uri":"file:///…","path":"/…"}`.
//! - Every response carries `Cache-Control: no-store`, forbids framing
//!   (`Content-Security-Policy: frame-ancestors 'none'`, `X-Frame-Options: DENY`) and sends
//!   no referrer.
//! - Headers must arrive within 10 s (an idle kept-alive connection is closed after as long),
//!   an answer's body within 10 s (read by the stack's [`Bodies`]), an added file with no
//!   pause over 15 s and within 10 minutes; at most 32 connections are open at once (a new one
//!   ends the oldest idle one; while all are busy, new ones wait to be accepted), each for at
//!   most 10 minutes.

mod files;
pub use files::accepts;

use axum::body::{Body, HttpBody};
use axum::extract::{Path as UrlPath, Request, State};
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, Method, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Router};
use forms_mcp::secret::{random_hex, same};
use forms_mcp::serve::{Bodies, Hosts, Limits};
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

/// How the page server behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageOptions {
    /// The largest file, in bytes, the person may add on the page.
    pub max_file_bytes: u64,
    /// The program named at the start of the server's lines on standard error (`LABEL:
    /// answer the form at URL`); `forms host` by default.
    pub label: &'static str,
}

impl Default for PageOptions {
    fn default() -> Self {
        PageOptions {
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
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

struct Pending {
    form: u64,
    html: String,
    view: Arc<NativeView>,
    reply: Option<oneshot::Sender<Value>>,
}

struct Inner {
    key: String,
    options: PageOptions,
    pending: Mutex<Option<Pending>>,
    forms: AtomicU64,
    files: OnceCell<PathBuf>,
    refusals: AtomicUsize,
}

/// A page server bound to 127.0.0.1 on a free port.
pub struct PageServer {
    url: String,
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
    /// Binds 127.0.0.1 on a free port, draws the session's secret and serves in the
    /// background.
    pub async fn start(options: PageOptions) -> std::io::Result<PageServer> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
        let port = listener.local_addr()?.port();
        let key = random_hex::<32>()?;
        let url = format!("http://127.0.0.1:{port}/{key}/");
        let inner = Arc::new(Inner {
            key,
            options,
            pending: Mutex::default(),
            forms: AtomicU64::new(0),
            files: OnceCell::new(),
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
        let app = Router::new()
            .route("/{secret}/", get(show))
            .route("/{secret}/answer/{form}", post(answer))
            .route("/{secret}/file/{form}", post(add_file))
            .fallback(|| async { Refusal::new(StatusCode::NOT_FOUND, "no such page") })
            .layer(axum::middleware::from_fn_with_state(
                Arc::clone(&inner),
                secret_check,
            ))
            .with_state(Arc::clone(&inner));
        tokio::spawn(forms_mcp::serve::serve(
            listener,
            app,
            limits,
            CancellationToken::new(),
        ));
        Ok(PageServer { url, inner })
    }

    /// The page's URL, secret included.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Serves `html` (a preview page rendering the form `view`) and waits for its submit;
    /// the URL is printed on standard error as `LABEL: answer the form at URL`, with the
    /// label of the [`PageOptions`].
    pub async fn ask(&self, view: Arc<NativeView>, html: String) -> Result<Value, String> {
        let (tx, rx) = oneshot::channel();
        let form = self.inner.forms.fetch_add(1, Ordering::Relaxed) + 1;
        let key = &self.inner.key;
        let html = html.replacen(
            "<body",
            &format!(
                "<body data-forms-post=\"/{key}/answer/{form}\" data-forms-file=\"/{key}/file/{form}\""
            ),
            1,
        );
        {
            let mut slot = self
                .inner
                .pending
                .lock()
                .map_err(|_| "poisoned".to_owned())?;
            *slot = Some(Pending {
                form,
                html,
                view,
                reply: Some(tx),
            });
        }
        eprintln!(
            "{}: answer the form at {}",
            self.inner.options.label, self.url
        );
        let answer = rx
            .await
            .map_err(|_| "the page server closed before the submit".to_owned());
        if let Ok(mut slot) = self.inner.pending.lock() {
            if slot.as_ref().is_some_and(|p| p.form == form) {
                *slot = None;
            }
        }
        answer
    }
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

/// The middleware behind the serving stack's `Host`/`Origin` check: the path must start with
/// the session's secret, and only the page itself may POST (`Sec-Fetch-Site`, when sent,
/// is `same-origin`).
async fn secret_check(State(inner): State<Arc<Inner>>, request: Request, next: Next) -> Response {
    let path = request.uri().path();
    let path = path.strip_prefix('/').unwrap_or(path);
    let key = path.split_once('/').map_or(path, |(key, _)| key);
    let refusal = if !same(key.as_bytes(), inner.key.as_bytes()) {
        Some("the page's secret is missing or wrong".to_owned())
    } else if request.method() == Method::POST {
        request
            .headers()
            .get("sec-fetch-site")
            .filter(|site| site.as_bytes() != b"same-origin")
            .map(|site| {
                format!(
                    "a POST from another site (Sec-Fetch-Site {})",
                    forms_mcp::serve::shown(site)
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

    /// The native request of form `form`, while it waits for its answer.
    fn waiting(&self, form: u64) -> Result<Arc<NativeView>, Refusal> {
        let slot = self
            .pending
            .lock()
            .map_err(|_| Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, "poisoned"))?;
        match slot.as_ref() {
            Some(p) if p.form == form && p.reply.is_some() => Ok(Arc::clone(&p.view)),
            _ => Err(Refusal::new(
                StatusCode::CONFLICT,
                "this form is no longer waiting for an answer",
            )),
        }
    }

    /// The session's private directory of added files, created on first use.
    async fn files_dir(&self) -> std::io::Result<&Path> {
        let dir = self
            .files
            .get_or_try_init(|| async {
                let tag = random_hex::<8>()?;
                let dir = files::create_private_dir(&std::env::temp_dir(), &tag).await?;
                eprintln!(
                    "{}: files added on the page are copied into {} (kept after the session)",
                    self.options.label,
                    dir.display()
                );
                Ok::<_, std::io::Error>(dir)
            })
            .await?;
        Ok(dir.as_path())
    }
}

async fn show(State(inner): State<Arc<Inner>>) -> Response {
    let html = inner
        .pending
        .lock()
        .ok()
        .and_then(|slot| slot.as_ref().map(|p| p.html.clone()));
    let html = html.unwrap_or_else(|| {
        "<!doctype html><title>forms host</title><p>No form is waiting for an answer.</p>"
            .to_owned()
    });
    axum::response::Html(html).into_response()
}

async fn answer(
    State(inner): State<Arc<Inner>>,
    UrlPath((_, form)): UrlPath<(String, u64)>,
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
    inner.waiting(form)?;
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
    let reply = {
        let mut slot = inner
            .pending
            .lock()
            .map_err(|_| Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, "poisoned"))?;
        slot.as_mut()
            .filter(|p| p.form == form)
            .and_then(|p| p.reply.take())
    };
    match reply.map(|reply| reply.send(value)) {
        Some(Ok(())) => Ok(StatusCode::NO_CONTENT.into_response()),
        _ => Err(Refusal::new(
            StatusCode::CONFLICT,
            "this form is no longer waiting for an answer",
        )),
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
    UrlPath((_, form)): UrlPath<(String, u64)>,
    request: Request,
) -> Result<Response, Refusal> {
    sent_as(request.headers(), "application/octet-stream", "a file")?;
    let (question, name, mime) = file_params(request.uri());
    let view = inner.waiting(form)?;
    let taken = files::file_question(&view, &question).map_err(|why| {
        let why = match why {
            files::NotAFileQuestion::Unknown => "the form has no such question",
            files::NotAFileQuestion::NoUserFiles => "this question takes no added file",
            files::NotAFileQuestion::Folder => {
                "this page cannot send a folder; answer with `forms host --terminal`"
            }
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
            format!("{name} is larger than the limit of {max} bytes (forms host --max-file-bytes)"),
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
    let dir = inner.files_dir().await.map_err(failed)?;
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
        let key = server.inner.key.clone();
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
        while server.inner.pending.lock().unwrap().is_none() {
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
}
