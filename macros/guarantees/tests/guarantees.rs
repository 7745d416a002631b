//! What `#[traced]` promises it cannot get wrong silently, each as a program that must not
//! compile (tests/ui/*.rs, with the compiler's message beside it in *.stderr), and one that must
//! compile and run. To accept changed messages: `TRYBUILD=overwrite cargo test -p todo-trace-guarantees`.
#![cfg(not(target_arch = "wasm32"))]

#[test]
fn guarantees() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass_traced.rs");
    for case in [
        "copy_listed_as_moved",
        "read_after_move",
        "read_while_mutably_borrowed",
        "push_on_a_non_vec",
        "element_set_on_a_non_vec",
        "interior_mutability",
        "method",
        "bad_arguments",
    ] {
        cases.compile_fail(format!("tests/ui/{case}.rs"));
    }
}
