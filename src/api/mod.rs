//! The wasm boundary: thin `#[wasm_bindgen]` exports that take strings and return JSON text.
//!
//! Every export takes only strings (a run file as UTF-8 bytes, copied in) and returns a string, so
//! no JS value ever enters Rust: a getter or a Proxy cannot run code inside a Rust frame, and no JS
//! exception can unwind through the module (which would leave its stack pointer where the throw
//! left it). `www/api.js` is the JS API: it checks the arguments, reads an author's value once into
//! plain data (`www/value.js`), and parses what comes back. Errors cross as JS `Error`s, thrown by
//! the glue after the call.

use wasm_bindgen::prelude::*;

use crate::host::figures::{self, ApiError, FIGURES};
use crate::host::{run, source, what_if};
use crate::lesson::Lang;

pub mod js_value;
pub(crate) mod messages;

use crate::lesson::messages::quoted;

/// The one error helper: a value as JSON text, or the API error as a JS `Error`.
fn reply<T: serde::Serialize>(value: Result<T, ApiError>) -> Result<String, JsError> {
    let value = value.map_err(|error| JsError::new(&error.0))?;
    let json = serde_json::to_string(&value).map_err(|error| JsError::new(&error.to_string()))?;
    Ok(ascii(json))
}

/// JSON text with each character past ASCII written as `\u` escapes of its UTF-16 units, which JS
/// parses to the same strings (outside strings JSON has none). A single such character anywhere (an
/// English question's `’`) made the whole text a two-byte string in V8, decoded about four times
/// slower and parsed slower: 2.7 ms of a 100-call run's trace, and no slower for a Chinese one
/// (bench/tricks.md). Done on the text, not by a serde_json `Formatter`, which built all of
/// serialization a second time into the module (3.5 KB gzip).
fn ascii(json: String) -> String {
    use std::fmt::Write;
    if ascii_run(json.as_bytes()) == json.len() {
        return json;
    }
    let mut out = String::with_capacity(json.len() + json.len() / 8);
    let mut rest = json.as_str();
    while !rest.is_empty() {
        // Runs of ASCII copied whole: a character at a time was slower than what it saved.
        let run = ascii_run(rest.as_bytes());
        out.push_str(&rest[..run]);
        let Some(c) = rest[run..].chars().next() else { break };
        for unit in c.encode_utf16(&mut [0; 2]) {
            // Writing to a `String` cannot fail.
            let _ = write!(out, "\\u{unit:04x}");
        }
        rest = &rest[run + c.len_utf8()..];
    }
    out
}

/// How many bytes `bytes` starts with that are ASCII, eight looked at a time: `str::is_ascii` looks
/// at four in the module, and made validate/valid's trace about 5% slower side by side.
fn ascii_run(bytes: &[u8]) -> usize {
    let mut at = 0;
    while let Some(word) = bytes.get(at..at + 8) {
        if u64::from_le_bytes(word.try_into().unwrap_or([0x80; 8])) & 0x8080_8080_8080_8080 != 0 {
            break;
        }
        at += 8;
    }
    at + bytes[at..].iter().take_while(|byte| byte.is_ascii()).count()
}

#[wasm_bindgen(start)]
pub fn start() {
    #[cfg(feature = "console_error_panic_hook")]
    console_error_panic_hook::set_once();
}

/// The figures, in the lesson's order: `Figure[]` as JSON.
#[wasm_bindgen(js_name = figuresJson)]
pub fn figures_json() -> Result<String, JsError> {
    reply(Ok(&FIGURES[..]))
}

/// A figure's scenarios, labelled in `lang`: `Scenario[]` as JSON.
#[wasm_bindgen(js_name = scenariosJson)]
pub fn scenarios_json(figure_id: &str, lang: &str) -> Result<String, JsError> {
    reply(language(lang).and_then(|lang| figures::scenarios(figure_id, lang)))
}

/// The listing of a lesson function or call entry: `Listing` as JSON.
#[wasm_bindgen(js_name = sourceJson)]
pub fn source_json(symbol: &str) -> Result<String, JsError> {
    reply(source::source(symbol).ok_or_else(|| {
        ApiError(format!("unknown symbol {}: no such lesson function or entry", quoted(symbol)))
    }))
}

/// Runs a figure's scenario: `Trace` as JSON.
#[wasm_bindgen(js_name = traceJson)]
pub fn trace_json(figure_id: &str, scenario_id: &str, lang: &str) -> Result<String, JsError> {
    reply(language(lang).and_then(|lang| run::trace(figure_id, scenario_id, lang)))
}

/// Runs a figure on the reader's own text (JSON or a Python literal): `Trace` as JSON. Text that
/// does not parse, or is over a limit, gives a trace that did not run with the coded error.
#[wasm_bindgen(js_name = traceInputJson)]
pub fn trace_input_json(figure_id: &str, text: &str, lang: &str) -> Result<String, JsError> {
    reply(language(lang).and_then(|lang| run::trace_input(figure_id, text, lang)))
}

/// Runs a figure on an author's value, read once into plain data by `www/value.js` and given as its
/// JSON text: `Trace` as JSON.
#[wasm_bindgen(js_name = traceValueJson)]
pub fn trace_value_json(figure_id: &str, json: &str, lang: &str) -> Result<String, JsError> {
    reply(language(lang).and_then(|lang| run::trace_value(figure_id, json, lang)))
}

/// Replays a run file in the loop figure: `Trace` as JSON. A file over a limit, or not a run file
/// (not UTF-8 among them), gives a trace that did not run with the coded error. The file comes as
/// its bytes: an opened file's as they are, a text as `www/api.js` wrote it with `encodeInto`,
/// four times faster than the glue's copy of a string (bench/tricks.md).
#[wasm_bindgen(js_name = traceRunJson)]
pub fn trace_run_json(text: &[u8], lang: &str) -> Result<String, JsError> {
    reply(language(lang).and_then(|lang| run::trace_run(text, lang)))
}

/// The run file of a built-in loop scenario: `RunFile` as JSON.
#[wasm_bindgen(js_name = runFileJson)]
pub fn run_file_json(scenario_id: &str, lang: &str) -> Result<String, JsError> {
    reply(language(lang).and_then(|lang| run::scenario_run(scenario_id, lang)))
}

/// A built-in loop scenario with one thing the host controls changed (`deny`, `budget-4`, ...): the
/// stand-in runs again with the changed setup, and the two runs are compared. `WhatIf` as JSON.
#[wasm_bindgen(js_name = whatIfJson)]
pub fn what_if_json(scenario_id: &str, change: &str, lang: &str) -> Result<String, JsError> {
    reply(language(lang).and_then(|lang| what_if::what_if(scenario_id, change, lang)))
}

/// A run file's bytes (see [`trace_run_json`]) with one thing the host controls changed: its
/// recording replayed with the change, up to the first model call the recorded model never saw.
/// `WhatIf` as JSON.
#[wasm_bindgen(js_name = whatIfRunJson)]
pub fn what_if_run_json(text: &[u8], change: &str, lang: &str) -> Result<String, JsError> {
    reply(language(lang).and_then(|lang| what_if::what_if_run(text, change, lang)))
}

/// The trace of a value `www/api.js` refused before it crossed (`Refusal` as JSON): it did not run,
/// and its result is the coded error in `lang`.
#[wasm_bindgen(js_name = traceRefusedJson)]
pub fn trace_refused_json(figure_id: &str, refusal: &str, lang: &str) -> Result<String, JsError> {
    reply(language(lang).and_then(|lang| js_value::refused(figure_id, refusal, lang)))
}

fn language(lang: &str) -> Result<Lang, ApiError> {
    figures::parse_lang(lang)
}

#[cfg(test)]
mod tests {
    /// Characters past ASCII are escaped, one `\u` per UTF-16 unit, and the text reads back as the
    /// same value; ASCII text is left as it is.
    #[test]
    fn json_for_js_is_ascii_and_reads_back_the_same() {
        let value =
            serde_json::json!({ "问题": "the model’s plan: 中文 😀", "plain": "a\"b\\c\n\u{7f}" });
        let json = super::ascii(serde_json::to_string(&value).unwrap());
        assert!(json.is_ascii(), "{json}");
        assert!(
            json.contains(r#""\u95ee\u9898":"the model\u2019s plan: \u4e2d\u6587 \ud83d\ude00""#),
            "{json}"
        );
        assert_eq!(serde_json::from_str::<serde_json::Value>(&json).unwrap(), value);
        let plain = serde_json::to_string(&serde_json::json!({"a": "b\u{7f}\n"})).unwrap();
        assert_eq!(super::ascii(plain.clone()), plain);
    }
}
