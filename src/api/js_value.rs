//! Why `www/value.js` refused an author's JS value (or `www/api.js` a reader's text) before it crossed.
//!
//! A JS value is read once, in JS, into plain data, and only then crosses as JSON text; a getter or
//! Proxy never runs inside a Rust frame. What was refused crosses as one of these, and the module
//! words the coded error in the page's language (`messages.rs`) and makes the trace that did not run.

use serde::Deserialize;
use tsify::Tsify;

use crate::host::figures::{ApiError, FigureId};
use crate::host::run::{self, Trace};
use crate::host::runs::RunError;
use crate::lesson::Lang;
use crate::recorder::ErrorInfo;

/// Why a value or a text was refused before it crossed.
#[derive(Deserialize, Tsify, Clone, Debug, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "camelCase", deny_unknown_fields)]
pub enum ValueError {
    /// Reader text longer in UTF-16 units than the size limit allows bytes (each unit is at least
    /// one byte of UTF-8): refused without copying it into the module.
    TextTooLarge { units: usize },
    /// The value is over `MAX_INPUT_BYTES` as JSON; `bytes` is what was counted when reading stopped.
    TooLarge { bytes: usize },
    /// The list or object at `path` would be nested deeper than `MAX_DEPTH`.
    TooDeep { path: String },
    /// What is at `path` is not JSON data.
    NotData { path: String, what: NotData },
}

/// The kinds of JS values that JSON does not hold.
#[derive(Deserialize, Tsify, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub enum NotData {
    Function,
    Symbol,
    BigInt,
    Undefined,
    NotFinite,
    NotPlain,
    ProtoKey,
    Cycle,
    /// A property whose getter (or a Proxy's trap) threw while it was read.
    Unreadable,
    /// A string (or a key) with a lone UTF-16 surrogate, which no UTF-8 text can hold.
    LoneSurrogate,
}

/// The trace that did not run for a refusal given as JSON text (for the loop figure, a run file
/// refused before it crossed: `www/api.js` reads no file over the size limit). A refusal that is not one of the
/// above is an API error (a bug in the page, not the author's data).
pub fn refused(figure_id: &str, refusal: &str, lang: Lang) -> Result<Trace, ApiError> {
    let error: ValueError = serde_json::from_str(refusal)
        .map_err(|error| ApiError(format!("not a refusal: {error}")))?;
    // A run file over the size limit is refused as any run file is (`run_too_large`).
    let info = match error {
        ValueError::TextTooLarge { .. } | ValueError::TooLarge { .. }
            if figure_id == FigureId::Loop.name() =>
        {
            let run = RunError::TooLarge;
            ErrorInfo { code: run.code(), message: run.message(lang), line: None, column: None }
        }
        _ => error.info(lang),
    };
    run::refused_trace(figure_id, info, lang)
}
