//! Store fixtures of the tests that run forms-ask's stores through real processes: a unique
//! tag, so runs on a shared PostgreSQL never meet, and the PostgreSQL URL. Included by path
//! (`#[path = "…/tests/support/store.rs"] mod store;`) from the test files that need them.
#![allow(dead_code, clippy::unwrap_used, clippy::panic)]

/// A unique tag for this run's conversations and principals.
pub fn tag() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{}-{}", std::process::id(), nanos % 1_000_000_000_000)
}

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
