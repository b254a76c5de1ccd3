//! The browser tests' WebDriver client ([`forms_test_kit::browser`]) and the page of the
//! `forms` binary under test.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction, dead_code)]

pub use forms_test_kit::browser::*;
use std::path::Path;
use std::process::{Child, Command};

/// `forms host --call CALL -- SERVER` (the binary under test), started as [`start_page`]
/// starts it: the child and its page URL.
pub fn host_page(call: &str, server: &Path) -> (Child, String) {
    start_page(
        Command::new(env!("CARGO_BIN_EXE_forms"))
            .args(["host", "--call", call, "--"])
            .arg(server),
        "forms host: answer the form at ",
    )
}
