//! Stage 3: the checked form as Rust code that builds a `FormSpec` and validates it.
//!
//! A form with no `{expr}` is built once per process, in a `Lazy` static, and each evaluation
//! returns a clone (one reference count). A form with run-time values converts each of them
//! where it stands, through a function of `__private::inline` spanned at the expression, so a
//! value of the wrong type is reported there.

use super::ir::{Choice, Form, Image, Int, Limits, Options, Question, Resource, Slot, Spec, Str};
use proc_macro2::{Group, Span, TokenStream};
use quote::{quote, quote_spanned};

/// The code of a form that passed every check; `fixed` when it has no `{expr}`. `krate` is
/// the path of the runtime (`$crate` when called through `forms_runtime::form!`).
pub(crate) fn form(form: &Form, fixed: bool, krate: &TokenStream) -> TokenStream {
    let rt = rt();
    let spec = spec(form);
    let name = quote::format_ident!("FORM", span = Span::mixed_site());
    if fixed {
        quote! {{
            use #krate::__private::inline as __forms_rt;
            static #name: #rt::Lazy<#rt::Result<#rt::DataForm, #rt::FormError>> =
                #rt::Lazy::new(|| #rt::prepare(#spec));
            #rt::Clone::clone(&*#name)
        }}
    } else {
        let value = quote::format_ident!("form", span = Span::mixed_site());
        quote! {{
            use #krate::__private::inline as __forms_rt;
            // The user's `{expr}` blocks are kept as written.
            #[allow(unused_braces)]
            let #value = #rt::prepare(#spec);
            #value
        }}
    }
}

/// The code of an invocation that failed its checks: the errors, then a value of the right
/// type so that no follow-on error hides them.
pub(crate) fn fallback(errors: TokenStream, krate: &TokenStream) -> TokenStream {
    quote! {{
        #errors
        #krate::__private::inline::unreachable_form()
    }}
}

/// The runtime's `__private::inline`, as the block of the expansion imports it.
fn rt() -> TokenStream {
    quote!(__forms_rt)
}

/// The conversion `func` of an interpolation, spanned at the user's expression: a call of
/// the public `form_values` trait's method, so that a value of the wrong type is reported
/// in that trait's words with nothing of the runtime's source.
fn convert(func: &str, g: &Group) -> TokenStream {
    let span = g.span();
    let list = |item: &str| (format!("ListValue::<__forms_rt::{item}>"), "into_list");
    let one = |item: &str| (format!("ItemValue::<__forms_rt::{item}>"), "into_item");
    let (path, method) = match func {
        "text" => ("TextValue".to_owned(), "into_text"),
        "optional_text" => ("OptionalTextValue".to_owned(), "into_optional_text"),
        "flag" => ("BoolValue".to_owned(), "into_bool"),
        "count" => ("CountValue".to_owned(), "into_count"),
        "optional_image" => ("OptionalImageValue".to_owned(), "into_optional_image"),
        "questions" => list("QuestionModel"),
        "choice_options" => list("ChoiceOptionModel"),
        "resource_options" => list("ResourceOptionModel"),
        "images" => list("ImageModel"),
        "question" => one("QuestionModel"),
        "choice_option" => one("ChoiceOptionModel"),
        "resource_option" => one("ResourceOptionModel"),
        "image" => one("ImageModel"),
        _ => {
            let func = proc_macro2::Ident::new(func, span);
            return quote_spanned!(span=> __forms_rt::#func(#g));
        }
    };
    let path: TokenStream = format!("__forms_rt::{path}::{method}")
        .parse()
        .unwrap_or_default();
    let path = respan(path, span);
    quote_spanned!(span=> #path(#g))
}

fn respan(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tt| {
            tt.set_span(span);
            tt
        })
        .collect()
}

fn string(s: &Slot<Str>) -> TokenStream {
    let rt = rt();
    match s {
        Slot::Lit(s) => {
            let lit = syn::LitStr::new(&s.value, s.span);
            quote!(#rt::lit(#lit))
        }
        Slot::Interp(g) => convert("text", g),
    }
}

fn optional_string(s: &Option<Slot<Str>>) -> TokenStream {
    let rt = rt();
    match s {
        None => quote!(#rt::None),
        Some(Slot::Interp(g)) => convert("optional_text", g),
        Some(lit) => {
            let s = string(lit);
            quote!(#rt::Some(#s))
        }
    }
}

fn count(c: &Option<Slot<Int>>) -> TokenStream {
    let rt = rt();
    match c {
        None => quote!(#rt::None),
        Some(Slot::Lit(i)) => {
            let mut lit = proc_macro2::Literal::u32_suffixed(i.value);
            lit.set_span(i.span);
            quote!(#rt::Some(#lit))
        }
        Some(Slot::Interp(g)) => {
            let c = convert("count", g);
            quote!(#rt::Some(#c))
        }
    }
}

/// A written-out list, or one interpolated list converted by `func`.
fn list<T>(l: &Slot<Vec<T>>, func: &str, item: impl Fn(&T) -> TokenStream) -> TokenStream {
    let rt = rt();
    match l {
        Slot::Lit(items) => {
            let items = items.iter().map(item);
            quote!(#rt::list([#(#items),*]))
        }
        Slot::Interp(g) => convert(func, g),
    }
}

fn image(i: &Slot<Image>, func: &str) -> TokenStream {
    let rt = rt();
    match i {
        Slot::Lit(i) => {
            let src = string(&i.src);
            let mime_type = optional_string(&i.mime_type);
            quote!(#rt::ImageModel { src: #src, mime_type: #mime_type })
        }
        Slot::Interp(g) => convert(func, g),
    }
}

fn optional_image(i: &Option<Slot<Image>>) -> TokenStream {
    let rt = rt();
    match i {
        None => quote!(#rt::None),
        Some(Slot::Interp(g)) => convert("optional_image", g),
        Some(lit) => {
            let i = image(lit, "image");
            quote!(#rt::Some(#i))
        }
    }
}

fn choice(c: &Slot<Choice>) -> TokenStream {
    let rt = rt();
    match c {
        Slot::Lit(c) => {
            let id = string(&c.id);
            let title = string(&c.title);
            let description = optional_string(&c.description);
            let thumbnail = optional_image(&c.thumbnail);
            quote!(#rt::ChoiceOptionModel {
                id: #id,
                title: #title,
                description: #description,
                thumbnail: #thumbnail,
            })
        }
        Slot::Interp(g) => convert("choice_option", g),
    }
}

fn resource(r: &Slot<Resource>) -> TokenStream {
    let rt = rt();
    match r {
        Slot::Lit(r) => {
            let uri = string(&r.uri);
            let name = string(&r.name);
            let title = string(&r.title);
            let description = optional_string(&r.description);
            let mime_type = optional_string(&r.mime_type);
            let icons = match &r.icons {
                None => quote!(#rt::None),
                Some(icons) => {
                    let l = list(icons, "images", |i| image(i, "image"));
                    quote!(#rt::Some(#l))
                }
            };
            let thumbnail = optional_image(&r.thumbnail);
            quote!(#rt::ResourceOptionModel {
                uri: #uri,
                name: #name,
                title: #title,
                description: #description,
                mime_type: #mime_type,
                icons: #icons,
                thumbnail: #thumbnail,
            })
        }
        Slot::Interp(g) => convert("resource_option", g),
    }
}

fn choices(o: &Options<Choice>) -> TokenStream {
    list(o, "choice_options", choice)
}

fn resources(o: &Options<Resource>) -> TokenStream {
    list(o, "resource_options", resource)
}

fn question_spec(s: &Spec) -> TokenStream {
    let rt = rt();
    let limits = |l: &Limits| (count(&l.min_items), count(&l.max_items));
    match s {
        Spec::Text { max_length } => {
            let max_length = count(max_length);
            quote!(#rt::QuestionSpecModel::Text { max_length: #max_length })
        }
        Spec::SingleSelect { options } => {
            let options = choices(options);
            quote!(#rt::QuestionSpecModel::SingleSelect { options: #options })
        }
        Spec::MultiSelect { options, limits: l } => {
            let options = choices(options);
            let (min, max) = limits(l);
            quote!(#rt::QuestionSpecModel::MultiSelect {
                options: #options,
                min_items: #min,
                max_items: #max,
            })
        }
        Spec::Resource { options } => {
            let options = resources(options);
            quote!(#rt::QuestionSpecModel::Resource { options: #options })
        }
        Spec::Resources { options, limits: l } => {
            let options = resources(options);
            let (min, max) = limits(l);
            quote!(#rt::QuestionSpecModel::Resources {
                options: #options,
                min_items: #min,
                max_items: #max,
            })
        }
        Spec::Files {
            options,
            limits: l,
            accept,
        } => {
            let options = match options {
                Some(o) => resources(o),
                None => quote!(#rt::Vec::new()),
            };
            let (min, max) = limits(l);
            let accept = match accept {
                None => quote!(#rt::None),
                Some(a) => {
                    let l = list(a, "accept", string);
                    quote!(#rt::Some(#l))
                }
            };
            quote!(#rt::QuestionSpecModel::Files {
                options: #options,
                min_items: #min,
                max_items: #max,
                accept: #accept,
            })
        }
    }
}

fn question(q: &Slot<Question>) -> TokenStream {
    let rt = rt();
    match q {
        Slot::Lit(q) => {
            let id = string(&q.id);
            let title = string(&q.title);
            let description = optional_string(&q.description);
            let required = match &q.required {
                Slot::Lit(b) => quote!(#b),
                Slot::Interp(g) => convert("flag", g),
            };
            let kind = question_spec(&q.spec);
            quote!(#rt::QuestionModel {
                id: #id,
                title: #title,
                description: #description,
                required: #required,
                kind: #kind,
            })
        }
        Slot::Interp(g) => convert("question", g),
    }
}

fn spec(form: &Form) -> TokenStream {
    let rt = rt();
    let message = string(&form.message);
    let questions = list(&form.questions, "questions", question);
    quote!(#rt::FormSpecModel {
        message: #message,
        questions: #questions,
    })
}
