//! Stage 2: the value tree checked against the Data contract and turned into the form's IR.
//!
//! Every literal goes through the same `forms_rules` function the runtime's validation calls,
//! so a form that compiles is a form the runtime accepts. Every mistake is recorded; checking
//! goes on after one so that a single compile reports them all.

use super::fields::{report, sentence, violation, Fields, Missing};
use super::ir::{Form, Limits, Question, Slot, Spec, Str};
use super::options::{choice, options, resource, unique};
use super::parse::{Object, Value};
use super::value::{as_str, check_str, integer, list, missing, required, string, to_int, verdict};
use crate::ctxt::Ctxt;
use crate::wording;
use forms_rules::{self as rules, limits, Limit, QuestionKind, Rule, SelectionProblem, Violation};
use proc_macro2::Span;
use rules::keys::{FORM as FORM_KEYS, QUESTION_ANY as QUESTION_KEYS};

/// Checks the whole form. `None` when anything was wrong (every error is in `cx`).
pub(crate) fn form(cx: &Ctxt, top: &Object) -> Option<Form> {
    let f = Fields::new(cx, top, "the form", FORM_KEYS);
    let message = string(cx, &f, "message", "form message", rules::check_message);
    let questions = f.take("questions").map(|e| {
        let items = match list(
            cx,
            e,
            "a list of questions `[{ … }, …]` or a run-time `Vec`",
        )? {
            Slot::Interp(g) => return Ok(Slot::Interp(g)),
            Slot::Lit(items) => items,
        };
        if let Err(v) = rules::check_question_count(items.len()) {
            violation(cx, e.key_span, "the form", v);
        }
        let qs: Vec<Option<Slot<Question>>> = items.iter().map(|v| question(cx, v)).collect();
        unique(
            cx,
            qs.iter().map(|q| match q {
                Some(Slot::Lit(q)) => q.id.lit(),
                _ => None,
            }),
            "question id",
            "questions",
            "a form",
        );
        qs.into_iter()
            .collect::<Option<Vec<_>>>()
            .map(Slot::Lit)
            .ok_or(())
    });
    let open = f.finish(cx);
    // R4: the literal text alone is a lower bound of the serialized arguments' length; the
    // exact length is measured when the form is built.
    if let Err(v) = forms_rules::check_arguments_size_at_least(top.literal_utf16_len()) {
        violation(cx, open.open, "the form", v);
    }
    let message = match message {
        Ok(Some(m)) => Some(m),
        Ok(None) => {
            missing(
                cx,
                &open,
                "the form",
                "message",
                Rule::R1,
                "write a short form header",
            );
            None
        }
        Err(()) => None,
    };
    let questions = match questions {
        Some(Ok(q)) => Some(q),
        None => {
            missing(
                cx,
                &open,
                "the form",
                "questions",
                Rule::R2,
                &format!(
                    "a form asks {} to {} questions",
                    limits::QUESTIONS_MIN,
                    limits::QUESTIONS_MAX
                ),
            );
            None
        }
        Some(Err(())) => None,
    };
    Some(Form {
        message: message?,
        questions: questions?,
    })
}

fn question(cx: &Ctxt, v: &Value) -> Option<Slot<Question>> {
    match v {
        Value::Object(o) => question_object(cx, o).map(Slot::Lit),
        Value::Interp(g) => Some(Slot::Interp(g.clone())),
        Value::Invalid(_) => None,
        other => {
            cx.error_at(
                other.span(),
                format!(
                    "expected a question `{{ id: …, type: …, title: …, required: … }}` or a \
                     run-time `Question` in braces, found {}",
                    other.describe()
                ),
            );
            None
        }
    }
}

fn kind(cx: &Ctxt, f: &Fields<'_>) -> Result<Option<QuestionKind>, ()> {
    let Some(e) = f.take("type") else {
        return Ok(None);
    };
    let (name, span) = match &e.value {
        Value::Word(w) => (w.to_string(), w.span()),
        Value::Str(s) => (s.value(), s.span()),
        Value::Invalid(_) => return Err(()),
        Value::Interp(g) => {
            report(
                cx,
                g.span(),
                "the question `type` must be written out, as in `type: text`".to_owned(),
                Violation::new(Rule::R7, "it decides which keys the question takes"),
            );
            return Err(());
        }
        other => {
            report(
                cx,
                other.span(),
                format!("`type` takes a question type, found {}", other.describe()),
                Violation::new(
                    Rule::R7,
                    "write one of `text`, `single_select`, `multi_select`, `resource`, \
                     `resources`, `files`",
                ),
            );
            return Err(());
        }
    };
    match QuestionKind::parse(&name) {
        Ok(k) => Ok(Some(k)),
        Err(v) => {
            violation(cx, span, &format!("question type `{name}`"), v);
            Err(())
        }
    }
}

fn question_object(cx: &Ctxt, o: &Object) -> Option<Question> {
    let f = Fields::new(cx, o, "a question", QUESTION_KEYS);
    let id = string(cx, &f, "id", "question id", rules::check_id);
    let kind = kind(cx, &f);
    let title = string(cx, &f, "title", "question title", |s| {
        verdict(rules::check_title(s))
    });
    let description = string(
        cx,
        &f,
        "description",
        "question description",
        rules::check_description,
    );
    let required = required(cx, &f);
    let spec = match &kind {
        Ok(Some(k)) => {
            let req = match &required {
                Ok(Some(Slot::Lit(b))) => Some(*b),
                _ => None,
            };
            spec(cx, &f, *k, req)
        }
        _ => {
            // Without a valid type the type-specific keys cannot be judged; leave them be.
            for key in QUESTION_KEYS.iter().skip(5) {
                let _ = f.take(key);
            }
            None
        }
    };
    let open = f.finish(cx);
    let id = match id {
        Ok(Some(id)) => Some(id),
        Ok(None) => {
            missing(
                cx,
                &open,
                "question",
                "id",
                Rule::R6,
                "every question needs a unique ID",
            );
            None
        }
        Err(()) => None,
    };
    if let Ok(None) = kind {
        missing(
            cx,
            &open,
            "question",
            "type",
            Rule::R7,
            "write one of `text`, `single_select`, `multi_select`, `resource`, `resources`, \
             `files`",
        );
    }
    let title = match title {
        Ok(Some(t)) => Some(t),
        Ok(None) => {
            missing(
                cx,
                &open,
                "question",
                "title",
                Rule::R8,
                "every question needs a title",
            );
            None
        }
        Err(()) => None,
    };
    let required = match required {
        Ok(Some(r)) => Some(r),
        Ok(None) => {
            missing(
                cx,
                &open,
                "question",
                "required",
                Rule::R10,
                "write `required: true` or `required: false`; there is no default",
            );
            None
        }
        Err(()) => None,
    };
    Some(Question {
        id: id?,
        title: title?,
        description: description.ok()?,
        required: required?,
        spec: spec?,
    })
}

/// Refuses `key` on a question whose type does not take it, under the key's own `rule`.
fn not_for(
    cx: &Ctxt,
    f: &Fields<'_>,
    key: &str,
    kind: QuestionKind,
    owners: &str,
    rule: Rule,
) -> bool {
    match f.take(key) {
        Some(e) => {
            cx.error_at(e.key_span, wording::applies_only(key, owners, kind, rule));
            false
        }
        None => true,
    }
}

fn spec(cx: &Ctxt, f: &Fields<'_>, kind: QuestionKind, required: Option<bool>) -> Option<Spec> {
    let mut ok = true;
    if kind != QuestionKind::Text {
        ok &= not_for(cx, f, "maxLength", kind, "`text` questions", Rule::R11);
    }
    if kind != QuestionKind::Files {
        ok &= not_for(cx, f, "accept", kind, "`files` questions", Rule::R22);
    }
    if kind == QuestionKind::Text {
        ok &= not_for(
            cx,
            f,
            "options",
            kind,
            "choice, resource and files questions",
            Rule::R3,
        );
    }
    if !kind.is_array() {
        // R17, worded by the rules crate.
        for key in ["minItems", "maxItems"] {
            if let Some(e) = f.take(key) {
                sentence(cx, e.key_span, kind, SelectionProblem::LimitsNotAllowed);
                ok = false;
            }
        }
    }
    let spec = match kind {
        QuestionKind::Text => {
            let max_length = match f.take("maxLength") {
                None => Ok(None),
                Some(e) => integer(cx, e, Rule::R11).and_then(|slot| {
                    if let Slot::Lit((n, span)) = slot {
                        if let Err(v) = rules::check_max_length(n) {
                            violation(cx, span, "`maxLength`", v);
                            return Err(());
                        }
                    }
                    Ok(Some(to_int(slot)))
                }),
            };
            Spec::Text {
                max_length: max_length.ok()?,
            }
        }
        QuestionKind::SingleSelect | QuestionKind::MultiSelect => {
            // Every key is read before anything can stop the checks, so that no key is left
            // over and reported as unknown.
            let got = match f.take("options") {
                Some(e) => options(cx, e, kind, choice, "a choice option"),
                None => {
                    missing_options(cx, &f.missing(), kind);
                    Err(())
                }
            };
            if let Ok((Slot::Lit(list), _)) = &got {
                let ids = list.iter().map(|o| o.lit().and_then(|o| o.id.lit()));
                unique(cx, ids, "option id", "options", "a question");
            }
            let count = got.as_ref().ok().and_then(|(_, c)| *c);
            let limits =
                (kind == QuestionKind::MultiSelect).then(|| limits(cx, f, kind, required, count));
            let (options, _) = got.ok()?;
            match limits {
                None => Spec::SingleSelect { options },
                Some(l) => Spec::MultiSelect {
                    options,
                    limits: l.ok()?,
                },
            }
        }
        QuestionKind::Resource | QuestionKind::Resources | QuestionKind::Files => {
            let got = match f.take("options") {
                Some(e) => options(cx, e, kind, resource, "a resource option").map(Some),
                None if kind == QuestionKind::Files => Ok(None),
                None => {
                    missing_options(cx, &f.missing(), kind);
                    Err(())
                }
            };
            if let Ok(Some((Slot::Lit(list), _))) = &got {
                let uris = list.iter().map(|o| o.lit().and_then(|o| o.uri.lit()));
                unique(cx, uris, "resource uri", "options", "a question");
            }
            let count = match &got {
                Ok(None) => Some(0),
                Ok(Some((_, c))) => *c,
                Err(()) => None,
            };
            let limits = kind
                .is_array()
                .then(|| limits(cx, f, kind, required, count));
            let accept = (kind == QuestionKind::Files).then(|| accept(cx, f));
            let options = got.ok()?.map(|(o, _)| o);
            match (limits, accept) {
                (Some(l), Some(a)) => Spec::Files {
                    options,
                    limits: l.ok()?,
                    accept: a.ok()?,
                },
                (Some(l), None) => Spec::Resources {
                    options: options?,
                    limits: l.ok()?,
                },
                _ => Spec::Resource { options: options? },
            }
        }
    };
    ok.then_some(spec)
}

fn missing_options(cx: &Ctxt, open: &Missing, kind: QuestionKind) {
    let v = rules::check_option_count(kind, 0).err();
    let why = v.map_or_else(|| "it needs options".to_owned(), |v| v.problem);
    missing(
        cx,
        open,
        &format!("`{kind}` question"),
        "options",
        kind.options_rule(),
        &format!("it {why}"),
    );
}

/// R17–R20 for an array question. Bounds are checked against the option count when the list
/// is written out; a run-time list is checked when the form is built.
fn limits(
    cx: &Ctxt,
    f: &Fields<'_>,
    kind: QuestionKind,
    required: Option<bool>,
    count: Option<usize>,
) -> Result<Limits, ()> {
    let min = f.take("minItems").map(|e| integer(cx, e, Rule::R18));
    let max = f.take("maxItems").map(|e| integer(cx, e, Rule::R19));
    let (min, max) = match (min.transpose(), max.transpose()) {
        (Ok(min), Ok(max)) => (min, max),
        _ => return Err(()),
    };
    let lit = |s: &Option<Slot<(i64, Span)>>| match s {
        Some(Slot::Lit((n, span))) => Some((*n, *span)),
        _ => None,
    };
    let (min_lit, max_lit) = (lit(&min), lit(&max));
    // With the options unknown, check what the literals alone decide, as `files` (whose
    // bounds do not depend on the options) would.
    let (check_kind, option_count) = match count {
        Some(c) => (kind, c),
        None => (QuestionKind::Files, 0),
    };
    let given = |l: Option<(i64, Span)>| l.map(|(n, _)| n);
    let resolved = rules::resolve_selection_limits(
        check_kind,
        required.unwrap_or(false),
        given(min_lit),
        given(max_lit),
        option_count,
    );
    if let Err(problem) = resolved {
        let span = match problem.limit() {
            Some(Limit::Min) => min_lit.or(max_lit),
            Some(Limit::Max) => max_lit.or(min_lit),
            None => None,
        }
        .map_or(f.open, |(_, span)| span);
        sentence(cx, span, check_kind, problem);
        return Err(());
    }
    Ok(Limits {
        min_items: min.map(to_int),
        max_items: max.map(to_int),
    })
}

/// R22: the `accept` list of a `files` question.
fn accept(cx: &Ctxt, f: &Fields<'_>) -> Result<Option<Slot<Vec<Slot<Str>>>>, ()> {
    let Some(e) = f.take("accept") else {
        return Ok(None);
    };
    let expected = "a list of extensions and MIME types `[\".csv\", \"text/csv\"]` or a run-time \
                    `Vec` in braces";
    let items = match list(cx, e, expected)? {
        Slot::Interp(g) => return Ok(Some(Slot::Interp(g))),
        Slot::Lit(items) => items,
    };
    let mut out = Vec::with_capacity(items.len());
    let mut ok = true;
    for v in items {
        match as_str(cx, v, "accept") {
            Ok(s) => out.push(s),
            Err(()) => ok = false,
        }
    }
    if !ok {
        return Err(());
    }
    let literals: Option<Vec<&Str>> = out.iter().map(Slot::lit).collect();
    match literals {
        // All written out: the runtime's own list check, with the index of the bad entry.
        Some(lits) => {
            let values: Vec<&str> = lits.iter().map(|s| s.value.as_str()).collect();
            if let Err((at, v)) = rules::check_accept_list(&values) {
                match at.and_then(|i| lits.get(i)) {
                    Some(s) => {
                        violation(cx, s.span, &wording::subject("accept entry", &s.value), v)
                    }
                    None => violation(cx, e.key_span, "`accept`", v),
                }
                return Err(());
            }
            Ok(Some(Slot::Lit(out)))
        }
        // Some entries come at run time: check the count and the written entries now.
        None => {
            if let Err(v) = rules::check_accept_count(out.len()) {
                violation(cx, e.key_span, "`accept`", v);
                ok = false;
            }
            let mut checked = Vec::with_capacity(out.len());
            for s in out {
                match check_str(cx, s, "accept entry", rules::check_accept_token) {
                    Ok(s) => checked.push(s),
                    Err(()) => ok = false,
                }
            }
            if ok {
                Ok(Some(Slot::Lit(checked)))
            } else {
                Err(())
            }
        }
    }
}
