//! SQLite's locks belong to the process: closing any descriptor of a database file drops every
//! POSIX lock the process holds on it, so a store must never open and close the file itself
//! while another store of the same process has it open. Otherwise a second process, seeing
//! no lock, takes itself for the last user when it closes: it checkpoints and deletes the
//! write-ahead log the first process is still writing to, and the first process's later
//! writes go to a deleted file that no one else ever reads (a lost update).
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

use forms_ask::{Asks, ConversationId, NewRequest, Principal, State};
use forms_test_kit::{bins, TempDir};
use std::process::Command;

#[test]
fn a_second_store_on_the_file_keeps_the_first_ones_locks() {
    let dir = TempDir::new("forms-ask-locks");
    let db = dir.path().join("asks.db").display().to_string();
    let chat = ConversationId::new("locks").unwrap();
    let [agent, ana, bob] = ["agent", "ana", "bob"].map(|p| Principal::new(p).unwrap());

    // The first store stays open, as a server's does.
    let first = Asks::open_location(&db).unwrap();
    for p in [&agent, &ana, &bob] {
        first.join(&chat, p).unwrap();
    }
    let request = first
        .as_principal(&agent)
        .open(&chat, NewRequest::approval("Deploy?"), "open-1")
        .unwrap();

    // A second store of the same process opens the same file, and closes.
    drop(Asks::open_location(&db).unwrap());

    // Another process approves, and closes: it must not take itself for the file's last user.
    let respond = |who: &str, outcome: &str, id: &str| {
        let out = Command::new(bins::example("approval"))
            .args(["respond", &db, who, outcome, id, "1"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let printed = respond("ana", "approved", request.id.as_str());
    assert!(printed.contains("recorded"), "{printed}");

    // What the first store writes next reaches the other processes.
    let next = first
        .as_principal(&agent)
        .open(&chat, NewRequest::approval("Roll back?"), "open-2")
        .unwrap();
    let printed = respond("bob", "denied", next.id.as_str());
    assert!(printed.contains("recorded"), "{printed}");
    let seen = first.as_principal(&agent).show(&next.id).unwrap();
    assert_eq!((seen.version, seen.state), (2, State::Resolved), "{seen}");
    drop(first);
    let reread = Asks::open_location(&db).unwrap();
    for id in [&request.id, &next.id] {
        let now = reread.as_principal(&agent).show(id).unwrap();
        assert_eq!((now.version, now.state), (2, State::Resolved), "{now}");
    }
}
