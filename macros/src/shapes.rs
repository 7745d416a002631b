//! The statement forms the recorder can follow without writing a value again (a move, a push, a
//! change to one element, a copy, a binding returned as it is). Each is recognized by its exact
//! shape only: anything else is left to the general rule, which is always right, only slower.

use quote::ToTokens;
use syn::{Expr, Ident, Member, Pat, Stmt};

use crate::mentions::{has_block, jumps, mentioned};
use crate::scope::Scope;

/// and `let pattern = name;`.
pub(crate) fn moved_by(stmt: &Stmt) -> Option<&Ident> {
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
pub(crate) fn appended_by(stmt: &Stmt, scope: &Scope) -> Option<Ident> {
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

/// `name.push(element);` ([`appended_by`]) where `element` is a binding: the list and that binding.
/// At the call's next step the recorder gives `name`, if it is a `Vec` (its type's name tells), its
/// value here with `element`'s value here appended, without writing the list again.
pub(crate) fn pushed_by(stmt: &Stmt, scope: &Scope) -> Option<(Ident, Ident)> {
    let name = appended_by(stmt, scope)?;
    let Stmt::Expr(Expr::MethodCall(call), _) = stmt else { return None };
    let [Expr::Path(path)] = &call.args.iter().collect::<Vec<_>>()[..] else { return None };
    let element = path.path.get_ident()?;
    let known = path.qself.is_none() && scope.get(element).is_some_and(|b| !b.moved);
    known.then(|| (name, element.clone()))
}

/// The binding a statement changes at one element only: `name[0].field = value;` (any fields after
/// the literal index), where `value` neither mentions `name` nor holds a block or a jump. The next
/// statement's probe asserts `name` is a `Vec` and hands that element over: the recorder writes it
/// and reuses the indices of the other elements, which are unchanged.
pub(crate) fn element_set_by(stmt: &Stmt, scope: &Scope) -> Option<(Ident, usize)> {
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
pub(crate) fn copied_by(stmt: &Stmt, scope: &Scope) -> Option<(Ident, Ident)> {
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

/// What a statement made of a call's value (see [`made_by`]): the binding, which of the value it is,
/// and the name of the function called.
pub(crate) type Made = (Ident, Of, Ident);

/// Which of a call's value a binding is.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Of {
    /// All of it: `let name = callee(..)?;`.
    Whole,
    /// The binding's field: `let name = Type { field: callee(..)?, .. };`.
    Field(Ident),
    /// One element of the tuple it returned: `let (a, name) = callee(..);`.
    Element(usize),
}

/// `let name = callee(args);`, `let name = Type { field: callee(args), .. };` or `let (a, b) =
/// callee(args);`, the call followed by `?` or not, and `callee` a path (its last segment names it):
/// `name`, its `field`, or each name of the tuple is then the very value the call returned (or that
/// element of it), moved there and changed by nothing (a struct literal's other fields cannot reach
/// a value being built, and `?` hands on an `Ok` or `Some` as it is). If `callee` is traced, the
/// recorder stored that value as the call returned it, and the next probe takes that index (or the
/// element's) rather than writing the value again. The recorder checks the rest at run time: that
/// exactly one call of that name returned to this call since its previous step, and with the
/// binding's (or field's, or element's) type, which a `?` on anything but a `Result` or `Option`
/// would not give.
pub(crate) fn made_by(stmt: &Stmt) -> Vec<Made> {
    let Stmt::Local(local) = stmt else { return Vec::new() };
    let Some(init) = local.init.as_ref().filter(|init| init.diverge.is_none()) else {
        return Vec::new();
    };
    let plain = |pat: &Pat| match pat {
        Pat::Ident(pat) if pat.subpat.is_none() && pat.by_ref.is_none() => Some(pat.ident.clone()),
        _ => None,
    };
    let called = |value: &Expr| {
        let value = match value {
            Expr::Try(tried) => &*tried.expr,
            value => value,
        };
        let Expr::Call(call) = value else { return None };
        let Expr::Path(path) = &*call.func else { return None };
        // `#[traced]` takes free functions only: a path through a type (`Vec::new`, by its
        // capital) names none, and is not worth a hint.
        let segments: Vec<&Ident> = path.path.segments.iter().map(|s| &s.ident).collect();
        let (last, before) = segments.split_last()?;
        let typed = before.iter().any(|s| s.to_string().starts_with(char::is_uppercase));
        (path.qself.is_none() && !typed).then(|| (*last).clone())
    };
    match (&local.pat, &*init.expr) {
        // Each element that is a plain name (`_` binds nothing); a `..` moves the places after it.
        (Pat::Tuple(tuple), value)
            if !tuple.elems.iter().any(|pat| matches!(pat, Pat::Rest(_))) =>
        {
            let Some(callee) = called(value) else { return Vec::new() };
            let names = tuple.elems.iter().enumerate();
            let names = names.filter_map(|(at, pat)| Some((plain(pat)?, Of::Element(at))));
            names.map(|(name, of)| (name, of, callee.clone())).collect()
        }
        (pat, value) => {
            let Some(name) = plain(pat) else { return Vec::new() };
            match value {
                // Each field that is a call: which of them is traced is known only when they return.
                Expr::Struct(value) => value
                    .fields
                    .iter()
                    .filter_map(|field| {
                        let Member::Named(key) = &field.member else { return None };
                        Some((name.clone(), Of::Field(key.clone()), called(&field.expr)?))
                    })
                    .collect(),
                value => {
                    called(value).map(|callee| (name, Of::Whole, callee)).into_iter().collect()
                }
            }
        }
    }
}

/// The binding a statement returns as it is: `return name;` or, as the body's last statement,
/// `name`; `Ok(name)` instead where the function returns a `Result`. The call's return value is
/// then that binding's value at the statement's probe, and the recorder need not write it again.
pub(crate) fn returned_by(stmt: &Stmt, tail: bool, result: bool, scope: &Scope) -> Option<Ident> {
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
