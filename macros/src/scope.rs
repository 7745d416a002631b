//! The bindings in scope at a statement: which are moved away, which are known to be `Copy`, and
//! which cannot change while in scope.

use syn::{Expr, Ident, Pat, Type};

/// The bindings visible at a point, oldest first; a shadowing binding replaces the older one.
#[derive(Clone, Default)]
pub(crate) struct Scope {
    pub(crate) bindings: Vec<Binding>,
}

#[derive(Clone)]
pub(crate) struct Binding {
    pub(crate) name: Ident,
    pub(crate) moved: bool,
    /// The declaration shows the type is `Copy`: assigning it elsewhere copies, never moves.
    pub(crate) copy: bool,
    /// Not `mut`, and a shared reference by its declaration: its value cannot change while it is
    /// in scope, so no probe serializes it again. That needs a type without interior mutability:
    /// each probe asserts `recorder::frozen` (`RefUnwindSafe`) of it, which the single-thread cells
    /// lack (macros/guarantees/tests/ui/interior_mutability.rs).
    pub(crate) frozen: bool,
}

impl Scope {
    pub(crate) fn bind(&mut self, name: &Ident, copy: bool) {
        self.bind_as(name, copy, false);
    }

    pub(crate) fn bind_as(&mut self, name: &Ident, copy: bool, frozen: bool) {
        self.bindings.retain(|known| known.name != *name);
        self.bindings.push(Binding { name: name.clone(), moved: false, copy, frozen });
    }

    pub(crate) fn get(&self, name: &Ident) -> Option<&Binding> {
        self.bindings.iter().find(|known| known.name == *name)
    }

    pub(crate) fn mark_moved(&mut self, name: &Ident) {
        for known in &mut self.bindings {
            if known.name == *name {
                known.moved = true;
            }
        }
    }

    pub(crate) fn names(&self) -> Vec<String> {
        self.bindings.iter().map(|b| b.name.to_string()).collect()
    }
}

/// Adds every name a pattern binds to the scope, types unknown.
pub(crate) fn bind_pattern(pat: &Pat, scope: &mut Scope) {
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
pub(crate) fn bind_typed(pat: &Pat, ty: Option<&Type>, scope: &mut Scope) {
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
pub(crate) fn is_copy_type(ty: &Type) -> bool {
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
pub(crate) fn is_copy_init(expr: &Expr) -> bool {
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
pub(crate) fn bind_local(local: &syn::Local, scope: &mut Scope) {
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
