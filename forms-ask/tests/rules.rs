//! Every rule of durable requested replies (seed 003), each a test named after it, run
//! against every store: `memory::…`, `sqlite::…` and `postgres::…` (the last needs
//! `FORMS_ASK_PG_URL`; without it each test says loudly that it was skipped, and in CI it
//! fails).
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod common;

use common::{conflict_latest, kinds, log_of, new_body, race, start_time, World};
use forms_ask::store::{Commit, Committed, Recorded, Write};
use forms_ask::{
    Action, ActionRefusal, AsPrincipal, AskError, AuditEvent, EventKind, ExecutionStatus, Expiry,
    Ineligible, Kind, NewRequest, Outcome, Redeem, Replacement, Request, RequestId, State,
    Timestamp,
};
use forms_runtime::Form;
use serde_json::json;
use std::time::{Duration, Instant};

const DAY: Duration = Duration::from_secs(86_400);

fn open(w: &World, new: NewRequest, key: &str) -> Request {
    w.by(&w.agent).open(&w.chat, new, key).unwrap()
}

fn approval(w: &World) -> Request {
    open(
        w,
        NewRequest::approval("Deploy 1.4 to staging?"),
        "open-approval",
    )
}

fn action() -> Action {
    Action {
        executor: "deployer".into(),
        resource_version: "staging@41".into(),
        arguments: json!({"release": "1.4"}),
        operation_key: "deploy-1.4-staging".into(),
    }
}

fn redeem_of(a: &Action) -> Redeem {
    Redeem {
        executor: a.executor.clone(),
        resource_version: a.resource_version.clone(),
        arguments: a.arguments.clone(),
        operation_key: a.operation_key.clone(),
    }
}

/// Asserts that a response was refused as not eligible, for `reason`.
fn assert_not_eligible(result: Result<Request, AskError>, reason: Ineligible) {
    match result {
        Err(AskError::NotEligible { reason: r, .. }) if r == reason => {}
        other => panic!("expected not eligible ({reason:?}), got {other:?}"),
    }
}

/// Asserts that a bound-action operation was refused for `refusal`.
fn assert_action_refused<T: std::fmt::Debug>(result: Result<T, AskError>, refusal: ActionRefusal) {
    match result {
        Err(AskError::ActionRefused(r)) if r == refusal => {}
        other => panic!("expected the refusal {refusal:?}, got {other:?}"),
    }
}

/// An approval bound to `a`, opened with `key` and decided by ana (`outcome`, her key
/// `response_key`).
fn decided(
    w: &World,
    body: &str,
    a: &Action,
    key: &str,
    outcome: Outcome,
    response_key: &str,
) -> Request {
    let r = open(w, NewRequest::approval(body).action(a.clone()), key);
    w.by(&w.ana)
        .respond(&r.id, 1, outcome, None, response_key)
        .unwrap();
    r
}

/// The replacement of version 1 of `id` that changes nothing it names (no body, title or
/// expiry of its own).
fn replaced_as_is(me: &AsPrincipal<'_>, id: &RequestId, key: &str) -> Request {
    me.replace(id, 1, Replacement::default(), key)
        .unwrap()
        .replacement
}

/// The refusal of `new`, opened by agent in the world's conversation with `key`.
fn open_refused(w: &World, new: NewRequest, key: &str) -> AskError {
    w.by(&w.agent).open(&w.chat, new, key).unwrap_err()
}

/// Asserts that a response resolved its request.
fn assert_resolved(result: Result<Request, AskError>) {
    assert_eq!(result.unwrap().state, State::Resolved);
}

// ---------------------------------------------------------------- respond

fn respond_saves_the_typed_outcome_answer_and_responder(w: &World) {
    let r = approval(w);
    assert_eq!(
        (r.state, r.version, r.kind),
        (State::Open, 1, Kind::Approval)
    );
    assert_eq!(r.audience, vec![w.ana.clone(), w.bob.clone()]);
    let done = w
        .by(&w.ana)
        .respond(&r.id, 1, Outcome::Approved, Some("go ahead"), "k1")
        .unwrap();
    assert_eq!(done.state, State::Resolved);
    assert_eq!(done.version, 2);
    assert_eq!(done.outcome, Some(Outcome::Approved));
    assert_eq!(done.answer.as_deref(), Some("go ahead"));
    assert_eq!(done.responder.as_ref(), Some(&w.ana));
    // Saved: anyone allowed reads the same final outcome later.
    assert_eq!(w.by(&w.bob).show(&r.id).unwrap(), done);
    assert_eq!(w.by(&w.agent).show(&r.id).unwrap(), done);
}

fn respond_by_a_member_who_joined_later_is_not_eligible(w: &World) {
    let r = approval(w);
    let carol = w.p("carol");
    w.asks.join(&w.chat, &carol).unwrap();
    assert_not_eligible(
        w.by(&carol).respond(&r.id, 1, Outcome::Approved, None, "k"),
        Ineligible::NotInAudience,
    );
    // The later member may read it (a member of the conversation), but nothing changed.
    assert_eq!(w.by(&carol).show(&r.id).unwrap(), r);
    // The requester never decides its own approval.
    assert_not_eligible(
        w.by(&w.agent)
            .respond(&r.id, 1, Outcome::Approved, None, "k"),
        Ineligible::Requester,
    );
}

fn respond_after_removal_or_revoked_contact_is_not_eligible(w: &World) {
    let r = approval(w);
    w.asks.remove_member(&w.chat, &w.ana).unwrap();
    assert_not_eligible(
        w.by(&w.ana).respond(&r.id, 1, Outcome::Approved, None, "k"),
        Ineligible::NotAMember,
    );
    w.asks.revoke_contact(&w.chat, &w.bob).unwrap();
    assert_not_eligible(
        w.by(&w.bob).respond(&r.id, 1, Outcome::Denied, None, "k"),
        Ineligible::ContactRevoked,
    );
    // Rights restored: eligibility is current, so bob may respond again.
    w.asks.restore_contact(&w.chat, &w.bob).unwrap();
    let done = w
        .by(&w.bob)
        .respond(&r.id, 1, Outcome::Denied, None, "k2")
        .unwrap();
    assert_eq!(done.outcome, Some(Outcome::Denied));
}

fn respond_with_a_stale_version_is_a_conflict_with_the_latest_state(w: &World) {
    let r = open(w, NewRequest::question("Which region?"), "q");
    let me = w.by(&w.agent);
    me.message(&r.id, "any preference?", "m").unwrap(); // messages do not bump the version
    let e = w
        .by(&w.ana)
        .respond(&r.id, 7, Outcome::Answered, Some("eu"), "k")
        .unwrap_err();
    let latest = conflict_latest(e);
    assert_eq!((latest.version, latest.state), (1, State::Open));
    assert_eq!(w.by(&w.ana).show(&r.id).unwrap(), r);
}

fn respond_to_a_decided_request_is_a_conflict_and_overwrites_nothing(w: &World) {
    let r = approval(w);
    let won = w
        .by(&w.ana)
        .respond(&r.id, 1, Outcome::Approved, None, "a")
        .unwrap();
    let e = w
        .by(&w.bob)
        .respond(&r.id, 1, Outcome::Denied, Some("no"), "b")
        .unwrap_err();
    assert_eq!(conflict_latest(e), won);
    assert_eq!(w.by(&w.bob).show(&r.id).unwrap(), won);
}

fn respond_with_an_outcome_of_another_kind_is_an_invalid_outcome(w: &World) {
    let cases = [
        (
            NewRequest::question("q"),
            Outcome::Approved,
            Outcome::Answered,
        ),
        (
            NewRequest::approval("a"),
            Outcome::Completed,
            Outcome::Denied,
        ),
        (NewRequest::task("t"), Outcome::Answered, Outcome::Rejected),
    ];
    for (i, (new, wrong, right)) in cases.into_iter().enumerate() {
        let kind = new.kind;
        let r = open(w, new, &format!("open-{i}"));
        let ana = w.by(&w.ana);
        let e = ana
            .respond(&r.id, 1, wrong, None, &format!("w{i}"))
            .unwrap_err();
        assert!(
            matches!(e, AskError::InvalidOutcome { kind: k, outcome } if k == kind && outcome == wrong),
            "{e:?}"
        );
        assert_eq!(ana.show(&r.id).unwrap().state, State::Open);
        assert_eq!(
            ana.respond(&r.id, 1, right, None, &format!("r{i}"))
                .unwrap()
                .outcome,
            Some(right)
        );
    }
    assert_eq!(
        Kind::Task.outcomes(),
        [Outcome::Completed, Outcome::Failed, Outcome::Rejected]
    );
}

fn respond_answer_must_equal_an_offered_choice(w: &World) {
    let r = open(
        w,
        NewRequest::question("Which region?").choices(["eu-west", "us-east"]),
        "q",
    );
    let ana = w.by(&w.ana);
    for bad in [Some("EU-WEST"), Some("eu-west "), Some("mars"), None] {
        let e = ana
            .respond(&r.id, 1, Outcome::Answered, bad, "k")
            .unwrap_err();
        assert!(matches!(e, AskError::InvalidAnswer(_)), "{bad:?}: {e:?}");
    }
    let done = ana
        .respond(&r.id, 1, Outcome::Answered, Some("us-east"), "k")
        .unwrap();
    assert_eq!(done.answer.as_deref(), Some("us-east"));
}

fn respond_follow_up_messages_never_decide(w: &World) {
    let r = approval(w);
    let ana = w.by(&w.ana);
    let msg = ana
        .message(&r.id, "Approved! How long will staging be busy?", "m1")
        .unwrap();
    assert_eq!(msg.event, EventKind::Message);
    let now = ana.show(&r.id).unwrap();
    assert_eq!(
        (now.state, now.version, now.outcome),
        (State::Open, 1, None)
    );
    // The typed response, with the version read before the message, still decides.
    let done = ana.respond(&r.id, 1, Outcome::Denied, None, "k").unwrap();
    assert_eq!(done.outcome, Some(Outcome::Denied));
}

#[derive(Form, Debug, PartialEq)]
#[form(rename_all = "snake_case")]
enum Region {
    /// Europe (Ireland)
    EuWest,
    /// US East
    UsEast,
}

fn respond_typed_choices_decode_back_into_the_enum(w: &World) {
    let r = open(
        w,
        NewRequest::question("Which region?").choices_from::<Region>(),
        "q",
    );
    assert_eq!(r.choices, Some(vec!["eu_west".into(), "us_east".into()]));
    assert_eq!(r.choice::<Region>(), None);
    let done = w
        .by(&w.bob)
        .respond(&r.id, 1, Outcome::Answered, Some("us_east"), "k")
        .unwrap();
    assert_eq!(done.choice::<Region>(), Some(Region::UsEast));
}

// ---------------------------------------------------------------- expiry

fn expiry_ordinary_requests_have_none_and_never_show_the_wire_value(w: &World) {
    for (i, new) in [
        NewRequest::question("q"),
        NewRequest::approval("a"),
        NewRequest::task("t"),
    ]
    .into_iter()
    .enumerate()
    {
        let r = open(w, new, &format!("o{i}"));
        assert_eq!(r.expires_at, Expiry::Never);
        let wire = serde_json::to_value(&r).unwrap();
        assert_eq!(wire["expires_at"], "9999-01-01T00:00:00Z");
        let shown = r.to_string();
        assert!(!shown.contains("9999"), "{shown}");
        assert!(shown.contains("no deadline"), "{shown}");
    }
    // A century later it is still open.
    w.clock.advance(DAY * 36_500);
    let r = open(w, NewRequest::question("later"), "o-later");
    w.clock.advance(DAY * 3650);
    assert_eq!(w.by(&w.ana).show(&r.id).unwrap().state, State::Open);
}

fn expiry_bound_action_approvals_default_to_seven_days(w: &World) {
    let r = open(w, NewRequest::approval("Deploy?").action(action()), "o");
    assert_eq!(r.expires_at, Expiry::At(start_time().plus(DAY * 7)));
    assert!(
        r.to_string().contains("expires 2026-12-08T12:00:00Z"),
        "{r}"
    );
    w.clock.advance(DAY * 7 - Duration::from_secs(1));
    assert_eq!(w.by(&w.ana).show(&r.id).unwrap().state, State::Open);
    w.clock.advance(Duration::from_secs(1));
    assert_eq!(w.by(&w.ana).show(&r.id).unwrap().state, State::Expired);
}

fn expiry_explicit_must_be_within_ninety_days(w: &World) {
    let me = w.by(&w.agent);
    let ok = me
        .open(
            &w.chat,
            NewRequest::question("q").expires_at(start_time().plus(DAY * 90)),
            "a",
        )
        .unwrap();
    assert_eq!(ok.expires_at, Expiry::At(start_time().plus(DAY * 90)));
    for (key, at) in [
        ("b", start_time().plus(DAY * 90 + Duration::from_millis(1))),
        ("c", start_time()),
        ("d", start_time().minus(DAY)),
    ] {
        let e = me
            .open(&w.chat, NewRequest::question("q").expires_at(at), key)
            .unwrap_err();
        assert!(matches!(e, AskError::InvalidInput(_)), "{at}: {e:?}");
    }
}

fn expiry_past_deadline_is_expired_even_if_the_clock_jumps_back(w: &World) {
    let deadline = start_time().plus(Duration::from_secs(3600));
    let r = open(w, NewRequest::approval("Deploy?").expires_at(deadline), "o");
    w.clock.set(deadline.plus(Duration::from_secs(1)));
    let e = w
        .by(&w.ana)
        .respond(&r.id, 1, Outcome::Approved, None, "k")
        .unwrap_err();
    let AskError::Expired { latest } = e else {
        panic!("{e:?}")
    };
    assert_eq!((latest.state, latest.version), (State::Expired, 2));
    // The clock jumps back before the deadline: still expired, in this engine and another.
    w.clock.set(start_time());
    let e = w
        .by(&w.ana)
        .respond(&r.id, 2, Outcome::Approved, None, "k2")
        .unwrap_err();
    assert!(matches!(e, AskError::Expired { .. }), "{e:?}");
    assert_eq!(w.by(&w.bob).show(&r.id).unwrap().state, State::Expired);
    let log = log_of(&w.asks, &w.agent, &r.id);
    assert_eq!(
        log.iter().filter(|e| e.event == EventKind::Expired).count(),
        1
    );
    assert_eq!(log.last().unwrap().actor, None);
}

// ---------------------------------------------------------------- wait

fn wait_timeout_returns_the_current_state_and_never_withdraws(w: &World) {
    let r = approval(w);
    let started = Instant::now();
    let seen = w
        .by(&w.agent)
        .wait(&r.id, Duration::from_millis(150))
        .unwrap();
    assert!(started.elapsed() >= Duration::from_millis(150));
    assert_eq!(seen, r);
    // Still open and answerable after the waiter gave up.
    let done = w
        .by(&w.ana)
        .respond(&r.id, 1, Outcome::Approved, None, "k")
        .unwrap();
    assert_eq!(done.state, State::Resolved);
}

fn wait_is_woken_by_the_change(w: &World) {
    let r = approval(w);
    let started = Instant::now();
    let seen = std::thread::scope(|s| {
        let waiter = s.spawn(|| w.by(&w.agent).wait(&r.id, Duration::from_secs(30)));
        std::thread::sleep(Duration::from_millis(100));
        w.by(&w.bob)
            .respond(&r.id, 1, Outcome::Denied, None, "k")
            .unwrap();
        waiter.join().unwrap().unwrap()
    });
    assert_eq!(seen.outcome, Some(Outcome::Denied));
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

fn wait_can_return_cancellation_or_expiry(w: &World) {
    let r = approval(w);
    let seen = std::thread::scope(|s| {
        let waiter = s.spawn(|| w.by(&w.ana).wait(&r.id, Duration::from_secs(30)));
        std::thread::sleep(Duration::from_millis(50));
        w.by(&w.agent).cancel(&r.id, 1, "c").unwrap();
        waiter.join().unwrap().unwrap()
    });
    assert_eq!((seen.state, seen.outcome), (State::Cancelled, None));

    let deadline = start_time().plus(Duration::from_secs(60));
    let r = open(w, NewRequest::question("q").expires_at(deadline), "o2");
    let seen = std::thread::scope(|s| {
        let waiter = s.spawn(|| w.by(&w.ana).wait(&r.id, Duration::from_secs(30)));
        std::thread::sleep(Duration::from_millis(50));
        w.clock.set(deadline);
        waiter.join().unwrap().unwrap()
    });
    assert_eq!(seen.state, State::Expired);
}

// ---------------------------------------------------------------- cancel

fn cancel_only_the_requester_with_the_current_version_while_open(w: &World) {
    let r = approval(w);
    let e = w.by(&w.ana).cancel(&r.id, 1, "c").unwrap_err();
    assert!(matches!(e, AskError::NotRequester { .. }), "{e:?}");
    let me = w.by(&w.agent);
    assert_eq!(
        conflict_latest(me.cancel(&r.id, 2, "c1").unwrap_err()).version,
        1
    );
    let cancelled = me.cancel(&r.id, 1, "c2").unwrap();
    assert_eq!((cancelled.state, cancelled.version), (State::Cancelled, 2));
    assert_eq!(
        conflict_latest(me.cancel(&r.id, 2, "c3").unwrap_err()).state,
        State::Cancelled
    );
    let e = w
        .by(&w.ana)
        .respond(&r.id, 2, Outcome::Approved, None, "k")
        .unwrap_err();
    assert_eq!(conflict_latest(e).state, State::Cancelled);
}

// ---------------------------------------------------------------- replace and supersede

fn replace_supersedes_and_opens_with_the_original_audience_and_options(w: &World) {
    let r = open(
        w,
        NewRequest::question("Which region?").choices(["eu", "us"]),
        "q",
    );
    let carol = w.p("carol");
    w.asks.join(&w.chat, &carol).unwrap(); // joins later: not in the replacement's audience
    let pair = w
        .by(&w.agent)
        .replace(
            &r.id,
            1,
            new_body("Which region, for the EU launch?"),
            "rep",
        )
        .unwrap();
    assert_eq!(pair.previous.id, r.id);
    assert_eq!(pair.previous.state, State::Superseded);
    assert_eq!(
        pair.previous.replaced_by.as_ref(),
        Some(&pair.replacement.id)
    );
    let new = &pair.replacement;
    assert_ne!(new.id, r.id);
    assert_eq!((new.state, new.version), (State::Open, 1));
    assert_eq!(new.audience, r.audience);
    assert_eq!(new.choices, r.choices);
    assert_eq!(new.replaces.as_ref(), Some(&r.id));
    assert_eq!(new.body, "Which region, for the EU launch?");
    // Later responses use the replacement's ID; the old one conflicts.
    let ana = w.by(&w.ana);
    assert_eq!(
        conflict_latest(
            ana.respond(&r.id, 1, Outcome::Answered, Some("eu"), "a")
                .unwrap_err()
        )
        .state,
        State::Superseded
    );
    assert_not_eligible(
        w.by(&carol)
            .respond(&new.id, 1, Outcome::Answered, Some("eu"), "c"),
        Ineligible::NotInAudience,
    );
    assert_resolved(ana.respond(&new.id, 1, Outcome::Answered, Some("eu"), "b"));
}

fn replace_never_carries_an_approval_over(w: &World) {
    let r = open(w, NewRequest::approval("Deploy?").action(action()), "o");
    let approved = w
        .by(&w.ana)
        .respond(&r.id, 1, Outcome::Approved, None, "k")
        .unwrap();
    // A decided approval cannot be replaced: nothing leaves a final state.
    let me = w.by(&w.agent);
    assert_eq!(
        conflict_latest(
            me.replace(&r.id, 2, Replacement::default(), "rep")
                .unwrap_err()
        ),
        approved
    );
    // An open one is replaced by an open one, without outcome or redemption.
    let r2 = open(
        w,
        NewRequest::approval("Deploy 1.5?").action(action()),
        "o2",
    );
    let pair = me
        .replace(&r2.id, 1, Replacement::default(), "rep2")
        .unwrap();
    let new = &pair.replacement;
    assert_eq!(
        (new.state, new.outcome, &new.responder, &new.redemption),
        (State::Open, None, &None, &None)
    );
    assert_eq!(new.action, r2.action);
    assert_action_refused(
        me.redeem(&new.id, &redeem_of(&action()), "x"),
        ActionRefusal::NotApproved,
    );
}

fn replace_same_retry_key_and_input_returns_the_same_pair_and_different_input_is_refused(
    w: &World,
) {
    let r = approval(w);
    let me = w.by(&w.agent);
    let change = Replacement {
        title: Some("Staging".into()),
        ..Default::default()
    };
    let first = me.replace(&r.id, 1, change.clone(), "rep").unwrap();
    let again = me.replace(&r.id, 1, change.clone(), "rep").unwrap();
    assert_eq!(first, again);
    let other = Replacement {
        title: Some("Production".into()),
        ..Default::default()
    };
    let e = me.replace(&r.id, 1, other, "rep").unwrap_err();
    assert!(
        matches!(
            e,
            AskError::RetryKeyReused {
                operation: "replace",
                ..
            }
        ),
        "{e:?}"
    );
    // Exactly one replacement exists: the old request's log has one supersession.
    let log = me.log(&r.id, None, 200).unwrap().events;
    assert_eq!(
        log.iter()
            .filter(|e| e.event == EventKind::Superseded)
            .count(),
        1
    );
}

fn supersede_only_marks_the_old_request(w: &World) {
    let r = approval(w);
    let e = w.by(&w.bob).supersede(&r.id, 1, "s").unwrap_err();
    assert!(matches!(e, AskError::NotRequester { .. }));
    let me = w.by(&w.agent);
    let s = me.supersede(&r.id, 1, "s").unwrap();
    assert_eq!(
        (s.state, s.version, &s.replaced_by),
        (State::Superseded, 2, &None)
    );
    let log = log_of(&w.asks, &w.agent, &r.id);
    assert_eq!(kinds(&log), [EventKind::Opened, EventKind::Superseded]);
    assert!(log.iter().all(|e| e.request == r.id));
}

// ---------------------------------------------------------------- bound actions

fn bound_action_redemption_binds_exactly_once(w: &World) {
    let a = action();
    let r = open(w, NewRequest::approval("Deploy?").action(a.clone()), "o");
    let deployer = w.p("deployer");
    w.asks.join(&w.chat, &deployer).unwrap();
    let ex = w.by(&deployer);
    assert_action_refused(
        ex.redeem(&r.id, &redeem_of(&a), "r0"),
        ActionRefusal::NotApproved,
    );
    w.by(&w.ana)
        .respond(&r.id, 1, Outcome::Approved, None, "k")
        .unwrap();
    let redeemed = ex.redeem(&r.id, &redeem_of(&a), "r1").unwrap();
    assert_eq!(redeemed.redemption.as_ref().unwrap().by, deployer);
    assert_eq!(
        (redeemed.state, redeemed.outcome),
        (State::Resolved, Some(Outcome::Approved))
    );
    // The same call retried with its key replays; a second redemption is refused.
    assert_eq!(ex.redeem(&r.id, &redeem_of(&a), "r1").unwrap(), redeemed);
    assert_action_refused(
        ex.redeem(&r.id, &redeem_of(&a), "r2"),
        ActionRefusal::AlreadyRedeemed,
    );
    // Someone who is neither the executor nor the requester may not redeem.
    let r2 = decided(w, "Again?", &a, "o2", Outcome::Approved, "k2");
    assert_action_refused(
        w.by(&w.bob).redeem(&r2.id, &redeem_of(&a), "r3"),
        ActionRefusal::NotExecutor,
    );
    // A denied approval cannot be redeemed; a request without an action neither.
    let r3 = decided(w, "Third?", &a, "o3", Outcome::Denied, "k3");
    assert_action_refused(
        ex.redeem(&r3.id, &redeem_of(&a), "r4"),
        ActionRefusal::NotApproved,
    );
    let plain = approval(w);
    assert_action_refused(
        w.by(&w.agent).redeem(&plain.id, &redeem_of(&a), "r5"),
        ActionRefusal::NoAction,
    );
}

fn bound_action_any_mismatch_is_refused(w: &World) {
    let a = action();
    let r = decided(w, "Deploy?", &a, "o", Outcome::Approved, "k");
    let me = w.by(&w.agent);
    let mut cases = Vec::new();
    let mut m = redeem_of(&a);
    m.executor = "other".into();
    cases.push((m, "the executor"));
    let mut m = redeem_of(&a);
    m.resource_version = "staging@42".into();
    cases.push((m, "the resource version"));
    let mut m = redeem_of(&a);
    m.arguments = json!({"release": "1.5"});
    cases.push((m, "the arguments"));
    let mut m = redeem_of(&a);
    m.operation_key = "deploy-again".into();
    cases.push((m, "the operation key"));
    for (i, (bad, field)) in cases.iter().enumerate() {
        let e = me.redeem(&r.id, bad, &format!("m{i}")).unwrap_err();
        assert!(
            matches!(&e, AskError::ActionRefused(ActionRefusal::Mismatch(f)) if f == field),
            "{e:?}"
        );
    }
    assert!(me.show(&r.id).unwrap().redemption.is_none());
    assert!(me
        .redeem(&r.id, &redeem_of(&a), "ok")
        .unwrap()
        .redemption
        .is_some());
}

fn bound_action_execution_unknown_stays_reconcilable(w: &World) {
    let a = action();
    let r = decided(w, "Deploy?", &a, "o", Outcome::Approved, "k");
    let me = w.by(&w.agent);
    assert_action_refused(
        me.report_execution(
            &r.id,
            &a.operation_key,
            ExecutionStatus::Succeeded,
            None,
            "e0",
        ),
        ActionRefusal::NotRedeemed,
    );
    me.redeem(&r.id, &redeem_of(&a), "r").unwrap();
    let e = me
        .report_execution(&r.id, "other-key", ExecutionStatus::Succeeded, None, "e1")
        .unwrap_err();
    assert!(
        matches!(e, AskError::ActionRefused(ActionRefusal::Mismatch(_))),
        "{e:?}"
    );
    let unknown = me
        .report_execution(
            &r.id,
            &a.operation_key,
            ExecutionStatus::Unknown,
            Some("timeout"),
            "e2",
        )
        .unwrap();
    assert_eq!(
        unknown.execution.as_ref().unwrap().status,
        ExecutionStatus::Unknown
    );
    let settled = me
        .report_execution(
            &r.id,
            &a.operation_key,
            ExecutionStatus::Succeeded,
            None,
            "e3",
        )
        .unwrap();
    assert_eq!(
        settled.execution.as_ref().unwrap().status,
        ExecutionStatus::Succeeded
    );
    assert_action_refused(
        me.report_execution(&r.id, &a.operation_key, ExecutionStatus::Failed, None, "e4"),
        ActionRefusal::ExecutionFinal,
    );
    assert_eq!(settled.state, State::Resolved);
}

fn bound_action_approval_expired_before_redemption_is_refused(w: &World) {
    let a = action();
    let r = decided(w, "Deploy?", &a, "o", Outcome::Approved, "k");
    w.clock.advance(DAY * 8);
    assert_action_refused(
        w.by(&w.agent).redeem(&r.id, &redeem_of(&a), "r"),
        ActionRefusal::ApprovalExpired,
    );
}

// ---------------------------------------------------------------- audit

fn audit_every_transition_appends_one_event(w: &World) {
    let a = action();
    let r = open(w, NewRequest::approval("Deploy?").action(a.clone()), "o");
    let me = w.by(&w.agent);
    me.message(&r.id, "ping", "m").unwrap();
    w.by(&w.ana)
        .respond(&r.id, 1, Outcome::Approved, Some("ok"), "k")
        .unwrap();
    me.redeem(&r.id, &redeem_of(&a), "r").unwrap();
    me.report_execution(
        &r.id,
        &a.operation_key,
        ExecutionStatus::Succeeded,
        None,
        "e",
    )
    .unwrap();
    // Refused writes and replays append nothing.
    let _ = w.by(&w.bob).respond(&r.id, 1, Outcome::Denied, None, "b");
    me.redeem(&r.id, &redeem_of(&a), "r").unwrap();
    let log = me.log(&r.id, None, 200).unwrap().events;
    assert_eq!(
        kinds(&log),
        [
            EventKind::Opened,
            EventKind::Message,
            EventKind::Responded,
            EventKind::Redeemed,
            EventKind::ExecutionReported
        ]
    );
    assert_eq!(
        log.iter().map(|e| e.version).collect::<Vec<_>>(),
        [1, 1, 2, 3, 4]
    );
    assert_eq!(log[2].actor.as_ref(), Some(&w.ana));
    assert_eq!(log[2].detail.as_ref().unwrap()["outcome"], "approved");
    assert_eq!(log[1].detail.as_ref().unwrap()["text"], "ping");
    // The final version is the number of state-changing events.
    assert_eq!(me.show(&r.id).unwrap().version, 4);
}

// ---------------------------------------------------------------- retry keys

fn retry_key_a_retried_write_returns_its_first_result(w: &World) {
    let me = w.by(&w.agent);
    let r1 = me.open(&w.chat, NewRequest::question("q"), "same").unwrap();
    let r2 = me.open(&w.chat, NewRequest::question("q"), "same").unwrap();
    assert_eq!(r1, r2);
    let ana = w.by(&w.ana);
    let first = ana
        .respond(&r1.id, 1, Outcome::Answered, Some("x"), "resp")
        .unwrap();
    me.message(&r1.id, "thanks", "thanks").unwrap();
    let again = ana
        .respond(&r1.id, 1, Outcome::Answered, Some("x"), "resp")
        .unwrap();
    assert_eq!(first, again);
    assert_eq!(me.log(&r1.id, None, 200).unwrap().events.len(), 3);
}

fn retry_key_with_a_different_input_is_refused(w: &World) {
    let me = w.by(&w.agent);
    me.open(&w.chat, NewRequest::question("q"), "k").unwrap();
    let e = me
        .open(&w.chat, NewRequest::question("another"), "k")
        .unwrap_err();
    assert!(
        matches!(
            e,
            AskError::RetryKeyReused {
                operation: "open",
                ..
            }
        ),
        "{e:?}"
    );
    let r = approval(w);
    let e = me.cancel(&r.id, 1, "k").unwrap_err(); // same key, another operation
    assert!(
        matches!(
            e,
            AskError::RetryKeyReused {
                operation: "cancel",
                ..
            }
        ),
        "{e:?}"
    );
    assert_eq!(me.show(&r.id).unwrap().state, State::Open);
    let e = me
        .open(&w.chat, NewRequest::question("q"), " ")
        .unwrap_err();
    assert!(matches!(e, AskError::InvalidInput(_)), "{e:?}");
}

fn retry_key_is_scoped_to_the_principal(w: &World) {
    let r = open(w, NewRequest::question("q"), "shared");
    let r2 = w
        .by(&w.ana)
        .open(&w.chat, NewRequest::question("q"), "shared")
        .unwrap();
    assert_ne!(r.id, r2.id);
    assert_eq!(r2.requester, w.ana);
}

// ---------------------------------------------------------------- states and opening

fn states_nothing_leaves_a_final_state(w: &World) {
    let me = w.by(&w.agent);
    let ana = w.by(&w.ana);
    let resolved = approval(w);
    ana.respond(&resolved.id, 1, Outcome::Approved, None, "a")
        .unwrap();
    let cancelled = open(w, NewRequest::approval("c"), "c");
    me.cancel(&cancelled.id, 1, "c1").unwrap();
    let superseded = open(w, NewRequest::approval("s"), "s");
    me.supersede(&superseded.id, 1, "s1").unwrap();
    let expired = open(
        w,
        NewRequest::approval("e").expires_at(start_time().plus(DAY)),
        "e",
    );
    w.clock.advance(DAY * 2);
    for (i, r) in [&resolved, &cancelled, &superseded, &expired]
        .into_iter()
        .enumerate()
    {
        let before = me.show(&r.id).unwrap();
        assert!(before.state.is_final());
        let v = before.version;
        let refusals = [
            ana.respond(&r.id, v, Outcome::Denied, None, &format!("x{i}"))
                .map(|_| ()),
            me.cancel(&r.id, v, &format!("y{i}")).map(|_| ()),
            me.supersede(&r.id, v, &format!("z{i}")).map(|_| ()),
            me.replace(&r.id, v, Replacement::default(), &format!("w{i}"))
                .map(|_| ()),
        ];
        for refusal in refusals {
            let e = refusal.unwrap_err();
            assert!(
                matches!(e, AskError::Conflict { .. } | AskError::Expired { .. }),
                "{e:?}"
            );
        }
        assert_eq!(me.show(&r.id).unwrap(), before);
    }
}

fn open_fixes_the_audience_at_creation_and_needs_membership(w: &World) {
    let outsider = w.p("mallory");
    let e = w
        .by(&outsider)
        .open(&w.chat, NewRequest::question("q"), "k")
        .unwrap_err();
    assert!(matches!(e, AskError::NotMember { .. }), "{e:?}");
    let e = w.by(&outsider).show(&approval(w).id).unwrap_err();
    assert!(matches!(e, AskError::NotAllowed { .. }), "{e:?}");
    let r = open(
        w,
        NewRequest::task("Rotate the keys").audience([w.bob.clone()]),
        "t",
    );
    assert_eq!(r.audience, vec![w.bob.clone()]);
    assert_not_eligible(
        w.by(&w.ana)
            .respond(&r.id, 1, Outcome::Completed, None, "k"),
        Ineligible::NotInAudience,
    );
    let e = open_refused(w, NewRequest::question("q").audience([outsider]), "k2");
    assert!(matches!(e, AskError::InvalidInput(_)), "{e:?}");
    let e = open_refused(w, NewRequest::question("  "), "k3");
    assert!(matches!(e, AskError::InvalidInput(_)), "{e:?}");
    let e = w
        .by(&w.agent)
        .show(&forms_ask::RequestId::new("req_missing").unwrap())
        .unwrap_err();
    assert!(matches!(e, AskError::NotFound(_)), "{e:?}");
}

fn respond_race_two_threads_exactly_one_wins(w: &World) {
    for round in 0..5 {
        let r = open(w, NewRequest::approval("race"), &format!("race-{round}"));
        let (winner, loser) = race(
            round,
            || {
                w.by(&w.ana)
                    .respond(&r.id, 1, Outcome::Approved, None, &format!("ra{round}"))
            },
            || {
                w.by(&w.bob)
                    .respond(&r.id, 1, Outcome::Denied, None, &format!("rb{round}"))
            },
        );
        assert_eq!(loser, winner);
    }
}

fn timestamps_are_rfc3339_on_the_wire(w: &World) {
    let r = approval(w);
    let wire = serde_json::to_value(&r).unwrap();
    assert_eq!(wire["created_at"], "2026-12-01T12:00:00Z");
    let back: Request = serde_json::from_value(wire).unwrap();
    assert_eq!(back, r);
    assert_eq!(Timestamp::parse("2026-12-01T12:00:00Z"), Some(start_time()));
}

// ---------------------------------------------------------------- approval authority

fn approval_the_requester_never_decides_its_own_approval(w: &World) {
    let me = w.by(&w.agent);
    // Putting itself in the audience is refused at open …
    let e = me
        .open(
            &w.chat,
            NewRequest::approval("Deploy?").audience([w.agent.clone(), w.ana.clone()]),
            "o-self",
        )
        .unwrap_err();
    let AskError::InvalidInput(msg) = &e else {
        panic!("{e:?}")
    };
    assert!(msg.contains("agent") && msg.contains("requester"), "{msg}");
    // … and an approval stored with the requester in its audience (as earlier versions
    // allowed) is still not the requester's to decide, nor its bound action to redeem.
    let mut r = open(w, NewRequest::approval("Deploy?").action(action()), "o");
    r.audience.push(w.agent.clone());
    r.version = 2;
    commit_as_stored(
        w,
        Write::Update {
            expected: 1,
            request: r.clone(),
        },
    );
    assert_not_eligible(
        me.respond(&r.id, 2, Outcome::Approved, None, "k-self"),
        Ineligible::Requester,
    );
    assert_action_refused(
        me.redeem(&r.id, &redeem_of(&action()), "r-self"),
        ActionRefusal::NotApproved,
    );
    assert_eq!(me.show(&r.id).unwrap(), r);
    // Someone else in the audience decides it.
    let done = w
        .by(&w.ana)
        .respond(&r.id, 2, Outcome::Approved, None, "k")
        .unwrap();
    assert_eq!(done.responder.as_ref(), Some(&w.ana));
    // A question's requester may still be in its own audience: only approvals ask consent.
    let q = open(
        w,
        NewRequest::question("Note for myself?").audience([w.agent.clone()]),
        "q",
    );
    assert_resolved(me.respond(&q.id, 1, Outcome::Answered, Some("yes"), "qa"));
}

fn approval_the_executor_of_a_bound_action_never_approves_it(w: &World) {
    let deployer = w.p("deployer");
    w.asks.join(&w.chat, &deployer).unwrap(); // a member, yet no approver of its own action
    let r = open(w, NewRequest::approval("Deploy?").action(action()), "o");
    assert_eq!(r.audience, [w.ana.clone(), w.bob.clone()]);
    assert_not_eligible(
        w.by(&deployer)
            .respond(&r.id, 1, Outcome::Approved, None, "k"),
        Ineligible::Executor,
    );
    let e = open_refused(
        w,
        NewRequest::approval("Deploy?")
            .action(action())
            .audience([deployer.clone()]),
        "o2",
    );
    let AskError::InvalidInput(msg) = &e else {
        panic!("{e:?}")
    };
    assert!(
        msg.contains("deployer") && msg.contains("executor"),
        "{msg}"
    );
    // Without a bound action the same member is an ordinary approver.
    let plain = open(w, NewRequest::approval("Lunch?"), "o3");
    assert!(plain.audience.contains(&deployer));
}

fn bound_action_the_executor_redeems_and_reports_without_being_a_member(w: &World) {
    let a = action();
    let deployer = w.p("deployer");
    let r = open(w, NewRequest::approval("Deploy?").action(a.clone()), "o");
    assert!(w
        .asks
        .members(&w.chat)
        .unwrap()
        .iter()
        .all(|m| m.principal != deployer));
    let ex = w.by(&deployer);
    // The executor sees the request and waits for its approval, without joining.
    assert_eq!(ex.show(&r.id).unwrap(), r);
    w.by(&w.ana)
        .respond(&r.id, 1, Outcome::Approved, None, "k")
        .unwrap();
    assert_eq!(
        ex.wait(&r.id, Duration::from_millis(50)).unwrap().outcome,
        Some(Outcome::Approved)
    );
    let redeemed = ex.redeem(&r.id, &redeem_of(&a), "r1").unwrap();
    assert_eq!(redeemed.redemption.as_ref().unwrap().by, deployer);
    let reported = ex
        .report_execution(
            &r.id,
            &a.operation_key,
            ExecutionStatus::Succeeded,
            None,
            "x1",
        )
        .unwrap();
    assert_eq!(reported.execution.as_ref().unwrap().by, deployer);
    assert_eq!(
        kinds(&ex.log(&r.id, None, 200).unwrap().events),
        [
            EventKind::Opened,
            EventKind::Responded,
            EventKind::Redeemed,
            EventKind::ExecutionReported
        ]
    );
    // Anyone else outside the conversation sees nothing and redeems nothing.
    let mallory = w.by(&w.p("mallory"));
    assert!(matches!(
        mallory.show(&r.id).unwrap_err(),
        AskError::NotAllowed { .. }
    ));
    let r2 = decided(w, "Again?", &a, "o2", Outcome::Approved, "k2");
    let e = mallory.redeem(&r2.id, &redeem_of(&a), "m").unwrap_err();
    assert!(matches!(e, AskError::NotAllowed { .. }), "{e:?}");
}

// ---------------------------------------------------------------- the store's time

fn expiry_an_unread_request_past_its_deadline_stays_expired_for_a_clock_behind(w: &World) {
    let deadline = start_time().plus(Duration::from_secs(3600));
    let r = open(w, NewRequest::approval("Deploy?").expires_at(deadline), "o");
    // Past the deadline, something else is written; nobody reads `r`.
    let later = deadline.plus(Duration::from_secs(600));
    w.clock.set(later);
    open(w, NewRequest::question("Lunch?"), "o2");
    // Another engine (another process, nothing in memory) whose clock is behind the deadline.
    w.clock.set(start_time());
    let other = w.second_engine();
    let seen = other.as_principal(&w.bob).show(&r.id).unwrap();
    assert_eq!((seen.state, seen.version), (State::Expired, 2), "{seen:?}");
    assert_eq!(
        seen.updated_at, later,
        "judged at the store's high-water mark"
    );
    let e = other
        .as_principal(&w.ana)
        .respond(&r.id, 2, Outcome::Approved, None, "k")
        .unwrap_err();
    assert!(matches!(e, AskError::Expired { .. }), "{e:?}");
    // New writes are stamped no earlier than the mark either; an expiry between the clock
    // and the mark is already past.
    let q = other
        .as_principal(&w.agent)
        .open(&w.chat, NewRequest::question("Dinner?"), "o3")
        .unwrap();
    assert_eq!(q.created_at, later);
    let e = other
        .as_principal(&w.agent)
        .open(
            &w.chat,
            NewRequest::question("Tea?").expires_at(deadline.plus(Duration::from_secs(60))),
            "o4",
        )
        .unwrap_err();
    assert!(matches!(e, AskError::InvalidInput(_)), "{e:?}");
    assert_eq!(
        kinds(&log_of(&other, &w.agent, &r.id)),
        [EventKind::Opened, EventKind::Expired]
    );
}

fn replace_keeps_the_deadline_unless_the_replacement_names_one(w: &World) {
    let me = w.by(&w.agent);
    let deadline = start_time().plus(2 * DAY);
    let q = open(
        w,
        NewRequest::question("Which region?").expires_at(deadline),
        "q",
    );
    let q2 = open(
        w,
        NewRequest::question("Which zone?").expires_at(deadline),
        "q2",
    );
    w.clock.advance(DAY);
    let kept = replaced_as_is(&me, &q.id, "rep");
    assert_eq!(kept.expires_at, Expiry::At(deadline));
    let named = start_time().plus(5 * DAY);
    let renamed = me
        .replace(
            &q2.id,
            1,
            Replacement {
                expires_at: Some(named),
                ..Default::default()
            },
            "rep2",
        )
        .unwrap()
        .replacement;
    assert_eq!(renamed.expires_at, Expiry::At(named));
    // A bound approval's seven days are not restarted by a replacement.
    let b = open(w, NewRequest::approval("Deploy?").action(action()), "b");
    let Expiry::At(b_deadline) = b.expires_at else {
        panic!("{b:?}")
    };
    w.clock.advance(DAY);
    let b2 = replaced_as_is(&me, &b.id, "rep3");
    assert_eq!(b2.expires_at, Expiry::At(b_deadline));
    // No deadline stays no deadline.
    let n = open(w, NewRequest::question("Lunch?"), "n");
    let n2 = replaced_as_is(&me, &n.id, "rep4");
    assert_eq!(n2.expires_at, Expiry::Never);
    // Past the old deadline, the replacement that kept it has expired; the one that named
    // its own has not.
    w.clock.set(deadline.plus(Duration::from_secs(1)));
    assert_eq!(me.show(&kept.id).unwrap().state, State::Expired);
    assert_eq!(me.show(&renamed.id).unwrap().state, State::Open);
}

// ---------------------------------------------------------------- retry-key hashes

fn sha256_hex(operation: &str, text: &str) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for part in [operation, text] {
        h.update(part.as_bytes());
        h.update([0u8]);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Writes straight to the store, as an earlier version of the engine did.
fn commit_as_stored(w: &World, write: Write) {
    let r = write.request().clone();
    let commit = Commit {
        retry: None,
        eligible: None,
        writes: vec![write],
        events: vec![],
        uploads: Vec::new(),
    };
    assert_eq!(w.store.commit(&commit).unwrap(), Committed::Done, "{r:?}");
}

fn retry_key_hash_does_not_depend_on_key_order(w: &World) {
    // The same arguments with their keys inserted in two orders: they print differently
    // in a build with serde_json's `preserve_order` (any build containing forms-mcp).
    let mut ab = serde_json::Map::new();
    ab.insert("release".into(), json!("1.4"));
    ab.insert("env".into(), json!("staging"));
    let mut ba = serde_json::Map::new();
    ba.insert("env".into(), json!("staging"));
    ba.insert("release".into(), json!("1.4"));
    let with = |arguments: serde_json::Map<String, serde_json::Value>| Action {
        arguments: serde_json::Value::Object(arguments),
        ..action()
    };
    let me = w.by(&w.agent);
    // The same open, its arguments in either order, under one retry key.
    let open_with = |arguments| {
        me.open(
            &w.chat,
            NewRequest::approval("Deploy?").action(with(arguments)),
            "o",
        )
        .unwrap()
    };
    let first = open_with(ab.clone());
    let again = open_with(ba.clone());
    assert_eq!(first, again);
    // What is recorded is the hash of the sorted-key text: the same in every build, so
    // another program sharing this database computes it too.
    let canonical = r#"{"conversation":"chat","request":{"action":{"arguments":{"env":"staging","release":"1.4"},"executor":"deployer","operation_key":"deploy-1.4-staging","resource_version":"staging@41"},"audience":null,"body":"Deploy?","choices":null,"expires_at":null,"kind":"approval","title":null}}"#;
    let recorded = w.store.recorded(&w.agent, "o").unwrap().unwrap();
    assert_eq!(recorded.input_hash, sha256_hex("open", canonical));
    // The same for a redemption presented in either order.
    w.by(&w.ana)
        .respond(&first.id, 1, Outcome::Approved, None, "k")
        .unwrap();
    let presented = |arguments| Redeem {
        arguments: serde_json::Value::Object(arguments),
        ..redeem_of(&action())
    };
    let redeemed = me.redeem(&first.id, &presented(ba), "r").unwrap();
    assert_eq!(me.redeem(&first.id, &presented(ab), "r").unwrap(), redeemed);
}

fn retry_key_recorded_in_field_order_by_an_earlier_build_still_replays(w: &World) {
    // A question opened, and answered, by an earlier build with `preserve_order`: its
    // records hold the hash of the input in field order.
    let me = w.by(&w.agent);
    let id = RequestId::new("req_0123456789abcdef01234567").unwrap();
    let opened = Request {
        id: id.clone(),
        conversation: w.chat.clone(),
        kind: Kind::Question,
        title: None,
        body: "Which region?".into(),
        requester: w.agent.clone(),
        audience: vec![w.ana.clone(), w.bob.clone()],
        choices: Some(vec!["eu".into(), "us".into()]),
        form: None,
        version: 1,
        state: State::Open,
        expires_at: Expiry::Never,
        created_at: start_time(),
        updated_at: start_time(),
        outcome: None,
        answer: None,
        response: None,
        responder: None,
        replaces: None,
        replaced_by: None,
        action: None,
        redemption: None,
        execution: None,
    };
    let open_text = r#"{"conversation":"chat","request":{"kind":"question","title":null,"body":"Which region?","audience":null,"choices":["eu","us"],"expires_at":null,"action":null}}"#;
    let event = |r: &Request, kind| AuditEvent {
        request: r.id.clone(),
        event: kind,
        actor: Some(r.requester.clone()),
        at: r.updated_at,
        version: r.version,
        state: r.state,
        detail: None,
    };
    let commit = Commit {
        retry: Some((
            w.agent.clone(),
            "legacy-open".into(),
            Recorded {
                input_hash: sha256_hex("open", open_text),
                result: serde_json::to_string(&opened).unwrap(),
            },
        )),
        eligible: None,
        writes: vec![Write::Insert(opened.clone())],
        events: vec![event(&opened, EventKind::Opened)],
        uploads: Vec::new(),
    };
    assert_eq!(w.store.commit(&commit).unwrap(), Committed::Done);
    let mut answered = opened.clone();
    answered.version = 2;
    answered.state = State::Resolved;
    answered.outcome = Some(Outcome::Answered);
    answered.answer = Some("eu".into());
    answered.responder = Some(w.ana.clone());
    let respond_text = format!(r#"{{"id":"{id}","version":1,"outcome":"answered","answer":"eu"}}"#);
    let commit = Commit {
        retry: Some((
            w.ana.clone(),
            "legacy-respond".into(),
            Recorded {
                input_hash: sha256_hex("respond", &respond_text),
                result: serde_json::to_string(&answered).unwrap(),
            },
        )),
        eligible: None,
        writes: vec![Write::Update {
            expected: 1,
            request: answered.clone(),
        }],
        events: vec![event(&answered, EventKind::Responded)],
        uploads: Vec::new(),
    };
    assert_eq!(w.store.commit(&commit).unwrap(), Committed::Done);
    // Retried now, both replay their first results …
    let new = NewRequest::question("Which region?").choices(["eu", "us"]);
    assert_eq!(me.open(&w.chat, new, "legacy-open").unwrap(), opened);
    assert_eq!(
        w.by(&w.ana)
            .respond(&id, 1, Outcome::Answered, Some("eu"), "legacy-respond")
            .unwrap(),
        answered
    );
    // … and a different input under those keys is still refused.
    let e = me
        .open(&w.chat, NewRequest::question("Other?"), "legacy-open")
        .unwrap_err();
    assert!(matches!(e, AskError::RetryKeyReused { .. }), "{e:?}");
    let e = w
        .by(&w.ana)
        .respond(&id, 1, Outcome::Answered, Some("us"), "legacy-respond")
        .unwrap_err();
    assert!(matches!(e, AskError::RetryKeyReused { .. }), "{e:?}");
}

on_every_store!(
    respond_saves_the_typed_outcome_answer_and_responder,
    respond_by_a_member_who_joined_later_is_not_eligible,
    respond_after_removal_or_revoked_contact_is_not_eligible,
    respond_with_a_stale_version_is_a_conflict_with_the_latest_state,
    respond_to_a_decided_request_is_a_conflict_and_overwrites_nothing,
    respond_with_an_outcome_of_another_kind_is_an_invalid_outcome,
    respond_answer_must_equal_an_offered_choice,
    respond_follow_up_messages_never_decide,
    respond_typed_choices_decode_back_into_the_enum,
    respond_race_two_threads_exactly_one_wins,
    expiry_ordinary_requests_have_none_and_never_show_the_wire_value,
    expiry_bound_action_approvals_default_to_seven_days,
    expiry_explicit_must_be_within_ninety_days,
    expiry_past_deadline_is_expired_even_if_the_clock_jumps_back,
    wait_timeout_returns_the_current_state_and_never_withdraws,
    wait_is_woken_by_the_change,
    wait_can_return_cancellation_or_expiry,
    cancel_only_the_requester_with_the_current_version_while_open,
    replace_supersedes_and_opens_with_the_original_audience_and_options,
    replace_never_carries_an_approval_over,
    replace_same_retry_key_and_input_returns_the_same_pair_and_different_input_is_refused,
    supersede_only_marks_the_old_request,
    bound_action_redemption_binds_exactly_once,
    bound_action_any_mismatch_is_refused,
    bound_action_execution_unknown_stays_reconcilable,
    bound_action_approval_expired_before_redemption_is_refused,
    audit_every_transition_appends_one_event,
    retry_key_a_retried_write_returns_its_first_result,
    retry_key_with_a_different_input_is_refused,
    retry_key_is_scoped_to_the_principal,
    states_nothing_leaves_a_final_state,
    open_fixes_the_audience_at_creation_and_needs_membership,
    timestamps_are_rfc3339_on_the_wire,
    approval_the_requester_never_decides_its_own_approval,
    approval_the_executor_of_a_bound_action_never_approves_it,
    bound_action_the_executor_redeems_and_reports_without_being_a_member,
    expiry_an_unread_request_past_its_deadline_stays_expired_for_a_clock_behind,
    replace_keeps_the_deadline_unless_the_replacement_names_one,
    retry_key_hash_does_not_depend_on_key_order,
    retry_key_recorded_in_field_order_by_an_earlier_build_still_replays,
);
