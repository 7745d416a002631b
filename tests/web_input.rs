//! `traceInput` from a real browser: hostile text gives a coded error in bounded time, never a
//! thrown exception, and the module keeps working afterwards.
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, ArrayBuffer, Date, JsString, Reflect, WebAssembly};
use todo_trace::api;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Only a hang or a blow-up comes near it. Most of these take milliseconds, the heaviest input a few
/// seconds of this debug build, and several times that on a busy machine, where V8's optimizing
/// compiler gets little CPU: so the bound on work is the step count, checked where it matters.
const BOUND_MS: f64 = 60_000.0;

fn get(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &JsValue::from_str(key)).expect("a readable field")
}

/// Runs `traceInput`, checks the time bound, and returns the trace (it must not throw).
fn timed_trace(figure: &str, text: &str, lang: &str) -> JsValue {
    let started = Date::now();
    let trace = wasm::trace_input(&figure.into(), &text.into(), &lang.into())
        .unwrap_or_else(|error| panic!("traceInput threw: {:?}", JsValue::from(error)));
    let took = Date::now() - started;
    console_log!("traceInput({figure}, {} bytes): {took} ms", text.len());
    assert!(took < BOUND_MS, "{figure} took {took} ms on {} bytes", text.len());
    trace
}

/// The error code of a trace that failed; it must carry a message and say `ok: false`.
fn error_code(trace: &JsValue) -> String {
    let result = get(trace, "result");
    assert_eq!(get(&result, "ok"), JsValue::FALSE);
    let error = get(&result, "error");
    assert!(!get(&error, "message").as_string().unwrap_or_default().is_empty());
    get(&error, "code").as_string().expect("a string code")
}

fn steps(trace: &JsValue) -> u32 {
    Array::from(&get(trace, "steps")).length()
}

/// A normal call still works: the module survived whatever came before.
fn assert_still_working() {
    let trace =
        wasm::trace(&"validate".into(), &"valid".into(), &"en".into()).expect("trace still works");
    assert_eq!(get(&get(&trace, "result"), "ok"), JsValue::TRUE);
    let text = "[{'id': '1', 'content': 'x', 'status': 'pending'}]";
    let own = wasm::trace_input(&"write".into(), &text.into(), &"zh".into())
        .expect("traceInput still works");
    assert_eq!(get(&get(&own, "result"), "ok"), JsValue::TRUE);
}

/// Checks one hostile text on every figure: the code, and no steps for input errors.
fn assert_refused(text: &str, code: &str) {
    for figure in ["validate", "write", "prepare"] {
        let trace = timed_trace(figure, text, "en");
        assert_eq!(error_code(&trace), code, "{figure}");
        assert_eq!(get(&trace, "scenario").as_string().as_deref(), Some("input"));
        assert_eq!(steps(&trace), 0, "{figure}: nothing may run on refused text");
    }
    assert_still_working();
}

fn position(trace: &JsValue) -> (f64, f64) {
    let error = get(&get(trace, "result"), "error");
    (
        get(&error, "line").as_f64().expect("a line"),
        get(&error, "column").as_f64().expect("a column"),
    )
}

#[wasm_bindgen_test]
fn invalid_json_is_a_parse_error_at_its_position() {
    assert_refused("[{\"id\": \"1\",\n  \"content\" \"x\"}]", "parse_error");
    assert_eq!(
        position(&timed_trace("validate", "[{\"id\": \"1\",\n  \"content\" \"x\"}]", "zh")),
        (2.0, 13.0)
    );
}

#[wasm_bindgen_test]
fn python_code_is_never_run() {
    let text = "__import__('os').system('rm -rf /')";
    assert_refused(text, "parse_error");
    assert_eq!(position(&timed_trace("write", text, "en")), (1.0, 1.0));
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

/// The size of wasm memory, in bytes.
fn memory_bytes() -> f64 {
    let memory: WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
    memory.buffer().unchecked_into::<ArrayBuffer>().byte_length() as f64
}

#[wasm_bindgen_test]
fn text_over_the_limit_is_refused_before_it_is_copied_into_wasm() {
    // Made in JS, so the text never passes through wasm memory on its way in: 10 M characters,
    // 30 MB of UTF-8.
    let huge = JsString::from("中").repeat(10_000_000);
    let before = memory_bytes();
    for figure in ["validate", "write", "prepare"] {
        let started = Date::now();
        let trace = wasm::trace_input(&figure.into(), &huge, &"zh".into()).expect("no throw");
        let took = Date::now() - started;
        assert!(took < 1_000.0, "{figure}: {took} ms");
        assert_eq!(error_code(&trace), "input_too_large");
        assert_eq!(steps(&trace), 0);
        let message = get(&get(&get(&trace, "result"), "error"), "message").as_string().unwrap();
        assert!(message.contains("10000000"), "{message}");
    }
    let grown = memory_bytes() - before;
    assert!(grown <= f64::from(1 << 20), "wasm memory grew by {grown} bytes");
    // One unit over the limit is refused by length; at the limit, by the exact count of bytes.
    let over = JsString::from(" ").repeat(65_537);
    assert_eq!(
        error_code(&wasm::trace_input(&"validate".into(), &over, &"en".into()).unwrap()),
        "input_too_large"
    );
    let wide = format!("[\"{}\"]", "é".repeat(40_000));
    assert_eq!(wide.encode_utf16().count(), 40_004);
    assert_refused(&wide, "input_too_large");
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
    assert_eq!(position(&trace), (1.0, 10.0));
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
    assert_eq!(get(&get(&trace, "result"), "ok"), JsValue::TRUE);
    let value = Array::from(&get(&get(&trace, "result"), "value"));
    let content = get(&value.get(0), "content").as_string();
    assert_eq!(content.as_deref(), Some("<img src=x onerror=alert(1)>"));
    assert!(steps(&trace) > 0);
}

#[wasm_bindgen_test]
fn unknown_figures_and_languages_still_throw() {
    assert!(wasm::trace_input(&"nope".into(), &"[]".into(), &"en".into()).is_err());
    assert!(wasm::trace_input(&"validate".into(), &"[]".into(), &"fr".into()).is_err());
    assert_still_working();
}
