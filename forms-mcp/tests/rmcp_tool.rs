//! The guide's complete rmcp `#[tool]` server (`examples/rmcp_tool.rs`): chapter 4 of the guide
//! (`docs/04-mcp-serving-and-asking.md`) shows the file as it is, and the official MCP Python SDK's `Client` drives it over stdio on both
//! protocol generations (accept, decline, a refused answer, a form with run-time options).
//!
//! The Python part needs `FORMS_INTEROP_PY` from `.ci/interop-setup`; without it the test says
//! loudly that it was skipped, and with `CI=true` it fails.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod interop;

use forms_test_kit::bins;
use interop::*;
use serde_json::{json, Value};

#[test]
fn the_guide_shows_the_example_file_as_it_is() {
    let readme = include_str!("../../docs/04-mcp-serving-and-asking.md");
    let example = include_str!("../examples/rmcp_tool.rs");
    let at = readme
        .find("<!-- rmcp-tool-example -->\n```rust,ignore\n")
        .expect("the guide's rmcp tool example");
    let shown = &readme[at..];
    let shown = &shown[shown.find('\n').unwrap() + 1..];
    let shown = &shown[shown.find('\n').unwrap() + 1..];
    let shown = &shown[..shown.find("\n```\n").expect("the closing fence") + 1];
    assert!(example.contains("fn main()"), "{example}");
    assert_eq!(
        shown, example,
        "the guide's copy of examples/rmcp_tool.rs differs"
    );
}

/// The text of a tool result, and whether it is an error.
fn text_of(out: &Value) -> (String, bool) {
    let result = &out["result"];
    assert!(out["error"].is_null(), "{out}");
    let text = result["content"][0]["text"].as_str().unwrap().to_owned();
    (text, result["isError"] == json!(true))
}

fn drive(mode: &str, protocol: &str) {
    let Some(python) = python() else { return };
    let memo = "https://templates.example/trip/memo";
    let config = json!({
        "server": bins::example("rmcp_tool"), "mode": mode,
        "cases": {
            "accept": {"tool": "plan_trip", "answer":
                {"action": "accept", "content": {"destination": "Lisbon", "notes": "by train"}}},
            "decline": {"tool": "plan_trip", "answer": {"action": "decline"}},
            "refused": {"tool": "plan_trip", "answer":
                {"action": "accept", "content": {"notes": "no destination"}}},
            "options": {"tool": "pick_template", "arguments": {"topic": "trip"},
                "answer": {"action": "accept", "content": {"template": memo}}},
            "not_offered": {"tool": "pick_template", "arguments": {"topic": "trip"},
                "answer": {"action": "accept",
                    "content": {"template": "https://templates.example/trip/other"}}},
            "nothing_found": {"tool": "pick_template", "arguments": {"topic": "nothing"},
                "answer": {"action": "accept", "content": {}}},
        },
    });
    let report = run_driver(&python, "python_tool_client.py", &[], &config);
    let cases = &report["cases"];
    // A required question with nothing to offer: the tool's own error, a JSON-RPC error
    // naming the rule, and no form shown.
    let nothing = &cases["nothing_found"];
    let error = nothing["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("the tool's form could not be built") && error.contains("(R14)"),
        "{nothing}"
    );
    assert!(!error.contains("invalid_arguments"), "{nothing}");
    assert!(nothing["result"].is_null(), "{nothing}");
    assert_eq!(nothing["host"]["requests"], json!([]), "{nothing}");
    for (name, out) in cases.as_object().unwrap() {
        if name == "nothing_found" {
            continue;
        }
        assert_eq!(out["protocol"], protocol, "{name}: {out}");
        assert_eq!(
            out["host"]["requests"].as_array().unwrap().len(),
            1,
            "{name}: {out}"
        );
    }
    assert_eq!(
        text_of(&cases["accept"]),
        ("Trip to Lisbon (by train).".to_owned(), false)
    );
    let (declined, is_error) = text_of(&cases["decline"]);
    assert!(!is_error, "{declined}");
    assert_eq!(
        serde_json::from_str::<Value>(&declined).unwrap(),
        json!({"action": "decline"})
    );
    assert_eq!(
        text_of(&cases["options"]),
        (format!("Template: {memo}."), false)
    );
    for name in ["refused", "not_offered"] {
        let (text, is_error) = text_of(&cases[name]);
        assert!(is_error, "{name}: {text}");
        let error: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(error["error"]["code"], "invalid_response", "{name}: {text}");
    }
}

#[test]
fn python_client_drives_the_readme_example_on_2026_07_28() {
    drive("auto", MODERN);
}

#[test]
fn python_client_drives_the_readme_example_on_2025_11_25() {
    drive("legacy", LEGACY);
}
