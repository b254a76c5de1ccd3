//! Stage 1: the macro input as a tree of values, in the shape of the Data JSON.
//!
//! The input is read token by token, not with `syn::Expr`: an interpolation `{expr}` is kept
//! as the brace group the user wrote and emitted unchanged, so any Rust expression works
//! without syn's `full` feature. A syntax mistake is recorded and reading resumes at the
//! next comma, so one invocation reports every mistake.

use crate::ast::unraw;
use crate::ctxt::Ctxt;
use proc_macro2::{Delimiter, Group, Ident, Literal, Span, TokenStream, TokenTree};

/// One value of the input.
pub(crate) enum Value {
    /// `"text"`.
    Str(syn::LitStr),
    /// `true` / `false`.
    Bool(syn::LitBool),
    /// An integer literal, possibly negated.
    Int(IntLit),
    /// A bare word such as `text` (the value of `type`).
    Word(Ident),
    /// `[a, b, …]`.
    List(List),
    /// `{ key: value, … }`.
    Object(Object),
    /// `{expr}`: a run-time Rust value.
    Interp(Group),
    /// Something that could not be read; its error is already recorded.
    Invalid(Span),
}

/// An integer literal.
pub(crate) struct IntLit {
    pub(crate) value: i64,
    pub(crate) span: Span,
}

/// A bracketed list.
pub(crate) struct List {
    pub(crate) span: Span,
    pub(crate) items: Vec<Value>,
}

/// A braced object, or the macro input itself.
pub(crate) struct Object {
    /// The opening brace (the whole input's first token for the top level).
    pub(crate) open: Span,
    pub(crate) entries: Vec<Entry>,
}

impl Object {
    /// The total length, in UTF-16 code units, of the string literals in the object.
    pub(crate) fn literal_utf16_len(&self) -> usize {
        self.entries
            .iter()
            .map(|e| e.value.literal_utf16_len())
            .sum()
    }

    /// Whether any value of the object is or holds a run-time `{expr}`.
    pub(crate) fn has_interp(&self) -> bool {
        self.entries.iter().any(|e| e.value.has_interp())
    }
}

/// `key: value`.
pub(crate) struct Entry {
    pub(crate) key: String,
    pub(crate) key_span: Span,
    pub(crate) value: Value,
}

impl Value {
    /// Where the value was written.
    pub(crate) fn span(&self) -> Span {
        match self {
            Value::Str(s) => s.span(),
            Value::Bool(b) => b.span,
            Value::Int(i) => i.span,
            Value::Word(w) => w.span(),
            Value::List(l) => l.span,
            Value::Object(o) => o.open,
            Value::Interp(g) => g.span(),
            Value::Invalid(s) => *s,
        }
    }

    /// Whether the value is or holds a run-time `{expr}`.
    pub(crate) fn has_interp(&self) -> bool {
        match self {
            Value::Interp(_) => true,
            Value::List(l) => l.items.iter().any(Value::has_interp),
            Value::Object(o) => o.has_interp(),
            _ => false,
        }
    }

    /// The total length, in UTF-16 code units, of the string literals in the value: a lower
    /// bound of its share of the serialized arguments (R4).
    pub(crate) fn literal_utf16_len(&self) -> usize {
        match self {
            Value::Str(s) => forms_rules::utf16_len(&s.value()),
            Value::List(l) => l.items.iter().map(Value::literal_utf16_len).sum(),
            Value::Object(o) => o.literal_utf16_len(),
            _ => 0,
        }
    }

    /// How the value reads in a message (`a string`, `a list`, …).
    pub(crate) fn describe(&self) -> &'static str {
        match self {
            Value::Str(_) => "a string",
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "an integer",
            Value::Word(_) => "a bare word",
            Value::List(_) => "a list",
            Value::Object(_) => "an object",
            Value::Interp(_) => "an interpolated value",
            Value::Invalid(_) => "an invalid value",
        }
    }
}

/// Reads the whole macro input as the entries of the top-level form object.
pub(crate) fn parse_input(cx: &Ctxt, input: TokenStream) -> Object {
    let open = input
        .clone()
        .into_iter()
        .next()
        .map_or_else(Span::call_site, |t| t.span());
    Object {
        open,
        entries: parse_entries(cx, input),
    }
}

/// Splits `stream` at top-level commas.
fn split_commas(stream: TokenStream) -> Vec<Vec<TokenTree>> {
    let mut parts = vec![Vec::new()];
    for tt in stream {
        match &tt {
            TokenTree::Punct(p) if p.as_char() == ',' => parts.push(Vec::new()),
            _ => {
                if let Some(last) = parts.last_mut() {
                    last.push(tt);
                }
            }
        }
    }
    if parts.last().is_some_and(Vec::is_empty) {
        parts.pop();
    }
    parts
}

fn parse_entries(cx: &Ctxt, stream: TokenStream) -> Vec<Entry> {
    let mut entries = Vec::new();
    for part in split_commas(stream) {
        let mut it = part.into_iter();
        let Some(first) = it.next() else {
            // `a: 1,, b: 2`: the empty part has no tokens to point at; the comma is harmless.
            continue;
        };
        let key = match &first {
            TokenTree::Ident(i) => Some(unraw(i)),
            TokenTree::Literal(l) => match syn::Lit::new(l.clone()) {
                syn::Lit::Str(s) => Some(s.value()),
                _ => None,
            },
            _ => None,
        };
        let Some(key) = key else {
            cx.error_at(
                first.span(),
                "expected a key such as `title` followed by `:`",
            );
            continue;
        };
        let key_span = first.span();
        match it.next() {
            Some(TokenTree::Punct(p)) if p.as_char() == ':' => {}
            Some(other) => {
                cx.error_at(other.span(), format!("expected `:` after the key `{key}`"));
                continue;
            }
            None => {
                cx.error_at(
                    key_span,
                    format!("expected `:` and a value after the key `{key}`"),
                );
                continue;
            }
        }
        let rest: Vec<TokenTree> = it.collect();
        let value = parse_value(cx, rest, key_span);
        entries.push(Entry {
            key,
            key_span,
            value,
        });
    }
    entries
}

/// Whether the contents of a brace group read as an object (`key: …`, or nothing) rather than
/// an expression.
fn is_object(stream: &TokenStream) -> bool {
    let mut it = stream.clone().into_iter();
    let first = match it.next() {
        None => return true,
        Some(t) => t,
    };
    let key_like = match &first {
        TokenTree::Ident(_) => true,
        TokenTree::Literal(l) => matches!(syn::Lit::new(l.clone()), syn::Lit::Str(_)),
        _ => false,
    };
    key_like
        && matches!(it.next(), Some(TokenTree::Punct(p))
            if p.as_char() == ':' && p.spacing() == proc_macro2::Spacing::Alone)
}

/// Reads one value from the tokens between a `:` (or a list comma) and the next comma.
/// `after` is where to point when the value is missing.
fn parse_value(cx: &Ctxt, tokens: Vec<TokenTree>, after: Span) -> Value {
    let mut it = tokens.into_iter();
    let Some(first) = it.next() else {
        cx.error_at(after, "expected a value");
        return Value::Invalid(after);
    };
    let value = match first {
        TokenTree::Literal(l) => literal(cx, &l, false, l.span()),
        TokenTree::Punct(p) if p.as_char() == '-' => match it.next() {
            Some(TokenTree::Literal(l)) => literal(cx, &l, true, p.span()),
            other => {
                let span = other.map_or(p.span(), |t| t.span());
                cx.error_at(span, "expected an integer after `-`");
                Value::Invalid(span)
            }
        },
        TokenTree::Ident(i) if i == "true" || i == "false" => {
            Value::Bool(syn::LitBool::new(i == "true", i.span()))
        }
        TokenTree::Ident(i) => Value::Word(i),
        TokenTree::Group(g) => match g.delimiter() {
            Delimiter::Bracket => Value::List(List {
                span: g.span(),
                items: split_commas(g.stream())
                    .into_iter()
                    .map(|part| parse_value(cx, part, g.span_close()))
                    .collect(),
            }),
            Delimiter::Brace if is_object(&g.stream()) => Value::Object(Object {
                open: g.span_open(),
                entries: parse_entries(cx, g.stream()),
            }),
            Delimiter::Brace => Value::Interp(g),
            _ => {
                cx.error_at(
                    g.span(),
                    "expected a literal, a list `[…]`, an object `{ key: … }` or a run-time \
                     value in braces `{expr}`",
                );
                Value::Invalid(g.span())
            }
        },
        TokenTree::Punct(p) => {
            cx.error_at(
                p.span(),
                "expected a literal, a list `[…]`, an object `{ key: … }` or a run-time value \
                 in braces `{expr}`",
            );
            return Value::Invalid(p.span());
        }
    };
    if let Some(extra) = it.next() {
        if !matches!(value, Value::Invalid(_)) {
            cx.error_at(
                extra.span(),
                "expected `,` after the value; wrap a run-time expression in braces: `{expr}`",
            );
        }
        return Value::Invalid(value.span());
    }
    value
}

fn literal(cx: &Ctxt, l: &Literal, negative: bool, span: Span) -> Value {
    match syn::Lit::new(l.clone()) {
        syn::Lit::Str(s) if !negative => Value::Str(s),
        syn::Lit::Int(i) => {
            let parsed = i.base10_parse::<i64>();
            match parsed {
                Ok(v) => Value::Int(IntLit {
                    value: if negative { -v } else { v },
                    span: if negative {
                        span.join(l.span()).unwrap_or(span)
                    } else {
                        l.span()
                    },
                }),
                Err(_) => {
                    cx.error_at(l.span(), "integer literal is too large");
                    Value::Invalid(l.span())
                }
            }
        }
        _ => {
            cx.error_at(
                l.span(),
                "expected a string, integer or boolean literal, a list `[…]`, an object \
                 `{ key: … }` or a run-time value in braces `{expr}`",
            );
            Value::Invalid(l.span())
        }
    }
}
