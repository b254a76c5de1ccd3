//! The derive's input as an IR: the item, its attributes, and each field's question kind.

use crate::attr::{self, Attrs, Position};
use crate::case;
use crate::ctxt::Ctxt;
use proc_macro2::TokenStream;
use quote::ToTokens;
use std::path::Path;
use syn::{DeriveInput, Ident, Type, Visibility};

/// The item deriving `Form`.
pub(crate) struct Container<'a> {
    pub(crate) ident: &'a Ident,
    pub(crate) generics: &'a syn::Generics,
    pub(crate) vis: &'a Visibility,
    pub(crate) attrs: Attrs,
    /// The item's own `#[deprecated]` attributes, repeated on the generated `<Name>Parts`.
    pub(crate) deprecated: Vec<&'a syn::Attribute>,
    pub(crate) data: Data<'a>,
}

pub(crate) enum Data<'a> {
    Struct(Vec<Field<'a>>),
    Enum(Vec<Variant<'a>>),
}

/// A struct field: one question.
pub(crate) struct Field<'a> {
    pub(crate) ident: &'a Ident,
    pub(crate) attrs: Attrs,
    /// `None` when the type is not one the derive supports (already reported).
    pub(crate) kind: Option<FieldKind<'a>>,
}

/// A fieldless enum variant: one choice option.
pub(crate) struct Variant<'a> {
    pub(crate) ident: &'a Ident,
    pub(crate) attrs: Attrs,
}

/// The question a field's type (and kind marker) makes.
pub(crate) enum FieldKind<'a> {
    /// `String` / `Option<String>`.
    Text { optional: bool },
    /// `E` / `Option<E>`, for an enum `E` deriving `Form`.
    Single { optional: bool, elem: &'a Type },
    /// `Vec<E>`, `BTreeSet<E>`, `HashSet<E>`: `set` is the whole collection type.
    Multi { elem: &'a Type, set: &'a Type },
    /// `Url` / `Option<Url>` with `#[form(resource)]`.
    Resource { optional: bool },
    /// `Vec<Url>` with `#[form(resources)]`.
    Resources,
    /// `Vec<FileRef>` with `#[form(files)]`; `offered` when the form offers files chosen at
    /// run time (`#[form(files, offered)]`).
    Files { offered: bool },
}

impl FieldKind<'_> {
    pub(crate) fn question_kind(&self) -> forms_rules::QuestionKind {
        use forms_rules::QuestionKind as K;
        match self {
            FieldKind::Text { .. } => K::Text,
            FieldKind::Single { .. } => K::SingleSelect,
            FieldKind::Multi { .. } => K::MultiSelect,
            FieldKind::Resource { .. } => K::Resource,
            FieldKind::Resources => K::Resources,
            FieldKind::Files { .. } => K::Files,
        }
    }

    /// Whether the field's options are supplied at run time (a field of the `Parts` struct).
    pub(crate) fn has_parts(&self) -> bool {
        matches!(
            self,
            FieldKind::Resource { .. } | FieldKind::Resources | FieldKind::Files { offered: true }
        )
    }

    /// Whether the type itself makes the question optional (`Option<_>`).
    pub(crate) fn is_option(&self) -> bool {
        matches!(
            self,
            FieldKind::Text { optional: true }
                | FieldKind::Single { optional: true, .. }
                | FieldKind::Resource { optional: true }
        )
    }
}

const PRIMITIVES: &[&str] = &[
    "bool", "char", "str", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64",
    "u128", "usize", "f32", "f64", "Box", "Rc", "Arc", "Cow", "PathBuf", "Path", "OsString",
    "Value", "HashMap", "BTreeMap", "VecDeque",
];

fn strip(ty: &Type) -> &Type {
    match ty {
        Type::Group(g) => strip(&g.elem),
        Type::Paren(p) => strip(&p.elem),
        _ => ty,
    }
}

/// The last path segment of a plain path type (no `qself`).
fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match strip(ty) {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
    }
}

/// `ty` is a path ending in `name` with no generic arguments.
fn is_named(ty: &Type, name: &str) -> bool {
    last_segment(ty).is_some_and(|s| s.ident == name && s.arguments.is_none())
}

/// The single type argument of `Wrapper<T>` when the last segment is one of `names`.
fn generic_arg<'t>(ty: &'t Type, names: &[&str]) -> Option<(String, &'t Type)> {
    let seg = last_segment(ty)?;
    let name = seg.ident.to_string();
    if !names.contains(&name.as_str()) {
        return None;
    }
    match &seg.arguments {
        syn::PathArguments::AngleBracketed(args) if args.args.len() == 1 => {
            match args.args.first()? {
                syn::GenericArgument::Type(t) => Some((name, strip(t))),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A type that may be a choice enum: a plain path without generic arguments that is not a
/// primitive or a well-known standard type.
fn choice_candidate(ty: &Type) -> bool {
    last_segment(ty).is_some_and(|s| {
        s.arguments.is_none() && !PRIMITIVES.contains(&s.ident.to_string().as_str())
    })
}

/// The type as written, compact: `Vec<u32>`, `&'static str`, `std::path::PathBuf`.
fn type_name(ty: &Type) -> String {
    let spaced = ty.to_token_stream().to_string();
    let mut out = String::with_capacity(spaced.len());
    let mut chars = spaced.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ' ' {
            let prev = out.chars().last().unwrap_or(' ');
            let next = chars.peek().copied().unwrap_or(' ');
            if "<:([&".contains(prev) || "<>:)],".contains(next) {
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// An unsupported field type: named, with every supported type on the next line (one list,
/// [`crate::wording::SUPPORTED_TYPES`], the same as rustdoc's and RULES.md's).
fn unsupported(cx: &Ctxt, ty: &Type) {
    cx.error_spanned_by(
        ty,
        format!(
            "unsupported form field type `{}`\nhelp: {}",
            type_name(ty),
            crate::wording::SUPPORTED_TYPES
        ),
    );
}

fn classify<'a>(cx: &Ctxt, ty: &'a Type, attrs: &Attrs) -> Option<FieldKind<'a>> {
    let markers: Vec<(&str, &syn::Path)> = [
        ("resource", attrs.resource.key()),
        ("resources", attrs.resources.key()),
        ("files", attrs.files.key()),
    ]
    .into_iter()
    .filter_map(|(n, k)| k.map(|k| (n, k)))
    .collect();
    if let [(first, _), rest @ ..] = markers.as_slice() {
        for (name, k) in rest {
            cx.error_spanned_by(
                k,
                format!(
                    "`{first}` and `{name}` are both given; a field takes at most one of \
                     `resource`, `resources` and `files`"
                ),
            );
        }
        if !rest.is_empty() {
            return None;
        }
    }
    let stripped = strip(ty);
    match markers.first().map(|(n, _)| *n) {
        Some("resource") => {
            if is_named(stripped, "Url") {
                return Some(FieldKind::Resource { optional: false });
            }
            if generic_arg(stripped, &["Option"]).is_some_and(|(_, t)| is_named(t, "Url")) {
                return Some(FieldKind::Resource { optional: true });
            }
            cx.error_spanned_by(
                ty,
                "`#[form(resource)]` needs a field of type `Url` or `Option<Url>`",
            );
            None
        }
        Some("resources") => {
            if generic_arg(stripped, &["Vec"]).is_some_and(|(_, t)| is_named(t, "Url")) {
                return Some(FieldKind::Resources);
            }
            cx.error_spanned_by(ty, "`#[form(resources)]` needs a field of type `Vec<Url>`");
            None
        }
        Some(_) => {
            if generic_arg(stripped, &["Vec"]).is_some_and(|(_, t)| is_named(t, "FileRef")) {
                return Some(FieldKind::Files {
                    offered: attrs.offered.is_set(),
                });
            }
            cx.error_spanned_by(ty, "`#[form(files)]` needs a field of type `Vec<FileRef>`");
            None
        }
        // A misspelt marker (`resorce`) is reported as such; the type is not judged without it.
        None if ["resource", "resources", "files"]
            .iter()
            .any(|m| attrs.written(m)) =>
        {
            None
        }
        None => classify_unmarked(cx, ty, stripped),
    }
}

fn classify_unmarked<'a>(cx: &Ctxt, ty: &'a Type, stripped: &'a Type) -> Option<FieldKind<'a>> {
    let needs_marker = |t: &Type, wrapper: &str| -> bool {
        if is_named(t, "Url") {
            let (marker, shape) = if wrapper == "Vec" {
                ("resources", "Vec<Url>")
            } else {
                ("resource", "Url")
            };
            cx.error_spanned_by(
                ty,
                format!(
                    "a `{shape}` field is a {marker} question: add `#[form({marker})]` and \
                     supply its options through the form's parts"
                ),
            );
            true
        } else if is_named(t, "FileRef") {
            cx.error_spanned_by(
                ty,
                "`FileRef` is the answer of a files question: use `Vec<FileRef>` with \
                 `#[form(files)]`",
            );
            true
        } else {
            false
        }
    };
    if is_named(stripped, "String") {
        return Some(FieldKind::Text { optional: false });
    }
    if let Some((_, inner)) = generic_arg(stripped, &["Option"]) {
        if is_named(inner, "String") {
            return Some(FieldKind::Text { optional: true });
        }
        if needs_marker(inner, "Option") {
            return None;
        }
        if choice_candidate(inner) {
            return Some(FieldKind::Single {
                optional: true,
                elem: inner,
            });
        }
        unsupported(cx, ty);
        return None;
    }
    if let Some((wrapper, inner)) = generic_arg(stripped, &["Vec", "BTreeSet", "HashSet"]) {
        if needs_marker(inner, &wrapper) {
            return None;
        }
        if choice_candidate(inner) && !is_named(inner, "String") {
            return Some(FieldKind::Multi {
                elem: inner,
                set: stripped,
            });
        }
        unsupported(cx, ty);
        return None;
    }
    if needs_marker(stripped, "") {
        return None;
    }
    if choice_candidate(stripped) {
        return Some(FieldKind::Single {
            optional: false,
            elem: stripped,
        });
    }
    unsupported(cx, ty);
    None
}

impl<'a> Container<'a> {
    /// Builds the IR, recording every mistake of the item's shape and attributes.
    pub(crate) fn from_ast(cx: &Ctxt, input: &'a DeriveInput) -> Option<Container<'a>> {
        let pos = match input.data {
            syn::Data::Enum(_) => Position::Enum,
            _ => Position::Struct,
        };
        let mut attrs = attr::parse(cx, pos, &input.attrs);
        if !attrs.krate.is_set() {
            let manifest = std::env::var_os("CARGO_MANIFEST_DIR")
                .and_then(|dir| std::fs::read_to_string(Path::new(&dir).join("Cargo.toml")).ok());
            if let Some(name) = manifest.as_deref().and_then(renamed_runtime) {
                cx.error_spanned_by(
                    &input.ident,
                    format!(
                        "this crate depends on `forms-runtime` under the name `{name}`: add \
                         `#[form(crate = \"::{name}\")]` so that the generated code finds it"
                    ),
                );
                // The stub impls name the runtime as the attribute would.
                attrs.assume_crate(&name);
            }
        }
        if !input.generics.params.is_empty() || input.generics.where_clause.is_some() {
            cx.error_spanned_by(
                &input.generics,
                "`#[derive(Form)]` does not support generic parameters: a form's questions and \
                 options must be known when the crate compiles",
            );
        }
        let data = match &input.data {
            syn::Data::Struct(s) => match &s.fields {
                syn::Fields::Named(named) => Data::Struct(
                    named
                        .named
                        .iter()
                        .filter_map(|f| {
                            let ident = f.ident.as_ref()?;
                            let attrs = attr::parse(cx, Position::Field, &f.attrs);
                            let kind = classify(cx, &f.ty, &attrs);
                            Some(Field { ident, attrs, kind })
                        })
                        .collect(),
                ),
                _ => {
                    cx.error_spanned_by(
                        &input.ident,
                        "`#[derive(Form)]` needs a struct with named fields (one per question) \
                         or a fieldless enum (one variant per option)",
                    );
                    return None;
                }
            },
            syn::Data::Enum(e) => Data::Enum(
                e.variants
                    .iter()
                    .map(|v| {
                        if !matches!(v.fields, syn::Fields::Unit) {
                            cx.error_spanned_by(
                                &v.fields,
                                "a choice variant cannot have fields: each variant of a \
                                 `#[derive(Form)]` enum is one option",
                            );
                        }
                        Variant {
                            ident: &v.ident,
                            attrs: attr::parse(cx, Position::Variant, &v.attrs),
                        }
                    })
                    .collect(),
            ),
            syn::Data::Union(u) => {
                cx.error_spanned_by(
                    u.union_token,
                    "`#[derive(Form)]` needs a struct with named fields or a fieldless enum, \
                     not a union",
                );
                return None;
            }
        };
        Some(Container {
            ident: &input.ident,
            generics: &input.generics,
            vis: &input.vis,
            attrs,
            deprecated: input
                .attrs
                .iter()
                .filter(|a| a.path().is_ident("deprecated"))
                .collect(),
            data,
        })
    }

    /// The path of the runtime crate: `crate = "…"` or `::forms_runtime`.
    pub(crate) fn krate(&self) -> TokenStream {
        match self.attrs.krate.get() {
            Some(p) => p.to_token_stream(),
            None => quote::quote!(::forms_runtime),
        }
    }

    /// The question ID of an enum used as a form by itself.
    pub(crate) fn enum_question_id(&self) -> (String, TokenStream) {
        match self.attrs.id.get() {
            Some(lit) => (lit.value(), lit.to_token_stream()),
            None => (
                case::snake_case(&unraw(self.ident)),
                self.ident.to_token_stream(),
            ),
        }
    }
}

/// The name under which a crate's `Cargo.toml` renames its `forms-runtime` dependency
/// (`fr = { package = "forms-runtime", … }` or a `[dependencies.fr]` table with that
/// `package`), as a Rust crate name; `None` when the dependency is not renamed or not there.
/// A plain line scan, not a TOML parser: it sees the usual spellings and misses the rest
/// (a rename inherited from the workspace), which then get rustc's own error.
pub(crate) fn renamed_runtime(manifest: &str) -> Option<String> {
    let package = |line: &str| {
        line.split(['{', ',', '}']).any(|part| {
            let mut kv = part.splitn(2, '=');
            kv.next().map(str::trim) == Some("package")
                && kv.next().map(|v| v.trim().trim_matches(['"', '\''])) == Some("forms-runtime")
        })
    };
    let mut table: Option<String> = None;
    let mut renamed = None;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            // `[dependencies.fr]`, `[target.'cfg(unix)'.dev-dependencies.fr]`.
            table = line
                .trim_matches(['[', ']'])
                .rsplit_once("dependencies.")
                .map(|(_, name)| name.trim().to_owned());
            if matches!(table.as_deref(), Some("forms-runtime" | "forms_runtime")) {
                return None;
            }
            continue;
        }
        let key = line.split('=').next().map(str::trim).unwrap_or_default();
        let name = match &table {
            Some(name) if key == "package" && package(line) => name.clone(),
            None if package(line) => key.to_owned(),
            _ => {
                if table.is_none() && matches!(key, "forms-runtime" | "forms_runtime") {
                    return None;
                }
                continue;
            }
        };
        let name = name.trim_matches(['"', '\'']).replace('-', "_");
        if name == "forms_runtime" {
            return None;
        }
        renamed = Some(name);
    }
    renamed
}

/// The name of an identifier without its `r#` prefix.
pub(crate) fn unraw(ident: &Ident) -> String {
    let s = ident.to_string();
    match s.strip_prefix("r#") {
        Some(rest) => rest.to_owned(),
        None => s,
    }
}

/// An ID of a field or variant: `id = "…"`, else the name after `rename_all`; with the tokens
/// to span an error at.
pub(crate) fn resolve_id(
    attrs: &Attrs,
    ident: &Ident,
    rename_all: Option<&case::RenameRule>,
) -> (String, TokenStream) {
    if let Some(lit) = attrs.id.get() {
        return (lit.value(), lit.to_token_stream());
    }
    let name = unraw(ident);
    let id = match rename_all {
        Some(rule) => rule.apply(&name),
        None => name,
    };
    (id, ident.to_token_stream())
}
