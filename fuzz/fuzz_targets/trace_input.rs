//! Fuzz target: any bytes, read as UTF-8 text, through the input parser and every figure.
//!
//! Whatever the text, nothing may panic, and each trace must be what the API promises: a coded
//! input error with no steps, or a run that fails or succeeds as `validate_todos` judges the text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use todo_trace::host::run::trace_input;
use todo_trace::host::input::parse;
use todo_trace::lesson::{validate_todos, Lang};
use todo_trace::recorder::{Event, MAX_STEPS};

fuzz_target!(|data: &[u8]| {
    // Invalid UTF-8 becomes U+FFFD, so every input is text the parser sees.
    let text = String::from_utf8_lossy(data);
    let parsed = parse(&text);
    if let Ok(value) = &parsed {
        // What the parser read, written back as JSON, reads the same.
        let json = serde_json::to_string(value).expect("a parsed value serializes");
        assert_eq!(parse(&json).as_ref(), Ok(value), "round trip of {json}");
    }
    let lang = if data.len().is_multiple_of(2) { Lang::Zh } else { Lang::En };
    for figure in ["validate", "write", "prepare"] {
        let trace = trace_input(figure, &text, lang).expect("a known figure");
        assert_eq!(trace.scenario, "input");
        let steps = &trace.recording.steps;
        assert!(steps.len() <= MAX_STEPS);
        match &parsed {
            Err(input_error) => {
                let error = trace.result.error.as_ref().expect("refused text gives an error");
                assert_eq!(error.code, input_error.code());
                assert!(steps.is_empty() && trace.recording.output.is_empty());
            }
            Ok(value) => {
                // Text that parses succeeds or fails exactly as validate_todos says about it.
                let verdict = validate_todos(value).err().map(|e| e.code());
                assert_eq!(trace.result.error.as_ref().map(|e| e.code), verdict);
                assert_eq!(trace.result.ok, verdict.is_none());
                match (verdict, figure) {
                    // prepare refuses an invalid host plan before anything runs.
                    (Some(_), "prepare") => assert!(steps.is_empty()),
                    (Some(code), _) => {
                        let last = steps.last().expect("steps up to the error");
                        assert_eq!(last.event, Event::Error);
                        assert_eq!(last.error.as_ref().map(|e| e.code), Some(code));
                    }
                    (None, _) => assert!(!steps.is_empty()),
                }
            }
        }
        assert!(trace.result.error.as_ref().is_none_or(|e| !e.message.is_empty()));
        serde_json::to_string(&trace).expect("every trace serializes");
    }
});
