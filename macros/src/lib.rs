//! `#[traced]`: adds a step probe before every statement of a lesson function without changing its lines.
//!
//! The lesson functions are shown to the reader exactly as written, so the probes cannot live in
//! the source. This attribute rewrites the function at compile time instead:
//!
//! - before each statement it inserts a call to `todo_trace::recorder::step` with `line!()` spanned to the
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
//!
//! The modules, in the order a function goes through them:
//! - `traced` and `listed`: each attribute's core, a plain function of tokens (what tests call);
//! - `host`: the `host(...)` argument;
//! - `walk`: the walk over the body's blocks, statement by statement;
//! - `scope`: the bindings in scope at each statement, which are moved, which are `Copy`;
//! - `mentions`: the token rules: which bindings a statement (or a part of it) may change;
//! - `shapes`: the statement forms the recorder can follow without writing a value again;
//! - `probe`: the tokens of one probe.

mod host;
mod listed;
mod mentions;
mod probe;
mod scope;
mod shapes;
mod traced;
mod walk;

use proc_macro::TokenStream;
use quote::quote;

/// The recorder's module, as every probe names it. A path from the crate's name, not `crate::`, so
/// that a traced function compiles outside the todo-trace crate too (its tests of what cannot
/// compile, macros/guarantees/tests/ui/); inside it, `extern crate self as todo_trace;` in its lib.rs gives the name.
fn recorder_path() -> proc_macro2::TokenStream {
    quote!(::todo_trace::recorder)
}

/// Instruments a lesson function: see the crate's documentation.
#[proc_macro_attribute]
pub fn traced(attr: TokenStream, item: TokenStream) -> TokenStream {
    match traced::traced(attr.into(), item.into()) {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}

/// For a function the page lists but does not trace (a call entry): only its `LINES`.
#[proc_macro_attribute]
pub fn listed(attr: TokenStream, item: TokenStream) -> TokenStream {
    match listed::listed(attr.into(), item.into()) {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}

#[cfg(test)]
mod tests;
