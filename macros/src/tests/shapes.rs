//! The scope rules (`scope.rs`: what is bound, what is known to be `Copy` or frozen) and the
//! statement forms the recorder follows without writing a value again (`shapes.rs`). Each form is
//! pinned beside near misses that must not be taken for it.

use syn::parse::Parser;
use syn::{Pat, Stmt};

use super::{ident, names, scope};
use crate::scope::{bind_local, bind_pattern, bind_typed, Scope};
use crate::shapes::{
    appended_by, copied_by, element_set_by, made_by, moved_by, pushed_by, returned_by, Of,
};

/// A statement: `text` as written if it ends in `;` or a block, else an expression without `;`
/// (a block's tail).
fn stmt(text: &str) -> Stmt {
    match syn::parse_str(text) {
        Ok(stmt) => stmt,
        Err(_) => Stmt::Expr(syn::parse_str(text).expect("an expression"), None),
    }
}

/// The scope after the function parameters `params` (`a: &T, mut b: u32`).
fn params(params: &str) -> Scope {
    let func: syn::ItemFn = syn::parse_str(&format!("fn f({params}) {{}}")).expect("parameters");
    let mut scope = Scope::default();
    for input in &func.sig.inputs {
        let syn::FnArg::Typed(arg) = input else { unreachable!() };
        bind_typed(&arg.pat, Some(&arg.ty), &mut scope);
    }
    scope
}

/// The scope after the `let` statement `text`.
fn after_let(text: &str) -> Scope {
    let Stmt::Local(local) = stmt(text) else { panic!("not a let: {text}") };
    let mut scope = Scope::default();
    bind_local(&local, &mut scope);
    scope
}

/// Each binding as (name, copy, frozen).
fn kinds(scope: &Scope) -> Vec<(String, bool, bool)> {
    scope.bindings.iter().map(|b| (b.name.to_string(), b.copy, b.frozen)).collect()
}

fn kind(name: &str, copy: bool, frozen: bool) -> (String, bool, bool) {
    (name.to_string(), copy, frozen)
}

#[test]
fn a_parameter_is_copy_and_frozen_only_as_its_type_shows() {
    let scope = params("a: &Value, mut b: &str, c: &mut State, n: usize, s: String, t: (u8)");
    assert_eq!(
        kinds(&scope),
        [
            kind("a", true, true),
            kind("b", true, false),
            kind("c", false, false),
            kind("n", true, false),
            kind("s", false, false),
            kind("t", true, false),
        ]
    );
    // A pattern's names: bound, nothing known of their types.
    let scope = params("(x, y): (u32, u32), Wrapper { inner }: Wrapper");
    assert_eq!(
        kinds(&scope),
        [kind("x", false, false), kind("y", false, false), kind("inner", false, false)]
    );
}

#[test]
fn a_let_is_copy_and_frozen_only_as_its_initializer_shows() {
    assert_eq!(kinds(&after_let("let a = 3;")), [kind("a", true, false)]);
    assert_eq!(kinds(&after_let("let a = &list;")), [kind("a", true, true)]);
    assert_eq!(kinds(&after_let("let mut a = &list;")), [kind("a", true, false)]);
    assert_eq!(kinds(&after_let("let a = &mut list;")), [kind("a", false, false)]);
    assert_eq!(kinds(&after_let("let a: usize = list.len();")), [kind("a", true, false)]);
    assert_eq!(kinds(&after_let("let a = list.len();")), [kind("a", false, false)]);
    // A string literal is left unknown: a move of it is then asserted not `Copy`, which fails to
    // compile (it is a `&str`) rather than trace wrongly.
    assert_eq!(kinds(&after_let("let a = \"text\";")), [kind("a", false, false)]);
    // `let ... else`: bound, nothing known.
    assert_eq!(kinds(&after_let("let Some(a) = x else { return; };")), [kind("a", false, false)]);
}

#[test]
fn a_shadowing_binding_replaces_the_older_one() {
    let mut scope = scope(&["a", "b"]);
    scope.mark_moved(&ident("a"));
    let pat: Pat = Pat::parse_single.parse_str("a").unwrap();
    bind_pattern(&pat, &mut scope);
    assert_eq!(scope.names(), names(&["b", "a"]));
    assert!(!scope.get(&ident("a")).unwrap().moved);
}

#[test]
fn an_or_pattern_binds_its_first_case() {
    let mut scope = Scope::default();
    let pat: Pat = Pat::parse_multi.parse_str("Ok(a) | Err(a)").unwrap();
    bind_pattern(&pat, &mut scope);
    assert_eq!(scope.names(), names(&["a"]));
}

#[test]
fn a_move_is_a_plain_name_on_the_right() {
    let moved = |text: &str| moved_by(&stmt(text)).map(ToString::to_string);
    assert_eq!(moved("state.items = replacement;"), Some("replacement".into()));
    assert_eq!(moved("let kept = list;"), Some("list".into()));
    // Near misses: a field, a call, a path, a borrow.
    assert_eq!(moved("state.items = other.items;"), None);
    assert_eq!(moved("let kept = list.clone();"), None);
    assert_eq!(moved("let kept = module::list;"), None);
    assert_eq!(moved("let kept = &list;"), None);
}

#[test]
fn a_push_is_an_append_only_when_its_value_leaves_the_list_alone() {
    let scope = scope(&["list", "item"]);
    let appended = |text: &str| appended_by(&stmt(text), &scope).map(|i| i.to_string());
    assert_eq!(appended("list.push(item);"), Some("list".into()));
    assert_eq!(appended("list.push(format!(\"{}\", item));"), Some("list".into()));
    // The value mentions the list, holds a block (where a probe could run), or jumps.
    assert_eq!(appended("list.push(list.len());"), None);
    assert_eq!(appended("list.push(Todo { id: item });"), None);
    assert_eq!(appended("list.push(match item { _ => continue });"), None);
    // Not a statement of its own, not `push`, not a binding in scope.
    assert_eq!(appended("list.push(item)"), None);
    assert_eq!(appended("list.insert(0, item);"), None);
    assert_eq!(appended("other.push(item);"), None);
}

#[test]
fn a_binding_pushed_is_a_plain_name_in_scope() {
    let mut scope = scope(&["list", "item", "gone"]);
    scope.mark_moved(&crate::tests::ident("gone"));
    let pushed =
        |text: &str| pushed_by(&stmt(text), &scope).map(|(list, item)| format!("{list}<-{item}"));
    assert_eq!(pushed("list.push(item);"), Some("list<-item".into()));
    // Not a binding (a call, a field, a path), one moved away, or not an append at all.
    assert_eq!(pushed("list.push(item.clone());"), None);
    assert_eq!(pushed("list.push(item.field);"), None);
    assert_eq!(pushed("list.push(module::item);"), None);
    assert_eq!(pushed("list.push(gone);"), None);
    assert_eq!(pushed("list.push(list);"), None);
    assert_eq!(pushed("other.push(item);"), None);
}

#[test]
fn an_element_set_is_a_literal_index_then_fields() {
    let mut scope = scope(&["prepared", "text"]);
    let set = |text: &str, scope: &Scope| {
        element_set_by(&stmt(text), scope).map(|(i, at)| (i.to_string(), at))
    };
    assert_eq!(set("prepared[0].content = text;", &scope), Some(("prepared".into(), 0)));
    assert_eq!(set("prepared[2] = text;", &scope), Some(("prepared".into(), 2)));
    assert_eq!(set("prepared[0].content = prepared[1].content;", &scope), None);
    assert_eq!(set("prepared[i].content = text;", &scope), None);
    assert_eq!(set("prepared[0].content = if x { text } else { y };", &scope), None);
    scope.mark_moved(&ident("prepared"));
    assert_eq!(set("prepared[0].content = text;", &scope), None);
}

#[test]
fn a_copy_is_a_clone_of_another_binding() {
    let scope = scope(&["messages"]);
    let copied =
        |text: &str| copied_by(&stmt(text), &scope).map(|(a, b)| (a.to_string(), b.to_string()));
    let pair = Some(("prepared".to_string(), "messages".to_string()));
    assert_eq!(copied("let prepared = messages.to_vec();"), pair);
    assert_eq!(copied("let prepared = messages.clone();"), pair);
    assert_eq!(copied("let mut prepared = messages.to_owned();"), pair);
    assert_eq!(copied("let prepared = messages.iter().cloned().collect();"), None);
    assert_eq!(copied("let messages = messages.clone();"), None);
    assert_eq!(copied("let prepared = other.clone();"), None);
    assert_eq!(copied("let (prepared, x) = messages.clone();"), None);
}

#[test]
fn a_binding_made_of_a_call_s_value_is_a_let_of_the_call_or_of_a_struct_of_it() {
    let made = |text: &str| {
        let made = made_by(&stmt(text));
        let name = |(binding, of, callee): &crate::shapes::Made| {
            let of = match of {
                Of::Whole => String::new(),
                Of::Field(field) => format!(".{field}"),
                Of::Element(at) => format!("[{at}]"),
            };
            format!("{binding}{of}={callee}")
        };
        made.iter().map(name).collect::<Vec<_>>()
    };
    assert_eq!(made("let plan = format_todos(&state.items, lang);"), ["plan=format_todos"]);
    assert_eq!(made("let list = validate_todos(items)?;"), ["list=validate_todos"]);
    assert_eq!(made("let list = crate::lesson::validate_todos(items)?;"), ["list=validate_todos"]);
    assert_eq!(
        made("let request = Request { tools: tools(lang), messages: prepare(&h)?, n: 1 };"),
        ["request.tools=tools", "request.messages=prepare"]
    );
    // The outer call's value: what `tweak` returned, whatever it did to what `prepare` did.
    assert_eq!(
        made("let request = Request { messages: tweak(prepare(&h)?) };"),
        ["request.messages=tweak"]
    );
    // Each plain name of a tuple pattern, at its place.
    assert_eq!(
        made("let (result, warning) = execute(call, &mut state);"),
        ["result[0]=execute", "warning[1]=execute"]
    );
    assert_eq!(made("let (_, (a, b), c) = split(x)?;"), ["c[2]=split"]);
    assert_eq!(made("let (list, ref n) = pair(items);"), ["list[0]=pair"]);
    // Not a call's value as it returned it, or not a free function's.
    for text in [
        "let list = validate_todos(items)?.len();",
        "let list = validate_todos(items).unwrap();",
        "let list = &validate_todos(items);",
        "let (list, n) = pair(items).clone();",
        "let (first, .., last) = many(items);",
        "let Some(list) = find(items) else { return 0 };",
        "let list = Vec::new();",
        "let list = <T as Trait>::make();",
        "let list = model.reply(&request)?;",
    ] {
        assert_eq!(made(text), Vec::<String>::new(), "{text}");
    }
}

#[test]
fn a_return_as_it_is_is_a_name_or_ok_of_a_name() {
    let scope = scope(&["list"]);
    let returned = |text: &str, tail: bool, result: bool| {
        returned_by(&stmt(text), tail, result, &scope).map(|i| i.to_string())
    };
    let list = Some("list".to_string());
    assert_eq!(returned("return list;", false, false), list);
    assert_eq!(returned("return Ok(list);", false, true), list);
    // A tail expression only as the body's last statement.
    assert_eq!(returned("list", true, false), list);
    assert_eq!(returned("list", false, false), None);
    assert_eq!(returned("Ok(list)", true, true), list);
    // Where the function returns a `Result`, only `Ok(name)`; otherwise only `name`.
    assert_eq!(returned("list", true, true), None);
    assert_eq!(returned("Ok(list)", true, false), None);
    assert_eq!(returned("Some(list)", true, true), None);
    assert_eq!(returned("other", true, false), None);
}
