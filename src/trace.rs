//! The step recorder: what `#[traced]` probes write to while one figure runs.
//!
//! Recording is per thread and off unless [`record`] is running, so the lesson functions behave
//! as plain functions everywhere else (the probes only check a flag).

use serde::Serialize;
use serde_json::Value;
use std::cell::RefCell;

use crate::lesson::{Lang, TodoError};

/// At most this many steps are kept; the next one becomes a final `truncated` step.
pub const MAX_STEPS: usize = 10_000;

/// One pause of the debugger: where execution is and what it can see.
#[derive(Serialize, Clone, Debug, PartialEq)]
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
    pub state: Value,
    /// How many lines of the trace's output had been printed before this step.
    pub output_lines: usize,
}

/// What kind of pause a step is; `event` is the tag JS switches on.
#[derive(Serialize, Clone, Debug, PartialEq)]
#[serde(tag = "event", rename_all = "lowercase")]
pub enum Event {
    /// The first statement of a function, about to run.
    Call,
    /// Any later statement, about to run.
    Line,
    /// The function has returned `value`; `line` is the last line it ran.
    Return { value: Value },
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
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct Local {
    pub name: &'static str,
    #[serde(rename = "type")]
    pub ty: &'static str,
    /// `null` once the binding was moved out.
    pub value: Value,
    pub moved: bool,
}

impl Local {
    pub fn of<T: Serialize + ?Sized>(name: &'static str, value: &T) -> Local {
        Local {
            name,
            ty: type_label(std::any::type_name::<T>()),
            value: to_json(value),
            moved: false,
        }
    }

    /// A binding whose value was moved away; its type is filled in from earlier steps.
    pub fn moved(name: &'static str) -> Local {
        Local { name, ty: "", value: Value::Null, moved: true }
    }
}

/// [`short_type_name`], worked out once per type and kept for good (a few dozen short strings): a
/// trace asks for the same few types hundreds of times, and a shared label costs no allocation.
fn type_label(full: &'static str) -> &'static str {
    thread_local! {
        static LABELS: RefCell<Vec<(&'static str, &'static str)>> = const { RefCell::new(Vec::new()) };
    }
    LABELS.with(|labels| {
        let mut labels = labels.borrow_mut();
        if let Some(&(_, label)) = labels.iter().find(|(name, _)| std::ptr::eq(*name, full)) {
            return label;
        }
        let label: &'static str = Box::leak(short_type_name(full).into_boxed_str());
        labels.push((full, label));
        label
    })
}

/// `alloc::vec::Vec<serde_json::value::Value>` -> `Vec<Value>`: the names a reader wrote.
fn short_type_name(full: &str) -> String {
    let mut out = String::with_capacity(full.len());
    let mut word = String::new();
    for ch in full.chars().chain(std::iter::once(' ')) {
        if ch.is_alphanumeric() || ch == '_' || ch == ':' {
            word.push(ch);
            continue;
        }
        out.push_str(word.rsplit("::").next().unwrap_or(&word));
        word.clear();
        out.push(ch);
    }
    out.pop();
    out
}

fn to_json<T: Serialize + ?Sized>(value: &T) -> Value {
    // Every lesson type serializes to JSON; a failure would be a bug, shown rather than hidden.
    serde_json::to_value(value).unwrap_or_else(|error| Value::String(format!("<{error}>")))
}

/// A binding as a probe hands it over, whatever its type. Probes pass `&dyn Snapshot` and `step`
/// makes the [`Local`]s, rather than each probe building them: one call per probe instead of one
/// per binding keeps the instrumented functions small, and nothing is copied while no one records.
pub trait Snapshot {
    fn local(&self, name: &'static str) -> Local;
    /// The value a host binding contributes to the state snapshot.
    fn host(&self) -> Value;
}

impl<T: Serialize + ?Sized> Snapshot for T {
    fn local(&self, name: &'static str) -> Local {
        Local::of(name, self)
    }

    fn host(&self) -> Value {
        to_json(self)
    }
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
    host: Value,
    frames: Vec<Frame>,
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
    host: Value,
    run: impl FnOnce() -> T,
) -> (Recording, T) {
    record_with_limit(target, lang, host, MAX_STEPS, run)
}

/// [`record`] with a different step limit (the tests use a small one).
pub fn record_with_limit<T>(
    target: &'static str,
    lang: Lang,
    host: Value,
    limit: usize,
    run: impl FnOnce() -> T,
) -> (Recording, T) {
    let recorder = Recorder {
        target,
        lang,
        limit: limit.max(1),
        host,
        frames: Vec::new(),
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
/// `bindings` are the locals in scope, `None` for one moved away; `host` the host-owned ones.
pub fn step(line: u32, bindings: &[(&'static str, Option<&dyn Snapshot>)], host: &[&dyn Snapshot]) {
    with(|r| {
        if r.silent > 0 {
            return;
        }
        for value in host {
            r.merge_host(value.host());
        }
        let mut locals: Vec<Local> = bindings
            .iter()
            .map(|&(name, value)| value.map_or_else(|| Local::moved(name), |v| v.local(name)))
            .collect();
        let Some(frame) = r.frames.last_mut() else {
            return;
        };
        let event = if frame.last_line.is_none() { Event::Call } else { Event::Line };
        let before = frame.last_step.map(|i| &r.done.steps[i].locals);
        for local in locals.iter_mut().filter(|l| l.moved) {
            if let Some(before) = before.and_then(|b| b.iter().find(|b| b.name == local.name)) {
                local.ty = before.ty;
            }
        }
        frame.last_line = Some(line);
        if r.push(line, event, locals) {
            let last = r.done.steps.len() - 1;
            if let Some(frame) = r.frames.last_mut() {
                frame.last_step = Some(last);
            }
        }
    });
}

/// The epilogue of a traced function returning a `Result`.
pub fn leave_result<T: Serialize>(frame: FrameGuard, result: &Result<T, TodoError>) {
    let event = |lang| match result {
        Ok(value) => Event::Return { value: to_json(value) },
        Err(error) => Event::Error { error: error.info(lang) },
    };
    leave_with(frame, event);
}

/// The epilogue of a traced function returning a plain value.
pub fn leave_value<T: Serialize>(frame: FrameGuard, value: &T) {
    leave_with(frame, |_| Event::Return { value: to_json(value) });
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
    /// Host bindings are objects; their fields replace the same fields of the snapshot.
    fn merge_host(&mut self, value: Value) {
        if let (Value::Object(host), Value::Object(fields)) = (&mut self.host, value) {
            for (key, field) in fields {
                host.insert(key, field);
            }
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
            state: self.host.clone(),
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
    }
}
