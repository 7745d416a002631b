//! The step recorder: what `#[traced]` probes write to while one figure runs.
//!
//! Recording is per thread and off unless [`record`] is running, so the lesson functions behave
//! as plain functions everywhere else (the probes only check a flag).

use serde::{Serialize, Serializer};
use serde_json::value::RawValue;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Mutex;

use crate::lesson::{Lang, TodoError};

/// A recorded value as JSON text. Shared: a value that did not change since the step before is
/// the same allocation, not a copy (most locals do not change from one step to the next).
pub type Json = Rc<RawValue>;

/// At most this many steps are kept; the next one becomes a final `truncated` step.
pub const MAX_STEPS: usize = 10_000;

/// One pause of the debugger: where execution is and what it can see.
///
/// Values are kept as JSON text ([`Json`]), written once when recorded: the trace crosses to JS
/// as JSON text anyway, and building a `Value` tree per local per step was most of a trace's time
/// and code.
#[derive(Serialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    pub symbol: &'static str,
    pub line: u32,
    #[serde(flatten)]
    pub event: Event,
    /// Symbols of the active frames, outermost first.
    pub stack: Vec<&'static str>,
    pub locals: Vec<Local>,
    /// Host-owned data: always `items`; for prepare also `messages`.
    pub state: Json,
    /// How many lines of the trace's output had been printed before this step.
    pub output_lines: usize,
}

/// What kind of pause a step is; `event` is the tag JS switches on.
#[derive(Serialize, Clone, Debug)]
#[serde(tag = "event", rename_all = "lowercase")]
pub enum Event {
    /// The first statement of a function, about to run.
    Call,
    /// Any later statement, about to run.
    Line,
    /// The function has returned `value`; `line` is the last line it ran.
    Return { value: Json },
    /// The function has returned an error; `line` is the last line it ran.
    Error { error: ErrorInfo },
    /// The step limit was reached; nothing after this was recorded.
    Truncated,
}

/// An error as the page shows it: a stable code and a message in the trace's language.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct ErrorInfo {
    pub code: &'static str,
    pub message: String,
    /// For input that failed to parse: where, 1-based.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
}

/// A local binding as the locals pane shows it.
#[derive(Serialize, Clone, Debug)]
pub struct Local {
    pub name: &'static str,
    #[serde(rename = "type")]
    pub ty: &'static str,
    /// `null` once the binding was moved out.
    pub value: Json,
    pub moved: bool,
}

/// A Rust type as a reader wrote it, worked out once per type: a trace asks for the same dozen
/// types hundreds of times. The labels are kept for the life of the module in a static table
/// (a few hundred bytes), so they cost no allocation per step and are never freed while in use.
fn type_label(full: &'static str) -> &'static str {
    static LABELS: Mutex<Vec<(&'static str, &'static str)>> = Mutex::new(Vec::new());
    let mut labels = LABELS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(&(_, label)) = labels.iter().find(|(name, _)| *name == full) {
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
        let (path, tail) = rest.split_at(end.unwrap_or(rest.len()));
        out.push_str(path.rsplit("::").next().unwrap_or(path));
        let mut chars = tail.chars();
        out.extend(chars.next());
        rest = chars.as_str();
    }
    out
}

/// `value` as JSON text (`()` is `null`). Every lesson type serializes to JSON; a failure would
/// be a bug, shown in the trace rather than hidden.
pub fn raw_json<T: Serialize + ?Sized>(value: &T) -> Json {
    let raw = serde_json::value::to_raw_value(value)
        .or_else(|error| serde_json::value::to_raw_value(&format!("<{error}>")))
        .unwrap_or_default();
    Rc::from(raw)
}

/// A binding as a probe hands it over, whatever its type. Probes pass `&dyn Snapshot` and `step`
/// makes the [`Local`]s, rather than each probe building them: one call per probe instead of one
/// per binding keeps the instrumented functions small, and nothing is copied while no one records.
pub trait Snapshot {
    fn json(&self) -> Json;
    /// The value's JSON text into `out`, to compare with what an earlier step recorded.
    fn write_json(&self, out: &mut Vec<u8>);
    /// The type as a reader wrote it.
    fn type_label(&self) -> &'static str;
}

impl<T: Serialize + ?Sized> Snapshot for T {
    fn json(&self) -> Json {
        raw_json(self)
    }

    fn write_json(&self, out: &mut Vec<u8>) {
        if serde_json::to_writer(&mut *out, self).is_err() {
            out.clear();
        }
    }

    fn type_label(&self) -> &'static str {
        type_label(std::any::type_name::<T>())
    }
}

/// The host-owned data as named fields (`items`, `messages`), serialized as one JSON object.
pub type Host = Vec<(&'static str, Json)>;

/// The host's fields, from the values the call entry starts with.
pub fn host(fields: &[(&'static str, &dyn Snapshot)]) -> Host {
    fields.iter().map(|&(key, value)| (key, value.json())).collect()
}

fn host_json(host: &Host) -> Json {
    struct Fields<'a>(&'a Host);
    impl Serialize for Fields<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.collect_map(self.0.iter().map(|(key, value)| (key, value)))
        }
    }
    raw_json(&Fields(host))
}

/// Everything one recording collects.
#[derive(Debug, Default)]
pub struct Recording {
    pub steps: Vec<Step>,
    pub output: Vec<String>,
}

struct Frame {
    symbol: &'static str,
    last_line: Option<u32>,
    /// Where in `done.steps` this frame's latest step is: its locals are the frame's last known ones
    /// (an index, not a copy, because copying every local at every step was a fifth of a trace's time).
    last_step: Option<usize>,
}

struct Recorder {
    /// Only calls of this function (and what it calls) are recorded; the entry's other calls are not.
    target: &'static str,
    lang: Lang,
    limit: usize,
    host: Host,
    /// `host` as JSON text, shared by every step until the host changes.
    host_json: Json,
    frames: Vec<Frame>,
    /// Where a probe writes a value to see whether it changed since the frame's last step.
    scratch: Vec<u8>,
    /// Frames entered outside the target, counted so that their probes are ignored.
    silent: usize,
    done: Recording,
}

thread_local! {
    static RECORDER: RefCell<Option<Recorder>> = const { RefCell::new(None) };
}

/// Runs `run` while recording every step of `target`, starting from the host snapshot `host`.
pub fn record<T>(
    target: &'static str,
    lang: Lang,
    host: Host,
    run: impl FnOnce() -> T,
) -> (Recording, T) {
    record_with_limit(target, lang, host, MAX_STEPS, run)
}

/// [`record`] with a different step limit (the tests use a small one).
pub fn record_with_limit<T>(
    target: &'static str,
    lang: Lang,
    host: Host,
    limit: usize,
    run: impl FnOnce() -> T,
) -> (Recording, T) {
    let recorder = Recorder {
        target,
        lang,
        limit: limit.max(1),
        host_json: host_json(&host),
        host,
        frames: Vec::new(),
        scratch: Vec::new(),
        silent: 0,
        done: Recording::default(),
    };
    // Replacing (not asserting empty) lets a later call recover after an earlier one trapped.
    RECORDER.with(|r| *r.borrow_mut() = Some(recorder));
    let value = run();
    let recorder = RECORDER.with(|r| r.borrow_mut().take());
    (recorder.map(|r| r.done).unwrap_or_default(), value)
}

pub fn recording() -> bool {
    RECORDER.with(|r| r.borrow().is_some())
}

fn with<R>(f: impl FnOnce(&mut Recorder) -> R) -> Option<R> {
    RECORDER.with(|r| r.borrow_mut().as_mut().map(f))
}

/// Prints lines to the trace's output (the figure's output pane); each `\n` starts a new line.
pub fn say(text: impl AsRef<str>) {
    with(|r| r.done.output.extend(text.as_ref().split('\n').map(str::to_owned)));
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
            r.frames.push(Frame { symbol, last_line: None, last_step: None });
            true
        }
    });
    FrameGuard { recorded: recorded.unwrap_or(false) }
}

/// The probe before a statement: records a `call` step for a frame's first statement, else `line`.
///
/// `names[i]` goes with `values[i]`, the locals in scope; `None` is a binding that was moved
/// away. The names are a constant per probe, so a probe only lays out the values: that keeps the
/// instrumented functions (and the module) small. `host` are the host fields the function can see
/// (`#[traced(host(items = state.items))]`), each replacing the field of that name.
pub fn step(
    line: u32,
    names: &'static [&'static str],
    values: &[Option<&dyn Snapshot>],
    host: &[(&'static str, &dyn Snapshot)],
) {
    with(|r| {
        if r.silent > 0 {
            return;
        }
        if !host.is_empty() {
            for &(key, value) in host {
                r.set_host(key, value.json());
            }
            r.host_json = host_json(&r.host);
        }
        let Some(frame) = r.frames.last_mut() else {
            return;
        };
        let event = if frame.last_line.is_none() { Event::Call } else { Event::Line };
        frame.last_line = Some(line);
        let before: &[Local] = frame.last_step.map_or(&[], |i| &r.done.steps[i].locals);
        let locals = names
            .iter()
            .zip(values)
            .map(|(&name, value)| {
                let earlier = before.iter().find(|b| b.name == name);
                match value {
                    Some(value) => Local {
                        name,
                        ty: value.type_label(),
                        value: unchanged_or_new(&mut r.scratch, *value, earlier),
                        moved: false,
                    },
                    // Moved away: no value any more, but the type it had.
                    None => Local {
                        name,
                        ty: earlier.map_or("", |b| b.ty),
                        value: raw_json(&()),
                        moved: true,
                    },
                }
            })
            .collect();
        if r.push(line, event, locals) {
            let last = r.done.steps.len() - 1;
            if let Some(frame) = r.frames.last_mut() {
                frame.last_step = Some(last);
            }
        }
    });
}

/// `value` as JSON, sharing `earlier`'s text when the value has not changed.
fn unchanged_or_new(scratch: &mut Vec<u8>, value: &dyn Snapshot, earlier: Option<&Local>) -> Json {
    scratch.clear();
    value.write_json(scratch);
    match earlier {
        Some(earlier) if !earlier.moved && earlier.value.get().as_bytes() == scratch.as_slice() => {
            earlier.value.clone()
        }
        _ => value.json(),
    }
}

/// The epilogue of a traced function returning a `Result`.
pub fn leave_result<T: Serialize>(frame: FrameGuard, result: &Result<T, TodoError>) {
    let event = |lang| match result {
        Ok(value) => Event::Return { value: raw_json(value) },
        Err(error) => Event::Error { error: error.info(lang) },
    };
    leave_with(frame, event);
}

/// The epilogue of a traced function returning a plain value.
pub fn leave_value<T: Serialize>(frame: FrameGuard, value: &T) {
    leave_with(frame, |_| Event::Return { value: raw_json(value) });
}

fn leave_with(frame: FrameGuard, event: impl FnOnce(Lang) -> Event) {
    if frame.recorded {
        with(|r| {
            let Some(top) = r.frames.last() else { return };
            let Some(line) = top.last_line else { return };
            let locals = top.last_step.map(|i| r.done.steps[i].locals.clone()).unwrap_or_default();
            let event = event(r.lang);
            r.push(line, event, locals);
        });
    }
    drop(frame);
}

impl Recorder {
    /// A host field as a probe saw it replaces the field of that name.
    fn set_host(&mut self, key: &'static str, value: Json) {
        match self.host.iter_mut().find(|(known, _)| *known == key) {
            Some(field) => field.1 = value,
            None => self.host.push((key, value)),
        }
    }

    /// Records a step; false when nothing was recorded (the trace was already truncated).
    fn push(&mut self, line: u32, event: Event, locals: Vec<Local>) -> bool {
        let steps = &mut self.done.steps;
        if matches!(steps.last(), Some(Step { event: Event::Truncated, .. })) {
            return false;
        }
        let event = if steps.len() + 1 >= self.limit { Event::Truncated } else { event };
        let Some(top) = self.frames.last() else {
            return false;
        };
        steps.push(Step {
            symbol: top.symbol,
            line,
            event,
            stack: self.frames.iter().map(|f| f.symbol).collect(),
            locals,
            state: self.host_json.clone(),
            output_lines: self.done.output.len(),
        });
        true
    }
}

#[cfg(test)]
mod tests {
    use super::short_type_name;

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
        assert_eq!(short_type_name("&mut todo_trace::types::State"), "&mut State");
        assert_eq!(short_type_name(""), "");
    }
}
