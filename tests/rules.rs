//! Property tests: LESSON.md's rules against a small reference model, and the input parser's promises.
//!
//! The model below is written from LESSON.md's table, not from `src/lesson/plan.rs`. Its white space
//! is Unicode's White_Space property (PropList.txt), spelled out as a table: that is the set
//! Rust's `str::trim` removes, and LESSON.md's "white space" is taken to mean exactly that. The
//! generators lean on the edges: white space of every kind at both ends (and look-alikes that are
//! not white space), lengths 0, 1, the limit and the limit + 1 in characters of one to four bytes,
//! ids that collide after trimming, wrong types, extra and missing keys, and 0 to 25 items.
#![cfg(not(target_arch = "wasm32"))]

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use serde_json::json;
use serde_json::{Map, Number, Value};
use std::collections::BTreeSet;

use todo_trace::host::input::{parse, InputError, MAX_SAFE_INTEGER};
use todo_trace::host::run::{trace_input, trace_input_with};
use todo_trace::lesson::{
    format_todos, prepare_messages, validate_todos, write_todos, Block, Content, Lang, Message,
    Role, State, Todo, TodoError,
};
use todo_trace::recorder::Settings;

// ---------------------------------------------------------------------------------------------
// The reference model of validate_todos, from LESSON.md.

/// Every code point with White_Space=yes (Unicode 16 PropList.txt).
const WHITE_SPACE: [char; 25] = [
    '\u{9}', '\u{a}', '\u{b}', '\u{c}', '\u{d}', '\u{20}', '\u{85}', '\u{a0}', '\u{1680}',
    '\u{2000}', '\u{2001}', '\u{2002}', '\u{2003}', '\u{2004}', '\u{2005}', '\u{2006}', '\u{2007}',
    '\u{2008}', '\u{2009}', '\u{200a}', '\u{2028}', '\u{2029}', '\u{202f}', '\u{205f}', '\u{3000}',
];

const MAX_ITEMS: usize = 20;
const MAX_ID: usize = 32;
const MAX_CONTENT: usize = 150;
const STATUSES: [&str; 3] = ["pending", "in_progress", "completed"];

#[derive(Debug, PartialEq)]
enum Verdict {
    /// The normalized list: (id, content, status).
    Accept(Vec<(String, String, String)>),
    /// The code, and the 1-based position of the item where it has one.
    Reject(&'static str, Option<usize>),
}

fn model_trim(text: &str) -> &str {
    text.trim_matches(|c| WHITE_SPACE.contains(&c))
}

fn model(items: &Value) -> Verdict {
    use Verdict::Reject;
    let Value::Array(list) = items else {
        return Reject("not_a_list", None);
    };
    if list.len() > MAX_ITEMS {
        return Reject("too_many_items", None);
    }
    let mut normalized = Vec::new();
    let mut ids: Vec<&str> = Vec::new();
    let mut in_progress = 0;
    for (index, item) in list.iter().enumerate() {
        let at = Some(index + 1);
        let Value::Object(fields) = item else {
            return Reject("bad_shape", at);
        };
        let keys: BTreeSet<&str> = fields.keys().map(String::as_str).collect();
        if keys != BTreeSet::from(["id", "content", "status"]) {
            return Reject("bad_shape", at);
        }
        let (Value::String(id), Value::String(content), Value::String(status)) =
            (&fields["id"], &fields["content"], &fields["status"])
        else {
            return Reject("not_a_string", at);
        };
        let (id, content) = (model_trim(id), model_trim(content));
        if id.is_empty() {
            return Reject("empty_id", at);
        }
        if id.chars().count() > MAX_ID {
            return Reject("id_too_long", at);
        }
        if ids.contains(&id) {
            return Reject("duplicate_id", at);
        }
        if content.is_empty() {
            return Reject("empty_content", at);
        }
        if content.chars().count() > MAX_CONTENT {
            return Reject("content_too_long", at);
        }
        if !STATUSES.contains(&status.as_str()) {
            return Reject("unknown_status", at);
        }
        ids.push(id);
        if status == "in_progress" {
            in_progress += 1;
        }
        if in_progress > 1 {
            return Reject("too_many_active", at);
        }
        normalized.push((id.to_string(), content.to_string(), status.clone()));
    }
    Verdict::Accept(normalized)
}

/// What the lesson's `validate_todos` says, in the model's terms.
fn lesson(items: &Value) -> Verdict {
    match validate_todos(items) {
        Ok(list) => {
            Verdict::Accept(list.into_iter().map(|t| (t.id, t.content, t.status)).collect())
        }
        Err(error) => Verdict::Reject(error.code(), position(&error)),
    }
}

fn position(error: &TodoError) -> Option<usize> {
    match error {
        TodoError::NotAList | TodoError::TooManyItems { .. } | TodoError::NoUserText => None,
        TodoError::BadShape { position }
        | TodoError::NotAString { position, .. }
        | TodoError::EmptyId { position }
        | TodoError::IdTooLong { position, .. }
        | TodoError::DuplicateId { position, .. }
        | TodoError::EmptyContent { position, .. }
        | TodoError::ContentTooLong { position, .. }
        | TodoError::UnknownStatus { position, .. }
        | TodoError::TooManyActive { position, .. } => Some(*position),
    }
}

// ---------------------------------------------------------------------------------------------
// Generators.

/// Characters of one to four bytes: ASCII, accented, CJK, emoji (with a skin tone and a joiner),
/// combining marks, look-alikes of white space that are not White_Space (U+200B, U+FEFF, U+180E,
/// U+2060, U+200D), quotes and markup, and inside a string white
/// space (kept: only the ends are trimmed). One flat pool keeps generation fast.
const TEXT_CHARS: &str = "aZ7-_éß\"\\'<>&aZ7中文字读😀👍🏽\u{10ffff}\u{1f468}中文\u{301}\u{308}\u{20dd}\u{e0100}\u{200b}\u{feff}\u{180e}\u{2060}\u{200d} \u{3000}\t";

fn text_char() -> impl Strategy<Value = char> {
    select(TEXT_CHARS.chars().collect::<Vec<_>>())
}

/// A string of `len` characters, `len` near the edges of `limit` most of the time. A long string
/// repeats a short random run of characters: exact lengths at a fraction of the generating cost.
fn sized(limit: usize) -> impl Strategy<Value = String> {
    let len = prop_oneof![
        Just(0),
        Just(1),
        Just(2),
        Just(limit - 1),
        Just(limit),
        Just(limit + 1),
        0..limit + 8,
    ];
    (vec(text_char(), 1..12), len).prop_map(|(run, n)| run.into_iter().cycle().take(n).collect())
}

/// White space of any kind at both ends.
fn padded(core: impl Strategy<Value = String>) -> impl Strategy<Value = String> {
    let pad = || vec(select(WHITE_SPACE.to_vec()), 0..3);
    (pad(), core, pad()).prop_map(|(before, core, after)| {
        before.into_iter().chain(core.chars()).chain(after).collect()
    })
}

fn id() -> impl Strategy<Value = String> {
    // A small pool makes ids collide often, usually only after trimming.
    let pool = select(vec!["1", "2", "a", "中", "😀", "e\u{301}"]).prop_map(String::from);
    prop_oneof![padded(pool), padded(sized(MAX_ID))]
}

fn status() -> impl Strategy<Value = String> {
    let wrong = select(vec!["done", "Pending", "in progress", "", " pending", "completed\n"]);
    prop_oneof![
        8 => select(STATUSES.to_vec()).prop_map(String::from),
        1 => wrong.prop_map(String::from),
    ]
}

/// Any value but a string, for wrong types.
fn not_a_string() -> impl Strategy<Value = Value> {
    select(vec![json!(1), json!(-2.5), json!(true), json!(null), json!(["1"]), json!({"id": "1"})])
}

/// The three keys with string values, in any order.
fn fields() -> impl Strategy<Value = Map<String, Value>> {
    let order = Just(["id", "content", "status"]).prop_shuffle();
    (id(), padded(sized(MAX_CONTENT)), status(), order).prop_map(|(id, content, status, order)| {
        let mut fields = Map::new();
        for key in order {
            let value = match key {
                "id" => &id,
                "content" => &content,
                _ => &status,
            };
            fields.insert(key.to_string(), json!(value));
        }
        fields
    })
}

/// An item: mostly well formed, sometimes with a wrong type, an extra or missing key, or not an
/// object at all.
fn item() -> impl Strategy<Value = Value> {
    let key = || select(vec!["id", "content", "status"]);
    let extra = || select(vec!["extra", "ID", "Id", "activeForm", "id "]);
    prop_oneof![
        12 => fields().prop_map(Value::Object),
        1 => (fields(), key(), not_a_string()).prop_map(|(mut f, key, wrong)| {
            f.insert(key.to_string(), wrong);
            Value::Object(f)
        }),
        1 => (fields(), extra()).prop_map(|(mut f, extra)| {
            f.insert(extra.to_string(), json!("x"));
            Value::Object(f)
        }),
        1 => (fields(), key()).prop_map(|(mut f, key)| {
            f.shift_remove(key);
            Value::Object(f)
        }),
        // Three keys, but not the right three.
        1 => (fields(), key(), extra()).prop_map(|(mut f, key, extra)| {
            f.shift_remove(key);
            f.insert(extra.to_string(), json!("x"));
            Value::Object(f)
        }),
        1 => not_a_string(),
    ]
}

/// What a model might submit: 0 to 25 items, or now and then not a list.
fn items() -> impl Strategy<Value = Value> {
    prop_oneof![
        20 => vec(item(), 0..=25).prop_map(Value::Array),
        // Short lists of well-formed items pass more often, so accepted lists are common too.
        10 => vec(item(), 0..=4).prop_map(Value::Array),
        1 => select(vec![json!({}), json!("[]"), json!(null), json!(3)]),
    ]
}

fn lang() -> impl Strategy<Value = Lang> {
    select(vec![Lang::Zh, Lang::En])
}

/// A stored plan: not necessarily valid, since write_todos must not care.
fn state() -> impl Strategy<Value = State> {
    let todo =
        (id(), sized(10), status()).prop_map(|(id, content, status)| Todo { id, content, status });
    vec(todo, 0..5).prop_map(|items| State { items })
}

fn message() -> impl Strategy<Value = Message> {
    let role = select(vec![Role::User, Role::Assistant]);
    let block = prop_oneof![
        (sized(4), sized(4), not_a_string()).prop_map(|(id, name, input)| Block::ToolUse {
            id,
            name,
            input
        }),
        (sized(4), sized(6), any::<bool>()).prop_map(|(tool_use_id, content, is_error)| {
            Block::ToolResult { tool_use_id, content, is_error }
        }),
    ];
    let content = prop_oneof![
        sized(20).prop_map(Content::Text),
        vec(block, 0..3).prop_map(|blocks| Content::Blocks(blocks.into())),
    ];
    (role, content).prop_map(|(role, content)| Message { role, content })
}

/// A history that usually, but not always, starts with the user's question.
fn history() -> impl Strategy<Value = Vec<Message>> {
    let question =
        sized(30).prop_map(|text| Message { role: Role::User, content: Content::Text(text) });
    prop_oneof![
        4 => (question, vec(message(), 0..5)).prop_map(|(first, rest)| {
            std::iter::once(first).chain(rest).collect()
        }),
        1 => vec(message(), 0..4),
    ]
}

// ---------------------------------------------------------------------------------------------
// The rules.

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1_000))]

    #[test]
    fn validate_todos_agrees_with_the_model(items in items()) {
        prop_assert_eq!(lesson(&items), model(&items));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn validate_todos_is_trim_on_white_space(text in padded(sized(6))) {
        // The one place the model and Rust could part: which characters count as white space.
        prop_assert_eq!(text.trim(), model_trim(&text));
    }

    #[test]
    fn write_todos_replaces_whole_or_leaves_state_untouched(
        mut state in state(), items in items(), lang in lang()
    ) {
        let before = state.clone();
        match (write_todos(&mut state, &items, lang), model(&items)) {
            (Err(error), Verdict::Reject(code, _)) => {
                prop_assert_eq!(error.code(), code);
                prop_assert_eq!(&state, &before, "a rejected write changed the plan");
            }
            (Ok(rendered), Verdict::Accept(expected)) => {
                let stored: Vec<_> =
                    state.items.iter().map(|t| (t.id.clone(), t.content.clone(), t.status.clone())).collect();
                prop_assert_eq!(stored, expected);
                prop_assert_eq!(rendered, format_todos(&state.items, lang));
            }
            (mine, theirs) => prop_assert!(false, "write_todos gave {:?}, the model {:?}", mine, theirs),
        }
    }

    #[test]
    fn prepare_messages_copies_and_never_accumulates(
        history in history(), state in state(), later in vec(message(), 0..4), lang in lang()
    ) {
        let original = history.clone();
        let first = prepare_messages(&history, &state, lang);
        prop_assert_eq!(&history, &original, "the history changed");
        let question = match history.first() {
            Some(Message { role: Role::User, content: Content::Text(question) }) => question.clone(),
            _ => {
                prop_assert_eq!(first.map_err(|e| e.code()), Err("no_user_text"));
                return Ok(());
            }
        };
        let prepared = first.expect("a user question comes first");
        // Calling it again on the same history gives the same single plan, not two.
        prop_assert_eq!(&prepare_messages(&history, &state, lang).unwrap(), &prepared);
        prop_assert_eq!(prepared.len(), history.len());
        prop_assert_eq!(&prepared[1..], &history[1..], "a later message or a tool id changed");
        prop_assert_eq!(prepared[0].role, Role::User);
        let Content::Text(text) = &prepared[0].content else {
            return Err(TestCaseError::fail("the first message is no longer text"));
        };
        // The copy's text is the question, a blank line, one header line, the rendered plan.
        let rest = text.strip_prefix(question.as_str()).and_then(|r| r.strip_prefix("\n\n"));
        let (header, plan) = rest.and_then(|r| r.split_once('\n')).expect("a header line");
        prop_assert!(!header.is_empty());
        prop_assert_eq!(plan, format_todos(&state.items, lang));

        // Later rounds append to the stored history; each prepared copy still has one plan.
        let mut history = history;
        for message in later {
            history.push(message);
            let again = prepare_messages(&history, &state, lang).unwrap();
            prop_assert_eq!(&again[0], &prepared[0]);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    /// The recorder serializes a binding again only when a statement mentions it; recording every
    /// binding at every step must give the very same trace.
    fn skipping_unmentioned_values_misses_no_change(items in items(), figure in select(vec!["validate", "write", "prepare"]), lang in lang()) {
        let text = serde_json::to_string(&items).unwrap();
        let every = Settings { every_value: true, ..Settings::default() };
        let quick = trace_input(figure, &text, lang).unwrap();
        let slow = trace_input_with(figure, &text, lang, every).unwrap();
        prop_assert_eq!(serde_json::to_string(&quick).unwrap(), serde_json::to_string(&slow).unwrap());
    }
}

/// The generators reach every rule: each code, and acceptance, comes up in a fixed sample.
#[test]
fn the_generators_reach_every_rule() {
    let mut runner = TestRunner::deterministic();
    let strategy = items();
    let mut seen = BTreeSet::new();
    for _ in 0..1_000 {
        let items = strategy.new_tree(&mut runner).unwrap().current();
        seen.insert(match model(&items) {
            Verdict::Accept(list) if list.is_empty() => "accept an empty list",
            Verdict::Accept(_) => "accept",
            Verdict::Reject(code, _) => code,
        });
    }
    let all = [
        "accept",
        "accept an empty list",
        "not_a_list",
        "too_many_items",
        "bad_shape",
        "not_a_string",
        "empty_id",
        "id_too_long",
        "duplicate_id",
        "empty_content",
        "content_too_long",
        "unknown_status",
        "too_many_active",
    ];
    let missing: Vec<_> = all.iter().filter(|code| !seen.contains(*code)).collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
}

// ---------------------------------------------------------------------------------------------
// The input parser.

/// Any JSON value that a trace can carry: integers within ±(2^53 − 1), floats read exactly, and no
/// `__proto__` key (the parser refuses those, on purpose; see src/host/input/mod.rs).
fn json_value() -> impl Strategy<Value = Value> {
    let key = any::<String>().prop_filter("__proto__ is refused", |k| k != "__proto__");
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).prop_map(|n| json!(n)),
        exact_float().prop_filter_map("finite", |x| Number::from_f64(x).map(Value::Number)),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 64, 6, move |inner| {
        prop_oneof![
            vec(inner.clone(), 0..6).prop_map(Value::Array),
            vec((key.clone(), inner), 0..6)
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    })
}

/// A float the parser reads exactly (src/host/input/mod.rs): a significand of at most 2^53 times a power
/// of ten within ±22, correctly rounded by core's parser.
fn exact_float() -> impl Strategy<Value = f64> {
    (0..=(1_u64 << 53), -22_i32..=22, any::<bool>()).prop_map(
        |(significand, exponent, negative)| {
            let sign = if negative { "-" } else { "" };
            format!("{sign}{significand}e{exponent}").parse().unwrap()
        },
    )
}

/// The value written as a Python literal: single-quoted strings with Python escapes,
/// True/False/None, and a trailing comma in every non-empty list and object.
fn python(value: &Value) -> String {
    match value {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => python_string(s),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(|v| python(v) + ",").collect();
            format!("[{}]", parts.join(" "))
        }
        Value::Object(fields) => {
            let parts: Vec<String> = fields
                .iter()
                .map(|(k, v)| format!("{}: {},", python_string(k), python(v)))
                .collect();
            format!("{{{}}}", parts.join("\n "))
        }
    }
}

/// Escapes vary with the character, so every escape form is used: `\xHH`, `\uHHHH`,
/// `\UHHHHHHHH`, octal, and the named ones.
fn python_string(text: &str) -> String {
    let mut out = String::from("'");
    for c in text.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{7}' => out.push_str("\\a"),
            '\0' => out.push_str("\\0"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c if (c as u32) < 0x80 => out.push(c),
            c if (c as u32) > 0xffff => out.push_str(&format!("\\U{:08X}", c as u32)),
            c if (c as u32).is_multiple_of(2) => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if (c as u32) < 0x200 => out.push_str(&format!("\\{:o}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// Text made of the parser's tokens and near-misses, so that random text goes deep into it.
fn jsonish() -> impl Strategy<Value = String> {
    let token = select(vec![
        "[",
        "]",
        "{",
        "}",
        ",",
        ":",
        " ",
        "\n",
        "\"a\"",
        "'b'",
        "\"\"",
        "1",
        "-0",
        "2.5e3",
        "1e999",
        "99999999999999999999",
        "9007199254740992",
        "true",
        "True",
        "None",
        "null",
        "x",
        "中",
        "\"\\u00e9\"",
        "\"\\ud800\"",
        "\"\\ud83d\\ude00\"",
        "'\\x4",
        "\\",
        "\"",
        "'",
        "#",
        "\"__proto__\"",
        "\"id\"",
        "\"content\"",
        "\"status\"",
        "\"pending\"",
        "'\\U0001F600'",
        "\r\n",
        "\t",
    ]);
    vec(token, 0..40).prop_map(|tokens| tokens.concat())
}

/// An error's line and column fall inside the text (the column may be just past a line's end).
fn assert_inside(text: &str, error: &InputError) -> Result<(), TestCaseError> {
    let at = match error {
        InputError::TooLarge { .. } => return Ok(()),
        InputError::TooDeep { at } | InputError::Parse { at, .. } => at,
    };
    let lines: Vec<&str> = text.split('\n').collect();
    prop_assert!(at.line >= 1 && at.column >= 1);
    let line = lines.get(at.line as usize - 1).expect("the line exists");
    prop_assert!(at.column as usize <= line.chars().count() + 1, "{:?} in {:?}", at, text);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn parser_reads_back_what_serde_json_writes(value in json_value()) {
        prop_assert_eq!(&parse(&serde_json::to_string(&value).unwrap()).unwrap(), &value);
        prop_assert_eq!(&parse(&serde_json::to_string_pretty(&value).unwrap()).unwrap(), &value);
    }

    #[test]
    fn parser_reads_python_literals(value in json_value()) {
        let text = python(&value);
        prop_assert_eq!(&parse(&text).unwrap(), &value, "{}", text);
    }

    #[test]
    fn parser_never_panics_on_any_string(text in any::<String>()) {
        if let Err(error) = parse(&text) {
            assert_inside(&text, &error)?;
        }
    }

    #[test]
    fn parser_agrees_with_serde_json_where_both_read(text in jsonish()) {
        match (parse(&text), serde_json::from_str::<Value>(&text)) {
            (Ok(mine), Ok(theirs)) => prop_assert_eq!(mine, theirs),
            (Ok(mine), Err(_)) => {
                // Our own output always reads back the same.
                let again = parse(&serde_json::to_string(&mine).unwrap());
                prop_assert_eq!(again.as_ref(), Ok(&mine));
            }
            (Err(error), Ok(theirs)) => {
                // Only a documented refusal may separate us from serde_json on JSON text.
                assert_inside(&text, &error)?;
                let refused = matches!(error, InputError::TooDeep { .. })
                    || matches!(&error, InputError::Parse { problem, .. } if matches!(problem,
                        todo_trace::host::input::Problem::Number { .. }
                        | todo_trace::host::input::Problem::DuplicateKey { .. }
                        | todo_trace::host::input::Problem::ProtoKey));
                prop_assert!(refused, "refused {:?} ({:?}) that serde_json reads as {:?}", text, error, theirs);
            }
            (Err(error), Err(_)) => assert_inside(&text, &error)?,
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn trace_input_gives_a_coded_result_for_any_text(text in prop_oneof![jsonish(), any::<String>()], lang in lang()) {
        for figure in ["validate", "write", "prepare"] {
            let trace = trace_input(figure, &text, lang).unwrap();
            prop_assert_eq!(trace.scenario.as_str(), "input");
            match (&trace.result.error, parse(&text)) {
                (Some(error), Err(parse_error)) => {
                    prop_assert_eq!(error.code, parse_error.code());
                    prop_assert!(trace.recording.steps.is_empty());
                }
                (Some(error), Ok(_)) => prop_assert!(!error.code.is_empty() && !error.message.is_empty()),
                (None, parse_result) => {
                    prop_assert!(trace.result.ok && parse_result.is_ok() && !trace.recording.steps.is_empty());
                }
            }
        }
    }
}
