//! `traceInputJson` from a real browser: hostile text gives a coded error in bounded time, never a
//! thrown exception, and the module keeps working afterwards. (Text over the size limit is refused
//! by www/api.js before it is copied into wasm memory: tests/e2e/api.test.mjs.)
#![cfg(target_arch = "wasm32")]

use js_sys::Date;
use serde_json::Value;
use todo_trace::api;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Only a hang or a blow-up comes near it. Most of these take milliseconds, the heaviest input a few
/// seconds of this debug build, and several times that on a busy machine, where V8's optimizing
/// compiler gets little CPU: so the bound on work is the step count, checked where it matters.
const BOUND_MS: f64 = 60_000.0;

/// An export's JSON text as a value; an `Err` (a thrown JS Error) fails the test.
fn parsed(json: Result<String, wasm_bindgen::JsError>, what: &str) -> Value {
    let json = json.unwrap_or_else(|error| panic!("{what} threw: {:?}", JsValue::from(error)));
    serde_json::from_str(&json).expect("the export returns JSON")
}

/// Runs `traceInputJson`, checks the time bound, and returns the trace (it must not throw).
fn timed_trace(figure: &str, text: &str, lang: &str) -> Value {
    let started = Date::now();
    let trace = parsed(api::trace_input_json(figure, text, lang), "traceInputJson");
    let took = Date::now() - started;
    console_log!("traceInputJson({figure}, {} bytes): {took} ms", text.len());
    assert!(took < BOUND_MS, "{figure} took {took} ms on {} bytes", text.len());
    trace
}

/// The error code of a trace that failed; it must carry a message and say `ok: false`.
fn error_code(trace: &Value) -> String {
    let result = &trace["result"];
    assert_eq!(result["ok"], false);
    assert!(!result["error"]["message"].as_str().unwrap_or_default().is_empty());
    result["error"]["code"].as_str().expect("a string code").to_string()
}

fn steps(trace: &Value) -> usize {
    trace["steps"].as_array().expect("a list of steps").len()
}

/// A normal call still works: the module survived whatever came before.
fn assert_still_working() {
    let trace = parsed(api::trace_json("validate", "valid", "en"), "traceJson");
    assert_eq!(trace["result"]["ok"], true);
    let text = "[{'id': '1', 'content': 'x', 'status': 'pending'}]";
    let own = parsed(api::trace_input_json("write", text, "zh"), "traceInputJson");
    assert_eq!(own["result"]["ok"], true);
}

/// Checks one hostile text on every figure: the code, and no steps for input errors.
fn assert_refused(text: &str, code: &str) {
    for figure in ["validate", "write", "prepare"] {
        let trace = timed_trace(figure, text, "en");
        assert_eq!(error_code(&trace), code, "{figure}");
        assert_eq!(trace["scenario"], "input");
        assert_eq!(trace["ran"], false, "{figure}");
        assert_eq!(steps(&trace), 0, "{figure}: nothing may run on refused text");
    }
    assert_still_working();
}

fn position(trace: &Value) -> (u64, u64) {
    let error = &trace["result"]["error"];
    (error["line"].as_u64().expect("a line"), error["column"].as_u64().expect("a column"))
}

#[wasm_bindgen_test]
fn invalid_json_is_a_parse_error_at_its_position() {
    assert_refused("[{\"id\": \"1\",\n  \"content\" \"x\"}]", "parse_error");
    assert_eq!(
        position(&timed_trace("validate", "[{\"id\": \"1\",\n  \"content\" \"x\"}]", "zh")),
        (2, 13)
    );
}

#[wasm_bindgen_test]
fn python_code_is_never_run() {
    let text = "__import__('os').system('rm -rf /')";
    assert_refused(text, "parse_error");
    assert_eq!(position(&timed_trace("write", text, "en")), (1, 1));
    assert_refused("[{'id': open('/etc/passwd').read()}]", "parse_error");
}

#[wasm_bindgen_test]
fn deep_nesting_is_refused_without_overflowing_the_stack() {
    // 100,000 levels are over the size limit, which is checked first; 60,000 fit in 64 KiB and
    // reach the depth limit.
    assert_refused(&"[".repeat(100_000), "input_too_large");
    assert_refused(&"[".repeat(60_000), "too_deep");
    assert_refused(&("{'a': ".repeat(9_000) + "1" + &"}".repeat(9_000)), "too_deep");
}

#[wasm_bindgen_test]
fn a_five_megabyte_string_is_refused_by_the_size_limit() {
    assert_refused(&format!("[\"{}\"]", "a".repeat(5 << 20)), "input_too_large");
}

#[wasm_bindgen_test]
fn text_at_the_size_limit_is_counted_in_bytes_of_utf8() {
    // 40,004 UTF-16 units (under the limit, so api.js copies it), 80,004 bytes of UTF-8 (over it).
    let wide = format!("[\"{}\"]", "é".repeat(40_000));
    assert_eq!(wide.encode_utf16().count(), 40_004);
    assert_refused(&wide, "input_too_large");
    // Exactly 64 KiB runs; one byte more is refused.
    let at = format!("[\"{}\"]", "x".repeat(64 * 1024 - 4));
    assert_eq!(timed_trace("validate", &at, "en")["ran"], true);
    assert_refused(&format!("[\"{}\"]", "x".repeat(64 * 1024 - 3)), "input_too_large");
    assert_still_working();
}

#[wasm_bindgen_test]
fn twenty_thousand_items_are_refused() {
    let small = format!("[{}]", vec!["0"; 20_000].join(","));
    let trace = timed_trace("validate", &small, "en");
    assert_eq!(error_code(&trace), "too_many_items");
    // The item limit is checked before the loop: the steps stop at the count check.
    assert!(steps(&trace) < 10, "{} steps", steps(&trace));
    let item = "{'id': '1', 'content': 'x', 'status': 'pending'}";
    assert_refused(&format!("[{}]", vec![item; 20_000].join(",")), "input_too_large");
    assert_still_working();
}

#[wasm_bindgen_test]
fn lone_surrogates_and_huge_numbers_are_parse_errors() {
    for text in [
        r#"[{"id": "\ud800", "content": "x", "status": "pending"}]"#,
        r#"["\udc00"]"#,
        "[1e999]",
        "[99999999999999999999999]",
        "[{\"__proto__\": {\"id\": \"1\"}}]",
        "[{'id': '1', 'id': '2'}]",
    ] {
        assert_refused(text, "parse_error");
    }
    let trace = timed_trace("validate", r#"[{"id": "\ud800"}]"#, "en");
    assert_eq!(position(&trace), (1, 10));
}

#[wasm_bindgen_test]
fn the_heaviest_valid_sized_input_stays_bounded() {
    // Nineteen full items and one huge content: every step carries the whole list as locals.
    let full = format!("{{'id': 'ID', 'content': '{}', 'status': 'completed'}}", "中".repeat(150));
    let items: Vec<String> = (0..19).map(|i| full.replace("ID", &i.to_string())).collect();
    let huge = format!("{{'id': 'z', 'content': '{}', 'status': 'pending'}}", "x".repeat(50_000));
    let text = format!("[{}, {huge}]", items.join(", "));
    assert!(text.len() < 64 * 1024);
    for figure in ["validate", "write"] {
        let trace = timed_trace(figure, &text, "zh");
        assert_eq!(error_code(&trace), "content_too_long");
        // About 18 steps an item: the work grows with the items, which are at most 20.
        assert!((300..500).contains(&steps(&trace)), "{} steps", steps(&trace));
    }
    assert_still_working();
}

#[wasm_bindgen_test]
fn a_valid_plan_of_ones_own_runs_and_xss_stays_text() {
    let text = "[{'id': '1', 'content': '<img src=x onerror=alert(1)>', 'status': 'in_progress'},]";
    let trace = timed_trace("validate", text, "en");
    assert_eq!(trace["result"]["ok"], true);
    assert_eq!(trace["result"]["value"][0]["content"], "<img src=x onerror=alert(1)>");
    assert!(steps(&trace) > 0);
}

#[wasm_bindgen_test]
fn unknown_figures_and_languages_still_throw() {
    assert!(api::trace_input_json("nope", "[]", "en").is_err());
    assert!(api::trace_input_json("validate", "[]", "fr").is_err());
    assert_still_working();
}
