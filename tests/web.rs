//! The JS API from a real browser: every trace matches its golden file, and bad ids become JS Errors.
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, ArrayBuffer, Object, Reflect, WebAssembly, JSON};
use todo_trace::api as wasm;
use todo_trace::host::{figures, run};
use wasm_bindgen::{JsCast, JsValue};
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

/// A JS string argument.
fn js(text: &str) -> JsValue {
    JsValue::from_str(text)
}

fn get(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &key.into()).unwrap()
}

fn stringify(value: &JsValue) -> String {
    JSON::stringify(value).unwrap().into()
}

fn is_plain_object(value: &JsValue) -> bool {
    value.is_object() && Object::get_prototype_of(value) == Object::get_prototype_of(&Object::new())
}

#[wasm_bindgen_test]
fn wasm_traces_are_byte_identical_to_the_native_golden_files() {
    for (figure, scenario, lang, golden) in GOLDEN {
        let lang = figures::parse_lang(lang).unwrap();
        let json = serde_json::to_string(&run::trace(figure, scenario, lang).unwrap()).unwrap();
        // The golden file is the same compact JSON with a line break before each step.
        assert_eq!(json, golden.replace('\n', ""), "{figure}/{scenario}");
    }
}

#[wasm_bindgen_test]
fn every_trace_crosses_to_js_as_plain_objects_equal_to_the_golden_file() {
    for (figure, scenario, lang, golden) in GOLDEN {
        let trace = wasm::trace(&js(figure), &js(scenario), &js(lang)).unwrap();
        assert!(is_plain_object(&trace), "{figure}/{scenario}: not a plain object");
        let steps: Array = get(&trace, "steps").dyn_into().unwrap();
        assert!(steps.length() > 0);
        let step = steps.get(0);
        let values = Array::from(&get(&step, "values"));
        assert!(is_plain_object(&step) && Array::is_array(&values));
        assert!(get(&step, "symbol").is_string());
        assert_eq!(get(&trace, "ran").as_bool(), Some(true));
        assert!(get(&trace, "parts").is_undefined(), "{figure}/{scenario}: parts reached JS");
        let expected = JSON::parse(&whole(golden)).unwrap();
        assert_eq!(stringify(&trace), stringify(&expected), "{figure}/{scenario}/{lang}");
    }
}

/// The golden text as JS should get it: each value listed in `parts` (a list or an object of earlier
/// values' indices) made whole, and `parts` itself left out. Written apart from the glue's `traceFrom`,
/// so that the test checks it rather than repeats it.
fn whole(golden: &str) -> String {
    use serde_json::Value;
    let mut trace: Value = serde_json::from_str(golden).unwrap();
    let parts = trace.as_object_mut().unwrap().shift_remove("parts").unwrap_or_default();
    let values = trace["values"].as_array_mut().unwrap();
    for at in parts.as_array().into_iter().flatten() {
        let at = at.as_u64().unwrap() as usize;
        let part = |index: &Value| values[index.as_u64().unwrap() as usize].clone();
        let made = match &values[at] {
            Value::Array(list) => Value::Array(list.iter().map(part).collect()),
            Value::Object(fields) => Value::Object(
                fields.iter().map(|(key, index)| (key.clone(), part(index))).collect(),
            ),
            other => panic!("value {at} is listed in parts but is {other}"),
        };
        values[at] = made;
    }
    serde_json::to_string(&trace).unwrap()
}

/// A long trace of ASCII with a few Chinese lines crosses with those escaped (`recorder::ascii_json`):
/// JS gets the same objects as the native JSON.
#[wasm_bindgen_test]
fn a_long_mostly_ascii_trace_crosses_escaped_as_the_same_objects() {
    let items: Vec<String> = (1..=20)
        .map(|i| {
            format!(r#"{{"id": "{i}", "content": "{}", "status": "pending"}}"#, "x".repeat(150))
        })
        .collect();
    let text = format!("[{}]", items.join(","));
    let native = run::trace_input("validate", &text, figures::parse_lang("zh").unwrap()).unwrap();
    let json = native.to_json();
    let outside = json.bytes().filter(|b| *b >= 0x80).count();
    assert!(
        json.len() > 16 * 1024 && outside > 0 && outside * 100 <= json.len(),
        "{outside} of {}",
        json.len()
    );
    let trace = wasm::trace_input(&js("validate"), &js(&text), &js("zh")).unwrap();
    assert_eq!(stringify(&trace), stringify(&JSON::parse(&whole(&json)).unwrap()));
}

#[wasm_bindgen_test]
fn figures_scenarios_and_sources_are_plain_data() {
    let figures: Array = wasm::figures().unwrap().dyn_into().unwrap();
    assert_eq!(figures.length(), 4);
    for figure in figures.iter() {
        let id = get(&figure, "id").as_string().unwrap();
        for lang in ["zh", "en"] {
            let scenarios: Array =
                wasm::scenarios(&js(&id), &js(lang)).unwrap().dyn_into().unwrap();
            let defaults = scenarios.iter().filter(|s| get(s, "isDefault").is_truthy()).count();
            assert_eq!(defaults, 1, "{id}");
        }
        for key in ["symbol", "entry"] {
            let symbol = get(&figure, key).as_string().unwrap();
            let listing = wasm::source(&js(&symbol)).unwrap();
            assert_eq!(get(&listing, "file").as_string().unwrap().get(..4), Some("src/"));
            let lines: Array = get(&listing, "lines").dyn_into().unwrap();
            let first = get(&lines.get(0), "text").as_string().unwrap();
            assert!(first.contains(&format!("fn {symbol}(")), "{first}");
        }
    }
}

fn error_message(result: Result<JsValue, js_sys::Error>) -> String {
    let error = result.expect_err("expected a JS Error");
    assert!(error.is_instance_of::<js_sys::Error>());
    error.message().into()
}

#[wasm_bindgen_test]
fn unknown_ids_throw_js_errors_with_clear_messages() {
    let trace = |f: &str, s: &str, l: &str| wasm::trace(&js(f), &js(s), &js(l));
    assert!(error_message(trace("nope", "valid", "en")).contains("unknown figure \"nope\""));
    assert!(error_message(trace("write", "valid", "en")).contains("unknown scenario \"valid\""));
    assert!(error_message(trace("write", "replace", "fr")).contains("unknown language"));
    assert!(error_message(wasm::scenarios(&js(""), &js("zh"))).contains("unknown figure"));
    assert!(error_message(wasm::source(&js("eval"))).contains("unknown symbol"));
    // A huge id is quoted by its first 40 characters only.
    let huge = "x".repeat(1 << 20);
    let message = error_message(wasm::source(&js(&huge)));
    assert_eq!(
        message,
        format!("unknown symbol \"{}…\": no such lesson function or entry", &huge[..40])
    );
    // An id of 10 M characters made in JS is cut before it is copied into wasm memory.
    let huge: JsValue = js_sys::JsString::from("x").repeat(10_000_000).into();
    let before = memory_bytes();
    let message = error_message(wasm::trace(&huge, &js("valid"), &js("en")));
    assert!(message.starts_with(&format!("unknown figure \"{}…\"", &"x".repeat(40))), "{message}");
    assert!(error_message(wasm::source(&huge)).starts_with("unknown symbol"));
    let grown = memory_bytes() - before;
    assert!(grown <= f64::from(1 << 20), "wasm memory grew by {grown} bytes");
    // The module keeps working after errors.
    assert!(trace("write", "replace", "en").is_ok());
}

/// The size of wasm memory, in bytes.
fn memory_bytes() -> f64 {
    let memory: WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
    memory.buffer().unchecked_into::<ArrayBuffer>().byte_length() as f64
}

/// Values of every other type, and objects that once tricked wasm-bindgen's string conversion.
fn not_strings() -> Vec<(JsValue, &'static str)> {
    let fake = |length: f64| {
        let object = Object::new();
        Reflect::set(&object, &js("length"), &JsValue::from_f64(length)).unwrap();
        JsValue::from(object)
    };
    vec![
        (JsValue::from_f64(1.0), "number"),
        (JsValue::TRUE, "boolean"),
        (Object::new().into(), "object"),
        (JsValue::NULL, "null"),
        (JsValue::UNDEFINED, "undefined"),
        (Array::of2(&js("validate"), &js("en")).into(), "array"),
        (fake(2f64.powi(31)), "object"),
        (fake(f64::from(10 << 20)), "object"),
        (js_sys::BigInt::from(7).into(), "bigint"),
        (js_sys::Function::new_no_args("").into(), "function"),
    ]
}

#[wasm_bindgen_test]
fn every_export_refuses_a_value_that_is_not_a_string_with_an_error_naming_it() {
    let (figure, scenario, lang, text) = (js("write"), js("replace"), js("en"), js("[]"));
    for (bad, kind) in not_strings() {
        let calls = [
            ("figureId", wasm::trace(&bad, &scenario, &lang)),
            ("scenarioId", wasm::trace(&figure, &bad, &lang)),
            ("lang", wasm::trace(&figure, &scenario, &bad)),
            ("figureId", wasm::scenarios(&bad, &lang)),
            ("lang", wasm::scenarios(&figure, &bad)),
            ("symbol", wasm::source(&bad)),
            ("figureId", wasm::trace_input(&bad, &text, &lang)),
            ("text", wasm::trace_input(&figure, &bad, &lang)),
            ("lang", wasm::trace_input(&figure, &text, &bad)),
        ];
        for (name, result) in calls {
            assert_eq!(error_message(result), format!("{name} must be a string, not {kind}"));
        }
    }
    assert!(wasm::trace(&figure, &scenario, &lang).is_ok(), "the module still works");
}

#[wasm_bindgen_test]
fn refusing_wrong_types_leaks_nothing() {
    let (figure, lang) = (js("validate"), js("en"));
    // Warm up, so that the allocator has what a normal call needs.
    wasm::trace_input(&figure, &js("[]"), &lang).unwrap();
    let before = memory_bytes();
    for _ in 0..1_000 {
        for (bad, _) in not_strings() {
            let _ = wasm::trace_input(&figure, &bad, &lang);
            let _ = wasm::trace(&bad, &bad, &bad);
            let _ = wasm::source(&bad);
        }
    }
    // A fake `{length: 10 << 20}` once leaked 10 MiB a call: a thousand of them would be 10 GiB.
    let grown = memory_bytes() - before;
    assert!(grown <= f64::from(1 << 20), "wasm memory grew by {grown} bytes");
}
