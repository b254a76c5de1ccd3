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
