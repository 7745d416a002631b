//! The JS API: thin `#[wasm_bindgen]` wrappers that check and convert types (plain objects, camelCase keys).

use js_sys::JsString;
use wasm_bindgen::prelude::*;

pub mod input;
pub mod js_value;
pub(crate) mod messages;

use crate::api::input::{InputError, MAX_INPUT_BYTES};
use crate::api::messages::quoted;
use crate::host::figures::{self, ApiError, FIGURES};
use crate::host::{run, source};
use crate::lesson::Lang;
use crate::recorder::json::ToJson;
use serde_json::Value;

/// Every value crosses as JSON text that `JSON.parse` turns into plain JS objects. One string and
/// one native parse is far smaller and faster than building each object field by field from wasm.
fn to_js<T: ToJson + ?Sized>(value: &T) -> Result<JsValue, js_sys::Error> {
    let mut text = Vec::new();
    value.to_json(&mut text);
    parse(&text)
}

/// A trace for JS, or the error: one out-of-line copy for the functions that return one. It crosses
/// as `Trace::to_wire` writes it, JSON text and the steps' numbers, and `traceFrom` makes these into
/// the objects that parsing `Trace::to_json` would give, sooner: `JSON.parse` spent most of a short
/// trace's time on its steps.
#[inline(never)]
fn trace_js(trace: Result<run::Trace, ApiError>) -> Result<JsValue, js_sys::Error> {
    let (text, numbers) = trace?.to_wire();
    trace_from(sent(&text).as_deref().unwrap_or(&text), &numbers).map_err(JsCast::unchecked_into)
}

#[wasm_bindgen(inline_js = r#"
// A trace as Trace::to_wire writes it (run.rs; trace.rs, write_wire_steps): its text, decoded and parsed,
// and its steps' numbers, read where they lie in wasm memory. Each part is made into the objects the trace
// format describes, with the same keys in the same order, absent ones left out.
const decoder = new TextDecoder();
export function traceFrom(bytes, numbers) {
  const trace = JSON.parse(decoder.decode(bytes));
  const { values, bindings, names, marks, more } = trace;
  // A value listed in `parts` holds, in place of each element or field, the index of an earlier value:
  // each is made whole, in index order, so later values share the object (nothing on the page changes one).
  for (const i of trace.parts ?? []) {
    const value = values[i];
    if (Array.isArray(value)) for (let k = 0; k < value.length; k++) value[k] = values[value[k]];
    else for (const key in value) value[key] = values[value[key]];
  }
  for (let i = 0; i < bindings.length; i++) bindings[i] = { name: bindings[i][0], type: bindings[i][1] };
  for (const view of trace.hosts) {
    for (let i = 0; i < view.length; i++) {
      const row = view[i];
      const field = { field: row[0], entries: row[1], changes: row[2] };
      if (row.length > 3) field.was = row[3];
      view[i] = field;
    }
  }
  // Step after step: event, symbol, line, scope, host, ran, caller, how many values, the values; -1 is
  // absent. A step's `changes` are the next marks, one per value, and its rarer fields are in its row of
  // `more`: [step, value, error, was, outputLines, decisions]. Each step gets its keys in one order
  // whatever it holds, and a row's length is checked before it is read: without either, this took three
  // times as long in Chromium.
  const steps = trace.steps;
  let m = 0;
  let next = more.length > 0 ? more[0][0] : -1;
  for (let p = 0, q = 0; p < numbers.length; ) {
    let value = null, error = null, was = null, outputLines = 0, decisions = null;
    if (steps.length === next) {
      const row = more[m++];
      if (row.length > 1) value = row[1];
      if (row.length > 2) error = row[2];
      if (row.length > 3) was = row[3];
      if (row.length > 4) outputLines = row[4];
      if (row.length > 5) decisions = row[5];
      next = m < more.length ? more[m][0] : -1;
    }
    const n = numbers[p + 7];
    const stepValues = [];
    for (let k = p + 8; k < p + 8 + n; k++) stepValues.push(numbers[k] < 0 ? null : numbers[k]);
    const step = { event: names[numbers[p]] };
    if (value !== null) step.value = value;
    if (error !== null) step.error = error;
    step.symbol = names[numbers[p + 1]];
    step.line = numbers[p + 2];
    if (numbers[p + 6] >= 0) step.caller = numbers[p + 6];
    step.scope = numbers[p + 3];
    step.values = stepValues;
    step.changes = marks.slice(q, q + n);
    if (was !== null) step.was = was;
    step.host = numbers[p + 4];
    if (numbers[p + 5] >= 0) step.ran = numbers[p + 5];
    if (outputLines > 0) step.outputLines = outputLines;
    if (decisions !== null) step.decisions = decisions;
    steps.push(step);
    p += 8 + n;
    q += n;
  }
  delete trace.parts;
  delete trace.names;
  delete trace.marks;
  delete trace.more;
  return trace;
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = traceFrom, catch)]
    fn trace_from(bytes: &[u8], numbers: &[i32]) -> Result<JsValue, JsValue>;
}

#[wasm_bindgen]
extern "C" {
    /// The page's own UTF-8 decoder. Given the bytes, it makes the JS string without Rust checking
    /// them first as `&str` would (they are UTF-8 by construction): for a short Chinese trace that
    /// check cost more than the decoding.
    type TextDecoder;
    #[wasm_bindgen(constructor)]
    fn new() -> TextDecoder;
    #[wasm_bindgen(method)]
    fn decode(this: &TextDecoder, bytes: &[u8]) -> JsString;
    #[wasm_bindgen(js_namespace = JSON, js_name = parse, catch)]
    fn parse_json(text: &JsString) -> Result<JsValue, JsValue>;
}

thread_local! {
    static DECODER: TextDecoder = TextDecoder::new();
}

/// Text shorter than this crosses as UTF-8 without looking: looking for characters outside ASCII
/// cost a short trace 1-3%, more than escaping them could save (`recorder::ascii_json`).
const ASCII_FROM_BYTES: usize = 16 * 1024;

/// The part of [`to_js`] that is the same for every type, kept out of line: one copy, not one per type.
#[inline(never)]
fn parse(json: &[u8]) -> Result<JsValue, js_sys::Error> {
    let ascii = sent(json);
    let text = DECODER.with(|decoder| decoder.decode(ascii.as_deref().unwrap_or(json)));
    parse_json(&text).map_err(JsCast::unchecked_into)
}

/// The UTF-8 crosses as it is (`None`) unless the text is long and nearly all ASCII: then it crosses
/// with the rest escaped (`recorder::ascii_json`).
fn sent(json: &[u8]) -> Option<Vec<u8>> {
    (json.len() >= ASCII_FROM_BYTES).then(|| crate::recorder::ascii_json(json)).flatten()
}

impl From<ApiError> for js_sys::Error {
    fn from(error: ApiError) -> Self {
        js_sys::Error::new(&error.0)
    }
}

#[wasm_bindgen(start)]
pub fn start() {
    #[cfg(feature = "console_error_panic_hook")]
    console_error_panic_hook::set_once();
}

/// The figures, in the lesson's order.
#[wasm_bindgen(unchecked_return_type = "Figure[]")]
pub fn figures() -> Result<JsValue, js_sys::Error> {
    to_js(&FIGURES[..])
}

/// A figure's scenarios, labelled in `lang`; exactly one has `isDefault`.
#[wasm_bindgen(unchecked_return_type = "Scenario[]")]
pub fn scenarios(
    #[wasm_bindgen(js_name = figureId, unchecked_param_type = "string")] figure_id: &JsValue,
    #[wasm_bindgen(unchecked_param_type = "Lang")] lang: &JsValue,
) -> Result<JsValue, js_sys::Error> {
    let figure_id = string("figureId", figure_id)?;
    to_js(&figures::scenarios(&figure_id, language(lang)?)?)
}

/// The listing of a lesson function or call entry, cut from the compiled source file.
#[wasm_bindgen(unchecked_return_type = "Listing")]
pub fn source(
    #[wasm_bindgen(unchecked_param_type = "string")] symbol: &JsValue,
) -> Result<JsValue, js_sys::Error> {
    let symbol = string("symbol", symbol)?;
    let listing = source::source(&symbol).ok_or_else(|| {
        ApiError(format!("unknown symbol {}: no such lesson function or entry", quoted(&symbol)))
    })?;
    to_js(&listing)
}

/// Runs a figure's scenario and returns every step.
#[wasm_bindgen(unchecked_return_type = "Trace")]
pub fn trace(
    #[wasm_bindgen(js_name = figureId, unchecked_param_type = "string")] figure_id: &JsValue,
    #[wasm_bindgen(js_name = scenarioId, unchecked_param_type = "string")] scenario_id: &JsValue,
    #[wasm_bindgen(unchecked_param_type = "Lang")] lang: &JsValue,
) -> Result<JsValue, js_sys::Error> {
    let figure_id = string("figureId", figure_id)?;
    let scenario_id = string("scenarioId", scenario_id)?;
    trace_js(run::trace(&figure_id, &scenario_id, language(lang)?))
}

/// Runs a figure on the reader's own text (JSON or a Python literal), which replaces the part of the
/// data the figure `edits`. Text that does not parse, or is over a limit, gives a trace that did not
/// run (`ran: false`) whose result is the coded error; it never throws for that.
#[wasm_bindgen(js_name = "traceInput", unchecked_return_type = "Trace")]
pub fn trace_input(
    #[wasm_bindgen(js_name = figureId, unchecked_param_type = "string")] figure_id: &JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] text: &JsValue,
    #[wasm_bindgen(unchecked_param_type = "Lang")] lang: &JsValue,
) -> Result<JsValue, js_sys::Error> {
    let figure_id = string("figureId", figure_id)?;
    let Some(js_text) = text.dyn_ref::<JsString>() else {
        return Err(not_a_string("text", text));
    };
    let lang = language(lang)?;
    // Each UTF-16 unit is at least one byte of UTF-8, so a string with more units than the limit
    // allows bytes is too large: it is refused before it is copied into wasm memory.
    let units = js_text.length() as usize;
    if units > MAX_INPUT_BYTES {
        let error = InputError::TooLarge { bytes: units };
        return trace_js(run::refused_input(&figure_id, &error, lang));
    }
    trace_js(run::trace_input(&figure_id, &String::from(js_text), lang))
}

/// Ids, symbols and languages are cut to this many UTF-16 units before they are copied into wasm:
/// no valid one is nearly as long, and an error quotes only the first 40 characters anyway.
const MAX_NAME_UNITS: u32 = 256;

/// The text of the string argument `name`, at most [`MAX_NAME_UNITS`] long. The parameters are
/// `JsValue`s, checked here, because wasm-bindgen's own `&str` conversion trusts the caller: given
/// a number or an object it reads memory at a made-up address, traps, or leaks what it copied.
#[inline(never)]
fn string(name: &str, value: &JsValue) -> Result<String, js_sys::Error> {
    match value.dyn_ref::<JsString>() {
        Some(text) => Ok(text.slice(0, MAX_NAME_UNITS).as_string().unwrap_or_default()),
        None => Err(not_a_string(name, value)),
    }
}

/// "figureId must be a string, not number": names the value's type (as `typeof` does, but telling
/// null and arrays apart), never the value, which may be huge or have getters that run code.
#[inline(never)]
fn not_a_string(name: &str, value: &JsValue) -> js_sys::Error {
    let kind = if value.is_null() {
        "null".into()
    } else if value.is_array() {
        "array".into()
    } else {
        value.js_typeof().as_string().unwrap_or_default()
    };
    js_sys::Error::new(&format!("{name} must be a string, not {kind}"))
}

#[inline(never)]
fn language(lang: &JsValue) -> Result<Lang, js_sys::Error> {
    Ok(figures::parse_lang(&string("lang", lang)?)?)
}

/// Runs a figure on data given as a JS value (not text), which replaces the part of the data the
/// figure `edits`, as in `traceInput`. The value is checked against the same limits before it is
/// converted (`js_value::check`); refused data gives a trace that did not run whose result is the
/// coded error (`input_too_large`, `too_deep`, `not_json`); it never throws for that.
#[wasm_bindgen(js_name = "traceValue", unchecked_return_type = "Trace")]
pub fn trace_value(
    #[wasm_bindgen(js_name = figureId, unchecked_param_type = "string")] figure_id: &JsValue,
    #[wasm_bindgen(unchecked_param_type = "unknown")] value: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Lang")] lang: &JsValue,
) -> Result<JsValue, js_sys::Error> {
    let figure_id = string("figureId", figure_id)?;
    let lang = language(lang)?;
    let given = js_value::check(&value).map_err(|error| error.info(lang)).and_then(|()| {
        // A getter can answer differently the second time; whatever does not convert is refused alike.
        serde_wasm_bindgen::from_value::<Value>(value).map_err(|_| {
            let what = js_value::NotData::Changed;
            js_value::ValueError::NotData { path: String::new(), what }.info(lang)
        })
    });
    trace_js(run::trace_value(&figure_id, given, lang))
}
