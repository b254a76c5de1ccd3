//! Helpers shared by the derive tests.

/// The Data arguments (`"form"`) of the conformance case `tests/corpus/<name>.json`, as JSON
/// text. Derived forms are compared with these cases, and the cases are peer-checked.
pub fn corpus_form(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let case: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()));
    assert!(case["form"].is_object(), "{}: no \"form\"", path.display());
    case["form"].to_string()
}
