//! The JS API: thin `#[wasm_bindgen]` wrappers that only convert types (plain objects, camelCase keys).

use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::figures::{self, ApiError, FIGURES};
use crate::{js_value, run, source};

/// Every value crosses as JSON text that `JSON.parse` turns into plain JS objects. One string and
/// one native parse is far smaller and faster than building each object field by field from wasm.
fn to_js<T: Serialize>(value: &T) -> Result<JsValue, js_sys::Error> {
    let text =
        serde_json::to_string(value).map_err(|error| js_sys::Error::new(&error.to_string()))?;
    js_sys::JSON::parse(&text).map_err(JsCast::unchecked_into)
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
    to_js(&FIGURES)
}

/// A figure's scenarios, labelled in `lang`; exactly one has `isDefault`.
#[wasm_bindgen(unchecked_return_type = "Scenario[]")]
pub fn scenarios(
    #[wasm_bindgen(js_name = figureId)] figure_id: &str,
    #[wasm_bindgen(unchecked_param_type = "Lang")] lang: &str,
) -> Result<JsValue, js_sys::Error> {
    to_js(&figures::scenarios(figure_id, figures::parse_lang(lang)?)?)
}

/// The listing of a lesson function or call entry, cut from the compiled source file.
#[wasm_bindgen(unchecked_return_type = "Listing")]
pub fn source(symbol: &str) -> Result<JsValue, js_sys::Error> {
    let listing = source::source(symbol).ok_or_else(|| {
        ApiError(format!("unknown symbol \"{symbol}\": no such lesson function or entry"))
    })?;
    to_js(&listing)
}

/// Runs a figure's scenario and returns every step.
#[wasm_bindgen(unchecked_return_type = "Trace")]
pub fn trace(
    #[wasm_bindgen(js_name = figureId)] figure_id: &str,
    #[wasm_bindgen(js_name = scenarioId)] scenario_id: &str,
    #[wasm_bindgen(unchecked_param_type = "Lang")] lang: &str,
) -> Result<JsValue, js_sys::Error> {
    to_js(&run::trace(figure_id, scenario_id, figures::parse_lang(lang)?)?)
}

/// Runs a figure on the reader's own text (JSON or a Python literal), which replaces the part of the
/// data the figure `edits`. Text that does not parse, or is over a limit, gives a trace that did not
/// run (`ran: false`) whose result is the coded error; it never throws for that.
#[wasm_bindgen(js_name = "traceInput", unchecked_return_type = "Trace")]
pub fn trace_input(
    #[wasm_bindgen(js_name = figureId)] figure_id: &str,
    text: &str,
    #[wasm_bindgen(unchecked_param_type = "Lang")] lang: &str,
) -> Result<JsValue, js_sys::Error> {
    to_js(&run::trace_input(figure_id, text, figures::parse_lang(lang)?)?)
}

/// Runs a figure on data given as a JS value (not text), which replaces the part of the data the
/// figure `edits`, as in `traceInput`. The value is checked against the same limits before it is
/// converted (`js_value::check`); refused data gives a trace that did not run whose result is the
/// coded error (`input_too_large`, `too_deep`, `not_json`); it never throws for that.
#[wasm_bindgen(js_name = "traceValue", unchecked_return_type = "Trace")]
pub fn trace_value(
    #[wasm_bindgen(js_name = figureId)] figure_id: &str,
    #[wasm_bindgen(unchecked_param_type = "unknown")] value: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Lang")] lang: &str,
) -> Result<JsValue, js_sys::Error> {
    let lang = figures::parse_lang(lang)?;
    let given = js_value::check(&value).map_err(|error| error.info(lang)).and_then(|()| {
        // A getter can answer differently the second time; whatever does not convert is refused alike.
        serde_wasm_bindgen::from_value::<js_value::Data>(value).map(|data| data.0).map_err(|_| {
            let what = js_value::NotData::Changed;
            js_value::ValueError::NotData { path: String::new(), what }.info(lang)
        })
    });
    to_js(&run::trace_value(figure_id, given, lang)?)
}
