//! Mutation fuzzing of the two JSON entry points, deterministic so that CI runs it on every
//! change: every form and host response of the conformance corpus is mutated a few hundred
//! times (bytes flipped, dropped, repeated, JSON tokens spliced in, text cut short) and fed to
//! `DataForm::from_json` and `DataForm::check_response`.
//!
//! Properties: nothing panics; a refusal carries the right code and a message; an accepted form
//! compiles to valid native JSON and its normalized text parses back to the same form; an
//! accepted response's payload, checked again, is accepted with the same payload.

use forms_runtime::{DataForm, ErrorCode};
use serde_json::Value;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// xorshift64*: small, seeded, and the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    ",",
    ":",
    "null",
    "true",
    "-1",
    "1e999",
    "0.5",
    "\\u",
    "\\ud800",
    "\u{feff}",
    "\u{0}",
    "é",
    "\"id\":\"x\"",
    "\"default\":1",
    "file:///",
    "%",
    "\n",
];

fn mutate(rng: &mut Rng, text: &str) -> Vec<u8> {
    let mut b = text.as_bytes().to_vec();
    for _ in 0..=rng.below(3) {
        let at = rng.below(b.len() + 1);
        match rng.below(6) {
            0 if !b.is_empty() => {
                let i = at.min(b.len() - 1);
                b[i] ^= 1 << rng.below(8);
            }
            1 if !b.is_empty() => {
                let end = (at + 1 + rng.below(8)).min(b.len());
                b.drain(at.min(end)..end);
            }
            2 => {
                let t = TOKENS[rng.below(TOKENS.len())];
                b.splice(at..at, t.bytes());
            }
            3 => b.truncate(at),
            4 => {
                let end = (at + 1 + rng.below(40)).min(b.len());
                let piece: Vec<u8> = b[at.min(end)..end].to_vec();
                b.splice(end..end, piece);
            }
            _ => {
                let n = 1 + rng.below(20_000);
                b.splice(at..at, std::iter::repeat_n(b'a', n));
            }
        }
    }
    b
}

fn corpus() -> Vec<(String, Vec<String>)> {
    forms_test_kit::fuzz::corpus::paths()
        .iter()
        .map(|p| {
            let case: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
            let responses = case["responses"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["response"].to_string())
                .collect();
            (case["form"].to_string(), responses)
        })
        .collect()
}

fn check_form_text(text: &str) {
    match DataForm::from_json(text) {
        Ok(form) => {
            let native: Value = serde_json::from_str(form.native_json()).unwrap();
            assert_eq!(native["mode"], "form");
            assert_eq!(DataForm::from_json(&form.to_json()).unwrap(), form);
        }
        Err(e) => {
            assert_eq!(e.code(), ErrorCode::InvalidArguments, "{e}");
            assert!(!e.message().is_empty());
        }
    }
}

fn check_response_text(form: &DataForm, text: &str) {
    match form.check_response(text) {
        Ok(response) => {
            let payload = serde_json::to_string(&response).unwrap();
            let again = form.check_response(&payload).unwrap_or_else(|e| {
                panic!("accepted {text:?}, but its own payload {payload} is refused: {e}")
            });
            assert_eq!(serde_json::to_string(&again).unwrap(), payload);
        }
        Err(e) => {
            assert_eq!(e.code(), ErrorCode::InvalidResponse, "{e}");
            assert!(!e.message().is_empty());
        }
    }
}

#[test]
fn mutated_forms_and_responses_never_panic_and_keep_their_promises() {
    const ROUNDS: usize = 200;
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut forms, mut responses) = (0usize, 0usize);
    for (form_text, response_texts) in corpus() {
        let form = DataForm::from_json(&form_text).unwrap();
        for _ in 0..ROUNDS {
            let bytes = mutate(&mut rng, &form_text);
            // Text that is not UTF-8 never reaches the parser: `&str` cannot hold it.
            let text = String::from_utf8_lossy(&bytes);
            let outcome = catch_unwind(AssertUnwindSafe(|| check_form_text(&text)));
            assert!(outcome.is_ok(), "form input panicked: {text:?}");
            forms += 1;
            for r in &response_texts {
                let bytes = mutate(&mut rng, r);
                let text = String::from_utf8_lossy(&bytes);
                let outcome = catch_unwind(AssertUnwindSafe(|| check_response_text(&form, &text)));
                assert!(outcome.is_ok(), "response input panicked: {text:?}");
                responses += 1;
            }
        }
    }
    assert!(
        forms >= 40 * ROUNDS,
        "the corpus shrank: {forms} mutated forms"
    );
    assert!(responses > forms, "too few responses: {responses}");
}
