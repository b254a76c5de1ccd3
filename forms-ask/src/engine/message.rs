//! Follow-up messages: posted on a request, kept in its log, deciding nothing.

use super::change::check_text;
use super::pipeline::{MessageInput, Plan};
use super::AsPrincipal;
use crate::error::AskError;
use crate::limits;
use crate::model::{AuditEvent, EventKind, RequestId};
use crate::retry::InputHash;
use serde_json::json;

impl AsPrincipal<'_> {
    /// Posts a follow-up message on the request. It stays in the log and decides nothing:
    /// the state and version are unchanged.
    pub fn message(&self, id: &RequestId, text: &str, key: &str) -> Result<AuditEvent, AskError> {
        limits::chars("text", text, limits::MESSAGE_CHARS_MAX)?;
        let input = InputHash::of("message", &MessageInput { id, text });
        self.write("message", input, key, || {
            let r = self.readable(id)?;
            // The read observed the store's high-water mark: `now` is not behind it.
            let now = self.asks.now();
            check_text("the message", text)?;
            let quota = self.asks.inner.quotas.messages_per_request;
            if self.store().messages_by(id, &self.me)? >= quota {
                return Err(AskError::Quota {
                    principal: self.me.clone(),
                    what: "messages on this request",
                    limit: quota,
                    remedy: "open a new request to go on",
                });
            }
            let ev = self.my_event(&r, EventKind::Message, now, json!({ "text": text }));
            Ok(Plan {
                eligible: None,
                writes: vec![],
                events: vec![ev.clone()],
                result: ev,
            })
        })
    }
}
