//! Expansion snapshots: what `#[traced]` and `#[listed]` make of each function the page lists.
//!
//! The page's traces depend on every token the macro emits (a probe's names, mentions, hints),
//! so a change shows here first, as a diff a reviewer can read. To accept one on purpose:
//! `INSTA_UPDATE=always cargo test -p todo-trace-macros` (or `cargo insta review`).

use super::{expand_all, pretty, read};

const FILES: [&str; 3] = ["src/lesson/plan.rs", "src/lesson/agent.rs", "src/host/entries.rs"];

#[test]
fn expansions() {
    let mut names = Vec::new();
    for path in FILES {
        for expanded in expand_all(&read(path)) {
            let mut settings = insta::Settings::clone_current();
            settings.set_snapshot_path("../../tests/snapshots");
            settings.set_prepend_module_to_snapshot(false);
            settings.set_omit_expression(true);
            settings.set_description(format!(
                "{} on `{}` in {path}; each `line!()` shows the line it resolves to in parentheses",
                expanded.attribute, expanded.name
            ));
            settings
                .bind(|| insta::assert_snapshot!(expanded.name.clone(), pretty(expanded.tokens)));
            names.push(expanded.name);
        }
    }
    // Every function the page lists (src/host/source.rs's `LISTED`) has its snapshot.
    let listed = [
        "validate_todos",
        "write_todos",
        "format_todos",
        "prepare_messages",
        "run_loop",
        "execute_with_plan",
        "run_validate",
        "run_write",
        "run_prepare",
        "run_agent",
    ];
    for name in listed {
        assert!(names.iter().any(|n| n == name), "no snapshot of {name}");
    }
}
