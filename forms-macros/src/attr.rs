//! `#[form(...)]` attributes and doc comments, parsed into typed slots.
//!
//! Every key has one slot that remembers the key's path and the value's tokens, so a later
//! stage can span its error at the right place, and a key given twice is reported at its
//! second use. A mistake in one key never stops the others from being read: the bad value is
//! skipped up to the next comma and parsing goes on.

use crate::case::{RenameRule, RULE_NAMES};
use crate::ctxt::Ctxt;
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::parse::ParseStream;
use syn::punctuated::Punctuated;
use syn::{Attribute, LitInt, LitStr, Token};

/// Where an attribute sits; each place accepts its own keys.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Position {
    Struct,
    Enum,
    Field,
    Variant,
}

impl Position {
    fn keys(self) -> &'static [&'static str] {
        match self {
            Position::Struct => &["message", "rename_all", "parts", "crate"],
            Position::Enum => &["message", "id", "description", "rename_all", "crate"],
            Position::Field => &[
                "id",
                "title",
                "description",
                "max_length",
                "min_items",
                "max_items",
                "required",
                "accept",
                "resource",
                "resources",
                "files",
                "offered",
            ],
            Position::Variant => &["id", "title", "description", "thumbnail"],
        }
    }

    fn name(self) -> &'static str {
        match self {
            Position::Struct => "struct",
            Position::Enum => "enum",
            Position::Field => "field",
            Position::Variant => "variant",
        }
    }
}

/// One attribute slot: the key as written and the parsed value.
pub(crate) struct Attr<T> {
    value: Option<(syn::Path, T)>,
}

impl<T> Default for Attr<T> {
    fn default() -> Self {
        Attr { value: None }
    }
}

impl<T> Attr<T> {
    fn set(&mut self, cx: &Ctxt, key: &syn::Path, value: T) {
        if self.value.is_some() {
            cx.error_spanned_by(key, format!("duplicate form attribute `{}`", key_name(key)));
        } else {
            self.value = Some((key.clone(), value));
        }
    }

    /// The value, when the key was given.
    pub(crate) fn get(&self) -> Option<&T> {
        self.value.as_ref().map(|(_, v)| v)
    }

    /// The key as written, when it was given.
    pub(crate) fn key(&self) -> Option<&syn::Path> {
        self.value.as_ref().map(|(k, _)| k)
    }

    pub(crate) fn is_set(&self) -> bool {
        self.value.is_some()
    }
}

/// An integer value; a leading `-` is accepted so that the rules, not the parser, refuse it.
pub(crate) struct Int {
    pub(crate) value: i64,
    pub(crate) tokens: TokenStream,
}

/// A list of strings: `[".csv", "text/csv"]`, or a single string.
pub(crate) struct List {
    pub(crate) items: Vec<LitStr>,
    pub(crate) tokens: TokenStream,
}

/// A doc comment, line by line, each with its attribute (for spans).
#[derive(Default)]
pub(crate) struct Docs {
    lines: Vec<(String, Attribute)>,
}

impl Docs {
    fn push(&mut self, attr: &Attribute) {
        if let syn::Meta::NameValue(nv) = &attr.meta {
            if let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
            {
                for line in s.value().split('\n') {
                    let line = line.strip_suffix('\r').unwrap_or(line);
                    let line = line.strip_prefix(' ').unwrap_or(line);
                    self.lines
                        .push((forms_rules::js_trim_end(line).to_owned(), attr.clone()));
                }
            }
        }
    }

    fn first_line(&self) -> Option<usize> {
        self.lines
            .iter()
            .position(|(l, _)| !forms_rules::is_js_blank(l))
    }

    /// The first nonblank line, trimmed, with the doc attribute it came from.
    pub(crate) fn title(&self) -> Option<(String, TokenStream)> {
        let i = self.first_line()?;
        let (line, attr) = self.lines.get(i)?;
        Some((
            forms_rules::js_trim(line).to_owned(),
            attr.to_token_stream(),
        ))
    }

    /// The lines after the title: lines of a paragraph joined by a space, paragraphs by a
    /// blank line. `None` when there are none.
    pub(crate) fn description(&self) -> Option<(String, TokenStream)> {
        let start = self.first_line()? + 1;
        let rest = self.lines.get(start..)?;
        let first = rest.iter().find(|(l, _)| !forms_rules::is_js_blank(l))?;
        let mut paragraphs: Vec<String> = Vec::new();
        let mut current = String::new();
        for (line, _) in rest {
            let t = forms_rules::js_trim(line);
            if t.is_empty() {
                if !current.is_empty() {
                    paragraphs.push(std::mem::take(&mut current));
                }
            } else {
                if !current.is_empty() {
                    current.push(' ');
                }
                current.push_str(t);
            }
        }
        if !current.is_empty() {
            paragraphs.push(current);
        }
        Some((paragraphs.join("\n\n"), first.1.to_token_stream()))
    }
}

/// Every key any position accepts; [`parse`] fills only those its position allows.
#[derive(Default)]
pub(crate) struct Attrs {
    pub(crate) message: Attr<LitStr>,
    pub(crate) id: Attr<LitStr>,
    pub(crate) title: Attr<LitStr>,
    pub(crate) description: Attr<LitStr>,
    pub(crate) thumbnail: Attr<LitStr>,
    pub(crate) rename_all: Attr<RenameRule>,
    pub(crate) krate: Attr<syn::Path>,
    pub(crate) max_length: Attr<Int>,
    pub(crate) min_items: Attr<Int>,
    pub(crate) max_items: Attr<Int>,
    pub(crate) required: Attr<()>,
    pub(crate) resource: Attr<()>,
    pub(crate) resources: Attr<()>,
    pub(crate) files: Attr<()>,
    pub(crate) offered: Attr<()>,
    pub(crate) parts: Attr<syn::Ident>,
    pub(crate) accept: Attr<List>,
    pub(crate) docs: Docs,
    /// Every key written, even those whose value was refused, so that a later stage does not
    /// also report it as missing.
    written: Vec<String>,
}

fn key_name(path: &syn::Path) -> String {
    path.get_ident()
        .map(ToString::to_string)
        .unwrap_or_else(|| path.to_token_stream().to_string().replace(' ', ""))
}

/// Skips a value up to the next top-level comma, after an error in it.
fn skip_value(input: ParseStream<'_>) -> syn::Result<()> {
    while !input.is_empty() && !input.peek(Token![,]) {
        input.parse::<TokenTree>()?;
    }
    Ok(())
}

fn list_keys(keys: &[&str]) -> String {
    keys.iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The value after `=`, or an error that says how the key is written.
fn value<'a>(
    meta: &'a ParseNestedMeta<'_>,
    key: &str,
    example: &str,
) -> syn::Result<ParseStream<'a>> {
    if meta.input.peek(Token![=]) {
        meta.value()
    } else {
        Err(meta.error(format!("`{key}` needs a value: `{key} = {example}`")))
    }
}

fn parse_str(meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<LitStr> {
    let input = value(meta, key, "\"…\"")?;
    input
        .parse::<LitStr>()
        .map_err(|e| syn::Error::new(e.span(), format!("`{key}` takes a string: `{key} = \"…\"`")))
}

/// A string holding Rust syntax (a path, a name), parsed as `T`; else the error `expected` at
/// the string.
fn parse_str_as<T: syn::parse::Parse>(
    meta: &ParseNestedMeta<'_>,
    key: &str,
    expected: &str,
) -> syn::Result<T> {
    let v = parse_str(meta, key)?;
    v.parse().map_err(|_| syn::Error::new(v.span(), expected))
}

fn parse_int(meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<Int> {
    let input = value(meta, key, "3")?;
    let mut tokens = TokenStream::new();
    let negative = if input.peek(Token![-]) {
        let minus: Token![-] = input.parse()?;
        minus.to_tokens(&mut tokens);
        true
    } else {
        false
    };
    let lit: LitInt = input
        .parse()
        .map_err(|e| syn::Error::new(e.span(), format!("`{key}` takes an integer: `{key} = 3`")))?;
    lit.to_tokens(&mut tokens);
    let n: i64 = lit.base10_parse()?;
    Ok(Int {
        value: if negative { -n } else { n },
        tokens,
    })
}

fn parse_list(meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<List> {
    let input = value(meta, key, "[\".csv\", \"text/csv\"]")?;
    if input.peek(LitStr) {
        let s: LitStr = input.parse()?;
        return Ok(List {
            tokens: s.to_token_stream(),
            items: vec![s],
        });
    }
    let group: proc_macro2::Group = input.parse().map_err(|e| {
        syn::Error::new(
            e.span(),
            format!("`{key}` takes a list of strings: `{key} = [\".csv\", \"text/csv\"]`"),
        )
    })?;
    if group.delimiter() != proc_macro2::Delimiter::Bracket {
        return Err(syn::Error::new(
            group.span(),
            format!(
                "`{key}` takes a list of strings in brackets: `{key} = [\".csv\", \"text/csv\"]`"
            ),
        ));
    }
    let items = syn::parse::Parser::parse2(
        Punctuated::<LitStr, Token![,]>::parse_terminated,
        group.stream(),
    )?;
    Ok(List {
        items: items.into_iter().collect(),
        tokens: group.to_token_stream(),
    })
}

fn parse_flag(meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<()> {
    if meta.input.is_empty() || meta.input.peek(Token![,]) {
        Ok(())
    } else {
        Err(meta.error(format!("`{key}` takes no value: write `#[form({key})]`")))
    }
}

impl Attrs {
    /// Names the runtime `::name`, as `crate = "::name"` would, without the key being written.
    pub(crate) fn assume_crate(&mut self, name: &str) {
        if let Ok(path) = syn::parse_str::<syn::Path>(&format!("::{name}")) {
            self.krate.value = Some((syn::parse_quote!(crate), path));
        }
    }

    /// Whether `key` was written, whatever became of its value.
    pub(crate) fn written(&self, key: &str) -> bool {
        self.written.iter().any(|k| k == key)
    }

    fn parse_one(
        &mut self,
        cx: &Ctxt,
        pos: Position,
        meta: &ParseNestedMeta<'_>,
    ) -> syn::Result<()> {
        let key = key_name(&meta.path);
        if !pos.keys().contains(&key.as_str()) {
            cx.error_spanned_by(
                &meta.path,
                crate::wording::unknown_key(
                    "form attribute",
                    &key,
                    &format!("on a {}", pos.name()),
                    pos.keys(),
                    None,
                ),
            );
            // A misspelt key counts as the key it stands for, so that `titel = "…"` is not
            // also reported as a missing title.
            if let Some(meant) = crate::wording::suggest(&key, pos.keys()) {
                self.written.push(meant.to_owned());
            }
            return skip_value(meta.input);
        }
        let path = &meta.path;
        self.written.push(key.clone());
        let result = match key.as_str() {
            "message" => parse_str(meta, &key).map(|v| self.message.set(cx, path, v)),
            "id" => parse_str(meta, &key).map(|v| self.id.set(cx, path, v)),
            "title" => parse_str(meta, &key).map(|v| self.title.set(cx, path, v)),
            "description" => parse_str(meta, &key).map(|v| self.description.set(cx, path, v)),
            "thumbnail" => parse_str(meta, &key).map(|v| self.thumbnail.set(cx, path, v)),
            "rename_all" => {
                parse_str(meta, &key).and_then(|v| match RenameRule::from_name(&v.value()) {
                    Some(rule) => {
                        self.rename_all.set(cx, path, rule);
                        Ok(())
                    }
                    None => Err(syn::Error::new(
                        v.span(),
                        format!(
                            "unknown `rename_all` convention `{}`; expected one of {}",
                            v.value(),
                            list_keys(&RULE_NAMES.iter().map(|(n, _)| *n).collect::<Vec<_>>())
                        ),
                    )),
                })
            }
            "crate" => parse_str_as(
                meta,
                &key,
                "`crate` takes a path to the forms runtime: `crate = \"::forms_runtime\"`",
            )
            .map(|p| self.krate.set(cx, path, p)),
            "max_length" => parse_int(meta, &key).map(|v| self.max_length.set(cx, path, v)),
            "min_items" => parse_int(meta, &key).map(|v| self.min_items.set(cx, path, v)),
            "max_items" => parse_int(meta, &key).map(|v| self.max_items.set(cx, path, v)),
            "accept" => parse_list(meta, &key).map(|v| self.accept.set(cx, path, v)),
            "required" => parse_flag(meta, &key).map(|v| self.required.set(cx, path, v)),
            "resource" => parse_flag(meta, &key).map(|v| self.resource.set(cx, path, v)),
            "resources" => parse_flag(meta, &key).map(|v| self.resources.set(cx, path, v)),
            "files" => parse_flag(meta, &key).map(|v| self.files.set(cx, path, v)),
            "offered" => parse_flag(meta, &key).map(|v| self.offered.set(cx, path, v)),
            "parts" => parse_str_as(
                meta,
                &key,
                "`parts` takes the name of the struct to generate: `parts = \"ReportParts\"`",
            )
            .map(|ident| self.parts.set(cx, path, ident)),
            _ => Ok(()),
        };
        if let Err(e) = result {
            cx.syn_error(e);
        }
        skip_value(meta.input)
    }
}

/// Reads the `#[form(...)]` attributes and doc comments of one item, recording every mistake.
pub(crate) fn parse(cx: &Ctxt, pos: Position, attrs: &[Attribute]) -> Attrs {
    let mut out = Attrs::default();
    for attr in attrs {
        if attr.path().is_ident("doc") {
            out.docs.push(attr);
        } else if attr.path().is_ident("form") {
            if let syn::Meta::List(list) = &attr.meta {
                if list.tokens.is_empty() {
                    cx.error_spanned_by(attr, "empty `#[form()]` attribute");
                    continue;
                }
            }
            if let Err(e) = attr.parse_nested_meta(|meta| out.parse_one(cx, pos, &meta)) {
                cx.syn_error(e);
            }
        }
    }
    out
}

/// The span of a slot's key and value together, for errors about the whole attribute.
pub(crate) fn key_span<T>(attr: &Attr<T>) -> Span {
    attr.key()
        .and_then(|k| k.get_ident())
        .map_or_else(Span::call_site, proc_macro2::Ident::span)
}
