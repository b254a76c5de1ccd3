//! The cross-checks every target and replay runs. Each panics, naming the input, when two
//! paths of the runtime disagree or a promise is broken.

use super::json::{self, Json, Parsed};
use forms_runtime::data::QuestionSpec;
use forms_runtime::{Answers, DataForm, ErrorCode, FileRefView, FormError, Outcome};

/// R4's limit, in UTF-16 code units of compact JSON.
pub const ARGUMENTS_MAX: usize = 1_048_576;

fn refusal(e: &FormError, code: ErrorCode, input: &str) {
    assert_eq!(e.code(), code, "{e} for {}", shown(input));
    assert!(
        !e.message().is_empty(),
        "an empty message for {}",
        shown(input)
    );
}

/// At most 300 characters of an input, for messages.
pub fn shown(text: &str) -> String {
    let mut s: String = text.chars().take(300).collect();
    if s.len() < text.len() {
        s.push_str(&format!("… ({} bytes)", text.len()));
    }
    format!("{s:?}")
}

/// A refusal by the value path agrees with the text path: `by_value`, the refusal of `value`,
/// is worded as `text_path` words the text of `value` in the value's own key order (a `Value`
/// sorts keys, and which problem is found first may depend on the order); a text refusal for
/// which `exempt` holds is not compared. `name` names the text path in a failure.
pub(crate) fn same_refusal<T>(
    name: &str,
    value: &serde_json::Value,
    by_value: &FormError,
    text_path: impl FnOnce(&str) -> Result<T, FormError>,
    exempt: impl FnOnce(&FormError) -> bool,
) {
    let same_order = value.to_string();
    match text_path(&same_order) {
        Err(a) if exempt(&a) => {}
        Err(a) => assert_eq!(
            a.message(),
            by_value.message(),
            "{name} and the value path word the refusal differently: {}",
            shown(&same_order)
        ),
        Ok(_) => panic!("{name} accepts {}", shown(&same_order)),
    }
}

/// (a) Data text vs parsed value vs round trip.
///
/// `DataForm::from_json(text)` and `DataForm::from_value` of the same text parsed by
/// serde_json give the same form or the same message (text with a repeated key, refused by
/// `from_json` only, and text refused by the size scan before parsing are the two
/// exceptions); text serde_json cannot read is refused; an accepted form is within R4 as
/// `JSON.stringify` measures it and passes [`check_accepted_form`]. Returns the form and the
/// strict parse of the text.
pub fn check_form_text(text: &str) -> (Result<DataForm, FormError>, Option<Json>) {
    let from_text = DataForm::from_json(text);
    if let Err(e) = &from_text {
        refusal(e, ErrorCode::InvalidArguments, text);
    }
    let parsed = match json::parse(text) {
        Parsed::NotJson => {
            assert!(
                from_text.is_err(),
                "from_json accepts text serde_json refuses: {}",
                shown(text)
            );
            None
        }
        Parsed::Duplicate => {
            assert!(
                from_text.is_err(),
                "from_json accepts a repeated key: {}",
                shown(text)
            );
            None
        }
        Parsed::Unreadable => None,
        Parsed::Value(v) => {
            // The verdicts agree; the messages are compared with the text of the value in
            // the value's own key order (a `Value` sorts keys, and which problem is found
            // first may depend on the order).
            let value = v.to_value();
            let from_value = DataForm::from_value(&value);
            match (&from_text, &from_value) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(a, b, "from_json and from_value differ on {}", shown(text))
                }
                (Err(_), Err(b)) => {
                    same_refusal("from_json", &value, b, DataForm::from_json, |a| {
                        a.message().contains("refused before parsing")
                    })
                }
                (a, b) => panic!(
                    "from_json says {:?}, from_value says {:?}, for {}",
                    a.as_ref().map(|_| "accepted").map_err(FormError::message),
                    b.as_ref().map(|_| "accepted").map_err(FormError::message),
                    shown(text)
                ),
            }
            if from_text.is_ok() {
                let len = v.js_len();
                assert!(
                    len <= ARGUMENTS_MAX,
                    "accepted {len} UTF-16 units of compact JSON (R4)"
                );
            }
            Some(v)
        }
    };
    if let Ok(form) = &from_text {
        check_accepted_form(form);
    }
    (from_text, parsed)
}

/// What an accepted form promises: its normalized text parses back (as text, as a value and
/// as its model through `DataForm::new`) to an equal form with the same normalized text, and
/// its native request satisfies N1–N10 (checked here, not by the runtime).
pub fn check_accepted_form(form: &DataForm) {
    let normal = form.to_json();
    let again = DataForm::from_json(&normal)
        .unwrap_or_else(|e| panic!("the normalized form {} is refused: {e}", shown(&normal)));
    assert_eq!(
        &again,
        form,
        "normalizing changed the form: {}",
        shown(&normal)
    );
    assert_eq!(again.to_json(), normal, "normalizing is not idempotent");
    let value: serde_json::Value = serde_json::from_str(&normal).unwrap();
    assert_eq!(
        &DataForm::from_value(&value).unwrap(),
        form,
        "from_value of the normal form"
    );
    let rebuilt = DataForm::new(form.spec().clone())
        .unwrap_or_else(|e| panic!("DataForm::new refuses an accepted model: {e}"));
    assert_eq!(&rebuilt, form, "DataForm::new changed the model");
    assert_eq!(rebuilt.native_json(), form.native_json());
    super::native::check_all(form);
}

/// (b) Answer text vs parsed value vs re-check of its own payload.
///
/// `check_response(text)` and `check_response_value` of the same text give the same outcome
/// and payload or the same message (a repeated key is refused by the text path); text
/// serde_json cannot read is refused; an accepted payload, checked again, is accepted with
/// the same payload; the accessors of the answers agree with the payload. Returns the
/// verdict and the payload.
pub fn check_answer_text(form: &DataForm, text: &str) -> Result<String, String> {
    let from_text = check_answer_readers_agree(form, text);
    if let Err(e) = &from_text {
        refusal(e, ErrorCode::InvalidResponse, text);
    }
    let payload = from_text
        .as_ref()
        .map(|o| serde_json::to_string(o).unwrap());
    match json::parse(text) {
        Parsed::NotJson => assert!(
            from_text.is_err(),
            "accepted text serde_json refuses: {}",
            shown(text)
        ),
        Parsed::Duplicate => assert!(
            from_text.is_err(),
            "accepted a repeated key: {}",
            shown(text)
        ),
        Parsed::Unreadable => {}
        Parsed::Value(v) => {
            let value = v.to_value();
            let from_value = form.check_response_value(&value);
            match (&payload, &from_value) {
                (Ok(p), Ok(o)) => assert_eq!(
                    p,
                    &serde_json::to_string(o).unwrap(),
                    "text and value payloads differ for {}",
                    shown(text)
                ),
                (Err(_), Err(b)) => same_refusal(
                    "the text path",
                    &value,
                    b,
                    |t| form.check_response(t),
                    |_| false,
                ),
                (a, b) => panic!(
                    "the text path says {:?}, the value path {:?}, for {}",
                    a.as_ref().map_err(|e| e.message()),
                    b.as_ref().map(|_| "accepted").map_err(FormError::message),
                    shown(text)
                ),
            }
        }
    }
    if let Ok(outcome) = &from_text {
        let p = payload.as_ref().unwrap();
        let again = form
            .check_response(p)
            .unwrap_or_else(|e| panic!("its own payload {} is refused: {e}", shown(p)));
        assert_eq!(
            &serde_json::to_string(&again).unwrap(),
            p,
            "re-checking changed the payload"
        );
        if let Outcome::Accepted(answers) = outcome {
            check_accessors(form, answers, p);
        } else {
            assert!(
                p == r#"{"action":"decline"}"# || p == r#"{"action":"cancel"}"#,
                "{p}"
            );
        }
    }
    payload.map_err(|e| e.message().to_owned())
}

/// The typed accessors of `answers` agree with its serialized `payload`.
pub fn check_accessors(form: &DataForm, answers: &Answers<'_>, payload: &str) {
    let Parsed::Value(p) = json::parse(payload) else {
        panic!("the payload is not strict JSON: {payload}")
    };
    let content = p.get("content").expect("an accepted payload has content");
    let ids: Vec<&str> = form.questions().iter().map(|q| q.id.as_str()).collect();
    let order: Vec<&str> = ids
        .iter()
        .copied()
        .filter(|id| content.get(id).is_some())
        .collect();
    assert_eq!(
        content.keys(),
        order,
        "payload keys are not in question order"
    );
    assert_eq!(answers.answered(), order.len());
    for q in form.questions() {
        let id = q.id.as_str();
        let v = content.get(id);
        assert_eq!(answers.is_answered(id), v.is_some(), "is_answered({id})");
        let Some(v) = v else { continue };
        let strs = || {
            v.as_strs()
                .unwrap_or_else(|| panic!("{id}: {v:?} is not strings"))
        };
        match &q.kind {
            QuestionSpec::Text { .. } => assert_eq!(answers.text(id), v.as_str(), "{id}"),
            QuestionSpec::SingleSelect { .. } => assert_eq!(answers.choice(id), v.as_str(), "{id}"),
            QuestionSpec::MultiSelect { .. } => {
                assert_eq!(answers.choices(id), Some(strs()), "{id}")
            }
            QuestionSpec::Resource { .. } => assert_eq!(answers.resource(id), v.as_str(), "{id}"),
            QuestionSpec::Resources { .. } => {
                assert_eq!(answers.resources(id), Some(strs()), "{id}")
            }
            QuestionSpec::Files { options, .. } => {
                let files = answers.files(id).expect("a files answer");
                let uris: Vec<&str> = files.iter().map(FileRefView::uri).collect();
                assert_eq!(uris, strs(), "{id}");
                for f in &files {
                    match f {
                        FileRefView::Offered { uri } => {
                            assert!(
                                options.iter().any(|o| o.uri == *uri),
                                "{uri} is not offered"
                            )
                        }
                        FileRefView::Local { uri, path } => {
                            // Schemes are case-insensitive (`FILE:///a` is a file URI).
                            let scheme = uri.get(..5).unwrap_or_default();
                            assert!(scheme.eq_ignore_ascii_case("file:"), "local {uri}");
                            assert!(path.starts_with('/'), "local path {path:?} of {uri}");
                        }
                    }
                }
            }
        }
    }
}

/// The runtime's own reader of Data arguments against serde_json's: where the own reader
/// decides, its tree (with the flags that say what was cut and whether it holds floats) or its
/// refusal is serde_json's; and `DataForm::from_json` gives the same form, or the same
/// refusal (code, every finding with its path, rule and words, the counts), as the path that
/// reads with serde_json alone. Returns whether the own reader decided without serde_json.
pub fn check_readers_agree(text: &str) -> bool {
    use forms_runtime::__private::reader;
    let (ours, theirs) = reader::data_trees(text);
    let decided = ours.is_some();
    if let Some(ours) = ours {
        assert_eq!(
            ours,
            theirs,
            "the own reader's tree differs from serde_json's on {}",
            shown(text)
        );
    }
    let fast = DataForm::from_json(text);
    let reference = reader::data_form_from_json_serde(text);
    match (&fast, &reference) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "the forms differ on {}", shown(text)),
        (Err(a), Err(b)) => {
            assert_eq!(a, b, "the refusals differ on {}", shown(text));
            assert_eq!(a.findings(), b.findings(), "on {}", shown(text));
            assert_eq!(a.more_findings(), b.more_findings(), "on {}", shown(text));
        }
        _ => panic!(
            "the verdicts differ on {}: own {:?}, serde_json {:?}",
            shown(text),
            fast.as_ref()
                .map(|_| "accepted")
                .map_err(ToString::to_string),
            reference
                .as_ref()
                .map(|_| "accepted")
                .map_err(ToString::to_string)
        ),
    }
    decided
}

/// `form.check_response(text)` read by the runtime's own reader (with serde_json where it
/// gives up) against serde_json alone: the same answers, or the same refusal with every
/// finding. Returns the former.
pub fn check_answer_readers_agree<'f>(
    form: &'f DataForm,
    text: &str,
) -> Result<forms_runtime::Outcome<forms_runtime::Answers<'f>>, FormError> {
    let ours = form.check_response(text);
    assert_eq!(
        ours,
        forms_runtime::__private::reader::check_response_serde(form, text),
        "the own reader and serde_json disagree on {}",
        shown(text)
    );
    ours
}
