//! A conversation in an ask store, for the tests that set requests up through the engine and
//! answer them through the `forms` binary. Its name and its members' names carry a fresh tag,
//! so runs on a shared PostgreSQL never meet.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction, dead_code)]

use forms_ask::{AsPrincipal, Asks, ConversationId, NewRequest, Principal, Request};
use forms_test_kit::{tag, TempDir};

/// The conversation `chat-T` in one store, with members named `NAME-T` (T a fresh tag).
pub struct Conversation {
    /// Where the store is (a path or a PostgreSQL URL), as `--db` takes it.
    pub db: String,
    /// The engine that set the conversation up, until [`Conversation::close`].
    asks: Option<Asks>,
    pub chat: ConversationId,
    pub t: String,
}

impl Conversation {
    /// Opens the store at `db` and joins `names` to a fresh conversation.
    pub fn new(db: &str, names: &[&str]) -> Conversation {
        let t = tag();
        let asks = Asks::open_location(db).unwrap();
        let chat = ConversationId::new(format!("chat-{t}")).unwrap();
        let c = Conversation {
            db: db.to_owned(),
            asks: Some(asks),
            chat,
            t,
        };
        for name in names {
            c.by_engine().join(&c.chat, &c.principal(name)).unwrap();
        }
        c
    }

    /// A conversation with `names` in a fresh SQLite store, in a scratch folder named after
    /// `prefix` (removed when the folder is dropped).
    pub fn in_scratch(prefix: &str, names: &[&str]) -> (TempDir, Conversation) {
        let dir = TempDir::new(prefix);
        let c = Conversation::new(&dir.db(), names);
        (dir, c)
    }

    /// The engine that set the conversation up.
    fn by_engine(&self) -> &Asks {
        self.asks
            .as_ref()
            .expect("the conversation's engine was closed")
    }

    /// Closes the engine that set the conversation up (its connection to the store), as a
    /// program that opened requests and exited would; the names stay.
    pub fn close(&mut self) {
        self.asks = None;
    }

    /// `who`'s name in this conversation: `WHO-T`.
    pub fn name(&self, who: &str) -> String {
        format!("{who}-{}", self.t)
    }

    /// `who`'s principal in this conversation.
    pub fn principal(&self, who: &str) -> Principal {
        Principal::new(self.name(who)).unwrap()
    }

    /// The engine, as `who`.
    pub fn by(&self, who: &str) -> AsPrincipal<'_> {
        self.by_engine().as_principal(&self.principal(who))
    }

    /// `new`, opened by `who` in this conversation with the retry key `key`.
    pub fn open(&self, who: &str, new: NewRequest, key: &str) -> Request {
        self.by(who).open(&self.chat, new, key).unwrap()
    }

    /// The attack of issue 22, opened by agent: a form request whose title, body and form
    /// hold terminal controls (see `controls`).
    pub fn open_hostile_form(&self) -> Request {
        let form = forms_runtime::DataForm::from_value(&super::controls::form()).unwrap();
        let new = NewRequest::question(super::controls::BODY)
            .title(super::controls::TITLE)
            .form(&form);
        self.open("agent", new, "open-1")
    }
}

/// The arguments of `forms ask respond` after `--as WHO`: `answer` to version 1 of `id`, as
/// the outcome `answered`, with the retry key `key`.
pub fn answer_v1<'a>(id: &'a str, answer: &'a str, key: &'a str) -> Vec<&'a str> {
    vec![
        id,
        "--version",
        "1",
        "--outcome",
        "answered",
        "--answer",
        answer,
        "--key",
        key,
    ]
}
