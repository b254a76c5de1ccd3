//! The workspace's binaries and example servers, for the tests that run them as real
//! processes. Included by path (`#[path = "…/tests/support/bins.rs"] mod bins;`) from the
//! test files of every crate that needs a binary of another package.
//!
//! Everything is built by one `cargo build --workspace --bins --examples`, once per test
//! binary. Its feature resolution is the one `cargo test --workspace` makes (dev-dependencies
//! included, every package selected), so under the README's test command it finds every
//! artifact fresh and compiles nothing; a narrower `cargo build -p … --features …` resolves
//! features of its own and builds a second copy of half the dependency tree. Run alone
//! (`cargo test -p forms-cli --test host`), it builds what is missing or stale.
#![allow(dead_code, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// `target/debug` (or the profile folder this test binary was built into).
fn out_dir() -> PathBuf {
    // A test binary lives in `<target>/<profile>/deps/`.
    let exe = std::env::current_exe().expect("the test binary's path");
    exe.parent()
        .and_then(Path::parent)
        .expect("the test binary lives in <target>/<profile>/deps")
        .to_owned()
}

/// The workspace root: the manifest folder of the package under test, or its parent.
fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    if here.join("forms-cli").is_dir() {
        here.to_owned()
    } else {
        here.parent()
            .expect("a workspace member's parent")
            .to_owned()
    }
}

fn build_all() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let status = Command::new(env!("CARGO"))
            .args(["build", "-q", "--workspace", "--bins", "--examples"])
            .current_dir(workspace_root())
            .status()
            .expect("cargo runs");
        assert!(
            status.success(),
            "cargo build --workspace --bins --examples"
        );
        out_dir()
    })
}

/// A binary of the workspace (`forms`, `forms-mcp`), built and fresh.
pub fn bin(name: &str) -> PathBuf {
    let path = build_all().join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(path.is_file(), "{} was not built", path.display());
    path
}

/// An example of any workspace package (`report_server`, `core_server`, …), built and fresh.
pub fn example(name: &str) -> PathBuf {
    let path = build_all()
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(path.is_file(), "{} was not built", path.display());
    path
}
