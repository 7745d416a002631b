//! `#[traced]`: adds a step probe before every statement of a lesson function without changing its lines.
//!
//! The lesson functions are shown to the reader exactly as written, so the probes cannot live in
//! the source. This attribute rewrites the function at compile time instead:
//!
//! - before each statement it inserts a call to `crate::recorder::step` with `line!()` spanned to the
//!   statement (so the recorded line is the statement's real line), the bindings in scope and the
//!   host fields it can reach;
//! - `locals` are the bindings in scope at that point (parameters, `let`, `for`, `if let`, match
//!   arms with a block), read by reference; a binding moved away by a statement of the form
//!   `place = name;` or `let x = name;` is listed as moved from then on in that block, unless its
//!   declaration shows it is `Copy` (a shared reference, a primitive, a literal). Where the
//!   declaration does not tell, the probe asserts at compile time that the type is not `Copy`, so
//!   a wrong "moved" cannot compile;
//! - each probe also names the bindings its statement mentions, and the bindings a jump may have
//!   changed (a loop's header, the statement before): the recorder serializes a binding again only
//!   when the statement just run could have changed it, so a step costs the same however large the
//!   data is;
//! - it notes, for the recorder, statements that change a value in a way it can follow without
//!   writing the value again: a push onto a host list, a copy (`let b = a.to_vec();`), a change to
//!   one element (`b[0].content = ...;`), and a binding returned as it is (`Ok(b)`);
//! - the body runs inside a closure so that every way out (`return`, `?`, the tail) passes one
//!   epilogue that records the `return` or `error` step.
//!
//! Beside the function it puts a module of the same name holding `STEP_LINES`, the lines that
//! hold a probe (the only lines where a breakpoint can ever pause), and `LINES`, the function's
//! first and last line as the compiler spans them (what the page lists). `#[listed]` puts only
//! `LINES` beside a function that is shown but not traced.
//!
//! `#[traced(host(items = state.items))]` names host-owned data the function can reach: each probe
//! where `state` is in scope (and not moved) hands `state.items` to the recorder as the host's
//! `items` field.
//!
//! Anything this misjudges cannot pass silently: a probe that reads a moved or mutably borrowed
//! binding is a compile error, not a wrong trace.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens};
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{parse_quote, Block, Expr, FnArg, Ident, ItemFn, Pat, ReturnType, Stmt, Type};

#[proc_macro_attribute]
pub fn traced(attr: TokenStream, item: TokenStream) -> TokenStream {
    match traced_core(attr.into(), item.into()) {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}

/// For a function the page lists but does not trace (a call entry): only its `LINES`.
#[proc_macro_attribute]
pub fn listed(attr: TokenStream, item: TokenStream) -> TokenStream {
    match listed_core(attr.into(), item.into()) {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}

fn traced_core(attr: Tokens, item: Tokens) -> syn::Result<Tokens> {
    let host = parse_host(attr)?;
    let mut func: ItemFn = syn::parse2(item)?;
    instrument(&mut func, &host)
}

fn listed_core(attr: Tokens, item: Tokens) -> syn::Result<Tokens> {
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
fn lines_of(func: &ItemFn) -> Tokens {
    let first = quote_spanned!(func.sig.fn_token.span=> line!());
    let last = quote_spanned!(func.block.brace_token.span.close()=> line!());
    quote!(pub const LINES: (u32, u32) = (#first, #last);)
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
    *func.block = parse_quote!({
        let __frame = crate::recorder::enter(#name);
        #[allow(clippy::redundant_closure_call)]
        let __result: #ret = (|| -> #ret #body)();
        crate::recorder::#leave(__frame, &__result);
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

/// The bindings visible at a point, oldest first; a shadowing binding replaces the older one.
#[derive(Clone, Default)]
struct Scope {
    bindings: Vec<Binding>,
}

#[derive(Clone)]
struct Binding {
    name: Ident,
    moved: bool,
    /// The declaration shows the type is `Copy`: assigning it elsewhere copies, never moves.
    copy: bool,
    /// Not `mut`, and a shared reference by its declaration: its value cannot change while it is
    /// in scope (the lesson's types have no interior mutability), so no probe serializes it again.
    frozen: bool,
}

impl Scope {
    fn bind(&mut self, name: &Ident, copy: bool) {
        self.bind_as(name, copy, false);
    }

    fn bind_as(&mut self, name: &Ident, copy: bool, frozen: bool) {
        self.bindings.retain(|known| known.name != *name);
        self.bindings.push(Binding { name: name.clone(), moved: false, copy, frozen });
    }

    fn get(&self, name: &Ident) -> Option<&Binding> {
        self.bindings.iter().find(|known| known.name == *name)
    }

    fn mark_moved(&mut self, name: &Ident) {
        for known in &mut self.bindings {
            if known.name == *name {
                known.moved = true;
            }
        }
    }

    fn names(&self) -> Vec<String> {
        self.bindings.iter().map(|b| b.name.to_string()).collect()
    }
}

/// Adds every name a pattern binds to the scope, types unknown.
fn bind_pattern(pat: &Pat, scope: &mut Scope) {
    match pat {
        Pat::Ident(p) => {
            scope.bind(&p.ident, false);
            if let Some((_, sub)) = &p.subpat {
                bind_pattern(sub, scope);
            }
        }
        Pat::Tuple(p) => p.elems.iter().for_each(|e| bind_pattern(e, scope)),
        Pat::TupleStruct(p) => p.elems.iter().for_each(|e| bind_pattern(e, scope)),
        Pat::Struct(p) => p.fields.iter().for_each(|f| bind_pattern(&f.pat, scope)),
        Pat::Slice(p) => p.elems.iter().for_each(|e| bind_pattern(e, scope)),
        Pat::Reference(p) => bind_pattern(&p.pat, scope),
        Pat::Type(p) => bind_typed(&p.pat, Some(&p.ty), scope),
        Pat::Paren(p) => bind_pattern(&p.pat, scope),
        Pat::Or(p) => {
            if let Some(first) = p.cases.first() {
                bind_pattern(first, scope);
            }
        }
        _ => {}
    }
}

/// A pattern with a declared type (a parameter, `let x: T`): a plain name of a `Copy` type is known to copy.
fn bind_typed(pat: &Pat, ty: Option<&Type>, scope: &mut Scope) {
    match pat {
        Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => {
            let shared =
                ty.is_some_and(|ty| matches!(ty, Type::Reference(r) if r.mutability.is_none()));
            scope.bind_as(&p.ident, ty.is_some_and(is_copy_type), shared && p.mutability.is_none());
        }
        Pat::Type(p) => bind_typed(&p.pat, Some(&p.ty), scope),
        _ => bind_pattern(pat, scope),
    }
}

/// `&T` and the primitive scalars: types that are `Copy` whatever `T` is.
fn is_copy_type(ty: &Type) -> bool {
    const SCALARS: [&str; 15] = [
        "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
        "bool", "char", "f64",
    ];
    match ty {
        Type::Reference(r) => r.mutability.is_none(),
        Type::Path(p) => {
            p.qself.is_none()
                && p.path
                    .get_ident()
                    .is_some_and(|i| SCALARS.contains(&i.to_string().as_str()) || i == "f32")
        }
        Type::Paren(p) => is_copy_type(&p.elem),
        _ => false,
    }
}

/// `let` without a type: a literal or a shared borrow is known to be `Copy`.
fn is_copy_init(expr: &Expr) -> bool {
    match expr {
        Expr::Lit(lit) => {
            !matches!(lit.lit, syn::Lit::Str(_) | syn::Lit::ByteStr(_) | syn::Lit::CStr(_))
        }
        Expr::Reference(r) => r.mutability.is_none(),
        Expr::Paren(p) => is_copy_init(&p.expr),
        _ => false,
    }
}

/// Binds a `let` statement's names, with what its type annotation or initializer shows.
fn bind_local(local: &syn::Local, scope: &mut Scope) {
    match (&local.pat, &local.init) {
        (Pat::Ident(p), Some(init))
            if p.subpat.is_none() && p.by_ref.is_none() && init.diverge.is_none() =>
        {
            let shared = matches!(&*init.expr, Expr::Reference(r) if r.mutability.is_none());
            scope.bind_as(&p.ident, is_copy_init(&init.expr), shared && p.mutability.is_none());
        }
        (pat, _) => bind_typed(pat, None, scope),
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

/// The binding a statement only appends to: `name.push(value);`, where `value` neither mentions
/// `name` nor holds a block or a jump (so no probe runs while it does, and it ends at the push). The
/// statement's probe asserts it is a `Vec`, whose `push` leaves the entries it had as they were, so
/// at the call's next step the recorder writes only the new entry of a host list read through it.
fn appended_by(stmt: &Stmt, scope: &Scope) -> Option<Ident> {
    let Stmt::Expr(Expr::MethodCall(call), Some(_)) = stmt else { return None };
    let Expr::Path(path) = &*call.receiver else { return None };
    let name = path.path.get_ident()?;
    let args = call.args.to_token_stream();
    let only_appends = call.method == "push"
        && scope.get(name).is_some()
        && !has_block(args.clone())
        && !jumps(args.clone())
        && !mentioned(args, scope).contains(&name.to_string());
    only_appends.then(|| name.clone())
}

/// The binding a statement changes at one element only: `name[0].field = value;` (any fields after
/// the literal index), where `value` neither mentions `name` nor holds a block or a jump. The next
/// statement's probe asserts `name` is a `Vec` and hands that element over: the recorder writes it
/// and reuses the indices of the other elements, which are unchanged.
fn element_set_by(stmt: &Stmt, scope: &Scope) -> Option<(Ident, usize)> {
    let Stmt::Expr(Expr::Assign(assign), Some(_)) = stmt else { return None };
    let mut place = &*assign.left;
    while let Expr::Field(field) = place {
        place = &field.base;
    }
    let Expr::Index(index) = place else { return None };
    let Expr::Path(path) = &*index.expr else { return None };
    let Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(at), .. }) = &*index.index else {
        return None;
    };
    let name = path.path.get_ident()?;
    let value = assign.right.to_token_stream();
    let only_there = scope.get(name).is_some_and(|b| !b.moved)
        && !has_block(value.clone())
        && !jumps(value.clone())
        && !mentioned(value, scope).contains(&name.to_string());
    Some((name.clone(), at.base10_parse().ok()?)).filter(|_| only_there)
}

/// `let name = other.clone();` (or `to_vec()`, `to_owned()`): `name` and `other` then serialize the
/// same (a clone is equal to what it was made from, as derived `Clone` and std's are), so the next
/// probe gives `name` the value `other` has there, without writing it.
fn copied_by(stmt: &Stmt, scope: &Scope) -> Option<(Ident, Ident)> {
    let Stmt::Local(local) = stmt else { return None };
    let Pat::Ident(pat) = &local.pat else { return None };
    let init = local.init.as_ref().filter(|init| init.diverge.is_none())?;
    let Expr::MethodCall(call) = &*init.expr else { return None };
    let Expr::Path(path) = &*call.receiver else { return None };
    let other = path.path.get_ident()?;
    let copies = ["clone", "to_vec", "to_owned"].iter().any(|method| call.method == method);
    let known = scope.get(other).is_some_and(|b| !b.moved);
    let plain = pat.subpat.is_none() && pat.by_ref.is_none() && pat.ident != *other;
    (copies && call.args.is_empty() && known && plain).then(|| (pat.ident.clone(), other.clone()))
}

/// The binding a statement returns as it is: `return name;` or, as the body's last statement,
/// `name`; `Ok(name)` instead where the function returns a `Result`. The call's return value is
/// then that binding's value at the statement's probe, and the recorder need not write it again.
fn returned_by(stmt: &Stmt, tail: bool, result: bool, scope: &Scope) -> Option<Ident> {
    let value = match stmt {
        Stmt::Expr(Expr::Return(ret), _) => ret.expr.as_deref()?,
        Stmt::Expr(value, None) if tail => value,
        _ => return None,
    };
    let value = match value {
        Expr::Call(call) if result && call.args.len() == 1 => {
            let Expr::Path(ok) = &*call.func else { return None };
            if !ok.path.is_ident("Ok") {
                return None;
            }
            &call.args[0]
        }
        _ if result => return None,
        value => value,
    };
    let Expr::Path(path) = value else { return None };
    let name = path.path.get_ident()?;
    scope.get(name).is_some_and(|b| !b.moved).then(|| name.clone())
}

/// Whether `tokens` hold a `{ ... }` group anywhere (a block, a closure's body, a struct literal).
fn has_block(tokens: Tokens) -> bool {
    tokens.into_iter().any(|token| match token {
        proc_macro2::TokenTree::Group(group) => {
            group.delimiter() == proc_macro2::Delimiter::Brace || has_block(group.stream())
        }
        _ => false,
    })
}

/// The names of `scope` that a statement may change: those that appear anywhere in `tokens`,
/// except a frozen binding, and a name that appears only where it cannot change: shared-borrowed
/// as a whole (`&name` followed by `,`, `;`, a closing bracket or a block), or one of its fields
/// read as a value (`name.field` followed by `,`, `;`, `&&`, `||`, `==`, `!=`, or the end of an
/// argument list, a list or a block, as in `tool_definitions(tools.lang)`).
fn mentioned(tokens: Tokens, scope: &Scope) -> Vec<String> {
    use proc_macro2::{Delimiter, Spacing, TokenTree};
    /// Each name found, and whether that occurrence cannot change it. `value_ends`: the end of
    /// `tokens` ends a value. Not so for `(f.call)(x)`, where a field is called (which may change
    /// it), for `match (x.f) { ref mut y => .. }`, nor for a macro's arguments (which it may use
    /// in any way).
    fn walk(tokens: Tokens, value_ends: bool, found: &mut Vec<(String, bool)>) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let punct = |i: usize, c: char, spacing: Option<Spacing>| matches!(tokens.get(i), Some(TokenTree::Punct(p)) if p.as_char() == c && spacing.is_none_or(|s| p.spacing() == s));
        // After `name.field`: a comma or semicolon, a logical or equality operator, or the end.
        let field_read_ends = |i: usize| match tokens.get(i) {
            None => value_ends,
            Some(TokenTree::Punct(p)) if matches!(p.as_char(), ',' | ';') => true,
            Some(TokenTree::Punct(p)) if p.spacing() == Spacing::Joint => {
                let pair = |first: char, second: char| {
                    p.as_char() == first && punct(i + 1, second, Some(Spacing::Alone))
                };
                pair('&', '&') || pair('|', '|') || pair('=', '=') || pair('!', '=')
            }
            _ => false,
        };
        for (at, token) in tokens.iter().enumerate() {
            match token {
                TokenTree::Ident(ident) => {
                    let joint_amp = at >= 2 && punct(at - 2, '&', Some(Spacing::Joint));
                    let borrowed = at >= 1 && punct(at - 1, '&', None) && !joint_amp;
                    let ends = match tokens.get(at + 1) {
                        None => true,
                        Some(TokenTree::Punct(p)) => matches!(p.as_char(), ',' | ';'),
                        Some(TokenTree::Group(g)) => g.delimiter() == Delimiter::Brace,
                        _ => false,
                    };
                    // `&mut name.field` lends the field out to be changed.
                    let lent =
                        at >= 1 && matches!(&tokens[at - 1], TokenTree::Ident(i) if i == "mut");
                    let field = matches!(
                        tokens.get(at + 2),
                        Some(TokenTree::Ident(_) | TokenTree::Literal(_))
                    );
                    let read = punct(at + 1, '.', Some(Spacing::Alone))
                        && field
                        && !lent
                        && field_read_ends(at + 3);
                    found.push((ident.to_string(), (borrowed && ends) || read));
                }
                TokenTree::Group(group) => {
                    let before = at.checked_sub(1).and_then(|i| tokens.get(i));
                    let called = matches!(before, Some(TokenTree::Ident(i)) if i != "match");
                    let value_ends = match group.delimiter() {
                        Delimiter::Parenthesis => called,
                        Delimiter::Bracket | Delimiter::Brace => true,
                        Delimiter::None => false,
                    };
                    walk(group.stream(), value_ends, found)
                }
                _ => {}
            }
        }
    }
    let mut idents = Vec::new();
    walk(tokens, false, &mut idents);
    let changeable = |b: &Binding| {
        let name = b.name.to_string();
        let uses: Vec<bool> =
            idents.iter().filter(|(found, _)| *found == name).map(|(_, shared)| *shared).collect();
        !b.frozen && !uses.is_empty() && !uses.iter().all(|shared| *shared)
    };
    scope.bindings.iter().filter(|b| changeable(b)).map(|b| b.name.to_string()).collect()
}

/// The part of a statement that can have changed a binding when the statement after it runs. For
/// `if cond { ...; return x; }` with no `else` and no `break` or `continue` inside, that is the
/// condition alone: had the block run, the function would have returned, so the next probe is
/// reached only when it did not (the loop's early exits would otherwise make every step after
/// them serialize the history again).
fn changing_part(stmt: &Stmt) -> Tokens {
    if let Stmt::Expr(Expr::If(e), _) = stmt {
        let returns = matches!(e.then_branch.stmts.last(), Some(Stmt::Expr(Expr::Return(_), _)));
        if e.else_branch.is_none() && returns && !jumps(e.then_branch.to_token_stream()) {
            return e.cond.to_token_stream();
        }
    }
    stmt.to_token_stream()
}

/// What of a statement that holds blocks runs before the first statement of one of them: a loop's
/// header, each condition of an `if` chain, a `match`'s scrutinee, patterns and guards; nothing for
/// `loop` and a plain block. The call's next probe is then either in such a block, with only that
/// run since the statement's own probe, or after the statement, where `fresh` names all it mentions.
/// `None` for any other statement.
fn header_part(stmt: &Stmt) -> Option<Tokens> {
    let Stmt::Expr(expr, _) = stmt else { return None };
    match expr {
        Expr::If(e) => {
            let mut conds = e.cond.to_token_stream();
            let mut otherwise = &e.else_branch;
            while let Some((_, branch)) = otherwise {
                let Expr::If(next) = &**branch else { break };
                let cond = &next.cond;
                conds.extend(quote!(; #cond));
                otherwise = &next.else_branch;
            }
            Some(conds)
        }
        Expr::ForLoop(e) => {
            let (pat, iter) = (&e.pat, &e.expr);
            Some(quote!(#pat; #iter))
        }
        Expr::While(e) => Some(e.cond.to_token_stream()),
        Expr::Loop(_) | Expr::Block(_) => Some(Tokens::new()),
        Expr::Match(e) => {
            let mut header = e.expr.to_token_stream();
            // A pattern holds its guard (`Pat::Guard`).
            for arm in &e.arms {
                let pat = &arm.pat;
                header.extend(quote!(; #pat));
            }
            Some(header)
        }
        _ => None,
    }
}

/// Whether `tokens` hold a `break` or `continue`, which could leave a block without returning.
fn jumps(tokens: Tokens) -> bool {
    tokens.into_iter().any(|token| match token {
        proc_macro2::TokenTree::Ident(ident) => ident == "break" || ident == "continue",
        proc_macro2::TokenTree::Group(group) => jumps(group.stream()),
        _ => false,
    })
}

struct Probes<'a> {
    host: &'a [HostField],
    /// Whether the function returns a `Result` (see `returned_by`).
    result: bool,
    /// Whether the next block is the function's body, whose last statement is its return value.
    body: bool,
    /// Whether a loop's header runs after the current block's last statement (a `while` or `for`
    /// body, or a block that ends one).
    pass_end: bool,
    /// The bindings the headers of the loops around the current block mention: run again between a
    /// pass's last statement and the next pass's first, they could change what the last one did.
    headers: Vec<String>,
    /// Where each probe went, in source order.
    spans: Vec<Span>,
}

/// What a probe knows about its statement, and the one before, beyond what they mention: each
/// lets the recorder skip writing a value again (see `crate::recorder::Probe`).
#[derive(Default)]
struct Hints {
    /// A binding the statement moves out of: asserted not `Copy`.
    moves: Option<Ident>,
    /// A host list's root the statement only appends to (`appended_by`): asserted a `Vec`.
    appends: Option<Ident>,
    /// A binding the statement returns as it is (`returned_by`).
    returns: Option<Ident>,
    /// A binding the statement before changed at one element (`element_set_by`): asserted a `Vec`.
    element: Option<(Ident, usize)>,
    /// A binding the statement before made as a copy of another (`copied_by`).
    copy: Option<(Ident, Ident)>,
    /// Until the call's next probe, nothing of the call runs but this statement: it holds no block
    /// and no jump, and no loop's header runs after it.
    alone: bool,
}

impl Probes<'_> {
    /// Puts a probe before each statement of `block`, and descends into nested blocks. `entry`
    /// names what may have changed before the block's first statement other than by the statement
    /// probed just before it (a loop's header, run again before each pass).
    fn block(&mut self, block: &mut Block, mut scope: Scope, entry: Vec<String>) {
        let body = std::mem::replace(&mut self.body, false);
        let pass_end = self.pass_end;
        let mut stmts = Vec::with_capacity(block.stmts.len() * 2);
        let mut fresh = entry;
        // What the statement just before did to one binding (see `element_set_by`, `copied_by`).
        let (mut element, mut copy) = (None, None);
        let last = block.stmts.len().saturating_sub(1);
        for (at, mut stmt) in std::mem::take(&mut block.stmts).into_iter().enumerate() {
            if matches!(stmt, Stmt::Item(_)) {
                stmts.push(stmt);
                continue;
            }
            let mentions = mentioned(changing_part(&stmt), &scope);
            // What the call's next probe may see changed by this statement: if that probe is in one of
            // the statement's blocks, only its header ran.
            let header = header_part(&stmt).map(|header| mentioned(header, &scope));
            let moves = moved_by(&stmt).filter(|name| scope.get(name).is_some_and(|b| !b.copy));
            // Only a host list's root is worth it (and only it need be a `Vec`: `text.push('x')` is
            // fine), and not where a loop's header could change it before the next pass.
            let appends = appended_by(&stmt, &scope).filter(|name| {
                self.host.iter().any(|field| root(&field.value) == Some(name))
                    && !self.headers.contains(&name.to_string())
            });
            let ends_pass = pass_end && at == last;
            let let_else = matches!(&stmt, Stmt::Local(local) if local.init.as_ref().is_some_and(|init| init.diverge.is_some()));
            let hints = Hints {
                moves: moves.cloned(),
                appends,
                returns: returned_by(&stmt, body && at == last, self.result, &scope),
                element: element.take(),
                copy: copy.take(),
                alone: header.is_none()
                    && !let_else
                    && !ends_pass
                    && !jumps(stmt.to_token_stream()),
            };
            let changes = header.as_deref().unwrap_or(&mentions);
            let probe = self.probe(stmt.span(), &scope, changes, &fresh, &hints);
            stmts.push(probe);
            element = element_set_by(&stmt, &scope);
            copy = copied_by(&stmt, &scope);
            // An `if`, `match` or block that ends a loop's pass: so do its blocks.
            self.pass_end = ends_pass;
            self.nested(&mut stmt, &scope);
            self.pass_end = pass_end;
            if let Stmt::Local(local) = &stmt {
                bind_local(local, &mut scope);
            }
            if let Some(name) = &hints.moves {
                scope.mark_moved(name);
            }
            // The next statement may follow a jump out of this one's nested blocks, from a probe
            // that did not name everything this statement touched: name it all again.
            fresh = mentions;
            stmts.push(stmt);
        }
        block.stmts = stmts;
    }

    /// A loop's body, with the names its header mentions (`header`) kept from pushes' shortcut.
    fn loop_body(&mut self, body: &mut Block, scope: Scope, header: Vec<String>) {
        let (outer, pass_end) = (self.headers.len(), self.pass_end);
        self.headers.extend(header.iter().cloned());
        self.pass_end = true;
        self.block(body, scope, header);
        self.headers.truncate(outer);
        self.pass_end = pass_end;
    }

    /// Instruments the blocks a statement owns: branches, loop bodies, `let ... else`.
    fn nested(&mut self, stmt: &mut Stmt, scope: &Scope) {
        match stmt {
            Stmt::Local(local) => {
                if let Some(Expr::Block(else_block)) =
                    local.init.as_mut().and_then(|init| init.diverge.as_mut()).map(|d| &mut *d.1)
                {
                    let pass_end = std::mem::replace(&mut self.pass_end, false);
                    self.block(&mut else_block.block, scope.clone(), Vec::new());
                    self.pass_end = pass_end;
                }
            }
            Stmt::Expr(expr, _) => self.expr(expr, scope),
            _ => {}
        }
    }

    fn expr(&mut self, expr: &mut Expr, scope: &Scope) {
        match expr {
            Expr::Block(e) => self.block(&mut e.block, scope.clone(), Vec::new()),
            Expr::If(e) => {
                let mut inner = scope.clone();
                if let Expr::Let(cond) = &*e.cond {
                    bind_pattern(&cond.pat, &mut inner);
                }
                self.block(&mut e.then_branch, inner, Vec::new());
                if let Some((_, otherwise)) = &mut e.else_branch {
                    self.expr(otherwise, scope);
                }
            }
            Expr::ForLoop(e) => {
                let mut inner = scope.clone();
                bind_pattern(&e.pat, &mut inner);
                // Each pass rebinds the pattern and advances the iterator.
                let (pat, iter) = (&e.pat, &e.expr);
                let entry = mentioned(quote!(#pat #iter), &inner);
                self.loop_body(&mut e.body, inner, entry);
            }
            Expr::While(e) => {
                let mut inner = scope.clone();
                if let Expr::Let(cond) = &*e.cond {
                    bind_pattern(&cond.pat, &mut inner);
                }
                let cond = &e.cond;
                let entry = mentioned(quote!(#cond), &inner);
                self.loop_body(&mut e.body, inner, entry);
            }
            Expr::Loop(e) => {
                // Nothing runs between a pass's last statement and the next pass's first.
                let pass_end = std::mem::replace(&mut self.pass_end, false);
                self.block(&mut e.body, scope.clone(), Vec::new());
                self.pass_end = pass_end;
            }
            Expr::Match(e) => {
                for arm in &mut e.arms {
                    if let Expr::Block(body) = &mut *arm.body {
                        let mut inner = scope.clone();
                        bind_pattern(&arm.pat, &mut inner);
                        self.block(&mut body.block, inner, Vec::new());
                    }
                }
            }
            _ => {}
        }
    }

    /// One probe: the statement's line, its visible locals, what it mentions, and the host fields
    /// it can reach, with its `hints`.
    fn probe(
        &mut self,
        span: Span,
        scope: &Scope,
        mentions: &[String],
        fresh: &[String],
        hints: &Hints,
    ) -> Stmt {
        self.spans.push(span);
        let names = scope.names();
        let values = scope.bindings.iter().map(|Binding { name, moved, .. }| {
            if *moved {
                quote!(::core::option::Option::None)
            } else {
                quote!(::core::option::Option::Some(&#name as &dyn crate::recorder::Snapshot))
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
            .map(|HostField { value, .. }| quote!(&#value as &dyn crate::recorder::HostList));
        let not_copy = hints.moves.as_ref().map(|name| quote!(crate::recorder::not_copy(&#name);));
        let vecs = hints.appends.iter().chain(hints.element.as_ref().map(|(name, _)| name));
        let a_vec = vecs.map(|name| quote!(crate::recorder::a_vec(&#name);));
        let name = |ident: &Ident| ident.to_string();
        let some = |tokens: Option<Tokens>| match tokens {
            Some(tokens) => quote!(::core::option::Option::Some(#tokens)),
            None => quote!(::core::option::Option::None),
        };
        let appends = some(hints.appends.as_ref().map(|ident| name(ident).into_token_stream()));
        let returns = some(hints.returns.as_ref().map(|ident| name(ident).into_token_stream()));
        let element = some(hints.element.as_ref().map(|(ident, at)| {
            let key = name(ident);
            quote!((#key, #at))
        }));
        let element_value = some(
            hints
                .element
                .as_ref()
                .map(|(ident, at)| quote!(&#ident[#at] as &dyn crate::recorder::Snapshot)),
        );
        let copy = some(hints.copy.as_ref().map(|(copy, of)| {
            let (copy, of) = (name(copy), name(of));
            quote!((#copy, #of))
        }));
        let alone = hints.alone;
        let tells = hints.appends.is_some()
            || hints.returns.is_some()
            || hints.element.is_some()
            || hints.copy.is_some();
        let told = if tells {
            quote!(&crate::recorder::Hints {
                appends: #appends,
                returns: #returns,
                element: #element,
                copy: #copy,
            })
        } else {
            quote!(&crate::recorder::Hints::NONE)
        };
        let line = quote_spanned!(span=> line!());
        parse_quote! {
            if crate::recorder::recording() {
                #not_copy
                #(#a_vec)*
                crate::recorder::step(
                    &crate::recorder::Probe {
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

#[cfg(test)]
mod tests;
