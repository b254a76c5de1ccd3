//! Code generation for a checked form.
//!
//! Everything is emitted inside `const _: () = { … };` and names the runtime through
//! `<crate>::__private` (`::forms_runtime` unless `#[form(crate = "…")]`), so the generated
//! code works next to user items called `Form`, `Result` or `Option` and in a
//! `#![no_implicit_prelude]` module. Only the `<Name>Parts` struct is emitted outside, since
//! callers name it.

use crate::ast::{Container, FieldKind};
use crate::check::{Checked, ChoiceOption, EnumForm, Question};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

fn opt_str(s: Option<&String>) -> TokenStream {
    match s {
        Some(s) => quote!(__forms::Some(#s)),
        None => quote!(__forms::None),
    }
}

fn opt_u32(n: Option<u32>) -> TokenStream {
    match n {
        Some(n) => quote!(__forms::Some(#n)),
        None => quote!(__forms::None),
    }
}

/// The `<Name>Parts` struct: one `Vec<ResourceOption>` per resource, resources and files
/// question, so that forgetting one is a compile error.
pub(crate) fn parts_struct(
    c: &Container<'_>,
    fields: &[(&syn::Ident, String, String)],
) -> TokenStream {
    let krate = c.krate();
    let vis = c.vis;
    let name = format_ident!("{}Parts", c.ident);
    let doc = format!(
        " The options of the [`{}`] form that are known only at run time: the offered \
         resources of its `resource`, `resources` and `files` questions. They are validated \
         when the form is built.",
        c.ident
    );
    let items = fields.iter().map(|(ident, id, title)| {
        let doc = format!(" The offered options of the question `{id}` (\"{title}\").");
        quote! {
            #[doc = #doc]
            pub #ident: #krate::__private::Vec<#krate::__private::ResourceOption>
        }
    });
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone)]
        #[allow(dead_code)]
        #vis struct #name {
            #(#items,)*
        }
    }
}

/// One question's constructor call.
fn question(q: &Question<'_>, table: &syn::Ident) -> TokenStream {
    let (id, title) = (&q.id, &q.title);
    let description = opt_str(q.description.as_ref());
    let required = q.required;
    let field = q.ident;
    let (min, max) = (opt_u32(q.min_items), opt_u32(q.max_items));
    let kind = match q.kind {
        FieldKind::Text { .. } => {
            let max_length = opt_u32(q.max_length);
            quote!(__forms::QuestionSpec::Text { max_length: #max_length })
        }
        FieldKind::Single { .. } => quote!(__forms::single_select(&#table)),
        FieldKind::Multi { .. } => quote!(__forms::multi_select(&#table, #min, #max)),
        FieldKind::Resource { .. } => {
            quote!(__forms::QuestionSpec::Resource { options: parts.#field })
        }
        FieldKind::Resources => quote! {
            __forms::QuestionSpec::Resources { options: parts.#field, min_items: #min, max_items: #max }
        },
        FieldKind::Files => {
            let accept = match &q.accept {
                Some(list) => quote!(__forms::Some(&[#(#list),*])),
                None => quote!(__forms::None),
            };
            quote! {
                __forms::QuestionSpec::Files {
                    options: parts.#field,
                    min_items: #min,
                    max_items: #max,
                    accept: __forms::accept(#accept),
                }
            }
        }
    };
    quote!(__forms::question(#id, #title, #description, #required, #kind))
}

/// The cell that receives one field's checked answer.
fn cell(q: &Question<'_>, table: &syn::Ident) -> TokenStream {
    match q.kind {
        FieldKind::Text { .. } => quote!(__forms::TextCell::new()),
        FieldKind::Single { .. } => quote!(__forms::ChoiceCell::new(&#table)),
        FieldKind::Multi { .. } => quote!(__forms::ChoicesCell::new(&#table)),
        FieldKind::Resource { .. } => quote!(__forms::UrlCell::new()),
        FieldKind::Resources => quote!(__forms::UrlsCell::new()),
        FieldKind::Files => quote!(__forms::FilesCell::new()),
    }
}

/// The field's value, taken from its filled cell `cells.<index>`.
fn take(q: &Question<'_>, index: usize) -> TokenStream {
    let i = syn::Index::from(index);
    match q.kind {
        FieldKind::Text { optional: false }
        | FieldKind::Single {
            optional: false, ..
        }
        | FieldKind::Resource { optional: false } => quote!(cells.#i.required(form, #index)?),
        FieldKind::Text { optional: true }
        | FieldKind::Single { optional: true, .. }
        | FieldKind::Resource { optional: true } => quote!(cells.#i.optional()),
        FieldKind::Multi { elem } => {
            // The collection's bounds (`Ord` for a `BTreeSet`) are reported at the element type.
            let i = syn::Index {
                index: i.index,
                span: elem.span(),
            };
            quote_spanned!(elem.span()=> cells.#i.collect())
        }
        FieldKind::Resources | FieldKind::Files => quote!(cells.#i.finish()),
    }
}

/// R17–R20 across types: a `Vec<E>`'s limits against `E`'s option count, checked by the
/// rules crate's const fn in a const assertion that points at the limit attribute.
fn selection_assertion(q: &Question<'_>, table: &syn::Ident) -> Option<TokenStream> {
    let (FieldKind::Multi { elem }, Some(span)) = (q.kind, q.limit_span) else {
        return None;
    };
    // The message is fixed at expansion time: a const panic can only print a `&str`.
    let bounds: Vec<String> = [("min_items", q.min_items), ("max_items", q.max_items)]
        .into_iter()
        .filter_map(|(key, n)| n.map(|n| format!("`{key} = {n}`")))
        .collect();
    let elem_name = quote!(#elem).to_string().replace(' ', "");
    let above = format!(
        "{} of question `{}` must not exceed the number of options of `{elem_name}`; see rule R20",
        bounds.join(" and "),
        q.id
    );
    let required = q.required;
    let as_i64 = |n: Option<u32>| match n {
        Some(n) => {
            let n = i64::from(n);
            quote!(__forms::Some(#n))
        }
        None => quote!(__forms::None),
    };
    let (min, max) = (as_i64(q.min_items), as_i64(q.max_items));
    // rustc names the failing constant in its label, so the name reads as the sentence:
    // `MAX_ITEMS_3_OF_FORMATS_MUST_NOT_EXCEED_THE_OPTIONS_OF_FORMAT`. Each assertion sits in
    // its own block, so that two fields never give two constants the same name.
    let shout = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_uppercase()
                } else {
                    '_'
                }
            })
            .collect()
    };
    let name = format_ident!(
        "{}_OF_{}_MUST_NOT_EXCEED_THE_OPTIONS_OF_{}",
        [("MIN_ITEMS", q.min_items), ("MAX_ITEMS", q.max_items)]
            .into_iter()
            .filter_map(|(key, n)| n.map(|n| format!("{key}_{n}")))
            .collect::<Vec<_>>()
            .join("_AND_"),
        shout(&q.id),
        shout(&elem_name),
        span = span
    );
    Some(quote_spanned! {span=>
        const _: () = {
        #[allow(dead_code, unused_qualifications, clippy::panic)]
        const #name: () = match __forms::rules::resolve_selection_limits(
            __forms::rules::QuestionKind::MultiSelect,
            #required,
            #min,
            #max,
            #table.count,
        ) {
            __forms::Ok(_) => (),
            __forms::Err(__forms::rules::SelectionProblem::AboveOptionCount) => {
                ::core::panic!("{}", #above)
            }
            __forms::Err(problem) => ::core::panic!("{}", problem.describe()),
        };
        };
    })
}

fn wrap(c: &Container<'_>, body: TokenStream) -> TokenStream {
    let krate = c.krate();
    quote! {
        #[doc(hidden)]
        const _: () = {
            use #krate::__private as __forms;
            #body
        };
    }
}

/// The `form` body: built once in a `Lazy` when there are no run-time parts.
fn form_fn(ident: &syn::Ident, has_parts: bool, build: TokenStream) -> TokenStream {
    if has_parts {
        quote! {
            fn form(parts: Self::Parts) -> __forms::Result<__forms::TypedForm<Self>, __forms::FormError> {
                #build
            }
        }
    } else {
        quote! {
            fn form(_: Self::Parts) -> __forms::Result<__forms::TypedForm<Self>, __forms::FormError> {
                static FORM: __forms::Lazy<
                    __forms::Result<__forms::TypedForm<#ident>, __forms::FormError>,
                > = __forms::Lazy::new(|| #build);
                __forms::cached(&FORM)
            }
        }
    }
}

/// A struct form.
pub(crate) fn expand_struct(
    c: &Container<'_>,
    message: &str,
    questions: &[Question<'_>],
) -> TokenStream {
    let ident = c.ident;
    let parts: Vec<_> = questions
        .iter()
        .filter(|q| q.kind.has_parts())
        .map(|q| (q.ident, q.id.clone(), q.title.clone()))
        .collect();
    let (parts_def, parts_ty) = if parts.is_empty() {
        (TokenStream::new(), quote!(()))
    } else {
        let name = format_ident!("{}Parts", ident);
        (parts_struct(c, &parts), name.to_token_stream())
    };
    // One table per choice field: the only place that needs `E: FormChoice`, spanned at the
    // field's type, so an unsupported type gets one error rather than one per use.
    let tables: Vec<syn::Ident> = (0..questions.len())
        .map(|i| format_ident!("__FORMS_CHOICE_{}", i))
        .collect();
    let table_defs = questions
        .iter()
        .zip(&tables)
        .filter_map(|(q, t)| match q.kind {
            FieldKind::Single { elem, .. } | FieldKind::Multi { elem } => {
                // Spelled out rather than through `choice_of`: a missing `FormChoice` impl
                // is then reported at the field's type, not as a bound of a runtime helper.
                Some(quote_spanned! {elem.span()=>
                    const #t: __forms::ChoiceOf<#elem> = __forms::ChoiceOf {
                        count: <#elem as __forms::FormChoice>::COUNT,
                        options: <#elem as __forms::FormChoice>::OPTIONS,
                        from_index: <#elem as __forms::FormChoice>::from_index,
                    };
                })
            }
            _ => None,
        });
    let calls = questions.iter().zip(&tables).map(|(q, t)| question(q, t));
    let build = quote! {
        __forms::build::<#ident, _>(#message, [#(#calls),*])
    };
    let form = form_fn(ident, !parts.is_empty(), build);
    let assertions = questions
        .iter()
        .zip(&tables)
        .filter_map(|(q, t)| selection_assertion(q, t));
    let cells = questions.iter().zip(&tables).map(|(q, t)| cell(q, t));
    let fields = questions.iter().enumerate().map(|(i, q)| {
        let f = q.ident;
        let d = take(q, i);
        quote!(#f: #d)
    });
    // The checker writes each checked answer straight into its field's cell; the filled
    // cells become the value.
    let body = quote! {
        #(#table_defs)*
        #(#assertions)*
        #[automatically_derived]
        impl __forms::Form for #ident {
            type Parts = #parts_ty;
            #form
            fn __decode_response(
                form: &__forms::TypedForm<Self>,
                response: __forms::ResponseSource<'_>,
            ) -> __forms::Result<__forms::Outcome<Self>, __forms::FormError> {
                __forms::decode_into(form, response, (#(#cells,)*), |cells| {
                    __forms::Ok(#ident { #(#fields,)* })
                })
            }
        }
    };
    let wrapped = wrap(c, body);
    quote! {
        #parts_def
        #wrapped
    }
}

/// A choice enum, and its one-question form when it has a `message`.
pub(crate) fn expand_enum(
    c: &Container<'_>,
    options: &[ChoiceOption<'_>],
    form: Option<&EnumForm>,
) -> TokenStream {
    let ident = c.ident;
    let count = options.len();
    let metas = options.iter().map(|o| {
        let (id, title) = (&o.id, &o.title);
        let description = opt_str(o.description.as_ref());
        let thumbnail = opt_str(o.thumbnail.as_ref());
        quote! {
            __forms::ChoiceMeta { id: #id, title: #title, description: #description, thumbnail: #thumbnail }
        }
    });
    let from = options.iter().enumerate().map(|(i, o)| {
        let v = o.ident;
        quote!(#i => __forms::Some(#ident::#v))
    });
    let to = options.iter().enumerate().map(|(i, o)| {
        let v = o.ident;
        quote!(#ident::#v => #i)
    });
    let choice = quote! {
        #[automatically_derived]
        impl __forms::FormChoice for #ident {
            const COUNT: usize = #count;
            const OPTIONS: &'static [__forms::ChoiceMeta] = &[#(#metas),*];
            fn from_index(index: usize) -> __forms::Option<Self> {
                match index {
                    #(#from,)*
                    _ => __forms::None,
                }
            }
            fn index(&self) -> usize {
                match *self {
                    #(#to,)*
                }
            }
        }
    };
    let form_impl = form.map(|f| {
        let (message, id) = (&f.message, &f.id);
        let description = opt_str(f.description.as_ref());
        let build = quote! {
            __forms::build::<#ident, 1>(
                #message,
                [__forms::question(
                    #id, #message, #description, true,
                    __forms::single_select(&__forms::choice_of::<#ident>()),
                )],
            )
        };
        let form = form_fn(ident, false, build);
        quote! {
            #[automatically_derived]
            impl __forms::Form for #ident {
                type Parts = ();
                #form
                fn __decode_response(
                    form: &__forms::TypedForm<Self>,
                    response: __forms::ResponseSource<'_>,
                ) -> __forms::Result<__forms::Outcome<Self>, __forms::FormError> {
                    let cell = __forms::ChoiceCell::new(&__forms::choice_of::<Self>());
                    __forms::decode_into(form, response, (cell,), |(cell,)| cell.required(form, 0))
                }
            }
        }
    });
    wrap(
        c,
        quote! {
            #choice
            #form_impl
        },
    )
}

/// `#[derive(Form)]`: parse, check, then emit the impls, or the errors and stub impls.
pub(crate) fn derive(input: &syn::DeriveInput) -> TokenStream {
    let cx = crate::ctxt::Ctxt::new();
    let Some(container) = Container::from_ast(&cx, input) else {
        return cx.into_compile_errors().unwrap_or_default();
    };
    let checked = crate::check::check(&cx, &container);
    if let Some(errors) = cx.into_compile_errors() {
        let stubs = crate::fallback::stubs(&container);
        return quote!(#errors #stubs);
    }
    match checked {
        Checked::Struct {
            message: Some(message),
            questions,
        } => expand_struct(&container, &message, &questions),
        Checked::Enum { options, form } => expand_enum(&container, &options, form.as_ref()),
        // Without a message an error was recorded above.
        Checked::Struct { message: None, .. } => crate::fallback::stubs(&container),
    }
}
