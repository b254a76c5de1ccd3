//! Conversation membership: the operator's changes, an active manager's, and the members'
//! reads of who is in a conversation and what changed.

use super::{AsPrincipal, Asks};
use crate::error::AskError;
use crate::model::{ConversationId, Member, MemberEvent, MemberEventKind, Principal};
use crate::store::MemberChange;

impl Asks {
    /// Adds `principal` to the conversation (or brings them back), with contact rights, as
    /// the operator (recorded with no actor). A member who joins later is never in an
    /// earlier request's audience.
    pub fn join(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
    ) -> Result<(), AskError> {
        self.change_member(None, conversation, principal, MemberChange::Join)
    }

    /// Adds `principal` as a manager of the conversation (or makes a member one), as the
    /// operator. A manager may change the conversation's membership while it is an active
    /// member ([`AsPrincipal::join`] and the others); only the operator makes managers.
    pub fn join_as_manager(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
    ) -> Result<(), AskError> {
        self.change_member(None, conversation, principal, MemberChange::JoinAsManager)
    }

    /// Removes `principal` from the conversation, as the operator: they lose their current
    /// eligibility (and managing).
    pub fn remove_member(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
    ) -> Result<(), AskError> {
        self.change_member(None, conversation, principal, MemberChange::Remove)
    }

    /// Revokes `principal`'s contact rights in the conversation, as the operator.
    pub fn revoke_contact(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
    ) -> Result<(), AskError> {
        self.change_member(None, conversation, principal, MemberChange::RevokeContact)
    }

    /// Gives `principal` contact rights back, as the operator.
    pub fn restore_contact(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
    ) -> Result<(), AskError> {
        self.change_member(None, conversation, principal, MemberChange::RestoreContact)
    }

    /// The conversation's membership log, oldest first: every join, removal, revocation
    /// and restoration, with who made it and when.
    pub fn member_log(&self, conversation: &ConversationId) -> Result<Vec<MemberEvent>, AskError> {
        Ok(self.inner.store.member_events(conversation)?)
    }

    /// Applies one membership change and records it in the conversation's log.
    fn change_member(
        &self,
        actor: Option<&Principal>,
        conversation: &ConversationId,
        principal: &Principal,
        change: MemberChange,
    ) -> Result<(), AskError> {
        let event = MemberEvent {
            conversation: conversation.clone(),
            principal: principal.clone(),
            event: match change {
                MemberChange::Join => MemberEventKind::Joined,
                MemberChange::JoinAsManager => MemberEventKind::JoinedAsManager,
                MemberChange::Remove => MemberEventKind::Removed,
                MemberChange::RevokeContact => MemberEventKind::ContactRevoked,
                MemberChange::RestoreContact => MemberEventKind::ContactRestored,
            },
            actor: actor.cloned(),
            at: self.now(),
        };
        Ok(self
            .inner
            .store
            .change_member(conversation, principal, change, &event)?)
    }

    /// The conversation's members, removed ones included.
    pub fn members(&self, conversation: &ConversationId) -> Result<Vec<Member>, AskError> {
        Ok(self.inner.store.members(conversation)?)
    }
}

impl AsPrincipal<'_> {
    /// Adds `principal` to the conversation (or brings them back) with contact rights;
    /// only an active manager of the conversation may. Recorded in its membership log with
    /// this principal as the actor.
    pub fn join(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
    ) -> Result<(), AskError> {
        self.manage(conversation, principal, MemberChange::Join)
    }

    /// Removes `principal` from the conversation (and from managing it); only an active
    /// manager may.
    pub fn remove_member(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
    ) -> Result<(), AskError> {
        self.manage(conversation, principal, MemberChange::Remove)
    }

    /// Revokes `principal`'s contact rights in the conversation; only an active manager may.
    pub fn revoke_contact(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
    ) -> Result<(), AskError> {
        self.manage(conversation, principal, MemberChange::RevokeContact)
    }

    /// Gives `principal` contact rights back; only an active manager may.
    pub fn restore_contact(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
    ) -> Result<(), AskError> {
        self.manage(conversation, principal, MemberChange::RestoreContact)
    }

    fn manage(
        &self,
        conversation: &ConversationId,
        principal: &Principal,
        change: MemberChange,
    ) -> Result<(), AskError> {
        self.manager_of(conversation)?;
        self.asks
            .change_member(Some(&self.me), conversation, principal, change)
    }

    /// The conversation's members; only its current members (removed ones excepted) may
    /// read them.
    pub fn members(&self, conversation: &ConversationId) -> Result<Vec<Member>, AskError> {
        let members = self.store().members(conversation)?;
        self.member_of(conversation, &members)?;
        Ok(members)
    }

    /// The conversation's membership log; only its current members may read it.
    pub fn member_log(&self, conversation: &ConversationId) -> Result<Vec<MemberEvent>, AskError> {
        self.member_of(conversation, &self.store().members(conversation)?)?;
        Ok(self.store().member_events(conversation)?)
    }
}
