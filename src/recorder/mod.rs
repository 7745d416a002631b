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
//!
//! The files: `trace` (the data a trace is), `probe` (what the probes hand over), `frame` (a call
//! as the recorder follows it), `tables` (values stored once), and the two speed shortcuts that
//! need files of their own: `parts` (long values stored by their parts, and `read`, which reads them
//! back) and `write` (the steps and tables written out as JSON by hand). The others are in `step`
//! and `leave_with` below, each taken only when the probe's static facts prove it safe, and never
//! with `Settings::every_value`, which the tests hold them to.

use std::any::Any;
use std::cell::RefCell;

mod frame;
mod parts;
mod probe;
mod read;
mod tables;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_made;
mod trace;
mod write;

pub use probe::{
    a_vec, frozen, not_copy, Field, Hints, HostList, IsCopy, Made, NotCopy, Of, Probe, Snapshot,
};
pub use trace::{
    kept_fields, kept_requests, Binding, ErrorInfo, Event, FrameAt, Grown, HostField, HostView,
    Json, KeptField, KeptRequest, LocalAt, ModelRequest, Recording, Step, KEPT_FROM, MAX_STEPS,
};

use frame::{address, settled, Frame, Origin, Returned, Slot};
use probe::{same_list, same_span, Span};
use tables::{is_in, same_indices, same_static, Tables};
use trace::{mark_host, type_label};

/// How the host words an error a traced function returned, handed over as `&dyn Any`.
type Describe = dyn Fn(&dyn Any) -> ErrorInfo;

/// How a call ended, for its last step.
enum Ending {
    Value(u32),
    Failed(ErrorInfo),
}

/// How a recording runs.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// The host field that holds the stored conversation a model request is prepared from (see
    /// [`request`]); `None` where the figure has none.
    pub history: Option<&'static str>,
    /// At most this many steps (the last becomes `truncated`).
    pub limit: usize,
    /// Serialize every binding at every step instead of only those a statement mentions. Slow;
    /// tests use it to show that skipping never misses a change.
    pub every_value: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { limit: MAX_STEPS, every_value: false, history: None }
    }
}

/// The host's fields as value indices, in the figure's order.
type Host = Vec<(&'static str, Vec<u32>)>;

struct Recorder {
    /// Only calls of this function (and what it calls) are recorded; the entry's other calls are not.
    target: &'static str,
    /// How the host words an error a traced function returned (the recorder knows no error type).
    describe: Box<Describe>,
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
    pending: Vec<&'static str>,
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

/// Runs `run` while recording every step of `target`, starting from the host's `fields`. An error
/// a traced function returns is shown as its `Debug` text; [`record_with`] lets the host word it.
pub fn record<T>(
    target: &'static str,
    fields: &[(&'static str, &dyn HostList)],
    run: impl FnOnce() -> T,
) -> (Recording, T) {
    let describe = |_: &dyn Any| ErrorInfo {
        code: "error",
        message: "the function returned an error".into(),
        line: None,
        column: None,
    };
    record_with(target, fields, Settings::default(), describe, run)
}

/// [`record`] with other [`Settings`], and `describe` to word each error a traced function returns
/// (handed over as `&dyn Any`: the recorder knows no error type of the lesson's).
pub fn record_with<T>(
    target: &'static str,
    fields: &[(&'static str, &dyn HostList)],
    settings: Settings,
    describe: impl Fn(&dyn Any) -> ErrorInfo + 'static,
    run: impl FnOnce() -> T,
) -> (Recording, T) {
    let mut tables = Tables::sized();
    let host: Host =
        fields.iter().map(|&(key, list)| (key, tables.entries(list, &[], 0))).collect();
    let recorder = Recorder {
        target,
        describe: Box::new(describe),
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
pub fn decide(event: &'static str) {
    with(|r| r.pending.push(event));
}

/// Notes the request of a model call (`whole`, which hands the recorder its tools and messages:
/// [`Snapshot::fields`]): its prepared messages against the stored history as the latest step saw it
/// (the host's `messages` field), and its tools.
pub fn request(whole: &dyn Snapshot) {
    with(|r| {
        if r.truncated {
            return;
        }
        let history = history(&r.host, r.settings.history).to_vec();
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
        let written = || {
            let ((_, tools), (_, messages)) = r.tables.request_entries(whole, &history)?;
            Some((tools, messages))
        };
        let Some((tools, messages)) = stored.or_else(written) else { return };
        let differs = (0..messages.len() as u32)
            .filter(|&i| history.get(i as usize) != Some(&messages[i as usize]))
            .collect();
        let step = r.tables.done.steps.len() as u32;
        let at = step.saturating_sub(1);
        r.tables.done.requests.push(ModelRequest { at, step, tools, messages, history, differs });
    });
}

/// The stored history (the host field `Settings::history` names), as the latest step saw it.
fn history<'a>(host: &'a Host, field: Option<&'static str>) -> &'a [u32] {
    let found = host.iter().find(|(key, _)| Some(*key) == field);
    found.map_or(&[], |(_, entries)| entries)
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
                returned: Vec::new(),
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
                // A new entry is most likely made of what the call's locals held (`history.push(
                // Message::results(results))`).
                tables.likely(&frame.locals);
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
                    // Made of the value a traced call returned to this one by the statement just
                    // run (`Hints::made`): that value as stored when it returned, not written again.
                    let made =
                        probe.hints.made.iter().filter(|m| quick && same_static(m.binding, name));
                    let made = made.filter_map(|m| Some((&m.of, frame.returned_once(m.callee)?)));
                    let made = made.into_iter().find_map(|(of, (index, ty))| match *of {
                        Of::Whole => same_static(ty, value.type_name()).then_some(index),
                        Of::Field(field) => {
                            tables.request_made(*value, field, (index, ty), previous)
                        }
                        Of::Element(at) => tables.element_of(index, ty, at, value.type_name()),
                    });
                    // Pushed a binding onto by the statement just run: its value then, and that
                    // binding's value then appended.
                    let pushed = frame.probe.and_then(|latest| latest.hints.pushed);
                    let pushed = pushed.filter(|&(list, _)| quick && same_static(list, name));
                    let pushed = pushed.and_then(|(_, element)| {
                        let slot =
                            frame.locals.iter().find(|slot| same_static(slot.name, element))?;
                        tables.pushed(previous?, (slot.value?, slot.ty), value.type_name())
                    });
                    let index = match (made.or(copied).or(pushed), changed, entries) {
                        (Some(index), _, _) => index,
                        (_, Some((((_, at), element), previous)), _) => {
                            tables.element_changed(previous, at, element, *value)
                        }
                        (_, _, Some((_, entries))) => tables.list_value(entries, previous),
                        _ => {
                            let request = tables.request(
                                *value,
                                history(&r.host, r.settings.history),
                                previous,
                            );
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
        frame.returned.clear();
        r.spare = std::mem::replace(&mut frame.locals, locals);
        frame.scope = scope;
        r.push(None, scope, values, changes, was, ran);
    });
}

/// The epilogue of a traced function returning a `Result`.
pub fn leave_result<T: Snapshot, E: 'static>(frame: FrameGuard, result: &Result<T, E>) {
    let result = match result {
        Ok(value) => Ok(value as &dyn Snapshot),
        Err(error) => Err(error as &dyn Any),
    };
    leave_with(frame, std::any::type_name::<T>(), result);
}

/// The epilogue of a traced function returning a plain value.
pub fn leave_value<T: Snapshot>(frame: FrameGuard, value: &T) {
    leave_with(frame, std::any::type_name::<T>(), Ok(value));
}

/// The call's value, or the error it returned (for the host to word); `ty` is the value's type, for
/// the caller (`Frame::returned`). Not generic, so that each traced function's epilogue is a call.
fn leave_with(frame: FrameGuard, ty: &'static str, result: Result<&dyn Snapshot, &dyn Any>) {
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
            let quick = !r.settings.every_value;
            // The binding the last statement returned as it is, if it did (`Hints::returns`): the
            // call's value, already stored.
            let returns = top.probe.and_then(|latest| latest.hints.returns);
            let returned = returns.filter(|_| quick).and_then(|name| {
                top.locals.iter().find(|slot| same_static(slot.name, name))?.value
            });
            // The entries of a host field this call took from the list at `span`: a value holding
            // that list (the loop's outcome holds the history) has them, as the return step shows.
            let (origins, host) = (&r.origins, &r.host);
            let taken = |span: Span| {
                let same =
                    |origin: &&Origin| origin.frame == top.id && same_span(origin.span, span);
                let origin = origins.iter().find(same).filter(|_| quick)?;
                let (_, entries) = host.iter().find(|(key, _)| same_static(key, origin.key))?;
                Some(&entries[..])
            };
            r.tables.likely(&top.locals);
            let ending = match result {
                Ok(value) => Ending::Value(
                    returned
                        .or_else(|| r.tables.object(value, &taken))
                        .unwrap_or_else(|| r.tables.value(value, None)),
                ),
                Err(error) => Ending::Failed((r.describe)(error)),
            };
            let value = match ending {
                Ending::Value(value) => Some(value),
                Ending::Failed(_) => None,
            };
            let callee = top.symbol;
            r.push(Some(ending), scope, values, changes, Vec::new(), Some(line));
            // The caller's next step may find a binding made of this value (`Hints::made`).
            if let [.., caller, _] = &mut r.frames[..] {
                caller.returned.push(Returned { callee, value, ty });
            }
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
        self.tables.grow_lists();
        self.tables.done
    }
}
