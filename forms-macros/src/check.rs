//! The contract's rules, checked at compile time through the same `forms_rules` functions
//! the runtime calls. Each check reports at the attribute or field it is about and never stops
//! the others; the result is the resolved form that `expand` emits.

use crate::ast::{self, Container, Data, Field, FieldKind, Variant};
use crate::attr::{self, Attrs, Int};
use crate::ctxt::Ctxt;
use crate::wording;
use forms_rules::{self as rules, limits, Limit, LimitKeys, QuestionKind, Rule, Violation};
use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::Ident;

/// A checked question, ready to emit.
pub(crate) struct Question<'a> {
    pub(crate) ident: &'a Ident,
    pub(crate) id: String,
    pub(crate) title: String,
    pub(crate) description: Option<String>,
    pub(crate) required: bool,
    pub(crate) kind: &'a FieldKind<'a>,
    pub(crate) max_length: Option<u32>,
    pub(crate) min_items: Option<u32>,
    pub(crate) max_items: Option<u32>,
    pub(crate) accept: Option<Vec<String>>,
    /// Where a cross-type selection-limit assertion points: the limit attribute.
    pub(crate) limit_span: Option<Span>,
}

/// A checked choice option.
pub(crate) struct ChoiceOption<'a> {
    pub(crate) ident: &'a Ident,
    pub(crate) id: String,
    pub(crate) title: String,
    pub(crate) description: Option<String>,
    pub(crate) thumbnail: Option<String>,
}

/// An enum's own one-question form.
pub(crate) struct EnumForm {
    pub(crate) message: String,
    pub(crate) id: String,
    pub(crate) description: Option<String>,
}

use crate::wording::{rule_sentence as sentence, subject as id_subject};

fn report<T>(cx: &Ctxt, at: impl ToTokens, subject: &str, r: Result<T, Violation>) -> Option<T> {
    match r {
        Ok(t) => Some(t),
        Err(v) => {
            cx.error_spanned_by(at, sentence(subject, &v));
            None
        }
    }
}

/// A text from an attribute or, failing that, a doc comment; with the tokens it came from.
fn text_of(
    attr: &attr::Attr<syn::LitStr>,
    doc: Option<(String, TokenStream)>,
) -> Option<(String, TokenStream, bool)> {
    match attr.get() {
        Some(lit) => Some((lit.value(), lit.to_token_stream(), false)),
        None => doc.map(|(s, t)| (s, t, true)),
    }
}

fn from_doc(doc: bool) -> &'static str {
    if doc {
        " (from the doc comment)"
    } else {
        ""
    }
}

/// An ID with what it belongs to (`field `goal``) and where to report it.
pub(crate) struct IdUse {
    id: String,
    owner: String,
    at: TokenStream,
    valid: bool,
}

/// R5: reports the second and later uses of an ID. IDs that break R6 are reported there only.
fn check_unique(cx: &Ctxt, ids: &[IdUse], what: &str, scope: &str) {
    let valid: Vec<&IdUse> = ids.iter().filter(|u| u.valid).collect();
    for (at, first) in rules::repeated_keys(valid.iter().map(|u| u.id.as_str())) {
        if let (Some(u), Some(first)) = (valid.get(at), valid.get(first)) {
            cx.error_spanned_by(&u.at, wording::duplicate(what, &u.id, &first.owner, scope));
        }
    }
}

fn message(cx: &Ctxt, c: &Container<'_>, what: &str) -> Option<String> {
    match c.attrs.message.get() {
        Some(lit) => {
            let m = lit.value();
            report(cx, lit, "form message", rules::check_message(&m)).map(|()| m)
        }
        None => {
            if !c.attrs.written("message") {
                let v = Violation::new(
                    Rule::R1,
                    format!("needs a message: add `#[form(message = \"…\")]` to the {what}"),
                );
                cx.error_spanned_by(c.ident, sentence(&format!("form `{}`", c.ident), &v));
            }
            None
        }
    }
}

fn limit(i: Option<&Int>) -> Option<i64> {
    i.map(|i| i.value)
}

fn check_limits(
    cx: &Ctxt,
    f: &Field<'_>,
    kind: QuestionKind,
    required: bool,
) -> (Option<u32>, Option<u32>) {
    let a = &f.attrs;
    let (min, max) = (limit(a.min_items.get()), limit(a.max_items.get()));
    if min.is_none() && max.is_none() {
        return (None, None);
    }
    // A choice enum's or the run-time options' count is checked later (a const assertion, or
    // when the form is built); here every bound that needs no count is checked.
    let count = match kind {
        QuestionKind::Files => 0,
        _ => limits::OPTIONS_MAX,
    };
    match rules::resolve_selection_limits(kind, required, min, max, count) {
        Ok(_) => (
            min.and_then(|m| u32::try_from(m).ok()),
            max.and_then(|m| u32::try_from(m).ok()),
        ),
        Err(p) => {
            // R17 is about the keys being written at all; the others about one value.
            let value = |l: &attr::Attr<Int>| l.get().map(|i| i.tokens.clone());
            let at: TokenStream = match p.limit() {
                None => a
                    .min_items
                    .key()
                    .or(a.max_items.key())
                    .map(ToTokens::to_token_stream),
                Some(Limit::Min) => value(&a.min_items).or_else(|| value(&a.max_items)),
                Some(Limit::Max) => value(&a.max_items).or_else(|| value(&a.min_items)),
            }
            .unwrap_or_else(|| f.ident.to_token_stream());
            let v = p.violation(kind, LimitKeys::Attribute);
            cx.error_spanned_by(at, sentence("", &v));
            (None, None)
        }
    }
}

fn check_accept(cx: &Ctxt, list: &attr::List) -> Vec<String> {
    let items: Vec<String> = list.items.iter().map(syn::LitStr::value).collect();
    report(
        cx,
        &list.tokens,
        "`accept`",
        rules::check_accept_count(items.len()),
    );
    for (i, (lit, t)) in list.items.iter().zip(&items).enumerate() {
        if report(
            cx,
            lit,
            &id_subject("accept entry", t),
            rules::check_accept_token(t),
        )
        .is_none()
        {
            continue;
        }
        // R22's duplicate check, asked of the rules crate one earlier entry at a time.
        let dup = items.iter().take(i).find_map(|earlier| {
            match rules::check_accept_list(&[earlier.as_str(), t.as_str()]) {
                Err((Some(1), v)) => Some(v),
                _ => None,
            }
        });
        if let Some(v) = dup {
            cx.error_spanned_by(lit, sentence(&id_subject("accept entry", t), &v));
        }
    }
    items
}

fn check_field<'a>(
    cx: &Ctxt,
    c: &Container<'_>,
    f: &'a Field<'a>,
) -> (Option<Question<'a>>, IdUse) {
    let a = &f.attrs;
    let (id, id_at) = ast::resolve_id(a, f.ident, c.attrs.rename_all.get());
    let valid = report(
        cx,
        &id_at,
        &id_subject("question id", &id),
        rules::check_id(&id),
    )
    .is_some();
    let id_use = IdUse {
        id: id.clone(),
        owner: format!("field `{}`", f.ident),
        at: id_at,
        valid,
    };
    let title = match text_of(&a.title, a.docs.title()) {
        Some((t, at, doc)) => {
            report(
                cx,
                &at,
                &format!("question title{}", from_doc(doc)),
                rules::check_title(&t),
            );
            t
        }
        None => {
            if !a.written("title") {
                let v = Violation::new(
                    Rule::R8,
                    "needs a title: add a doc comment or `#[form(title = \"…\")]`",
                );
                cx.error_spanned_by(f.ident, sentence(&format!("question `{id}`"), &v));
            }
            String::new()
        }
    };
    let description = text_of(&a.description, a.docs.description()).map(|(d, at, doc)| {
        report(
            cx,
            &at,
            &format!("question description{}", from_doc(doc)),
            rules::check_description(&d),
        );
        d
    });
    let kind = f.kind.as_ref();
    let qkind = kind.map(FieldKind::question_kind);
    let is_array = qkind.is_some_and(QuestionKind::is_array);

    let required = match (a.required.key(), kind) {
        (Some(key), Some(k)) if k.is_option() => {
            cx.error_spanned_by(
                key,
                "`required` conflicts with an `Option` field: an `Option` is an optional \
                 question; drop `Option` to make it required",
            );
            false
        }
        (Some(key), Some(_)) if !is_array => {
            cx.error_spanned_by(
                key,
                "`required` is implied: a field that is not an `Option` or a collection is a \
                 required question",
            );
            true
        }
        (Some(_), _) => true,
        (None, Some(k)) => !is_array && !k.is_option(),
        (None, None) => false,
    };

    let max_length = match (a.max_length.get(), qkind) {
        (Some(m), Some(QuestionKind::Text)) => report(
            cx,
            &m.tokens,
            "`max_length`",
            rules::check_max_length(m.value),
        ),
        (Some(_), Some(k)) => {
            cx.error_spanned_by(
                a.max_length.key(),
                wording::applies_only(
                    "max_length",
                    "`text` questions (`String`, `Option<String>`)",
                    k,
                    Rule::R11,
                ),
            );
            None
        }
        _ => None,
    };

    let (min_items, max_items) = match qkind {
        Some(k) => check_limits(cx, f, k, required),
        None => (None, None),
    };

    let accept = match (a.accept.get(), qkind) {
        (Some(list), Some(QuestionKind::Files)) => Some(check_accept(cx, list)),
        (Some(_), Some(k)) => {
            cx.error_spanned_by(
                a.accept.key(),
                wording::applies_only("accept", "`files` questions", k, Rule::R22),
            );
            None
        }
        _ => None,
    };

    if let (Some(key), Some(k)) = (a.offered.key(), qkind) {
        if k != QuestionKind::Files {
            cx.error_spanned_by(
                key,
                format!(
                    "`offered` applies only to `files` questions, not to `{k}` questions; \
                     `resource` and `resources` questions always take their options from the \
                     form's parts"
                ),
            );
        }
    }

    let limit_span = if a.max_items.is_set() {
        Some(attr::key_span(&a.max_items))
    } else if a.min_items.is_set() {
        Some(attr::key_span(&a.min_items))
    } else {
        None
    };

    let question = kind.map(|kind| Question {
        ident: f.ident,
        id,
        title,
        description,
        required,
        kind,
        max_length,
        min_items,
        max_items,
        accept,
        limit_span,
    });
    (question, id_use)
}

/// Checks a struct form; `None` when a question could not be resolved.
pub(crate) fn check_struct<'a>(
    cx: &Ctxt,
    c: &Container<'_>,
    fields: &'a [Field<'a>],
) -> (Option<String>, Vec<Question<'a>>) {
    let message = message(cx, c, "struct");
    report(
        cx,
        c.ident,
        &format!("form `{}`", c.ident),
        rules::check_question_count(fields.len()),
    );
    let mut questions = Vec::new();
    let mut ids = Vec::new();
    for f in fields {
        let (q, id_use) = check_field(cx, c, f);
        ids.push(id_use);
        questions.extend(q);
    }
    check_unique(cx, &ids, "question id", "a form");
    (message, questions)
}

fn check_variant<'a>(
    cx: &Ctxt,
    c: &Container<'_>,
    v: &'a Variant<'a>,
) -> (ChoiceOption<'a>, IdUse) {
    let a: &Attrs = &v.attrs;
    let (id, id_at) = ast::resolve_id(a, v.ident, c.attrs.rename_all.get());
    let valid = report(
        cx,
        &id_at,
        &id_subject("option id", &id),
        rules::check_id(&id),
    )
    .is_some();
    let id_use = IdUse {
        id: id.clone(),
        owner: format!("variant `{}`", v.ident),
        at: id_at,
        valid,
    };
    let (title, at, doc) = text_of(&a.title, a.docs.title()).unwrap_or_else(|| {
        // No title or doc comment: the variant's name as words (`NorthAmerica` → `North
        // America`), whatever `rename_all` makes of its ID.
        let words = crate::case::title_words(&ast::unraw(v.ident));
        (words, v.ident.to_token_stream(), false)
    });
    report(
        cx,
        &at,
        &format!("option title{}", from_doc(doc)),
        rules::check_option_title(&title),
    );
    let description = text_of(&a.description, a.docs.description()).map(|(d, at, doc)| {
        report(
            cx,
            &at,
            &format!("option description{}", from_doc(doc)),
            rules::check_option_description(&d),
        );
        d
    });
    let thumbnail = a.thumbnail.get().map(|lit| {
        let src = lit.value();
        report(
            cx,
            lit,
            &id_subject("thumbnail", &src),
            rules::check_image_src(&src),
        );
        src
    });
    (
        ChoiceOption {
            ident: v.ident,
            id,
            title,
            description,
            thumbnail,
        },
        id_use,
    )
}

/// Checks a choice enum and, when it has a `message`, its one-question form.
pub(crate) fn check_enum<'a>(
    cx: &Ctxt,
    c: &Container<'_>,
    variants: &'a [Variant<'a>],
) -> (Vec<ChoiceOption<'a>>, Option<EnumForm>) {
    report(
        cx,
        c.ident,
        &format!("enum `{}`", c.ident),
        rules::check_option_count(QuestionKind::SingleSelect, variants.len()),
    );
    let mut options = Vec::new();
    let mut ids = Vec::new();
    for v in variants {
        let (o, id_use) = check_variant(cx, c, v);
        ids.push(id_use);
        options.push(o);
    }
    check_unique(cx, &ids, "option id", "an enum");

    let form = if c.attrs.message.is_set() {
        let message = message(cx, c, "enum");
        let (id, at) = c.enum_question_id();
        report(
            cx,
            &at,
            &id_subject("question id", &id),
            rules::check_id(&id),
        );
        let description = c.attrs.description.get().map(|lit| {
            let d = lit.value();
            report(
                cx,
                lit,
                "question description",
                rules::check_description(&d),
            );
            d
        });
        message.map(|message| EnumForm {
            message,
            id,
            description,
        })
    } else if c.attrs.written("message") {
        // A misspelt `message` was reported; the enum-form keys are not judged without it.
        None
    } else {
        for key in [c.attrs.id.key(), c.attrs.description.key()]
            .into_iter()
            .flatten()
        {
            cx.error_spanned_by(
                key,
                "an enum is a form by itself only with `#[form(message = \"…\")]`; add one or \
                 remove this attribute",
            );
        }
        None
    };
    (options, form)
}

/// Runs the checks of the item.
pub(crate) fn check<'a>(cx: &Ctxt, c: &'a Container<'a>) -> Checked<'a> {
    match &c.data {
        Data::Struct(fields) => {
            let (message, questions) = check_struct(cx, c, fields);
            Checked::Struct { message, questions }
        }
        Data::Enum(variants) => {
            let (options, form) = check_enum(cx, c, variants);
            Checked::Enum { options, form }
        }
    }
}

/// The resolved form.
pub(crate) enum Checked<'a> {
    Struct {
        message: Option<String>,
        questions: Vec<Question<'a>>,
    },
    Enum {
        options: Vec<ChoiceOption<'a>>,
        form: Option<EnumForm>,
    },
}
