//! The wasm exports from a real browser: every trace's JSON text is byte-identical to its golden
//! file, and a bad id comes out as a JS `Error` with a clear message.
//!
//! Only what needs the real module in a browser is here: the exports take `&str` and return JSON
//! text, so a Rust test calls them as the glue does. What JS callers see (the values made whole,
//! arguments that are not strings, text refused before it is copied, an author's JS value read once)
//! is tested against www/api.js with the same module in tests/e2e/api.test.mjs and value.test.mjs.
#![cfg(target_arch = "wasm32")]

use todo_trace::api;
use wasm_bindgen::{JsCast, JsError, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

macro_rules! goldens {
    ($($figure:literal $scenario:literal $lang:literal),* $(,)?) => {
        [$(($figure, $scenario, $lang,
            include_str!(concat!("golden/", $figure, "-", $scenario, "-", $lang, ".json")))),*]
    };
}

/// The same golden files the native tests check, built into this test module.
const GOLDEN: [(&str, &str, &str, &str); 46] = goldens![
    "validate" "valid" "zh", "validate" "valid" "en",
    "validate" "duplicate" "zh", "validate" "duplicate" "en",
    "validate" "active" "zh", "validate" "active" "en",
    "validate" "unknown" "zh", "validate" "unknown" "en",
    "validate" "clear" "zh", "validate" "clear" "en",
    "write" "replace" "zh", "write" "replace" "en",
    "write" "duplicate" "zh", "write" "duplicate" "en",
    "write" "active" "zh", "write" "active" "en",
    "write" "unknown" "zh", "write" "unknown" "en",
    "write" "clear" "zh", "write" "clear" "en",
    "write" "claim" "zh", "write" "claim" "en",
    "write" "omit" "zh", "write" "omit" "en",
    "prepare" "pending" "zh", "prepare" "pending" "en",
    "prepare" "updated" "zh", "prepare" "updated" "en",
    "prepare" "empty" "zh", "prepare" "empty" "en",
    "loop" "allow" "zh", "loop" "allow" "en",
    "loop" "deny" "zh", "loop" "deny" "en",
    "loop" "maintenance" "zh", "loop" "maintenance" "en",
    "loop" "budget" "zh", "loop" "budget" "en",
    "loop" "skip" "zh", "loop" "skip" "en",
    "loop" "claim" "zh", "loop" "claim" "en",
    "loop" "rejected" "zh", "loop" "rejected" "en",
    "loop" "nag" "zh", "loop" "nag" "en",
];

#[wasm_bindgen_test]
fn every_trace_crosses_as_json_text_byte_identical_to_the_native_golden_file() {
    for (figure, scenario, lang, golden) in GOLDEN {
        let json = api::trace_json(figure, scenario, lang).unwrap_or_else(|error| {
            panic!("{figure}/{scenario}/{lang}: {}", message(error));
        });
        // The golden file is the same compact JSON with a line break before each step.
        assert_eq!(json, golden.replace('\n', ""), "{figure}/{scenario}/{lang}");
    }
}

/// The message of the JS `Error` an export returned.
fn message(error: JsError) -> String {
    let error = JsValue::from(error);
    assert!(error.is_instance_of::<js_sys::Error>(), "not a JS Error: {error:?}");
    error.unchecked_into::<js_sys::Error>().message().into()
}

fn error_of(result: Result<String, JsError>) -> String {
    message(result.expect_err("expected a JS Error"))
}

#[wasm_bindgen_test]
fn unknown_ids_are_js_errors_with_clear_messages() {
    assert!(error_of(api::trace_json("nope", "valid", "en")).contains("unknown figure \"nope\""));
    assert!(
        error_of(api::trace_json("write", "valid", "en")).contains("unknown scenario \"valid\"")
    );
    assert!(error_of(api::trace_json("write", "replace", "fr")).contains("unknown language"));
    assert!(error_of(api::scenarios_json("", "zh")).contains("unknown figure"));
    assert!(error_of(api::source_json("eval")).contains("unknown symbol"));
    assert!(error_of(api::trace_input_json("nope", "[]", "en")).contains("unknown figure"));
    assert!(error_of(api::trace_input_json("validate", "[]", "fr")).contains("unknown language"));
    // The loop runs only its own scenarios: it takes no reader text.
    assert!(error_of(api::trace_input_json("loop", "[]", "en")).contains("loop"));
    // A refusal that is not a `ValueError` is the page's bug, not the author's data.
    assert!(error_of(api::trace_refused_json("validate", "{}", "en")).starts_with("not a refusal"));
    assert!(error_of(api::trace_refused_json("validate", "[]", "en")).starts_with("not a refusal"));
    // A huge id is quoted by its first 40 characters only.
    let huge = "x".repeat(1 << 20);
    assert_eq!(
        error_of(api::source_json(&huge)),
        format!("unknown symbol \"{}…\": no such lesson function or entry", &huge[..40])
    );
    assert!(error_of(api::trace_json(&huge, "valid", "en"))
        .starts_with(&format!("unknown figure \"{}…\"", &huge[..40])));
    // The module keeps working after errors.
    let figures: serde_json::Value = serde_json::from_str(&api::figures_json().unwrap()).unwrap();
    assert_eq!(figures.as_array().map(Vec::len), Some(4));
    assert!(api::trace_json("write", "replace", "en")
        .unwrap()
        .starts_with("{\"figure\":\"write\""));
}

/// Runs as data, in the browser: every built-in loop scenario is a run file, and replaying that
/// file's JSON text through `traceRunJson` gives the scenario's trace: the same steps, values, host
/// states, requests, result, claims and replay info. Only what names the scenario differs: its id
/// (a run file opened is `run`) and the setup it was given (a run file has none).
#[wasm_bindgen_test]
fn every_scenario_replayed_from_its_run_file_text_is_the_scenario_s_trace() {
    use serde_json::Value;
    use todo_trace::host::loop_scenarios::SCENARIOS;

    let without_names = |json: &str| {
        let mut trace: Value = serde_json::from_str(json).expect("a trace is JSON");
        let object = trace.as_object_mut().expect("a trace is an object");
        assert!(object.remove("scenario").is_some() && object.remove("data").is_some());
        trace
    };
    for scenario in SCENARIOS {
        for lang in ["zh", "en"] {
            let id = scenario.id;
            let file = api::run_file_json(id, lang)
                .unwrap_or_else(|e| panic!("{id}/{lang}: {}", message(e)));
            let replayed = api::trace_run_json(&file, lang)
                .unwrap_or_else(|e| panic!("{id}/{lang}: {}", message(e)));
            let traced = api::trace_json("loop", id, lang)
                .unwrap_or_else(|e| panic!("{id}/{lang}: {}", message(e)));
            let (replayed, traced) = (without_names(&replayed), without_names(&traced));
            assert_eq!(replayed["ran"], Value::Bool(true), "{id}/{lang}");
            assert!(
                replayed["replay"].get("diverged").is_none(),
                "{id}/{lang}: {}",
                replayed["replay"]
            );
            assert!(
                replayed["steps"].as_array().is_some_and(|steps| !steps.is_empty()),
                "{id}/{lang}"
            );
            for key in ["steps", "values", "result", "claims", "replay"] {
                assert_eq!(replayed[key], traced[key], "{id}/{lang}: {key}");
            }
            assert_eq!(replayed, traced, "{id}/{lang}: the whole trace");
        }
    }
}
