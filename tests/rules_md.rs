//! `RULES.md` defines every rule code the software cites: each `forms_rules::Rule` variant's
//! rustdoc is its rule's sentence in `RULES.md`, every test `RULES.md` names exists, and every
//! code in a message (source string literals, compile-error `.stderr` files, the runtime's
//! verdicts on the conformance corpus) has a section there.

use forms_runtime::DataForm;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Collapses runs of whitespace (line breaks of wrapped text) into single spaces.
fn normalize(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The rule codes in `text`: `R`, `N` or `V` and one or two digits, as a whole word
/// (`\b[RNV][0-9]{1,2}\b`).
fn codes_in(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    for i in 0..chars.len() {
        if !matches!(chars[i], 'R' | 'N' | 'V') || (i > 0 && is_word(chars[i - 1])) {
            continue;
        }
        let digits = chars[i + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        let end = i + 1 + digits;
        if (1..=2).contains(&digits) && chars.get(end).is_none_or(|c| !is_word(*c)) {
            out.push(chars[i..end].iter().collect());
        }
    }
    out
}

/// One `### CODE` section of `RULES.md`.
#[derive(Debug)]
struct Section {
    /// The rule's sentence: the first paragraph after the heading.
    sentence: String,
    applies_to: Option<String>,
    /// The cited tests, as (file, function name).
    tests: Vec<(String, String)>,
}

/// The spans between backticks in `line`.
fn backticked(line: &str) -> Vec<&str> {
    line.split('`').skip(1).step_by(2).collect()
}

/// Parses the `### CODE` sections of `RULES.md`. A section runs to the next `##` or `###`
/// heading; its first paragraph is the rule, then `- Applies to: …` and `- Tests: `file`:
/// `name`, `name`; `file`: `name``.
fn parse_rules_md(text: &str) -> BTreeMap<String, Section> {
    let mut sections = BTreeMap::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let Some(code) = lines[i].strip_prefix("### ") else {
            i += 1;
            continue;
        };
        let code = code.trim();
        i += 1;
        if codes_in(code) != [code] {
            continue; // a heading that is not a rule code
        }
        while i < lines.len() && lines[i].trim().is_empty() {
            i += 1;
        }
        let mut sentence = String::new();
        while i < lines.len() && !lines[i].trim().is_empty() && !lines[i].starts_with('#') {
            sentence.push_str(lines[i]);
            sentence.push(' ');
            i += 1;
        }
        let mut section = Section {
            sentence: normalize(&sentence),
            applies_to: None,
            tests: Vec::new(),
        };
        while i < lines.len() && !lines[i].starts_with("## ") && !lines[i].starts_with("### ") {
            let line = lines[i];
            if let Some(rest) = line.strip_prefix("- Applies to:") {
                section.applies_to = Some(rest.trim().to_owned());
            } else if let Some(rest) = line.strip_prefix("- Tests:") {
                let mut file = None;
                for span in backticked(rest) {
                    if span.ends_with(".rs") {
                        file = Some(span.to_owned());
                    } else {
                        let file = file
                            .clone()
                            .unwrap_or_else(|| panic!("{code}: test `{span}` before any file"));
                        section.tests.push((file, span.to_owned()));
                    }
                }
            }
            i += 1;
        }
        assert!(
            sections.insert(code.to_owned(), section).is_none(),
            "RULES.md: {code} has two sections"
        );
    }
    sections
}

fn rules() -> BTreeMap<String, Section> {
    parse_rules_md(&read("RULES.md"))
}

/// The variants of `forms_rules::Rule` with their rustdoc text, read from `lib.rs`.
fn rule_variants() -> Vec<(String, String)> {
    let src = read("forms-rules/src/lib.rs");
    let start = src
        .find("pub enum Rule {")
        .expect("lib.rs has `pub enum Rule`");
    let mut variants = Vec::new();
    let mut doc = String::new();
    for line in src[start..].lines().skip(1) {
        let line = line.trim();
        if line == "}" {
            break;
        }
        if let Some(d) = line.strip_prefix("///") {
            doc.push_str(d);
            doc.push(' ');
        } else if let Some(name) = line.strip_suffix(',') {
            variants.push((name.to_owned(), normalize(&doc)));
            doc.clear();
        } else if !line.is_empty() && !line.starts_with("#[") {
            panic!("Rule enum: unexpected line {line:?}");
        }
    }
    variants
}

#[test]
fn rules_md_defines_every_rule_once_with_its_types_and_tests() {
    let rules = rules();
    let expected: BTreeSet<String> = (1..=27)
        .map(|n| format!("R{n}"))
        .chain((1..=10).map(|n| format!("N{n}")))
        .chain((1..=8).map(|n| format!("V{n}")))
        .collect();
    let found: BTreeSet<String> = rules.keys().cloned().collect();
    assert_eq!(found, expected, "RULES.md's rule sections");
    for (code, s) in &rules {
        assert!(
            s.sentence.ends_with('.') && !s.sentence.starts_with('-'),
            "{code}: the rule is not one sentence: {:?}",
            s.sentence
        );
        assert!(
            s.applies_to.as_deref().is_some_and(|a| !a.is_empty()),
            "{code}: no `- Applies to:` line"
        );
        assert!(!s.tests.is_empty(), "{code}: no `- Tests:` line");
    }
}

#[test]
fn rule_variant_docs_are_the_sentences_of_rules_md() {
    let rules = rules();
    let variants = rule_variants();
    assert!(
        variants.len() >= 35,
        "only {} Rule variants",
        variants.len()
    );
    for (name, doc) in &variants {
        // The variant's code is its name (`Rule::R6` prints "R6").
        let section = rules
            .get(name)
            .unwrap_or_else(|| panic!("Rule::{name} has no section in RULES.md"));
        assert!(!doc.is_empty(), "Rule::{name} has no rustdoc");
        assert_eq!(
            doc, &section.sentence,
            "Rule::{name}: the rustdoc (left) differs from RULES.md (right)"
        );
    }
}

/// Whether `src` defines `fn name(` as a `#[test]` function.
fn defines_test(src: &str, name: &str) -> bool {
    let lines: Vec<&str> = src.lines().collect();
    let head = format!("fn {name}(");
    lines.iter().enumerate().any(|(i, line)| {
        line.trim_start().starts_with(&head)
            && lines[..i]
                .iter()
                .rev()
                .map(|l| l.trim())
                .take_while(|l| l.starts_with("#[") || l.starts_with("//"))
                .any(|l| l.starts_with("#[test]"))
    })
}

#[test]
fn every_cited_test_exists() {
    let mut missing = Vec::new();
    let mut cited = 0;
    for (code, s) in rules() {
        for (file, name) in &s.tests {
            cited += 1;
            let path = root().join(file);
            let src = fs::read_to_string(&path).unwrap_or_default();
            if !defines_test(&src, name) {
                missing.push(format!("{code}: no #[test] fn {name} in {file}"));
            }
        }
    }
    assert!(cited >= 45, "only {cited} tests cited");
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// The text of the string literals of Rust source `src` (plain, byte and raw strings), skipping
/// comments and character literals.
fn string_literals(src: &str) -> Vec<String> {
    let c: Vec<char> = src.chars().collect();
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if ch == '\'' {
            // A character literal ('x', '\n', '\u{..}') or a lifetime ('a).
            if at(i + 1) == '\\' {
                i += 2;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
            }
        } else if ch == 'r'
            && (at(i + 1) == '"' || at(i + 1) == '#')
            && (i == 0 || !is_word(c[i - 1]) || (c[i - 1] == 'b' && (i < 2 || !is_word(c[i - 2]))))
        {
            // A raw string: r"…", r#"…"#, br"…".
            let mut j = i + 1;
            let mut hashes = 0;
            while at(j) == '#' {
                hashes += 1;
                j += 1;
            }
            if at(j) != '"' {
                i += 1;
                continue;
            }
            j += 1;
            let start = j;
            let close: String = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            let rest: String = c[start..].iter().collect();
            let len = rest
                .find(&close)
                .map_or(rest.len(), |n| rest[..n].chars().count());
            out.push(c[start..start + len].iter().collect());
            i = start + len + 1 + hashes;
        } else if ch == '"' {
            let mut j = i + 1;
            let mut s = String::new();
            while j < c.len() && c[j] != '"' {
                if c[j] == '\\' {
                    s.push(c[j]);
                    j += 1;
                }
                if let Some(&x) = c.get(j) {
                    s.push(x);
                }
                j += 1;
            }
            out.push(s);
            i = j + 1;
        } else {
            i += 1;
        }
    }
    out
}

/// Every `.rs` and `.stderr` file under `dir`, recursively.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs" || x == "stderr") {
            out.push(path);
        }
    }
}

/// The rule codes the software can print, with where each was first seen: the string literals
/// and `Rule::` paths of the crates' sources, and the compile errors of the trybuild tests.
fn printed_codes() -> BTreeMap<String, String> {
    let mut files = Vec::new();
    for dir in [
        "forms-runtime/src",
        "forms-rules/src",
        "forms-macros/src",
        "forms-cli/src",
        "tests/ui",
    ] {
        sources(&root().join(dir), &mut files);
    }
    assert!(files.len() >= 20, "only {} source files", files.len());
    let mut codes = BTreeMap::new();
    for path in files {
        let text = fs::read_to_string(&path).unwrap();
        let rel = path.strip_prefix(root()).unwrap().display().to_string();
        let mut found = Vec::new();
        if rel.ends_with(".stderr") {
            found.extend(codes_in(&text));
        } else {
            for lit in string_literals(&text) {
                found.extend(codes_in(&lit));
            }
            for (i, _) in text.match_indices("Rule::") {
                let after = &text[i + "Rule::".len()..];
                let ident: String = after.chars().take_while(|c| is_word(*c)).collect();
                if codes_in(&ident) == [ident.as_str()] {
                    found.push(ident);
                }
            }
        }
        for code in found {
            codes.entry(code).or_insert_with(|| rel.clone());
        }
    }
    codes
}

#[test]
fn string_literal_scanner_finds_codes_only_in_strings() {
    let src = r##"
        // a comment citing R99
        let a = "must start with an ASCII letter (R6)"; /* R98 */
        let b = r#"see rule R20 "quoted""#;
        let c = '"'; let d = "V3\" and N10"; let e = 'x'; fn f<'a>() {}
        let g = "R100 and XR5 and R5x";
    "##;
    let lits = string_literals(src);
    let codes: Vec<String> = lits.iter().flat_map(|l| codes_in(l)).collect();
    assert_eq!(codes, ["R6", "R20", "V3", "N10"], "{lits:?}");
}

#[test]
fn every_code_in_a_message_is_in_rules_md() {
    let rules = rules();
    let codes = printed_codes();
    // The scan sees the messages: the codes used most are there.
    for code in ["R1", "R6", "R26", "V1"] {
        assert!(codes.contains_key(code), "the scan found no {code}");
    }
    let undefined: Vec<String> = codes
        .iter()
        .filter(|(code, _)| !rules.contains_key(*code))
        .map(|(code, file)| format!("{code} (in {file})"))
        .collect();
    assert!(
        undefined.is_empty(),
        "codes cited but not defined in RULES.md: {}",
        undefined.join(", ")
    );
}

#[test]
fn every_code_in_a_corpus_verdict_is_in_rules_md() {
    let rules = rules();
    let paths = forms_test_kit::fuzz::corpus::paths();
    let mut refused = 0;
    let mut problems = Vec::new();
    for path in &paths {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let case: Value = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
        let form = DataForm::from_json(&case["form"].to_string())
            .unwrap_or_else(|e| panic!("{file}: the form does not compile: {e}"));
        for (i, r) in case["responses"].as_array().unwrap().iter().enumerate() {
            // The runtime's message, and any message or reason the case file writes down.
            let mut messages: Vec<String> = ["message", "error", "why"]
                .iter()
                .filter_map(|k| r[*k].as_str().map(str::to_owned))
                .collect();
            if let Err(e) = form.check_response_value(&r["response"]) {
                refused += 1;
                if codes_in(e.message()).is_empty() {
                    problems.push(format!(
                        "{file} response {i}: {:?} cites no rule",
                        e.message()
                    ));
                }
                messages.push(e.message().to_owned());
            }
            for m in &messages {
                for code in codes_in(m) {
                    if !rules.contains_key(&code) {
                        problems.push(format!("{file} response {i}: {code} in {m:?}"));
                    }
                }
            }
        }
    }
    assert!(refused >= 40, "only {refused} refused responses");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
