//! The derive's output compiles warning-free under `#![deny(warnings, missing_docs)]`, next to
//! user items named `Form`, `Result`, `Option`, `Some`, `Vec`, `Ok` and `serde`, and inside a
//! `#![no_implicit_prelude]` module.
#![deny(warnings, missing_docs, unused_qualifications)]

/// Items whose names the generated code must not pick up.
pub mod shadowing {
    #![allow(dead_code)]

    /// Not the runtime's trait.
    pub trait Form {}
    /// Not `core::result::Result`.
    pub struct Result;
    /// Not `core::option::Option`.
    pub struct Option;
    /// Not `Option::Some`.
    pub struct Some;
    /// Not `Result::Ok`.
    pub struct Ok;
    /// Not `std::vec::Vec`.
    pub struct Vec;
    /// Not the serde crate.
    pub mod serde {}
    /// Not the forms runtime.
    pub mod forms_runtime {}
    /// Not the prelude's `String`, so the field below must name the real one.
    pub struct String;

    /// A form declared among the look-alikes.
    #[derive(::forms_runtime::Form)]
    #[form(message = "Shadowed names")]
    pub struct Shadowed {
        /// Goal
        pub goal: ::std::string::String,
        /// Format
        pub format: Choice,
        /// Formats
        #[form(max_items = 2)]
        pub formats: ::std::vec::Vec<Choice>,
        /// Template
        #[form(resource)]
        pub template: ::std::option::Option<::url::Url>,
    }

    /// Choices among the look-alikes.
    #[derive(::forms_runtime::Form, Debug, PartialEq, Eq, Clone, Copy)]
    #[form(message = "Pick one")]
    pub enum Choice {
        /// First
        First,
        /// Second
        Second,
    }
}

/// A module without the prelude.
pub mod bare {
    #![no_implicit_prelude]

    /// A form in a module without the prelude.
    #[derive(::forms_runtime::Form)]
    #[form(message = "No prelude")]
    pub struct Bare {
        /// Goal
        pub goal: ::std::option::Option<::std::string::String>,
        /// Kind
        pub kind: Kind,
        /// Kinds
        #[form(required, min_items = 1, max_items = 2)]
        pub kinds: ::std::collections::BTreeSet<Kind>,
        /// Files
        #[form(files, accept = [".csv"])]
        pub files: ::std::vec::Vec<::forms_runtime::FileRef>,
        /// Links
        #[form(resources)]
        pub links: ::std::vec::Vec<::url::Url>,
    }

    /// Choices in a module without the prelude.
    #[derive(::forms_runtime::Form, Debug, PartialEq, Eq, PartialOrd, Ord, Clone, Copy)]
    #[form(rename_all = "snake_case")]
    pub enum Kind {
        /// Alpha
        AlphaOne,
        /// Beta
        BetaTwo,
    }
}

use forms_runtime::data::ResourceOption;
use forms_runtime::{DataForm, Form as _, Outcome, StaticForm, TypedForm};

/// The derived form's Data form and native request equal the runtime's from the Data JSON
/// of the corpus case `case`.
fn same(data: &DataForm, case: &str) {
    let runtime = DataForm::from_json(&corpus_form(case)).unwrap();
    assert_eq!(data, &runtime);
    assert_eq!(data.native_json(), runtime.native_json());
}

/// The value `form` decodes from the accepted host response `answer`.
fn accepted<T: forms_runtime::Form>(form: &TypedForm<T>, answer: &str) -> T {
    form.decode(answer).unwrap().accepted().unwrap()
}

mod common;
use common::corpus_form;

#[test]
fn shadowed_names_do_not_reach_the_generated_code() {
    let form = shadowing::Shadowed::build(shadowing::ShadowedParts {
        template: vec![ResourceOption::new("https://example.com/t", "t", "Doc · T")],
    })
    .unwrap();
    same(form.data(), "111-derived-hygiene-shadowed");
    let s = accepted(
        &form,
        r#"{"action":"accept","content":{"goal":"g","format":"Second","formats":["First"],
                "template":"https://example.com/t"}}"#,
    );
    assert_eq!(s.goal, "g");
    assert_eq!(s.format, shadowing::Choice::Second);
    assert_eq!(s.formats, [shadowing::Choice::First]);
    assert_eq!(s.template.unwrap().as_str(), "https://example.com/t");
    let c = shadowing::Choice::form();
    same(c.data(), "112-derived-hygiene-choice");
    assert_eq!(
        c.decode(r#"{"action":"accept","content":{"choice":"First"}}"#)
            .unwrap(),
        Outcome::Accepted(shadowing::Choice::First)
    );
}

#[test]
fn no_implicit_prelude_module() {
    let form = bare::Bare::build(bare::BareParts {
        links: vec![ResourceOption::new("https://example.com/l", "l", "Doc · L")],
    })
    .unwrap();
    same(form.data(), "113-derived-hygiene-bare");
    let b = accepted(
        &form,
        r#"{"action":"accept","content":{"kind":"beta_two","kinds":["alpha_one","beta_two"],
                "files":["file:///x.csv"],"links":["https://example.com/l"]}}"#,
    );
    assert_eq!(b.goal, None);
    assert_eq!(b.kind, bare::Kind::BetaTwo);
    assert_eq!(b.kinds.len(), 2);
    assert_eq!(b.files.len(), 1);
    assert_eq!(b.links.len(), 1);
}
