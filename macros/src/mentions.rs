//! The token rules: which bindings a statement, or the part of it that runs before a jump, may
//! change. They read tokens, not types, so they err on the side of "may change": a binding named
//! here is serialized again, which costs time but is never wrong.

use proc_macro2::TokenStream as Tokens;
use quote::{quote, ToTokens};
use syn::{Expr, Stmt};

use crate::scope::{Binding, Scope};

/// Whether `tokens` hold a `{ ... }` group anywhere (a block, a closure's body, a struct literal).
pub(crate) fn has_block(tokens: Tokens) -> bool {
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
pub(crate) fn mentioned(tokens: Tokens, scope: &Scope) -> Vec<String> {
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

/// The part of a statement that can have changed a binding when the statement after it runs. For a
/// statement whose blocks hold probes (an `if` chain, a `for` or `while` loop, a `match`, a plain
/// block) and no `break` or `continue`, that is what can run after the last probe inside it: its
/// header, and each block's last statement, taken the same way. A block that ends in `return`
/// leaves the function, so it adds nothing (without this, the loop's early exits made every step
/// after them serialize the history again). Nothing else can have changed a binding since: a
/// binding borrowed mutably by another across a probe does not compile, as the probe borrows them
/// all. Any other statement is the whole statement.
pub(crate) fn changing_part(stmt: &Stmt) -> Tokens {
    let whole = stmt.to_token_stream();
    match stmt {
        Stmt::Expr(expr, _) if !jumps(whole.clone()) => leaving(expr).unwrap_or(whole),
        _ => whole,
    }
}

/// What can run after the last probe inside `expr` when it ends (see [`changing_part`]); `None` for
/// an expression without instrumented blocks, and for `loop`, which ends only by a jump.
fn leaving(expr: &Expr) -> Option<Tokens> {
    // Each part on its own, as `header_part` joins the parts of a header.
    let mut part = header_of(expr)?;
    let mut add = |more: Tokens| {
        if !more.is_empty() {
            part.extend(quote!(; #more));
        }
    };
    match expr {
        Expr::If(e) => {
            add(tail(&e.then_branch));
            match e.else_branch.as_ref().map(|(_, otherwise)| &**otherwise) {
                Some(Expr::Block(block)) => add(tail(&block.block)),
                Some(otherwise) => add(leaving(otherwise)?),
                None => {}
            }
        }
        Expr::ForLoop(e) => add(tail(&e.body)),
        Expr::While(e) => add(tail(&e.body)),
        Expr::Block(e) => add(tail(&e.block)),
        // An arm's block holds probes; any other arm body runs after the match's own probe.
        Expr::Match(e) => {
            for arm in &e.arms {
                match &*arm.body {
                    Expr::Block(block) => add(tail(&block.block)),
                    body => add(body.to_token_stream()),
                }
            }
        }
        _ => return None,
    }
    Some(part)
}

/// What can run after a block's last probe: its last statement's changing part, or nothing if the
/// block is empty (its statement's own probe was the last) or ends in `return`.
fn tail(block: &syn::Block) -> Tokens {
    let last = block.stmts.iter().rev().find(|stmt| !matches!(stmt, Stmt::Item(_)));
    match last {
        None | Some(Stmt::Expr(Expr::Return(_), _)) => Tokens::new(),
        Some(last) => changing_part(last),
    }
}

/// What of a statement that holds blocks runs before the first statement of one of them: a loop's
/// header, each condition of an `if` chain, a `match`'s scrutinee, patterns and guards; nothing for
/// `loop` and a plain block. The call's next probe is then either in such a block, with only that
/// run since the statement's own probe, or after the statement, where `fresh` names what
/// [`changing_part`] gives. `None` for any other statement.
pub(crate) fn header_part(stmt: &Stmt) -> Option<Tokens> {
    let Stmt::Expr(expr, _) = stmt else { return None };
    header_of(expr)
}

/// [`header_part`] of an expression statement's expression.
fn header_of(expr: &Expr) -> Option<Tokens> {
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
pub(crate) fn jumps(tokens: Tokens) -> bool {
    tokens.into_iter().any(|token| match token {
        proc_macro2::TokenTree::Ident(ident) => ident == "break" || ident == "continue",
        proc_macro2::TokenTree::Group(group) => jumps(group.stream()),
        _ => false,
    })
}
