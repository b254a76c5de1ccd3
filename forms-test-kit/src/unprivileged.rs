//! Running a binary as a user the file permissions bind: as root, tests run their child
//! processes as `nobody` (65534), from a copy of the binary that `nobody` may read.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Whether this process runs as root (which may write any file, read-only or not).
pub fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// A copy of `exe` that `nobody` may run, in a folder of the temporary directory named
/// `folder` and this process's ID: the build directory may sit under a directory only its
/// owner can enter (a checkout in a `mktemp -d` folder). Callers keep the path (one copy a
/// process).
pub fn copy_for_nobody(exe: &Path, folder: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("{folder}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let copy = dir.join(exe.file_name().unwrap());
    std::fs::copy(exe, &copy).unwrap();
    std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755)).unwrap();
    copy
}
