//! The walk over a traced body: a probe before each statement, with what the statement and the
//! jumps around it may have changed, descending into every block a statement owns.

use proc_macro2::Span;
use quote::{quote, ToTokens};
use syn::spanned::Spanned;
use syn::{Block, Expr, Ident, Stmt};

use crate::host::{root, HostField};
use crate::mentions::{changing_part, header_part, jumps, mentioned};
use crate::scope::{bind_local, bind_pattern, Scope};
use crate::shapes::{
    appended_by, copied_by, element_set_by, made_by, moved_by, pushed_by, returned_by, Made,
};

pub(crate) struct Probes<'a> {
    pub(crate) host: &'a [HostField],
    /// Whether the function returns a `Result` (see `returned_by`).
    pub(crate) result: bool,
    /// Whether the next block is the function's body, whose last statement is its return value.
    pub(crate) body: bool,
    /// Whether a loop's header runs after the current block's last statement (a `while` or `for`
    /// body, or a block that ends one).
    pub(crate) pass_end: bool,
    /// The bindings the headers of the loops around the current block mention: run again between a
    /// pass's last statement and the next pass's first, they could change what the last one did.
    pub(crate) headers: Vec<String>,
    /// Where each probe went, in source order.
    pub(crate) spans: Vec<Span>,
}

/// What a probe knows about its statement, and the one before, beyond what they mention: each
/// lets the recorder skip writing a value again (see the recorder's `Probe`).
#[derive(Default)]
pub(crate) struct Hints {
    /// A binding the statement moves out of: asserted not `Copy`.
    pub(crate) moves: Option<Ident>,
    /// A host list's root the statement only appends to (`appended_by`): asserted a `Vec`.
    pub(crate) appends: Option<Ident>,
    /// A list the statement pushes a binding onto, and that binding (`pushed_by`).
    pub(crate) pushed: Option<(Ident, Ident)>,
    /// A binding the statement returns as it is (`returned_by`).
    pub(crate) returns: Option<Ident>,
    /// A binding the statement before changed at one element (`element_set_by`): asserted a `Vec`.
    pub(crate) element: Option<(Ident, usize)>,
    /// A binding the statement before made as a copy of another (`copied_by`).
    pub(crate) copy: Option<(Ident, Ident)>,
    /// A binding the statement before made of a call's value, or its fields (`made_by`).
    pub(crate) made: Vec<Made>,
    /// Until the call's next probe, nothing of the call runs but this statement: it holds no block
    /// and no jump, and no loop's header runs after it.
    pub(crate) alone: bool,
}

impl Probes<'_> {
    /// Puts a probe before each statement of `block`, and descends into nested blocks. `entry`
    /// names what may have changed before the block's first statement other than by the statement
    /// probed just before it (a loop's header, run again before each pass).
    pub(crate) fn block(&mut self, block: &mut Block, mut scope: Scope, entry: Vec<String>) {
        let body = std::mem::replace(&mut self.body, false);
        let pass_end = self.pass_end;
        let mut stmts = Vec::with_capacity(block.stmts.len() * 2);
        let mut fresh = entry;
        // What the statement just before did to one binding (see `element_set_by`, `copied_by`).
        let (mut element, mut copy, mut made) = (None, None, Vec::new());
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
            // Not where a loop's header could change the list before the next pass.
            let pushed = pushed_by(&stmt, &scope)
                .filter(|(name, _)| !self.headers.contains(&name.to_string()));
            let ends_pass = pass_end && at == last;
            let let_else = matches!(&stmt, Stmt::Local(local) if local.init.as_ref().is_some_and(|init| init.diverge.is_some()));
            let hints = Hints {
                moves: moves.cloned(),
                appends,
                pushed,
                returns: returned_by(&stmt, body && at == last, self.result, &scope),
                element: element.take(),
                copy: copy.take(),
                made: std::mem::take(&mut made),
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
            made = made_by(&stmt);
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
            // that did not name what ran after it there: what can have (`changing_part`).
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
}
