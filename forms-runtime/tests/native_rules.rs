//! Rules N1–N10: the native request a validated form compiles to.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod seeds;

use forms_runtime::data::{ChoiceOption, FormSpec, Image, Question, QuestionSpec, ResourceOption};
use forms_runtime::DataForm;
use serde_json::{json, Value};

fn question(id: &str, title: &str, required: bool, kind: QuestionSpec) -> Question {
    Question {
        id: id.into(),
        title: title.into(),
        description: None,
        required,
        kind,
    }
}

fn text(id: &str, required: bool) -> Question {
    question(id, id, required, QuestionSpec::Text { max_length: None })
}

fn form(message: &str, questions: Vec<Question>) -> DataForm {
    DataForm::new(FormSpec {
        message: message.into(),
        questions,
    })
    .unwrap()
}

fn choice(id: &str, title: &str) -> ChoiceOption {
    ChoiceOption {
        id: id.into(),
        title: title.into(),
        description: None,
        thumbnail: None,
    }
}

fn resource(n: u32) -> ResourceOption {
    ResourceOption::new(
        format!("https://example.com/r/{n}"),
        format!("r{n}"),
        format!("Document · R{n}"),
    )
}

/// The native params, parsed back.
fn native(f: &DataForm) -> Value {
    let text = f.native_json();
    let parsed: Value = serde_json::from_str(text).unwrap();
    assert_eq!(parsed, serde_json::to_value(f.native()).unwrap());
    parsed
}

fn prop(f: &DataForm, id: &str) -> Value {
    native(f)["requestedSchema"]["properties"][id].clone()
}

#[test]
fn n1_request_envelope_and_required_list() {
    let f = form(
        "Set up your report",
        vec![
            text("a", false),
            text("b", true),
            text("c", false),
            text("d", true),
        ],
    );
    assert_eq!(
        native(&f),
        json!({
            "mode": "form",
            "message": "Set up your report",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "a": {"type": "string", "title": "a", "maxLength": 4000},
                    "b": {"type": "string", "title": "b", "maxLength": 4000},
                    "c": {"type": "string", "title": "c", "maxLength": 4000},
                    "d": {"type": "string", "title": "d", "maxLength": 4000},
                },
                "required": ["b", "d"],
            }
        })
    );
    // The required list follows question order, not alphabetical order.
    let f = form("Order", vec![text("zeta", true), text("alpha", true)]);
    assert_eq!(
        native(&f)["requestedSchema"]["required"],
        json!(["zeta", "alpha"])
    );
    // No required question: the key is omitted, not written as [].
    let f = form("Optional only", vec![text("a", false), text("b", false)]);
    let schema = native(&f)["requestedSchema"].clone();
    assert!(schema.get("required").is_none(), "{schema}");
    assert!(!f.native_json().contains("required"));
}

#[test]
fn n1_property_order_is_question_order() {
    let ids = [
        "zulu", "alpha", "mike", "Bravo", "echo", "x-ray", "a_1", "delta",
    ];
    let f = form("Order", ids.iter().map(|id| text(id, false)).collect());
    let json = f.native_json();
    let positions: Vec<usize> = ids
        .iter()
        .map(|id| json.find(&format!("\"{id}\":{{")).unwrap())
        .collect();
    let mut sorted = positions.clone();
    sorted.sort_unstable();
    assert_eq!(positions, sorted, "{json}");
    // And the keys inside a property start with "type".
    assert!(json.contains(r#""zulu":{"type":"string","title":"zulu","maxLength":4000}"#));
}

#[test]
fn n2_text_always_has_max_length() {
    let mut q = question(
        "goal",
        "Goal",
        true,
        QuestionSpec::Text {
            max_length: Some(16_000),
        },
    );
    q.description = Some("What you want to learn".into());
    let f = form("Tell us", vec![q, text("notes", false)]);
    assert_eq!(
        prop(&f, "goal"),
        json!({"type": "string", "title": "Goal", "description": "What you want to learn",
               "maxLength": 16000})
    );
    // Default written out, no description key when there is none.
    assert_eq!(
        prop(&f, "notes"),
        json!({"type": "string", "title": "notes", "maxLength": 4000})
    );
    let f = form(
        "Tell us",
        vec![question(
            "x",
            "X",
            false,
            QuestionSpec::Text {
                max_length: Some(1),
            },
        )],
    );
    assert_eq!(prop(&f, "x")["maxLength"], json!(1));
}

#[test]
fn n3_single_select_one_of() {
    let mut pdf = choice("pdf", "PDF");
    pdf.description = Some("Printable".into());
    pdf.thumbnail = Some(Image {
        src: "https://example.com/pdf.png".into(),
        mime_type: Some("image/png".into()),
    });
    let mut web = choice("web", "Web page");
    web.thumbnail = Some(Image::new("data:image/webp;base64,UklGRg=="));
    let mut q = question(
        "format",
        "Report format",
        true,
        QuestionSpec::SingleSelect {
            options: vec![pdf, web, choice("txt", "Plain text")],
        },
    );
    q.description = Some("How to deliver it".into());
    let f = form("Set up your report", vec![q]);
    assert_eq!(
        prop(&f, "format"),
        json!({
            "type": "string",
            "title": "Report format",
            "description": "How to deliver it",
            "oneOf": [
                {"const": "pdf", "title": "PDF", "description": "Printable",
                 "x-openai-thumbnail": {"src": "https://example.com/pdf.png", "mimeType": "image/png"}},
                {"const": "web", "title": "Web page",
                 "x-openai-thumbnail": {"src": "data:image/webp;base64,UklGRg=="}},
                {"const": "txt", "title": "Plain text"},
            ]
        })
    );
    assert!(!f.native_json().contains("enum"));
    assert!(!f.native_json().contains("x-openai-preview"));
}

#[test]
fn n4_multi_select_any_of_with_limits() {
    let options: Vec<ChoiceOption> = (0..5).map(|i| choice(&format!("o{i}"), "O")).collect();
    let f = form(
        "Sections",
        vec![
            question(
                "given",
                "Given",
                false,
                QuestionSpec::MultiSelect {
                    options: options.clone(),
                    min_items: Some(2),
                    max_items: Some(3),
                },
            ),
            question(
                "req",
                "Required",
                true,
                QuestionSpec::MultiSelect {
                    options: options.clone(),
                    min_items: None,
                    max_items: None,
                },
            ),
            question(
                "opt",
                "Optional",
                false,
                QuestionSpec::MultiSelect {
                    options: vec![choice("only", "Only")],
                    min_items: None,
                    max_items: None,
                },
            ),
        ],
    );
    let any_of: Vec<Value> = (0..5)
        .map(|i| json!({"const": format!("o{i}"), "title": "O"}))
        .collect();
    assert_eq!(
        prop(&f, "given"),
        json!({"type": "array", "title": "Given",
               "items": {"type": "string", "anyOf": any_of},
               "minItems": 2, "maxItems": 3})
    );
    assert_eq!(prop(&f, "req")["minItems"], json!(1));
    assert_eq!(prop(&f, "req")["maxItems"], json!(5));
    assert_eq!(
        prop(&f, "opt"),
        json!({"type": "array", "title": "Optional",
               "items": {"type": "string", "anyOf": [{"const": "only", "title": "Only"}]},
               "minItems": 0, "maxItems": 1})
    );
    assert!(!f.native_json().contains("oneOf"));
}

#[test]
fn n5_resource_is_a_uri_string_with_resource_input() {
    let mut q = question(
        "template",
        "Relevant report templates",
        false,
        QuestionSpec::Resource {
            options: vec![resource(1), resource(2)],
        },
    );
    q.description = Some("Pick one".into());
    let f = form("Choose a report template", vec![q]);
    let n = native(&f);
    assert_eq!(
        n["requestedSchema"]["properties"]["template"],
        json!({
            "type": "string",
            "format": "uri",
            "title": "Relevant report templates",
            "description": "Pick one",
            "x-openai-input": {"type": "resource", "options": [
                {"uri": "https://example.com/r/1", "name": "r1", "title": "Document · R1"},
                {"uri": "https://example.com/r/2", "name": "r2", "title": "Document · R2"},
            ]}
        })
    );
    // Optional: not in the required list; scalar fields carry no selection mode or limits.
    assert!(n["requestedSchema"].get("required").is_none());
    let json = f.native_json();
    for forbidden in [
        "selection",
        "minItems",
        "maxItems",
        "oneOf",
        "enum",
        "userOptions",
    ] {
        assert!(!json.contains(forbidden), "{forbidden} in {json}");
    }
}

#[test]
fn n6_resources_explicit_selection() {
    let f = form(
        "Sources",
        vec![
            question(
                "docs",
                "Documents",
                true,
                QuestionSpec::Resources {
                    options: vec![resource(1), resource(2), resource(3)],
                    min_items: None,
                    max_items: None,
                },
            ),
            question(
                "more",
                "More",
                false,
                QuestionSpec::Resources {
                    options: vec![resource(1), resource(2), resource(3)],
                    min_items: Some(2),
                    max_items: Some(2),
                },
            ),
        ],
    );
    let options = json!([
        {"uri": "https://example.com/r/1", "name": "r1", "title": "Document · R1"},
        {"uri": "https://example.com/r/2", "name": "r2", "title": "Document · R2"},
        {"uri": "https://example.com/r/3", "name": "r3", "title": "Document · R3"},
    ]);
    assert_eq!(
        prop(&f, "docs"),
        json!({
            "type": "array",
            "title": "Documents",
            "items": {"type": "string", "format": "uri"},
            "minItems": 1,
            "maxItems": 3,
            "x-openai-input": {"type": "resource", "options": options, "selection": "explicit"}
        })
    );
    assert_eq!(prop(&f, "more")["minItems"], json!(2));
    assert_eq!(prop(&f, "more")["maxItems"], json!(2));
    assert!(prop(&f, "more")["x-openai-input"]
        .get("userOptions")
        .is_none());
    assert_eq!(native(&f)["requestedSchema"]["required"], json!(["docs"]));
}

#[test]
fn n7_files_user_options() {
    let f = form(
        "Upload your data",
        vec![
            question(
                "data",
                "Upload your data",
                false,
                QuestionSpec::Files {
                    options: vec![],
                    min_items: None,
                    max_items: None,
                    accept: Some(vec![".csv".into(), "text/csv".into()]),
                },
            ),
            question(
                "extra",
                "Extra files",
                true,
                QuestionSpec::Files {
                    options: vec![resource(7)],
                    min_items: None,
                    max_items: Some(3),
                    accept: None,
                },
            ),
        ],
    );
    assert_eq!(
        prop(&f, "data"),
        json!({
            "type": "array",
            "title": "Upload your data",
            "items": {"type": "string", "format": "uri"},
            "minItems": 0,
            "maxItems": 24,
            "x-openai-input": {
                "type": "resource",
                "options": [],
                "selection": "explicit",
                "userOptions": {"kind": "file", "accept": [".csv", "text/csv"]}
            }
        })
    );
    assert_eq!(
        prop(&f, "extra"),
        json!({
            "type": "array",
            "title": "Extra files",
            "items": {"type": "string", "format": "uri"},
            "minItems": 1,
            "maxItems": 3,
            "x-openai-input": {
                "type": "resource",
                "options": [{"uri": "https://example.com/r/7", "name": "r7", "title": "Document · R7"}],
                "selection": "explicit",
                "userOptions": {"kind": "file"}
            }
        })
    );
    assert!(!f.native_json().contains("implicit"));
}

#[test]
fn n8_resource_option_fields_and_thumbnail_meta() {
    let mut full = resource(1);
    full.description = Some("Quarterly review deck".into());
    full.mime_type =
        Some("application/vnd.openxmlformats-officedocument.presentationml.presentation".into());
    full.icons = Some(vec![
        Image::new("https://example.com/logo.png"),
        Image {
            src: "data:image/png;base64,iVBORw0KGgo=".into(),
            mime_type: Some("image/png".into()),
        },
    ]);
    full.thumbnail = Some(Image {
        src: "https://sdmntprwestus.oaiusercontent.com/f?sig=abc".into(),
        mime_type: Some("image/jpeg".into()),
    });
    let bare = resource(2);
    let f = form(
        "Choose a report template",
        vec![question(
            "template",
            "Relevant report templates",
            false,
            QuestionSpec::Resource {
                options: vec![full, bare],
            },
        )],
    );
    assert_eq!(
        prop(&f, "template")["x-openai-input"]["options"],
        json!([
            {
                "uri": "https://example.com/r/1",
                "name": "r1",
                "title": "Document · R1",
                "description": "Quarterly review deck",
                "mimeType": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
                "icons": [
                    {"src": "https://example.com/logo.png"},
                    {"src": "data:image/png;base64,iVBORw0KGgo=", "mimeType": "image/png"}
                ],
                "_meta": {"openai/thumbnail": {
                    "src": "https://sdmntprwestus.oaiusercontent.com/f?sig=abc",
                    "mimeType": "image/jpeg"
                }}
            },
            {"uri": "https://example.com/r/2", "name": "r2", "title": "Document · R2"}
        ])
    );
    // The thumbnail is not kept under its Data name.
    assert!(!f.native_json().contains("\"thumbnail\""));
}

#[test]
fn n9_no_default_and_limits_written_out() {
    let f = form(
        "Everything",
        vec![
            text("t", true),
            question(
                "s",
                "S",
                false,
                QuestionSpec::SingleSelect {
                    options: vec![choice("a", "A")],
                },
            ),
            question(
                "m",
                "M",
                true,
                QuestionSpec::MultiSelect {
                    options: vec![choice("a", "A"), choice("b", "B")],
                    min_items: None,
                    max_items: None,
                },
            ),
            question(
                "r",
                "R",
                true,
                QuestionSpec::Resource {
                    options: vec![resource(1)],
                },
            ),
            question(
                "rs",
                "RS",
                false,
                QuestionSpec::Resources {
                    options: vec![resource(1), resource(2)],
                    min_items: None,
                    max_items: None,
                },
            ),
            question(
                "f",
                "F",
                true,
                QuestionSpec::Files {
                    options: vec![],
                    min_items: None,
                    max_items: None,
                    accept: None,
                },
            ),
        ],
    );
    let json = f.native_json();
    assert!(!json.contains("default"), "{json}");
    let n = native(&f);
    let p = &n["requestedSchema"]["properties"];
    assert_eq!(p["t"]["maxLength"], json!(4000));
    assert_eq!(
        (p["m"]["minItems"].clone(), p["m"]["maxItems"].clone()),
        (json!(1), json!(2))
    );
    assert_eq!(
        (p["rs"]["minItems"].clone(), p["rs"]["maxItems"].clone()),
        (json!(0), json!(2))
    );
    assert_eq!(
        (p["f"]["minItems"].clone(), p["f"]["maxItems"].clone()),
        (json!(1), json!(24))
    );
    assert_eq!(
        n["requestedSchema"]["required"],
        json!(["t", "m", "r", "f"])
    );
}

#[test]
fn n10_single_text_question_repeating_the_message() {
    let title = "What would you like to understand?";
    let single = |kind: QuestionSpec, t: &str| form(title, vec![question("goal", t, true, kind)]);
    let text_kind = || QuestionSpec::Text { max_length: None };

    // The redundant header is omitted; the field keeps its title.
    let f = single(text_kind(), title);
    let n = native(&f);
    assert_eq!(n["message"], json!(""));
    assert_eq!(
        n["requestedSchema"]["properties"]["goal"]["title"],
        json!(title)
    );
    assert_eq!(f.native().message(), "");

    // Surrounding whitespace of the message does not make it a different header.
    let f = form(
        &format!("  {title} "),
        vec![question("goal", title, false, text_kind())],
    );
    assert_eq!(native(&f)["message"], json!(""));

    // A different title keeps the message.
    let f = single(text_kind(), "Your goal");
    assert_eq!(native(&f)["message"], json!(title));

    // A single choice question with the same title keeps the message.
    let f = single(
        QuestionSpec::SingleSelect {
            options: vec![choice("a", "A")],
        },
        title,
    );
    assert_eq!(native(&f)["message"], json!(title));

    // Two questions keep the message even when the first repeats it.
    let f = form(
        title,
        vec![
            question("goal", title, true, text_kind()),
            text("more", false),
        ],
    );
    assert_eq!(native(&f)["message"], json!(title));
}

#[test]
fn n3_preview_alias_compiles_to_thumbnail() {
    let f = DataForm::from_json(
        r#"{"message":"Pick a theme","questions":[{"id":"theme","type":"single_select",
            "title":"Theme","required":false,"options":[
              {"id":"light","title":"Light","preview":{"src":"https://example.com/light.png"}},
              {"id":"dark","title":"Dark","thumbnail":{"src":"https://example.com/dark.png","mimeType":"image/png"}},
              {"id":"plain","title":"Plain"}]}]}"#,
    )
    .unwrap();
    assert_eq!(
        prop(&f, "theme")["oneOf"],
        json!([
            {"const": "light", "title": "Light",
             "x-openai-thumbnail": {"src": "https://example.com/light.png"}},
            {"const": "dark", "title": "Dark",
             "x-openai-thumbnail": {"src": "https://example.com/dark.png", "mimeType": "image/png"}},
            {"const": "plain", "title": "Plain"}
        ])
    );
    assert!(!f.native_json().contains("preview"));
}

#[test]
fn n5_n8_seed_example_maps_as_documented() {
    let f = DataForm::from_json(seeds::TEMPLATE_EXAMPLE).unwrap();
    assert_eq!(
        native(&f),
        json!({
            "mode": "form",
            "message": "Choose a report template",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "template": {
                        "type": "string",
                        "format": "uri",
                        "title": "Relevant report templates",
                        "x-openai-input": {
                            "type": "resource",
                            "options": [{
                                "uri": "https://example.com/verified-business-review",
                                "name": "business-review",
                                "title": "Presentation · Business review",
                                "mimeType": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
                                "icons": [{"src": "https://example.com/verified-presentation-logo.png"}],
                                "_meta": {"openai/thumbnail": {"src": "https://example.com/verified-slide-preview.png"}}
                            }]
                        }
                    }
                }
            }
        })
    );
    // Exact text, key order included.
    assert_eq!(
        f.native_json(),
        concat!(
            r#"{"mode":"form","message":"Choose a report template","requestedSchema":{"type":"object","#,
            r#""properties":{"template":{"type":"string","format":"uri","title":"Relevant report templates","#,
            r#""x-openai-input":{"type":"resource","options":[{"uri":"https://example.com/verified-business-review","#,
            r#""name":"business-review","title":"Presentation · Business review","#,
            r#""mimeType":"application/vnd.openxmlformats-officedocument.presentationml.presentation","#,
            r#""icons":[{"src":"https://example.com/verified-presentation-logo.png"}],"#,
            r#""_meta":{"openai/thumbnail":{"src":"https://example.com/verified-slide-preview.png"}}}]}}}}}"#
        )
    );
}
