//! The copies of the files a person adds on the page. A browser never tells a page where a
//! picked file lives, so the page sends the file's bytes and the server writes them into a
//! private directory of the page; the answer names the copy by its real absolute path.
//!
//! The directory is created on the first added file, under the system's temporary directory,
//! with a random name and mode 0700; each copy is created new (never through an existing
//! file or link) with mode 0600 under the file's own name, made safe: only its last path
//! component, without control characters, never `.` or `..`; a name already taken gets a
//! ` (2)`, ` (3)`… before its extension. The directory is kept after the session ends, so
//! the URIs in the result stay valid; its path is printed on standard error.

use forms_runtime::native::{NativeView, QuestionKind};
use std::path::{Path, PathBuf};

/// What a question takes as added files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileQuestion {
    /// The `accept` filter: extensions (`.csv`) and MIME types (`text/csv`, `image/*`);
    /// empty for any file.
    pub accept: Vec<String>,
}

/// Why a question takes no added file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NotAFileQuestion {
    /// The form has no such question.
    Unknown,
    /// The question takes no file the person adds.
    NoUserFiles,
    /// The question takes a folder, which the page cannot copy.
    Folder,
}

/// What question `id` of a form takes as added files, as the page reads it: the files of a
/// resource question ([`forms_runtime::native::UserFiles`]).
pub(crate) fn file_question(view: &NativeView, id: &str) -> Result<FileQuestion, NotAFileQuestion> {
    let question = view.question(id).ok_or(NotAFileQuestion::Unknown)?;
    let files = match &question.kind {
        QuestionKind::Resource { files, .. } | QuestionKind::Resources { files, .. } => {
            files.as_ref()
        }
        _ => None,
    };
    match files {
        None => Err(NotAFileQuestion::NoUserFiles),
        Some(files) if files.directory => Err(NotAFileQuestion::Folder),
        Some(files) => Ok(FileQuestion {
            accept: files.accept.clone(),
        }),
    }
}

pub use forms_runtime::rules::accepts;

/// [`accepts`] for a file the page uploaded, with the type the browser reported.
pub(crate) fn accepted(accept: &[String], name: &str, mime: &str) -> bool {
    accepts(accept, name, Some(mime))
}

/// The longest name a copy gets, in bytes (most file systems take 255).
const NAME_BYTES_MAX: usize = 200;

/// A safe file name for `name` as the browser gave it: its last path component, without
/// control characters (and, on Windows, without the characters Windows forbids), at most
/// [`NAME_BYTES_MAX`] bytes; `file` when nothing usable is left.
pub(crate) fn safe_name(name: &str) -> String {
    let last = name.rsplit(['/', '\\']).next().unwrap_or_default();
    let cleaned: String = last
        .chars()
        .filter(|c| !c.is_control())
        .map(|c| {
            if cfg!(windows) && matches!(c, '<' | '>' | ':' | '"' | '|' | '?' | '*') {
                '_'
            } else {
                c
            }
        })
        .collect();
    let cleaned = cleaned.trim();
    if cleaned.is_empty() || cleaned.chars().all(|c| c == '.') {
        return "file".to_owned();
    }
    if cleaned.len() <= NAME_BYTES_MAX {
        return cleaned.to_owned();
    }
    let (stem, ext) = split_extension(cleaned);
    let ext = if ext.len() <= 16 { ext } else { "" };
    let mut stem = stem.to_owned();
    while stem.len() + ext.len() > NAME_BYTES_MAX {
        stem.pop();
    }
    format!("{stem}{ext}")
}

/// `("q3 sales", ".csv")` for `q3 sales.csv`; a leading dot starts no extension.
fn split_extension(name: &str) -> (&str, &str) {
    match name.rfind('.') {
        Some(dot) if dot > 0 => name.split_at(dot),
        _ => (name, ""),
    }
}

/// The `n`th candidate for `name`: the name itself, then `stem (2).ext`, `stem (3).ext`…
pub(crate) fn candidate(name: &str, n: usize) -> String {
    if n <= 1 {
        return name.to_owned();
    }
    let (stem, ext) = split_extension(name);
    format!("{stem} ({n}){ext}")
}

/// Creates the private directory of a session under `parent`: a new directory with a random
/// name and mode 0700, returned by its canonical path (so the URIs name the real place).
pub(crate) async fn create_private_dir(
    parent: &Path,
    prefix: &str,
    tag: &str,
) -> std::io::Result<PathBuf> {
    let dir = parent.join(format!("{prefix}-{tag}"));
    #[cfg_attr(not(unix), allow(unused_mut))]
    let mut builder = tokio::fs::DirBuilder::new();
    #[cfg(unix)]
    builder.mode(0o700);
    builder.create(&dir).await?;
    tokio::fs::canonicalize(&dir).await
}

/// Opens a new file in `dir` named after `name` (made safe, and numbered when taken), with
/// mode 0600; never opens an existing file or follows a link.
pub(crate) async fn create_copy(
    dir: &Path,
    name: &str,
) -> std::io::Result<(PathBuf, tokio::fs::File)> {
    let safe = safe_name(name);
    let mut last = None;
    for n in 1..=1000 {
        let path = dir.join(candidate(&safe, n));
        let mut options = tokio::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        options.mode(0o600);
        match options.open(&path).await {
            Ok(file) => return Ok((path, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free name")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_keep_only_their_last_component() {
        assert_eq!(safe_name("q3 sales.csv"), "q3 sales.csv");
        assert_eq!(safe_name("../../etc/passwd"), "passwd");
        assert_eq!(safe_name("..\\..\\boot.ini"), "boot.ini");
        assert_eq!(safe_name(".."), "file");
        assert_eq!(safe_name("."), "file");
        assert_eq!(safe_name("a/.."), "file");
        assert_eq!(safe_name(""), "file");
        assert_eq!(safe_name("x/"), "file");
        assert_eq!(safe_name("a\u{0}b\u{1b}[2J.txt"), "ab[2J.txt");
        assert_eq!(safe_name(".hidden"), ".hidden");
        let long = format!("{}.csv", "é".repeat(300));
        let safe = safe_name(&long);
        assert!(
            safe.len() <= NAME_BYTES_MAX && safe.ends_with("é.csv"),
            "{safe}"
        );
    }

    #[test]
    fn taken_names_are_numbered_before_the_extension() {
        assert_eq!(candidate("q3 sales.csv", 1), "q3 sales.csv");
        assert_eq!(candidate("q3 sales.csv", 2), "q3 sales (2).csv");
        assert_eq!(candidate(".env", 3), ".env (3)");
        assert_eq!(candidate("README", 2), "README (2)");
    }

    #[test]
    fn accept_filters_extensions_by_name_and_types_by_reported_type() {
        let a = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(accepted(&[], "x", ""));
        assert!(accepted(&a(&[".csv"]), "Q3.CSV", ""));
        assert!(!accepted(&a(&[".csv"]), "q3.csv.txt", "text/plain"));
        assert!(!accepted(&a(&[".csv"]), ".csv", ""));
        assert!(accepted(&a(&["text/csv"]), "q3", "text/csv"));
        assert!(!accepted(&a(&["text/csv"]), "q3.csv", ""));
        assert!(accepted(&a(&["image/*"]), "a.png", "image/png"));
        assert!(!accepted(&a(&["image/*"]), "a.pdf", "application/pdf"));
        assert!(accepted(
            &a(&[".pdf", "image/*"]),
            "a.pdf",
            "application/pdf"
        ));
    }

    #[test]
    fn reads_what_a_question_takes() {
        let native = json!({"message": "m", "requestedSchema": {"type": "object", "properties": {
            "data": {"type": "array", "x-openai-input": {"type": "file", "options": [],
                     "userOptions": {"kind": "file", "accept": [".csv"]}}},
            "any": {"type": "string", "x-openai-input": {"type": "file"}},
            "dir": {"type": "string", "x-openai-input": {"userOptions": {"kind": "directory"}}},
            "deck": {"type": "string", "x-openai-input": {"type": "resource",
                     "options": [{"uri": "https://e.com/1", "name": "1"}]}},
            "goal": {"type": "string"}}}});
        let native = NativeView::from_value(&native).unwrap();
        assert_eq!(
            file_question(&native, "data"),
            Ok(FileQuestion {
                accept: vec![".csv".into()]
            })
        );
        assert_eq!(
            file_question(&native, "any"),
            Ok(FileQuestion { accept: vec![] })
        );
        assert_eq!(file_question(&native, "dir"), Err(NotAFileQuestion::Folder));
        assert_eq!(
            file_question(&native, "deck"),
            Err(NotAFileQuestion::NoUserFiles)
        );
        assert_eq!(
            file_question(&native, "goal"),
            Err(NotAFileQuestion::NoUserFiles)
        );
        assert_eq!(
            file_question(&native, "nope"),
            Err(NotAFileQuestion::Unknown)
        );
    }

    #[tokio::test]
    async fn copies_are_private_and_never_overwrite() {
        let parent = std::env::temp_dir();
        let tag = format!("unit-{}", std::process::id());
        let dir = create_private_dir(&parent, "forms-host", &tag)
            .await
            .unwrap();
        assert!(create_private_dir(&parent, "forms-host", &tag)
            .await
            .is_err());
        let (first, _) = create_copy(&dir, "../q3 sales.csv").await.unwrap();
        let (second, _) = create_copy(&dir, "q3 sales.csv").await.unwrap();
        assert_eq!(first, dir.join("q3 sales.csv"));
        assert_eq!(second, dir.join("q3 sales (2).csv"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&dir), 0o700);
            assert_eq!(mode(&first), 0o600);
            // A link planted under a free name is not followed.
            std::os::unix::fs::symlink("/etc/hostname", dir.join("link.txt")).unwrap();
            let (third, _) = create_copy(&dir, "link.txt").await.unwrap();
            assert_eq!(third, dir.join("link (2).txt"));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
