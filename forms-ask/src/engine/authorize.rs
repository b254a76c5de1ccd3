//! Authorization: who may see a request, who may answer it, who manages a conversation,
//! and who is its requester.

use super::change::check_current;
use super::AsPrincipal;
use crate::error::{AskError, Ineligible};
use crate::model::{ConversationId, Kind, Member, Principal, Request, RequestId};

impl AsPrincipal<'_> {
    /// Eligible = in the original audience AND still a member AND contact rights stand;
    /// and never the requester of an approval, nor the executor its bound action names
    /// (membership is not approval authority).
    pub(super) fn eligibility(&self, r: &Request) -> Result<(), AskError> {
        let member = self
            .store()
            .members(&r.conversation)?
            .into_iter()
            .find(|m| m.principal == self.me);
        self.eligibility_with(r, member)
    }

    /// [`AsPrincipal::eligibility`] with this principal's membership row already read.
    pub(super) fn eligibility_with(
        &self,
        r: &Request,
        member: Option<Member>,
    ) -> Result<(), AskError> {
        let refuse = |reason| AskError::NotEligible {
            principal: self.me.clone(),
            request: r.id.clone(),
            reason,
        };
        if r.kind == Kind::Approval {
            if r.requester == self.me {
                return Err(refuse(Ineligible::Requester));
            }
            if is_executor(r, &self.me) {
                return Err(refuse(Ineligible::Executor));
            }
        }
        if !r.audience.contains(&self.me) {
            return Err(refuse(Ineligible::NotInAudience));
        }
        match member {
            Some(m) if m.removed => Err(refuse(Ineligible::NotAMember)),
            None => Err(refuse(Ineligible::NotAMember)),
            Some(m) if m.contact_revoked => Err(refuse(Ineligible::ContactRevoked)),
            Some(_) => Ok(()),
        }
    }

    /// The requester, the original audience, the executor a bound action names and the
    /// conversation's current members may see a request.
    pub(super) fn readable(&self, id: &RequestId) -> Result<Request, AskError> {
        let r = self.asks.current(id)?;
        if r.requester == self.me || r.audience.contains(&self.me) || is_executor(&r, &self.me) {
            return Ok(r);
        }
        let member = self
            .store()
            .members(&r.conversation)?
            .into_iter()
            .any(|m| m.principal == self.me && !m.removed);
        if member {
            Ok(r)
        } else {
            Err(AskError::NotAllowed {
                principal: self.me.clone(),
                request: r.id,
            })
        }
    }

    /// Refuses anyone but an active manager of the conversation.
    pub(super) fn manager_of(&self, conversation: &ConversationId) -> Result<(), AskError> {
        let manages = self
            .store()
            .members(conversation)?
            .into_iter()
            .any(|m| m.principal == self.me && m.manager && m.is_active());
        if manages {
            Ok(())
        } else {
            Err(AskError::NotManager {
                principal: self.me.clone(),
                conversation: conversation.clone(),
            })
        }
    }

    pub(super) fn member_of(
        &self,
        conversation: &ConversationId,
        members: &[Member],
    ) -> Result<(), AskError> {
        if members.iter().any(|m| m.principal == self.me && !m.removed) {
            Ok(())
        } else {
            Err(AskError::NotMember {
                principal: self.me.clone(),
                conversation: conversation.clone(),
            })
        }
    }

    pub(super) fn check_requester(
        &self,
        r: &Request,
        action: &'static str,
    ) -> Result<(), AskError> {
        if r.requester == self.me {
            Ok(())
        } else {
            Err(AskError::NotRequester {
                request: r.id.clone(),
                requester: r.requester.clone(),
                action,
            })
        }
    }

    /// Whether this principal could answer `request` now, as read by [`AsPrincipal::show`]:
    /// the eligibility [`AsPrincipal::respond`] checks (the original audience, still a
    /// member, contact rights standing; never the requester or the executor of an
    /// approval), then that the request is still open. `Err` is the refusal `respond` would
    /// give at the version read (`not_eligible`, `conflict` or `expired`, each with the
    /// latest state), so a surface can refuse before it shows anything to answer.
    pub fn answerable(&self, request: &Request) -> Result<(), AskError> {
        self.eligibility(request)?;
        check_current(request, request.version)
    }
}

/// Whether `p` is the executor the request's bound action names.
fn is_executor(r: &Request, p: &Principal) -> bool {
    r.action.as_ref().is_some_and(|a| a.executor == p.as_str())
}
