//! Checks of what a command printed, shared by the command-line tests of the packages.

use std::fmt::Debug;

/// Asserts that the command line `args` of `program` was refused as a usage error: exit 2,
/// nothing on standard output, and on standard error an `error: …` message with the
/// program's usage (`Usage: PROGRAM`), not a panic.
pub fn assert_usage_error(
    program: &str,
    args: &dyn Debug,
    (code, stdout, stderr): (i32, &str, &str),
) {
    assert_eq!(code, 2, "{args:?}: {stdout} {stderr}");
    assert!(stdout.is_empty(), "{args:?}: {stdout}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
    assert!(
        stderr.contains(&format!("Usage: {program}")),
        "{args:?}: {stderr}"
    );
}

/// Asserts that `text` holds each of `parts`.
pub fn assert_contains_all(text: &str, parts: &[&str]) {
    for part in parts {
        assert!(text.contains(part), "{part:?} is not in: {text}");
    }
}
