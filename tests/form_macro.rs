//! `form!`: inline forms in the Data vocabulary. A literal form compiles to the same native
//! request as the equivalent Data JSON; run-time values are validated when the form is built;
//! a form without run-time values is built once; answers decode through the generic
//! accessors; mistakes are compile errors (the trybuild cases under `tests/ui/form_macro`).
#![deny(warnings)]

use forms_runtime::data::{ChoiceOption, Image, Question, QuestionSpec, ResourceOption};
use forms_runtime::{form, DataForm, ErrorCode, FileRefView, FormError, Outcome};

/// Every question type and every key of the contract, written literally.
fn full_literal_form() -> Result<DataForm, FormError> {
    form! {
        message: "Set up your weekly report",
        questions: [
            { id: "goal", type: text, title: "What would you like to understand?",
              description: "One or two sentences", required: false, maxLength: 2000 },
            { id: "format", type: single_select, title: "Report format", required: true,
              options: [
                  { id: "pdf", title: "PDF", description: "Printable",
                    thumbnail: { src: "https://example.com/pdf.png", mimeType: "image/png" } },
                  { id: "html", title: "Web page", preview: { src: "https://example.com/html.png" } },
              ] },
            { id: "sections", type: multi_select, title: "Sections", required: false,
              minItems: 1, maxItems: 2,
              options: [ { id: "summary", title: "Summary" }, { id: "charts", title: "Charts" },
                         { id: "raw", title: "Raw data" } ] },
            { id: "template", type: resource, title: "Relevant report templates", required: false,
              options: [ { uri: "https://example.com/templates/review", name: "business-review",
                           title: "Presentation · Business review",
                           description: "Quarterly deck",
                           mimeType: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
                           icons: [ { src: "https://example.com/slides.png" } ],
                           thumbnail: { src: "https://example.com/review.png" } } ] },
            { id: "sources", type: resources, title: "Sources", required: true, maxItems: 1,
              options: [ { uri: "https://example.com/a", name: "a", title: "Site · A" },
                         { uri: "https://example.com/b", name: "b", title: "Site · B" } ] },
            { id: "data", type: files, title: "Upload your data", required: false,
              maxItems: 3, accept: [".csv", "text/csv"] },
        ],
    }
}

/// The same form as Data JSON, as a model would send it.
const FULL_JSON: &str = r#"{
  "message": "Set up your weekly report",
  "questions": [
    {"id": "goal", "type": "text", "title": "What would you like to understand?",
     "description": "One or two sentences", "required": false, "maxLength": 2000},
    {"id": "format", "type": "single_select", "title": "Report format", "required": true,
     "options": [
       {"id": "pdf", "title": "PDF", "description": "Printable",
        "thumbnail": {"src": "https://example.com/pdf.png", "mimeType": "image/png"}},
       {"id": "html", "title": "Web page", "preview": {"src": "https://example.com/html.png"}}]},
    {"id": "sections", "type": "multi_select", "title": "Sections", "required": false,
     "minItems": 1, "maxItems": 2,
     "options": [{"id": "summary", "title": "Summary"}, {"id": "charts", "title": "Charts"},
                 {"id": "raw", "title": "Raw data"}]},
    {"id": "template", "type": "resource", "title": "Relevant report templates", "required": false,
     "options": [{"uri": "https://example.com/templates/review", "name": "business-review",
                  "title": "Presentation · Business review", "description": "Quarterly deck",
                  "mimeType": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
                  "icons": [{"src": "https://example.com/slides.png"}],
                  "thumbnail": {"src": "https://example.com/review.png"}}]},
    {"id": "sources", "type": "resources", "title": "Sources", "required": true, "maxItems": 1,
     "options": [{"uri": "https://example.com/a", "name": "a", "title": "Site · A"},
                 {"uri": "https://example.com/b", "name": "b", "title": "Site · B"}]},
    {"id": "data", "type": "files", "title": "Upload your data", "required": false,
     "maxItems": 3, "accept": [".csv", "text/csv"]}
  ]
}"#;

#[test]
fn literal_form_compiles_like_its_data_json() {
    let inline = full_literal_form().unwrap();
    let json = DataForm::from_json(FULL_JSON);
    assert_eq!(inline.native_json(), json.as_ref().unwrap().native_json());
    assert_eq!(&inline, json.as_ref().unwrap());
    assert_eq!(inline.to_json(), json.as_ref().unwrap().to_json());
    // The native request is the real thing, not an empty shell.
    let native: serde_json::Value = serde_json::from_str(inline.native_json()).unwrap();
    assert_eq!(
        native["requestedSchema"]["required"],
        serde_json::json!(["format", "sources"])
    );
    assert_eq!(
        native["requestedSchema"]["properties"]["goal"]["maxLength"],
        2000
    );
}

#[test]
fn static_form_is_built_once() {
    let a = full_literal_form().unwrap();
    let b = full_literal_form().unwrap();
    // One `Arc` behind both: the native JSON is the same allocation.
    assert!(std::ptr::eq(a.native_json(), b.native_json()));
}

fn goal_form(title: &str) -> Result<DataForm, FormError> {
    form! {
        message: "Tell me",
        questions: [ { id: "goal", type: text, title: {title}, required: false } ],
    }
}

#[test]
fn form_with_run_time_values_is_built_each_time() {
    let a = goal_form("Goal").unwrap();
    let b = goal_form("Goal").unwrap();
    assert!(!std::ptr::eq(a.native_json(), b.native_json()));
    assert_eq!(a, b);
    assert_eq!(
        goal_form("Purpose").unwrap().questions()[0].title,
        "Purpose"
    );
}

fn template_form(templates: Vec<ResourceOption>) -> Result<DataForm, FormError> {
    form! {
        message: "Choose a report template",
        questions: [
            { id: "template", type: resource, title: "Relevant report templates",
              required: false, options: {templates} },
        ],
    }
}

#[test]
fn interpolated_options_are_validated_at_run_time() {
    let good = vec![ResourceOption::new(
        "https://example.com/verified-business-review",
        "business-review",
        "Presentation · Business review",
    )];
    let form = template_form(good).unwrap();
    assert_eq!(form.questions()[0].kind.resource_options().len(), 1);

    let bad = vec![ResourceOption::new(
        "https://example.com/review?token=abc",
        "business-review",
        "Presentation · Business review",
    )];
    let err = template_form(bad).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArguments);
    assert!(
        err.message().contains("questions[0].options[0].uri"),
        "{}",
        err.message()
    );
    assert!(err.message().contains("(R26)"), "{}", err.message());
}

#[test]
fn r14_interpolated_option_list_needs_one_option() {
    let err = template_form(Vec::new()).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArguments);
    assert!(
        err.message().contains("questions[0].options"),
        "{}",
        err.message()
    );
    assert!(err.message().contains("(R14)"), "{}", err.message());
}

fn sections_form(options: &[ChoiceOption], max: u8) -> Result<DataForm, FormError> {
    form! {
        message: "Pick sections",
        questions: [
            { id: "sections", type: multi_select, title: "Sections", required: true,
              maxItems: {max}, options: {options} },
        ],
    }
}

fn choice(id: &str, title: &str) -> ChoiceOption {
    ChoiceOption {
        id: id.to_owned(),
        title: title.to_owned(),
        description: None,
        thumbnail: None,
    }
}

#[test]
fn r20_run_time_bounds_within_option_count() {
    let two = [choice("a", "A"), choice("b", "B")];
    // At the limit: maxItems equal to the option count.
    let form = sections_form(&two, 2).unwrap();
    assert_eq!(form.selection_limits(0).unwrap().max_items, 2);
    let err = sections_form(&two, 3).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArguments);
    // Worded by the rules crate, as the literal case is at compile time (with the Data keys).
    assert!(
        err.message()
            .contains("maxItems (3) must not exceed the 2 options offered (R20)"),
        "{}",
        err.message()
    );
}

#[test]
fn r5_interpolated_option_ids_must_be_unique() {
    let twice = [choice("a", "A"), choice("a", "Again")];
    let err = sections_form(&twice, 1).unwrap_err();
    assert!(
        err.message().contains("questions[0].options[1].id"),
        "{}",
        err.message()
    );
    assert!(err.message().contains("(R5)"), "{}", err.message());
    assert!(sections_form(&[choice("a", "A"), choice("b", "B")], 1).is_ok());
}

#[test]
fn r6_interpolated_question_id_checked_at_run_time() {
    let make = |id: String| -> Result<DataForm, FormError> {
        form! {
            message: "Tell me",
            questions: [ { id: {id}, type: text, title: "Goal", required: false } ],
        }
    };
    assert!(make("goal".to_owned()).is_ok());
    let err = make("9x".to_owned()).unwrap_err();
    assert!(
        err.message()
            .contains(r#"questions[0].id: "9x" must start with an ASCII letter (R6)"#),
        "{}",
        err.message()
    );
}

#[test]
fn every_kind_of_value_can_be_interpolated() {
    let message = String::from("Set up your weekly report");
    let title = "What would you like to understand?";
    let description: Option<String> = None;
    let required = false;
    let max_length: u16 = 2000;
    let html = choice("html", "Web page");
    let pdf_thumbnail = Image {
        src: "https://example.com/pdf.png".to_owned(),
        mime_type: Some("image/png".to_owned()),
    };
    let sections = vec![
        choice("summary", "Summary"),
        choice("charts", "Charts"),
        choice("raw", "Raw data"),
    ];
    let icons = vec![Image::new("https://example.com/slides.png")];
    let accept = [".csv", "text/csv"];
    let sources = Question {
        id: "sources".to_owned(),
        title: "Sources".to_owned(),
        description: None,
        required: true,
        kind: QuestionSpec::Resources {
            options: vec![
                ResourceOption::new("https://example.com/a", "a", "Site · A"),
                ResourceOption::new("https://example.com/b", "b", "Site · B"),
            ],
            min_items: None,
            max_items: Some(1),
        },
    };
    let form = form! {
        message: {message},
        questions: [
            { id: "goal", type: text, title: {title}, description: {"One or two sentences"},
              required: {required}, maxLength: {max_length} },
            { id: "format", type: single_select, title: "Report format", required: {!required},
              options: [
                  { id: "pdf", title: "PDF", description: {String::from("Printable")},
                    thumbnail: {&pdf_thumbnail} },
                  { id: {html.id.clone()}, title: {&html.title},
                    preview: {Image::new("https://example.com/html.png")} },
              ] },
            { id: "sections", type: multi_select, title: "Sections", required: false,
              minItems: {1u8}, maxItems: {2u32}, options: {sections} },
            { id: "template", type: resource, title: "Relevant report templates", required: false,
              options: [ { uri: "https://example.com/templates/review", name: "business-review",
                           title: "Presentation · Business review",
                           description: {Some("Quarterly deck")},
                           mimeType: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
                           icons: {icons},
                           thumbnail: { src: {"https://example.com/review.png"} } } ] },
            {sources},
            { id: "data", type: files, title: "Upload your data", required: false,
              description: {description}, maxItems: 3, accept: {accept} },
        ],
    }
    .unwrap();
    let json = DataForm::from_json(FULL_JSON);
    assert_eq!(form.native_json(), json.as_ref().unwrap().native_json());
}

#[test]
fn answers_decode_through_the_generic_accessors() {
    let form = full_literal_form().unwrap();
    let response = r#"{"action":"accept","content":{
        "goal":"Why sales dipped",
        "format":"html",
        "sections":["charts","summary"],
        "template":"https://example.com/templates/review",
        "sources":["https://example.com/b"],
        "data":["file:///home/me/sales.csv"]}}"#;
    let Outcome::Accepted(answers) = form.check_response(response).unwrap() else {
        panic!("expected accept");
    };
    assert_eq!(answers.text("goal"), Some("Why sales dipped"));
    assert_eq!(answers.choice("format"), Some("html"));
    assert_eq!(answers.choices("sections"), Some(vec!["charts", "summary"]));
    assert_eq!(
        answers.resource("template"),
        Some("https://example.com/templates/review")
    );
    assert_eq!(
        answers.resources("sources"),
        Some(vec!["https://example.com/b"])
    );
    let files = answers.files("data").unwrap();
    assert_eq!(files.len(), 1);
    assert!(matches!(files[0], FileRefView::Local { .. }), "{files:?}");
    assert_eq!(files[0].uri(), "file:///home/me/sales.csv");

    // An answer the form does not allow applies nothing.
    let err = form
        .check_response(r#"{"action":"accept","content":{"format":"docx","sources":["https://example.com/a"]}}"#)
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidResponse);
}

#[test]
fn works_in_a_no_implicit_prelude_module() {
    #[no_implicit_prelude]
    mod plain {
        pub fn fixed(
        ) -> ::core::result::Result<::forms_runtime::DataForm, ::forms_runtime::FormError> {
            ::forms_runtime::form! {
                message: "Tell me",
                questions: [ { id: "goal", type: text, title: "Goal", required: false,
                               maxLength: 10 } ],
            }
        }
        pub fn dynamic(
            title: &str,
        ) -> ::core::result::Result<::forms_runtime::DataForm, ::forms_runtime::FormError> {
            ::forms_runtime::form! {
                message: "Tell me",
                questions: [ { id: "goal", type: files, title: {title}, required: {true},
                               accept: [".csv", {"text/csv"}] } ],
            }
        }
    }
    assert_eq!(plain::fixed().unwrap().max_length(0), Some(10));
    assert_eq!(
        plain::dynamic("Files").unwrap().questions()[0].title,
        "Files"
    );
}

/// `form!` next to user items named like what its expansion uses (`Clone`, `Lazy`, `Option`,
/// `Some`, `None`, `Vec`, `Result`, `FORM`, `__forms_rt`, a module `forms_runtime`, an
/// interpolated local `form`) and derives imported as `Debug` and `Clone` (the
/// `use derive_more::Debug` pattern): the expansion names none of them and raises no warning.
#[test]
fn form_macro_output_names_nothing_the_user_defines() {
    #[deny(warnings, unused_qualifications)]
    #[allow(dead_code, unused_imports, non_upper_case_globals)]
    mod lookalikes {
        pub use ::forms_runtime::Form as Debug;
        pub use ::forms_runtime::Form as Clone;
        pub struct Lazy;
        pub struct Option;
        pub struct Some;
        pub struct None;
        pub struct Vec;
        pub struct Result;
        pub struct String;
        pub const FORM: u8 = 0;
        pub mod __forms_rt {}
        pub mod forms_runtime {}

        pub fn fixed(
        ) -> ::core::result::Result<::forms_runtime::DataForm, ::forms_runtime::FormError> {
            ::forms_runtime::form! {
                message: "Tell me",
                questions: [
                    { id: "goal", type: text, title: "Goal", required: false, maxLength: 10 },
                    { id: "kinds", type: multi_select, title: "Kinds", required: true,
                      minItems: 1, maxItems: 2,
                      options: [ { id: "a", title: "A" }, { id: "b", title: "B" } ] },
                ],
            }
        }

        pub fn dynamic(
            form: &str,
        ) -> ::core::result::Result<::forms_runtime::DataForm, ::forms_runtime::FormError> {
            ::forms_runtime::form! {
                message: "Tell me",
                questions: [ { id: "data", type: files, title: {form}, required: {true},
                               maxItems: {2u32}, accept: [".csv", {"text/csv"}] } ],
            }
        }
    }
    let fixed = lookalikes::fixed().unwrap();
    assert_eq!(fixed.max_length(0), Some(10));
    assert_eq!(fixed.questions().len(), 2);
    let dynamic = lookalikes::dynamic("Files").unwrap();
    assert_eq!(dynamic.questions()[0].title, "Files");
}

#[test]
fn limits_at_their_edges_compile_and_build() {
    // R1 80-character message, R2 12 questions, R6 64-character id, R8 80-character title,
    // R11 maxLength 1 and 16000, R13 24 options, R18/R19/R20 minItems = maxItems = 24,
    // R22 12 accept entries, R24 two icons: all at the limit, all accepted.
    let form = form! {
        message: "MMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMM!",
        questions: [
            { id: "qxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", type: text, title: "TTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTT", required: false, maxLength: 16000 },
            { id: "short", type: text, title: "Short", required: true, maxLength: 1 },
            { id: "many", type: multi_select, title: "Many", required: true, minItems: 24, maxItems: 24,
              options: [ { id: "o0", title: "Option 0" }, { id: "o1", title: "Option 1" }, { id: "o2", title: "Option 2" }, { id: "o3", title: "Option 3" }, { id: "o4", title: "Option 4" }, { id: "o5", title: "Option 5" }, { id: "o6", title: "Option 6" }, { id: "o7", title: "Option 7" }, { id: "o8", title: "Option 8" }, { id: "o9", title: "Option 9" }, { id: "o10", title: "Option 10" }, { id: "o11", title: "Option 11" }, { id: "o12", title: "Option 12" }, { id: "o13", title: "Option 13" }, { id: "o14", title: "Option 14" }, { id: "o15", title: "Option 15" }, { id: "o16", title: "Option 16" }, { id: "o17", title: "Option 17" }, { id: "o18", title: "Option 18" }, { id: "o19", title: "Option 19" }, { id: "o20", title: "Option 20" }, { id: "o21", title: "Option 21" }, { id: "o22", title: "Option 22" }, { id: "o23", title: "Option 23" } ] },
            { id: "files", type: files, title: "Files", required: false, minItems: 0, maxItems: 24,
              accept: [ ".e0", ".e1", ".e2", ".e3", ".e4", ".e5", ".e6", ".e7", ".e8", ".e9", ".e10", ".e11" ] },
            { id: "tpl", type: resource, title: "Templates", required: false,
              options: [ { uri: "https://example.com/t", name: "t", title: "Document · T",
                           icons: [ { src: "https://example.com/1.png" }, { src: "https://example.com/2.png" } ] } ] },
            { id: "extra0", type: text, title: "Extra 0", required: false },
            { id: "extra1", type: text, title: "Extra 1", required: false },
            { id: "extra2", type: text, title: "Extra 2", required: false },
            { id: "extra3", type: text, title: "Extra 3", required: false },
            { id: "extra4", type: text, title: "Extra 4", required: false },
            { id: "extra5", type: text, title: "Extra 5", required: false },
            { id: "extra6", type: text, title: "Extra 6", required: false },
        ],
    }
    .unwrap();
    let data = &form;
    assert_eq!(data.questions().len(), 12);
    assert_eq!(data.max_length(0), Some(16000));
    assert_eq!(data.max_length(1), Some(1));
    let many = data.selection_limits(2).unwrap();
    assert_eq!((many.min_items, many.max_items), (24, 24));
    assert_eq!(data.questions()[0].id.len(), 64);
}

#[test]
fn keys_may_be_written_as_json_strings() {
    let form = form! {
        "message": "Tell me",
        "questions": [ { "id": "goal", "type": "text", "title": "Goal", "required": false,
                         "maxLength": 300 } ],
    }
    .unwrap();
    let json = DataForm::from_json(
        r#"{"message":"Tell me","questions":[{"id":"goal","type":"text","title":"Goal",
            "required":false,"maxLength":300}]}"#,
    )
    .unwrap();
    assert_eq!(&form, &json);
}

#[test]
fn r10_run_time_required_flag_reaches_the_native_request() {
    let make = |required: bool| -> Result<DataForm, FormError> {
        form! {
            message: "Tell me",
            questions: [ { id: "goal", type: text, title: "Goal", required: {required} } ],
        }
    };
    let required: serde_json::Value =
        serde_json::from_str(make(true).unwrap().native_json()).unwrap();
    assert_eq!(
        required["requestedSchema"]["required"],
        serde_json::json!(["goal"])
    );
    let optional: serde_json::Value =
        serde_json::from_str(make(false).unwrap().native_json()).unwrap();
    assert!(optional["requestedSchema"].get("required").is_none());
}

#[test]
fn r2_interpolated_question_list_checked_at_run_time() {
    let make = |questions: Vec<Question>| -> Result<DataForm, FormError> {
        form! { message: "Tell me", questions: {questions} }
    };
    let goal = Question {
        id: "goal".to_owned(),
        title: "Goal".to_owned(),
        description: None,
        required: false,
        kind: QuestionSpec::Text { max_length: None },
    };
    assert_eq!(make(vec![goal.clone()]).unwrap().questions().len(), 1);
    let err = make(Vec::new()).unwrap_err();
    assert!(
        err.message()
            .contains("questions: must have at least one question (R2)"),
        "{}",
        err.message()
    );
    let err = make(vec![goal; 13]).unwrap_err();
    assert!(err.message().contains("(R2)"), "{}", err.message());
}
