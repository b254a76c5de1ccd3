//! Bad input to the JSON entry points: every case is an `invalid_arguments` error, never a
//! panic, a stack overflow or a hang.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

use forms_runtime::{DataForm, ErrorCode, FormError};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const VALID: &str = r#"{"message":"Tell me","questions":[{"id":"goal","type":"text","title":"Goal","required":false}]}"#;

fn refused(text: &str) -> FormError {
    let err = DataForm::from_json(text).expect_err("the input must be refused");
    assert_eq!(err.code(), ErrorCode::InvalidArguments, "{}", err.message());
    assert!(!err.message().is_empty());
    err
}

fn refused_value(value: &Value) -> FormError {
    let err = DataForm::from_value(value).expect_err("the input must be refused");
    assert_eq!(err.code(), ErrorCode::InvalidArguments, "{}", err.message());
    err
}

#[test]
fn the_valid_reference_input_is_accepted() {
    DataForm::from_json(VALID).unwrap();
}

#[test]
fn non_json_text_is_refused() {
    for text in [
        "hello",
        "{message: 'x'}",
        "{\"message\":",
        "<xml/>",
        "{,}",
        "'x'",
    ] {
        let err = refused(text);
        assert!(
            err.message().starts_with("arguments: is not valid JSON"),
            "{}",
            err.message()
        );
    }
}

#[test]
fn empty_input_is_refused() {
    for text in ["", "   ", "\n\t"] {
        let err = refused(text);
        assert_eq!(
            err.message(),
            "arguments: is not valid JSON: the text is empty (R3)"
        );
    }
}

#[test]
fn json_that_is_not_an_object_is_refused() {
    for text in ["[]", "[{}]", "null", "true", "42", "\"form\"", "1.5"] {
        let err = refused(text);
        assert!(
            err.message()
                .starts_with("arguments: expected an object with `message` and `questions`"),
            "{}",
            err.message()
        );
        assert!(err.message().ends_with("(R3)"), "{}", err.message());
    }
    let err = refused_value(&json!(["message", "questions"]));
    assert!(
        err.message().contains("found an array (R3)"),
        "{}",
        err.message()
    );
}

#[test]
fn deep_nesting_is_refused_without_overflowing_the_stack() {
    const DEPTH: usize = 100_000;
    let arrays = format!("{}{}", "[".repeat(DEPTH), "]".repeat(DEPTH));
    let err = refused(&arrays);
    assert!(
        err.message().contains("recursion limit exceeded"),
        "{}",
        err.message()
    );

    let objects = format!("{}1{}", "{\"a\":".repeat(DEPTH), "}".repeat(DEPTH));
    let err = refused(&objects);
    assert!(
        err.message().contains("recursion limit exceeded"),
        "{}",
        err.message()
    );

    // Deep nesting inside an otherwise valid form, where a property value is expected.
    let inner = format!(
        r#"{{"message":"Tell me","questions":[{{"id":"goal","type":"text","title":"Goal","required":false,"x":{}1{}}}]}}"#,
        "[".repeat(DEPTH),
        "]".repeat(DEPTH)
    );
    let err = refused(&inner);
    assert!(
        err.message().contains("recursion limit exceeded"),
        "{}",
        err.message()
    );

    // Unclosed: the depth limit trips before the end of the text is reached.
    refused(&"[".repeat(DEPTH));
    refused(&"{\"a\":".repeat(DEPTH));
}

#[test]
fn nesting_up_to_the_limit_is_parsed_and_then_refused_as_unknown() {
    // 120 levels is within serde_json's limit: the text parses, and the property is unknown.
    let text = format!(
        r#"{{"message":"Tell me","questions":[{{"id":"goal","type":"text","title":"Goal","required":false,"x":{}{}}}]}}"#,
        "[".repeat(120),
        "]".repeat(120)
    );
    let err = refused(&text);
    assert!(
        err.message().contains("questions[0].x: is not a property"),
        "{}",
        err.message()
    );
}

#[test]
fn deep_values_are_refused_by_from_value() {
    // A `Value` built in memory has no depth limit; the conversion refuses it.
    let mut value = json!(1);
    for _ in 0..100_000 {
        value = Value::Array(vec![value]);
    }
    let err = refused_value(&value);
    assert!(
        err.message().contains("nest more than 127 levels"),
        "{}",
        err.message()
    );
    let mut deep_form: Value = serde_json::from_str(VALID).unwrap();
    deep_form["questions"][0]["x"] = value;
    let err = refused_value(&deep_form);
    assert!(
        err.message().contains("nest more than 127 levels"),
        "{}",
        err.message()
    );
    // Dropping a 100,000-deep `Value` recurses once per level; leak it instead.
    std::mem::forget(deep_form);
}

#[test]
fn a_two_mib_document_is_refused_before_parsing() {
    // 2 MiB of valid-looking content, deliberately left unterminated: if a tree were built
    // the error would be a JSON syntax error, so an R4 error shows the pre-scan refused it.
    let description = "x".repeat(2 * 1024 * 1024);
    let text = format!(
        r#"{{"message":"Tell me","questions":[{{"id":"goal","type":"text","title":"Goal","required":false,"description":"{description}"}}]"#
    );
    let started = Instant::now();
    let err = refused(&text);
    let took = started.elapsed();
    assert!(
        err.message().contains("refused before parsing (R4)"),
        "{}",
        err.message()
    );
    assert!(
        err.message().starts_with("arguments: "),
        "{}",
        err.message()
    );
    assert!(took < Duration::from_secs(2), "took {took:?}");

    // Non-ASCII text counts by UTF-16 units: 700,000 `😀` are 1.4 M units in 2.8 MB.
    let text = format!(r#"{{"message":"{}"}}"#, "😀".repeat(700_000));
    let err = refused(&text);
    assert!(err.message().contains("(R4)"), "{}", err.message());
}

#[test]
fn text_long_only_in_whitespace_or_escapes_passes_the_pre_scan() {
    // 2 MB of whitespace compacts to nothing.
    let padded = format!("{}{VALID}{}", " ".repeat(1_000_000), "\n".repeat(1_000_000));
    DataForm::from_json(&padded).unwrap();
    // `\u0041` escapes are six bytes but one unit each: 1.2 MB of text, 200 k units.
    let escaped = VALID.replace(
        r#""title":"Goal""#,
        &format!(
            r#""title":"Goal","description":"{}""#,
            r"\u0041".repeat(2_000)
        ),
    );
    DataForm::from_json(&escaped).unwrap();
}

#[test]
fn duplicate_keys_are_refused_at_every_level() {
    let top = r#"{"message":"Tell me","message":"Again","questions":[]}"#;
    let err = refused(top);
    assert!(
        err.message()
            .starts_with("message: repeats a property name (line 1, column"),
        "{}",
        err.message()
    );
    assert!(err.message().ends_with("(R3)"), "{}", err.message());

    let nested = r#"{"message":"Tell me","questions":[{"id":"goal","type":"text","title":"Goal","title":"Other","required":false}]}"#;
    let err = refused(nested);
    assert!(
        err.message()
            .starts_with("questions[0].title: repeats a property name"),
        "{}",
        err.message()
    );

    let deeper = r#"{"message":"Pick","questions":[{"id":"t","type":"resource","title":"T","required":false,"options":[{"uri":"https://e.com/a","name":"a","title":"A","thumbnail":{"src":"https://e.com/p.png","src":"https://e.com/q.png"}}]}]}"#;
    let err = refused(deeper);
    assert!(
        err.message()
            .starts_with("questions[0].options[0].thumbnail.src: repeats a property name"),
        "{}",
        err.message()
    );

    // An unknown property repeated is still a duplicate, even in a large object.
    let many: String = (0..40).map(|i| format!(r#""k{i}":1,"#)).collect();
    let big = format!(r#"{{{many}"k7":2,"message":"m","questions":[]}}"#);
    let err = refused(&big);
    assert!(
        err.message().starts_with("k7: repeats a property name"),
        "{}",
        err.message()
    );

    // Keys equal after unescaping are the same key.
    let escaped = r#"{"message":"Tell me","mess\u0061ge":"x","questions":[]}"#;
    let err = refused(escaped);
    assert!(
        err.message().contains("repeats a property name"),
        "{}",
        err.message()
    );
}

#[test]
fn numbers_where_strings_belong_are_refused() {
    let text = r#"{"message":5,"questions":[{"id":7,"type":"text","title":1.5,"required":false}]}"#;
    let err = refused(text);
    for part in [
        "message: expected a string, found a number (R1)",
        "questions[0].id: expected a string, found a number (R6)",
        "questions[0].title: expected a string, found a number (R8)",
    ] {
        assert!(err.message().contains(part), "{part} in {}", err.message());
    }
}

#[test]
fn null_for_optional_fields_is_refused() {
    let text = r#"{"message":"Tell me","questions":[{"id":"goal","type":"text","title":"Goal","description":null,"required":false,"maxLength":null}]}"#;
    let err = refused(text);
    assert!(
        err.message().contains(
            "questions[0].description: expected a string, found null; leave an optional \
             property out instead of writing null (R9)"
        ),
        "{}",
        err.message()
    );
    assert!(
        err.message()
            .contains("questions[0].maxLength: expected an integer, found null"),
        "{}",
        err.message()
    );
    let text = r#"{"message":"Pick","questions":[{"id":"t","type":"resource","title":"T","required":false,"options":[{"uri":"https://e.com/a","name":"a","title":"A","icons":null,"thumbnail":null}]}]}"#;
    let err = refused(text);
    assert!(
        err.message()
            .contains("questions[0].options[0].icons: expected an array of images, found null"),
        "{}",
        err.message()
    );
    assert!(
        err.message().contains(
            "questions[0].options[0].thumbnail: expected an image object with `src`, found null"
        ),
        "{}",
        err.message()
    );
}

#[test]
fn lone_surrogates_are_refused() {
    for s in [
        r"\ud800",
        r"\udc00",
        r"\ud800x",
        r"\ud800\u0041",
        r"\ud83d\ud83d",
    ] {
        let text = VALID.replace("Tell me", s);
        let err = refused(&text);
        assert!(
            err.message().starts_with("arguments: is not valid JSON:"),
            "{}",
            err.message()
        );
        assert!(
            err.message().contains("surrogate") || err.message().contains("escape"),
            "{}",
            err.message()
        );
    }
    // A proper pair is a character outside the Basic Multilingual Plane.
    let form = DataForm::from_json(&VALID.replace("Tell me", r"Tell me \ud83d\ude00")).unwrap();
    assert_eq!(form.message(), "Tell me 😀");
}

#[test]
fn trailing_garbage_is_refused() {
    for tail in ["x", "{}", ",", "]", " 1", "\n{\"a\":1}"] {
        let err = refused(&format!("{VALID}{tail}"));
        assert!(
            err.message().contains("trailing characters"),
            "{}",
            err.message()
        );
    }
    // Trailing whitespace is not garbage.
    DataForm::from_json(&format!("{VALID} \n\t\r")).unwrap();
}

#[test]
fn a_byte_order_mark_is_refused() {
    let err = refused(&format!("\u{feff}{VALID}"));
    assert_eq!(
        err.message(),
        "arguments: is not valid JSON: the text starts with a byte order mark (U+FEFF) (R3)"
    );
}

#[test]
fn nan_and_infinity_literals_are_refused() {
    for lit in [
        "NaN",
        "Infinity",
        "-Infinity",
        "nan",
        "inf",
        "1e999",
        "-1e999",
        "0x10",
        "+1",
        "01",
    ] {
        let text = VALID.replace(
            r#""required":false"#,
            &format!(r#""required":false,"maxLength":{lit}"#),
        );
        let err = refused(&text);
        assert!(
            err.message().starts_with("arguments: is not valid JSON:"),
            "{lit}: {}",
            err.message()
        );
    }
}

#[test]
fn wrong_shapes_everywhere_are_reported_together() {
    let text = r#"{"message":"Pick","questions":[
        "not a question",
        {"id":"a","type":"single_select","title":"A","required":false,"options":["x",{"id":"ok","title":"OK"}]},
        {"id":"b","type":"resources","title":"B","required":"yes","options":{"uri":"x"}},
        {"id":"c","type":"files","title":"C","required":false,"accept":".csv","minItems":"1"},
        {"id":"d","type":"resource","title":"D","required":false,"options":[{"uri":"https://e.com/d","name":"d","title":"D","icons":[1]}]}
    ]}"#;
    let err = refused(text);
    for part in [
        "questions[0]: expected a question object, found a string (R2)",
        "questions[1].options[0]: expected a choice option object, found a string (R23)",
        "questions[2].required: expected a boolean, found a string",
        "questions[2].options: expected an array of options, found an object (R15)",
        "questions[3].accept: expected an array of strings, found a string (R22)",
        "questions[3].minItems: expected an integer, found a string (R18)",
        "questions[4].options[0].icons[0]: expected an image object with `src`, found a number (R25)",
    ] {
        assert!(err.message().contains(part), "{part} in {}", err.message());
    }
    // Placeholders for broken values produce no follow-on findings.
    assert!(
        !err.message().contains("questions[0].id"),
        "{}",
        err.message()
    );
    assert!(
        !err.message().contains("questions[1].options[0].id"),
        "{}",
        err.message()
    );
    assert!(
        !err.message()
            .contains("questions[4].options[0].icons[0].src"),
        "{}",
        err.message()
    );
}

#[test]
fn arbitrary_bytes_never_panic() {
    // A small deterministic fuzz: mutations of a valid form must parse or be refused cleanly.
    let base = r#"{"message":"Pick","questions":[{"id":"a","type":"multi_select","title":"A","required":true,"minItems":1,"maxItems":2,"options":[{"id":"x","title":"X","preview":{"src":"https://e.com/x.png"}},{"id":"y","title":"Y"}]},{"id":"f","type":"files","title":"F","required":false,"accept":[".csv"],"options":[{"uri":"https://e.com/f?a=1","name":"f","title":"F","icons":[{"src":"data:image/png;base64,AAAA","mimeType":"image/png"}]}]}]}"#;
    DataForm::from_json(base).unwrap();
    let bytes = base.as_bytes();
    let alphabet: &[u8] = b"{}[]\",:0123456789-.eE\\u tfnaxy";
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..5_000 {
        let mut m = bytes.to_vec();
        for _ in 0..(next() % 4 + 1) {
            let at = (next() as usize) % m.len();
            let c = alphabet[(next() as usize) % alphabet.len()];
            match next() % 3 {
                0 => m[at] = c,
                1 => m.insert(at, c),
                _ => {
                    m.remove(at);
                }
            }
        }
        let Ok(text) = String::from_utf8(m) else {
            continue;
        };
        match DataForm::from_json(&text) {
            Ok(form) => assert_eq!(DataForm::from_json(&form.to_json()).unwrap(), form),
            Err(e) => assert_eq!(e.code(), ErrorCode::InvalidArguments),
        }
    }
}

#[test]
fn large_hostile_forms_are_checked_in_linear_time() {
    // Tens of thousands of options just under 1 MiB, each with a finding. Uniqueness checks
    // and the bookkeeping of broken values are hash-based, so these take milliseconds in a
    // release build; a quadratic pass would take minutes. The bound only guards against that.
    fn options_form(option: impl Fn(usize) -> String, n: usize) -> String {
        let options: Vec<String> = (0..n).map(option).collect();
        format!(
            r#"{{"message":"m","questions":[{{"id":"q","type":"single_select","title":"T","required":false,"options":[{}]}}]}}"#,
            options.join(",")
        )
    }
    let cases = [
        options_form(|_| r#"{"title":"t"}"#.to_owned(), 70_000),
        options_form(|i| format!(r#"{{"id":"a{i}","title":"t"}}"#), 36_000),
        options_form(|_| r#"{"id":"a","title":"t"}"#.to_owned(), 45_000),
        options_form(
            |i| format!(r#"{{"id":"a{i}","title":"t","preview":{{"src":"x"}}}}"#),
            20_000,
        ),
    ];
    let started = Instant::now();
    for text in &cases {
        assert!(text.len() < 1_048_576);
        let err = refused(text);
        assert!(err
            .message()
            .contains("questions[0].options: must have at most 24 options"));
        assert!(
            err.message().len() < 20_000,
            "the message lists at most 50 findings"
        );
    }
    let took = started.elapsed();
    assert!(took < Duration::from_secs(30), "took {took:?}");
}

#[test]
fn text_and_values_share_the_depth_limit() {
    // 127 nested arrays parse (and are then refused as the wrong shape); 128 do not.
    let nested = |depth: usize| {
        let mut v = json!(1);
        for _ in 0..depth {
            v = Value::Array(vec![v]);
        }
        v
    };
    for (depth, parses) in [(127, true), (128, false)] {
        let text = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        let from_text = refused(&text);
        let from_value = refused_value(&nested(depth));
        assert_eq!(
            from_text.message().contains("expected an object"),
            parses,
            "{depth}: {}",
            from_text.message()
        );
        assert_eq!(
            from_value.message().contains("expected an object"),
            parses,
            "{depth}: {}",
            from_value.message()
        );
    }
}
