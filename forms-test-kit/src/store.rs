//! The PostgreSQL server of the store tests.

/// The environment variable naming the PostgreSQL database the tests use.
pub const PG_URL_VAR: &str = "FORMS_ASK_PG_URL";

/// The PostgreSQL URL of the store tests (`FORMS_ASK_PG_URL`); `None`, said loudly, without
/// one, and with `CI=true` its absence fails the test.
pub fn pg_url() -> Option<String> {
    match std::env::var(PG_URL_VAR) {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("{PG_URL_VAR} is not set: CI must run the PostgreSQL tests (.ci/run starts a server)");
            }
            eprintln!(
                "\n*** SKIPPED: PostgreSQL test — {PG_URL_VAR} is not set. \
                 Run `eval \"$(.ci/pg-start)\"`, or start a server and set {PG_URL_VAR}=postgres://… ***\n"
            );
            None
        }
    }
}

/// The run tag (also [`crate::scratch::tag`]).
pub use crate::scratch::tag;

/// The names of a conversation and of its three members (the requesting agent, Ana and Bob),
/// unique to this run so tests on a shared store never meet.
pub struct ChatNames {
    /// `chat-TAG`.
    pub conversation: String,
    /// `agent-TAG`.
    pub agent: String,
    /// `ana-TAG`.
    pub ana: String,
    /// `bob-TAG`.
    pub bob: String,
}

impl ChatNames {
    /// Fresh names with one [`crate::tag`].
    pub fn fresh() -> ChatNames {
        let t = crate::tag();
        ChatNames {
            conversation: format!("chat-{t}"),
            agent: format!("agent-{t}"),
            ana: format!("ana-{t}"),
            bob: format!("bob-{t}"),
        }
    }
}
