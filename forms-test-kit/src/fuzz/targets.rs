//! The bodies of the fuzz targets, callable from the replay test with the same bytes.

use super::checks::{
    check_accepted_form, check_answer_text, check_form_text, shown, ARGUMENTS_MAX,
};
use super::corpus;
use super::gen::Gen;
use super::json::{Json, Parsed};
use arbitrary::Unstructured;
use forms_runtime::{DataForm, ErrorCode};

/// (a) `data_form`: the input is Data arguments text.
pub fn data_form(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = check_form_text(text);
    }
}

/// (b) `answer`: `case-name\nresponse`, the response checked against the corpus form the
/// first line names (see [`corpus::pick`]).
pub fn answer(data: &[u8]) {
    let (case, rest) = corpus::pick(data);
    if let Ok(text) = std::str::from_utf8(rest) {
        let _ = check_answer_text(&case.form, text);
    }
}

/// (c) `typed`: `case-name\nresponse` for one of the derived forms ([`super::typed::NAMES`];
/// another first line picks one by its bytes).
pub fn typed(data: &[u8]) {
    let (head, rest) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (&[][..], data),
    };
    let i = super::typed::NAMES
        .iter()
        .position(|n| n.as_bytes() == head)
        .unwrap_or_else(|| head.iter().map(|&b| usize::from(b)).sum());
    if let Ok(text) = std::str::from_utf8(rest) {
        super::typed::check_response(i, text);
    }
}

/// Asserts that a generated valid form is accepted exactly when it fits R4, with the expected
/// model; returns it when accepted.
pub fn expect_valid_form(
    json: &Json,
    spec: &forms_runtime::data::FormSpec,
    text: &str,
) -> Option<DataForm> {
    let (result, _) = check_form_text(text);
    let fits = json.js_len() <= ARGUMENTS_MAX;
    match result {
        Ok(form) => {
            assert!(fits, "accepted {} UTF-16 units", json.js_len());
            assert_eq!(
                form.spec(),
                spec,
                "the model differs from the generated one: {}",
                shown(text)
            );
            Some(form)
        }
        Err(e) => {
            assert!(
                !fits && e.message().contains("(R4)"),
                "a valid form of {} UTF-16 units is refused: {e}\n{}",
                json.js_len(),
                shown(text)
            );
            None
        }
    }
}

/// Asserts that a synthesized valid answer is accepted, and runs the answer cross-checks.
pub fn expect_valid_answer(form: &DataForm, response: &Json) {
    let text = response.compact();
    if let Err(e) = check_answer_text(form, &text) {
        panic!(
            "a valid answer is refused: {e}\nform: {}\nanswer: {}",
            shown(&form.to_json()),
            shown(&text)
        );
    }
}

/// Asserts that an answer mutated to break one of `rules` is refused with `invalid_response`
/// citing one of them.
pub fn expect_refused_answer(form: &DataForm, response: &Json, rules: &[&str]) {
    let text = response.compact();
    match form.check_response(&text) {
        Ok(_) => panic!(
            "an answer that breaks {rules:?} is accepted\nform: {}\nanswer: {}",
            shown(&form.to_json()),
            shown(&text)
        ),
        Err(e) => {
            assert_eq!(e.code(), ErrorCode::InvalidResponse);
            assert!(
                rules
                    .iter()
                    .any(|r| e.message().contains(&format!("({r})"))),
                "refused, but not for {rules:?}: {e}\nanswer: {}",
                shown(&text)
            );
        }
    }
    let _ = check_answer_text(form, &text);
}

/// Replaces one string somewhere in `v` (the `pick`-th, in document order) by `by`.
fn replace_string(v: &mut Json, pick: &mut usize, by: &str) -> bool {
    match v {
        Json::Str(s) => {
            if *pick == 0 {
                *s = by.to_owned();
                return true;
            }
            *pick -= 1;
            false
        }
        Json::Arr(a) => a.iter_mut().any(|x| replace_string(x, pick, by)),
        Json::Obj(m) => m.iter_mut().any(|(_, x)| replace_string(x, pick, by)),
        _ => false,
    }
}

/// Applies one structural mutation somewhere in `v` (the `pick`-th node in document order).
fn mutate_node(g: &mut Gen<'_, '_>, v: &mut Json, pick: &mut usize) -> bool {
    if *pick == 0 {
        match g.below(8) {
            0 => *v = Json::Null,
            1 => {
                *v = Json::Num(
                    g.pick(&[0u64, 1, 24, 25, 80, 81, 16_000, 16_001, u64::MAX])
                        .into(),
                )
            }
            2 => *v = Json::Str(String::new()),
            3 => {
                if let Json::Obj(m) = v {
                    let key = g.pick(&[
                        "default",
                        "_meta",
                        "selection",
                        "userOptions",
                        "preview",
                        "extra",
                    ]);
                    m.push((key.to_owned(), Json::Bool(true)));
                }
            }
            4 => {
                if let Json::Obj(m) = v {
                    if !m.is_empty() {
                        let i = g.below(m.len());
                        m.remove(i);
                    }
                }
            }
            5 => {
                if let Json::Arr(a) = v {
                    if let Some(x) = a.first().cloned() {
                        let n = g.pick(&[1usize, 23, 24, 25, 1000]);
                        a.extend(std::iter::repeat_n(x, n));
                    }
                }
            }
            6 => *v = Json::Arr(vec![v.clone()]),
            _ => *v = Json::Bool(g.chance(2)),
        }
        return true;
    }
    *pick -= 1;
    match v {
        Json::Arr(a) => a.iter_mut().any(|x| mutate_node(g, x, pick)),
        Json::Obj(m) => m.iter_mut().any(|(_, x)| mutate_node(g, x, pick)),
        _ => false,
    }
}

fn parsed(text: &str) -> Json {
    match super::json::parse(text) {
        Parsed::Value(v) => v,
        other => panic!("not strict JSON ({other:?}): {}", shown(text)),
    }
}

/// Strings at and around the contract's length limits, in characters of several widths.
fn edge_string(g: &mut Gen<'_, '_>) -> String {
    let n = g.pick(&[
        0usize, 1, 63, 64, 65, 80, 81, 500, 501, 1000, 1001, 2000, 2001, 8192, 8193,
    ]);
    let c = g.pick(&['a', 'é', '😀', ' ', '\u{feff}', '\u{85}', '"']);
    let mut s: String = std::iter::repeat_n(c, n).collect();
    if g.chance(2) {
        s = format!("https://example.com/{s}");
    }
    s
}

/// (d) `structured`: the bytes drive [`Gen`]: a generated valid form (up to and beyond
/// 1 MiB) is accepted exactly when it fits; a synthesized answer is accepted, and each
/// V-breaking mutation of it refused; mutated corpus forms and answers go through the
/// cross-checks of (a) and (b).
pub fn structured(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let mode = u.int_in_range(0..=4u8).unwrap_or(0);
    let budget = match u.int_in_range(0..=3u8).unwrap_or(0) {
        0 => 2_000,
        1 => 50_000,
        2 => 900_000,
        _ => 1_200_000,
    };
    let mut g = Gen::new(&mut u, budget);
    match mode {
        0 | 1 => {
            let (json, spec) = g.form();
            let style = g.style();
            let text = json.write(&style);
            let Some(form) = expect_valid_form(&json, &spec, &text) else {
                return;
            };
            for _ in 0..1 + g.below(4) {
                let response = g.answer(&form);
                expect_valid_answer(&form, &response);
                if let Some((bad, rules)) = g.break_answer(&form, &response) {
                    expect_refused_answer(&form, &bad, &rules);
                }
            }
        }
        2 => {
            // A corpus form, mutated in its structure or its strings.
            let cases = corpus::cases();
            let case = &cases[g.below(cases.len())];
            let mut v = parsed(&case.form_text);
            for _ in 0..1 + g.below(3) {
                let mut pick = g.below(400);
                if g.chance(2) {
                    let s = edge_string(&mut g);
                    replace_string(&mut v, &mut pick, &s);
                } else {
                    mutate_node(&mut g, &mut v, &mut pick);
                }
            }
            let style = g.style();
            let _ = check_form_text(&v.write(&style));
        }
        3 => {
            // Answers to a corpus form: synthesized, broken, mutated.
            let cases = corpus::cases();
            let case = &cases[g.below(cases.len())];
            check_accepted_form(&case.form);
            let response = g.answer(&case.form);
            expect_valid_answer(&case.form, &response);
            if let Some((bad, rules)) = g.break_answer(&case.form, &response) {
                expect_refused_answer(&case.form, &bad, &rules);
            }
            let mut v = response;
            let mut pick = g.below(60);
            mutate_node(&mut g, &mut v, &mut pick);
            let _ = check_answer_text(&case.form, &v.compact());
        }
        _ => {
            // Large answers: long text, many items, many keys, up to about 1 MiB.
            let cases = corpus::cases();
            let case = &cases[g.below(cases.len())];
            let mut response = g.answer(&case.form);
            if let Some(content) = response.get_mut("content") {
                let n = g.pick(&[100usize, 4001, 16_001, 100_000, 1_000_000]);
                let q = &case.form.questions()[g.below(case.form.questions().len())];
                let big = match g.below(3) {
                    0 => Json::Str("é".repeat(n / 2)),
                    1 => Json::strs(std::iter::repeat_n("x", n / 4)),
                    _ => Json::Obj((0..n / 16).map(|i| (format!("k{i}"), Json::Null)).collect()),
                };
                content.set(&q.id, big);
            }
            let _ = check_answer_text(&case.form, &response.compact());
        }
    }
}

/// (e) `reader`: the runtime's own JSON reader against serde_json. The input is read as Data
/// arguments ([`super::checks::check_readers_agree`]) and, as `case-name\nresponse`, as a
/// response to a corpus form ([`super::checks::check_answer_readers_agree`]).
pub fn reader(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        super::checks::check_readers_agree(text);
    }
    let (case, rest) = corpus::pick(data);
    if let Ok(text) = std::str::from_utf8(rest) {
        let _ = super::checks::check_answer_readers_agree(&case.form, text);
    }
}
