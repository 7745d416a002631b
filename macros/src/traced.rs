//! The core of `#[traced]`: the function's body wrapped in one frame, and its probes' lines beside it.

use proc_macro2::TokenStream as Tokens;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{parse_quote, FnArg, ItemFn, ReturnType, Type};

use crate::host::{parse_host, HostField};
use crate::listed::lines_of;
use crate::recorder_path;
use crate::scope::{bind_typed, Scope};
use crate::walk::Probes;

/// The core of `#[traced]`: `attr` is what its parentheses hold (empty, or `host(...)`).
pub(crate) fn traced(attr: Tokens, item: Tokens) -> syn::Result<Tokens> {
    let host = parse_host(attr)?;
    let mut func: ItemFn = syn::parse2(item)?;
    instrument(&mut func, &host)
}

fn instrument(func: &mut ItemFn, host: &[HostField]) -> syn::Result<Tokens> {
    let mut scope = Scope::default();
    for input in &func.sig.inputs {
        match input {
            FnArg::Typed(arg) => bind_typed(&arg.pat, Some(&arg.ty), &mut scope),
            FnArg::Receiver(receiver) => {
                return Err(syn::Error::new(receiver.span(), "#[traced] takes free functions only"))
            }
        }
    }
    let ret: Type = match &func.sig.output {
        ReturnType::Default => parse_quote!(()),
        ReturnType::Type(_, ty) => (**ty).clone(),
    };
    let name = func.sig.ident.to_string();
    let leave = if returns_result(&ret) { quote!(leave_result) } else { quote!(leave_value) };
    let lines = lines_of(func);
    let result = returns_result(&ret);
    let mut probes = Probes {
        host,
        result,
        body: true,
        pass_end: false,
        headers: Vec::new(),
        spans: Vec::new(),
    };
    let mut body = (*func.block).clone();
    probes.block(&mut body, scope, Vec::new());
    let step_lines = probes.spans.iter().map(|span| quote_spanned!(*span=> line!()));
    let recorder = recorder_path();
    *func.block = parse_quote!({
        let __frame = #recorder::enter(#name);
        #[allow(clippy::redundant_closure_call)]
        let __result: #ret = (|| -> #ret #body)();
        #recorder::#leave(__frame, &__result);
        __result
    });
    let (vis, ident) = (&func.vis, &func.sig.ident);
    // A module may share the function's name (modules and functions live in different
    // namespaces), so the page can ask `validate_todos::STEP_LINES` where a breakpoint may go.
    Ok(quote! {
        #func
        #[doc(hidden)]
        #vis mod #ident {
            pub const STEP_LINES: &[u32] = &[#(#step_lines),*];
            #lines
        }
    })
}

fn returns_result(ty: &Type) -> bool {
    matches!(ty, Type::Path(path) if path.path.segments.last().is_some_and(|s| s.ident == "Result"))
}
