//! The PostgreSQL server of the store tests.

/// The PostgreSQL URL of the store tests (`FORMS_ASK_PG_URL`); `None`, said loudly, without
/// one, and with `CI=true` its absence fails the test.
pub fn pg_url() -> Option<String> {
    match std::env::var("FORMS_ASK_PG_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("FORMS_ASK_PG_URL is not set: CI must run the PostgreSQL tests");
            }
            eprintln!("\n*** SKIPPED: PostgreSQL test — FORMS_ASK_PG_URL is not set ***\n");
            None
        }
    }
}

/// The run tag (also [`crate::scratch::tag`]).
pub use crate::scratch::tag;
