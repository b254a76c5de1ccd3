//! The conformance corpus (`tests/corpus/*.json`): every form compiles, its native request has
//! no `default` anywhere (N9), and the runtime's verdict on every host response equals the
//! verdict written in the case file.

use forms_runtime::{DataForm, ErrorCode, Outcome};
use serde_json::Value;
use std::fs;

struct Case {
    file: String,
    value: Value,
}

fn corpus() -> Vec<Case> {
    forms_test_kit::fuzz::corpus::paths()
        .into_iter()
        .map(|p| Case {
            file: p.file_name().unwrap().to_string_lossy().into_owned(),
            value: serde_json::from_str(&fs::read_to_string(&p).unwrap())
                .unwrap_or_else(|e| panic!("{}: not JSON: {e}", p.display())),
        })
        .collect()
}

fn compile(case: &Case) -> DataForm {
    DataForm::from_json(&case.value["form"].to_string())
        .unwrap_or_else(|e| panic!("{}: the form does not compile: {e}", case.file))
}

/// Every object key anywhere in `v`, with its path.
fn keys(v: &Value, path: &str, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                let p = format!("{path}.{k}");
                out.push(p.clone());
                keys(child, &p, out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                keys(child, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn corpus_is_large_and_well_formed() {
    let cases = corpus();
    assert!(cases.len() >= 40, "only {} cases", cases.len());
    let mut names = std::collections::BTreeSet::new();
    for case in &cases {
        let v = &case.value;
        let name = v["name"].as_str().unwrap();
        assert!(names.insert(name.to_owned()), "duplicate name {name}");
        assert!(
            case.file.ends_with(&format!("-{name}.json")),
            "{}: file name does not match its name {name}",
            case.file
        );
        let responses = v["responses"].as_array().unwrap();
        assert!(!responses.is_empty(), "{}: no responses", case.file);
        for r in responses {
            assert!(r["accepted"].is_boolean(), "{}: {r}", case.file);
            assert!(
                r["why"].as_str().is_some_and(|w| !w.is_empty()),
                "{}: {r}",
                case.file
            );
        }
    }
    // Both verdicts are represented across the corpus.
    let verdicts: Vec<bool> = cases
        .iter()
        .flat_map(|c| c.value["responses"].as_array().unwrap().clone())
        .map(|r| r["accepted"].as_bool().unwrap())
        .collect();
    assert!(verdicts.iter().filter(|a| **a).count() >= 40);
    assert!(verdicts.iter().filter(|a| !**a).count() >= 40);
}

#[test]
fn n9_corpus_native_requests_have_no_default() {
    for case in corpus() {
        let form = compile(&case);
        let native: Value = serde_json::from_str(form.native_json()).unwrap();
        assert_eq!(native["mode"], "form", "{}", case.file);
        let mut all = Vec::new();
        keys(&native, "", &mut all);
        let bad: Vec<&String> = all.iter().filter(|k| k.ends_with(".default")).collect();
        assert!(bad.is_empty(), "{}: {bad:?}", case.file);
        assert!(
            !form.native_json().contains("\"implicit\""),
            "{}: implicit selection",
            case.file
        );
    }
}

#[test]
fn corpus_verdicts_match() {
    let mut mismatches = Vec::new();
    let mut checked = 0;
    for case in corpus() {
        let form = compile(&case);
        for (i, r) in case.value["responses"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
        {
            checked += 1;
            let expected = r["accepted"].as_bool().unwrap();
            let response = &r["response"];
            let from_value = form.check_response_value(response);
            let from_text = form.check_response(&response.to_string());
            assert_eq!(
                from_value.is_ok(),
                from_text.is_ok(),
                "{} response {i}: text and value checks disagree",
                case.file
            );
            match &from_value {
                Ok(Outcome::Accepted(_)) => {
                    assert_eq!(response["action"], "accept", "{} response {i}", case.file);
                }
                Ok(Outcome::Declined) => assert_eq!(response["action"], "decline"),
                Ok(Outcome::Cancelled) => assert_eq!(response["action"], "cancel"),
                Err(e) => assert_eq!(e.code(), ErrorCode::InvalidResponse, "{}", case.file),
            }
            if from_value.is_ok() != expected {
                mismatches.push(format!(
                    "{} response {i} ({}): expected {}, got {}",
                    case.file,
                    r["why"].as_str().unwrap_or(""),
                    if expected { "accept" } else { "reject" },
                    match &from_value {
                        Ok(_) => "accepted".to_owned(),
                        Err(e) => format!("rejected: {}", e.message()),
                    }
                ));
            }
        }
    }
    assert!(checked >= 200, "only {checked} responses");
    assert!(
        mismatches.is_empty(),
        "{} verdicts differ:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}
