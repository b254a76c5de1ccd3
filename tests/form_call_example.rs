//! The documentation's `FormCall` example (the block after `<!-- form-call-example -->`, in
//! README.md or a chapter of docs/) is `forms_mcp::FormCall`'s doc example, which
//! `cargo test --doc -p forms-mcp` compiles: the shown copy cannot drift from the compiled one.
//!
//! Kept in the root package (never published) rather than in forms-mcp, whose packaged crate
//! holds neither the README nor docs/.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

use std::path::{Path, PathBuf};

const MARKER: &str = "<!-- form-call-example -->";

/// The code block of `text` that starts after the line `start`, up to the closing fence.
fn block<'a>(text: &'a str, start: &str, prefix: &str) -> Vec<&'a str> {
    text.lines()
        .skip_while(|line| line.trim_end() != start)
        .skip(1)
        .take_while(|line| line.trim_end() != format!("{prefix}```").trim_end())
        .map(|line| {
            line.strip_prefix(prefix)
                .unwrap_or(line.trim_start_matches(prefix.trim_end()))
        })
        .collect()
}

/// README.md and every Markdown file under docs/ (at most a few levels deep).
fn documents(root: &Path) -> Vec<PathBuf> {
    let mut found = vec![root.join("README.md")];
    let mut folders = vec![(root.join("docs"), 0)];
    while let Some((folder, depth)) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() && depth < 4 {
                folders.push((path, depth + 1));
            } else if path.extension().is_some_and(|e| e == "md") {
                found.push(path);
            }
        }
    }
    found
}

#[test]
fn the_documentation_shows_the_compiled_form_call_example() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shown: Vec<(PathBuf, String)> = documents(root)
        .into_iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).ok()?;
            let at = text.find(MARKER)?;
            Some((path, text[at..].to_owned()))
        })
        .collect();
    assert_eq!(
        shown.len(),
        1,
        "exactly one document shows the FormCall example after {MARKER}: {:?}",
        shown.iter().map(|(p, _)| p).collect::<Vec<_>>()
    );
    let (path, text) = &shown[0];
    let source = std::fs::read_to_string(root.join("forms-mcp/src/call.rs")).unwrap();
    let compiled = block(&source, "/// ```no_run", "/// ");
    assert!(compiled.len() > 20, "{compiled:?}");
    assert_eq!(
        block(text, "```rust,ignore", ""),
        compiled,
        "{} shows a FormCall example that differs from forms-mcp/src/call.rs's doc example",
        path.display()
    );
}
