//! The rules of LESSON.md, checked on the lesson functions called plainly (no recording).

use serde_json::json;
use serde_json::Value;
use todo_trace::lesson::{
    format_todos, prepare_messages, validate_todos, write_todos, Block, Content, Lang, Message,
    Role, State, Todo, TodoError,
};

fn item(id: &str, content: &str, status: &str) -> Value {
    json!({ "id": id, "content": content, "status": status })
}

fn todo(id: &str, content: &str, status: &str) -> Todo {
    Todo { id: id.into(), content: content.into(), status: status.into() }
}

fn code(items: Value) -> &'static str {
    match validate_todos(&items) {
        Ok(_) => "ok",
        Err(error) => error.code(),
    }
}

#[test]
fn a_valid_list_comes_back_trimmed_and_in_order() {
    let items =
        json!([item("  a ", "\tRead the source\n", "completed"), item("b", "Run", "pending")]);
    let list = validate_todos(&items).unwrap();
    assert_eq!(list, vec![todo("a", "Read the source", "completed"), todo("b", "Run", "pending")]);
}

#[test]
fn the_returned_list_is_a_new_one() {
    let mut items = json!([item("a", "x", "pending")]);
    let list = validate_todos(&items).unwrap();
    if let Value::Array(entries) = &mut items {
        entries[0] = item("a", "changed", "pending");
    }
    assert_eq!(list[0].content, "x");
}

#[test]
fn each_rule_has_its_code() {
    let cases: Vec<(Value, &str)> = vec![
        (json!({"id": "a"}), "not_a_list"),
        (json!("[]"), "not_a_list"),
        (json!(null), "not_a_list"),
        (json!(["a"]), "bad_shape"),
        (json!([{"id": "a", "content": "x"}]), "bad_shape"),
        (json!([{"id": "a", "content": "x", "status": "pending", "extra": 1}]), "bad_shape"),
        (json!([{"id": "a", "content": "x", "state": "pending"}]), "bad_shape"),
        (json!([{"id": 1, "content": "x", "status": "pending"}]), "not_a_string"),
        (json!([{"id": "a", "content": null, "status": "pending"}]), "not_a_string"),
        (json!([{"id": "a", "content": "x", "status": true}]), "not_a_string"),
        (json!([item(" \t ", "x", "pending")]), "empty_id"),
        (json!([item(&"i".repeat(33), "x", "pending")]), "id_too_long"),
        (json!([item("a", "x", "pending"), item(" a ", "y", "pending")]), "duplicate_id"),
        (json!([item("a", "  ", "pending")]), "empty_content"),
        (json!([item("a", &"c".repeat(151), "pending")]), "content_too_long"),
        (json!([item("a", "x", "done")]), "unknown_status"),
        (json!([item("a", "x", "Pending")]), "unknown_status"),
        (json!([item("a", "x", " pending")]), "unknown_status"),
        (json!([item("a", "x", "in_progress"), item("b", "y", "in_progress")]), "too_many_active"),
    ];
    for (items, expected) in cases {
        assert_eq!(code(items.clone()), expected, "{items}");
    }
}

#[test]
fn limits_are_inclusive() {
    assert_eq!(code(json!([item(&"i".repeat(32), &"c".repeat(150), "pending")])), "ok");
    let twenty: Vec<Value> = (0..20).map(|i| item(&i.to_string(), "x", "pending")).collect();
    assert_eq!(code(json!(twenty)), "ok");
    let twenty_one: Vec<Value> = (0..21).map(|i| item(&i.to_string(), "x", "pending")).collect();
    assert_eq!(code(json!(twenty_one)), "too_many_items");
    assert_eq!(code(json!([])), "ok");
}

#[test]
fn lengths_count_characters_not_bytes() {
    // 150 CJK characters are 450 bytes; 32 emoji are 128 bytes.
    assert_eq!(code(json!([item(&"😀".repeat(32), &"读".repeat(150), "pending")])), "ok");
    assert_eq!(code(json!([item(&"😀".repeat(33), "x", "pending")])), "id_too_long");
    assert_eq!(code(json!([item("a", &"读".repeat(151), "pending")])), "content_too_long");
    // Trimming happens before counting.
    assert_eq!(code(json!([item(&format!("  {}  ", "i".repeat(32)), "x", "pending")])), "ok");
}

#[test]
fn checks_run_in_the_specified_order() {
    // Too many items is found before any item is looked at.
    let mut many: Vec<Value> = (0..21).map(|_| json!(42)).collect();
    many[0] = json!("not an object");
    assert_eq!(code(json!(many)), "too_many_items");
    // Shape before types; types before emptiness.
    assert_eq!(code(json!([{"id": 1, "content": "x"}])), "bad_shape");
    assert_eq!(code(json!([{"id": "", "content": 2, "status": "pending"}])), "not_a_string");
    // Id checks (empty, long, duplicate) before content checks, content before status.
    assert_eq!(code(json!([item("", "", "nope")])), "empty_id");
    assert_eq!(code(json!([item(&"i".repeat(33), "", "nope")])), "id_too_long");
    assert_eq!(code(json!([item("a", "x", "pending"), item("a", "", "nope")])), "duplicate_id");
    assert_eq!(code(json!([item("a", "", "nope")])), "empty_content");
    assert_eq!(code(json!([item("a", &"c".repeat(151), "nope")])), "content_too_long");
    // Items are checked in order: the first bad item decides.
    assert_eq!(code(json!([item("a", "", "pending"), item("", "x", "pending")])), "empty_content");
    assert_eq!(
        code(json!([
            item("a", "x", "in_progress"),
            item("b", "y", "in_progress"),
            item("", "", "")
        ])),
        "too_many_active"
    );
}

#[test]
fn not_a_string_names_the_first_field_that_is_not_a_string() {
    let cases = [
        (json!({"id": 1, "content": "x", "status": "pending"}), "id"),
        (json!({"id": "a", "content": null, "status": "pending"}), "content"),
        (json!({"id": "a", "content": "x", "status": true}), "status"),
        // Fields are checked in the order id, content, status, whatever the key order.
        (json!({"status": 0, "content": [], "id": "a"}), "content"),
        (json!({"status": 0, "content": [], "id": {}}), "id"),
    ];
    for (bad, field) in cases {
        let items = json!([item("a0", "x", "pending"), bad]);
        assert_eq!(validate_todos(&items), Err(TodoError::NotAString { position: 2, field }));
        let error = validate_todos(&items).unwrap_err();
        let en = error.message(Lang::En);
        assert_eq!(en, format!("Item 2: {field} must be a string."));
        assert!(error.message(Lang::Zh).contains(&format!("第 2 项的 {field} ")), "{en}");
    }
}

#[test]
fn the_second_active_item_fails_after_its_id_was_recorded() {
    // Item 2 is the second in_progress; item 3 would repeat its id. The active error wins,
    // which shows it is raised at item 2, before item 3 is looked at.
    let items = json!([
        item("a", "x", "in_progress"),
        item("b", "y", "in_progress"),
        item("b", "z", "pending")
    ]);
    assert_eq!(
        validate_todos(&items),
        Err(TodoError::TooManyActive { position: 2, id: "b".into() })
    );
}

#[test]
fn errors_name_the_position_and_the_id() {
    let items = json!([item("a", "x", "pending"), item(" a ", "y", "pending")]);
    let error = validate_todos(&items).unwrap_err();
    assert_eq!(error, TodoError::DuplicateId { position: 2, id: "a".into() });
    for lang in [Lang::Zh, Lang::En] {
        let message = error.message(lang);
        assert!(message.contains('2') && message.contains("\"a\""), "{message}");
    }
    assert_ne!(error.message(Lang::Zh), error.message(Lang::En));
}

#[test]
fn a_very_long_id_is_cut_in_the_message() {
    let error = TodoError::IdTooLong { position: 1, id: "x".repeat(10_000) };
    assert!(error.message(Lang::En).chars().count() < 200);
}

fn old_state() -> State {
    State { items: vec![todo("1", "Read", "completed"), todo("2", "Run", "pending")] }
}

#[test]
fn write_replaces_the_whole_plan_and_returns_its_rendering() {
    let mut state = old_state();
    let rendered = write_todos(&mut state, &json!([item("2", "Run", "in_progress")]), Lang::En);
    assert_eq!(rendered.unwrap(), "2 [in_progress] Run");
    assert_eq!(state.items, vec![todo("2", "Run", "in_progress")]);
}

#[test]
fn a_rejected_write_leaves_the_old_plan() {
    let bad = [
        json!("nope"),
        json!([item("a", "x", "pending"), item("a", "y", "pending")]),
        json!([item("a", "x", "in_progress"), item("b", "y", "in_progress")]),
        json!([item("a", "x", "pending"), item("b", "y", "done")]),
    ];
    for items in bad {
        let mut state = old_state();
        assert!(write_todos(&mut state, &items, Lang::En).is_err());
        assert_eq!(state, old_state());
    }
}

#[test]
fn an_empty_write_clears_the_plan() {
    let mut state = old_state();
    let rendered = write_todos(&mut state, &json!([]), Lang::En).unwrap();
    assert_eq!(rendered, "(empty plan)");
    assert!(state.items.is_empty());
}

#[test]
fn format_renders_one_line_per_item_or_a_placeholder() {
    let items = old_state().items;
    assert_eq!(format_todos(&items, Lang::En), "1 [completed] Read\n2 [pending] Run");
    assert_eq!(format_todos(&[], Lang::En), "(empty plan)");
    assert_eq!(format_todos(&[], Lang::Zh), "（清单为空）");
}

fn history() -> Vec<Message> {
    vec![
        Message { role: Role::User, content: Content::Text("Read, then run.".into()) },
        Message {
            role: Role::Assistant,
            content: Content::Blocks(std::sync::Arc::new(vec![Block::ToolUse {
                id: "run_1".into(),
                name: "run_main".into(),
                input: json!({}),
            }])),
        },
        Message {
            role: Role::User,
            content: Content::Blocks(std::sync::Arc::new(vec![Block::ToolResult {
                tool_use_id: "run_1".into(),
                content: "Not run: the user declined.".into(),
                is_error: true,
            }])),
        },
    ]
}

#[test]
fn prepare_attaches_the_plan_to_a_copy_only() {
    let messages = history();
    let prepared = prepare_messages(&messages, &old_state(), Lang::En).unwrap();
    assert_eq!(messages, history(), "the original history is unchanged");
    assert_eq!(prepared.len(), messages.len());
    assert_eq!(prepared[1..], messages[1..], "tool blocks and their ids are unchanged");
    let Content::Text(text) = &prepared[0].content else { panic!("first message lost its text") };
    let (question, rest) = text.split_once("\n\n").unwrap();
    assert_eq!(question, "Read, then run.");
    let (header, plan) = rest.split_once('\n').unwrap();
    assert!(header.contains("host") && header.contains("claims"), "{header}");
    assert_eq!(plan, "1 [completed] Read\n2 [pending] Run");
}

#[test]
fn preparing_twice_does_not_pile_up_plans() {
    let messages = history();
    let once = prepare_messages(&messages, &old_state(), Lang::En).unwrap();
    let twice = prepare_messages(&messages, &old_state(), Lang::En).unwrap();
    assert_eq!(once, twice);
    let Content::Text(text) = &twice[0].content else { panic!() };
    assert_eq!(text.matches("[completed] Read").count(), 1);
}

#[test]
fn prepare_needs_a_first_user_text_message() {
    let state = old_state();
    assert_eq!(prepare_messages(&[], &state, Lang::En), Err(TodoError::NoUserText));
    let tool_first = history()[1..].to_vec();
    assert_eq!(prepare_messages(&tool_first, &state, Lang::En), Err(TodoError::NoUserText));
    let blocks_from_user = history()[2..].to_vec();
    assert_eq!(prepare_messages(&blocks_from_user, &state, Lang::En), Err(TodoError::NoUserText));
}

#[test]
fn prepare_renders_an_empty_plan_as_the_placeholder() {
    let prepared = prepare_messages(&history(), &State::default(), Lang::Zh).unwrap();
    let Content::Text(text) = &prepared[0].content else { panic!() };
    assert!(text.ends_with("\n（清单为空）"), "{text}");
}
