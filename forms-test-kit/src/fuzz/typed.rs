//! (c) Typed decode vs the untyped checker, on derived forms equal to corpus cases
//! (`101-derived-report-setup`, `104-derived-all-kinds`, `110-derived-answers-setup`).
//!
//! For any response text: `TypedForm::decode` and `DataForm::check_response` give the same
//! verdict, the same message on refusal, the same action, and the same values (the typed
//! value written out as the untyped answers' accessors give them); the same holds for
//! `decode_value` and `check_response_value`, and text and value agree.

use super::json::{self, Json, Parsed};
use crate::derived::{self, AllKinds, ReportSetup, Setup};
use forms_runtime::data::QuestionSpec;
use forms_runtime::{
    Answers, DataForm, FileRef, FileRefView, Form, FormChoice, FormError, Outcome, TypedForm, Url,
};
use std::sync::OnceLock;

/// A typed value as the untyped accessors show it: answered questions in order, choices by
/// id, URIs as text, files as `{"uri","path"?}`; empty arrays are left out (a `Vec` cannot
/// tell `[]` from an omitted answer) and set-typed fields are sorted.
trait View {
    fn view(&self) -> Json;
    /// The ids of the fields whose Rust type is a set.
    const SETS: &'static [&'static str] = &[];
}

fn member(out: &mut Vec<(String, Json)>, id: &str, v: Json) {
    if v != Json::Arr(Vec::new()) {
        out.push((id.to_owned(), v));
    }
}

/// `member` for an optional answer: left out when not answered.
fn member_opt(out: &mut Vec<(String, Json)>, id: &str, v: Option<&str>) {
    if let Some(v) = v {
        member(out, id, Json::str(v));
    }
}

fn ids<'a, C: FormChoice>(items: impl IntoIterator<Item = &'a C>) -> Json {
    Json::strs(items.into_iter().map(|c| c.id()))
}

fn urls<'a>(items: impl IntoIterator<Item = &'a Url>) -> Json {
    Json::strs(items.into_iter().map(Url::as_str))
}

fn files(items: &[FileRef]) -> Json {
    Json::Arr(
        items
            .iter()
            .map(|f| match f {
                FileRef::Offered(url) => Json::obj([("uri", Json::str(url.as_str()))]),
                FileRef::Local { uri, path } => Json::obj([
                    ("uri", Json::str(uri.as_str())),
                    ("path", Json::str(path.to_str().expect("a UTF-8 path"))),
                ]),
            })
            .collect(),
    )
}

fn sorted<'a, C: FormChoice + 'a>(items: impl IntoIterator<Item = &'a C>) -> Json {
    let mut v: Vec<&str> = items.into_iter().map(|c| c.id()).collect();
    v.sort_unstable();
    Json::strs(v)
}

impl View for ReportSetup {
    fn view(&self) -> Json {
        let mut m = Vec::new();
        member_opt(&mut m, "goal", self.goal.as_deref());
        member(&mut m, "format", Json::str(self.format.id()));
        member(&mut m, "sections", ids(&self.sections));
        member_opt(&mut m, "template", self.template.as_ref().map(Url::as_str));
        member(&mut m, "data", files(&self.data));
        Json::Obj(m)
    }
}

impl View for AllKinds {
    const SETS: &'static [&'static str] = &["sectionTree", "hashed"];
    fn view(&self) -> Json {
        let mut m = Vec::new();
        member(&mut m, "projectName", Json::str(self.project_name.as_str()));
        member_opt(&mut m, "extraNotes", self.extra_notes.as_deref());
        member(&mut m, "format", Json::str(self.format.id()));
        member_opt(
            &mut m,
            "fallback",
            self.fallback.as_ref().map(FormChoice::id),
        );
        member(&mut m, "sectionList", ids(&self.section_list));
        member(&mut m, "sectionTree", sorted(&self.section_tree));
        member(&mut m, "hashed", sorted(&self.section_hash));
        member(&mut m, "template", Json::str(self.template.as_str()));
        member(&mut m, "examples", urls(&self.examples));
        member(&mut m, "attachments", files(&self.attachments));
        member(&mut m, "images", files(&self.images));
        Json::Obj(m)
    }
}

impl View for Setup {
    fn view(&self) -> Json {
        let mut m = Vec::new();
        member(&mut m, "goal", Json::str(self.goal.as_str()));
        member_opt(&mut m, "notes", self.notes.as_deref());
        member(&mut m, "format", Json::str(self.format.id()));
        member(&mut m, "others", ids(&self.others));
        member_opt(&mut m, "template", self.template.as_ref().map(Url::as_str));
        member(&mut m, "examples", urls(&self.examples));
        member(&mut m, "data", files(&self.data));
        Json::Obj(m)
    }
}

/// The untyped answers in the shape of [`View::view`].
fn untyped_view(form: &DataForm, answers: &Answers<'_>, sets: &[&str]) -> Json {
    let mut m = Vec::new();
    for q in form.questions() {
        let id = q.id.as_str();
        if !answers.is_answered(id) {
            continue;
        }
        let mut v = match &q.kind {
            QuestionSpec::Text { .. } => Json::str(answers.text(id).unwrap()),
            QuestionSpec::SingleSelect { .. } => Json::str(answers.choice(id).unwrap()),
            QuestionSpec::MultiSelect { .. } => Json::strs(answers.choices(id).unwrap()),
            QuestionSpec::Resource { .. } => Json::str(answers.resource(id).unwrap()),
            QuestionSpec::Resources { .. } => Json::strs(answers.resources(id).unwrap()),
            QuestionSpec::Files { .. } => Json::Arr(
                answers
                    .files(id)
                    .unwrap()
                    .iter()
                    .map(|f| match f {
                        FileRefView::Offered { uri } => Json::obj([("uri", Json::str(*uri))]),
                        FileRefView::Local { uri, path } => {
                            Json::obj([("uri", Json::str(*uri)), ("path", Json::str(*path))])
                        }
                    })
                    .collect(),
            ),
        };
        if sets.contains(&id) {
            if let Json::Arr(items) = &mut v {
                items.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
            }
        }
        member(&mut m, id, v);
    }
    Json::Obj(m)
}

fn agree<T: View + std::fmt::Debug>(
    typed: &Result<Outcome<T>, FormError>,
    untyped: &Result<Outcome<Answers<'_>>, FormError>,
    form: &DataForm,
    input: &str,
) {
    let input = super::checks::shown(input);
    match (typed, untyped) {
        (Ok(t), Ok(u)) => {
            assert_eq!(
                t.action(),
                u.action(),
                "typed and untyped actions differ for {input}"
            );
            if let (Outcome::Accepted(t), Outcome::Accepted(u)) = (t, u) {
                assert_eq!(
                    t.view(),
                    untyped_view(form, u, T::SETS),
                    "typed and untyped values differ for {input}"
                );
            }
        }
        (Err(a), Err(b)) => assert_eq!(a.message(), b.message(), "the refusals differ for {input}"),
        (t, u) => panic!(
            "typed says {:?}, untyped says {:?}, for {input}",
            t.as_ref().map_err(FormError::message),
            u.as_ref().map(|_| "accepted").map_err(FormError::message)
        ),
    }
}

fn check<T: Form + View + std::fmt::Debug + PartialEq>(form: &TypedForm<T>, text: &str) {
    let typed = form.decode(text);
    agree(&typed, &form.data().check_response(text), form.data(), text);
    if let Parsed::Value(v) = json::parse(text) {
        let v = v.to_value();
        let typed_value = form.decode_value(&v);
        agree(
            &typed_value,
            &form.data().check_response_value(&v),
            form.data(),
            text,
        );
        match (&typed, &typed_value) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "typed text and value differ"),
            (Err(_), Err(b)) => {
                super::checks::same_refusal("typed decode", &v, b, |t| form.decode(t), |_| false)
            }
            _ => panic!(
                "typed text and value verdicts differ for {}",
                super::checks::shown(text)
            ),
        }
    }
}

struct Forms {
    report: TypedForm<ReportSetup>,
    all: TypedForm<AllKinds>,
    setup: TypedForm<Setup>,
}

fn forms() -> &'static Forms {
    static FORMS: OnceLock<Forms> = OnceLock::new();
    FORMS.get_or_init(|| {
        let forms = Forms {
            report: derived::report_setup(),
            all: derived::all_kinds(),
            setup: derived::answers_setup(),
        };
        for (name, data) in
            NAMES
                .iter()
                .zip([forms.report.data(), forms.all.data(), forms.setup.data()])
        {
            assert_eq!(
                data,
                &super::corpus::case(name).form,
                "the derived form differs from {name}"
            );
        }
        forms
    })
}

/// The corpus cases the derived forms equal, in order.
pub const NAMES: [&str; 3] = [
    "derived-report-setup",
    "derived-all-kinds",
    "derived-answers-setup",
];

/// The data form of the derived form equal to the corpus case `NAMES[i]`.
pub fn data(i: usize) -> &'static DataForm {
    let f = forms();
    match i % 3 {
        0 => f.report.data(),
        1 => f.all.data(),
        _ => f.setup.data(),
    }
}

/// Checks `text` against the derived form equal to the corpus case `NAMES[i % 3]`.
pub fn check_response(i: usize, text: &str) {
    let f = forms();
    match i % 3 {
        0 => check(&f.report, text),
        1 => check(&f.all, text),
        _ => check(&f.setup, text),
    }
}
