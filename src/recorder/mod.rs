//! The step recorder: what `#[traced]` probes write to while one figure runs.
//!
//! Recording is per thread and off unless [`record`] is running, so the lesson functions behave
//! as plain functions everywhere else (the probes only check a flag).
//!
//! A trace stores each distinct value once, in `values`, and a step refers to values by index:
//! a step that changes nothing about a local costs an index, not a copy. A probe serializes a
//! binding again only when the statement just run (or a loop's header) mentions it, so the cost of
//! a step does not grow with the size of the data. Everything the page shows about a step (its
//! frames, the line its call ran before, which locals and host entries changed) is decided here.

use serde::ser::{SerializeStruct, Serializer};
use serde::Serialize;
use std::cell::RefCell;
use std::ops::Range;
use std::sync::Mutex;
use tsify::Tsify;

use crate::lesson::{Lang, TodoError};

/// A value as JSON text, kept as the bytes serde_json wrote: it is never written a second time
/// to be stored, and the page's trace copies it as it is. (serde_json's own `RawValue` can only be
/// made from text by its parser, which would have to come into the module.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Json(Box<[u8]>);

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
    pub fn of<T: Serialize + ?Sized>(value: &T) -> Json {
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
fn write_raw<S: Serializer>(text: &str, serializer: S) -> Result<S::Ok, S::Error> {
    const RAW: &str = "$serde_json::private::RawValue";
    let mut raw = serializer.serialize_struct(RAW, 1)?;
    raw.serialize_field(RAW, text)?;
    raw.end()
}

/// What [`Json::get`] shows for text that is not UTF-8 (a bug: `ToJson` writes none).
const NOT_UTF8: &str = "\"<not UTF-8>\"";

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
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[tsify(optional)]
    pub decisions: Vec<HostEvent>,
}

/// Something the host decided while the loop ran: what a reader can pause on besides a line.
/// Recorded by the host's code (the approval, a tool call's result, the reminder, the stop),
/// never by the listed functions, and attached to the next step recorded.
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq, Tsify)]
#[serde(rename_all = "kebab-case")]
pub enum HostEvent {
    /// A `todo_write` was accepted: the host's plan is the new one.
    PlanWritten,
    /// A `todo_write` was refused: the plan is unchanged.
    PlanRefused,
    /// The host asked the user for approval.
    Ask,
    /// A call was refused or blocked (a run declined or under maintenance, a path outside the
    /// workspace, an unknown tool).
    Refused,
    /// The reminder block was appended to a round's results.
    Reminder,
    /// The loop stopped because `max_calls` model calls were made.
    CallLimit,
    /// The loop stopped because the model replied without a tool call.
    Answered,
}

/// The request of one model call, as value indices: the prepared messages the model received,
/// the stored history they were prepared from, and the tool definitions.
#[derive(Serialize, Clone, Debug, PartialEq, Tsify)]
pub struct ModelRequest {
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

fn is_zero(n: &usize) -> bool {
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

/// How a call ended, for its last step.
enum Ending {
    Value(u32),
    Failed(ErrorInfo),
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

/// Everything one recording collects. Steps refer to the four tables by index.
#[derive(Serialize, Debug, Default, Tsify)]
pub struct Recording {
    /// Every distinct value, once, as JSON.
    #[tsify(type = "unknown[]")]
    pub values: Vec<Json>,
    /// The values written by their parts, in increasing order: each element of such a list, or each
    /// field's value of such an object, is written as the index of another value (see `split`).
    /// Absent when none is.
    /// The module's `traceFrom` makes these values whole, so a trace in JS never has this field.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[tsify(optional, type = "never")]
    pub parts: Vec<u32>,
    pub bindings: Vec<Binding>,
    /// Each a list of bindings (indices into `bindings`) in declaration order.
    pub scopes: Vec<Vec<u32>>,
    #[tsify(type = "HostField[][]")]
    pub hosts: Vec<HostView>,
    pub steps: Vec<Step>,
    pub output: Vec<String>,
    /// Every model call's request, in order (the loop figure only; absent elsewhere).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[tsify(optional)]
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
        plain(&self.values, &self.parts, index, &mut text);
        Json(text.into())
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
fn type_label(full: &'static str) -> &'static str {
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
fn short_type_name(full: &str) -> String {
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

/// `[a,b]`, each entry written by `write`.
fn each<T>(out: &mut Vec<u8>, entries: &[T], mut write: impl FnMut(&mut Vec<u8>, &T)) {
    out.push(b'[');
    for (i, entry) in entries.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write(out, entry);
    }
    out.push(b']');
}

/// A value index as JSON.
fn number(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// A binding as a probe hands it over, whatever its type. Probes pass `&dyn Snapshot` and `step`
/// makes the locals, rather than each probe building them: one call per probe instead of one per
/// binding keeps the instrumented functions small, and nothing is copied while no one records.
pub trait Snapshot {
    /// The value's JSON text, appended to `out`.
    fn write_json(&self, out: &mut Vec<u8>);
    /// The type's full name (`std::any::type_name`); `type_label` makes it the type as a reader wrote it.
    fn type_name(&self) -> &'static str;
    /// A model request (`agent_types::Request`) hands `visit` its tools and its messages, and says
    /// so: the recorder stores it from them (`Tables::request`). The tools are the same at each
    /// call and the messages mostly the stored history's; writing the whole request only to find
    /// these parts in its text again made its step the costliest of a loop trace.
    fn request_parts(&self, _visit: &mut dyn FnMut(&dyn Snapshot, &dyn HostList)) -> bool {
        false
    }
}

impl<T: Serialize + ?Sized> Snapshot for T {
    fn write_json(&self, out: &mut Vec<u8>) {
        let start = out.len();
        // Writing to a Vec cannot fail; a type whose Serialize refuses itself shows as null.
        if serde_json::to_writer(&mut *out, self).is_err() {
            out.truncate(start);
            out.extend_from_slice(b"null");
        }
    }

    fn type_name(&self) -> &'static str {
        std::any::type_name::<T>()
    }
}

/// A host-owned list (the plan, the history) as a probe hands it over: entry by entry, so that
/// an entry that did not change is the same value as before.
pub trait HostList {
    /// Visits the entries from the `from`th on.
    fn each(&self, from: usize, visit: &mut dyn FnMut(&dyn Snapshot));
    /// The list's type as a reader wrote it, as `type_label` gives it.
    fn type_label(&self) -> &'static str;
    /// Where its entries lie, how many there are, and their type: two lists with the same span hold
    /// the very same entries (see `settled`).
    fn span(&self) -> Span;
}

/// See [`HostList::span`].
type Span = (usize, usize, &'static str);

fn span_of<T>(entries: &[T]) -> Span {
    (entries.as_ptr() as usize, entries.len(), std::any::type_name::<T>())
}

impl<T: Serialize> HostList for Vec<T> {
    fn each(&self, from: usize, visit: &mut dyn FnMut(&dyn Snapshot)) {
        self.iter().skip(from).for_each(|entry| visit(entry));
    }

    fn type_label(&self) -> &'static str {
        type_label(std::any::type_name::<Self>())
    }

    fn span(&self) -> Span {
        span_of(self)
    }
}

impl<T: Serialize> HostList for [T] {
    fn each(&self, from: usize, visit: &mut dyn FnMut(&dyn Snapshot)) {
        self.iter().skip(from).for_each(|entry| visit(entry));
    }

    fn type_label(&self) -> &'static str {
        type_label(std::any::type_name::<Self>())
    }

    fn span(&self) -> Span {
        span_of(self)
    }
}

/// A host list read through a shared reference (`#[traced(host(messages = messages))]` where
/// `messages: &[Message]`): the local is this reference, so `same_list` finds it.
impl<T: Serialize> HostList for &[T] {
    fn each(&self, from: usize, visit: &mut dyn FnMut(&dyn Snapshot)) {
        (**self).each(from, visit);
    }

    fn type_label(&self) -> &'static str {
        type_label(std::any::type_name::<Self>())
    }

    fn span(&self) -> Span {
        span_of(self)
    }
}

/// Whether a local is the very list a host field reads (the same object of the same type): then its JSON is
/// the field's entries joined, and need not be written again.
fn same_list(local: &dyn Snapshot, list: &dyn HostList) -> bool {
    std::ptr::addr_eq(local as *const dyn Snapshot, list as *const dyn HostList)
        && type_label(local.type_name()) == list.type_label()
}

/// What `#[traced]` knows about one probe at compile time.
pub struct Probe {
    pub line: u32,
    /// The bindings in scope, in declaration order.
    pub names: &'static [&'static str],
    /// The bindings this probe's statement mentions: after it runs, only these may have changed.
    pub mentions: &'static [&'static str],
    /// Bindings that may have changed since the call's previous step other than by that step's
    /// statement (a loop header run again, a jump out of a nested block).
    pub fresh: &'static [&'static str],
    /// Until the call's next step, nothing of the call runs but this probe's statement (it holds no
    /// block and no jump, and no loop's header runs after it): a binding it does not mention keeps
    /// the value this step gives it, whatever runs meanwhile (see [`request`]).
    pub alone: bool,
    /// The host fields the function can reach here (`#[traced(host(items = state.items))]`): each
    /// field's name and the binding it is reached through. `step` is handed the lists, in this order.
    pub host: &'static [(&'static str, &'static str)],
    /// What the statement tells beyond these fields: most tell nothing more and share
    /// [`Hints::NONE`], which keeps the many probes' static data small.
    pub hints: &'static Hints,
}

/// What some probes' statements tell the recorder beyond [`Probe`]'s fields.
pub struct Hints {
    /// The binding this probe's statement only appends to (`history.push(message);`, asserted a
    /// `Vec`): at the call's next step, the entries it had are unchanged. Nothing else can run in
    /// between (`#[traced]` leaves out a push in a loop whose header mentions the binding).
    pub appends: Option<&'static str>,
    /// The binding this probe's statement returns as it is (`Ok(prepared)`): the call's return
    /// value is its value at this step.
    pub returns: Option<&'static str>,
    /// A binding the statement just before this one changed at one element only (`prepared[0]
    /// .content = ...;`, asserted a `Vec`), and where: that element is handed to `step`, and the
    /// other elements are the ones the binding had.
    pub element: Option<(&'static str, usize)>,
    /// A binding the statement just before this one made as a copy of another, and that other
    /// (`let prepared = messages.to_vec();`): the two have the same value.
    pub copy: Option<(&'static str, &'static str)>,
}

impl Hints {
    pub const NONE: Hints = Hints { appends: None, returns: None, element: None, copy: None };
}

/// Compiles only for a `Vec`, whose `push` leaves the entries it had as they were: `#[traced]` calls it
/// where a statement only appends to a binding.
pub fn a_vec<T>(_: &Vec<T>) {}

/// Compiles only for a type without a single-thread cell inside (`Cell`, `RefCell`, `OnceCell`,
/// `UnsafeCell` all lack `RefUnwindSafe`): `#[traced]` calls it for each binding it writes once and
/// never again (a shared reference that is not `mut`), which is right only if nothing can change
/// behind it. `Mutex`, `RwLock` and the atomics are `RefUnwindSafe` and get past it: do not hand a
/// traced function one behind a shared reference.
pub fn frozen<T: ?Sized + std::panic::RefUnwindSafe>(_: &T) {}

/// Compiles only for a type that is not `Copy`: `#[traced]` calls it where it lists a binding as
/// moved, so a `Copy` value can never be shown as moved (two impls apply to a `Copy` type, and the
/// call's type parameter `A` cannot be inferred).
pub fn not_copy<T: ?Sized + NotCopy<A>, A>(_: &T) {}

#[doc(hidden)]
pub trait NotCopy<A> {}
impl<T: ?Sized> NotCopy<()> for T {}
#[doc(hidden)]
pub struct IsCopy;
impl<T: Copy> NotCopy<IsCopy> for T {}

/// How a recording runs.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// At most this many steps (the last becomes `truncated`).
    pub limit: usize,
    /// Serialize every binding at every step instead of only those a statement mentions. Slow;
    /// tests use it to show that skipping never misses a change.
    pub every_value: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { limit: MAX_STEPS, every_value: false }
    }
}

/// The tables a recording fills, with the indexes that keep each entry unique.
#[derive(Default)]
struct Tables {
    done: Recording,
    /// Each value by the hash of its text.
    values: ByHash,
    /// The values `store` wrote by their parts, by the hash of their whole text.
    whole: Vec<(u64, u32)>,
    /// The length of each value written by its parts, as a whole, in the order of `done.parts`.
    lengths: Vec<usize>,
    /// Where a value is written to be compared or stored.
    scratch: Vec<u8>,
    /// A hash of each host view, by index: most views are new, and comparing hashes is cheaper.
    host_hashes: Vec<u64>,
}

impl Tables {
    /// Empty tables with room for a short trace's steps, and for a value's text: growing them a
    /// few bytes or steps at a time (copying the steps each time) was a tenth of a short trace's
    /// time natively.
    fn sized() -> Tables {
        let done = Recording { steps: Vec::with_capacity(64), ..Recording::default() };
        Tables { done, scratch: Vec::with_capacity(1024), ..Tables::default() }
    }

    /// The index of `value`, stored if it is new; `previous` is the value it most likely is.
    fn value(&mut self, value: &dyn Snapshot, previous: Option<u32>) -> u32 {
        let mut text = std::mem::take(&mut self.scratch);
        text.clear();
        value.write_json(&mut text);
        let index = self.store(&text, previous);
        self.scratch = text;
        index
    }

    /// The parts of a request stored by its parts (`{"tools":3,"messages":4}`, the messages by theirs
    /// too): the tools' index, and each message's. `None` if it is not stored so.
    fn request_indices(&self, index: u32) -> Option<(u32, Vec<u32>)> {
        let (values, parts) = (&self.done.values, &self.done.parts);
        let by_parts = |index: u32| parts.binary_search(&index).is_ok();
        let text = values[index as usize].bytes();
        let fields = children(text).filter(|_| by_parts(index))?;
        let [tools, messages] = &fields[..] else { return None };
        let named = |part: &Part, key: &[u8]| &text[part.key.clone()] == key;
        if !named(tools, b"\"tools\":") || !named(messages, b"\"messages\":") {
            return None;
        }
        let messages = index_at(&text[messages.value.clone()]);
        let tools = index_at(&text[tools.value.clone()]);
        by_parts(messages).then(|| (tools, part_indices(values[messages as usize].bytes())))
    }

    /// The index of list `value` (stored as `previous`, by its parts) after only its element `at`
    /// changed to `element`: the element is written, the others' indices kept. `value` is written
    /// whole if `previous` is not stored by its parts (or has no such element).
    fn element_changed(
        &mut self,
        previous: u32,
        at: usize,
        element: &dyn Snapshot,
        value: &dyn Snapshot,
    ) -> u32 {
        let stored = self.done.parts.binary_search(&previous).is_ok();
        let mut entries =
            if stored { part_indices(self.done.values[previous as usize].bytes()) } else { vec![] };
        if at >= entries.len() {
            return self.value(value, Some(previous));
        }
        entries[at] = self.value(element, Some(entries[at]));
        self.list_value(&entries, Some(previous))
    }

    /// The index of a list whose entries are stored already (a host field's), without writing it again:
    /// by its entries' indices if [`split`] would split its text, else their texts joined, as serde_json
    /// writes a sequence.
    fn list_value(&mut self, entries: &[u32], previous: Option<u32>) -> u32 {
        let (values, parts) = (&self.done.values, &self.done.parts);
        let first_object =
            entries.first().is_some_and(|&first| values[first as usize].bytes()[0] == b'{');
        // An entry written by its parts is itself at least `PARTS_FROM` bytes long; else the list's text
        // is the entries', a comma after each but the last, and the two brackets.
        let long = || {
            entries.iter().any(|&entry| parts.binary_search(&entry).is_ok())
                || entries
                    .iter()
                    .map(|&entry| values[entry as usize].bytes().len() + 1)
                    .sum::<usize>()
                    + 1
                    >= PARTS_FROM
        };
        let by_parts = first_object && long();
        let mut text = std::mem::take(&mut self.scratch);
        text.clear();
        if by_parts {
            each(&mut text, entries, |out, &entry| number(out, entry.into()));
        } else {
            each(&mut text, entries, |out, &entry| plain(values, parts, entry, out));
        }
        // Not noted by its whole text's hash, as a value `store` splits is: that took writing the whole
        // list out at each push onto the history, and only the run's outcome, once, wrote it whole again
        // (`prepare_messages` reads it as the host's entries, `settled`).
        let index = self.intern(&text, by_parts, previous);
        self.scratch = text;
        index
    }

    /// The index of a model request, from its parts (see [`Snapshot::request_parts`]); `None` if
    /// `value` is not one. Each message is most likely the stored history's at its place (`host`'s
    /// `messages`), and the tools those of the request before.
    fn request(&mut self, value: &dyn Snapshot, host: &Host, previous: Option<u32>) -> Option<u32> {
        let mut index = None;
        value.request_parts(&mut |tools, messages| {
            let (tools, messages) = self.request_entries(tools, messages, history(host));
            let messages = self.list_value(&messages, None);
            let fields = [(&b"\"tools\":"[..], tools), (&b"\"messages\":"[..], messages)];
            index = Some(self.object_value(&fields, previous));
        });
        index
    }

    /// A request's tools (the tools first, as writing the whole request stores them), most likely those
    /// of the request before, and its messages, each most likely the stored `history`'s at its place.
    fn request_entries(
        &mut self,
        tools: &dyn Snapshot,
        messages: &dyn HostList,
        history: &[u32],
    ) -> (u32, Vec<u32>) {
        let tools_like = self.done.requests.last().map(|last| last.tools);
        let tools = self.value(tools, tools_like);
        (tools, self.entries(messages, history, 0))
    }

    /// The index of an object whose fields are stored already (each `"name":` and its index), without
    /// writing it again: by its fields' indices if [`split`] would split its text, else their texts
    /// joined, as serde_json writes an object.
    fn object_value(&mut self, fields: &[(&[u8], u32)], previous: Option<u32>) -> u32 {
        let (values, parts) = (&self.done.values, &self.done.parts);
        // A field is split where its value is stored by its parts; the text is each name and value, a
        // comma after each but the last, and the two braces.
        let length = |index| whole_length(values, parts, &self.lengths, index);
        let whole =
            1 + fields.iter().map(|&(key, index)| key.len() + length(index) + 1).sum::<usize>();
        let split_field = fields.iter().any(|(_, index)| parts.binary_search(index).is_ok());
        let by_parts = whole >= PARTS_FROM && split_field;
        let mut text = std::mem::take(&mut self.scratch);
        text.clear();
        text.push(b'{');
        for (k, &(key, index)) in fields.iter().enumerate() {
            if k > 0 {
                text.push(b',');
            }
            text.extend_from_slice(key);
            if by_parts {
                number(&mut text, index.into());
            } else {
                plain(values, parts, index, &mut text);
            }
        }
        text.push(b'}');
        let index = self.intern(&text, by_parts, previous);
        self.scratch = text;
        index
    }

    /// The index of a value's JSON `text`, stored if it is new: by its parts if [`split`] splits it.
    fn store(&mut self, text: &[u8], previous: Option<u32>) -> u32 {
        if text.len() < PARTS_FROM {
            return self.intern(text, false, previous);
        }
        // A long value written again is most often what it was, or one stored before: compared part by
        // part, before any split.
        let (values, parts) = (&self.done.values, &self.done.parts);
        // Of another length it is not (the conversation grows at each model call): not compared.
        let at_parts = previous.and_then(|previous| parts.binary_search(&previous).ok());
        if let Some((previous, at)) = previous.zip(at_parts) {
            if self.lengths[at] == text.len()
                && matches(values, parts, previous, text, 0) == Some(text.len())
            {
                return previous;
            }
        }
        let hash = text_hash(text);
        let at = self.whole.partition_point(|&(known, _)| known < hash);
        let found = self.whole[at..].iter().take_while(|&&(known, _)| known == hash);
        for &(_, index) in found {
            if matches(values, parts, index, text, 0) == Some(text.len()) {
                return index;
            }
        }
        let Some(split) = split(text) else { return self.intern(text, false, previous) };
        let index = self.store_parts(text, &split, previous);
        self.whole.insert(at, (hash, index));
        index
    }

    /// A list or an object stored as its parts' indices (`[3,4]`, `{"tools":5,"messages":6}`), each part
    /// stored first, so that it comes before the value that refers to it.
    fn store_parts(&mut self, text: &[u8], parts: &[Part], previous: Option<u32>) -> u32 {
        // Each part is most likely the previous value's part at its place.
        let (values, stored) = (&self.done.values, &self.done.parts);
        let like = match previous.filter(|&previous| stored.binary_search(&previous).is_ok()) {
            Some(previous) => part_indices(values[previous as usize].bytes()),
            None => Vec::new(),
        };
        let mut indices = Vec::with_capacity(8 * parts.len() + 2);
        indices.push(text[0]);
        for (k, part) in parts.iter().enumerate() {
            if k > 0 {
                indices.push(b',');
            }
            // `"name":` for an object's field; nothing for a list's element.
            indices.extend_from_slice(&text[part.key.clone()]);
            let index = self.store(&text[part.value.clone()], like.get(k).copied());
            number(&mut indices, index.into());
        }
        indices.push(text[text.len() - 1]);
        self.intern(&indices, true, previous)
    }

    /// The index of `text`, stored if it is new; `by_parts` tells a value written by its parts
    /// (`[3,4]`, two indices) from the same text written whole (a list of two numbers).
    fn intern(&mut self, text: &[u8], by_parts: bool, previous: Option<u32>) -> u32 {
        let values = &mut self.done.values;
        let parts = &mut self.done.parts;
        let same = |index: u32| {
            same_bytes(values[index as usize].bytes(), text)
                && parts.binary_search(&index).is_ok() == by_parts
        };
        // A value written again is most often what it was: one comparison, and no hash.
        if let Some(previous) = previous {
            if same(previous) {
                return previous;
            }
        }
        let hash = mix(text_hash(text), u64::from(by_parts));
        if let Some(index) = self.values.find(hash, same) {
            return index;
        }
        let index = values.len() as u32;
        if by_parts {
            // Its parts' whole lengths in place of their indices.
            let mut length = text.len();
            for part in children(text).unwrap_or_default() {
                let digits = &text[part.value];
                let part = index_at(digits);
                length -= digits.len();
                length += whole_length(values, parts, &self.lengths, part);
            }
            parts.push(index);
            self.lengths.push(length);
        }
        values.push(Json(text.into()));
        self.values.add(hash, index);
        index
    }

    fn binding(&mut self, name: &'static str, ty: &'static str) -> u32 {
        let bindings = &mut self.done.bindings;
        // Each label is one static text (`type_label`), so the same binding is nearly always the
        // same two addresses.
        let same_texts = |b: &Binding| std::ptr::eq(b.name, name) && std::ptr::eq(b.ty, ty);
        let found = bindings.iter().position(same_texts);
        let found = found.or_else(|| bindings.iter().position(|b| b.name == name && b.ty == ty));
        found.unwrap_or_else(|| {
            bindings.push(Binding { name, ty });
            bindings.len() - 1
        }) as u32
    }

    // Scopes and host views are few (one per distinct set of bindings, one per host change):
    // a search costs less than a hash table's code.
    /// The scope of `locals`' bindings; most steps keep the scope of the call's previous step, `latest`.
    fn scope(&mut self, latest: u32, locals: &[Slot]) -> u32 {
        let scopes = &mut self.done.scopes;
        let same =
            |scope: &Vec<u32>| scope.iter().copied().eq(locals.iter().map(|slot| slot.binding));
        if scopes.get(latest as usize).is_some_and(same) {
            return latest;
        }
        scopes.iter().position(same).unwrap_or_else(|| {
            scopes.push(locals.iter().map(|slot| slot.binding).collect());
            scopes.len() - 1
        }) as u32
    }

    fn host(&mut self, view: HostView) -> u32 {
        let hash = view.iter().fold(0, |hash, field| {
            let numbers = field.entries.iter().chain(&field.was);
            let hash = numbers.fold(hash, |hash, &n| mix(hash, u64::from(n)));
            mix(hash, text_hash(field.changes.as_bytes()))
        });
        let hosts = &mut self.done.hosts;
        let same = |(known, view_hash): (&HostView, &u64)| *view_hash == hash && *known == view;
        let found = hosts.iter().zip(&self.host_hashes).position(same);
        found.unwrap_or_else(|| {
            hosts.push(view);
            self.host_hashes.push(hash);
            hosts.len() - 1
        }) as u32
    }

    /// The entries of a host list, as value indices; `like` is what each most likely is, by place, and
    /// the first `kept` of it are known to be unchanged.
    fn entries(&mut self, list: &dyn HostList, like: &[u32], kept: usize) -> Vec<u32> {
        let mut entries = like[..kept].to_vec();
        list.each(kept, &mut |entry| {
            let previous = like.get(entries.len()).copied();
            entries.push(self.value(entry, previous));
        });
        entries
    }
}

/// The length of value `index`'s whole text: of its text, or for a value stored by its parts (`parts`)
/// its whole length as `lengths` notes it.
fn whole_length(values: &[Json], parts: &[u32], lengths: &[usize], index: u32) -> usize {
    match parts.binary_search(&index) {
        Ok(at) => lengths[at],
        Err(_) => values[index as usize].bytes().len(),
    }
}

/// Values by the hashes of their texts: an open-addressing table, at most half full, each slot a value's
/// index plus one (zero when free), and each value's hash by index. A list sorted by hash moved half
/// its entries at each new value, a cost that grew with the trace (a loop trace has hundreds).
#[derive(Default)]
struct ByHash {
    slots: Vec<u32>,
    hashes: Vec<u64>,
}

impl ByHash {
    /// The value of hash `hash` that is `same` (at most one is: each value is stored once).
    fn find(&self, hash: u64, mut same: impl FnMut(u32) -> bool) -> Option<u32> {
        let mask = self.slots.len().checked_sub(1)?;
        let mut at = hash as usize & mask;
        loop {
            let index = self.slots[at].checked_sub(1)?;
            if self.hashes[index as usize] == hash && same(index) {
                return Some(index);
            }
            at = (at + 1) & mask;
        }
    }

    /// Adds value `index`, the next one, of hash `hash`.
    fn add(&mut self, hash: u64, index: u32) {
        self.hashes.push(hash);
        if self.hashes.len() * 2 > self.slots.len() {
            // Twice as many slots, and every value again in the order added.
            self.slots = vec![0; (self.slots.len() * 2).max(64)];
            for (index, &hash) in self.hashes.iter().enumerate() {
                place(&mut self.slots, hash, index as u32);
            }
        } else {
            place(&mut self.slots, hash, index);
        }
    }
}

/// Puts value `index` in the first free slot from its hash's own.
fn place(slots: &mut [u32], hash: u64, index: u32) {
    let mask = slots.len() - 1;
    let mut at = hash as usize & mask;
    while slots[at] != 0 {
        at = (at + 1) & mask;
    }
    slots[at] = index + 1;
}

/// A value at least this long (its JSON text, in bytes) may be written by its parts (see [`split`]):
/// a conversation of two messages or more is, a single message and a plan of a few items are not.
const PARTS_FROM: usize = 512;

/// One part of a list or an object as JSON text: `key` the field's name with its quotes and colon
/// (empty for a list's element), `value` the span of its value.
struct Part {
    key: Range<usize>,
    value: Range<usize>,
}

/// The parts a value is written by, or `None` when it is written whole: a list whose first element is
/// an object, and an object with a field that is split, once at least [`PARTS_FROM`] bytes long. The
/// versions of the loop's conversation (the history, each prepared copy, each request) then share their
/// messages, each stored once as a value of its own, where each version would repeat them all. Decided
/// on the text alone, so that the same value is written the same way wherever it is (a local, a host
/// entry, a part of another), and a list's first element is enough to tell a list of records from a
/// list of numbers or names.
fn split(text: &[u8]) -> Option<Vec<Part>> {
    if text.len() < PARTS_FROM {
        return None;
    }
    match text[..2] {
        [b'[', b'{'] => children(text),
        [b'{', _] => children(text)
            .filter(|fields| fields.iter().any(|field| split_kind(&text[field.value.clone()]))),
        _ => None,
    }
}

/// Whether [`split`] splits `text`; a list is told without reading it through.
fn split_kind(text: &[u8]) -> bool {
    text.len() >= PARTS_FROM && (text.starts_with(b"[{") || split(text).is_some())
}

/// The elements of a list, or the fields of an object, in compact JSON as serde_json writes it (no
/// white space); `None` for any other value.
fn children(text: &[u8]) -> Option<Vec<Part>> {
    let object = match text.first() {
        Some(b'[') => false,
        Some(b'{') => true,
        _ => return None,
    };
    let mut parts = Vec::with_capacity(8);
    let mut i = 1;
    while i < text.len() - 1 {
        let key_start = i;
        if object {
            // `"name":`
            i = string_end(text, i + 1) + 1;
        }
        let end = value_end(text, i);
        parts.push(Part { key: key_start..i, value: i..end });
        // Past the comma (or the closing bracket).
        i = end + 1;
    }
    Some(parts)
}

/// Where the JSON value that starts at `i` ends: the comma or closing bracket after it (or the end).
fn value_end(text: &[u8], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < text.len() {
        match text[i] {
            b'"' => i = string_end(text, i + 1),
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b']' | b',' if depth == 0 => return i,
            b'}' | b']' => {
                depth -= 1;
                i += 1;
            }
            _ => i += 1,
        }
    }
    i
}

/// Where a JSON string whose text starts at `i` (after its opening quote) ends: after its closing
/// quote. Eight bytes are looked at a time: passed over whole when they hold neither a quote nor a
/// backslash, else gone straight to the first that is one (most strings of a value are short keys).
fn string_end(text: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    // The high bit of each byte of `word` that is `byte`; a borrow can also set it in a byte after
    // one that is, so only the lowest is sure, and only it is used.
    let find = |word: u64, byte: u8| {
        let x = word ^ (ONES * u64::from(byte));
        x.wrapping_sub(ONES) & !x & (ONES << 7)
    };
    loop {
        while let Some(bytes) = text.get(i..i + 8) {
            let word = u64::from_le_bytes(bytes.try_into().unwrap_or([b'"'; 8]));
            let special = find(word, b'"') | find(word, b'\\');
            if special != 0 {
                i += special.trailing_zeros() as usize / 8;
                break;
            }
            i += 8;
        }
        match text.get(i) {
            None => return i,
            Some(b'"') => return i + 1,
            Some(b'\\') => i += 2,
            Some(_) => i += 1,
        }
    }
}

/// The indices a value written by its parts holds, in order.
fn part_indices(stored: &[u8]) -> Vec<u32> {
    let parts = children(stored).unwrap_or_default();
    parts.iter().map(|part| index_at(&stored[part.value.clone()])).collect()
}

/// A value index written in decimal.
fn index_at(digits: &[u8]) -> u32 {
    digits.iter().fold(0, |n, &digit| n * 10 + u32::from(digit - b'0'))
}

/// Where the whole text of value `index` ends if `text` has it at `at`, else `None`: a value written by
/// its parts is compared part by part, as it is stored, without being written out whole.
fn matches(values: &[Json], parts: &[u32], index: u32, text: &[u8], at: usize) -> Option<usize> {
    let stored = values[index as usize].bytes();
    if parts.binary_search(&index).is_err() {
        let end = at + stored.len();
        return (end <= text.len() && same_bytes(&text[at..end], stored)).then_some(end);
    }
    let mut i = at;
    let expect = |text: &[u8], bytes: &[u8], i: &mut usize| {
        let end = *i + bytes.len();
        let same = end <= text.len() && same_bytes(&text[*i..end], bytes);
        *i = end;
        same
    };
    if !expect(text, &stored[..1], &mut i) {
        return None;
    }
    for (k, part) in children(stored)?.iter().enumerate() {
        if (k > 0 && !expect(text, b",", &mut i))
            || !expect(text, &stored[part.key.clone()], &mut i)
        {
            return None;
        }
        i = matches(values, parts, index_at(&stored[part.value.clone()]), text, i)?;
    }
    expect(text, &stored[stored.len() - 1..], &mut i).then_some(i)
}

/// The whole JSON text of value `index` into `out`: a value written by its parts (`parts`) with each
/// part's text in place of its index.
fn plain(values: &[Json], parts: &[u32], index: u32, out: &mut Vec<u8>) {
    let text = values[index as usize].bytes();
    if parts.binary_search(&index).is_err() {
        out.extend_from_slice(text);
        return;
    }
    out.push(text[0]);
    for (k, part) in children(text).unwrap_or_default().iter().enumerate() {
        if k > 0 {
            out.push(b',');
        }
        out.extend_from_slice(&text[part.key.clone()]);
        plain(values, parts, index_at(&text[part.value.clone()]), out);
    }
    out.push(text[text.len() - 1]);
}

/// A hash of a value's text, eight bytes at a time (FxHash's step): values reach tens of
/// kilobytes in the loop figure, where a byte-at-a-time hash was a third of the trace's time. (An
/// object's keys are found by it too, as `value::MapBuilder` reads them.)
pub(crate) fn text_hash(bytes: &[u8]) -> u64 {
    let mut words = bytes.chunks_exact(8);
    let mut hash = words.by_ref().fold(bytes.len() as u64, |hash, word| {
        mix(hash, u64::from_le_bytes(word.try_into().unwrap_or_default()))
    });
    let mut tail = [0u8; 8];
    tail[..words.remainder().len()].copy_from_slice(words.remainder());
    hash = mix(hash, u64::from_le_bytes(tail));
    hash
}

/// Whether two texts are the same, eight bytes at a time (the module's `memcmp` compares one byte at
/// a time, and values are compared whole each time they are written again).
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let word = |bytes: &[u8]| u64::from_le_bytes(bytes.try_into().unwrap_or_default());
    let (mut words_a, mut words_b) = (a.chunks_exact(8), b.chunks_exact(8));
    a.len() == b.len()
        && words_a.by_ref().zip(words_b.by_ref()).all(|(x, y)| word(x) == word(y))
        && words_a.remainder().iter().eq(words_b.remainder())
}

/// Two texts the compiler gave (binding names, type names): the same static text needs no comparing.
fn same_static(a: &str, b: &str) -> bool {
    std::ptr::eq(a, b) || same_bytes(a.as_bytes(), b.as_bytes())
}

/// Whether two lists of value indices are the same, compared as numbers (slices of numbers compare
/// with the module's `memcmp`, a byte at a time).
fn same_indices(a: &[u32], b: &[u32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

fn is_in(names: &[&str], name: &str) -> bool {
    names.iter().any(|known| same_static(known, name))
}

/// One step of FxHash: `word` mixed into `hash`.
fn mix(hash: u64, word: u64) -> u64 {
    (hash.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95)
}

/// A local as the call's previous step left it.
#[derive(Clone, Copy)]
struct Slot {
    name: &'static str,
    binding: u32,
    /// The full name of its value's type (empty if it never had one): the same type, the same binding.
    ty: &'static str,
    value: Option<u32>,
    /// Where the value was at the step (compared, never read): see [`request`].
    at: usize,
}

/// Where a value handed to the recorder is, to be compared.
fn address(value: &dyn Snapshot) -> usize {
    value as *const dyn Snapshot as *const () as usize
}

struct Frame {
    symbol: &'static str,
    /// The probe of the call's latest step (its line, what its statement mentions, ...); `None`
    /// before its first.
    probe: Option<&'static Probe>,
    locals: Vec<Slot>,
    /// The latest step's scope, reused by the `return` or `error` step (with that step's values).
    scope: u32,
    /// The index of the latest step.
    latest: u32,
    /// Tells this call from any other, for [`Origin`].
    id: u32,
}

impl Frame {
    /// The line of the call's latest step; `None` before its first.
    fn line(&self) -> Option<u32> {
        self.probe.map(|probe| probe.line)
    }

    /// What the latest step's statement mentions: the bindings that may differ at the next one.
    fn mentions(&self) -> &'static [&'static str] {
        self.probe.map_or(&[], |probe| probe.mentions)
    }

    /// Whether only the latest step's statement runs until the next step (see [`Probe::alone`]).
    fn alone(&self) -> bool {
        self.probe.is_some_and(|probe| probe.alone)
    }
}

/// Where a host field's entries were last taken: at a step of the call `frame`, through its binding
/// `root`, from the list `span`.
struct Origin {
    key: &'static str,
    frame: u32,
    root: &'static str,
    span: Span,
}

/// Whether host field `key`, read now from `list`, still has the entries a caller took at its
/// latest step: the same list (its span), and nothing could have changed it since. Only that step's
/// statement of the caller has run (`alone`), and it does not mention the list's binding; it can have
/// handed it on only as a shared borrow, so nothing called from it can have changed it either.
fn settled(origins: &[Origin], callers: &[Frame], key: &str, list: &dyn HostList) -> bool {
    let Some(origin) = origins.iter().find(|origin| same_static(origin.key, key)) else {
        return false;
    };
    let Some(by) = callers.iter().find(|frame| frame.id == origin.frame) else { return false };
    let (at, len, ty) = list.span();
    let same = origin.span.0 == at && origin.span.1 == len && same_static(origin.span.2, ty);
    same && by.alone() && !is_in(by.mentions(), origin.root)
}

/// The host's fields as value indices, in the figure's order.
type Host = Vec<(&'static str, Vec<u32>)>;

struct Recorder {
    /// Only calls of this function (and what it calls) are recorded; the entry's other calls are not.
    target: &'static str,
    lang: Lang,
    settings: Settings,
    host: Host,
    /// The host before the call, for the trace's `effect`.
    host_start: Host,
    /// The host as the latest step saw it, and that step's view once nothing changed since.
    host_before: Host,
    host_steady: Option<u32>,
    /// Whether `host` differs from `host_before`: set where a step takes a field's entries and they
    /// differ, so that most steps (which change no host field) compare nothing.
    host_moved: bool,
    frames: Vec<Frame>,
    /// Frames entered outside the target, counted so that their probes are ignored.
    silent: usize,
    truncated: bool,
    /// Host decisions made since the latest step, for the next one.
    pending: Vec<HostEvent>,
    /// Where each host field's entries were last taken by a step.
    origins: Vec<Origin>,
    /// A frame's locals as they were before its latest step, for the next step to fill.
    spare: Vec<Slot>,
    /// Calls entered so far: the next frame's id.
    entered: u32,
    tables: Tables,
}

thread_local! {
    static RECORDER: RefCell<Option<Recorder>> = const { RefCell::new(None) };
}

/// Runs `run` while recording every step of `target`, starting from the host's `fields`.
pub fn record<T>(
    target: &'static str,
    lang: Lang,
    fields: &[(&'static str, &dyn HostList)],
    run: impl FnOnce() -> T,
) -> (Recording, T) {
    record_with(target, lang, fields, Settings::default(), run)
}

/// [`record`] with other [`Settings`].
pub fn record_with<T>(
    target: &'static str,
    lang: Lang,
    fields: &[(&'static str, &dyn HostList)],
    settings: Settings,
    run: impl FnOnce() -> T,
) -> (Recording, T) {
    let mut tables = Tables::sized();
    let host: Host =
        fields.iter().map(|&(key, list)| (key, tables.entries(list, &[], 0))).collect();
    let recorder = Recorder {
        target,
        lang,
        settings: Settings { limit: settings.limit.max(1), ..settings },
        host_before: host.clone(),
        host_start: host.clone(),
        host,
        host_steady: None,
        host_moved: false,
        frames: Vec::new(),
        silent: 0,
        truncated: false,
        pending: Vec::new(),
        origins: Vec::new(),
        spare: Vec::new(),
        entered: 0,
        tables,
    };
    // Replacing (not asserting empty) lets a later call recover after an earlier one trapped.
    RECORDER.with(|r| *r.borrow_mut() = Some(recorder));
    let value = run();
    let recorder = RECORDER.with(|r| r.borrow_mut().take());
    (recorder.map(Recorder::finish).unwrap_or_default(), value)
}

pub fn recording() -> bool {
    RECORDER.with(|r| r.borrow().is_some())
}

fn with<R>(f: impl FnOnce(&mut Recorder) -> R) -> Option<R> {
    RECORDER.with(|r| r.borrow_mut().as_mut().map(f))
}

/// Prints lines to the trace's output (the figure's output pane); each `\n` starts a new line.
pub fn say(text: impl AsRef<str>) {
    say_text(text.as_ref());
}

/// [`say`] past the conversion: one copy, not one per type of text.
fn say_text(text: &str) {
    with(|r| r.tables.done.output.extend(text.split('\n').map(str::to_owned)));
}

/// Notes a host decision; the next step recorded (or the last, after the run) carries it.
pub fn decide(event: HostEvent) {
    with(|r| r.pending.push(event));
}

/// Notes the request of a model call: its prepared `messages` against the stored history as the
/// latest step saw it (the host's `messages` field), and its `tools`; `whole` is the request.
pub fn request(messages: &dyn HostList, tools: &dyn Snapshot, whole: &dyn Snapshot) {
    with(|r| {
        if r.truncated {
            return;
        }
        let history = history(&r.host).to_vec();
        // The request is most often a local of the current call (`run_loop`'s `request`), stored at
        // its latest step and not changed since: only that step's statement has run (`alone`), and
        // it does not mention it. Then its parts are the messages and the tools, already stored.
        let frame = r.frames.last().filter(|frame| frame.alone() && !r.settings.every_value);
        let local = frame.and_then(|frame| {
            let same =
                |slot: &&Slot| slot.at == address(whole) && same_static(slot.ty, whole.type_name());
            let slot = frame.locals.iter().find(same)?;
            (!is_in(frame.mentions(), slot.name)).then_some(slot.value).flatten()
        });
        let stored = local.and_then(|index| r.tables.request_indices(index));
        let (tools, messages) =
            stored.unwrap_or_else(|| r.tables.request_entries(tools, messages, &history));
        let differs = (0..messages.len() as u32)
            .filter(|&i| history.get(i as usize) != Some(&messages[i as usize]))
            .collect();
        let step = r.tables.done.steps.len() as u32;
        r.tables.done.requests.push(ModelRequest { step, tools, messages, history, differs });
    });
}

/// The stored history: the host's `messages` field, as the latest step saw it.
fn history(host: &Host) -> &[u32] {
    host.iter().find(|(field, _)| *field == "messages").map_or(&[], |(_, entries)| entries)
}

/// Marks a traced function's frame; dropping it leaves the frame, whichever way the call ends.
pub struct FrameGuard {
    recorded: bool,
}

impl Drop for FrameGuard {
    fn drop(&mut self) {
        with(|r| {
            if self.recorded {
                r.frames.pop();
            } else {
                r.silent = r.silent.saturating_sub(1);
            }
        });
    }
}

pub fn enter(symbol: &'static str) -> FrameGuard {
    let recorded = with(|r| {
        if r.silent > 0 || (r.frames.is_empty() && symbol != r.target) {
            r.silent += 1;
            false
        } else {
            r.frames.push(Frame {
                symbol,
                probe: None,
                locals: Vec::new(),
                scope: 0,
                latest: 0,
                id: r.entered,
            });
            r.entered += 1;
            true
        }
    });
    FrameGuard { recorded: recorded.unwrap_or(false) }
}

/// The probe before a statement: records a `call` step for a frame's first statement, else `line`.
///
/// `values[i]` goes with `probe.names[i]`; `None` is a binding that was moved away. `lists[i]` is
/// the list of the host field `probe.host[i]`. `element` is the element `probe.element` names.
/// (What the probe knows at compile time is in its static `Probe`; the call hands over only what
/// exists at run time, which keeps each probe's code small.)
pub fn step(
    probe: &'static Probe,
    values: &[Option<&dyn Snapshot>],
    lists: &[&dyn HostList],
    element: Option<&dyn Snapshot>,
) {
    with(|r| {
        if r.silent > 0 || r.truncated {
            return;
        }
        let Some((frame, callers)) = r.frames.split_last_mut() else { return };
        let first = frame.probe.is_none();
        // The shortcuts below are not taken with `every_value`, so that tests can hold them to it.
        let quick = !r.settings.every_value;
        let every = !quick || first;
        let may_differ =
            |name: &str| every || is_in(frame.mentions(), name) || is_in(probe.fresh, name);
        let tables = &mut r.tables;

        // A root bound since the call's previous step (`let mut history = ...` in `run_loop`) is
        // new, whatever that step's statement mentions.
        let is_new = |root: &str| !frame.locals.iter().any(|slot| same_static(slot.name, root));
        let host = || probe.host.iter().zip(lists).map(|(&(key, root), &list)| (key, root, list));
        for (key, root, list) in host() {
            if may_differ(root) || is_new(root) {
                let known = r.host.iter().position(|(known, _)| same_static(known, key));
                // A caller's latest step took these entries from this very list (`prepare_messages`
                // reads the history `run_loop` handed it), and they cannot have changed since.
                if quick && known.is_some() && settled(&r.origins, callers, key, list) {
                    continue;
                }
                let before = known.map_or(&[][..], |at| &r.host[at].1);
                // Right after `root.push(..);`, only the entries past the ones it had are new.
                let appended = frame
                    .probe
                    .and_then(|latest| latest.hints.appends)
                    .is_some_and(|name| same_static(name, root));
                let kept = if !every && appended { before.len() } else { 0 };
                let entries = tables.entries(list, before, kept);
                match known {
                    Some(at) if same_indices(&r.host[at].1, &entries) => {}
                    Some(at) => {
                        r.host[at].1 = entries;
                        r.host_moved = true;
                    }
                    None => {
                        r.host.push((key, entries));
                        r.host_moved = true;
                    }
                }
                let origin = Origin { key, frame: frame.id, root, span: list.span() };
                match r.origins.iter().position(|known| same_static(known.key, key)) {
                    Some(at) => r.origins[at] = origin,
                    None => r.origins.push(origin),
                }
            }
        }
        // A field this call no longer hands over (its binding moved away, or out of scope) can change
        // unseen from here on: the entries its steps took vouch for nothing more.
        let handed =
            |origin: &Origin| probe.host.iter().any(|&(key, _)| same_static(key, origin.key));
        r.origins.retain(|origin| origin.frame != frame.id || handed(origin));

        // The slots the call's step before last had, reused: one allocation fewer a step.
        let mut locals = std::mem::take(&mut r.spare);
        locals.clear();
        let mut changes = String::with_capacity(probe.names.len());
        let mut was = Vec::new();
        for (k, (&name, value)) in probe.names.iter().zip(values).enumerate() {
            // Bindings come into scope in order, so a local is nearly always where it was.
            let same_place = frame.locals.get(k).filter(|slot| same_static(slot.name, name));
            let earlier = same_place
                .or_else(|| frame.locals.iter().find(|slot| same_static(slot.name, name)));
            let earlier = earlier.copied();
            let (slot, change) = match (value, earlier) {
                // Moved away: no value any more, but the binding (and type) it had.
                (None, Some(before)) => {
                    let change = if before.value.is_some() { 'm' } else { '.' };
                    (Slot { value: None, ..before }, change)
                }
                (None, None) => {
                    let binding = tables.binding(name, "");
                    (Slot { name, binding, ty: "", value: None, at: 0 }, 'm')
                }
                (Some(_), Some(before)) if before.value.is_some() && !may_differ(name) => {
                    (before, '.')
                }
                (Some(value), before) => {
                    let list = host().find(|&(_, _, list)| same_list(*value, list));
                    let entries =
                        list.and_then(|(key, _, _)| r.host.iter().find(|(k, _)| *k == key));
                    let previous = before.and_then(|before| before.value);
                    // Made as a copy of a binding before it: that one's value, as just worked out.
                    let copied =
                        probe.hints.copy.filter(|&(copy, _)| quick && same_static(copy, name));
                    let copied = copied.and_then(|(_, of)| {
                        locals.iter().find(|slot: &&Slot| same_static(slot.name, of))?.value
                    });
                    // Changed at one element: that element, and the other elements' indices.
                    let changed =
                        probe.hints.element.filter(|&(key, _)| quick && same_static(key, name));
                    let changed = changed.zip(element).zip(previous);
                    let index = match (copied, changed, entries) {
                        (Some(index), _, _) => index,
                        (_, Some((((_, at), element), previous)), _) => {
                            tables.element_changed(previous, at, element, *value)
                        }
                        (_, _, Some((_, entries))) => tables.list_value(entries, previous),
                        _ => {
                            let request = tables.request(*value, &r.host, previous);
                            request.unwrap_or_else(|| tables.value(*value, previous))
                        }
                    };
                    let ty = value.type_name();
                    let binding = match before {
                        // The same static text is the same type, without comparing the text.
                        Some(before) if same_static(before.ty, ty) => before.binding,
                        _ => tables.binding(name, type_label(ty)),
                    };
                    let slot = Slot { name, binding, ty, value: Some(index), at: 0 };
                    let change = match before {
                        None => '+',
                        Some(before) if before.binding != slot.binding => '+',
                        Some(before) if before.value != slot.value => '~',
                        Some(_) => '.',
                    };
                    (slot, change)
                }
            };
            if change == '~' && !first {
                was.push(earlier.and_then(|before| before.value));
            }
            let at = value.map_or(0, address);
            locals.push(Slot { at, ..slot });
            changes.push(if first { '.' } else { change });
        }

        let scope = tables.scope(frame.scope, &locals);
        let values: Vec<Option<u32>> = locals.iter().map(|slot| slot.value).collect();
        let ran = frame.line();
        frame.probe = Some(probe);
        r.spare = std::mem::replace(&mut frame.locals, locals);
        frame.scope = scope;
        r.push(None, scope, values, changes, was, ran);
    });
}

/// The epilogue of a traced function returning a `Result`.
pub fn leave_result<T: Serialize>(frame: FrameGuard, result: &Result<T, TodoError>) {
    leave_with(frame, |tables, lang, returned| match result {
        Ok(value) => Ending::Value(returned.unwrap_or_else(|| tables.value(value, None))),
        Err(error) => Ending::Failed(error.info(lang)),
    });
}

/// The epilogue of a traced function returning a plain value.
pub fn leave_value<T: Serialize>(frame: FrameGuard, value: &T) {
    leave_with(frame, |tables, _, returned| {
        Ending::Value(returned.unwrap_or_else(|| tables.value(value, None)))
    });
}

/// `ending` is given the value of the binding the last statement returned as it is, if it did
/// (`Probe::returns`): the call's value, already stored.
fn leave_with(frame: FrameGuard, ending: impl FnOnce(&mut Tables, Lang, Option<u32>) -> Ending) {
    if frame.recorded {
        with(|r| {
            if r.truncated {
                return;
            }
            let Some(top) = r.frames.last() else { return };
            let Some(line) = top.line() else { return };
            let (scope, values) =
                (top.scope, r.tables.done.steps[top.latest as usize].values.clone());
            let changes = ".".repeat(values.len());
            let returns = top.probe.and_then(|latest| latest.hints.returns);
            let returned = returns.filter(|_| !r.settings.every_value).and_then(|name| {
                top.locals.iter().find(|slot| same_static(slot.name, name))?.value
            });
            let ending = Some(ending(&mut r.tables, r.lang, returned));
            r.push(ending, scope, values, changes, Vec::new(), Some(line));
        });
    }
    drop(frame);
}

impl Recorder {
    /// The host's view for the step being recorded: marked against the step before.
    fn host_view(&mut self) -> u32 {
        if !self.host_moved {
            if let Some(steady) = self.host_steady {
                return steady;
            }
            let steady = self.tables.host(mark_host(&self.host, &self.host));
            self.host_steady = Some(steady);
            return steady;
        }
        let view = self.tables.host(mark_host(&self.host_before, &self.host));
        self.host_before = self.host.clone();
        self.host_steady = None;
        self.host_moved = false;
        view
    }

    /// Records a step at the top frame's line: the call's end, or with `None` a statement about
    /// to run (the call's first if it has run none).
    fn push(
        &mut self,
        ending: Option<Ending>,
        scope: u32,
        values: Vec<Option<u32>>,
        changes: String,
        was: Vec<Option<u32>>,
        ran: Option<u32>,
    ) {
        let at_limit = self.tables.done.steps.len() + 1 >= self.settings.limit;
        let (event, value, error) = match ending {
            _ if at_limit => (Event::Truncated, None, None),
            None if ran.is_none() => (Event::Call, None, None),
            None => (Event::Line, None, None),
            Some(Ending::Value(value)) => (Event::Return, Some(value), None),
            Some(Ending::Failed(error)) => (Event::Error, None, Some(error)),
        };
        self.truncated = at_limit;
        let host = self.host_view();
        let index = self.tables.done.steps.len() as u32;
        if let Some(top) = self.frames.last_mut() {
            top.latest = index;
        }
        let (symbol, line) =
            self.frames.last().map_or(("", 0), |f| (f.symbol, f.line().unwrap_or(0)));
        let caller = self.frames.iter().rev().nth(1).map(|f| f.latest);
        let done = &mut self.tables.done;
        done.steps.push(Step {
            event,
            value,
            error,
            symbol,
            line,
            caller,
            scope,
            values,
            changes,
            was,
            host,
            ran,
            output_lines: done.output.len(),
            decisions: std::mem::take(&mut self.pending),
        });
    }
}

impl Recorder {
    /// The recording, with the call's effect on the host when anything was recorded.
    fn finish(mut self) -> Recording {
        // Decisions made after the last step (the stop) belong to it.
        if let Some(last) = self.tables.done.steps.last_mut() {
            last.decisions.append(&mut self.pending);
        }
        if !self.tables.done.steps.is_empty() {
            let effect = mark_host(&self.host_start, &self.host);
            self.tables.done.effect = Some(self.tables.host(effect));
        }
        self.tables.done
    }
}

/// Each field of `now`, its entries marked against `before`; removed entries are appended.
fn mark_host(before: &Host, now: &Host) -> HostView {
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

#[cfg(test)]
mod tests {
    use super::{record, short_type_name};
    use crate::lesson::Lang;
    use todo_trace_macros::traced;

    /// `let b = a;` moves `a` only when `a` is not `Copy`: a shared reference and a number stay.
    #[traced]
    fn copies_and_moves(text: &str, count: usize) -> usize {
        let seen = text;
        let more = count;
        let words = vec![text];
        let kept = words;
        seen.len() + more + kept.len()
    }

    /// An entry that counts how often it is written (each test thread its own count).
    struct Counted(u32);

    thread_local! {
        static WRITTEN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    impl serde::Serialize for Counted {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            WRITTEN.with(|written| written.set(written.get() + 1));
            self.0.serialize(serializer)
        }
    }

    #[traced(host(entries = list))]
    fn grow(first: u32) -> usize {
        let mut list = vec![Counted(first), Counted(2)];
        list.push(Counted(3));
        list.len()
    }

    /// After `list.push(..)` only the new entry of the host's list is written; `every_value` writes
    /// them all again, and both record the same entries.
    #[test]
    fn after_a_push_only_the_new_entry_is_written() {
        let run = |settings| {
            WRITTEN.with(|written| written.set(0));
            let (recording, _) = super::record_with("grow", Lang::En, &[], settings, || grow(1));
            let last = recording.steps.last().unwrap();
            let entries: Vec<String> = recording
                .host_entries(last, "entries")
                .iter()
                .map(|entry| entry.get().to_string())
                .collect();
            (WRITTEN.with(|written| written.get()), entries)
        };
        let (quick, entries) = run(super::Settings::default());
        let (every, every_entries) =
            run(super::Settings { every_value: true, ..Default::default() });
        assert_eq!(entries, ["1", "2", "3"]);
        assert_eq!(entries, every_entries);
        // Both write the two entries once the list is bound; after the push, one entry against three.
        assert_eq!(every - quick, 2, "{quick} written, against {every} with every value");
    }

    /// Records `run` quickly and with `every_value`: how many `Counted` and `Noted` values each wrote,
    /// after asserting that both recorded the very same trace.
    fn writes<T>(target: &'static str, run: impl Fn() -> T) -> (usize, usize) {
        let record = |settings| {
            WRITTEN.with(|written| written.set(0));
            let (recording, _) = super::record_with(target, Lang::En, &[], settings, &run);
            (WRITTEN.with(|written| written.get()), serde_json::to_string(&recording).unwrap())
        };
        let (quick, quick_trace) = record(super::Settings::default());
        let (every, every_trace) =
            record(super::Settings { every_value: true, ..Default::default() });
        assert_eq!(quick_trace, every_trace);
        (quick, every)
    }

    #[traced(host(entries = list))]
    fn gather(rounds: u32) -> usize {
        let mut list = vec![Counted(0)];
        let mut round = 0;
        loop {
            if round == rounds {
                return list.len();
            }
            round += 1;
            list.push(Counted(round));
        }
    }

    /// A push at the end of a loop's body is still the last thing done to the list when the next
    /// pass starts: the pass's first step writes only the new entry.
    #[test]
    fn after_a_push_that_ends_a_pass_only_the_new_entry_is_written() {
        let (quick, _) = writes("gather", || gather(3));
        // The first entry once it is bound, then each new one; without the shortcut, 1 + 2 + 3 + 4.
        assert_eq!(quick, 1 + 3);
    }

    #[traced(host(entries = list))]
    fn refill(mut n: u32) -> usize {
        let mut list = vec![Counted(1)];
        while std::mem::replace(&mut list[0], Counted(n)).0 < 30 {
            n += 10;
            list.push(Counted(n));
        }
        list.len()
    }

    /// A loop's header runs between a pass's push and the next pass, and here changes an entry the
    /// list had: the push's shortcut is not taken there (or the trace would show the old entry).
    #[test]
    fn a_loop_header_that_changes_the_list_keeps_the_push_from_its_shortcut() {
        writes("refill", || refill(0));
    }

    #[traced(host(entries = list))]
    fn hand_over(last: u32) -> usize {
        let mut list = vec![Counted(1), Counted(2)];
        list.push(Counted(last));
        let seen = count_entries(&list);
        seen + set_first(&mut list) + count_entries(&list)
    }

    #[traced(host(entries = list))]
    fn count_entries(list: &[Counted]) -> usize {
        let count = list.len();
        count
    }

    /// Not traced: it changes the list, in place, without a step of its own.
    fn set_first(list: &mut [Counted]) -> usize {
        list[0] = Counted(9);
        0
    }

    /// A callee that reads, through a shared reference, the very list its caller's latest step took
    /// the entries of (as `prepare_messages` reads the history): its first step takes the caller's
    /// entries, and its local is those entries, so nothing of the list is written again. Not so where
    /// the caller's statement also lends the list out to be changed (`set_first(&mut list)`, which runs
    /// first): there the entries are taken again, and the trace shows the changed one.
    #[test]
    fn a_list_handed_on_unchanged_is_not_written_again() {
        let (quick, every) = writes("hand_over", || hand_over(3));
        // Three entries fewer at `count_entries`' first step (its local is the entries either way).
        assert_eq!(every - quick, 14, "{quick} written, against {every}");
    }

    #[derive(serde::Serialize)]
    struct Tally {
        n: u32,
        seen: Vec<Counted>,
    }

    fn double(n: u32) -> u32 {
        n * 2
    }

    fn bump(n: &mut u32) {
        *n += 1;
    }

    #[traced]
    fn tally(start: u32) -> u32 {
        let mut tally = Tally { n: start, seen: vec![Counted(start)] };
        let first = double(tally.n);
        bump(&mut tally.n);
        first + tally.n
    }

    /// A statement that reads a field as a value (`double(tally.n)`) cannot change the binding: the
    /// next step does not write it again. One that lends the field out (`bump(&mut tally.n)`) can,
    /// and the next step shows the change.
    #[test]
    fn a_field_read_as_a_value_leaves_its_binding_as_it_was() {
        let (quick, every) = writes("tally", || tally(1));
        // `tally` is written when bound and after the bump; with every value also after the read.
        assert_eq!((quick, every), (2, 3));
    }

    #[traced(host(entries = list))]
    fn move_then_hand(last: u32) -> usize {
        let list = vec![Counted(1), Counted(2), Counted(last)];
        let mut moved = list;
        moved[0] = Counted(9);
        count_entries(&moved)
    }

    /// The list moved away to another binding is the same list (the same span) but no longer the
    /// host field's binding: changed through the other, it is taken again where it is handed on.
    #[test]
    fn a_list_moved_away_is_not_vouched_for() {
        writes("move_then_hand", || move_then_hand(3));
    }

    /// A record long enough that eight of them are written by their parts; counted as `Counted` is.
    #[derive(Clone)]
    struct Noted(u32);

    impl serde::Serialize for Noted {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            use serde::ser::SerializeStruct;
            WRITTEN.with(|written| written.set(written.get() + 1));
            let mut noted = serializer.serialize_struct("Noted", 2)?;
            noted.serialize_field("n", &self.0)?;
            noted.serialize_field("text", &"x".repeat(80))?;
            noted.end()
        }
    }

    #[traced]
    fn relabel(list: &[Noted], first: u32) -> Vec<Noted> {
        let mut copy = list.to_vec();
        copy[0] = Noted(first);
        copy
    }

    /// A copy takes its original's value, a list changed at one element has only that element written,
    /// and a binding returned as it is is not written again.
    #[test]
    fn a_copy_one_element_and_a_returned_binding_are_not_written_again() {
        let list: Vec<Noted> = (1..9).map(Noted).collect();
        let (quick, every) = writes("relabel", || relabel(&list, 0));
        // The list's eight records, then the new first one; every step and the return write them all.
        assert_eq!(quick, 8 + 1, "against {every} with every value");
    }

    #[traced]
    fn shadow(item: u32, pick: Option<u32>) -> u32 {
        let mut total = item;
        match pick {
            Some(item) => {
                total += item;
            }
            _ => {
                total += 1;
            }
        }
        total
    }

    /// The first step in a `match` arm's block sees what the scrutinee and the patterns did, not the
    /// whole statement: an arm's binding that shadows a local is written there, as the new one.
    #[test]
    fn a_binding_of_a_match_arm_is_written_at_the_arm_s_first_step() {
        writes("shadow", || shadow(1, Some(5)));
        let (recording, _) = record("shadow", Lang::En, &[], || shadow(1, Some(5)));
        let items = recording.steps.iter().flat_map(|step| recording.locals(step));
        let items: Vec<_> = items.filter(|l| l.name == "item").filter_map(|l| l.value).collect();
        assert!(items.iter().any(|item| item.get() == "5"), "{items:?}");
    }

    /// A model that only has its request noted.
    struct Echo;

    impl crate::lesson::agent_types::Model for Echo {
        fn reply(
            &mut self,
            request: &crate::lesson::agent_types::Request,
        ) -> Vec<crate::lesson::types::Block> {
            super::request(&request.messages, &request.tools, request);
            Vec::new()
        }

        fn describe(&self) -> std::borrow::Cow<'_, str> {
            "echo".into()
        }
    }

    /// Changes the request, then asks: the statement that calls this mentions `request`.
    fn shorten_and_ask(
        request: &mut crate::lesson::agent_types::Request,
        model: &mut dyn crate::lesson::agent_types::Model,
    ) -> usize {
        request.messages.pop();
        model.reply(request).len()
    }

    /// A request of `count` user messages, each long enough to be a value of its own.
    fn long_request(count: usize) -> crate::lesson::agent_types::Request {
        crate::lesson::agent_types::Request {
            tools: crate::lesson::agent_types::tool_definitions(Lang::En),
            messages: (0..count)
                .map(|n| crate::lesson::types::Message::user(&"q".repeat(90 + n)))
                .collect(),
        }
    }

    /// `run` recorded (with and without the shortcuts, which must agree), and how many messages each
    /// request it noted holds.
    fn requests_noted(
        target: &'static str,
        run: impl Fn() -> usize,
    ) -> (super::Recording, Vec<usize>) {
        writes(target, &run);
        let (recording, _) = record(target, Lang::En, &[], run);
        let sizes = recording.requests.iter().map(|r| r.messages.len()).collect();
        (recording, sizes)
    }

    #[traced]
    fn ask_twice(model: &mut dyn crate::lesson::agent_types::Model, count: usize) -> usize {
        let mut request = long_request(count);
        let first = model.reply(&request).len();
        let second = shorten_and_ask(&mut request, model);
        first + second
    }

    /// A request noted while the latest step's value of the local it is can stand for it (the
    /// first), and one changed by the statement running since (the second): both as written in full.
    #[test]
    fn a_request_is_noted_from_the_local_only_while_that_is_unchanged() {
        let (recording, sizes) = requests_noted("ask_twice", || ask_twice(&mut Echo, 6));
        assert_eq!(sizes, [6, 5]);
        // The first is the local's value, by its parts (the second's messages are a value of their own).
        let local = recording.steps[1].values[2].unwrap();
        let parts = super::part_indices(recording.values[local as usize].bytes());
        assert_eq!(recording.requests[0].tools, parts[0]);
    }

    /// A request local is stored from its parts (`Tables::request`), not from its text: what is
    /// stored is its whole text all the same, whether its messages are stored by their parts, whole,
    /// or are none.
    #[test]
    fn a_request_stored_from_its_parts_is_its_whole_text() {
        for count in [6, 1, 0] {
            let (recording, _) = requests_noted("ask_twice", || ask_twice(&mut Echo, count));
            let local = recording.steps[1].values[2].unwrap();
            let mut whole = Vec::new();
            super::Snapshot::write_json(&long_request(count), &mut whole);
            let by_parts = recording.parts.binary_search(&local).is_ok();
            assert_eq!(
                by_parts,
                super::split(&whole).is_some(),
                "as `store` would, {count} messages"
            );
            let whole = String::from_utf8(whole).unwrap();
            assert_eq!(recording.value(local).get(), whole, "{count} messages");
        }
    }

    #[traced]
    fn ask_while(model: &mut dyn crate::lesson::agent_types::Model, count: usize) -> usize {
        let mut request = long_request(count);
        let mut asked = 0;
        while asked < 2 && shorten_and_ask(&mut request, model) == 0 {
            asked += 1;
        }
        asked
    }

    /// A loop's condition runs after the pass's last statement, which does not mention what the
    /// condition changes: a request noted there is written in full.
    #[test]
    fn a_request_noted_in_a_loop_condition_is_written_in_full() {
        let (_, sizes) = requests_noted("ask_while", || ask_while(&mut Echo, 6));
        assert_eq!(sizes, [5, 4]);
    }

    #[traced]
    fn steal(first: u32) -> Vec<Noted> {
        let mut list: Vec<Noted> = (1..9).map(Noted).collect();
        list[0] = std::mem::replace(&mut list[7], Noted(first));
        list
    }

    /// An assignment to one element whose value changes another one (through `list`, which it
    /// mentions) has the whole list written again: the trace shows the new last record.
    #[test]
    fn an_element_set_from_the_list_itself_has_the_list_written_again() {
        let (quick, _) = writes("steal", || steal(0));
        // The list once bound, and again after the assignment: nothing more when it is returned.
        assert_eq!(quick, 8 + 8);
    }

    #[test]
    fn only_a_real_move_is_shown_as_moved() {
        let (recording, total) =
            record("copies_and_moves", Lang::En, &[], || copies_and_moves("ab", 1));
        assert_eq!(total, 4);
        let last = recording.steps.last().unwrap();
        let locals = recording.locals(last);
        let moved: Vec<&str> =
            locals.iter().filter(|l| l.value.is_none()).map(|l| l.name).collect();
        assert_eq!(moved, ["words"]);
        assert!(locals
            .iter()
            .any(|l| l.name == "text" && l.value.as_ref().map(|v| v.get()) == Some("\"ab\"")));
        assert!(locals
            .iter()
            .any(|l| l.name == "count" && l.value.as_ref().map(|v| v.get()) == Some("1")));
    }

    /// A long list of records, and an object holding one, are stored as their parts' indices, each part
    /// once, and read back as the very text serde_json wrote; what [`super::split`] leaves whole stays so.
    #[test]
    fn long_lists_of_records_are_stored_by_their_parts() {
        use super::{plain, Tables};
        use serde_json::json;
        let text = |value: &serde_json::Value| serde_json::to_vec(value).unwrap();
        let whole = |tables: &Tables, index: u32| {
            let mut out = Vec::new();
            plain(&tables.done.values, &tables.done.parts, index, &mut out);
            out
        };
        // Strings with the scanner's pitfalls: quotes, backslashes, brackets and commas, text outside ASCII.
        let message = |n: usize| json!({"role": "user", "content": format!("{n}: \"a\\\" ], {{ [读取] {}", "x".repeat(60))});
        let history: Vec<_> = (0..8).map(message).collect();
        let request = json!({"tools": [], "messages": history, "n": 1.5});
        let mut tables = Tables::default();
        let first = tables.store(&text(&message(0)), None);
        let list = tables.store(&text(&json!(history)), None);
        let object = tables.store(&text(&request), None);
        let values = &tables.done.values;
        assert_eq!(tables.done.parts, [list, object]);
        assert_eq!(values[list as usize].get(), format!("[{first},1,2,3,4,5,6,7]"));
        assert_eq!(
            values[object as usize].get(),
            format!(r#"{{"tools":9,"messages":{list},"n":10}}"#)
        );
        assert_eq!(whole(&tables, list), text(&json!(history)));
        assert_eq!(whole(&tables, object), text(&request));
        // Each one's whole length is known without writing it out.
        assert_eq!(tables.lengths, [list, object].map(|index| whole(&tables, index).len()));
        // The same text again is the same value, with or without a hint.
        assert_eq!(tables.store(&text(&request), None), object);
        assert_eq!(tables.store(&text(&json!(history)), Some(list)), list);
        assert_eq!(tables.list_value(&[first, 1, 2, 3, 4, 5, 6, 7], None), list);
        // Short lists, long lists of numbers and objects without such a list are stored whole.
        let count = tables.done.parts.len();
        for value in [json!(history[..2]), json!(vec![12345; 200]), json!({"a": "x".repeat(600)})] {
            let index = tables.store(&text(&value), None);
            assert_eq!(tables.done.values[index as usize].bytes(), text(&value));
        }
        assert_eq!(tables.done.parts.len(), count);
        // A list of two numbers written whole is not the list written by the parts 2 and 3.
        let by_parts = tables.intern(b"[2,3]", true, None);
        let two = tables.store(b"[2,3]", Some(by_parts));
        assert!(two != by_parts && !tables.done.parts.contains(&two));
    }

    /// A list made from stored entries (a host field's) is stored as `store` stores the same text,
    /// whole or by its parts, also at exactly [`super::PARTS_FROM`] bytes.
    #[test]
    fn a_list_of_entries_is_stored_as_its_text_is() {
        use super::{Tables, PARTS_FROM};
        for pad in 0..24 {
            // Two records; `pad` moves their joined text across PARTS_FROM a byte at a time.
            let record =
                |n: usize| format!(r#"{{"n":{n},"s":"{}"}}"#, "x".repeat(240 + (pad + n) / 2));
            let joined = format!("[{},{}]", record(1), record(2));
            let (mut by_entries, mut by_text) = (Tables::default(), Tables::default());
            let entries = [record(1), record(2)].map(|r| by_entries.store(r.as_bytes(), None));
            let list = by_entries.list_value(&entries, None);
            let same = by_text.store(joined.as_bytes(), None);
            assert_eq!(
                by_entries.done.parts.contains(&list),
                by_text.done.parts.contains(&same),
                "{} bytes (split from {PARTS_FROM})",
                joined.len()
            );
        }
    }

    /// `string_end` finds the closing quote wherever it and the escapes before it fall in a word.
    #[test]
    fn string_end_finds_the_closing_quote_at_every_place() {
        let naive = |text: &[u8], mut i: usize| loop {
            match text.get(i) {
                None => return i,
                Some(b'"') => return i + 1,
                Some(b'\\') => i += 2,
                Some(_) => i += 1,
            }
        };
        for len in 0..20 {
            for escape in 0..len {
                let mut text = vec![b'a'; len];
                text[escape] = b'\\';
                // An escaped quote, a quote after an escaped backslash, and an unclosed string.
                for (k, next) in [b'"', b'\\', b'b'].into_iter().enumerate() {
                    let mut text = text.clone();
                    if escape + 1 < len {
                        text[escape + 1] = next;
                    }
                    text.extend_from_slice(if k == 2 { b"" } else { b"x\"y" });
                    assert_eq!(super::string_end(&text, 0), naive(&text, 0), "{text:?}");
                }
            }
        }
    }

    #[test]
    fn same_bytes_compares_every_byte() {
        let text: Vec<u8> = (0..40).collect();
        for len in 0..text.len() {
            assert!(super::same_bytes(&text[..len], &text[..len]));
            assert!(!super::same_bytes(&text[..len], &text[..len + 1]));
            for at in 0..len {
                let mut other = text[..len].to_vec();
                other[at] ^= 1;
                assert!(!super::same_bytes(&text[..len], &other), "{len} {at}");
            }
        }
    }

    #[test]
    fn type_names_lose_their_paths() {
        assert_eq!(short_type_name("&alloc::vec::Vec<serde_json::value::Value>"), "&Vec<Value>");
        assert_eq!(
            short_type_name(
                "serde_json::map::Map<alloc::string::String, serde_json::value::Value>"
            ),
            "Map<String, Value>"
        );
        assert_eq!(short_type_name("(usize, &str)"), "(usize, &str)");
        assert_eq!(short_type_name("&mut todo_trace::lesson::types::State"), "&mut State");
        assert_eq!(short_type_name(""), "");
    }
}
