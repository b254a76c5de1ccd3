//! Temporary folders and a unique tag per run.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

/// A unique tag for this run (process id and clock), so runs on a shared PostgreSQL or in a
/// shared temporary folder never meet.
pub fn tag() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{}-{}", std::process::id(), nanos % 1_000_000_000_000)
}

/// A fresh, empty folder `forms-{prefix}-{name}-{pid}` in the temporary folder (emptied if a
/// previous run of this process id left it).
pub fn scratch(prefix: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("forms-{prefix}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A temporary folder, unique to this run, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// A new folder `forms-{prefix}-{tag}-{n}` (`n` counts the folders of this process).
    pub fn new(prefix: &str) -> TempDir {
        static N: AtomicU64 = AtomicU64::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("forms-{prefix}-{}-{n}", tag()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// The folder.
    pub fn path(&self) -> &std::path::Path {
        &self.0
    }

    /// The path of a SQLite store in the folder (`asks.db`), as a string for a flag.
    pub fn db(&self) -> String {
        self.0.join("asks.db").display().to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
