//! Fuzz target: any bytes, read as UTF-8 text, through the input parser and every figure.
//!
//! Whatever the text, nothing may panic, and each trace must be what the API promises: a coded
//! input error with no steps, a lesson error from the lesson functions, or a successful run.
#![no_main]

use libfuzzer_sys::fuzz_target;
use todo_trace::figures::trace_input;
use todo_trace::input::parse;
use todo_trace::lesson::Lang;
use todo_trace::trace::{Event, MAX_STEPS};

/// The codes validate_todos can give (LESSON.md's table).
const LESSON_CODES: [&str; 11] = [
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

fuzz_target!(|data: &[u8]| {
    // Invalid UTF-8 becomes U+FFFD, so every input is text the parser sees.
    let text = String::from_utf8_lossy(data);
    let parsed = parse(&text);
    if let Ok(value) = &parsed {
        // What the parser read, written back as JSON, reads the same.
        let json = serde_json::to_string(value).expect("a parsed value serializes");
        assert_eq!(parse(&json).as_ref(), Ok(value), "round trip of {json}");
    }
    let lang = if data.len() % 2 == 0 { Lang::Zh } else { Lang::En };
    for figure in ["validate", "write", "prepare"] {
        let trace = trace_input(figure, &text, lang).expect("a known figure");
        assert_eq!(trace.scenario, "input");
        assert!(trace.steps.len() <= MAX_STEPS);
        match (&trace.result.error, &parsed) {
            (Some(error), Err(input_error)) => {
                assert_eq!(error.code, input_error.code());
                assert!(trace.steps.is_empty() && trace.output.is_empty());
            }
            (Some(error), Ok(_)) => {
                assert!(LESSON_CODES.contains(&error.code), "unexpected code {}", error.code);
                // validate and write ran and ended in that error; prepare refused the plan first.
                if figure == "prepare" {
                    assert!(trace.steps.is_empty());
                } else {
                    let last = trace.steps.last().expect("steps up to the error");
                    assert!(matches!(&last.event, Event::Error { error: e } if e.code == error.code));
                }
            }
            (None, Ok(_)) => assert!(trace.result.ok && !trace.steps.is_empty()),
            (None, Err(error)) => panic!("{error:?} gave a trace without an error"),
        }
        assert!(trace.result.error.as_ref().is_none_or(|e| !e.message.is_empty()));
        serde_json::to_string(&trace).expect("every trace serializes");
    }
});
