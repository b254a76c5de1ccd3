//! Bound actions: an approved approval's action redeemed once by its executor or requester,
//! and its execution reported.

use super::change::transition;
use super::pipeline::{Plan, RedeemInput, ReportInput};
use super::AsPrincipal;
use crate::error::{ActionRefusal, AskError};
use crate::limits;
use crate::model::{
    Action, EventKind, Execution, ExecutionStatus, Outcome, Redeem, Redemption, Request, RequestId,
    State,
};
use crate::retry::InputHash;
use serde_json::json;

impl AsPrincipal<'_> {
    /// The action bound to `r`, when this principal may act on it: its executor or the
    /// requester.
    fn executable<'r>(&self, r: &'r Request) -> Result<&'r Action, AskError> {
        let action = r
            .action
            .as_ref()
            .ok_or(AskError::ActionRefused(ActionRefusal::NoAction))?;
        if self.me != r.requester && self.me.as_str() != action.executor {
            return Err(AskError::ActionRefused(ActionRefusal::NotExecutor));
        }
        Ok(action)
    }

    /// Redeems an approved approval's bound action: what is presented must equal the bound
    /// executor, resource version, arguments and operation key exactly; a second redemption
    /// is refused. Only the named executor (who need not be a member of the conversation)
    /// or the requester may redeem. The engine records the intent; it executes nothing.
    pub fn redeem(&self, id: &RequestId, redeem: &Redeem, key: &str) -> Result<Request, AskError> {
        limits::redeem(redeem)?;
        let input = InputHash::of("redeem", &RedeemInput { id, redeem });
        self.write("redeem", input, key, || {
            let r = self.readable(id)?;
            // The read observed the store's high-water mark: `now` is not behind it.
            let now = self.asks.now();
            let action = self.executable(&r)?;
            if r.state != State::Resolved || r.outcome != Some(Outcome::Approved) {
                return Err(AskError::ActionRefused(ActionRefusal::NotApproved));
            }
            if r.redemption.is_some() {
                return Err(AskError::ActionRefused(ActionRefusal::AlreadyRedeemed));
            }
            if r.expires_at.is_past(now) {
                return Err(AskError::ActionRefused(ActionRefusal::ApprovalExpired));
            }
            let mismatch = if redeem.executor != action.executor {
                Some("the executor")
            } else if redeem.resource_version != action.resource_version {
                Some("the resource version")
            } else if redeem.arguments != action.arguments {
                Some("the arguments")
            } else if redeem.operation_key != action.operation_key {
                Some("the operation key")
            } else {
                None
            };
            if let Some(field) = mismatch {
                return Err(AskError::ActionRefused(ActionRefusal::Mismatch(field)));
            }
            let mut next = transition(&r, r.state, now.max(r.updated_at));
            next.redemption = Some(Redemption {
                by: self.me.clone(),
                at: next.updated_at,
            });
            let ev = self.my_event(
                &next,
                EventKind::Redeemed,
                next.updated_at,
                json!({ "operation_key": action.operation_key }),
            );
            Ok(Plan::update(r.version, next, ev))
        })
        .map_err(|e| match e {
            // Two redemptions raced: the loser sees the winner's.
            AskError::Conflict { latest } if latest.redemption.is_some() => {
                AskError::ActionRefused(ActionRefusal::AlreadyRedeemed)
            }
            e => e,
        })
    }

    /// Reports the execution of a redeemed action: `succeeded`, `failed` or `unknown`. An
    /// `unknown` report stays reconcilable by a later report; a final one is not replaced.
    /// Only the named executor (member or not) or the requester may report.
    pub fn report_execution(
        &self,
        id: &RequestId,
        operation_key: &str,
        status: ExecutionStatus,
        detail: Option<&str>,
        key: &str,
    ) -> Result<Request, AskError> {
        limits::chars(
            "operation_key",
            operation_key,
            limits::ACTION_FIELD_CHARS_MAX,
        )?;
        if let Some(detail) = detail {
            limits::chars("detail", detail, limits::DETAIL_CHARS_MAX)?;
        }
        let input = InputHash::of(
            "report_execution",
            &ReportInput {
                id,
                operation_key,
                status,
                detail,
            },
        );
        self.write("report_execution", input, key, || {
            let r = self.readable(id)?;
            // The read observed the store's high-water mark: `now` is not behind it.
            let now = self.asks.now();
            let action = self.executable(&r)?;
            if r.redemption.is_none() {
                return Err(AskError::ActionRefused(ActionRefusal::NotRedeemed));
            }
            if operation_key != action.operation_key {
                return Err(AskError::ActionRefused(ActionRefusal::Mismatch(
                    "the operation key",
                )));
            }
            if matches!(&r.execution, Some(e) if e.status != ExecutionStatus::Unknown) {
                return Err(AskError::ActionRefused(ActionRefusal::ExecutionFinal));
            }
            let mut next = transition(&r, r.state, now.max(r.updated_at));
            next.execution = Some(Execution {
                status,
                detail: detail.map(str::to_owned),
                by: self.me.clone(),
                at: next.updated_at,
            });
            let ev = self.my_event(
                &next,
                EventKind::ExecutionReported,
                next.updated_at,
                json!({ "status": status, "detail": detail }),
            );
            Ok(Plan::update(r.version, next, ev))
        })
    }
}
