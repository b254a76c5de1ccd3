//! The browser answerer: one small HTTP server on 127.0.0.1 for the whole session, which only
//! the person who reads the printed URL can use.
//!
//! - The URL carries a secret of 256 random bits (`http://127.0.0.1:PORT/SECRET/`); every
//!   request must start its path with it.
//! - `Host` must be the bound address (`127.0.0.1:PORT` or `localhost:PORT`), so a name that
//!   rebinds to 127.0.0.1 reaches nothing; a present `Origin` must be that same origin
//!   (`http://127.0.0.1:PORT`), so no other site, no `file://` page and no sandboxed frame
//!   can post; a POST whose `Sec-Fetch-Site` is not `same-origin` is refused too.
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
//!   an answer's body within 10 s, an added file with no pause over 15 s; at most 32
//!   connections are open at once (a new one ends the oldest idle one), each for at most 10
//!   minutes.

mod files;
pub use files::accepts;

use axum::body::{Body, HttpBody};
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Router;
use forms_runtime::native::NativeView;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::sync::{oneshot, Notify, OnceCell};

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
const MAX_CONNECTIONS: usize = 32;
/// The largest answer body.
const MAX_ANSWER_BYTES: usize = 1024 * 1024;
/// The read buffer of a connection, which bounds a request's headers.
const MAX_HEADER_BYTES: usize = 64 * 1024;
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
    port: u16,
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
struct Refusal {
    status: StatusCode,
    reason: String,
    /// Whether the request came from somewhere other than the page (reported on stderr).
    foreign: bool,
}

impl Refusal {
    fn foreign(reason: impl Into<String>) -> Refusal {
        Refusal {
            status: StatusCode::FORBIDDEN,
            reason: reason.into(),
            foreign: true,
        }
    }

    fn new(status: StatusCode, reason: impl Into<String>) -> Refusal {
        Refusal {
            status,
            reason: reason.into(),
            foreign: false,
        }
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        (self.status, self.reason).into_response()
    }
}

fn random_hex<const N: usize>() -> std::io::Result<String> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).map_err(std::io::Error::other)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
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
            port,
            options,
            pending: Mutex::default(),
            forms: AtomicU64::new(0),
            files: OnceCell::new(),
            refusals: AtomicUsize::new(0),
        });
        let app = Router::new()
            .fallback(handle)
            .with_state(Arc::clone(&inner));
        tokio::spawn(serve(listener, app));
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

/// A connection being served: whether a request is in progress on it, and how to end it.
struct Tracked {
    id: u64,
    busy: Arc<AtomicBool>,
    evict: Arc<Notify>,
}

/// Marks a connection busy while a request is handled on it.
struct Busy(Arc<AtomicBool>);

impl Busy {
    fn new(flag: &Arc<AtomicBool>) -> Busy {
        flag.store(true, Ordering::Relaxed);
        Busy(Arc::clone(flag))
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Relaxed);
    }
}

/// Serves each connection over HTTP/1.1 with the time limits above. At most
/// [`MAX_CONNECTIONS`] are open at once: a new one past that ends the oldest connection
/// with no request in progress (idle, or still sending its headers), so sockets that send
/// nothing cannot keep the page from the person; when every connection is busy, the new
/// one is closed.
async fn serve(listener: tokio::net::TcpListener, app: Router) {
    use hyper_util::rt::{TokioIo, TokioTimer};
    let open: Arc<Mutex<Vec<Tracked>>> = Arc::default();
    let mut next = 0u64;
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of descriptors and the like: wait a little rather than spin.
                eprintln!("forms host: the page server could not accept a connection: {e}");
                tokio::time::sleep(Duration::from_millis(200)).await;
                continue;
            }
        };
        next += 1;
        let id = next;
        let busy = Arc::new(AtomicBool::new(false));
        let evict = Arc::new(Notify::new());
        {
            let Ok(mut open) = open.lock() else { return };
            if open.len() >= MAX_CONNECTIONS {
                match open.iter().position(|c| !c.busy.load(Ordering::Relaxed)) {
                    Some(oldest) => open.remove(oldest).evict.notify_one(),
                    None => continue,
                }
            }
            open.push(Tracked {
                id,
                busy: Arc::clone(&busy),
                evict: Arc::clone(&evict),
            });
        }
        let app = hyper_util::service::TowerToHyperService::new(app.clone());
        let open = Arc::clone(&open);
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let busy = Busy::new(&busy);
                let call = hyper::service::Service::call(&app, request);
                async move {
                    let response = call.await;
                    drop(busy);
                    response
                }
            });
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .max_buf_size(MAX_HEADER_BYTES);
            let connection = builder.serve_connection(TokioIo::new(stream), service);
            tokio::select! {
                _ = connection => {}
                _ = evict.notified() => {}
                _ = tokio::time::sleep(CONNECTION_TIME) => {}
            }
            if let Ok(mut open) = open.lock() {
                open.retain(|c| c.id != id);
            }
        });
    }
}

async fn handle(State(inner): State<Arc<Inner>>, request: Request) -> Response {
    let mut response = match route(&inner, request).await {
        Ok(response) => response,
        Err(refusal) => {
            if refusal.foreign {
                inner.report(&refusal.reason);
            }
            refusal.into_response()
        }
    };
    let headers = response.headers_mut();
    for (name, value) in [
        (header::CACHE_CONTROL, "no-store"),
        (header::CONTENT_SECURITY_POLICY, "frame-ancestors 'none'"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        (
            header::HeaderName::from_static("cross-origin-resource-policy"),
            "same-origin",
        ),
        (
            header::HeaderName::from_static("cross-origin-opener-policy"),
            "same-origin",
        ),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

/// Whether two byte strings are equal, in a time that does not depend on where they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A header value as printable text for a message: escaped and cut short.
fn shown(value: &HeaderValue) -> String {
    let text: String = String::from_utf8_lossy(value.as_bytes())
        .chars()
        .take(80)
        .collect();
    format!("{text:?}")
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

    /// Checks `Host` (and an absolute request target) against the bound address and a
    /// present `Origin` against the same origin.
    fn check_origin(&self, headers: &HeaderMap, uri: &Uri) -> Result<(), Refusal> {
        let mut hosts = headers.get_all(header::HOST).iter();
        let host = match (hosts.next(), hosts.next()) {
            (Some(host), None) => host,
            (None, _) => return Err(Refusal::foreign("no Host header")),
            (Some(_), Some(_)) => return Err(Refusal::foreign("two Host headers")),
        };
        let port = self.port;
        let bound = [format!("127.0.0.1:{port}"), format!("localhost:{port}")];
        let Some(bound) = bound
            .iter()
            .find(|b| host.as_bytes().eq_ignore_ascii_case(b.as_bytes()))
        else {
            return Err(Refusal::foreign(format!("foreign Host {}", shown(host))));
        };
        if let Some(authority) = uri.authority() {
            if !authority.as_str().eq_ignore_ascii_case(bound) {
                return Err(Refusal::foreign("a request target naming another host"));
            }
        }
        let mut origins = headers.get_all(header::ORIGIN).iter();
        match (origins.next(), origins.next()) {
            (None, _) => Ok(()),
            (Some(origin), None) => {
                let expected = format!("http://{bound}");
                if origin.as_bytes().eq_ignore_ascii_case(expected.as_bytes()) {
                    Ok(())
                } else {
                    Err(Refusal::foreign(format!(
                        "foreign Origin {}",
                        shown(origin)
                    )))
                }
            }
            (Some(_), Some(_)) => Err(Refusal::foreign("two Origin headers")),
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

async fn route(inner: &Inner, request: Request) -> Result<Response, Refusal> {
    inner.check_origin(request.headers(), request.uri())?;
    let path = request.uri().path();
    let path = path.strip_prefix('/').unwrap_or(path);
    let (key, rest) = path.split_once('/').unwrap_or((path, ""));
    if !same(key.as_bytes(), inner.key.as_bytes()) {
        return Err(Refusal::foreign("the page's secret is missing or wrong"));
    }
    let (action, form) = match rest.split_once('/') {
        Some((action, form)) => (action, Some(form)),
        None => (rest, None),
    };
    let form = match form.map(str::parse::<u64>) {
        None => None,
        Some(Ok(form)) => Some(form),
        Some(Err(_)) => return Err(Refusal::new(StatusCode::NOT_FOUND, "no such page")),
    };
    let method = request.method().clone();
    match (action, form) {
        ("", None) if method == Method::GET => Ok(show(inner)),
        ("answer", Some(form)) | ("file", Some(form)) if method == Method::POST => {
            // Only the page itself may post, never a page of another site.
            if let Some(site) = request.headers().get("sec-fetch-site") {
                if site.as_bytes() != b"same-origin" {
                    return Err(Refusal::foreign(format!(
                        "a POST from another site (Sec-Fetch-Site {})",
                        shown(site)
                    )));
                }
            }
            if action == "answer" {
                answer(inner, form, request).await
            } else {
                add_file(inner, form, request).await
            }
        }
        ("", None) | ("answer" | "file", Some(_)) => Err(Refusal::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "method not allowed",
        )),
        _ => Err(Refusal::new(StatusCode::NOT_FOUND, "no such page")),
    }
}

fn show(inner: &Inner) -> Response {
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

async fn answer(inner: &Inner, form: u64, request: Request) -> Result<Response, Refusal> {
    if media_type(request.headers()) != "application/json" {
        return Err(Refusal::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "the answer must be sent as application/json",
        ));
    }
    let too_large = || {
        Refusal::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("an answer is at most {MAX_ANSWER_BYTES} bytes"),
        )
    };
    if declared_length(request.headers()).is_some_and(|n| n > MAX_ANSWER_BYTES as u64) {
        return Err(too_large());
    }
    inner.waiting(form)?;
    let body = tokio::time::timeout(
        BODY_TIMEOUT,
        axum::body::to_bytes(request.into_body(), MAX_ANSWER_BYTES),
    )
    .await
    .map_err(|_| {
        Refusal::new(
            StatusCode::REQUEST_TIMEOUT,
            "the answer's body took too long",
        )
    })?
    .map_err(|_| too_large())?;
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

async fn add_file(inner: &Inner, form: u64, request: Request) -> Result<Response, Refusal> {
    if media_type(request.headers()) != "application/octet-stream" {
        return Err(Refusal::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "a file must be sent as application/octet-stream",
        ));
    }
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
