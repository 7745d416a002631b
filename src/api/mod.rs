//! The wasm boundary: thin `#[wasm_bindgen]` exports that take strings and return JSON text.
//!
//! Every export takes only strings and returns a string, so no JS value ever enters Rust: a getter
//! or a Proxy cannot run code inside a Rust frame, and no JS exception can unwind through the
//! module (which would leave its stack pointer where the throw left it). `www/api.js` is the JS
//! API: it checks the arguments, reads an author's value once into plain data (`www/value.js`),
//! and parses what comes back. Errors cross as JS `Error`s, thrown by the glue after the call.

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
    serde_json::to_string(&value).map_err(|error| JsError::new(&error.to_string()))
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

/// Replays a run file's text in the loop figure: `Trace` as JSON. A file over a limit, or not a
/// run file, gives a trace that did not run with the coded error.
#[wasm_bindgen(js_name = traceRunJson)]
pub fn trace_run_json(text: &str, lang: &str) -> Result<String, JsError> {
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

/// A run file's text with one thing the host controls changed: its recording replayed with the
/// change, up to the first model call the recorded model never saw. `WhatIf` as JSON.
#[wasm_bindgen(js_name = whatIfRunJson)]
pub fn what_if_run_json(text: &str, change: &str, lang: &str) -> Result<String, JsError> {
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
