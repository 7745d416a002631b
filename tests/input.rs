//! The reader-input parser and `trace_input`: grammar, limits, error codes and positions.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::json;
use serde_json::Value;
use todo_trace::host::figures::ApiError;
use todo_trace::host::run::{self, trace_input, Trace};

mod support;
use todo_trace::host::input::{
    parse, Expected, InputError, Position, Problem, MAX_DEPTH, MAX_INPUT_BYTES,
};
use todo_trace::lesson::Lang;

fn parse_error(text: &str) -> (Position, Problem) {
    match parse(text) {
        Err(InputError::Parse { at, problem }) => (at, problem),
        other => panic!("expected a parse error for {text:?}, got {other:?}"),
    }
}

fn at(line: u32, column: u32) -> Position {
    Position { line, column }
}

#[test]
fn json_and_python_literals_give_the_same_value() {
    let json = r#"[{"id": "1", "content": "读取源码", "status": "completed"}, {"id": "2", "done": true, "n": null}]"#;
    let python = "[{'id': '1', 'content': '读取源码', 'status': 'completed',},\n {'id': \"2\", 'done': True, 'n': None},]";
    let expected = json!([
        {"id": "1", "content": "读取源码", "status": "completed"},
        {"id": "2", "done": true, "n": null}
    ]);
    assert_eq!(parse(json).unwrap(), expected);
    assert_eq!(parse(python).unwrap(), expected);
}

#[test]
fn objects_keep_their_key_order() {
    let value = parse(r#"{"status": "x", "id": "y", "content": "z"}"#).unwrap();
    let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["status", "id", "content"]);
}

#[test]
fn scalars_white_space_and_comments() {
    assert_eq!(parse(" \t\r\n\u{c}0 ").unwrap(), json!(0));
    assert_eq!(parse("-12").unwrap(), json!(-12));
    assert_eq!(parse("0.5e-1").unwrap(), json!(0.05));
    assert_eq!(parse("1E2").unwrap(), json!(100.0));
    assert_eq!(
        parse("[False, false, True, None, null]").unwrap(),
        json!([false, false, true, null, null])
    );
    assert_eq!(parse("# a plan\n[1, # one\n 2]  # done").unwrap(), json!([1, 2]));
    assert_eq!(parse("[]").unwrap(), json!([]));
    assert_eq!(parse("{ }").unwrap(), json!({}));
}

#[test]
fn escapes_of_json_and_python() {
    let cases = [
        (r#""a\"b\\c\/d""#, "a\"b\\c/d"),
        (r"'it\'s'", "it's"),
        (r#""\n\t\r\b\f""#, "\n\t\r\u{8}\u{c}"),
        (r"'\a\v'", "\u{7}\u{b}"),
        (r"'\x41\u4e2d\U0001F600'", "A中😀"),
        (r"'\0\101\7777'", "\0A\u{1ff}7"),
        (r#""\ud83d\ude00""#, "😀"),
        ("'one \\\ntwo'", "one two"),
        ("'tab\tinside'", "tab\tinside"),
        (r#""'""#, "'"),
        (r#"'"'"#, "\""),
    ];
    for (text, expected) in cases {
        assert_eq!(parse(text).unwrap(), json!(expected), "{text}");
    }
}

#[test]
fn code_is_never_run_names_are_errors() {
    let (position, problem) = parse_error("__import__('os').system('rm -rf /')");
    assert_eq!(position, at(1, 1));
    assert_eq!(problem, Problem::Name { name: "__import__".into() });
    for text in ["[open('x')]", "eval", "NaN", "Infinity", "[1, os]", "TRUE", "nil"] {
        assert!(matches!(parse_error(text).1, Problem::Name { .. }), "{text}");
    }
}

#[test]
fn a_name_is_named_whole_in_any_script() {
    let cases = [
        ("[é]", "é"),
        ("[中]", "中"),
        ("[中文 x]", "中文"),
        ("[e\u{301}t\u{e9}]", "e\u{301}t\u{e9}"),
        ("[os.system]", "os.system"),
        ("[_x1, 2]", "_x1"),
        ("{'a': naïve}", "naïve"),
        ("[abc\u{202e}def]", "abc\u{202e}def"),
        ("[名\u{3000}x]", "名"),
    ];
    for (text, name) in cases {
        assert_eq!(parse_error(text).1, Problem::Name { name: name.into() }, "{text}");
    }
    let message = parse("[é]").unwrap_err().message(Lang::En);
    assert!(message.starts_with("Line 1, column 2: \"é\" is a name, not data"), "{message}");
    assert!(parse("[中]").unwrap_err().message(Lang::Zh).contains("\"中\" 是一个名字"));
}

#[test]
fn invisible_and_direction_characters_are_shown_by_their_code() {
    // Found where a value should come: shown as U+XXXX, as U+3000 always was.
    for (before, c) in [
        ("", '\u{200b}'),
        ("", '\u{feff}'),
        ("", '\u{202e}'),
        ("", '\u{3000}'),
        ("", '\u{85}'),
        ("1", '\u{2066}'),
        ("1", '\u{ad}'),
        ("", '\u{e0041}'),
    ] {
        let text = format!("[{before}{c}]");
        for lang in [Lang::En, Lang::Zh] {
            let message = parse(&text).unwrap_err().message(lang);
            assert!(message.contains(&format!("U+{:04X}", c as u32)), "{text:?}: {message}");
            assert!(!message.contains(c), "{text:?}: {message:?}");
        }
    }
    // Inside a quoted name or key: written as <U+XXXX>, so the sentence around it reads as written.
    let message = parse("[abc\u{202e}def]").unwrap_err().message(Lang::En);
    assert!(message.starts_with("Line 1, column 2: \"abc<U+202E>def\" is a name"), "{message}");
    let message = parse("{'\u{200b}k': 1, '\u{200b}k': 2}").unwrap_err().message(Lang::En);
    assert!(message.contains("the key \"<U+200B>k\" appears twice"), "{message}");
    // A plain space inside a quoted value stays a space; other white space does not.
    let message = parse("{'a b\u{a0}': 1, 'a b\u{a0}': 2}").unwrap_err().message(Lang::Zh);
    assert!(message.contains("\"a b<U+00A0>\""), "{message}");
    // Visible characters, Chinese and emoji, are quoted as they are.
    assert!(parse("[😀]").unwrap_err().message(Lang::En).contains("found \"😀\""));
}

#[test]
fn grammar_errors_say_what_was_expected_and_where() {
    let cases = [
        ("", at(1, 1), Problem::End { expected: Expected::Value }),
        ("   ", at(1, 4), Problem::End { expected: Expected::Value }),
        ("[1, 2", at(1, 6), Problem::End { expected: Expected::ListNext }),
        ("[,]", at(1, 2), Problem::Unexpected { found: ',', expected: Expected::Value }),
        ("[1,,]", at(1, 4), Problem::Unexpected { found: ',', expected: Expected::Value }),
        ("[1 2]", at(1, 4), Problem::Unexpected { found: '2', expected: Expected::ListNext }),
        ("{,}", at(1, 2), Problem::Unexpected { found: ',', expected: Expected::Key }),
        ("{1: 2}", at(1, 2), Problem::Unexpected { found: '1', expected: Expected::Key }),
        ("{'a' 1}", at(1, 6), Problem::Unexpected { found: '1', expected: Expected::Colon }),
        (
            "{'a': 1 'b'}",
            at(1, 9),
            Problem::Unexpected { found: '\'', expected: Expected::ObjectNext },
        ),
        ("[] []", at(1, 4), Problem::Unexpected { found: '[', expected: Expected::End }),
        ("01", at(1, 2), Problem::Unexpected { found: '1', expected: Expected::End }),
        ("-", at(1, 2), Problem::End { expected: Expected::Digit }),
        ("1.", at(1, 3), Problem::End { expected: Expected::Digit }),
        ("1e+x", at(1, 4), Problem::Unexpected { found: 'x', expected: Expected::Digit }),
        ("(1, 2)", at(1, 1), Problem::Unexpected { found: '(', expected: Expected::Value }),
        ("'abc", at(1, 1), Problem::Unclosed),
        ("\"abc\\", at(1, 1), Problem::Unclosed),
        ("'a\nb'", at(1, 3), Problem::LineBreak),
        (r"'\d'", at(1, 2), Problem::Escape { escape: r"\d".into() }),
        (r"'\N{DIGIT ONE}'", at(1, 2), Problem::Escape { escape: r"\N".into() }),
        (r"'\u12'", at(1, 2), Problem::Escape { escape: r"\u12".into() }),
        (r"'\x4'", at(1, 2), Problem::Escape { escape: r"\x4".into() }),
        (r"'\U00110000'", at(1, 2), Problem::Escape { escape: r"\U00110000".into() }),
    ];
    for (text, position, problem) in cases {
        assert_eq!(parse_error(text), (position, problem), "{text:?}");
    }
}

#[test]
fn columns_count_characters_and_only_line_feeds_end_lines() {
    // Seven characters (13 bytes) before the error: column 8, not 14.
    assert_eq!(parse_error("['中文字' x]").0, at(1, 8));
    assert_eq!(parse_error("[\n  '😀',\n  oops\n]").0, at(3, 3));
    assert_eq!(parse_error("[\r\n  bad]").0, at(2, 3));
}

#[test]
fn lone_surrogates_are_errors_pairs_are_characters() {
    for (text, escape) in [
        (r#""\ud800""#, r"\ud800"),
        (r#""\udc00""#, r"\udc00"),
        (r#""\ud800x""#, r"\ud800"),
        (r#""\ud800\ud800""#, r"\ud800"),
        (r#""\ud800\u0041""#, r"\ud800"),
        (r"'\U0000D800'", r"\U0000D800"),
    ] {
        assert_eq!(
            parse_error(text),
            (at(1, 2), Problem::LoneSurrogate { escape: escape.into() }),
            "{text}"
        );
    }
    assert_eq!(parse(r#""\uD83D\uDE00!""#).unwrap(), json!("😀!"));
}

#[test]
fn numbers_that_cannot_be_read_exactly_are_errors_not_rounded() {
    for text in [
        "99999999999999999999999",
        "9007199254740992",
        "-9007199254740992",
        "1e999",
        "-1e400",
        "1e308",
        "1e-30",
        "0.30000000000000004",
        "99999999999999999999999.0",
    ] {
        assert_eq!(
            parse_error(text),
            (at(1, 1), Problem::Number { number: text.into() }),
            "{text}"
        );
    }
    assert_eq!(parse("9007199254740991").unwrap(), json!(9_007_199_254_740_991_i64));
    assert_eq!(parse("-9007199254740991").unwrap(), json!(-9_007_199_254_740_991_i64));
    // `-0` reads as serde_json reads it: the float -0.0.
    assert_eq!(parse("-0").unwrap(), serde_json::from_str::<Value>("-0").unwrap());
    assert_eq!(parse("-0.0e5").unwrap(), json!(-0.0));
}

#[test]
fn floats_within_the_exact_range_are_correctly_rounded() {
    // Core's general parser (correctly rounded) is the reference, natively.
    for text in [
        "0.1",
        "2.5e3",
        "1e37",
        "-1.25e-7",
        "123.456e-10",
        "9007199254740992e-22",
        "1E22",
        "0.000001",
        "10.0e1",
        "0e999",
        "1.797693134862315e5",
        "3.14159",
    ] {
        let expected: f64 = text.parse().unwrap();
        assert_eq!(parse(text).unwrap(), json!(expected), "{text}");
    }
}

#[test]
fn duplicate_keys_and_proto_are_errors() {
    assert_eq!(
        parse_error("{'id': '1', 'content': 'a', 'id': '2'}"),
        (at(1, 29), Problem::DuplicateKey { key: "id".into() })
    );
    // Single and double quotes spell the same key.
    assert!(matches!(parse_error(r#"{"a": 1, 'a': 2}"#).1, Problem::DuplicateKey { .. }));
    assert_eq!(parse_error(r#"[{"__proto__": {}}]"#), (at(1, 3), Problem::ProtoKey));
    // Nested objects have their own keys.
    assert!(parse(r#"{"a": {"a": 1}}"#).is_ok());
}

#[test]
fn size_limit_is_checked_before_parsing() {
    let at_limit = format!("[\"{}\"]", "a".repeat(MAX_INPUT_BYTES - 4));
    assert_eq!(at_limit.len(), MAX_INPUT_BYTES);
    assert!(parse(&at_limit).is_ok());
    let over = format!("[\"{}\"]", "a".repeat(MAX_INPUT_BYTES - 3));
    assert_eq!(parse(&over), Err(InputError::TooLarge { bytes: MAX_INPUT_BYTES + 1 }));
    // Bytes, not characters: 21,846 three-byte characters are over 64 KiB.
    let wide = "中".repeat(MAX_INPUT_BYTES / 3 + 1);
    assert!(matches!(parse(&wide), Err(InputError::TooLarge { .. })));
    // Even text that would not parse is refused for its size first.
    assert!(matches!(parse(&"(".repeat(5 << 20)), Err(InputError::TooLarge { .. })));
}

#[test]
fn depth_limit_is_checked_before_descending() {
    let nest = |depth: usize, open: &str, close: &str| open.repeat(depth) + &close.repeat(depth);
    assert!(parse(&nest(MAX_DEPTH, "[", "]")).is_ok());
    assert!(parse(&("{'a':".repeat(MAX_DEPTH) + "0" + &"}".repeat(MAX_DEPTH))).is_ok());
    assert!(matches!(
        parse(&("{'a':".repeat(MAX_DEPTH + 1) + "0" + &"}".repeat(MAX_DEPTH + 1))),
        Err(InputError::TooDeep { .. })
    ));
    assert_eq!(
        parse(&nest(MAX_DEPTH + 1, "[", "]")),
        Err(InputError::TooDeep { at: at(1, MAX_DEPTH as u32 + 1) })
    );
    // Far past the limit, and within the size limit: no stack overflow, the same error.
    let deep = "[".repeat(60_000);
    assert_eq!(parse(&deep), Err(InputError::TooDeep { at: at(1, MAX_DEPTH as u32 + 1) }));
    let deep_objects = "{'a':".repeat(10_000);
    assert!(matches!(parse(&deep_objects), Err(InputError::TooDeep { .. })));
}

#[test]
fn error_codes_and_messages_name_the_limit() {
    let too_large = parse(&" ".repeat(MAX_INPUT_BYTES + 1)).unwrap_err();
    let too_deep = parse(&"[".repeat(100)).unwrap_err();
    let broken = parse("[1,,]").unwrap_err();
    assert_eq!(too_large.code(), "input_too_large");
    assert_eq!(too_deep.code(), "too_deep");
    assert_eq!(broken.code(), "parse_error");
    assert!(too_large.message(Lang::En).contains("65536"));
    assert!(too_large.message(Lang::En).contains("size limit"));
    assert!(too_large.message(Lang::Zh).contains("上限"));
    assert!(too_deep.message(Lang::En).contains("nesting limit of 32"));
    assert!(too_deep.message(Lang::Zh).contains("32"));
    assert!(broken.message(Lang::En).starts_with("Line 1, column 4:"));
    assert!(broken.message(Lang::Zh).starts_with("第 1 行第 4 列："));
    let info = broken.info(Lang::En);
    assert_eq!((info.code, info.line, info.column), ("parse_error", Some(1), Some(4)));
    let info = too_large.info(Lang::Zh);
    assert_eq!((info.line, info.column), (None, None));
}

#[test]
fn long_names_are_cut_in_messages() {
    let name = "x".repeat(50_000);
    let message = parse(&name).unwrap_err().message(Lang::En);
    assert!(message.len() < 400, "{}", message.len());
    assert!(message.contains(&format!("\"{}…\" is a name", "x".repeat(40))), "{message}");
    let key = "中".repeat(10_000);
    let message = parse(&format!("{{'{key}': 1, '{key}': 2}}")).unwrap_err().message(Lang::Zh);
    assert!(message.contains(&format!("\"{}…\"", "中".repeat(40))), "{message}");
    assert!(message.chars().count() < 100, "{message}");
}

#[test]
fn text_refused_unread_gives_the_same_trace_as_text_refused_by_parse() {
    let over = " ".repeat(MAX_INPUT_BYTES + 1);
    for figure in ["validate", "write", "prepare"] {
        for lang in [Lang::Zh, Lang::En] {
            let read = trace_input(figure, &over, lang).unwrap();
            // As www/api.js refuses it, by its length in UTF-16 units, before copying it into wasm.
            let refusal = format!(r#"{{"kind":"textTooLarge","units":{}}}"#, MAX_INPUT_BYTES + 1);
            let unread = todo_trace::api::js_value::refused(figure, &refusal, lang).unwrap();
            assert_eq!(error_of(&unread), ("input_too_large", None, None));
            let json = |trace: &Trace| serde_json::to_string(trace).unwrap();
            assert_eq!(json(&unread), json(&read), "{figure}");
        }
    }
}

fn error_of(trace: &Trace) -> (&'static str, Option<u32>, Option<u32>) {
    let error = trace.result.error.as_ref().expect("an error result");
    assert!(!trace.result.ok);
    (error.code, error.line, error.column)
}

#[test]
fn trace_input_runs_validate_and_write_on_the_submitted_items() {
    let text = "[{'id': ' a ', 'content': '写代码', 'status': 'in_progress'}]";
    let trace = trace_input("validate", text, Lang::Zh).unwrap();
    assert_eq!((trace.figure.name(), trace.scenario.as_str()), ("validate", "input"));
    assert!(trace.result.ok);
    assert_eq!(
        trace.result.value.as_ref().map(|v| v.get()),
        Some(r#"[{"id":"a","content":"写代码","status":"in_progress"}]"#)
    );
    assert_eq!(trace.data.items, Some(parse(text).unwrap()));
    assert!(!trace.recording.steps.is_empty());

    let trace = trace_input("write", text, Lang::En).unwrap();
    assert!(trace.result.ok);
    let last = trace.recording.steps.last().unwrap();
    assert_eq!(
        support::host(&trace, last)["items"],
        serde_json::json!([{"id": "a", "content": "写代码", "status": "in_progress"}])
    );
    // The host plan it replaced is the default scenario's.
    assert_eq!(trace.data.state, Some(support::data("write", "replace", Lang::En).state));
}

#[test]
fn trace_input_reports_lesson_errors_from_the_lesson_functions() {
    let trace =
        trace_input("write", r#"[{"id": "1", "content": "x", "status": "done"}]"#, Lang::En)
            .unwrap();
    assert_eq!(error_of(&trace), ("unknown_status", None, None));
    assert!(!trace.recording.steps.is_empty());
    let last = trace.recording.steps.last().unwrap();
    assert_eq!(
        support::host(&trace, last)["items"],
        serde_json::json!(support::data("write", "replace", Lang::En).state.items)
    );
    let trace = trace_input("validate", "{}", Lang::En).unwrap();
    assert_eq!(error_of(&trace).0, "not_a_list");
}

#[test]
fn bad_text_gives_a_coded_error_and_no_steps() {
    for figure in ["validate", "write", "prepare"] {
        for (text, code, line) in [
            ("[1, 2", "parse_error", Some(1)),
            ("__import__('os')", "parse_error", Some(1)),
            (&"[".repeat(40) as &str, "too_deep", Some(1)),
            (&" ".repeat(MAX_INPUT_BYTES + 1), "input_too_large", None),
        ] {
            let trace = trace_input(figure, text, Lang::Zh).unwrap();
            assert_eq!(trace.scenario, "input");
            let (found, found_line, _) = error_of(&trace);
            assert_eq!((found, found_line), (code, line), "{figure} {text:.20}");
            assert!(trace.recording.steps.is_empty() && trace.recording.output.is_empty());
            let message = &trace.result.error.as_ref().unwrap().message;
            assert!(!message.is_empty());
        }
    }
}

#[test]
fn prepare_takes_the_text_as_the_host_plan_validated_first() {
    let trace = trace_input(
        "prepare",
        "[{'id': '1 ', 'content': ' Ship it', 'status': 'completed'}]",
        Lang::En,
    )
    .unwrap();
    assert!(trace.result.ok);
    // The host stores the normalized plan, and the prepared message carries it.
    let plan = &trace.data.state.as_ref().unwrap().items;
    assert_eq!((plan[0].id.as_str(), plan[0].content.as_str()), ("1", "Ship it"));
    assert!(trace.recording.output.iter().any(|line| line == "1 [completed] Ship it"));

    let invalid = r#"[{"id": "1", "content": "a", "status": "in_progress"},
                      {"id": "2", "content": "b", "status": "in_progress"}]"#;
    let trace = trace_input("prepare", invalid, Lang::En).unwrap();
    assert_eq!(error_of(&trace).0, "too_many_active");
    assert!(trace.recording.steps.is_empty());
    assert!(trace.data.state.unwrap().items.is_empty());
    let trace = trace_input("prepare", "[1]", Lang::En).unwrap();
    assert_eq!(error_of(&trace).0, "bad_shape");
    let trace = trace_input("prepare", "[]", Lang::Zh).unwrap();
    assert!(trace.result.ok);
    assert!(trace.recording.output.iter().any(|line| line == "（清单为空）"));
}

#[test]
fn unknown_figures_are_api_errors() {
    let error: ApiError = trace_input("nope", "[]", Lang::En).unwrap_err();
    assert!(error.0.contains("validate"), "{error}");
}

#[test]
fn a_trace_of_the_default_data_matches_its_scenario() {
    // Typing the default scenario's items back in gives the default scenario's steps.
    let json = |t: &Trace| serde_json::to_string(&t.recording).unwrap();
    for (figure, scenario) in [("validate", "valid"), ("write", "replace")] {
        let setup = support::data(figure, scenario, Lang::Zh);
        let text = serde_json::to_string(&setup.items).unwrap();
        let mine = trace_input(figure, &text, Lang::Zh).unwrap();
        let theirs = run::trace(figure, scenario, Lang::Zh).unwrap();
        assert_eq!(json(&mine), json(&theirs));
        assert_eq!(mine.recording.output, theirs.recording.output);
        let result = |t: &Trace| serde_json::to_string(&t.result).unwrap();
        assert_eq!(result(&mine), result(&theirs));
    }
    let setup = support::data("prepare", "pending", Lang::En);
    let text = serde_json::to_string(&setup.state.items).unwrap();
    let mine = trace_input("prepare", &text, Lang::En).unwrap();
    assert_eq!(json(&mine), json(&run::trace("prepare", "pending", Lang::En).unwrap()));
}

#[test]
fn twenty_thousand_items_are_refused_by_a_limit() {
    // Small items fit in 64 KiB and are refused by the item limit; full items by the size limit.
    let small = format!("[{}]", vec!["0"; 20_000].join(","));
    let trace = trace_input("validate", &small, Lang::En).unwrap();
    assert_eq!(error_of(&trace).0, "too_many_items");
    let item = r#"{"id": "1", "content": "x", "status": "pending"}"#;
    let full = format!("[{}]", vec![item; 20_000].join(","));
    let trace = trace_input("write", &full, Lang::En).unwrap();
    assert_eq!(error_of(&trace).0, "input_too_large");
}

#[test]
fn value_only_input_serializes() {
    // Every parsed value reaches the page: the trace turns into JSON without error.
    let trace = trace_input("validate", "[1.5, -3, 'x', None, {'k': [True]}]", Lang::En).unwrap();
    let json: serde_json::Value = serde_json::to_value(&trace).unwrap();
    assert_eq!(json["data"]["items"], serde_json::json!([1.5, -3, "x", null, {"k": [true]}]));
}
