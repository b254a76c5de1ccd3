//! What the derive emits when it reported errors: the errors, plus minimal impls of `Form`
//! (and `FormChoice` for enums), so that code using the type does not drown our messages in
//! follow-on errors about missing impls or a missing `<Name>Parts` struct.

use crate::ast::{Container, Data};
use proc_macro2::TokenStream;
use quote::quote;

/// Stub impls for `c`, which failed its checks.
pub(crate) fn stubs(c: &Container<'_>) -> TokenStream {
    let ident = c.ident;
    let (impl_generics, ty_generics, where_clause) = c.generics.split_for_impl();
    let most_options = forms_rules::limits::OPTIONS_MAX;
    let (parts_def, parts_ty, choice) = match &c.data {
        Data::Struct(fields) => {
            let parts: Vec<_> = fields
                .iter()
                .filter(|f| {
                    f.kind.as_ref().is_some_and(|k| k.has_parts())
                        || f.attrs.resource.is_set()
                        || f.attrs.resources.is_set()
                        || (f.attrs.files.is_set() && f.attrs.offered.is_set())
                })
                .map(|f| (f.ident, f.ident.to_string(), String::new()))
                .collect();
            if parts.is_empty() {
                (TokenStream::new(), quote!(()), TokenStream::new())
            } else {
                (
                    crate::expand::parts_struct(c, &parts),
                    {
                        let name = crate::expand::parts_name(c);
                        quote!(#name)
                    },
                    TokenStream::new(),
                )
            }
        }
        Data::Enum(_) if c.generics.params.is_empty() => (
            TokenStream::new(),
            quote!(()),
            // The largest count the contract allows, so that no limit elsewhere fails
            // because of this enum's own mistakes.
            quote! {
                impl<const N: usize> __forms::AtLeastOptions<N> for #ident {}
                impl #impl_generics __forms::FormChoice for #ident #ty_generics #where_clause {
                    const COUNT: usize = #most_options;
                    const OPTIONS: &'static [__forms::ChoiceMeta] = &[];
                    fn from_index(_: usize) -> __forms::Option<Self> {
                        __forms::None
                    }
                    fn index(&self) -> usize {
                        0
                    }
                }
            },
        ),
        Data::Enum(_) => (TokenStream::new(), quote!(()), TokenStream::new()),
    };
    let static_impl = if parts_def.is_empty() {
        quote! {
            impl #impl_generics __forms::StaticForm for #ident #ty_generics #where_clause {
                fn form() -> __forms::TypedForm<Self> {
                    __forms::never()
                }
            }
        }
    } else {
        TokenStream::new()
    };
    let impls = crate::expand::wrap(
        c,
        quote! {
            #choice
            impl #impl_generics __forms::Form for #ident #ty_generics #where_clause {
                type Parts = #parts_ty;
                fn build(_: Self::Parts) -> __forms::Result<__forms::TypedForm<Self>, __forms::FormError> {
                    __forms::failed()
                }
                fn __decode_response(
                    _: &__forms::TypedForm<Self>,
                    _: __forms::ResponseSource<'_>,
                ) -> __forms::Result<__forms::Outcome<Self>, __forms::FormError> {
                    __forms::failed()
                }
            }
            #static_impl
        },
    );
    quote! {
        #parts_def
        #impls
    }
}
