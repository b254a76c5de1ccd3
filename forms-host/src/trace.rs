//! `--trace`: a transport wrapper that logs every JSON-RPC message on standard error, `>>`
//! for what the host sends and `<<` for what it receives, one JSON line each, with the
//! characters a terminal would obey written as JSON escapes ([`super::visible::visible_json`]).

use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::{IntoTransport, Transport};
use rmcp::RoleClient;
use std::future::Future;

/// A transport whose messages are logged when `on` is set.
pub(crate) struct Traced<T> {
    inner: T,
    on: bool,
}

/// Wraps `transport`.
pub(crate) fn traced<E, A>(
    transport: impl IntoTransport<RoleClient, E, A>,
    on: bool,
) -> Traced<impl Transport<RoleClient, Error = E> + 'static>
where
    E: std::error::Error + Send + Sync + 'static,
{
    Traced {
        inner: transport.into_transport(),
        on,
    }
}

fn log<M: serde::Serialize>(arrow: &str, message: &M) {
    match serde_json::to_string(message) {
        Ok(line) => eprintln!("{arrow} {}", super::visible::visible_json(&line)),
        Err(e) => eprintln!("{arrow} (a message that does not serialize: {e})"),
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Traced<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if self.on {
            log(">>", &item);
        }
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = self.inner.receive().await;
        if self.on {
            match &message {
                Some(message) => log("<<", message),
                None => eprintln!("<< (the connection closed)"),
            }
        }
        message
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
