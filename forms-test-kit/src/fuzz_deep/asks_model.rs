//! The `asks_model` fuzz target: random operation sequences on the requested-replies engine
//! (`forms_ask`, a SQLite file), by five principals, checked step by step against a small model
//! of the seed's state machine (`open` → `resolved` | `cancelled` | `superseded`, one version
//! per transition, one audit event per transition).
//!
//! What the model decides exactly, and the engine must agree with:
//! - `open` by each principal: `not_member` (removed or contact revoked), `quota_exceeded`
//!   (a quota of 3 open requests), `invalid_input` for an empty default audience; otherwise
//!   the audience is the active members minus the requester (and minus the executor of a
//!   bound approval), version 1.
//! - `respond`: `not_found`, `not_eligible` (an approval's requester or executor, not in the
//!   original audience, removed, contact revoked), `conflict` (stale version or already
//!   decided: the one winner stays), `invalid_outcome`, `invalid_answer` (choices).
//! - `cancel` and `supersede`: `not_found`, `not_requester`, `conflict`.
//! - `redeem` and `report_execution` of bound approvals: `not_allowed` and each
//!   `action_refused` reason (no action, not the executor, not approved, already redeemed,
//!   a mismatched field, not redeemed, a final report), exactly once.
//! - retry keys (a client's retry repeats its last write exactly; keys collide too): a key a principal already used for a write that went through replays its
//!   first result for the same input (nothing changes) and is refused (`retry_key_reused`)
//!   for another; refused writes record nothing.
//! - `show` by anyone: `not_allowed` or the model's request (state, version, outcome,
//!   responder, answer, redemption, execution); the audit log holds one event per version
//!   (`1..=version`, one `responded` at most); `list` by a member agrees with the model for
//!   every request it lists.
//! - a race: two eligible principals respond to the same open request from two threads:
//!   exactly one wins, the other gets `conflict` carrying the winner's outcome.
//!
//! Not covered (the engine is driven there, the model does not predict it): membership
//! changes are made by the operator and read back rather than predicted (the model checks the
//! engine's members list after each); expiry (the clock is fixed); `replace`; forms carried by
//! questions; messages and their quota; waits; explicit audiences; which requests `list`
//! includes and whether a non-member may list.

use arbitrary::Unstructured;
use forms_ask::{
    Action, ActionRefusal, AskError, Asks, ConversationId, EventKind, ExecutionStatus, Kind,
    ManualClock, NewRequest, Outcome, Principal, Quotas, Redeem, Request, RequestId, SqliteStore,
    State, Timestamp,
};
use std::collections::HashMap;
use std::sync::Arc;

/// Principals `p0`–`p3` start as members; `x` never is (an executor from outside).
const NAMES: [&str; 5] = ["p0", "p1", "p2", "p3", "x"];
/// The open-request quota of each principal.
const QUOTA: usize = 3;
/// The most operations one input runs.
const OPS_MAX: usize = 48;
/// Retry keys are drawn from this many per principal, so they collide.
const KEYS: u32 = 6;
const CHOICES: [&str; 2] = ["yes", "no"];
const OPERATION_KEY: &str = "op-1";

/// A member row of the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Membership {
    member: bool,
    removed: bool,
    revoked: bool,
}

impl Membership {
    fn active(self) -> bool {
        self.member && !self.removed && !self.revoked
    }
    fn current(self) -> bool {
        self.member && !self.removed
    }
}

/// One request of the model.
#[derive(Debug, Clone, PartialEq)]
struct Req {
    id: RequestId,
    kind: Kind,
    requester: usize,
    audience: Vec<usize>,
    choices: bool,
    /// The executor of a bound approval (an index in [`NAMES`]).
    executor: Option<usize>,
    state: State,
    version: u64,
    outcome: Option<Outcome>,
    answer: Option<String>,
    responder: Option<usize>,
    redeemed_by: Option<usize>,
    execution: Option<ExecutionStatus>,
}

/// How many times each operation ended each way (`open:ok`, `respond:conflict`,
/// `redeem:AlreadyRedeemed`, `respond:replayed`, `race:ok`, …): what an input reached.
pub type Counts = std::collections::BTreeMap<String, usize>;

/// What a refusal is, as the model names it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Refusal {
    Code(&'static str),
    Action(ActionRefusal),
}

fn refusal_of(e: &AskError) -> Refusal {
    match e {
        AskError::ActionRefused(r) => Refusal::Action(r.clone()),
        e => Refusal::Code(e.code()),
    }
}

/// A write's model-level input, to which its retry key binds.
type Input = String;

struct Model {
    /// What happened, by operation and verdict (`respond:ok`, `redeem:NotApproved`, …).
    counts: Counts,
    members: [Membership; 5],
    reqs: Vec<Req>,
    /// (principal, key) → (input, first result) of writes that went through.
    keys: HashMap<(usize, u32), (Input, Request)>,
    /// The last write, with the version it sent.
    last: Option<Op>,
}

/// The engine under test, over a fresh SQLite file, with its directory.
struct Engine {
    asks: Asks,
    dir: std::path::PathBuf,
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn principal(i: usize) -> Principal {
    Principal::new(NAMES[i]).unwrap()
}

fn chat() -> ConversationId {
    ConversationId::new("c").unwrap()
}

fn engine() -> Engine {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    // tmpfs when there is one: SQLite's `synchronous=FULL` costs little there.
    let base = if std::path::Path::new("/dev/shm").is_dir() {
        std::path::PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    let dir = base.join(format!(
        "forms-asks-model-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let store = SqliteStore::open(dir.join("asks.db")).unwrap();
    let clock = ManualClock::at(Timestamp::parse("2026-07-01T12:00:00Z").unwrap());
    let asks = Asks::with_clock(Arc::new(store), Arc::new(clock)).with_quotas(Quotas {
        open_requests: QUOTA,
        ..Quotas::default()
    });
    for i in 0..4 {
        asks.join(&chat(), &principal(i)).unwrap();
    }
    Engine { asks, dir }
}

fn outcome_of(i: u8) -> Outcome {
    [
        Outcome::Answered,
        Outcome::Approved,
        Outcome::Denied,
        Outcome::Completed,
        Outcome::Failed,
        Outcome::Rejected,
    ][usize::from(i) % 6]
}

fn arguments() -> serde_json::Value {
    serde_json::json!({"n": 1})
}

/// The operations of one step, drawn from the input.
#[derive(Debug, Clone)]
enum Op {
    Open {
        by: usize,
        kind: Kind,
        choices: bool,
        executor: Option<usize>,
        key: u32,
    },
    Respond {
        by: usize,
        req: usize,
        version: VersionPick,
        outcome: Outcome,
        answer: Option<&'static str>,
        key: u32,
    },
    Withdraw {
        by: usize,
        req: usize,
        version: VersionPick,
        supersede: bool,
        key: u32,
    },
    Redeem {
        by: usize,
        req: usize,
        /// 0: exact; 1..=4 a mismatched field.
        wrong: u8,
        key: u32,
    },
    Report {
        by: usize,
        req: usize,
        status: ExecutionStatus,
        wrong_key: bool,
        key: u32,
    },
    Show {
        by: usize,
        req: usize,
    },
    List {
        by: usize,
    },
    Membership {
        who: usize,
        change: u8,
    },
    Race {
        a: usize,
        b: usize,
        req: usize,
    },
    /// The last write again, exactly (same key, same input): a client's retry.
    Retry,
}

#[derive(Debug, Clone, Copy)]
enum VersionPick {
    Current,
    Stale,
    Ahead,
    /// The version a write sent before, for its retry.
    Exact(u64),
}

/// One operation; `requests` is how many the model holds (a request index past them names
/// no request).
fn draw(u: &mut Unstructured<'_>, requests: usize) -> arbitrary::Result<Op> {
    let by = usize::from(u.int_in_range(0u8..=4)?);
    let req = usize::from(u.arbitrary::<u8>()?) % (requests + 1);
    let key = u32::from(u.int_in_range(0u8..=(KEYS as u8 - 1))?);
    let version = match u.int_in_range(0u8..=7)? {
        0 => VersionPick::Stale,
        1 => VersionPick::Ahead,
        _ => VersionPick::Current,
    };
    Ok(match u.int_in_range(0u8..=12)? {
        0 | 1 => {
            let kind =
                [Kind::Question, Kind::Approval, Kind::Task][usize::from(u.int_in_range(0u8..=2)?)];
            let choices = kind == Kind::Question && u.arbitrary()?;
            let executor = if kind == Kind::Approval && u.arbitrary()? {
                Some(usize::from(u.int_in_range(0u8..=4)?))
            } else {
                None
            };
            Op::Open {
                by,
                kind,
                choices,
                executor,
                key,
            }
        }
        2..=4 => Op::Respond {
            by,
            req,
            version,
            outcome: outcome_of(u.arbitrary()?),
            answer: [None, Some("yes"), Some("no"), Some("maybe")]
                [usize::from(u.int_in_range(0u8..=3)?)],
            key,
        },
        5 => Op::Withdraw {
            by,
            req,
            version,
            supersede: u.arbitrary()?,
            key,
        },
        6 => Op::Redeem {
            by,
            req,
            wrong: if u.ratio(3u8, 4)? {
                0
            } else {
                u.int_in_range(1u8..=4)?
            },
            key,
        },
        7 => Op::Report {
            by,
            req,
            status: [
                ExecutionStatus::Succeeded,
                ExecutionStatus::Failed,
                ExecutionStatus::Unknown,
            ][usize::from(u.int_in_range(0u8..=2)?)],
            wrong_key: u.ratio(1u8, 8)?,
            key,
        },
        8 => Op::Show { by, req },
        9 => Op::List { by },
        10 => Op::Membership {
            who: usize::from(u.int_in_range(0u8..=3)?),
            change: u.int_in_range(0u8..=3)?,
        },
        11 => Op::Retry,
        _ => Op::Race {
            a: by,
            b: usize::from(u.int_in_range(0u8..=4)?),
            req,
        },
    })
}

impl Model {
    fn new() -> Model {
        let mut members = [Membership::default(); 5];
        for m in members.iter_mut().take(4) {
            m.member = true;
        }
        Model {
            counts: Counts::new(),
            members,
            reqs: Vec::new(),
            keys: HashMap::new(),
            last: None,
        }
    }

    fn open_count(&self, by: usize) -> usize {
        self.reqs
            .iter()
            .filter(|r| r.requester == by && r.state == State::Open)
            .count()
    }

    /// `readable`: the requester, the audience, the executor and current members.
    fn readable(&self, r: &Req, by: usize) -> bool {
        r.requester == by
            || r.audience.contains(&by)
            || r.executor == Some(by)
            || self.members[by].current()
    }

    fn eligible(&self, r: &Req, by: usize) -> bool {
        if r.kind == Kind::Approval && (r.requester == by || r.executor == Some(by)) {
            return false;
        }
        r.audience.contains(&by) && self.members[by].active()
    }

    /// The model's verdict on a respond: `Ok` or the refusal.
    fn respond(
        &self,
        r: &Req,
        by: usize,
        version: u64,
        outcome: Outcome,
        answer: Option<&str>,
    ) -> Result<(), Refusal> {
        if !self.eligible(r, by) {
            return Err(Refusal::Code("not_eligible"));
        }
        if r.state != State::Open || r.version != version {
            return Err(Refusal::Code("conflict"));
        }
        if !r.kind.outcomes().contains(&outcome) {
            return Err(Refusal::Code("invalid_outcome"));
        }
        if r.choices && !answer.is_some_and(|a| CHOICES.contains(&a)) {
            return Err(Refusal::Code("invalid_answer"));
        }
        Ok(())
    }

    fn redeem(&self, r: &Req, by: usize, wrong: u8) -> Result<(), Refusal> {
        if !self.readable(r, by) {
            return Err(Refusal::Code("not_allowed"));
        }
        let Some(executor) = r.executor else {
            return Err(Refusal::Action(ActionRefusal::NoAction));
        };
        if by != r.requester && by != executor {
            return Err(Refusal::Action(ActionRefusal::NotExecutor));
        }
        if r.state != State::Resolved || r.outcome != Some(Outcome::Approved) {
            return Err(Refusal::Action(ActionRefusal::NotApproved));
        }
        if r.redeemed_by.is_some() {
            return Err(Refusal::Action(ActionRefusal::AlreadyRedeemed));
        }
        match wrong {
            0 => Ok(()),
            1 => Err(Refusal::Action(ActionRefusal::Mismatch("the executor"))),
            2 => Err(Refusal::Action(ActionRefusal::Mismatch(
                "the resource version",
            ))),
            3 => Err(Refusal::Action(ActionRefusal::Mismatch("the arguments"))),
            _ => Err(Refusal::Action(ActionRefusal::Mismatch(
                "the operation key",
            ))),
        }
    }

    fn report(&self, r: &Req, by: usize, wrong_key: bool) -> Result<(), Refusal> {
        if !self.readable(r, by) {
            return Err(Refusal::Code("not_allowed"));
        }
        let Some(executor) = r.executor else {
            return Err(Refusal::Action(ActionRefusal::NoAction));
        };
        if by != r.requester && by != executor {
            return Err(Refusal::Action(ActionRefusal::NotExecutor));
        }
        if r.redeemed_by.is_none() {
            return Err(Refusal::Action(ActionRefusal::NotRedeemed));
        }
        if wrong_key {
            return Err(Refusal::Action(ActionRefusal::Mismatch(
                "the operation key",
            )));
        }
        if r.execution.is_some_and(|s| s != ExecutionStatus::Unknown) {
            return Err(Refusal::Action(ActionRefusal::ExecutionFinal));
        }
        Ok(())
    }
}

/// Asserts that the engine's request agrees with the model's.
fn agree(got: &Request, want: &Req, context: &str) {
    let name = |i: Option<usize>| i.map(|i| NAMES[i].to_owned());
    assert_eq!(got.id, want.id, "{context}");
    assert_eq!(
        got.state,
        want.state,
        "{context}: state of {}",
        want.id.as_str()
    );
    assert_eq!(
        got.version,
        want.version,
        "{context}: version of {}",
        want.id.as_str()
    );
    assert_eq!(
        got.outcome,
        want.outcome,
        "{context}: outcome of {}",
        want.id.as_str()
    );
    assert_eq!(
        got.answer,
        want.answer,
        "{context}: answer of {}",
        want.id.as_str()
    );
    assert_eq!(
        got.responder.as_ref().map(|p| p.as_str().to_owned()),
        name(want.responder),
        "{context}: responder of {}",
        want.id.as_str()
    );
    assert_eq!(
        got.redemption.as_ref().map(|r| r.by.as_str().to_owned()),
        name(want.redeemed_by),
        "{context}: redemption of {}",
        want.id.as_str()
    );
    assert_eq!(
        got.execution.as_ref().map(|e| e.status),
        want.execution,
        "{context}: execution of {}",
        want.id.as_str()
    );
    let mut audience: Vec<String> = got.audience.iter().map(|p| p.as_str().to_owned()).collect();
    audience.sort();
    let mut expected: Vec<String> = want.audience.iter().map(|&i| NAMES[i].to_owned()).collect();
    expected.sort();
    assert_eq!(
        audience,
        expected,
        "{context}: audience of {}",
        want.id.as_str()
    );
}

/// Applies the retry-key rule around a write: `verdict` is the model's verdict on the plan,
/// `apply` the engine's call. Returns the engine's result when it went through as a new
/// write (the caller updates the model), after checking everything else.
#[allow(clippy::too_many_arguments)]
fn keyed_write(
    op: &str,
    model: &mut Model,
    by: usize,
    key: u32,
    input: Input,
    verdict: Result<(), Refusal>,
    result: Result<Request, AskError>,
    context: &str,
) -> Option<Request> {
    let label = match (&model.keys.get(&(by, key)), &verdict) {
        (Some((first, _)), _) if *first == input => "replayed".to_owned(),
        (Some(_), _) => "retry_key_reused".to_owned(),
        (None, Ok(())) => "ok".to_owned(),
        (None, Err(Refusal::Code(c))) => (*c).to_owned(),
        (None, Err(Refusal::Action(a))) => format!("{a:?}"),
    };
    *model.counts.entry(format!("{op}:{label}")).or_default() += 1;
    if let Some((first_input, first)) = model.keys.get(&(by, key)) {
        if *first_input == input {
            let got = result.unwrap_or_else(|e| panic!("{context}: a replay was refused: {e}"));
            assert_eq!(
                &got, first,
                "{context}: a replay differs from the first result"
            );
        } else {
            let e = result
                .err()
                .unwrap_or_else(|| panic!("{context}: a reused key went through"));
            assert_eq!(e.code(), "retry_key_reused", "{context}: {e}");
        }
        return None;
    }
    match (verdict, result) {
        (Ok(()), Ok(got)) => {
            model.keys.insert((by, key), (input, got.clone()));
            Some(got)
        }
        (Ok(()), Err(e)) => panic!("{context}: refused ({}: {e}), the model accepts", e.code()),
        (Err(want), Ok(got)) => {
            panic!("{context}: went through ({got:?}), the model refuses: {want:?}")
        }
        (Err(want), Err(e)) => {
            assert_eq!(refusal_of(&e), want, "{context}: {e}");
            // A conflict carries the latest state; nothing else does.
            assert_eq!(
                e.latest().is_some(),
                want == Refusal::Code("conflict"),
                "{context}: {e}"
            );
            None
        }
    }
}

fn pick_version(r: &Req, pick: VersionPick) -> u64 {
    match pick {
        VersionPick::Current => r.version,
        VersionPick::Stale => r.version.saturating_sub(1),
        VersionPick::Ahead => r.version + 1,
        VersionPick::Exact(v) => v,
    }
}

/// A request id that names nothing.
fn unknown_id() -> RequestId {
    RequestId::new("r-none").unwrap()
}

/// Runs one input: the operations its bytes draw, each checked against the model, then a
/// final read of every request by its requester.
pub fn run(data: &[u8]) {
    let _ = run_counted(data);
}

/// [`run`], returning what the input reached.
pub fn run_counted(data: &[u8]) -> Counts {
    let mut u = Unstructured::new(data);
    let engine = engine();
    let asks = &engine.asks;
    let mut model = Model::new();
    for step in 0..OPS_MAX {
        if u.is_empty() {
            break;
        }
        let Ok(op) = draw(&mut u, model.reqs.len()) else {
            break;
        };
        let context = format!("step {step}: {op:?}");
        apply(asks, &mut model, op, &context);
    }
    check_all(asks, &model, "at the end");
    model.counts
}

fn apply(asks: &Asks, model: &mut Model, op: Op, context: &str) {
    // The last write, its version as sent, for a retry.
    let exact = |req: usize, pick: VersionPick| {
        VersionPick::Exact(model.reqs.get(req).map_or(1, |r| pick_version(r, pick)))
    };
    let last = match op.clone() {
        Op::Respond {
            by,
            req,
            version,
            outcome,
            answer,
            key,
        } => Some(Op::Respond {
            by,
            req,
            version: exact(req, version),
            outcome,
            answer,
            key,
        }),
        Op::Withdraw {
            by,
            req,
            version,
            supersede,
            key,
        } => Some(Op::Withdraw {
            by,
            req,
            version: exact(req, version),
            supersede,
            key,
        }),
        w @ (Op::Open { .. } | Op::Redeem { .. } | Op::Report { .. }) => Some(w),
        _ => None,
    };
    if last.is_some() {
        model.last = last;
    }
    let chat = chat();
    match op {
        Op::Open {
            by,
            kind,
            choices,
            executor,
            key,
        } => {
            let mut new = match kind {
                Kind::Question => NewRequest::question("Which one?"),
                Kind::Approval => NewRequest::approval("May I?"),
                Kind::Task => NewRequest::task("Do it"),
                // The generator draws the three kinds above only.
                other => unreachable!("no kind {other:?} is generated"),
            };
            if choices {
                new = new.choices(CHOICES);
            }
            if let Some(e) = executor {
                new = new.action(Action {
                    executor: NAMES[e].to_owned(),
                    resource_version: "v1".into(),
                    arguments: arguments(),
                    operation_key: OPERATION_KEY.into(),
                });
            }
            let input = format!("open {kind:?} {choices} {executor:?}");
            let audience: Vec<usize> = (0..5)
                .filter(|&i| {
                    model.members[i].active()
                        && i != by
                        && !(kind == Kind::Approval && executor == Some(i))
                })
                .collect();
            let verdict = if !model.members[by].active() {
                Err(Refusal::Code("not_member"))
            } else if model.open_count(by) >= QUOTA {
                Err(Refusal::Code("quota_exceeded"))
            } else if audience.is_empty() {
                Err(Refusal::Code("invalid_input"))
            } else {
                Ok(())
            };
            let result = asks
                .as_principal(&principal(by))
                .open(&chat, new, &format!("k{key}"));
            if let Some(got) = keyed_write("open", model, by, key, input, verdict, result, context)
            {
                assert!(
                    model.reqs.iter().all(|r| r.id != got.id),
                    "{context}: a new request reuses the id {}",
                    got.id.as_str()
                );
                let want = Req {
                    id: got.id.clone(),
                    kind,
                    requester: by,
                    audience,
                    choices,
                    executor,
                    state: State::Open,
                    version: 1,
                    outcome: None,
                    answer: None,
                    responder: None,
                    redeemed_by: None,
                    execution: None,
                };
                assert_eq!(got.kind, kind, "{context}");
                agree(&got, &want, context);
                model.reqs.push(want);
            }
        }
        Op::Respond {
            by,
            req,
            version,
            outcome,
            answer,
            key,
        } => {
            let (id, v, verdict) = match model.reqs.get(req) {
                Some(r) => {
                    let v = pick_version(r, version);
                    (r.id.clone(), v, model.respond(r, by, v, outcome, answer))
                }
                None => (unknown_id(), 1, Err(Refusal::Code("not_found"))),
            };
            let input = format!("respond {} {v} {outcome:?} {answer:?}", id.as_str());
            let result = asks.as_principal(&principal(by)).respond(
                &id,
                v,
                outcome,
                answer,
                &format!("k{key}"),
            );
            if let Some(got) =
                keyed_write("respond", model, by, key, input, verdict, result, context)
            {
                let Some(r) = model.reqs.get_mut(req) else {
                    panic!("{context}: no such request")
                };
                r.state = State::Resolved;
                r.version += 1;
                r.outcome = Some(outcome);
                r.answer = answer.map(str::to_owned);
                r.responder = Some(by);
                agree(&got, r, context);
            }
        }
        Op::Withdraw {
            by,
            req,
            version,
            supersede,
            key,
        } => {
            let (id, v, verdict) = match model.reqs.get(req) {
                Some(r) => {
                    let v = pick_version(r, version);
                    let verdict = if r.requester != by {
                        Err(Refusal::Code("not_requester"))
                    } else if r.state != State::Open || r.version != v {
                        Err(Refusal::Code("conflict"))
                    } else {
                        Ok(())
                    };
                    (r.id.clone(), v, verdict)
                }
                None => (unknown_id(), 1, Err(Refusal::Code("not_found"))),
            };
            let me = asks.as_principal(&principal(by));
            let (input, result) = if supersede {
                (
                    format!("supersede {} {v}", id.as_str()),
                    me.supersede(&id, v, &format!("k{key}")),
                )
            } else {
                (
                    format!("cancel {} {v}", id.as_str()),
                    me.cancel(&id, v, &format!("k{key}")),
                )
            };
            if let Some(got) = keyed_write(
                if supersede { "supersede" } else { "cancel" },
                model,
                by,
                key,
                input,
                verdict,
                result,
                context,
            ) {
                let Some(r) = model.reqs.get_mut(req) else {
                    panic!("{context}: no such request")
                };
                r.state = if supersede {
                    State::Superseded
                } else {
                    State::Cancelled
                };
                r.version += 1;
                agree(&got, r, context);
            }
        }
        Op::Redeem {
            by,
            req,
            wrong,
            key,
        } => {
            let (id, verdict) = match model.reqs.get(req) {
                Some(r) => (r.id.clone(), model.redeem(r, by, wrong)),
                None => (unknown_id(), Err(Refusal::Code("not_found"))),
            };
            let executor = model
                .reqs
                .get(req)
                .and_then(|r| r.executor)
                .map_or("x", |e| NAMES[e]);
            let redeem = Redeem {
                executor: if wrong == 1 {
                    format!("{executor}-other")
                } else {
                    executor.to_owned()
                },
                resource_version: if wrong == 2 { "v2".into() } else { "v1".into() },
                arguments: if wrong == 3 {
                    serde_json::json!({"n": 2})
                } else {
                    arguments()
                },
                operation_key: if wrong == 4 {
                    "op-2".into()
                } else {
                    OPERATION_KEY.into()
                },
            };
            let input = format!("redeem {} {executor} {wrong}", id.as_str());
            let result = asks
                .as_principal(&principal(by))
                .redeem(&id, &redeem, &format!("k{key}"));
            if let Some(got) =
                keyed_write("redeem", model, by, key, input, verdict, result, context)
            {
                let Some(r) = model.reqs.get_mut(req) else {
                    panic!("{context}: no such request")
                };
                r.redeemed_by = Some(by);
                r.version += 1;
                agree(&got, r, context);
            }
        }
        Op::Report {
            by,
            req,
            status,
            wrong_key,
            key,
        } => {
            let (id, verdict) = match model.reqs.get(req) {
                Some(r) => (r.id.clone(), model.report(r, by, wrong_key)),
                None => (unknown_id(), Err(Refusal::Code("not_found"))),
            };
            let op_key = if wrong_key { "op-2" } else { OPERATION_KEY };
            let input = format!("report {} {op_key} {status:?}", id.as_str());
            let result = asks.as_principal(&principal(by)).report_execution(
                &id,
                op_key,
                status,
                None,
                &format!("k{key}"),
            );
            if let Some(got) =
                keyed_write("report", model, by, key, input, verdict, result, context)
            {
                let Some(r) = model.reqs.get_mut(req) else {
                    panic!("{context}: no such request")
                };
                r.execution = Some(status);
                r.version += 1;
                agree(&got, r, context);
            }
        }
        Op::Show { by, req } => {
            let Some(r) = model.reqs.get(req) else {
                let e = asks
                    .as_principal(&principal(by))
                    .show(&unknown_id())
                    .unwrap_err();
                assert_eq!(e.code(), "not_found", "{context}");
                return;
            };
            show(asks, model, r, by, context);
            let label = if model.readable(r, by) {
                "show:ok"
            } else {
                "show:not_allowed"
            };
            *model.counts.entry(label.to_owned()).or_default() += 1;
        }
        Op::List { by } => {
            if !model.members[by].current() {
                return;
            }
            let listed = asks
                .as_principal(&principal(by))
                .list(&chat, forms_ask::LIST_MAX)
                .unwrap_or_else(|e| panic!("{context}: a member's list was refused: {e}"));
            *model.counts.entry("list:ok".to_owned()).or_default() += 1;
            for entry in listed {
                let want = model
                    .reqs
                    .iter()
                    .find(|r| r.id == entry.request.id)
                    .unwrap_or_else(|| {
                        panic!(
                            "{context}: listed an unknown request {:?}",
                            entry.request.id
                        )
                    });
                agree(&entry.request, want, context);
            }
        }
        Op::Membership { who, change } => {
            let p = principal(who);
            let before = model.members[who];
            let result = match change {
                0 => asks.join(&chat, &p),
                1 => asks.remove_member(&chat, &p),
                2 => asks.revoke_contact(&chat, &p),
                _ => asks.restore_contact(&chat, &p),
            };
            let rows = asks.members(&chat).unwrap();
            let row = rows.iter().find(|m| m.principal == p);
            let now = Membership {
                member: row.is_some(),
                removed: row.is_some_and(|m| m.removed),
                revoked: row.is_some_and(|m| m.contact_revoked),
            };
            match result {
                Ok(()) => {
                    if change == 0 {
                        assert!(now.active(), "{context}: joined but {now:?}");
                    }
                    if change == 1 {
                        assert!(!now.current(), "{context}: removed but {now:?}");
                    }
                    if change == 2 && now.current() {
                        assert!(now.revoked, "{context}: revoked but {now:?}");
                    }
                }
                Err(_) => assert_eq!(now, before, "{context}: a refused change changed {now:?}"),
            }
            model.members[who] = now;
        }
        Op::Retry => {
            if let Some(last) = model.last.clone() {
                apply(asks, model, last, context);
            }
        }
        Op::Race { a, b, req } => {
            let Some(r) = model.reqs.get(req) else { return };
            if a == b
                || r.state != State::Open
                || r.choices
                || !model.eligible(r, a)
                || !model.eligible(r, b)
            {
                return;
            }
            let outcome = r.kind.outcomes()[0];
            let (id, version) = (r.id.clone(), r.version);
            // Keys no other step uses: every racer's write is new.
            let key = format!("race-{}-{version}", id.as_str());
            let results: Vec<Result<Request, AskError>> = std::thread::scope(|s| {
                let racers: Vec<_> = [a, b]
                    .into_iter()
                    .map(|p| {
                        let (id, key) = (&id, &key);
                        s.spawn(move || {
                            asks.as_principal(&principal(p))
                                .respond(id, version, outcome, None, key)
                        })
                    })
                    .collect();
                racers.into_iter().map(|h| h.join().unwrap()).collect()
            });
            let winners: Vec<usize> = results
                .iter()
                .zip([a, b])
                .filter(|(r, _)| r.is_ok())
                .map(|(_, p)| p)
                .collect();
            assert_eq!(winners.len(), 1, "{context}: {results:?}");
            *model.counts.entry("race:ok".to_owned()).or_default() += 1;
            let winner = winners[0];
            for (result, p) in results.iter().zip([a, b]) {
                if let Err(e) = result {
                    assert_eq!(
                        e.code(),
                        "conflict",
                        "{context}: the loser {}: {e}",
                        NAMES[p]
                    );
                    let latest = e.latest().unwrap();
                    assert_eq!(
                        latest.responder.as_ref().map(|p| p.as_str()),
                        Some(NAMES[winner]),
                        "{context}"
                    );
                }
            }
            let Some(r) = model.reqs.get_mut(req) else {
                return;
            };
            r.state = State::Resolved;
            r.version += 1;
            r.outcome = Some(outcome);
            r.responder = Some(winner);
            r.answer = None;
            for (result, _) in results.iter().zip([a, b]) {
                if let Ok(got) = result {
                    agree(got, r, context);
                }
            }
        }
    }
}

/// `show` by `by`: refused exactly when the model says, else the model's request, with one
/// audit event per version.
fn show(asks: &Asks, model: &Model, r: &Req, by: usize, context: &str) {
    let me = asks.as_principal(&principal(by));
    match me.show(&r.id) {
        Ok(got) => {
            assert!(
                model.readable(r, by),
                "{context}: {} read {}",
                NAMES[by],
                r.id.as_str()
            );
            agree(&got, r, context);
            let log = me.log(&r.id, None, forms_ask::LOG_MAX).unwrap();
            let versions: Vec<u64> = log.events.iter().map(|e| e.version).collect();
            let expected: Vec<u64> = (1..=r.version).collect();
            assert_eq!(
                versions,
                expected,
                "{context}: the log of {}",
                r.id.as_str()
            );
            let responded = log
                .events
                .iter()
                .filter(|e| e.event == EventKind::Responded)
                .count();
            assert_eq!(
                responded,
                usize::from(r.responder.is_some()),
                "{context}: responded events"
            );
        }
        Err(e) => {
            assert!(
                !model.readable(r, by),
                "{context}: {} refused: {e}",
                NAMES[by]
            );
            assert_eq!(e.code(), "not_allowed", "{context}");
        }
    }
}

/// Every request, read by its requester (who may always read it).
fn check_all(asks: &Asks, model: &Model, context: &str) {
    for r in &model.reqs {
        show(asks, model, r, r.requester, context);
    }
}
