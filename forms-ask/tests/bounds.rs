//! Bounded work per call, on every store (`memory::…`, `sqlite::…`, `postgres::…`; the last
//! needs `FORMS_ASK_PG_URL`): every argument has a limit and is refused naming the field;
//! a huge choice list is refused at once; waits hold no thread each, are released when their
//! handle is dropped, and are capped per principal; another principal's call is answered
//! quickly while hundreds of waits are pending. On PostgreSQL, those waits use at most two
//! database connections. Per-principal quotas (open requests, messages per request) are
//! refused as `quota_exceeded`; a list refuses a principal with nothing to see; a log is read
//! a page at a time.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod common;

use common::{Kind as StoreKind, World};
use forms_ask::{
    Action, AskError, Asks, Clock, ExecutionStatus, NewRequest, Outcome, PostgresStore, Principal,
    Quotas, Redeem, Replacement, Request, State, Store, BODY_CHARS_MAX, CHOICES_MAX,
    CHOICE_CHARS_MAX, LIST_MAX, LOG_MAX, TITLE_CHARS_MAX,
};
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Asserts an `invalid_arguments` refusal naming `field`.
fn refused(result: Result<impl std::fmt::Debug, AskError>, field: &str) {
    let e = result.expect_err("expected a refusal");
    assert_eq!(e.code(), "invalid_arguments", "{e}");
    assert!(
        e.to_string().starts_with(&format!("{field}: ")),
        "the message should name {field}: {e}"
    );
}

fn long(n: usize) -> String {
    // Multi-byte characters: the limit counts characters, not bytes.
    "é".repeat(n)
}

fn limits_every_field_is_refused_naming_it(w: &World) {
    let a = w.by(&w.agent);
    let chat = &w.chat;
    // At the limit: accepted.
    let ok = a
        .open(
            chat,
            NewRequest::question(long(BODY_CHARS_MAX)).title(long(TITLE_CHARS_MAX)),
            "ok",
        )
        .unwrap();
    assert_eq!(ok.body.chars().count(), BODY_CHARS_MAX);
    // One over: refused, naming the field.
    refused(
        a.open(chat, NewRequest::question(long(BODY_CHARS_MAX + 1)), "k1"),
        "body",
    );
    refused(
        a.open(
            chat,
            NewRequest::question("q").title(long(TITLE_CHARS_MAX + 1)),
            "k2",
        ),
        "title",
    );
    let choices: Vec<String> = (0..=CHOICES_MAX).map(|i| format!("c{i}")).collect();
    refused(
        a.open(chat, NewRequest::question("q").choices(choices), "k3"),
        "choices",
    );
    refused(
        a.open(
            chat,
            NewRequest::question("q").choices(vec!["a".into(), long(CHOICE_CHARS_MAX + 1)]),
            "k4",
        ),
        "choices[1]",
    );
    let big = Action {
        executor: "deployer".into(),
        resource_version: "v1".into(),
        arguments: json!({ "blob": "x".repeat(20_000) }),
        operation_key: "op".into(),
    };
    refused(
        a.open(chat, NewRequest::approval("deploy?").action(big), "k5"),
        "action.arguments",
    );
    let r = a.open(chat, NewRequest::question("q"), "k6").unwrap();
    refused(
        w.by(&w.ana).respond(
            &r.id,
            r.version,
            Outcome::Answered,
            Some(&long(16_001)),
            "k7",
        ),
        "answer",
    );
    refused(a.message(&r.id, &long(16_001), "k8"), "text");
    refused(
        a.replace(
            &r.id,
            r.version,
            Replacement {
                body: Some(long(BODY_CHARS_MAX + 1)),
                title: None,
                expires_at: None,
            },
            "k9",
        ),
        "body",
    );
    refused(
        a.redeem(
            &r.id,
            &Redeem {
                executor: long(201),
                resource_version: "v".into(),
                arguments: json!({}),
                operation_key: "op".into(),
            },
            "k10",
        ),
        "executor",
    );
    refused(
        a.report_execution(
            &r.id,
            "op",
            ExecutionStatus::Failed,
            Some(&long(4_001)),
            "k11",
        ),
        "detail",
    );
    // Nothing was written by the refusals: the request is as opened, with one event.
    assert_eq!(a.show(&r.id).unwrap(), r);
    assert_eq!(a.log(&r.id, None, 200).unwrap().events.len(), 1);
}

fn limits_a_huge_choice_list_is_refused_at_once(w: &World) {
    let a = w.by(&w.agent);
    let choices: Vec<String> = (0..200_000).map(|i| format!("choice {i}")).collect();
    let started = Instant::now();
    refused(
        a.open(&w.chat, NewRequest::question("q").choices(choices), "huge"),
        "choices",
    );
    // The quadratic check took 45 s of CPU for this list; the count alone settles it now.
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    // Duplicates are still found (in linear time), naming the later one.
    let mut dup: Vec<String> = (0..CHOICES_MAX - 1).map(|i| format!("c{i}")).collect();
    dup.push("c7".into());
    let e = a
        .open(&w.chat, NewRequest::question("q").choices(dup), "dup")
        .unwrap_err();
    assert_eq!(e.code(), "invalid_input", "{e}");
    assert!(
        e.to_string()
            .contains(&format!("choices[{}]", CHOICES_MAX - 1)),
        "{e}"
    );
}

/// The number of threads of this process.
fn threads() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// The world's engine with another wait cap (same store and clock).
fn capped(w: &World, limit: usize) -> Asks {
    Asks::with_clock(Arc::clone(&w.store), Arc::clone(&w.clock) as Arc<dyn Clock>)
        .with_wait_limit(limit)
}

/// [`capped`], with a question the agent opened on it.
fn capped_with_question(w: &World, limit: usize) -> (Asks, Request) {
    let asks = capped(w, limit);
    let r = asks
        .as_principal(&w.agent)
        .open(&w.chat, NewRequest::question("q"), "o")
        .unwrap();
    (asks, r)
}

fn wait_a_dropped_handle_is_released_at_once(w: &World) {
    let (asks, r) = capped_with_question(w, 1);
    let agent = asks.as_principal(&w.agent);
    let handle = agent.start_wait(&r.id, Duration::from_secs(600)).unwrap();
    assert_eq!(asks.waits_in_progress(), 1);
    // At the cap: a second wait is refused until the first is released.
    let e = agent
        .start_wait(&r.id, Duration::from_secs(600))
        .unwrap_err();
    assert_eq!(e.code(), "too_many_waits", "{e}");
    drop(handle);
    assert_eq!(asks.waits_in_progress(), 0);
    let again = agent.start_wait(&r.id, Duration::from_secs(600)).unwrap();
    assert_eq!(asks.waits_in_progress(), 1);
    // A wait that ends (here by the change) no longer counts, before its handle is dropped.
    asks.as_principal(&w.ana)
        .respond(&r.id, 1, Outcome::Answered, Some("yes"), "r")
        .unwrap();
    let started = Instant::now();
    while asks.waits_in_progress() > 0 && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(asks.waits_in_progress(), 0);
    assert_eq!(again.wait().unwrap().state, State::Resolved);
}

fn wait_the_cap_is_per_principal_and_refused_clearly(w: &World) {
    let (asks, r) = capped_with_question(w, 3);
    let agent = asks.as_principal(&w.agent);
    let held: Vec<_> = (0..3)
        .map(|_| agent.start_wait(&r.id, Duration::from_secs(600)).unwrap())
        .collect();
    let e = agent
        .start_wait(&r.id, Duration::from_secs(600))
        .unwrap_err();
    assert!(
        matches!(e, AskError::TooManyWaits { limit: 3, .. }),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "agent already has 3 waits in progress; wait for one to end or cancel one"
    );
    // Another principal is not affected.
    let ana = asks.as_principal(&w.ana);
    let theirs = ana.start_wait(&r.id, Duration::from_millis(50)).unwrap();
    assert_eq!(theirs.wait().unwrap().state, State::Open);
    drop(held);
    assert_eq!(asks.waits_in_progress(), 0);
}

/// Opens `n` questions and starts `per` waits on each, all from this thread; returns the
/// engine's requests and handles.
fn many_waits(
    asks: &Asks,
    w: &World,
    n: usize,
    per: usize,
) -> (Vec<Request>, Vec<forms_ask::WaitHandle>) {
    let agent = asks.as_principal(&w.agent);
    let requests: Vec<Request> = (0..n)
        .map(|i| {
            agent
                .open(
                    &w.chat,
                    NewRequest::question(format!("q{i}")),
                    &format!("o{i}"),
                )
                .unwrap()
        })
        .collect();
    let mut handles = Vec::new();
    for r in &requests {
        for _ in 0..per {
            handles.push(agent.start_wait(&r.id, Duration::from_secs(600)).unwrap());
        }
    }
    (requests, handles)
}

/// The median of five `show` calls by another principal (one slow call on a loaded machine
/// does not decide).
fn median_show(asks: &Asks, w: &World, r: &Request) -> Duration {
    let mut times: Vec<Duration> = (0..5)
        .map(|_| {
            let started = Instant::now();
            asks.as_principal(&w.bob).show(&r.id).unwrap();
            started.elapsed()
        })
        .collect();
    times.sort();
    times[2]
}

fn wait_500_pending_waits_hold_no_thread_and_others_are_answered(w: &World) {
    let asks = capped(w, 500);
    let before = threads();
    let (requests, handles) = many_waits(&asks, w, 20, 25);
    assert_eq!(asks.waits_in_progress(), 500);
    // The hub and the store's watcher: not a thread per wait. (Tests running alongside in
    // this process start threads of their own, hence the margin; a thread per wait would
    // add 500.)
    let grown = threads().saturating_sub(before);
    assert!(grown < 100, "500 waits added {grown} threads");
    let median = median_show(&asks, w, &requests[0]);
    eprintln!(
        "{:?}: 500 pending waits added {grown} threads; median show {median:?}",
        w.kind
    );
    assert!(median < Duration::from_millis(100), "{median:?}");
    // Every waiter is woken by its request's change.
    let ana = asks.as_principal(&w.ana);
    for (i, r) in requests.iter().enumerate() {
        ana.respond(&r.id, 1, Outcome::Answered, Some("ok"), &format!("r{i}"))
            .unwrap();
    }
    let started = Instant::now();
    for h in handles {
        assert_eq!(h.wait().unwrap().state, State::Resolved);
    }
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(asks.waits_in_progress(), 0);
}

/// The agent opens a question and starts waiting on it (a minute at most).
fn open_and_wait(w: &World) -> (Request, forms_ask::WaitHandle) {
    let agent = w.by(&w.agent);
    let r = agent.open(&w.chat, NewRequest::question("q"), "o").unwrap();
    let handle = agent.start_wait(&r.id, Duration::from_secs(60)).unwrap();
    (r, handle)
}

fn wait_by_another_engine_sees_the_change(w: &World) {
    // A second engine on the same database (another process, as far as the store can tell)
    // is seen by the first engine's hub.
    let other = w.second_engine();
    let (r, handle) = open_and_wait(w);
    let started = Instant::now();
    other
        .as_principal(&w.ana)
        .respond(&r.id, 1, Outcome::Answered, Some("yes"), "r")
        .unwrap();
    assert_eq!(handle.wait().unwrap().state, State::Resolved);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

fn wait_a_handle_is_a_future(w: &World) {
    let (r, handle) = open_and_wait(w);
    let (tx, rx) = std::sync::mpsc::channel();
    // A minimal executor: the future is polled on a thread woken only by its waker.
    std::thread::scope(|s| {
        s.spawn(move || tx.send(block_on(handle)).unwrap());
        std::thread::sleep(Duration::from_millis(50));
        assert!(
            rx.try_recv().is_err(),
            "the future finished before the change"
        );
        w.by(&w.ana)
            .respond(&r.id, 1, Outcome::Answered, Some("yes"), "r")
            .unwrap();
        let got = rx.recv_timeout(Duration::from_secs(10)).unwrap().unwrap();
        assert_eq!(got.state, State::Resolved);
    });
}

/// Polls a future to completion, parking between polls (woken by its waker).
fn block_on<F: std::future::Future>(fut: F) -> F::Output {
    struct Unpark(std::thread::Thread);
    impl std::task::Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = std::task::Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = std::task::Context::from_waker(&waker);
    let mut fut = std::pin::pin!(fut);
    loop {
        if let std::task::Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::park();
    }
}

/// PostgreSQL only: 500 pending waits use at most two connections (the pool's one and the
/// listener), counted by the server, while another principal's call is answered in under
/// 100 ms; when the database refuses connections, the error says why.
fn postgres_500_waits_use_at_most_two_connections(w: &World) {
    if w.kind != StoreKind::Postgres {
        return;
    }
    let (url, schema) = w.pg.as_ref().unwrap();
    let app = format!("fa_waits_{}", std::process::id());
    let sep = if url.contains('?') { '&' } else { '?' };
    let tagged = format!("{url}{sep}application_name={app}");
    let store: Arc<dyn Store> =
        Arc::new(PostgresStore::connect_in_schema(&tagged, Some(schema)).unwrap());
    let asks = Asks::with_clock(store, Arc::clone(&w.clock) as Arc<dyn Clock>).with_wait_limit(500);
    let (requests, handles) = many_waits(&asks, w, 20, 25);
    assert_eq!(asks.waits_in_progress(), 500);
    let median = median_show(&asks, w, &requests[0]);
    let mut admin = ::postgres::Client::connect(url, ::postgres::NoTls).unwrap();
    let connections: i64 = admin
        .query_one(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1",
            &[&app],
        )
        .unwrap()
        .get(0);
    eprintln!(
        "500 pending waits: {connections} connections; median show by another principal {median:?}"
    );
    assert!(
        (1..=2).contains(&connections),
        "500 waits use {connections} connections"
    );
    assert!(median < Duration::from_millis(100), "{median:?}");
    drop(handles);
    assert_eq!(asks.waits_in_progress(), 0);
}

fn postgres_errors_keep_their_cause(w: &World) {
    if w.kind != StoreKind::Postgres {
        return;
    }
    let (url, _) = w.pg.as_ref().unwrap();
    // A database that does not exist: the server's own words reach the caller.
    let base = url.rsplit_once('/').unwrap().0;
    let e = PostgresStore::connect(&format!("{base}/no_such_database_here")).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("cannot be reached") && text.contains("no_such_database_here"),
        "{text}"
    );
}

/// PostgreSQL only: a commit notifies only for a request some process waits on. The
/// store's listener records a waited request before the waiter's first read, and forgets it
/// when its last waiter leaves (or the store goes).
fn postgres_only_waited_requests_notify(w: &World) {
    if w.kind != StoreKind::Postgres {
        return;
    }
    let (url, schema) = w.pg.as_ref().unwrap();
    let mut admin = ::postgres::Client::connect(url, ::postgres::NoTls).unwrap();
    let watched = |admin: &mut ::postgres::Client| -> i64 {
        admin
            .query_one(
                &format!("SELECT count(*) FROM \"{schema}\".forms_ask_watched"),
                &[],
            )
            .unwrap()
            .get(0)
    };
    let mut heard = ::postgres::Client::connect(url, ::postgres::NoTls).unwrap();
    heard.batch_execute("LISTEN forms_ask").unwrap();
    // The channel is the database's: other tests' stores notify on it too, so only this
    // test's requests are looked at.
    let payloads = |c: &mut ::postgres::Client| -> Vec<String> {
        let mut n = c.notifications();
        let mut it = n.timeout_iter(Duration::from_millis(300));
        let mut out = Vec::new();
        while let Some(x) = ::postgres::fallible_iterator::FallibleIterator::next(&mut it).unwrap()
        {
            out.push(x.payload().to_owned());
        }
        out
    };
    let store: Arc<dyn Store> =
        Arc::new(PostgresStore::connect_in_schema(url, Some(schema)).unwrap());
    let asks = Asks::with_clock(store, Arc::clone(&w.clock) as Arc<dyn Clock>);
    let (agent, ana) = (asks.as_principal(&w.agent), asks.as_principal(&w.ana));
    // Nobody waits: no notification.
    let quiet = agent
        .open(&w.chat, NewRequest::question("q"), "o1")
        .unwrap();
    ana.respond(&quiet.id, 1, Outcome::Answered, Some("x"), "r1")
        .unwrap();
    assert!(!payloads(&mut heard).contains(&quiet.id.as_str().to_owned()));
    assert_eq!(watched(&mut admin), 0);
    // A waiter: its request is recorded, and its change is notified (and wakes it).
    let r = agent
        .open(&w.chat, NewRequest::question("q"), "o2")
        .unwrap();
    let handle = agent.start_wait(&r.id, Duration::from_secs(60)).unwrap();
    let second = agent.start_wait(&r.id, Duration::from_secs(60)).unwrap();
    assert_eq!(watched(&mut admin), 1);
    let other = agent
        .open(&w.chat, NewRequest::question("q"), "o3")
        .unwrap();
    ana.respond(&r.id, 1, Outcome::Answered, Some("yes"), "r2")
        .unwrap();
    let heard_now = payloads(&mut heard);
    assert!(
        heard_now.contains(&r.id.as_str().to_owned()),
        "{heard_now:?}"
    );
    assert!(
        !heard_now.contains(&other.id.as_str().to_owned()),
        "{heard_now:?}"
    );
    assert_eq!(handle.wait().unwrap().state, State::Resolved);
    assert_eq!(second.wait().unwrap().state, State::Resolved);
    // The last waiter left: the record goes (the hub tidies within a second or two; the
    // bound below is for a loaded machine).
    let started = Instant::now();
    while watched(&mut admin) > 0 && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(watched(&mut admin), 0);
    ana.respond(&other.id, 1, Outcome::Answered, Some("x"), "r3")
        .unwrap();
    assert!(!payloads(&mut heard).contains(&other.id.as_str().to_owned()));
    // A store dropped with waits recorded leaves none behind.
    let r4 = agent
        .open(&w.chat, NewRequest::question("q"), "o4")
        .unwrap();
    let held = agent.start_wait(&r4.id, Duration::from_secs(60)).unwrap();
    assert_eq!(watched(&mut admin), 1);
    drop(held);
    drop(asks);
    let started = Instant::now();
    while watched(&mut admin) > 0 && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(watched(&mut admin), 0);
}

/// The same engine as `w`'s, on its store and clock, with `quotas`.
fn with_quotas(w: &World, quotas: Quotas) -> Asks {
    Asks::with_clock(Arc::clone(&w.store), Arc::clone(&w.clock) as Arc<dyn Clock>)
        .with_quotas(quotas)
}

fn quota_open_requests_per_principal_is_refused_clearly(w: &World) {
    let asks = with_quotas(
        w,
        Quotas {
            open_requests: 2,
            ..Quotas::default()
        },
    );
    let agent = asks.as_principal(&w.agent);
    let first = agent
        .open(&w.chat, NewRequest::question("one"), "o1")
        .unwrap();
    let expiring = agent
        .open(
            &w.chat,
            NewRequest::question("two").expires_at(w.clock.now().plus(Duration::from_secs(60))),
            "o2",
        )
        .unwrap();
    let e = agent
        .open(&w.chat, NewRequest::question("three"), "o3")
        .unwrap_err();
    assert_eq!(e.code(), "quota_exceeded", "{e}");
    assert!(e.to_string().contains("2 open requests"), "{e}");
    // Nothing was stored; the same key may be used again once a place is free.
    assert_eq!(agent.list(&w.chat, 10).unwrap().len(), 2);
    // Another principal has its own quota.
    asks.as_principal(&w.ana)
        .open(&w.chat, NewRequest::question("ana's"), "a1")
        .unwrap();
    // A replacement supersedes what it replaces: it never counts.
    agent
        .replace(&first.id, 1, Replacement::default(), "r1")
        .unwrap();
    // An expiry or a cancel frees a place.
    w.clock.advance(Duration::from_secs(61));
    let third = agent
        .open(&w.chat, NewRequest::question("three"), "o3")
        .unwrap();
    assert_ne!(third.id, expiring.id);
}

fn quota_messages_per_request_is_refused_clearly(w: &World) {
    let asks = with_quotas(
        w,
        Quotas {
            messages_per_request: 3,
            ..Quotas::default()
        },
    );
    let r = asks
        .as_principal(&w.agent)
        .open(&w.chat, NewRequest::question("q"), "o1")
        .unwrap();
    let ana = asks.as_principal(&w.ana);
    for i in 0..3 {
        ana.message(&r.id, "more", &format!("m{i}")).unwrap();
    }
    let e = ana.message(&r.id, "more", "m3").unwrap_err();
    assert_eq!(e.code(), "quota_exceeded", "{e}");
    // A retry of a message already posted still replays; others may still post.
    ana.message(&r.id, "more", "m0").unwrap();
    asks.as_principal(&w.bob)
        .message(&r.id, "mine", "b0")
        .unwrap();
    let log = ana.log(&r.id, None, LOG_MAX).unwrap();
    assert_eq!(log.events.len(), 5);
}

fn list_refuses_a_principal_with_nothing_to_see_before_any_read(w: &World) {
    let agent = w.by(&w.agent);
    agent
        .open(&w.chat, NewRequest::question("q"), "o1")
        .unwrap();
    let eve = Principal::new("eve").unwrap();
    let e = w.by(&eve).list(&w.chat, 1).unwrap_err();
    assert_eq!(e.code(), "not_member", "{e}");
    // An executor named by a bound action may list without being a member.
    let executor = Principal::new("deployer").unwrap();
    agent
        .open(
            &w.chat,
            NewRequest::approval("Deploy?").action(Action {
                executor: executor.as_str().into(),
                resource_version: "v1".into(),
                arguments: json!({}),
                operation_key: "op-1".into(),
            }),
            "o2",
        )
        .unwrap();
    let listed = w.by(&executor).list(&w.chat, 10).unwrap();
    assert_eq!(listed.len(), 1);
    // The limit is from 1 to LIST_MAX.
    refused(agent.list(&w.chat, 0), "limit");
    refused(agent.list(&w.chat, LIST_MAX + 1), "limit");
}

fn log_pages_follow_their_cursor(w: &World) {
    let agent = w.by(&w.agent);
    let r = agent
        .open(&w.chat, NewRequest::question("q"), "o1")
        .unwrap();
    for i in 0..5 {
        agent
            .message(&r.id, &format!("note {i}"), &format!("m{i}"))
            .unwrap();
    }
    let mut pages = Vec::new();
    let mut after: Option<String> = None;
    for _ in 0..10 {
        let page = agent.log(&r.id, after.as_deref(), 2).unwrap();
        pages.push(page.events.len());
        match page.next {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    assert_eq!(pages, [2, 2, 2]);
    refused(agent.log(&r.id, None, 0), "limit");
    refused(agent.log(&r.id, None, LOG_MAX + 1), "limit");
    let e = agent.log(&r.id, Some("not-a-cursor"), 2).unwrap_err();
    assert_eq!(e.code(), "invalid_input", "{e}");
}

on_every_store!(
    quota_open_requests_per_principal_is_refused_clearly,
    quota_messages_per_request_is_refused_clearly,
    list_refuses_a_principal_with_nothing_to_see_before_any_read,
    log_pages_follow_their_cursor,
    limits_every_field_is_refused_naming_it,
    limits_a_huge_choice_list_is_refused_at_once,
    wait_a_dropped_handle_is_released_at_once,
    wait_the_cap_is_per_principal_and_refused_clearly,
    wait_500_pending_waits_hold_no_thread_and_others_are_answered,
    wait_by_another_engine_sees_the_change,
    wait_a_handle_is_a_future,
    postgres_500_waits_use_at_most_two_connections,
    postgres_errors_keep_their_cause,
    postgres_only_waited_requests_notify,
);
