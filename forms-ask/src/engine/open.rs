//! Opening a request: its audience fixed, its choices, form and bound action checked.

use super::change::{check_text, event};
use super::expiry::expiry;
use super::form_bridge::normalized_form;
use super::id::new_id;
use super::pipeline::{OpenInput, Plan};
use super::AsPrincipal;
use crate::error::AskError;
use crate::limits;
use crate::model::{ConversationId, EventKind, Kind, NewRequest, Principal, Request, State};
use crate::retry::InputHash;
use crate::store::Write;

impl AsPrincipal<'_> {
    /// Opens a request in `conversation`. The audience is fixed now: by default the
    /// conversation's current members with contact rights, minus the requester (and, for an
    /// approval bound to an action, minus the executor it names). An approval's requester
    /// and its executor are never in its audience: an explicit audience naming either is
    /// refused.
    pub fn open(
        &self,
        conversation: &ConversationId,
        new: NewRequest,
        key: &str,
    ) -> Result<Request, AskError> {
        limits::new_request(&new)?;
        let input = InputHash::of(
            "open",
            &OpenInput {
                conversation,
                request: &new,
            },
        );
        self.write("open", input, key, || {
            // The members and the store's high-water mark of time, in one read.
            let (members, high_water) = self.store().members_at(conversation)?;
            self.asks.observe(high_water);
            let now = self.asks.now();
            if !members
                .iter()
                .any(|m| m.principal == self.me && m.is_active())
            {
                return Err(AskError::NotMember {
                    principal: self.me.clone(),
                    conversation: conversation.clone(),
                });
            }
            check_text("the body", &new.body)?;
            if let Some(title) = &new.title {
                check_text("the title", title)?;
            }
            let quota = self.asks.inner.quotas.open_requests;
            if self.store().open_requests_of(&self.me, now)? >= quota {
                return Err(AskError::Quota {
                    principal: self.me.clone(),
                    what: "open requests",
                    limit: quota,
                    remedy: "cancel one, or wait until one is answered or expires",
                });
            }
            // Who may never decide this request: an approval's requester, and the executor
            // its bound action names.
            let executor = new.action.as_ref().map(|a| a.executor.as_str());
            let never = |p: &Principal| {
                new.kind == Kind::Approval && (*p == self.me || Some(p.as_str()) == executor)
            };
            let audience = match new.audience {
                Some(list) => {
                    let active: std::collections::HashSet<&Principal> = members
                        .iter()
                        .filter(|m| m.is_active())
                        .map(|m| &m.principal)
                        .collect();
                    let mut named = std::collections::HashSet::with_capacity(list.len());
                    let mut audience: Vec<Principal> = Vec::with_capacity(list.len());
                    for p in list {
                        if never(&p) {
                            return Err(AskError::InvalidInput(format!(
                                "{p} may not be in the audience: {}",
                                if p == self.me {
                                    "the requester never decides its own approval"
                                } else {
                                    "the executor of a bound action never approves it"
                                }
                            )));
                        }
                        if !active.contains(&p) {
                            return Err(AskError::InvalidInput(format!(
                                "{p} is not a member of {conversation} with contact rights"
                            )));
                        }
                        if named.insert(p.clone()) {
                            audience.push(p);
                        }
                    }
                    audience
                }
                None => members
                    .iter()
                    .filter(|m| m.is_active() && m.principal != self.me && !never(&m.principal))
                    .map(|m| m.principal.clone())
                    .collect(),
            };
            if audience.is_empty() {
                return Err(AskError::InvalidInput(
                    "the audience is empty: nobody else in the conversation can respond".into(),
                ));
            }
            if let Some(choices) = &new.choices {
                if new.kind != Kind::Question {
                    return Err(AskError::InvalidInput(
                        "only a question offers choices".into(),
                    ));
                }
                if choices.is_empty() {
                    return Err(AskError::InvalidInput("the choices are empty".into()));
                }
                // Unique: checked in linear time by `limits::new_request`.
                for c in choices {
                    check_text("a choice", c)?;
                }
            }
            let form = match &new.form {
                None => None,
                Some(value) => {
                    if new.kind != Kind::Question {
                        return Err(AskError::InvalidInput(
                            "only a question carries a form".into(),
                        ));
                    }
                    if new.choices.is_some() {
                        return Err(AskError::InvalidInput(
                            "a question offers choices or carries a form, not both".into(),
                        ));
                    }
                    Some(normalized_form(value)?)
                }
            };
            if let Some(action) = &new.action {
                if new.kind != Kind::Approval {
                    return Err(AskError::InvalidInput(
                        "only an approval can be bound to an action".into(),
                    ));
                }
                check_text("the executor", &action.executor)?;
                check_text("the operation key", &action.operation_key)?;
            }
            let expires_at = expiry(new.expires_at, new.action.is_some(), now)?;
            let request = Request {
                id: new_id(&self.me, key),
                conversation: conversation.clone(),
                kind: new.kind,
                title: new.title,
                body: new.body,
                requester: self.me.clone(),
                audience,
                choices: new.choices,
                form,
                version: 1,
                state: State::Open,
                expires_at,
                created_at: now,
                updated_at: now,
                outcome: None,
                answer: None,
                response: None,
                responder: None,
                replaces: None,
                replaced_by: None,
                action: new.action,
                redemption: None,
                execution: None,
            };
            let opened = event(&request, EventKind::Opened, Some(&self.me), now, None);
            Ok(Plan {
                eligible: None,
                writes: vec![Write::Insert(request.clone())],
                events: vec![opened],
                result: request,
            })
        })
    }
}
