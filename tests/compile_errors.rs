//! Compile-time checks of `#[derive(Form)]` and `form!`: one concept per file under
//! `tests/ui/derive_*` and `tests/ui/form_macro`, with the expected compiler output beside it.
//! Regenerate with `TRYBUILD=overwrite` and read every changed `.stderr` like code.
//! `tests/ui/derive_rustc` holds the errors that come from rustc itself (trait bounds, const
//! evaluation) and `tests/ui/form_macro/types` run-time values of the wrong type (rustc's trait
//! errors, worded by our `#[diagnostic::on_unimplemented]` notes): their wording may change
//! between compilers.
//!
//! All in one batch of compile-fail cases only: trybuild then checks them in one cargo run,
//! each case compiled once (a batch that also holds a passing case is built case by case).
//! The derives that must compile, `tests/ui/pass_derive`, are test targets of their own
//! (Cargo.toml, `pass_derive_*`), built with the other tests.

#[test]
fn compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/derive_*/*.rs");
    // Our own messages.
    t.compile_fail("tests/ui/form_macro/*.rs");
    t.compile_fail("tests/ui/form_macro/types/*.rs");
}

/// A user pins these messages in their own `.stderr` files: none may name an item of this
/// crate's private API (`__private`, a generated constant or module) or quote this
/// workspace's source, or a refactor here would break their snapshots.
#[test]
fn compile_errors_name_nothing_private() {
    #![allow(clippy::unwrap_used)]
    let ui = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui");
    let private = [
        "__private",
        "__forms",
        "__FORMS",
        "MUST_NOT_EXCEED",
        "GeneratedParts",
        "evaluation of",
        "$FORMS",
        "forms-runtime/src",
        "forms-macros/src",
        "forms-rules/src",
        env!("CARGO_MANIFEST_DIR"),
    ];
    let mut dirs = vec![ui];
    let (mut checked, mut found) = (0, Vec::new());
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "stderr") {
                checked += 1;
                let text = std::fs::read_to_string(&path).unwrap();
                for (n, line) in text.lines().enumerate() {
                    if private.iter().any(|p| line.contains(p)) {
                        found.push(format!("{}:{}: {line}", path.display(), n + 1));
                    }
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} .stderr files under tests/ui");
    assert!(
        found.is_empty(),
        "private names in compile errors:\n{}",
        found.join("\n")
    );
}
