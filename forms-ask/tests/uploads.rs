//! A durable form's `files` answer is uploads, never a path the responder names (issue 22,
//! finding 4): a user-added `file://` URI is refused with a message saying how to send the
//! file and nothing is stored; uploaded bytes are stored with the response (within their
//! limits) and the requester's decode writes them into its own directory, giving `T` those
//! files only. Run against every store: `memory::…`, `sqlite::…` and `postgres::…` (the last
//! needs `FORMS_ASK_PG_URL`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;

use common::{TempDir, World};
use forms_ask::store::{Commit, Committed, Write};
use forms_ask::{
    AsPrincipal, AskError, FormRequest, NewRequest, Outcome, Request, RequestId, State, Upload,
    UPLOADS_BYTES_MAX, UPLOAD_BYTES_MAX,
};
use forms_runtime::{DataForm, FileRef, Form, StaticForm};
use serde_json::{json, Value};

/// A form with one `files` question.
#[derive(Form, Debug, PartialEq, Clone)]
#[form(message = "Send the quarter's report")]
struct Report {
    #[form(files, title = "The report", accept = [".csv", "text/csv"])]
    data: Vec<FileRef>,
}

fn open(w: &World, key: &str) -> Request {
    w.by(&w.agent)
        .open_form(
            &w.chat,
            &Report::form(),
            NewRequest::question("When you are back, send the report"),
            key,
        )
        .unwrap()
        .request()
        .clone()
}

fn bytes(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 131 % 251) as u8).collect()
}

fn form_error(e: AskError) -> forms_runtime::FormError {
    match e {
        AskError::Form(f) => f,
        other => panic!("expected a form refusal, got {other:?}"),
    }
}

/// Nothing was stored: the request is still open at version 1, the log holds the opening
/// only, and the store has no uploads for it.
/// The report request resumed as `me`, decoding files into a fresh directory named `name`
/// (kept until the directory is dropped).
fn resume_into(me: &AsPrincipal<'_>, id: &RequestId, name: &str) -> (FormRequest<Report>, TempDir) {
    let mine = TempDir::new(name);
    let pending = FormRequest::<Report>::resume(me, id)
        .unwrap()
        .uploads_dir(mine.path());
    (pending, mine)
}

fn nothing_stored(w: &World, opened: &Request) {
    let me = w.by(&w.ana);
    assert_eq!(me.show(&opened.id).unwrap(), *opened);
    assert_eq!(me.log(&opened.id, None, 200).unwrap().events.len(), 1);
    assert!(w.store.uploads(&opened.id).unwrap().is_empty());
}

fn a_path_in_a_files_answer_is_refused_with_how_to_send_it(w: &World) {
    let opened = open(w, "open-1");
    let ana = w.by(&w.ana);
    for (i, path) in [
        "file:///etc/shadow",
        "file:///root/.ssh/id_ed25519",
        "file://localhost/etc/passwd",
        "FILE:///etc/hosts",
        // Even one shaped like a stored upload's URI is a path the responder chose.
        &format!("file:///forms-ask/uploads/{}/0/x.csv", opened.id),
    ]
    .iter()
    .enumerate()
    {
        let answer = json!({"action": "accept", "content": {"data": [path]}}).to_string();
        let e = ana
            .respond_form(&opened.id, 1, &answer, &format!("k{i}"))
            .unwrap_err();
        assert_eq!(e.code(), "invalid_response", "{path}: {e}");
        let f = form_error(e);
        assert!(f.message().contains("content.data[0]"), "{f}");
        assert!(f.message().contains("takes no paths"), "{f}");
        assert!(f.message().contains("upload:<name>"), "{f}");
        assert!(f.message().contains("--upload PATH"), "{f}");
        assert!(f.message().contains("`uploads`"), "{f}");
        // The same path with an upload alongside is refused just the same.
        let up = Upload::new("x.csv", b"a,b\n".to_vec()).unwrap();
        let e = ana
            .respond_with_uploads(
                &opened.id,
                1,
                Outcome::Answered,
                Some(&answer),
                &[up],
                &format!("u{i}"),
            )
            .unwrap_err();
        assert_eq!(e.code(), "invalid_response", "{e}");
    }
    nothing_stored(w, &opened);
}

fn an_upload_is_stored_and_the_requester_decodes_a_file_of_its_own(w: &World) {
    let opened = open(w, "open-1");
    let sent = bytes(3 * 1024 + 7);
    let up = Upload::new("q3 sales.csv", sent.clone()).unwrap();
    let answer = json!({"action": "accept", "content": {"data": [up.reference()]}}).to_string();
    let ana = w.by(&w.ana);
    // Ana's answer with `ups`, under one retry key.
    let send = |ups: &[Upload]| {
        ana.respond_with_uploads(
            &opened.id,
            1,
            Outcome::Answered,
            Some(&answer),
            ups,
            "answer-1",
        )
    };
    let done = send(std::slice::from_ref(&up)).unwrap();
    assert_eq!(done.state, State::Resolved);
    // The saved response names the store's URI, not anything the responder chose.
    let stored_uri = format!("file:///forms-ask/uploads/{}/0/q3%20sales.csv", opened.id);
    assert_eq!(
        done.response.as_ref().unwrap()["content"]["data"][0],
        json!(stored_uri)
    );
    let stored = w.store.uploads(&opened.id).unwrap();
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].data, sent);
    assert_eq!(stored[0].name, "q3 sales.csv");
    assert_eq!(stored[0].sha256.len(), 64);
    // The same retry key with the same files replays; with other bytes it is refused.
    let again = send(std::slice::from_ref(&up)).unwrap();
    assert_eq!(again, done);
    let other = Upload::new("q3 sales.csv", b"other".to_vec()).unwrap();
    let e = send(&[other]).unwrap_err();
    assert_eq!(e.code(), "retry_key_reused", "{e}");
    assert_eq!(w.store.uploads(&opened.id).unwrap().len(), 1);

    // The requester, in another engine (another process), decodes into its own directory.
    let engine = w.second_engine();
    let me = engine.as_principal(&w.agent);
    let (pending, mine) = resume_into(&me, &opened.id, "uploads-requester");
    let reply = pending.show(&me).unwrap();
    let report = reply.accepted().unwrap();
    assert_eq!(report.data.len(), 1);
    let path = report.data[0].local_path().unwrap().to_path_buf();
    assert!(path.starts_with(mine.path()), "{}", path.display());
    assert!(path.ends_with(format!("{}/0/q3 sales.csv", opened.id)));
    assert_eq!(std::fs::read(&path).unwrap(), sent);
    // Read again (and waited for): the same file, rewritten from the store.
    std::fs::write(&path, b"tampered locally").unwrap();
    let reply = pending
        .wait(&me, std::time::Duration::from_millis(10))
        .unwrap();
    assert_eq!(
        reply.accepted().unwrap().data[0].local_path().unwrap(),
        path.as_path()
    );
    assert_eq!(std::fs::read(&path).unwrap(), sent);

    // Without a directory of its own, a fresh private one under the temporary directory.
    let pending = FormRequest::<Report>::resume(&me, &opened.id).unwrap();
    assert!(pending.uploads_dir_in_use().is_none());
    let reply = pending.show(&me).unwrap();
    let dir = pending.uploads_dir_in_use().unwrap().to_path_buf();
    assert!(dir.starts_with(std::env::temp_dir()));
    let path = reply.accepted().unwrap().data[0]
        .local_path()
        .unwrap()
        .to_path_buf();
    assert!(path.starts_with(&dir));
    assert_eq!(std::fs::read(&path).unwrap(), sent);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700, "{mode:o}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

fn uploads_over_their_limits_are_refused_and_nothing_is_stored(w: &World) {
    let opened = open(w, "open-1");
    // One file over its limit is refused when it is made.
    let e = Upload::new("big.csv", vec![0; UPLOAD_BYTES_MAX + 1]).unwrap_err();
    assert_eq!(e.code(), "invalid_arguments", "{e}");
    // Files each within it, together over the answer's limit.
    let n = UPLOADS_BYTES_MAX / UPLOAD_BYTES_MAX + 1;
    let ups: Vec<Upload> = (0..n)
        .map(|i| Upload::new(format!("part{i}.csv"), vec![1; UPLOAD_BYTES_MAX]).unwrap())
        .collect();
    let refs: Vec<String> = ups.iter().map(Upload::reference).collect();
    let answer = json!({"action": "accept", "content": {"data": refs}}).to_string();
    let e = w
        .by(&w.ana)
        .respond_with_uploads(&opened.id, 1, Outcome::Answered, Some(&answer), &ups, "k")
        .unwrap_err();
    assert_eq!(e.code(), "invalid_arguments", "{e}");
    assert!(e.to_string().contains("uploads"), "{e}");
    nothing_stored(w, &opened);
}

fn uploads_must_match_the_answer_exactly(w: &World) {
    let opened = open(w, "open-1");
    let ana = w.by(&w.ana);
    let a = Upload::new("a.csv", b"1".to_vec()).unwrap();
    let b = Upload::new("b.csv", b"2".to_vec()).unwrap();
    let cases: Vec<(Value, Vec<Upload>, &str)> = vec![
        // A reference to no file sent.
        (
            json!({"action":"accept","content":{"data":["upload:b.csv"]}}),
            vec![a.clone()],
            "names no file sent",
        ),
        // A file sent but not named.
        (
            json!({"action":"accept","content":{"data":["upload:a.csv"]}}),
            vec![a.clone(), b.clone()],
            "not named in the answer",
        ),
        // A decline sends no files.
        (
            json!({"action":"decline"}),
            vec![a.clone()],
            "not named in the answer",
        ),
        // One file named twice.
        (
            json!({"action":"accept","content":{"data":["upload:a.csv","upload:a.csv"]}}),
            vec![a.clone()],
            "more than once",
        ),
    ];
    for (i, (answer, ups, says)) in cases.iter().enumerate() {
        let e = ana
            .respond_with_uploads(
                &opened.id,
                1,
                Outcome::Answered,
                Some(&answer.to_string()),
                ups,
                &format!("k{i}"),
            )
            .unwrap_err();
        assert_eq!(e.code(), "invalid_response", "{answer}: {e}");
        assert!(e.to_string().contains(says), "{answer}: {e}");
    }
    // Two files of one name.
    let e = ana
        .respond_with_uploads(
            &opened.id,
            1,
            Outcome::Answered,
            Some(r#"{"action":"accept","content":{"data":["upload:a.csv"]}}"#),
            &[a.clone(), a.clone()],
            "twice",
        )
        .unwrap_err();
    assert_eq!(e.code(), "invalid_input", "{e}");
    // Files answer a form only.
    let plain = w
        .by(&w.agent)
        .open(&w.chat, NewRequest::question("Plain?"), "plain")
        .unwrap();
    let e = ana
        .respond_with_uploads(&plain.id, 1, Outcome::Answered, Some("yes"), &[a], "plain")
        .unwrap_err();
    assert_eq!(e.code(), "invalid_answer", "{e}");
    nothing_stored(w, &opened);
}

fn offered_files_pass_unchanged(w: &World) {
    let form = DataForm::from_value(&json!({
        "message": "Pick the shared file",
        "questions": [{"id": "data", "type": "files", "title": "Files", "required": false,
            "options": [{"uri": "file:///srv/shared/q3.csv", "name": "q3", "title": "Q3"},
                        {"uri": "https://example.com/q4.csv", "name": "q4", "title": "Q4"}]}],
    }))
    .unwrap();
    let opened = w
        .by(&w.agent)
        .open(&w.chat, NewRequest::question("Pick").form(&form), "open")
        .unwrap();
    let answer = r#"{"action":"accept","content":{"data":["file:///srv/shared/q3.csv","https://example.com/q4.csv"]}}"#;
    let done = w
        .by(&w.ana)
        .respond_form(&opened.id, 1, answer, "k")
        .unwrap();
    assert_eq!(
        done.response,
        Some(serde_json::from_str::<Value>(answer).unwrap())
    );
    assert!(w.store.uploads(&opened.id).unwrap().is_empty());
}

fn a_path_saved_before_uploads_is_never_given_to_the_requester(w: &World) {
    // A response saved by an earlier version, naming a responder's path.
    let opened = open(w, "open-1");
    let mut old = opened.clone();
    old.state = State::Resolved;
    old.version = 2;
    old.outcome = Some(Outcome::Answered);
    old.responder = Some(w.ana.clone());
    old.response = Some(json!({"action":"accept","content":{"data":["file:///etc/shadow"]}}));
    let commit = Commit {
        retry: None,
        eligible: None,
        writes: vec![Write::Update {
            expected: 1,
            request: old,
        }],
        events: vec![],
        uploads: Vec::new(),
    };
    assert_eq!(w.store.commit(&commit).unwrap(), Committed::Done);
    let me = w.by(&w.agent);
    let (pending, _mine) = resume_into(&me, &opened.id, "uploads-legacy");
    let e = pending.show(&me).unwrap_err();
    assert_eq!(e.code(), "invalid_response", "{e}");
    assert!(e.to_string().contains("not given to the requester"), "{e}");
}

on_every_store!(
    a_path_in_a_files_answer_is_refused_with_how_to_send_it,
    an_upload_is_stored_and_the_requester_decodes_a_file_of_its_own,
    uploads_over_their_limits_are_refused_and_nothing_is_stored,
    uploads_must_match_the_answer_exactly,
    offered_files_pass_unchanged,
    a_path_saved_before_uploads_is_never_given_to_the_requester,
);
