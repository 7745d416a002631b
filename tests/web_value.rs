//! `traceValue` from a real browser: a JS value runs like the same data typed as text, and values
//! over a limit or not JSON give a coded error in bounded time, never a thrown exception.
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, Date, Function, Reflect, JSON};
use todo_trace::api;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Generous: each of these takes milliseconds; only a hang or a blow-up would come near it.
const BOUND_MS: f64 = 5_000.0;

fn get(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &JsValue::from_str(key)).expect("a readable field")
}

/// A JS value made by a JS expression (a test's own code, so `Function` is fine here).
fn js(expression: &str) -> JsValue {
    Function::new_no_args(&format!("return {expression};"))
        .call0(&JsValue::NULL)
        .expect("the expression runs")
}

/// Runs `traceValue`, checks the time bound, and returns the trace (it must not throw).
fn timed(figure: &str, value: &JsValue) -> JsValue {
    let started = Date::now();
    let trace = wasm::trace_value(&figure.into(), value.clone(), &"en".into())
        .unwrap_or_else(|error| panic!("traceValue threw: {:?}", JsValue::from(error)));
    let took = Date::now() - started;
    assert!(took < BOUND_MS, "{figure} took {took} ms");
    trace
}

/// The code of a refused value, on every figure; nothing may run.
fn assert_refused(value: &JsValue, code: &str) {
    for figure in ["validate", "write", "prepare"] {
        let trace = timed(figure, value);
        let result = get(&trace, "result");
        assert_eq!(get(&result, "ok"), JsValue::FALSE, "{figure}");
        let error = get(&result, "error");
        assert_eq!(
            get(&error, "code").as_string().as_deref(),
            Some(code),
            "{figure}: {:?}",
            get(&error, "message")
        );
        assert!(!get(&error, "message").as_string().unwrap_or_default().is_empty());
        assert_eq!(get(&trace, "ran"), JsValue::FALSE, "{figure}");
        assert_eq!(Array::from(&get(&trace, "steps")).length(), 0, "{figure}");
    }
}

/// Accepted by the check: whatever the lesson then says, the trace ran.
fn assert_ran(value: &JsValue) {
    for figure in ["validate", "write"] {
        let trace = timed(figure, value);
        assert_eq!(
            get(&trace, "ran"),
            JsValue::TRUE,
            "{figure}: {:?}",
            get(&get(&trace, "result"), "error")
        );
    }
}

fn stringify(value: &JsValue) -> String {
    JSON::stringify(value).expect("stringifies").into()
}

#[wasm_bindgen_test]
fn a_value_runs_exactly_as_the_same_data_typed_as_text() {
    let texts = [
        r#"[{"id": "1", "content": "Read the file", "status": "completed"}, {"id": "2", "content": "Fix it", "status": "in_progress"}]"#,
        r#"[{"id": "1", "content": "x", "status": "done"}]"#,
        r#"{"not": "a list"}"#,
        r#"[{"id": "1", "content": "  spaced  ", "status": "pending", "extra": [1, 2.5, -0.125, null, true]}]"#,
    ];
    for text in texts {
        for figure in ["validate", "write", "prepare"] {
            let value = JSON::parse(text).expect("valid JSON");
            let from_value = stringify(&timed(figure, &value));
            let from_text = stringify(
                &wasm::trace_input(&figure.into(), &text.into(), &"en".into()).expect("traceInput"),
            );
            assert_eq!(from_value, from_text, "{figure} on {text}");
        }
    }
}

#[wasm_bindgen_test]
fn nesting_is_limited_at_thirty_two_levels_and_cycles_are_refused() {
    assert_ran(&js("JSON.parse('['.repeat(32) + ']'.repeat(32))"));
    assert_refused(&js("JSON.parse('['.repeat(33) + ']'.repeat(33))"), "too_deep");
    // Far deeper than the stack would allow a recursive conversion.
    assert_refused(
        &js("(() => { let v = []; for (let i = 0; i < 200000; i++) v = [v]; return v; })()"),
        "too_deep",
    );
    assert_refused(&js("(() => { const a = []; a.push({b: a}); return a; })()"), "not_json");
}

#[wasm_bindgen_test]
fn size_is_limited_at_sixty_four_kib_of_json() {
    // ["…"]: 4 bytes around the string; "é" is 2 bytes of UTF-8, "\n" 2 bytes as JSON.
    assert_ran(&js("['x'.repeat(65532)]"));
    assert_refused(&js("['x'.repeat(65533)]"), "input_too_large");
    assert_ran(&js("['é'.repeat(32766)]"));
    assert_refused(&js("['é'.repeat(32767)]"), "input_too_large");
    assert_refused(&js("['\\n'.repeat(32767)]"), "input_too_large");
    assert_refused(&js("['x'.repeat(10_000_000)]"), "input_too_large");
    assert_refused(&js("new Array(1_000_000).fill(0)"), "input_too_large");
    assert_refused(
        &js("Object.fromEntries(Array.from({length: 100000}, (_, i) => [String(i), 0]))"),
        "input_too_large",
    );
}

#[wasm_bindgen_test]
fn numbers_count_as_serde_json_writes_them() {
    // [12345,"…"]: 5 digits; 2 ** 53 is not a safe integer, so it is the float 9007199254740992.0
    // (18 characters); 1.5 is 3.
    assert_ran(&js("[12345, 'x'.repeat(65526)]"));
    assert_refused(&js("[12345, 'x'.repeat(65527)]"), "input_too_large");
    assert_ran(&js("[2 ** 53, 'x'.repeat(65513)]"));
    assert_refused(&js("[2 ** 53, 'x'.repeat(65514)]"), "input_too_large");
    assert_ran(&js("[1.5, 'x'.repeat(65528)]"));
    assert_refused(&js("[1.5, 'x'.repeat(65529)]"), "input_too_large");
}

#[wasm_bindgen_test]
fn a_refusal_names_the_path_with_keys_as_json_strings() {
    let trace = timed("validate", &js(r#"[{id: '1', 'two words': {'"q"': undefined}}]"#));
    let message = get(&get(&get(&trace, "result"), "error"), "message").as_string().unwrap();
    assert_eq!(
        message,
        r#"At the value's [0]["two words"]["\"q\""]: undefined (or a hole in an array), which is not JSON data."#
    );
}

#[wasm_bindgen_test]
fn what_json_does_not_hold_is_refused() {
    for expression in [
        "[() => 1]",
        "[{id: Symbol('x')}]",
        "[10n]",
        "[undefined]",
        "[1, , 2]",
        "[NaN]",
        "[{n: Infinity}]",
        "[new Map()]",
        "[new Date(0)]",
        "[new (class Item {})()]",
        "JSON.parse('[{\"__proto__\": 1}]')",
        "[{get id() { throw new Error('no'); }}]",
        "undefined",
    ] {
        assert_refused(&js(expression), "not_json");
    }
    // An object without a prototype is plain data.
    assert_ran(&js(
        "[Object.assign(Object.create(null), {id: '1', content: 'x', status: 'pending'})]",
    ));
}

#[wasm_bindgen_test]
fn the_host_plan_of_prepare_is_validated_and_stored_normalized() {
    let plan = js("[{id: ' 1 ', content: 'Read', status: 'pending'}]");
    let trace = timed("prepare", &plan);
    assert_eq!(get(&trace, "ran"), JsValue::TRUE);
    let stored = get(&get(&get(&trace, "data"), "state"), "items");
    assert_eq!(stringify(&stored), r#"[{"id":"1","content":"Read","status":"pending"}]"#);
    let bad = timed("prepare", &js("[{id: '1', content: 'Read', status: 'done'}]"));
    assert_eq!(get(&bad, "ran"), JsValue::FALSE);
}

#[wasm_bindgen_test]
fn unknown_figures_languages_and_the_loop_throw() {
    assert!(wasm::trace_value(&"nope".into(), JsValue::NULL, &"en".into()).is_err());
    assert!(wasm::trace_value(&"write".into(), JsValue::NULL, &"fr".into()).is_err());
    assert!(wasm::trace_value(&"loop".into(), js("[]"), &"en".into()).is_err());
    // And the module still works.
    let trace = timed("write", &js("[{id: '1', content: 'x', status: 'pending'}]"));
    assert_eq!(get(&get(&trace, "result"), "ok"), JsValue::TRUE);
}

/// The patched serde-wasm-bindgen (vendor/serde-wasm-bindgen/PATCHED.md) still says what it found,
/// a float written by JavaScript, though Rust's float formatting is no longer in the module.
#[wasm_bindgen_test]
fn conversion_errors_still_name_what_was_found() {
    let message = |value: JsValue| {
        let error = serde_wasm_bindgen::from_value::<String>(value).expect_err("not a string");
        JsValue::from(error).unchecked_into::<js_sys::Error>().message().as_string().unwrap()
    };
    assert_eq!(
        message(JsValue::from_f64(1.5)),
        "invalid type: floating point `1.5`, expected a string"
    );
    assert_eq!(
        message(JsValue::from_f64(1e21)),
        "invalid type: floating point `1e+21`, expected a string"
    );
    assert_eq!(message(JsValue::TRUE), "invalid type: boolean `true`, expected a string");
    assert_eq!(message(js("new Set()")), "invalid type: object, expected a string");
    let error =
        serde_wasm_bindgen::from_value::<u8>(JsValue::from_str("7")).expect_err("not a number");
    let message = JsValue::from(error).unchecked_into::<js_sys::Error>().message();
    assert_eq!(message, "invalid type: string \"7\", expected u8");
}
