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

/// The part of a statement that can have changed a binding when the statement after it runs. For
/// `if cond { ...; return x; }` with no `else` and no `break` or `continue` inside, that is the
/// condition alone: had the block run, the function would have returned, so the next probe is
/// reached only when it did not (the loop's early exits would otherwise make every step after
/// them serialize the history again).
pub(crate) fn changing_part(stmt: &Stmt) -> Tokens {
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
pub(crate) fn header_part(stmt: &Stmt) -> Option<Tokens> {
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
pub(crate) fn jumps(tokens: Tokens) -> bool {
    tokens.into_iter().any(|token| match token {
        proc_macro2::TokenTree::Ident(ident) => ident == "break" || ident == "continue",
        proc_macro2::TokenTree::Group(group) => jumps(group.stream()),
        _ => false,
    })
}
