//! The browser answerer: one small HTTP server on 127.0.0.1 for the whole session. `GET /`
//! serves the form waiting for an answer (or a short note when none is); the page POSTs the
//! host response JSON to `/answer`, which hands it to the waiting call.

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde_json::Value;
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

/// The path the page posts its response to.
pub const ANSWER_PATH: &str = "/answer";

struct Pending {
    html: String,
    reply: Option<oneshot::Sender<Value>>,
}

type Shared = Arc<Mutex<Option<Pending>>>;

/// A page server bound to 127.0.0.1 on a free port.
pub struct PageServer {
    url: String,
    shared: Shared,
}

impl PageServer {
    /// Binds 127.0.0.1:0 and serves in the background.
    pub async fn start() -> std::io::Result<PageServer> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
        let url = format!("http://{}/", listener.local_addr()?);
        let shared: Shared = Arc::default();
        let app = Router::new()
            .route("/", get(show))
            .route(ANSWER_PATH, post(answer))
            .with_state(Arc::clone(&shared));
        tokio::spawn(async move {
            if let Err(e) = axum::serve(listener, app).await {
                eprintln!("forms host: the page server stopped: {e}");
            }
        });
        Ok(PageServer { url, shared })
    }

    /// The page's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Serves `html` (a preview page) and waits for its submit; the URL is printed on
    /// standard error as `forms host: answer the form at URL`.
    pub async fn ask(&self, html: String) -> Result<Value, String> {
        let (tx, rx) = oneshot::channel();
        let html = html.replacen(
            "<body",
            &format!("<body data-forms-post=\"{ANSWER_PATH}\""),
            1,
        );
        {
            let mut slot = self.shared.lock().map_err(|_| "poisoned".to_owned())?;
            *slot = Some(Pending {
                html,
                reply: Some(tx),
            });
        }
        eprintln!("forms host: answer the form at {}", self.url);
        let answer = rx
            .await
            .map_err(|_| "the page server closed before the submit".to_owned());
        if let Ok(mut slot) = self.shared.lock() {
            *slot = None;
        }
        answer
    }
}

async fn show(State(shared): State<Shared>) -> Response {
    let html = shared
        .lock()
        .ok()
        .and_then(|slot| slot.as_ref().map(|p| p.html.clone()));
    match html {
        Some(html) => ([(header::CACHE_CONTROL, "no-store")], Html(html)).into_response(),
        None => {
            Html("<!doctype html><title>forms host</title><p>No form is waiting for an answer.</p>")
                .into_response()
        }
    }
}

async fn answer(State(shared): State<Shared>, body: String) -> Response {
    let value: Value = match serde_json::from_str(&body) {
        Ok(value) => value,
        Err(e) => {
            return (StatusCode::BAD_REQUEST, format!("not JSON: {e}")).into_response();
        }
    };
    let reply = shared
        .lock()
        .ok()
        .and_then(|mut slot| slot.as_mut().and_then(|p| p.reply.take()));
    match reply.map(|reply| reply.send(value)) {
        Some(Ok(())) => StatusCode::NO_CONTENT.into_response(),
        _ => (StatusCode::CONFLICT, "no form is waiting for an answer").into_response(),
    }
}
