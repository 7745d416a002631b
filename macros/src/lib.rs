//! `#[traced]`: adds a step probe before every statement of a lesson function without changing its lines.
//!
//! The lesson functions are shown to the reader exactly as written, so the probes cannot live in
//! the source. This attribute rewrites the function at compile time instead:
//!
//! - before each statement it inserts `crate::trace::step(line!(), names, values, host)`, where `line!()`
//!   carries the statement's own span, so the recorded line is the statement's real line;
//! - `locals` are the bindings in scope at that point (parameters, `let`, `for`, `if let`, match
//!   arms with a block), read by reference; a binding moved away by a statement of the form
//!   `place = name;` or `let x = name;` is listed as moved from then on in that block;
//! - the body runs inside a closure so that every way out (`return`, `?`, the tail) passes one
//!   epilogue that records the `return` or `error` step.
//!
//! Beside the function it puts a module of the same name holding `STEP_LINES`, the lines that
//! hold a probe: the only lines where a breakpoint can ever pause.
//!
//! `#[traced(host(items = state.items))]` names host-owned data the function can reach: each probe
//! where `state` is in scope (and not moved) hands `state.items` to the recorder as the host's
//! `items` field.
//!
//! Anything this misjudges cannot pass silently: a probe that reads a moved or mutably borrowed
//! binding is a compile error, not a wrong trace.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{
    parse_macro_input, parse_quote, Block, Expr, FnArg, Ident, ItemFn, Pat, ReturnType, Stmt, Type,
};

#[proc_macro_attribute]
pub fn traced(attr: TokenStream, item: TokenStream) -> TokenStream {
    let host = match parse_host(attr.into()) {
        Ok(host) => host,
        Err(error) => return error.to_compile_error().into(),
    };
    let mut func = parse_macro_input!(item as ItemFn);
    match instrument(&mut func, &host) {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}

/// A host field: its name in the host snapshot, and the expression (rooted in a binding) that holds it.
struct HostField {
    key: Ident,
    value: Expr,
}

/// The binding an expression such as `state.items` starts from.
fn root(expr: &Expr) -> Option<&Ident> {
    match expr {
        Expr::Path(path) => path.path.get_ident(),
        Expr::Field(field) => root(&field.base),
        _ => None,
    }
}

/// Parses `host(key = binding.field, ...)`; an empty attribute means no host fields.
fn parse_host(attr: Tokens) -> syn::Result<Vec<HostField>> {
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

fn instrument(func: &mut ItemFn, host: &[HostField]) -> syn::Result<Tokens> {
    let mut scope = Scope::default();
    for input in &func.sig.inputs {
        match input {
            FnArg::Typed(arg) => bind_pattern(&arg.pat, &mut scope),
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
    let mut probes = Probes { host, spans: Vec::new() };
    let mut body = (*func.block).clone();
    probes.block(&mut body, scope);
    let step_lines = probes.spans.iter().map(|span| quote_spanned!(*span=> line!()));
    *func.block = parse_quote!({
        let __frame = crate::trace::enter(#name);
        #[allow(clippy::redundant_closure_call)]
        let __result: #ret = (|| -> #ret #body)();
        crate::trace::#leave(__frame, &__result);
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
        }
    })
}

fn returns_result(ty: &Type) -> bool {
    matches!(ty, Type::Path(path) if path.path.segments.last().is_some_and(|s| s.ident == "Result"))
}

/// The bindings visible at a point, oldest first; a shadowing binding replaces the older one.
#[derive(Clone, Default)]
struct Scope {
    bindings: Vec<(Ident, bool)>,
}

impl Scope {
    fn bind(&mut self, name: &Ident) {
        self.bindings.retain(|(known, _)| known != name);
        self.bindings.push((name.clone(), false));
    }

    fn mark_moved(&mut self, name: &Ident) {
        for (known, moved) in &mut self.bindings {
            if known == name {
                *moved = true;
            }
        }
    }
}

/// Adds every name a pattern binds to the scope.
fn bind_pattern(pat: &Pat, scope: &mut Scope) {
    match pat {
        Pat::Ident(p) => {
            scope.bind(&p.ident);
            if let Some((_, sub)) = &p.subpat {
                bind_pattern(sub, scope);
            }
        }
        Pat::Tuple(p) => p.elems.iter().for_each(|e| bind_pattern(e, scope)),
        Pat::TupleStruct(p) => p.elems.iter().for_each(|e| bind_pattern(e, scope)),
        Pat::Struct(p) => p.fields.iter().for_each(|f| bind_pattern(&f.pat, scope)),
        Pat::Slice(p) => p.elems.iter().for_each(|e| bind_pattern(e, scope)),
        Pat::Reference(p) => bind_pattern(&p.pat, scope),
        Pat::Type(p) => bind_pattern(&p.pat, scope),
        Pat::Paren(p) => bind_pattern(&p.pat, scope),
        Pat::Or(p) => {
            if let Some(first) = p.cases.first() {
                bind_pattern(first, scope);
            }
        }
        _ => {}
    }
}

/// The name a statement moves out of, for the two plain forms the lesson uses: `place = name;`
/// and `let pattern = name;`.
fn moved_by(stmt: &Stmt) -> Option<&Ident> {
    let source = match stmt {
        Stmt::Expr(Expr::Assign(assign), _) => &*assign.right,
        Stmt::Local(local) => &*local.init.as_ref()?.expr,
        _ => return None,
    };
    match source {
        Expr::Path(path) if path.qself.is_none() => path.path.get_ident(),
        _ => None,
    }
}

struct Probes<'a> {
    host: &'a [HostField],
    /// Where each probe went, in source order.
    spans: Vec<Span>,
}

impl Probes<'_> {
    /// Puts a probe before each statement of `block`, and descends into nested blocks.
    fn block(&mut self, block: &mut Block, mut scope: Scope) {
        let mut stmts = Vec::with_capacity(block.stmts.len() * 2);
        for mut stmt in std::mem::take(&mut block.stmts) {
            if matches!(stmt, Stmt::Item(_)) {
                stmts.push(stmt);
                continue;
            }
            stmts.push(self.probe(stmt.span(), &scope));
            self.nested(&mut stmt, &scope);
            if let Stmt::Local(local) = &stmt {
                bind_pattern(&local.pat, &mut scope);
            }
            if let Some(name) = moved_by(&stmt) {
                scope.mark_moved(name);
            }
            stmts.push(stmt);
        }
        block.stmts = stmts;
    }

    /// Instruments the blocks a statement owns: branches, loop bodies, `let ... else`.
    fn nested(&mut self, stmt: &mut Stmt, scope: &Scope) {
        match stmt {
            Stmt::Local(local) => {
                if let Some(Expr::Block(else_block)) =
                    local.init.as_mut().and_then(|init| init.diverge.as_mut()).map(|d| &mut *d.1)
                {
                    self.block(&mut else_block.block, scope.clone());
                }
            }
            Stmt::Expr(expr, _) => self.expr(expr, scope),
            _ => {}
        }
    }

    fn expr(&mut self, expr: &mut Expr, scope: &Scope) {
        match expr {
            Expr::Block(e) => self.block(&mut e.block, scope.clone()),
            Expr::If(e) => {
                let mut inner = scope.clone();
                if let Expr::Let(cond) = &*e.cond {
                    bind_pattern(&cond.pat, &mut inner);
                }
                self.block(&mut e.then_branch, inner);
                if let Some((_, otherwise)) = &mut e.else_branch {
                    self.expr(otherwise, scope);
                }
            }
            Expr::ForLoop(e) => {
                let mut inner = scope.clone();
                bind_pattern(&e.pat, &mut inner);
                self.block(&mut e.body, inner);
            }
            Expr::While(e) => {
                let mut inner = scope.clone();
                if let Expr::Let(cond) = &*e.cond {
                    bind_pattern(&cond.pat, &mut inner);
                }
                self.block(&mut e.body, inner);
            }
            Expr::Loop(e) => self.block(&mut e.body, scope.clone()),
            Expr::Match(e) => {
                for arm in &mut e.arms {
                    if let Expr::Block(body) = &mut *arm.body {
                        let mut inner = scope.clone();
                        bind_pattern(&arm.pat, &mut inner);
                        self.block(&mut body.block, inner);
                    }
                }
            }
            _ => {}
        }
    }

    /// One probe: the statement's line, its visible locals, and the host fields it can reach.
    fn probe(&mut self, span: Span, scope: &Scope) -> Stmt {
        self.spans.push(span);
        let names = scope.bindings.iter().map(|(name, _)| name.to_string());
        let values = scope.bindings.iter().map(|(name, moved)| {
            if *moved {
                quote!(::core::option::Option::None)
            } else {
                quote!(::core::option::Option::Some(&#name as &dyn crate::trace::Snapshot))
            }
        });
        let reachable = |field: &&HostField| {
            scope.bindings.iter().any(|(name, moved)| !moved && root(&field.value) == Some(name))
        };
        let host = self.host.iter().filter(reachable).map(|HostField { key, value }| {
            let key = key.to_string();
            quote!((#key, &#value as &dyn crate::trace::Snapshot))
        });
        let line = quote_spanned!(span=> line!());
        parse_quote! {
            if crate::trace::recording() {
                crate::trace::step(#line, &[#(#names),*], &[#(#values),*], &[#(#host),*]);
            }
        }
    }
}
