//! The tokens of one probe: a call to the recorder's `step` with the statement's line, the
//! bindings in scope, what it mentions, the host fields it reaches and its hints.

use proc_macro2::{Span, TokenStream as Tokens};
use quote::{quote, quote_spanned, ToTokens};
use syn::{parse_quote, Ident, Stmt};

use crate::host::{root, HostField};
use crate::recorder_path;
use crate::scope::{Binding, Scope};
use crate::shapes::Of;
use crate::walk::{Hints, Probes};

impl Probes<'_> {
    /// One probe: the statement's line, its visible locals, what it mentions, and the host fields
    /// it can reach, with its `hints`.
    pub(crate) fn probe(
        &mut self,
        span: Span,
        scope: &Scope,
        mentions: &[String],
        fresh: &[String],
        hints: &Hints,
    ) -> Stmt {
        self.spans.push(span);
        let recorder = recorder_path();
        let names = scope.names();
        let values = scope.bindings.iter().map(|Binding { name, moved, .. }| {
            if *moved {
                quote!(::core::option::Option::None)
            } else {
                quote!(::core::option::Option::Some(&#name as &dyn #recorder::Snapshot))
            }
        });
        let reachable = |field: &&HostField| {
            scope.bindings.iter().any(|b| !b.moved && root(&field.value) == Some(&b.name))
        };
        let reached: Vec<&HostField> = self.host.iter().filter(reachable).collect();
        let host = reached.iter().map(|HostField { key, value }| {
            let key = key.to_string();
            let root = root(value).map(Ident::to_string);
            quote!((#key, #root))
        });
        let lists = reached
            .iter()
            .map(|HostField { value, .. }| quote!(&#value as &dyn #recorder::HostList));
        let not_copy = hints.moves.as_ref().map(|name| quote!(#recorder::not_copy(&#name);));
        // A frozen binding is written once: it must have no interior mutability (`recorder::frozen`).
        let frozen = scope
            .bindings
            .iter()
            .filter(|b| b.frozen && !b.moved)
            .map(|Binding { name, .. }| quote!(#recorder::frozen(&#name);));
        let vecs = hints.appends.iter().chain(hints.element.as_ref().map(|(name, _)| name));
        let a_vec = vecs.map(|name| quote!(#recorder::a_vec(&#name);));
        let name = |ident: &Ident| ident.to_string();
        let some = |tokens: Option<Tokens>| match tokens {
            Some(tokens) => quote!(::core::option::Option::Some(#tokens)),
            None => quote!(::core::option::Option::None),
        };
        let appends = some(hints.appends.as_ref().map(|ident| name(ident).into_token_stream()));
        let returns = some(hints.returns.as_ref().map(|ident| name(ident).into_token_stream()));
        let pushed = some(hints.pushed.as_ref().map(|(list, element)| {
            let (list, element) = (name(list), name(element));
            quote!((#list, #element))
        }));
        let element = some(hints.element.as_ref().map(|(ident, at)| {
            let key = name(ident);
            quote!((#key, #at))
        }));
        let element_value = some(
            hints
                .element
                .as_ref()
                .map(|(ident, at)| quote!(&#ident[#at] as &dyn #recorder::Snapshot)),
        );
        let copy = some(hints.copy.as_ref().map(|(copy, of)| {
            let (copy, of) = (name(copy), name(of));
            quote!((#copy, #of))
        }));
        let made = hints.made.iter().map(|(binding, of, callee)| {
            let of = match of {
                Of::Whole => quote!(#recorder::Of::Whole),
                Of::Field(field) => {
                    let field = name(field);
                    quote!(#recorder::Of::Field(#field))
                }
                Of::Element(at) => quote!(#recorder::Of::Element(#at)),
            };
            let (binding, callee) = (name(binding), name(callee));
            quote!(#recorder::Made { binding: #binding, of: #of, callee: #callee })
        });
        let alone = hints.alone;
        let tells = hints.appends.is_some()
            || hints.pushed.is_some()
            || hints.returns.is_some()
            || hints.element.is_some()
            || hints.copy.is_some()
            || !hints.made.is_empty();
        let told = if tells {
            quote!(&#recorder::Hints {
                appends: #appends,
                pushed: #pushed,
                returns: #returns,
                element: #element,
                copy: #copy,
                made: &[#(#made),*],
            })
        } else {
            quote!(&#recorder::Hints::NONE)
        };
        let line = quote_spanned!(span=> line!());
        parse_quote! {
            if #recorder::recording() {
                #not_copy
                #(#frozen)*
                #(#a_vec)*
                #recorder::step(
                    &#recorder::Probe {
                        line: #line,
                        names: &[#(#names),*],
                        mentions: &[#(#mentions),*],
                        fresh: &[#(#fresh),*],
                        alone: #alone,
                        host: &[#(#host),*],
                        hints: #told,
                    },
                    &[#(#values),*],
                    &[#(#lists),*],
                    #element_value,
                );
            }
        }
    }
}
