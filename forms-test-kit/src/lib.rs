//! Shared fixtures of the forms workspace's tests: the binaries of other packages, spawned
//! servers and the address they print, scratch folders, the PostgreSQL URL of the store tests,
//! the example forms. A dev-dependency only (`publish = false`); see README.md.
//!
//! A fixture that cannot be set up fails the test that asked for it, with a message saying
//! what was missing: the helpers panic rather than return errors.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

pub mod answers;
pub mod bins;
pub mod browser;
pub mod checks;
#[cfg(feature = "derived")]
pub mod derived;
pub mod forms;
#[cfg(feature = "fuzz")]
pub mod fuzz;
#[cfg(feature = "fuzz-deep")]
pub mod fuzz_deep;
pub mod http;
pub mod inputs;
pub mod interop;
pub mod process;
pub mod scratch;
pub mod scripted;
pub mod store;
pub mod timing;
pub mod tmux;
pub mod unprivileged;
pub mod url_mode;

pub use bins::{bin, example, forms_mcp};
pub use scratch::{scratch, tag, TempDir};
pub use store::pg_url;
