//! `#[derive(StateFields)]` for the structs of Backspin's `State`.
//!
//! The save-state file format walks every field through the generated `visit_fields`, in
//! declaration order and by name, so the on-disk field list cannot drift from the struct
//! (GameRoy once lost a field kept in a separate list). The trait and the visitor live in
//! `backspin_core::state_fields`; this crate only writes the walk.
//!
//! Field attributes, all optional:
//! - `#[state(since = N)]`: the field first appeared in format minor version `N`; files of
//!   an older minor do not contain it and the loader leaves it to a documented fixup.
//! - `#[state(flag)]`: a 0/1 byte; any other value in a file is an error.
//! - `#[state(below = EXPR)]`: a raw enum or bounded counter; a file value `>= EXPR` is an
//!   error.
//! - `#[state(valid = PATH)]`: a raw enum with gaps; `PATH(value: u64) -> bool` decides.
//!
//! - `#[state(old_pad_len = N)]`: on a `_pad` whose length changed, its length in files of
//!   the minors that still saved padding (before 2).
//!
//! Fields whose name starts with `_pad` must be zero in a file (minors from 2 on do not
//! save them at all).

use proc_macro::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Expr, Fields, LitInt, parse_macro_input};

#[proc_macro_derive(StateFields, attributes(state))]
pub fn derive_state_fields(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match expand(&input) {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}

fn expand(input: &DeriveInput) -> syn::Result<proc_macro2::TokenStream> {
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new_spanned(
            input,
            "StateFields derives only for structs with named fields",
        ));
    };
    let Fields::Named(fields) = &data.fields else {
        return Err(syn::Error::new_spanned(
            input,
            "StateFields derives only for structs with named fields",
        ));
    };
    let mut visits = Vec::new();
    for field in &fields.named {
        let ident = field.ident.as_ref().expect("named fields have names");
        let name = ident.to_string();
        let ty = &field.ty;
        let mut since: u16 = 0;
        let mut old_pad_len: usize = 0;
        let mut check = if name.starts_with("_pad") {
            quote!(::backspin_core::state_fields::Check::Zero)
        } else {
            quote!(::backspin_core::state_fields::Check::Any)
        };
        for attr in field.attrs.iter().filter(|a| a.path().is_ident("state")) {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("since") {
                    since = meta.value()?.parse::<LitInt>()?.base10_parse()?;
                    Ok(())
                } else if meta.path.is_ident("old_pad_len") {
                    old_pad_len = meta.value()?.parse::<LitInt>()?.base10_parse()?;
                    Ok(())
                } else if meta.path.is_ident("flag") {
                    check = quote!(::backspin_core::state_fields::Check::Below(2));
                    Ok(())
                } else if meta.path.is_ident("below") {
                    let bound: Expr = meta.value()?.parse()?;
                    check = quote!(::backspin_core::state_fields::Check::Below((#bound) as u64));
                    Ok(())
                } else if meta.path.is_ident("valid") {
                    let function: syn::Path = meta.value()?.parse()?;
                    check = quote!(::backspin_core::state_fields::Check::Valid(#function));
                    Ok(())
                } else {
                    Err(meta.error(
                        "expected `since = N`, `flag`, `below = EXPR`, `valid = PATH` or \
                         `old_pad_len = N`",
                    ))
                }
            })?;
        }
        visits.push(quote! {
            <#ty as ::backspin_core::state_fields::StateField>::visit_field(
                &mut self.#ident,
                &::backspin_core::state_fields::FieldInfo {
                    name: #name,
                    since: #since,
                    check: #check,
                    old_pad_len: #old_pad_len,
                },
                visitor,
            );
        });
    }
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    Ok(quote! {
        impl #impl_generics ::backspin_core::state_fields::StateFields for #ident #ty_generics
        #where_clause
        {
            fn visit_fields<V: ::backspin_core::state_fields::Visitor>(&mut self, visitor: &mut V) {
                #(#visits)*
            }
        }

        impl #impl_generics ::backspin_core::state_fields::StateField for #ident #ty_generics
        #where_clause
        {
            fn visit_field<V: ::backspin_core::state_fields::Visitor>(
                &mut self,
                field: &::backspin_core::state_fields::FieldInfo,
                visitor: &mut V,
            ) {
                visitor.enter(field);
                ::backspin_core::state_fields::StateFields::visit_fields(self, visitor);
                visitor.leave(field);
            }
        }
    })
}
