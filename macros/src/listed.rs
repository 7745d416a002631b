//! `#[listed]`, and the `LINES` constant both attributes put beside a function.

use proc_macro2::{Span, TokenStream as Tokens};
use quote::{quote, quote_spanned};
use syn::ItemFn;

/// The core of `#[listed]`: the function as it is, and beside it a module holding its `LINES`.
pub(crate) fn listed(attr: Tokens, item: Tokens) -> syn::Result<Tokens> {
    if !attr.is_empty() {
        return Err(syn::Error::new(Span::call_site(), "#[listed] takes no arguments"));
    }
    let func: ItemFn = syn::parse2(item)?;
    let (vis, ident, lines) = (&func.vis, &func.sig.ident, lines_of(&func));
    Ok(quote! {
        #func
        #[doc(hidden)]
        #vis mod #ident {
            #lines
        }
    })
}

/// `pub const LINES: (u32, u32)`: the line of `fn` and the line of the closing brace.
pub(crate) fn lines_of(func: &ItemFn) -> Tokens {
    let first = quote_spanned!(func.sig.fn_token.span=> line!());
    let last = quote_spanned!(func.block.brace_token.span.close()=> line!());
    quote!(pub const LINES: (u32, u32) = (#first, #last);)
}
