//! The MCP tool descriptor: sections, annotations, limits, and a structural check of Data
//! arguments against its input schema.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod seeds;

use forms_runtime::mcp::{id_pattern, tool_descriptor, SCHEMA_DIALECT, TOOL_NAME};
use forms_runtime::rules::limits;
use forms_runtime::DataForm;
use serde_json::{json, Value};

fn descriptor_json() -> Value {
    serde_json::to_value(tool_descriptor()).unwrap()
}

fn schema() -> Value {
    descriptor_json()["inputSchema"].clone()
}

/// A small validator for the keywords the descriptor uses. It refuses any keyword it does not
/// know, so the schema cannot grow a constraint the tests silently ignore.
/// `n` (a length, a count or a value) within the schema keywords `min` and `max` of `obj`,
/// where present; else `path` and the failure named beside the keyword.
fn within(
    obj: &serde_json::Map<String, Value>,
    n: u64,
    (min, below): (&str, &str),
    (max, above): (&str, &str),
    path: &str,
) -> Result<(), String> {
    if obj.get(min).is_some_and(|m| n < m.as_u64().unwrap()) {
        return Err(format!("{path}: {below}"));
    }
    if obj.get(max).is_some_and(|m| n > m.as_u64().unwrap()) {
        return Err(format!("{path}: {above}"));
    }
    Ok(())
}

struct Validator<'a> {
    root: &'a Value,
}

impl Validator<'_> {
    fn validate(&self, schema: &Value, value: &Value, path: &str) -> Result<(), String> {
        let obj = schema.as_object().expect("schema nodes are objects");
        for key in obj.keys() {
            let known = [
                "$schema",
                "$ref",
                "$defs",
                "type",
                "description",
                "enum",
                "format",
                "pattern",
                "minLength",
                "maxLength",
                "minimum",
                "maximum",
                "items",
                "minItems",
                "maxItems",
                "uniqueItems",
                "properties",
                "required",
                "additionalProperties",
                "not",
                "oneOf",
            ];
            assert!(known.contains(&key.as_str()), "unknown keyword {key}");
        }
        if let Some(r) = obj.get("$ref") {
            let name = r.as_str().unwrap().strip_prefix("#/$defs/").unwrap();
            self.validate(&self.root["$defs"][name], value, path)?;
        }
        if let Some(ty) = obj.get("type") {
            let ok = match ty.as_str().unwrap() {
                "object" => value.is_object(),
                "array" => value.is_array(),
                "string" => value.is_string(),
                "integer" => value.is_i64() || value.is_u64(),
                "boolean" => value.is_boolean(),
                other => panic!("unexpected type {other}"),
            };
            if !ok {
                return Err(format!("{path}: not of type {ty}"));
            }
        }
        if let Some(e) = obj.get("enum") {
            if !e.as_array().unwrap().contains(value) {
                return Err(format!("{path}: not in enum {e}"));
            }
        }
        if let Some(s) = value.as_str() {
            let len = s.chars().count() as u64;
            within(
                obj,
                len,
                ("minLength", "too short"),
                ("maxLength", "too long"),
                path,
            )?;
            if let Some(p) = obj.get("pattern").and_then(Value::as_str) {
                // Only the patterns the descriptor uses are interpreted.
                let ok = if p == "\\S" {
                    !s.trim().is_empty()
                } else if p == id_pattern() {
                    forms_runtime::rules::check_id(s).is_ok()
                } else if p.starts_with("^(\\.") {
                    forms_runtime::rules::check_accept_token(s).is_ok()
                } else {
                    panic!("uninterpreted pattern {p}")
                };
                if !ok {
                    return Err(format!("{path}: does not match {p}"));
                }
            }
        }
        if let Some(i) = value.as_u64() {
            within(
                obj,
                i,
                ("minimum", "below minimum"),
                ("maximum", "above maximum"),
                path,
            )?;
        }
        if let Some(arr) = value.as_array() {
            let len = arr.len() as u64;
            within(
                obj,
                len,
                ("minItems", "too few items"),
                ("maxItems", "too many items"),
                path,
            )?;
            if obj.get("uniqueItems") == Some(&Value::Bool(true)) {
                for (i, v) in arr.iter().enumerate() {
                    if arr[..i].contains(v) {
                        return Err(format!("{path}[{i}]: repeated"));
                    }
                }
            }
            if let Some(items) = obj.get("items") {
                for (i, v) in arr.iter().enumerate() {
                    self.validate(items, v, &format!("{path}[{i}]"))?;
                }
            }
        }
        if let Some(map) = value.as_object() {
            let props = obj.get("properties").and_then(Value::as_object);
            if let Some(req) = obj.get("required") {
                for r in req.as_array().unwrap() {
                    if !map.contains_key(r.as_str().unwrap()) {
                        return Err(format!("{path}: missing {r}"));
                    }
                }
            }
            for (k, v) in map {
                match props.and_then(|p| p.get(k)) {
                    Some(s) => self.validate(s, v, &format!("{path}.{k}"))?,
                    None if obj.get("additionalProperties") == Some(&Value::Bool(false)) => {
                        return Err(format!("{path}: unknown property {k}"))
                    }
                    None => {}
                }
            }
        }
        if let Some(not) = obj.get("not") {
            if self.validate(not, value, path).is_ok() {
                return Err(format!("{path}: matches a forbidden shape"));
            }
        }
        if let Some(branches) = obj.get("oneOf") {
            let results: Vec<_> = branches
                .as_array()
                .unwrap()
                .iter()
                .map(|b| self.validate(b, value, path))
                .collect();
            let ok = results.iter().filter(|r| r.is_ok()).count();
            if ok != 1 {
                let why: Vec<_> = results.into_iter().filter_map(Result::err).collect();
                return Err(format!(
                    "{path}: matches {ok} of oneOf ({})",
                    why.join("; ")
                ));
            }
        }
        Ok(())
    }
}

fn check(args: &Value) -> Result<(), String> {
    let root = schema();
    Validator { root: &root }.validate(&root, args, "$")
}

/// The report-template example of the contract text, verbatim.
fn seed_example() -> Value {
    serde_json::from_str(seeds::TEMPLATE_EXAMPLE).unwrap()
}

/// One question of every type, each at a limit.
fn every_type() -> Value {
    let choices: Vec<Value> = (0..limits::OPTIONS_MAX)
        .map(|i| json!({"id": format!("c{i}"), "title": format!("Choice {i}")}))
        .collect();
    json!({
        "message": "x".repeat(limits::MESSAGE_MAX),
        "questions": [
            {"id": "goal", "type": "text", "title": "t".repeat(limits::TITLE_MAX),
             "required": true, "maxLength": limits::MAX_LENGTH_MAX},
            {"id": "format", "type": "single_select", "title": "Format", "required": true,
             "options": [{"id": "pdf", "title": "PDF", "description": "Printable",
                          "preview": {"src": "data:image/png;base64,AAAA"}}]},
            {"id": "sections", "type": "multi_select", "title": "Sections", "required": false,
             "options": choices, "minItems": 0, "maxItems": limits::ITEMS_MAX},
            {"id": "docs", "type": "resources", "title": "Docs", "required": false,
             "options": [{"uri": "https://example.com/a", "name": "a", "title": "Document · A"}],
             "maxItems": 1},
            {"id": "data", "type": "files", "title": "Upload your data", "required": false,
             "accept": [".csv", "text/csv", "image/*"]},
        ]
    })
}

#[test]
fn descriptor_has_the_four_sections_in_order() {
    let d = tool_descriptor();
    let mut at = 0;
    for heading in [
        "When to call",
        "Question types",
        "Build the form",
        "Results and boundaries",
    ] {
        let found = d.description[at..]
            .find(&format!("## {heading}\n"))
            .unwrap_or_else(|| panic!("section {heading} missing or out of order"));
        at += found + heading.len();
    }
    for phrase in [
        "missing and prevents meaningful progress",
        "explicitly asked",
        "Only accepted content supplies answers",
        "Presentation · Business review",
        "icons",
        "thumbnail",
        "There are no defaults",
        "decline",
        "cancel",
    ] {
        assert!(
            d.description.contains(phrase),
            "description lacks {phrase:?}"
        );
    }
    // Limits a JSON schema cannot express are stated in the text.
    assert!(d
        .description
        .contains(&limits::ARGUMENTS_MAX_UTF16.to_string()));
    for kind in forms_runtime::rules::QuestionKind::ALL {
        assert!(d.description.contains(&format!("- {}: ", kind.as_str())));
    }
}

#[test]
fn descriptor_annotations_are_exact_and_there_is_no_output_schema() {
    let d = descriptor_json();
    assert_eq!(
        d["annotations"],
        json!({"readOnlyHint": true, "destructiveHint": false,
               "idempotentHint": false, "openWorldHint": false})
    );
    // Sorted here: a `Value` keeps insertion order when serde_json's `preserve_order` is on
    // (forms-mcp turns it on for the whole workspace build).
    let mut keys: Vec<_> = d.as_object().unwrap().keys().cloned().collect();
    keys.sort_unstable();
    let mut expected = vec!["annotations", "description", "inputSchema", "name"];
    expected.sort_unstable();
    assert_eq!(keys, expected);
    assert!(d.get("outputSchema").is_none());
    assert_eq!(d["name"], TOOL_NAME);
    assert_eq!(TOOL_NAME, "form_elicitation_v2_request");
}

#[test]
fn descriptor_key_order_is_stable() {
    let text = serde_json::to_string(&tool_descriptor()).unwrap();
    let pos = |needle: &str| {
        text.find(needle)
            .unwrap_or_else(|| panic!("{needle} missing"))
    };
    assert!(pos("\"name\"") < pos("\"description\""));
    assert!(pos("\"description\"") < pos("\"inputSchema\""));
    assert!(pos("\"inputSchema\"") < pos("\"annotations\""));
    assert!(text.starts_with("{\"name\":\"form_elicitation_v2_request\""));
    // Properties keep the contract's order, not alphabetical order.
    assert!(pos("\"message\":{") < pos("\"questions\":{"));
    let q = &text[pos("\"oneOf\"")..];
    let at = |k: &str| q.find(&format!("\"{k}\":{{")).unwrap();
    assert!(at("id") < at("type") && at("type") < at("title"));
    assert!(at("title") < at("description") && at("description") < at("required"));
    assert_eq!(text, serde_json::to_string(&tool_descriptor()).unwrap());
}

#[test]
fn descriptor_schema_is_strict_and_has_no_defaults() {
    fn walk(node: &Value, path: &str) {
        match node {
            Value::Object(map) => {
                assert!(!map.contains_key("default"), "{path} has a default");
                if map.get("type") == Some(&json!("object")) {
                    assert_eq!(
                        map.get("additionalProperties"),
                        Some(&json!(false)),
                        "{path} is not strict"
                    );
                    assert!(map.contains_key("required"), "{path} lists no required");
                }
                for (k, v) in map {
                    if k != "properties" && k != "$defs" && k != "required" && k != "enum" {
                        walk(v, &format!("{path}.{k}"));
                    } else if let Value::Object(children) = v {
                        for (c, s) in children {
                            walk(s, &format!("{path}.{k}.{c}"));
                        }
                    }
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    walk(v, &format!("{path}[{i}]"));
                }
            }
            _ => {}
        }
    }
    let s = schema();
    assert_eq!(s["$schema"], SCHEMA_DIALECT);
    assert_eq!(s["type"], "object");
    assert_eq!(s["required"], json!(["message", "questions"]));
    walk(&s, "$");
}

#[test]
fn descriptor_type_enum_lists_the_six_types_with_their_required_fields() {
    let s = schema();
    let branches = s["properties"]["questions"]["items"]["oneOf"]
        .as_array()
        .unwrap();
    let types: Vec<_> = branches
        .iter()
        .map(|b| b["properties"]["type"]["enum"][0].as_str().unwrap())
        .collect();
    assert_eq!(types, seeds::QUESTION_TYPES);
    for b in branches {
        let ty = b["properties"]["type"]["enum"][0].as_str().unwrap();
        let required: Vec<_> = b["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let with_options = !matches!(ty, "text" | "files");
        let mut expected = vec!["id", "type", "title", "required"];
        if with_options {
            expected.push("options");
        }
        assert_eq!(required, expected, "{ty}");
        let props = b["properties"].as_object().unwrap();
        let limits_allowed = matches!(ty, "multi_select" | "resources" | "files");
        assert_eq!(props.contains_key("minItems"), limits_allowed, "{ty}");
        assert_eq!(props.contains_key("maxItems"), limits_allowed, "{ty}");
        assert_eq!(props.contains_key("maxLength"), ty == "text", "{ty}");
        assert_eq!(props.contains_key("accept"), ty == "files", "{ty}");
        for field in ["id", "title", "required"] {
            let d = props[field]["description"].as_str().unwrap_or_default();
            assert!(!d.is_empty(), "{ty}.{field} has no description");
        }
    }
}

#[test]
fn descriptor_schema_carries_every_limit() {
    let s = schema();
    let p = &s["properties"];
    let q = |ty: usize| s["properties"]["questions"]["items"]["oneOf"][ty]["properties"].clone();
    let defs = &s["$defs"];
    let u = |v: usize| json!(v);
    assert_eq!(p["message"]["maxLength"], u(limits::MESSAGE_MAX));
    assert_eq!(p["questions"]["minItems"], u(limits::QUESTIONS_MIN));
    assert_eq!(p["questions"]["maxItems"], u(limits::QUESTIONS_MAX));
    let text = q(0);
    assert_eq!(text["id"]["maxLength"], u(limits::ID_MAX));
    assert_eq!(text["id"]["pattern"], "^[A-Za-z][A-Za-z0-9_-]{0,63}$");
    assert_eq!(text["title"]["maxLength"], u(limits::TITLE_MAX));
    assert_eq!(text["description"]["maxLength"], u(limits::DESCRIPTION_MAX));
    assert_eq!(text["maxLength"]["minimum"], json!(limits::MAX_LENGTH_MIN));
    assert_eq!(text["maxLength"]["maximum"], json!(limits::MAX_LENGTH_MAX));
    let multi = q(2);
    assert_eq!(multi["options"]["minItems"], u(limits::OPTIONS_MIN));
    assert_eq!(multi["options"]["maxItems"], u(limits::OPTIONS_MAX));
    assert_eq!(multi["minItems"]["minimum"], json!(0));
    assert_eq!(multi["minItems"]["maximum"], json!(limits::ITEMS_MAX));
    assert_eq!(multi["maxItems"]["minimum"], json!(limits::MAX_ITEMS_MIN));
    assert_eq!(multi["maxItems"]["maximum"], json!(limits::ITEMS_MAX));
    let files = q(5);
    assert_eq!(files["options"]["minItems"], json!(0));
    assert_eq!(files["options"]["maxItems"], u(limits::OPTIONS_MAX));
    assert_eq!(files["accept"]["minItems"], u(limits::ACCEPT_MIN));
    assert_eq!(files["accept"]["maxItems"], u(limits::ACCEPT_MAX));
    let choice = &defs["choiceOption"]["properties"];
    assert_eq!(choice["title"]["maxLength"], u(limits::OPTION_TITLE_MAX));
    assert_eq!(
        choice["description"]["maxLength"],
        u(limits::OPTION_DESCRIPTION_MAX)
    );
    let res = &defs["resourceOption"]["properties"];
    assert_eq!(res["uri"]["maxLength"], u(limits::URI_MAX));
    assert_eq!(res["name"]["maxLength"], u(limits::OPTION_TITLE_MAX));
    assert_eq!(res["title"]["maxLength"], u(limits::OPTION_TITLE_MAX));
    assert_eq!(
        res["description"]["maxLength"],
        u(limits::OPTION_DESCRIPTION_MAX)
    );
    assert_eq!(res["mimeType"]["maxLength"], u(limits::MIME_TYPE_MAX));
    assert_eq!(res["icons"]["maxItems"], u(limits::ICONS_MAX));
    let image = &defs["image"]["properties"];
    assert_eq!(image["src"]["maxLength"], u(limits::IMAGE_SRC_MAX));
    assert_eq!(image["mimeType"]["maxLength"], u(limits::MIME_TYPE_MAX));
    // The title guidance for resource cards travels with the field.
    let title_doc = res["title"]["description"].as_str().unwrap();
    assert!(title_doc.contains("Presentation · Business review"));
    assert!(res["icons"]["description"]
        .as_str()
        .unwrap()
        .contains("logo"));
}

#[test]
fn descriptor_accepts_the_seed_example_and_one_question_of_every_type() {
    for form in [seed_example(), every_type()] {
        check(&form).unwrap();
        DataForm::from_json(&form.to_string()).unwrap();
    }
}

/// The schema is no stricter than the runtime on the conformance corpus: every form there is
/// valid, and the schema accepts each one.
#[test]
fn descriptor_accepts_every_corpus_form() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let case: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let form = &case["form"];
        DataForm::from_json(&form.to_string())
            .unwrap_or_else(|e| panic!("{}: runtime refused: {e}", path.display()));
        check(form).unwrap_or_else(|e| panic!("{}: schema refused: {e}", path.display()));
        seen += 1;
    }
    assert!(seen >= 40, "only {seen} corpus forms found");
}

#[test]
fn descriptor_refuses_what_the_contract_refuses() {
    type Mutation = (&'static str, fn(&mut Value));
    let mutations: [Mutation; 16] = [
        ("unknown top-level property", |v| v["default"] = json!({})),
        ("unknown question property", |v| {
            v["questions"][0]["default"] = json!("x")
        }),
        ("unknown option property", |v| {
            v["questions"][0]["options"][0]["_meta"] = json!({})
        }),
        ("unknown type", |v| {
            v["questions"][0]["type"] = json!("dropdown")
        }),
        ("missing required", |v| {
            v["questions"][0]
                .as_object_mut()
                .unwrap()
                .remove("required");
        }),
        ("required not boolean", |v| {
            v["questions"][0]["required"] = json!("false")
        }),
        ("limits on a scalar resource", |v| {
            v["questions"][0]["maxItems"] = json!(1)
        }),
        ("message too long", |v| {
            v["message"] = json!("m".repeat(limits::MESSAGE_MAX + 1))
        }),
        ("blank message", |v| v["message"] = json!("   ")),
        ("title too long", |v| {
            v["questions"][0]["title"] = json!("t".repeat(limits::TITLE_MAX + 1))
        }),
        ("bad id", |v| v["questions"][0]["id"] = json!("9template")),
        ("too many questions", |v| {
            let q = v["questions"][0].clone();
            v["questions"] = Value::Array(
                (0..=limits::QUESTIONS_MAX)
                    .map(|i| {
                        let mut q = q.clone();
                        q["id"] = json!(format!("q{i}"));
                        q
                    })
                    .collect(),
            );
        }),
        ("no options", |v| v["questions"][0]["options"] = json!([])),
        ("too many icons", |v| {
            let icon = json!({"src": "https://example.com/i.png"});
            v["questions"][0]["options"][0]["icons"] =
                Value::Array(vec![icon; limits::ICONS_MAX + 1]);
        }),
        ("image with unknown field", |v| {
            v["questions"][0]["options"][0]["thumbnail"]["alt"] = json!("x")
        }),
        ("resource title too long", |v| {
            v["questions"][0]["options"][0]["title"] =
                json!("t".repeat(limits::OPTION_TITLE_MAX + 1))
        }),
    ];
    for (what, mutate) in mutations {
        let mut v = seed_example();
        mutate(&mut v);
        assert!(check(&v).is_err(), "schema accepted: {what}");
        assert!(
            DataForm::from_json(&v.to_string()).is_err(),
            "runtime accepted: {what}"
        );
    }
    let refused = |v: &Value| check(v).is_err() && DataForm::from_json(&v.to_string()).is_err();
    let mut v = every_type();
    v["questions"][1]["options"][0]["thumbnail"] = json!({"src": "https://example.com/t.png"});
    assert!(refused(&v), "accepted thumbnail with preview");
    let mut v = every_type();
    v["questions"][0]["maxLength"] = json!(limits::MAX_LENGTH_MAX + 1);
    assert!(
        check(&v).is_err(),
        "schema accepted maxLength above the limit"
    );
    let mut v = every_type();
    v["questions"][2]["maxItems"] = json!(limits::ITEMS_MAX + 1);
    assert!(
        check(&v).is_err(),
        "schema accepted maxItems above the limit"
    );
    let mut v = every_type();
    v["questions"][4]["accept"] = json!(["csv"]);
    assert!(
        check(&v).is_err(),
        "schema accepted an accept entry without a dot"
    );
    let mut v = every_type();
    v["questions"][4]["accept"] = json!([]);
    assert!(refused(&v), "accepted an empty accept list");
}
