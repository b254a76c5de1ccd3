//! The workspace's binaries and example programs, for the tests that run a binary of another
//! package as a real process (a package's own binaries come from `env!("CARGO_BIN_EXE_…")`).
//!
//! Everything is built by one `cargo build --workspace --bins --examples`, once per test
//! binary. Its feature resolution is the one `cargo test --workspace` makes (dev-dependencies
//! included, every package selected), so under the README's test command it finds every
//! artifact fresh and compiles nothing; a narrower `cargo build -p … --features …` resolves
//! features of its own and builds a second copy of half the dependency tree. Run alone
//! (`cargo test -p forms-cli --test host`), it builds what is missing or stale.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// `target/debug` (or the profile folder the running test binary was built into).
fn out_dir() -> PathBuf {
    // A test binary lives in `<target>/<profile>/deps/`.
    let exe = std::env::current_exe().expect("the test binary's path");
    exe.parent()
        .and_then(Path::parent)
        .expect("the test binary lives in <target>/<profile>/deps")
        .to_owned()
}

/// The workspace root, as Cargo names it (`cargo locate-project --workspace`) from this
/// crate's manifest folder.
pub fn workspace_root() -> PathBuf {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let output = crate::process::succeeded(
            Command::new(env!("CARGO"))
                .args(["locate-project", "--workspace", "--message-format", "plain"])
                .current_dir(env!("CARGO_MANIFEST_DIR")),
            "cargo locate-project runs",
            "cargo locate-project --workspace",
        );
        let manifest = PathBuf::from(String::from_utf8(output.stdout).unwrap().trim());
        manifest
            .parent()
            .expect("the workspace manifest's folder")
            .to_owned()
    })
    .clone()
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

/// `forms-mcp`, built and fresh (for the tests of other packages).
pub fn forms_mcp() -> PathBuf {
    bin("forms-mcp")
}

/// An example of any workspace package (`report_server`, `core_server`, …), built and fresh.
pub fn example(name: &str) -> PathBuf {
    let path = build_all()
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(path.is_file(), "{} was not built", path.display());
    path
}
