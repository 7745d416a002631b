//! A trace as data: the steps, the tables they index into, and how the page reads them (`Recording`).

use serde::ser::{SerializeStruct, Serializer};
use serde::Serialize;
use std::sync::Mutex;
use tsify::Tsify;

use super::parts::index_at;
use super::probe::Snapshot;
use super::read::{element_index, field_text, plain};

/// A value as JSON text, kept as the bytes serde_json wrote: it is never written a second time
/// to be stored, and the page's trace copies it as it is. (serde_json's own `RawValue` can only be
/// made from text by its parser, which would have to come into the module.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Json(pub(super) Box<[u8]>);

impl Json {
    /// The JSON text. It is UTF-8 as serde_json writes it; it is checked here, where Rust code reads
    /// it as text, rather than on every value a trace stores.
    pub fn get(&self) -> &str {
        std::str::from_utf8(&self.0).unwrap_or(NOT_UTF8)
    }

    /// The JSON text as bytes, for writing it out.
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }

    /// The JSON text of `value`.
    pub fn of<T: Snapshot + ?Sized>(value: &T) -> Json {
        let mut text = Vec::new();
        value.write_json(&mut text);
        Json(text.into())
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        write_raw(self.get(), serializer)
    }
}

/// JSON text written as it is, not as a string. serde_json writes a struct of this name raw: that
/// is how its own `RawValue` serializes (`serde_json::raw::TOKEN`, with the `raw_value` feature).
pub(super) fn write_raw<S: Serializer>(text: &str, serializer: S) -> Result<S::Ok, S::Error> {
    const RAW: &str = "$serde_json::private::RawValue";
    let mut raw = serializer.serialize_struct(RAW, 1)?;
    raw.serialize_field(RAW, text)?;
    raw.end()
}

/// What [`Json::get`] shows for text that is not UTF-8 (a bug: serde_json writes none).
pub(super) const NOT_UTF8: &str = "\"<not UTF-8>\"";

/// At most this many steps are kept; the next one becomes a final `truncated` step.
pub const MAX_STEPS: usize = 10_000;

/// One pause of the debugger: where execution is and what it can see.
#[derive(Serialize, Clone, Debug, PartialEq, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    pub event: Event,
    /// For `return`: the value returned, an index into [`Recording::values`].
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub value: Option<u32>,
    /// For `error`: the error returned.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub error: Option<ErrorInfo>,
    /// The function this step is in.
    pub symbol: &'static str,
    /// The line about to run, or for `return` and `error` the last one run.
    pub line: u32,
    /// The caller's latest step (at its line of the call, with the caller's locals); absent in
    /// the outermost call. Following `caller` from step to step gives the active calls.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub caller: Option<u32>,
    /// The current call's locals: an index into [`Recording::scopes`].
    pub scope: u32,
    /// One per local of the scope: an index into [`Recording::values`], or `None` once moved away.
    pub values: Vec<Option<u32>>,
    /// One mark per local against the same call's previous step (all `.` at a call's first step):
    /// `.` unchanged, `+` new, `~` changed, `m` moved away here.
    pub changes: String,
    /// One per `~` in `changes`, in order: the value that local had at the call's previous step
    /// (`None` if it had been moved away), so the page can show which part of it changed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[tsify(optional)]
    pub was: Vec<Option<u32>>,
    /// The host's data: an index into [`Recording::hosts`].
    pub host: u32,
    /// The line this call ran just before this step; absent at a call's first step.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub ran: Option<u32>,
    /// How many lines of the output had been printed before this step; absent when none.
    #[serde(skip_serializing_if = "is_zero")]
    #[tsify(optional)]
    pub output_lines: usize,
    /// What the host decided since the previous step (the loop figure's event breakpoints);
    /// absent when nothing.
    /// Each is one of the host's own names (the loop's are `lesson::agent_types::HostEvent`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[tsify(optional, type = "HostEvent[]")]
    pub decisions: Vec<&'static str>,
}

/// The request of one model call, as value indices: the prepared messages the model received,
/// the stored history they were prepared from, and the tool definitions.
#[derive(Serialize, Clone, Debug, PartialEq, Tsify)]
pub struct ModelRequest {
    /// The step the call is made from (the latest step recorded when the request was noted): from
    /// there until `step` the call is about to be made.
    pub at: u32,
    /// The first step recorded after the call: the reply is not stored yet, so this step's
    /// history is the one the request was prepared from.
    pub step: u32,
    /// The tool definitions (one value, the same for every call of a run).
    pub tools: u32,
    /// The prepared messages, one value each.
    pub messages: Vec<u32>,
    /// The stored history at that moment, one value each.
    pub history: Vec<u32>,
    /// The positions where a prepared message is not the stored one (the first, carrying the plan).
    pub differs: Vec<u32>,
}

pub(super) fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One active call at a step, as [`Recording::frames`] (and the page's `callStack`) follow it
/// from [`Step::caller`].
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq, Tsify)]
pub struct FrameAt {
    pub symbol: &'static str,
    pub line: u32,
    /// The index of this call's latest step: the step itself for the current call, and for a
    /// caller the step at its line of the call, whose locals are the caller's.
    pub step: u32,
}

/// What kind of pause a step is.
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq, Tsify)]
#[serde(rename_all = "lowercase")]
pub enum Event {
    /// The first statement of a function, about to run.
    Call,
    /// Any later statement, about to run.
    Line,
    /// The function has returned the step's `value`; its line is the last it ran.
    Return,
    /// The function has returned the step's `error`; its line is the last it ran.
    Error,
    /// The step limit was reached; nothing after this was recorded.
    Truncated,
}

/// An error as the page shows it: a stable code and a message in the trace's language.
#[derive(Serialize, Clone, Debug, PartialEq, Tsify)]
pub struct ErrorInfo {
    pub code: &'static str,
    pub message: String,
    /// For input that failed to parse: where, 1-based.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub column: Option<u32>,
}

/// A local binding as the locals pane names it.
#[derive(Serialize, Clone, Debug, PartialEq, Eq, Hash, Tsify)]
pub struct Binding {
    pub name: &'static str,
    #[serde(rename = "type")]
    pub ty: &'static str,
}

/// One host field at a step: its entries (indices into `values`), and a mark per entry against
/// the previous step: `.` same, `+` new, `~` changed, `-` removed (removed entries come last).
#[derive(Serialize, Clone, Debug, PartialEq, Eq, Hash, Tsify)]
pub struct HostField {
    pub field: &'static str,
    pub entries: Vec<u32>,
    pub changes: String,
    /// One per `~` in `changes`, in order: the entry's value at the previous step.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[tsify(optional)]
    pub was: Vec<u32>,
}

/// The host's data at a step, one entry per field in the figure's order.
pub type HostView = Vec<HostField>;

/// A [`HostField`] as the trace's JSON holds it (`write::hosts` writes these by hand, byte for byte
/// as serde_json writes this type). A stored history only grows, so each view of a long run would list
/// the whole of it again (quadratic in the model calls: 221 KB of the 100-call run's JSON): when a
/// field's first entries are those of the same field in the view before it in `hosts`, `kept` says
/// how many (at least [`KEPT_FROM`]) and `entries` holds only the rest. `www/api.js` puts them back,
/// so a trace in JS has whole `HostField`s.
#[derive(Serialize, Clone, Debug, PartialEq, Eq, Tsify)]
pub struct KeptField {
    pub field: &'static str,
    #[serde(skip_serializing_if = "is_zero")]
    #[tsify(optional)]
    pub kept: usize,
    pub entries: Vec<u32>,
    pub changes: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[tsify(optional)]
    pub was: Vec<u32>,
}

/// Fewer entries in common are written out: `"kept":N,` would save too little, or cost more.
pub const KEPT_FROM: usize = 8;

/// How many of `field`'s first entries are those of the same field in `before` (the view before it
/// in `hosts`), when they are at least [`KEPT_FROM`]; else 0.
pub fn kept(before: Option<&HostView>, at: usize, field: &HostField) -> usize {
    let old = before.and_then(|view| view.get(at)).filter(|old| old.field == field.field);
    old.map_or(0, |old| in_common(&old.entries, &field.entries))
}

/// How many of `new`'s first entries are `old`'s, when they are at least [`KEPT_FROM`]; else 0.
pub(super) fn in_common(old: &[u32], new: &[u32]) -> usize {
    let same = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    if same >= KEPT_FROM {
        same
    } else {
        0
    }
}

/// `hosts` as the trace's JSON holds them (see [`KeptField`]).
pub fn kept_fields(hosts: &[HostView]) -> Vec<Vec<KeptField>> {
    let before = std::iter::once(None).chain(hosts.iter().map(Some));
    hosts
        .iter()
        .zip(before)
        .map(|(view, before)| {
            let fields = view.iter().enumerate().map(|(at, field)| {
                let kept = kept(before, at, field);
                KeptField {
                    field: field.field,
                    kept,
                    entries: field.entries[kept..].to_vec(),
                    changes: field.changes.clone(),
                    was: field.was.clone(),
                }
            });
            fields.collect()
        })
        .collect()
}

/// A [`ModelRequest`] as the trace's JSON holds it. A request's history is the one before it plus a
/// reply and its results, and its messages are that history but at `differs`: written whole, the
/// requests were 88 KB of the 100-call run's JSON (quadratic in the calls). So, as in a
/// [`KeptField`], `kept` says how many of the history's first entries are the request before's (at
/// least [`KEPT_FROM`]) and `history` holds the rest; and messages as many as the history are
/// written as `changed`, the message at each position of `differs`, in place of `messages`.
/// `www/api.js` makes them whole, so a trace in JS has whole `ModelRequest`s.
#[derive(Serialize, Clone, Debug, PartialEq, Eq, Tsify)]
pub struct KeptRequest {
    pub at: u32,
    pub step: u32,
    pub tools: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub messages: Option<Vec<u32>>,
    #[serde(skip_serializing_if = "is_zero")]
    #[tsify(optional)]
    pub kept: usize,
    pub history: Vec<u32>,
    pub differs: Vec<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub changed: Option<Vec<u32>>,
}

/// `requests` as the trace's JSON holds them (see [`KeptRequest`]).
pub fn kept_requests(requests: &[ModelRequest]) -> Vec<KeptRequest> {
    let before = std::iter::once(None).chain(requests.iter().map(Some));
    let written = |(request, before): (&ModelRequest, Option<&ModelRequest>)| {
        let kept = before.map_or(0, |before| in_common(&before.history, &request.history));
        let changed: Option<Vec<u32>> =
            request.differs.iter().map(|&at| request.messages.get(at as usize).copied()).collect();
        let changed = changed.filter(|_| request.messages.len() == request.history.len());
        let by_differs = changed.is_some();
        KeptRequest {
            at: request.at,
            step: request.step,
            tools: request.tools,
            messages: (!by_differs).then(|| request.messages.clone()),
            kept,
            history: request.history[kept..].to_vec(),
            differs: request.differs.clone(),
            changed,
        }
    };
    requests.iter().zip(before).map(written).collect()
}

fn write_requests<S: Serializer>(requests: &[ModelRequest], s: S) -> Result<S::Ok, S::Error> {
    kept_requests(requests).serialize(s)
}

/// A list value written as only its entries after the first `kept` of list `base`'s (see
/// [`Recording::grown`]).
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq, Tsify)]
pub struct Grown {
    pub value: u32,
    pub base: u32,
    pub kept: u32,
}

/// Everything one recording collects. Steps refer to the four tables by index.
#[derive(Serialize, Debug, Default, Tsify)]
pub struct Recording {
    /// Every distinct value, once, as JSON.
    #[tsify(type = "unknown[]")]
    pub values: Vec<Json>,
    /// The values written by their parts, in increasing order: each element of such a list, or each
    /// field's value of such an object, is written as the index of another value (see `split`).
    /// Absent when none is.
    /// `www/api.js` makes these values whole, so a trace in JS never has this field.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[tsify(optional, type = "never")]
    pub parts: Vec<u32>,
    /// The lists stored by their parts that are written as only their entries after the first
    /// `kept` of an earlier such list's, `base` (see `Tables::grow_lists`), in increasing order of
    /// `value`. Absent when none is. `www/api.js` makes these values whole too.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[tsify(optional, type = "never")]
    pub grown: Vec<Grown>,
    /// Written by hand, as `steps`, `scopes` and `hosts` are (`write.rs`), as serde_json would write them.
    #[serde(serialize_with = "super::write::bindings")]
    pub bindings: Vec<Binding>,
    /// Each a list of bindings (indices into `bindings`) in declaration order.
    #[serde(serialize_with = "super::write::scopes")]
    pub scopes: Vec<Vec<u32>>,
    /// Written as [`KeptField`]s, which `www/api.js` makes whole.
    #[serde(serialize_with = "super::write::hosts")]
    #[tsify(type = "HostField[][]")]
    pub hosts: Vec<HostView>,
    #[serde(serialize_with = "super::write::steps")]
    pub steps: Vec<Step>,
    pub output: Vec<String>,
    /// Every model call's request, in order (the loop figure only; absent elsewhere). Written as
    /// [`KeptRequest`]s, which `www/api.js` makes whole.
    #[serde(skip_serializing_if = "Vec::is_empty", serialize_with = "write_requests")]
    #[tsify(optional, type = "ModelRequest[]")]
    pub requests: Vec<ModelRequest>,
    /// The host after the call, marked against the host before it (an index into `hosts`): what
    /// the whole call did to it. Absent when nothing was recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    pub effect: Option<u32>,
}

/// A local at a step, resolved from the tables (for Rust callers; JS does the same in a line).
#[derive(Debug, Clone)]
pub struct LocalAt {
    pub name: &'static str,
    pub ty: &'static str,
    /// `None` once moved away.
    pub value: Option<Json>,
    pub change: char,
}

impl Recording {
    /// The active calls at step `index`, outermost first: the step itself last, each caller at
    /// its line of the call.
    pub fn frames(&self, index: u32) -> Vec<FrameAt> {
        let mut frames = Vec::new();
        let mut at = Some(index);
        while let Some(step) = at {
            let Step { symbol, line, caller, .. } = self.steps[step as usize];
            frames.push(FrameAt { symbol, line, step });
            at = caller;
        }
        frames.reverse();
        frames
    }

    /// A value's whole JSON text, with the parts of a value written by its parts put back in.
    pub fn value(&self, index: u32) -> Json {
        let mut text = Vec::new();
        plain(self, index, &mut text);
        Json(text.into())
    }

    /// One field of the object value at `index`, whole; `None` if it is not an object or has no such
    /// field. The rest of the object is not put together (the loop's outcome is mostly its history),
    /// nor read as JSON (a tool's result block is mostly a file's text).
    pub fn field(&self, index: u32, name: &str) -> Option<Json> {
        let text = field_text(self.values[index as usize].bytes(), name)?;
        // Stored by its parts, the object holds the field's index in place of its text.
        Some(match self.parts.binary_search(&index) {
            Ok(_) => self.value(index_at(text)),
            Err(_) => Json(text.into()),
        })
    }

    /// Element `at` of the list (or tuple) value at `index`, as the index of its value, when that list
    /// is stored by its parts: nothing is put together. `None` otherwise.
    pub fn element(&self, index: u32, at: usize) -> Option<u32> {
        element_index(self, index, at)
    }

    /// The current call's locals at `step`.
    pub fn locals(&self, step: &Step) -> Vec<LocalAt> {
        let scope = &self.scopes[step.scope as usize];
        let marks = step.changes.chars();
        scope
            .iter()
            .zip(&step.values)
            .zip(marks)
            .map(|((&binding, value), change)| {
                let Binding { name, ty } = self.bindings[binding as usize];
                LocalAt { name, ty, value: value.map(|i| self.value(i)), change }
            })
            .collect()
    }

    /// A host field's current entries at `step` (removed ones left out).
    pub fn host_entries(&self, step: &Step, field: &str) -> Vec<Json> {
        let view = &self.hosts[step.host as usize];
        let Some(field) = view.iter().find(|f| f.field == field) else { return Vec::new() };
        let marks = field.changes.chars();
        field
            .entries
            .iter()
            .zip(marks)
            .filter(|(_, c)| *c != '-')
            .map(|(&i, _)| self.value(i))
            .collect()
    }
}

/// A Rust type as a reader wrote it, worked out once per type: a trace asks for the same dozen
/// types hundreds of times. The labels are kept for the life of the module in a static table
/// (a few hundred bytes), so they cost no allocation per step and are never freed while in use.
pub(super) fn type_label(full: &'static str) -> &'static str {
    static LABELS: Mutex<Vec<(&'static str, &'static str)>> = Mutex::new(Vec::new());
    let mut labels = LABELS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    // A type's name is nearly always the very text seen before: looked for by address first.
    let found = labels.iter().find(|(name, _)| std::ptr::eq(*name, full));
    if let Some(&(_, label)) = found.or_else(|| labels.iter().find(|(name, _)| *name == full)) {
        return label;
    }
    let label: &'static str = Box::leak(short_type_name(full).into_boxed_str());
    labels.push((full, label));
    label
}

/// `alloc::vec::Vec<serde_json::value::Value>` -> `Vec<Value>`: each path keeps its last segment.
pub(super) fn short_type_name(full: &str) -> String {
    let mut out = String::with_capacity(full.len());
    let mut rest = full;
    while !rest.is_empty() {
        let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'));
        // Checked, and split at `:` rather than `::` (the same last segment): neither brings a
        // panic that formats the text, or core's two-way string searcher, into the module.
        let (path, tail) = rest.split_at_checked(end.unwrap_or(rest.len())).unwrap_or((rest, ""));
        out.push_str(path.rsplit(':').next().unwrap_or(path));
        let mut chars = tail.chars();
        out.extend(chars.next());
        rest = chars.as_str();
    }
    out
}

/// Each field of `now`, its entries marked against `before`; removed entries are appended.
pub(super) fn mark_host(
    before: &[(&'static str, Vec<u32>)],
    now: &[(&'static str, Vec<u32>)],
) -> HostView {
    now.iter()
        .map(|(field, entries)| {
            let old: &[u32] = before.iter().find(|(f, _)| f == field).map_or(&[], |(_, e)| e);
            let mut was = Vec::new();
            let mut changes: String = entries
                .iter()
                .enumerate()
                .map(|(i, entry)| match old.get(i) {
                    None => '+',
                    Some(&before) if before != *entry => {
                        was.push(before);
                        '~'
                    }
                    Some(_) => '.',
                })
                .collect();
            let mut entries = entries.clone();
            for &gone in old.iter().skip(entries.len()) {
                entries.push(gone);
                changes.push('-');
            }
            HostField { field, entries, changes, was }
        })
        .collect()
}
