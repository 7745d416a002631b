//! The token rules of `mentions.rs`: which bindings a statement, or the part of it that runs
//! before its blocks, may change. A name left out wrongly would leave a stale value in a trace, so
//! each rule that leaves a name out is pinned here, beside a near miss that keeps it.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::Stmt;

use super::{names, scope};
use crate::mentions::{changing_part, has_block, header_part, jumps, mentioned};
use crate::scope::Scope;

fn tokens(text: &str) -> TokenStream {
    text.parse().expect("tokens")
}

fn stmt(text: &str) -> Stmt {
    syn::parse_str(text).expect("a statement")
}

/// What `text` mentions among `a`, `b`, `c`, `items`, `tools` (all plain bindings).
fn mentions(text: &str) -> Vec<String> {
    mentioned(tokens(text), &scope(&["a", "b", "c", "items", "tools"]))
}

#[test]
fn a_name_anywhere_counts_in_the_scope_order() {
    assert_eq!(mentions("c = b;"), names(&["b", "c"]));
    assert_eq!(mentions("a.push(c.len());"), names(&["a", "c"]));
    // Inside blocks and closures too.
    assert_eq!(mentions("if x { b += 1; } else { f(|| c) }"), names(&["b", "c"]));
    // Names out of scope do not count; each binding is named once however often it appears.
    assert_eq!(mentions("d = a + a;"), names(&["a"]));
}

#[test]
fn a_name_is_matched_as_a_token_not_by_meaning() {
    // `s.items` is a field, not the binding `items`, but the rule reads tokens: it counts, which
    // costs a serialization and is never wrong.
    assert_eq!(mentions("s.items.clear();"), names(&["items"]));
}

#[test]
fn a_shared_borrow_of_a_whole_binding_does_not_count() {
    assert_eq!(mentions("f(&a, &b);"), names(&[]));
    assert_eq!(mentions("let x = &a;"), names(&[]));
    assert_eq!(mentions("g([&a]);"), names(&[]));
    // Followed by a block: `for x in &a { ... }`.
    assert_eq!(mentions("for x in &a { }"), names(&[]));
    // Near misses: a mutable borrow, a borrow of a method's result, a `&&` (logical and).
    assert_eq!(mentions("f(&mut a);"), names(&["a"]));
    assert_eq!(mentions("f(&a.iter());"), names(&["a"]));
    assert_eq!(mentions("f(c && a);"), names(&["a", "c"]));
    // A name borrowed in one place and used in another counts.
    assert_eq!(mentions("f(&a, a);"), names(&["a"]));
}

#[test]
fn a_field_read_as_a_value_does_not_count() {
    // In an argument list, a list, a block's end, before `,` `;` `&&` `||` `==` `!=`.
    assert_eq!(mentions("tool_definitions(tools.lang);"), names(&[]));
    assert_eq!(mentions("f(a.x, b.y);"), names(&[]));
    assert_eq!(mentions("g([a.0]);"), names(&[]));
    assert_eq!(mentions("if a.x == b.y && c.z != 0 || b.w == 1 {}"), names(&[]));
    // Before a block (`if a.w { .. }`) a field is not known to end a value: it counts.
    assert_eq!(mentions("if a.w {}"), names(&["a"]));
    // Near misses: a method called on it, a field lent out mutably, a field called, assigned to.
    assert_eq!(mentions("f(a.x.clear());"), names(&["a"]));
    assert_eq!(mentions("f(&mut a.x);"), names(&["a"]));
    assert_eq!(mentions("(a.call)(&b);"), names(&["a"]));
    assert_eq!(mentions("a.x = 1;"), names(&["a"]));
    // At the end of a statement's tokens: not known to end a value (it may be `a.x = ...` cut).
    assert_eq!(mentions("a.x"), names(&["a"]));
}

#[test]
fn a_macros_arguments_are_not_known_to_be_read() {
    // `format!` could use them in any way: a field at the end of its arguments counts.
    assert_eq!(mentions("let s = format!(\"{}\", a.x);"), names(&["a"]));
    // ... and so does one before a comma: only the end of a call's list is special.
    assert_eq!(mentions("let s = format!(\"{} {}\", a.x, b);"), names(&["b"]));
}

#[test]
fn a_match_scrutinee_in_parentheses_is_not_a_call() {
    // `match (a.x) { ref mut y => ... }` can change `a.x` through `y`.
    assert_eq!(mentions("match (a.x) { ref mut y => {} }"), names(&["a"]));
    assert_eq!(mentions("f(a.x)"), names(&[]));
}

#[test]
fn a_frozen_binding_never_counts() {
    let mut scope = Scope::default();
    scope.bind_as(&super::ident("a"), true, true);
    scope.bind_as(&super::ident("b"), true, false);
    assert_eq!(mentioned(tokens("a.clear(); b.clear();"), &scope), names(&["b"]));
}

#[test]
fn a_statement_with_blocks_changes_only_through_its_header_and_their_last_statements() {
    let part = |text: &str| changing_part(&stmt(text)).to_string();
    // A block that ends in `return` leaves the function: only the condition can have run.
    assert_eq!(part("if a.len() > b { c += 1; return c; }"), tokens("a.len() > b").to_string());
    assert_eq!(
        part("if a { c += 1; return c; } else { b = 1; }"),
        tokens("a ; b = 1;").to_string()
    );
    assert_eq!(part("if a { c += 1; }"), tokens("a ; c += 1;").to_string());
    // Through the rule: what changed before a block's last statement was seen by that statement's
    // probe, so only the last statements count, at any depth, and each loop's header.
    let changed =
        |text: &str| mentioned(changing_part(&stmt(text)), &scope(&["a", "b", "c", "d", "items"]));
    assert_eq!(changed("if a > 1 { d = 2; if b { c += 1; } }"), names(&["a", "b", "c"]));
    assert_eq!(
        changed("if a > 1 { d = 2; } else if b { c = 1; } else { }"),
        names(&["a", "b", "c", "d"])
    );
    assert_eq!(changed("for x in &items { d = 2; c += x; }"), names(&["c"]));
    assert_eq!(changed("while a < 3 { d = 2; a += 1; }"), names(&["a"]));
    assert_eq!(changed("{ d = 2; c = 1; }"), names(&["c"]));
    assert_eq!(
        changed("match a { Some(x) => { d = 2; c = x; } None => b.clear(), }"),
        names(&["a", "b", "c"])
    );
    // A jump out, a `loop` (which ends only by one), or no blocks: the whole statement.
    let whole = |text: &str| assert_eq!(part(text), stmt(text).to_token_stream().to_string());
    whole("if a { c += 1; break; return c; }");
    whole("for x in &items { if x > a { continue; } c += 1; }");
    whole("loop { a += 1; if a > b { return a; } }");
    whole("c += 1;");
}

#[test]
fn a_header_is_what_runs_before_a_block_is_entered() {
    let header = |text: &str| header_part(&stmt(text)).map(|t| t.to_string());
    let same = |text: &str| Some(tokens(text).to_string());
    assert_eq!(header("if a { b = 1; } else if c { b = 2; } else { b = 3; }"), same("a ; c"));
    assert_eq!(
        header("for (i, x) in items.iter().enumerate() { a = i; }"),
        same("(i , x) ; items.iter().enumerate()")
    );
    assert_eq!(header("while a < 3 { a += 1; }"), same("a < 3"));
    assert_eq!(
        header("match a { Some(x) if x > b => { c = x; } _ => {} }"),
        same("a ; Some (x) if x > b ; _")
    );
    assert_eq!(header("loop { a += 1; }"), Some(String::new()));
    assert_eq!(header("{ a += 1; }"), Some(String::new()));
    // A statement with no block of its own.
    assert_eq!(header("a += 1;"), None);
    assert_eq!(header("let x = if a { 1 } else { 2 };"), None);
    // Through the rule: what a loop's header may change.
    let in_header = |text: &str| {
        mentioned(header_part(&stmt(text)).unwrap(), &scope(&["a", "b", "c", "items"]))
    };
    assert_eq!(in_header("for x in &items { a += 1; }"), names(&[]));
    assert_eq!(in_header("while let Some(x) = items.pop() { a += x; }"), names(&["items"]));
}

#[test]
fn jumps_and_blocks_are_found_at_any_depth() {
    assert!(jumps(tokens("if a { for x in b { if x { break } } }")));
    assert!(jumps(tokens("continue")));
    assert!(!jumps(tokens("return a; f(b)?;")));
    assert!(has_block(tokens("f(Todo { id })")));
    assert!(has_block(tokens("f(g(|| { 1 }))")));
    assert!(!has_block(tokens("f(g(a), [b])")));
}
