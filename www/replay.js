// The debugger's rules over a recorded trace, as pure functions: where each command goes, what the panes show.
//
// A position is -1 (not started), 0..n-1 (paused at steps[i]) or n (finished; the entry has printed its
// output). Steps with event "call" or "line" are about to run their line; "return" and "error" steps
// report a function that has just returned, their line being the last one it ran.

export const IDLE = -1;

const depth = (step) => step.stack.length;
const aboutToRun = (step) => step.event === 'call' || step.event === 'line';

/** The key of a breakpoint, also its form in the URL: `validate_todos.152`. */
export const breakpointKey = (symbol, line) => `${symbol}.${line}`;

/** Whether execution pauses at this step: breakpoints fire only when their line is about to run. */
export const hits = (step, breakpoints) =>
  aboutToRun(step) && breakpoints.has(breakpointKey(step.symbol, step.line));

/** The symbols a figure's traces pass through: its function and the ones it calls. */
export const tracedSymbols = (traces) => new Set([...traces].flatMap(({ steps }) => steps.map((step) => step.symbol)));

/** Lines where a step can pause (`step` in the listing), per symbol: the only lines that accept a breakpoint. */
export const breakableLines = (listings) =>
  new Map(listings.map(({ symbol, lines }) => [symbol, new Set(lines.filter((line) => line.step).map((line) => line.no))]));

// The first step after `pos` where `stop` holds, else the end.
function firstAfter(steps, pos, stop) {
  for (let i = pos + 1; i < steps.length; i++) if (stop(steps[i])) return i;
  return steps.length;
}

const finished = (steps, pos) => pos >= steps.length;

// Step over (up = 0) and step out (up = 1): run until the stack is `up` frames shallower than now, or a
// breakpoint hits; like a real debugger, a breakpoint inside a call still stops it.
const stepUp = (up) => (steps, pos, breakpoints) =>
  pos === IDLE || finished(steps, pos)
    ? Math.min(pos + 1, steps.length)
    : firstAfter(steps, pos, (s) => depth(s) <= depth(steps[pos]) - up || hits(s, breakpoints));

/** Where each command moves the position. Stepping from "not started" pauses at the first step. */
export const commands = {
  run: (steps) => steps.length,
  debug: (steps, pos, breakpoints) => firstAfter(steps, IDLE, (s) => hits(s, breakpoints)),
  continue: (steps, pos, breakpoints) => firstAfter(steps, pos, (s) => hits(s, breakpoints)),
  'step-into': (steps, pos) => Math.min(pos + 1, steps.length),
  'step-over': stepUp(0),
  'step-out': stepUp(1),
  'step-back': (steps, pos) => (pos > 0 ? pos - 1 : pos),
  restart: () => IDLE,
};

/** Whether a command would move from here; a control that would not is shown as unavailable. */
export const canRun = (command, steps, pos, breakpoints) =>
  commands[command](steps, pos, breakpoints) !== pos;

/** The steps (positions) where Continue would pause: the breakpoint ticks on the timeline. */
export const breakpointHits = (steps, breakpoints) =>
  steps.flatMap((step, i) => (hits(step, breakpoints) ? [i] : []));

// The previous step of the same function call, or -1: deeper steps (callees) are skipped, and a
// shallower step (the caller) or the end of an earlier call at the same depth means there is none.
function previousInFrame(steps, pos) {
  const d = depth(steps[pos]);
  for (let i = pos - 1; i >= 0; i--) {
    if (depth(steps[i]) > d) continue;
    return depth(steps[i]) === d && aboutToRun(steps[i]) ? i : -1;
  }
  return -1;
}

/** The listing to show: the function of the current step, else the figure's own. */
export function shownSymbol(steps, pos, figureSymbol) {
  if (pos === IDLE || steps.length === 0) return figureSymbol;
  return steps[Math.min(pos, steps.length - 1)].symbol;
}

/** The two markers in the shown listing: the line about to run and the line just run (or null). */
export function markers(steps, pos) {
  if (pos === IDLE) return { next: null, ran: null };
  if (finished(steps, pos)) return { next: null, ran: steps.at(-1)?.line ?? null };
  const step = steps[pos];
  if (!aboutToRun(step)) return { next: null, ran: step.line };
  const before = previousInFrame(steps, pos);
  return { next: step.line, ran: before === -1 ? null : steps[before].line };
}

/** The active calls, innermost first, each with the line it is at (callers: the line of the call). */
export function callStack(steps, pos) {
  if (pos === IDLE || finished(steps, pos)) return [];
  const step = steps[pos];
  const frames = [{ symbol: step.symbol, line: step.line }];
  for (let d = depth(step) - 1; d >= 1; d--) {
    const caller = steps.slice(0, pos).findLast((s) => depth(s) === d);
    frames.push({ symbol: step.stack[d - 1], line: caller.line });
  }
  return frames;
}

// Bindings can be shadowed, so a local is matched by its name and how many came before it with that name.
function localKeys(locals) {
  const seen = new Map();
  return locals.map((local) => {
    const n = seen.get(local.name) ?? 0;
    seen.set(local.name, n + 1);
    return `${local.name}#${n}`;
  });
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The current call's locals, each with `change`: "new" (bound since this call's previous step),
 * "changed" (value or moved-ness differs) or "" (the same, or the call's first step).
 */
export function localsView(steps, pos) {
  if (pos === IDLE || finished(steps, pos)) return [];
  const { locals } = steps[pos];
  const before = previousInFrame(steps, pos);
  if (before === -1) return locals.map((local) => ({ ...local, change: '' }));
  const earlier = new Map(localKeys(steps[before].locals).map((k, i) => [k, steps[before].locals[i]]));
  return localKeys(locals).map((key, i) => {
    const local = locals[i];
    const old = earlier.get(key);
    let change = '';
    if (!old) change = 'new';
    else if (old.moved !== local.moved || !same(old.value, local.value)) change = 'changed';
    return { ...local, change };
  });
}

/**
 * The host state at this position, with each array entry marked against the previous step:
 * `{key, entries: [{value, change: "new"|"changed"|"removed"|""}]}` per state field.
 */
export function stateView(steps, pos) {
  if (steps.length === 0) return [];
  const at = Math.min(Math.max(pos, 0), steps.length - 1);
  const now = steps[at].state;
  // Before the first step there is nothing to compare with; after the last, nothing changes any more.
  const prev = pos > 0 && !finished(steps, pos) ? steps[pos - 1].state : now;
  return Object.entries(now).map(([key, value]) => {
    const old = prev[key];
    const entries = value.map((entry, i) => {
      let change = '';
      if (i >= old.length) change = 'new';
      else if (!same(old[i], entry)) change = 'changed';
      return { value: entry, change };
    });
    for (const gone of old.slice(value.length)) entries.push({ value: gone, change: 'removed' });
    return { key, entries };
  });
}

/** What the entry had printed by this position; the whole output once finished. */
export function outputAt(trace, pos) {
  if (pos === IDLE) return [];
  if (finished(trace.steps, pos)) return trace.output;
  return trace.output.slice(0, trace.steps[pos].outputLines);
}

/**
 * The status line's facts: `{kind: "idle"|"paused"|"done"|"error", ...}`. A trace that ends in an
 * error (or was cut off at the step limit) finishes with kind "error".
 */
export function status(trace, pos) {
  const { steps, result } = trace;
  if (pos === IDLE) return { kind: 'idle', total: steps.length };
  if (finished(steps, pos)) {
    if (steps.at(-1)?.event === 'truncated') return { kind: 'error', truncated: true, total: steps.length };
    return result.ok
      ? { kind: 'done', total: steps.length }
      : { kind: 'error', error: result.error, total: steps.length };
  }
  const step = steps[pos];
  return {
    kind: 'paused',
    event: step.event,
    symbol: step.symbol,
    line: step.line,
    step: pos + 1,
    total: steps.length,
    value: step.value,
    error: step.error,
  };
}
