//! The `host(key = binding.field, ...)` argument of `#[traced]`: host-owned data a function can reach.

use proc_macro2::TokenStream as Tokens;
use syn::{Expr, Ident};

/// A host field: its name in the host snapshot, and the expression (rooted in a binding) that holds it.
pub(crate) struct HostField {
    pub key: Ident,
    pub value: Expr,
}

/// The binding an expression such as `state.items` starts from.
pub(crate) fn root(expr: &Expr) -> Option<&Ident> {
    match expr {
        Expr::Path(path) => path.path.get_ident(),
        Expr::Field(field) => root(&field.base),
        _ => None,
    }
}

/// Parses `host(key = binding.field, ...)`; an empty attribute means no host fields.
pub(crate) fn parse_host(attr: Tokens) -> syn::Result<Vec<HostField>> {
    let mut host = Vec::new();
    if attr.is_empty() {
        return Ok(host);
    }
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("host") {
            meta.parse_nested_meta(|inner| {
                let key = inner.path.require_ident()?.clone();
                let value: Expr = inner.value()?.parse()?;
                if root(&value).is_none() {
                    return Err(
                        inner.error("expected a binding or a field of one, e.g. `state.items`")
                    );
                }
                host.push(HostField { key, value });
                Ok(())
            })
        } else {
            Err(meta.error("expected `host(key = binding.field, ...)`"))
        }
    });
    syn::parse::Parser::parse2(parser, attr)?;
    Ok(host)
}
