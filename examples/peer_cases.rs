//! Prints the conformance corpus (`tests/corpus/*.json`, sorted by name) as JSON lines for
//! `peer-check`: one line per case,
//! `{"name":…,"request":<native request params>,"responses":[{"response":…,"accepted":<verdict>}]}`,
//! where the request is compiled by the runtime and every verdict is the runtime's own answer
//! checker's (`DataForm::check_response_value`).
//!
//! ```text
//! cargo run -q --example peer_cases > /tmp/peer.jsonl && ../shared/tools/peer-check /tmp/peer.jsonl
//! ```
//!
//! An optional argument names another corpus directory.
//!
//! Where the Data contract is stricter than the native protocol, the peer accepts responses
//! that the runtime refuses; peer-check lists them as "stricter". They are expected:
//! - required text that is empty or only whitespace (V3): `text-required` #3, #4;
//!   `mixed-required-missing` #4; `whitespace-required-text-variants` #1, #2;
//! - `""` for an optional `single_select` (V4: one exact option ID): `single-select-optional` #3;
//! - `""` or `[]` for an optional scalar `resource` (V5): `resource-template-seed-example` #2,
//!   #4; `resource-two-scalar-questions` #4; `twelve-questions-all-types` #6;
//! - duplicate URIs in `resources` and `files` (V6; native resource arrays have no
//!   `uniqueItems`): `resources-optional-defaults` #4; `files-no-options-no-accept` #6;
//!   `files-with-offered-options` #4;
//! - `files` items that are neither offered URIs nor local `file:` URIs of R27 (with
//!   `userOptions` the peer takes any URI): `files-no-options-no-accept` #4;
//!   `files-with-offered-options` #3; `files-24-offered-options` #3; `files-bad-user-uris` #1–#5.
//!
//! (#n is the index of the response in the case file.)

use serde_json::Value;
use std::error::Error;
use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

fn main() -> Result<(), Box<dyn Error>> {
    let dir = match std::env::args_os().nth(1) {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus"),
    };
    let mut paths: Vec<PathBuf> = fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    if paths.is_empty() {
        return Err(format!("{}: no *.json case files", dir.display()).into());
    }

    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for path in &paths {
        let line = case_line(path).map_err(|e| format!("{}: {e}", path.display()))?;
        writeln!(out, "{line}")?;
    }
    out.flush()?;
    Ok(())
}

/// One JSON line for the case file at `path`.
fn case_line(path: &Path) -> Result<String, Box<dyn Error>> {
    let case: Value = serde_json::from_str(&fs::read_to_string(path)?)?;
    let name = case
        .get("name")
        .and_then(Value::as_str)
        .ok_or("the case has no string \"name\"")?;
    let form_args = case.get("form").ok_or("the case has no \"form\"")?;
    let form = forms_runtime::DataForm::from_json(&form_args.to_string())
        .map_err(|e| format!("the form does not compile: {e}"))?;
    let responses = case
        .get("responses")
        .and_then(Value::as_array)
        .ok_or("the case has no \"responses\" array")?;

    // The native request is written as the runtime serializes it, so its key order is the
    // runtime's (properties in question order).
    let mut line = format!(
        "{{\"name\":{},\"request\":{},\"responses\":[",
        serde_json::to_string(name)?,
        form.native_json()
    );
    for (i, r) in responses.iter().enumerate() {
        let response = r
            .get("response")
            .ok_or_else(|| format!("responses[{i}] has no \"response\""))?;
        let accepted = form.check_response_value(response).is_ok();
        if i > 0 {
            line.push(',');
        }
        line.push_str(&format!(
            "{{\"response\":{},\"accepted\":{accepted}}}",
            serde_json::to_string(response)?
        ));
    }
    line.push_str("]}");
    Ok(line)
}
