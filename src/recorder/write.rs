//! A speed shortcut: a recording's steps written as JSON by hand, byte for byte as serde_json writes them.
//!
//! Steps are most of a short trace's JSON (6.4 of validate/valid's 8.3 KB). Through serde, each key and
//! each string is escaped byte by byte and each field is a call through the serializer; here the keys
//! are constants and the strings are nearly all names the compiler gave, checked once and copied. The
//! text goes out as raw JSON (`write_raw`), as a stored value does. `Step` keeps its derived `Serialize`,
//! which the golden tests hold this text to (`golden_text` in tests/traces.rs). The bindings, scopes and
//! host views are written so too, for the same reason.

use serde::Serializer;

use super::parts::{each, number};
use super::trace::{kept, write_raw, Binding, Event, HostView, Step, NOT_UTF8};

/// `steps` as serde_json writes a `Vec<Step>` (compact).
pub(super) fn steps<S: Serializer>(steps: &[Step], serializer: S) -> Result<S::Ok, S::Error> {
    // About 140 bytes a step: sized so that the text is not copied as it grows.
    raw(160 * steps.len(), serializer, |out| each(out, steps, step))
}

/// `bindings` as serde_json writes a `Vec<Binding>`: each binding's four strings were a quarter of the
/// strings serde_json escaped in a short trace.
pub(super) fn bindings<S: Serializer>(bindings: &[Binding], s: S) -> Result<S::Ok, S::Error> {
    raw(40 * bindings.len(), s, |out| {
        each(out, bindings, |out, binding| {
            out.extend_from_slice(b"{\"name\":");
            string(out, binding.name);
            out.extend_from_slice(b",\"type\":");
            string(out, binding.ty);
            out.push(b'}');
        })
    })
}

/// `scopes` as serde_json writes a `Vec<Vec<u32>>`.
pub(super) fn scopes<S: Serializer>(scopes: &[Vec<u32>], s: S) -> Result<S::Ok, S::Error> {
    raw(32 * scopes.len(), s, |out| each(out, scopes, |out, scope| indices(out, scope)))
}

/// `hosts` as serde_json writes them as `KeptField`s (`kept_fields`).
pub(super) fn hosts<S: Serializer>(hosts: &[HostView], s: S) -> Result<S::Ok, S::Error> {
    let mut next = 0usize;
    raw(64 * hosts.len(), s, |out| {
        each(out, hosts, |out, view| {
            let before = next.checked_sub(1).map(|b| &hosts[b]);
            next += 1;
            let mut at = 0;
            each(out, view, |out, field| {
                out.extend_from_slice(b"{\"field\":");
                string(out, field.field);
                let kept = kept(before, at, field);
                at += 1;
                if kept > 0 {
                    out.extend_from_slice(b",\"kept\":");
                    number(out, kept as u64);
                }
                out.extend_from_slice(b",\"entries\":");
                indices(out, &field.entries[kept..]);
                out.extend_from_slice(b",\"changes\":");
                string(out, &field.changes);
                if !field.was.is_empty() {
                    out.extend_from_slice(b",\"was\":");
                    indices(out, &field.was);
                }
                out.push(b'}');
            })
        })
    })
}

/// The text `write` writes, of about `capacity` bytes, as raw JSON.
fn raw<S: Serializer>(
    capacity: usize,
    serializer: S,
    write: impl FnOnce(&mut Vec<u8>),
) -> Result<S::Ok, S::Error> {
    let mut out = Vec::with_capacity(capacity + 2);
    write(&mut out);
    write_raw(std::str::from_utf8(&out).unwrap_or(NOT_UTF8), serializer)
}

/// `[1,2]`.
fn indices(out: &mut Vec<u8>, list: &[u32]) {
    each(out, list, |out, &n| number(out, n.into()));
}

fn step(out: &mut Vec<u8>, step: &Step) {
    // Each a constant with the step's opening: one copy.
    let event: &[u8] = match step.event {
        Event::Call => b"{\"event\":\"call\"",
        Event::Line => b"{\"event\":\"line\"",
        Event::Return => b"{\"event\":\"return\"",
        Event::Error => b"{\"event\":\"error\"",
        Event::Truncated => b"{\"event\":\"truncated\"",
    };
    out.extend_from_slice(event);
    if let Some(value) = step.value {
        field(out, b",\"value\":", value);
    }
    if let Some(error) = &step.error {
        out.extend_from_slice(b",\"error\":");
        // Rare (one step of a failed call), and its message is the reader's language: serde_json's way.
        if serde_json::to_writer(&mut *out, error).is_err() {
            out.extend_from_slice(b"null");
        }
    }
    out.extend_from_slice(b",\"symbol\":");
    string(out, step.symbol);
    field(out, b",\"line\":", step.line);
    if let Some(caller) = step.caller {
        field(out, b",\"caller\":", caller);
    }
    field(out, b",\"scope\":", step.scope);
    out.extend_from_slice(b",\"values\":");
    each(out, &step.values, optional);
    out.extend_from_slice(b",\"changes\":");
    string(out, &step.changes);
    if !step.was.is_empty() {
        out.extend_from_slice(b",\"was\":");
        each(out, &step.was, optional);
    }
    field(out, b",\"host\":", step.host);
    if let Some(ran) = step.ran {
        field(out, b",\"ran\":", ran);
    }
    if step.output_lines != 0 {
        out.extend_from_slice(b",\"outputLines\":");
        number(out, step.output_lines as u64);
    }
    if !step.decisions.is_empty() {
        out.extend_from_slice(b",\"decisions\":");
        each(out, &step.decisions, |out, decision| string(out, decision));
    }
    out.push(b'}');
}

/// `,"key":n`, the key given with its comma, quotes and colon (one copy: each is a call in the module).
#[inline]
fn field(out: &mut Vec<u8>, key: &[u8], n: u32) {
    out.extend_from_slice(key);
    number(out, n.into());
}

/// An index, or `null`.
#[inline]
fn optional(out: &mut Vec<u8>, n: &Option<u32>) {
    match n {
        Some(n) => number(out, (*n).into()),
        None => out.extend_from_slice(b"null"),
    }
}

/// A JSON string. The names and marks a step holds need no escaping (serde_json escapes only control
/// characters, `"` and `\`), and are copied; any other text is written by serde_json.
fn string(out: &mut Vec<u8>, text: &str) {
    if text.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.push(b'"');
        out.extend_from_slice(text.as_bytes());
        out.push(b'"');
    } else if serde_json::to_writer(&mut *out, text).is_err() {
        out.extend_from_slice(b"null");
    }
}
