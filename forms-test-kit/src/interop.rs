//! What the tests that speak MCP with other programs share: the two protocol versions of
//! the host's answer paths, and the peers `.ci/interop-setup` installs.

use std::path::PathBuf;

/// The protocol version whose hosts answer a form mid-call (`elicitation/create`).
pub const LEGACY: &str = "2025-11-25";
/// The protocol version whose hosts answer a form in input-required rounds.
pub const MODERN: &str = "2026-07-28";

/// The path in the environment variable `var`, or `None` after saying loudly that the test
/// with `what` is skipped; with `CI=true` a missing variable fails the test, and a path that
/// does not exist always does.
pub fn installed(var: &str, what: &str) -> Option<PathBuf> {
    match std::env::var_os(var) {
        Some(path) if !path.is_empty() => {
            let path = PathBuf::from(path);
            assert!(
                path.exists(),
                "{var}={} does not exist: run .ci/interop-setup",
                path.display()
            );
            Some(path)
        }
        _ => {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!(
                    "{var} is not set: CI must run the interop tests with {what} \
                     (.ci/test runs .ci/interop-setup)"
                );
            }
            eprintln!(
                "\n*** SKIPPED: interop test with {what}: {var} is not set. \
                 Run `eval \"$(.ci/interop-setup)\"` (or .ci/test) first. ***\n"
            );
            None
        }
    }
}
