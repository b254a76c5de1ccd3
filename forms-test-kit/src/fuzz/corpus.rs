//! The conformance corpus (`tests/corpus/*.json`, sorted by file name), loaded once.

use forms_runtime::DataForm;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// One case file: its form, compiled, and its host responses as compact JSON text.
pub struct Case {
    /// The case's `name`.
    pub name: String,
    /// The Data arguments, as compact JSON text.
    pub form_text: String,
    /// The compiled form.
    pub form: DataForm,
    /// Each response as compact JSON text, with the verdict the case file gives it.
    pub responses: Vec<(String, bool)>,
}

/// The corpus directory, found from the crate that compiles this file (the root package or
/// `fuzz/`).
pub fn dir() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    [here.join("tests/corpus"), here.join("../tests/corpus")]
        .into_iter()
        .find(|d| d.is_dir())
        .unwrap_or_else(|| panic!("no tests/corpus next to {}", here.display()))
}

/// The case files (`*.json` in [`dir`]), in file-name order.
pub fn paths() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    paths
}

/// Every case, in file-name order.
pub fn cases() -> &'static [Case] {
    static CASES: OnceLock<Vec<Case>> = OnceLock::new();
    CASES.get_or_init(load)
}

fn load() -> Vec<Case> {
    paths()
        .iter()
        .map(|p| {
            let v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
            let form_text = v["form"].to_string();
            let form =
                DataForm::from_json(&form_text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let responses = v["responses"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| (r["response"].to_string(), r["accepted"].as_bool().unwrap()))
                .collect();
            Case {
                name: v["name"].as_str().unwrap().to_owned(),
                form_text,
                form,
                responses,
            }
        })
        .collect()
}

/// The case named `name`.
pub fn case(name: &str) -> &'static Case {
    cases()
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no corpus case {name}"))
}

/// Splits a fuzz input `case-name\nrest` into the case it names and the rest. A first line
/// that names no case picks one by a hash of its bytes, so every input exercises some form;
/// an input without a newline is all `rest`, on the first case.
pub fn pick(data: &[u8]) -> (&'static Case, &[u8]) {
    let cases = cases();
    let (head, rest) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (&[][..], data),
    };
    let named = cases.iter().find(|c| c.name.as_bytes() == head);
    let case = named.unwrap_or_else(|| {
        let h = head.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
        &cases[(h % cases.len() as u64) as usize]
    });
    (case, rest)
}
