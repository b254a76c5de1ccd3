//! The transport wrapper: puts a connection's kept answers in the extensions of each request.

use super::kept::{Capture, RawInput};
use crate::call::CallArguments;
use rmcp::model::{ClientRequest, GetExtensions, JsonRpcMessage};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use std::future::Future;
use std::sync::Arc;

/// A transport whose requests carry their connection's [`Capture`] (and, for a retried
/// call, its kept [`RawInput`]) in their extensions.
pub(super) struct Capturing<T> {
    pub(super) inner: T,
    pub(super) capture: Capture,
}

impl<T: Transport<RoleServer>> Transport<RoleServer> for Capturing<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        let mut message = self.inner.receive().await?;
        if let JsonRpcMessage::Request(request) = &mut message {
            let arguments = match &request.request {
                ClientRequest::CallToolRequest(call) => {
                    Some(CallArguments(call.params.arguments.clone().map(Arc::new)))
                }
                _ => None,
            };
            let extensions = request.request.extensions_mut();
            if let Some(arguments) = arguments {
                extensions.insert(arguments);
            }
            if let Some(raw) = self.capture.answers.take_input(&request.id) {
                extensions.insert(RawInput(raw));
            }
            extensions.insert(self.capture.clone());
        }
        Some(message)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
