// The debugger's movement rules over a recorded trace, as pure functions, and small accessors that decode a step.
// @ts-check
//
// A position is -1 (not started), 0..n-1 (paused at steps[i]) or n (finished; the entry has printed its
// output). Steps with event "call" or "line" are about to run their line; "return" and "error" steps
// report a function that has just returned, their line being the last one it ran. Everything else a pane
// shows (the calls, the line just run, what changed) is decided in Rust and read here as it is: a step names its
// function and line, and its caller's step (`caller`), so the active calls are that chain.

/** @typedef {import('./pkg/todo_trace.js').Trace} Trace */
/** @typedef {import('./pkg/todo_trace.js').Step} Step */
/** @typedef {import('./pkg/todo_trace.js').FrameAt} Frame */
/** @typedef {import('./pkg/todo_trace.js').Listing} Listing */
/** @typedef {import('./pkg/todo_trace.js').ErrorInfo} ErrorInfo */
/** @typedef {ReadonlySet<string>} Breakpoints the keys of `breakpointKey` */
/** @typedef {'run' | 'debug' | 'continue' | 'step-over' | 'step-into' | 'step-out' | 'step-back' | 'restart'} Command */
/** @typedef {'.' | '+' | '~' | 'm' | '-'} Change one character of `Step.changes` (a local: unchanged, new, changed, moved away) or `HostField.changes` (an entry: the same, new, changed, removed) */
/** @typedef {{name: string, type: string, value: unknown, moved: boolean, change: Change, was?: unknown}} Local `was`: for a changed local, its value at the call's previous step */
/** @typedef {{field: string, entries: {value: unknown, change: Change, was?: unknown}[]}} HostField */

export const IDLE = -1;

/** How many calls are active at steps[i]: the chain of callers' steps. @param {Step[]} steps @param {number} i */
function depth(steps, i) {
  let calls = 0;
  for (let at = /** @type {number | undefined} */ (i); at !== undefined; at = steps[at].caller) calls++;
  return calls;
}
const aboutToRun = (/** @type {Step} */ step) => step.event === 'call' || step.event === 'line';


/** The key of a breakpoint, also its form in the URL: `validate_todos.152`. */
export const breakpointKey = (/** @type {string} */ symbol, /** @type {number} */ line) => `${symbol}.${line}`;

/** The key of a breakpoint on a host decision (the loop figure's `Step.decisions`), also its form in the URL's `.on`. */
export const eventKey = (/** @type {string} */ event) => `on:${event}`;

/**
 * Whether execution pauses at this step: a line breakpoint fires only when its line is about to run; an event
 * breakpoint on the first step after the host made that decision (Rust put it there).
 */
export const hits = (/** @type {Step} */ step, /** @type {Breakpoints} */ breakpoints) =>
  // With no breakpoint set nothing can hit: Continue and the controls' availability scan every step of a long run
  // (a 100-call run has thousands), and a key made per step was most of a step's time there.
  breakpoints.size > 0 && ((aboutToRun(step) && breakpoints.has(breakpointKey(step.symbol, step.line))) ||
  (step.decisions?.some((event) => breakpoints.has(eventKey(event))) ?? false));

/** The symbols a trace passes through: its function and the ones it calls. @param {Trace} trace */
export const tracedSymbols = (trace) => new Set(trace.steps.map((step) => step.symbol));

/**
 * Lines where a step can pause (`step` in the listing), per symbol: the only lines that accept a breakpoint.
 * @param {Listing[]} listings
 * @returns {Map<string, Set<number>>}
 */
export const breakableLines = (listings) =>
  new Map(listings.map(({ symbol, lines }) => [symbol, new Set(lines.filter((line) => line.step).map((line) => line.no))]));

/**
 * The first step after `pos` where `stop` holds, else the end.
 * @param {Step[]} steps @param {number} pos @param {(step: Step, i: number) => boolean} stop
 */
function firstAfter(steps, pos, stop) {
  for (let i = pos + 1; i < steps.length; i++) if (stop(steps[i], i)) return i;
  return steps.length;
}

const finished = (/** @type {Step[]} */ steps, /** @type {number} */ pos) => pos >= steps.length;

/** @typedef {(steps: Step[], pos: number, breakpoints: Breakpoints) => number} Move */

/**
 * Step over (up = 0) and step out (up = 1): run until the stack is `up` frames shallower than now, or a
 * breakpoint hits; like a real debugger, a breakpoint inside a call still stops it.
 * @param {number} up @returns {Move}
 */
const stepUp = (up) => (steps, pos, breakpoints) => {
  if (pos === IDLE || finished(steps, pos)) return Math.min(pos + 1, steps.length);
  const limit = depth(steps, pos) - up;
  return firstAfter(steps, pos, (s, i) => depth(steps, i) <= limit || hits(s, breakpoints));
};

/** Where each command moves the position. Stepping from "not started" pauses at the first step. @type {Record<Command, Move>} */
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
export const canRun = (/** @type {Command} */ command, /** @type {Step[]} */ steps, /** @type {number} */ pos, /** @type {Breakpoints} */ breakpoints) =>
  commands[command](steps, pos, breakpoints) !== pos;

/** The steps (positions) where Continue would pause: the breakpoint ticks on the timeline. */
export const breakpointHits = (/** @type {Step[]} */ steps, /** @type {Breakpoints} */ breakpoints) =>
  steps.flatMap((step, i) => (hits(step, breakpoints) ? [i] : []));

/** The step shown at `pos`, or null when not started or finished. @param {Step[]} steps @param {number} pos */
export const stepAt = (steps, pos) => (pos === IDLE || finished(steps, pos) ? null : steps[pos]);

/** The listing to show: the function of the current step, else the figure's own. */
export function shownSymbol(/** @type {Step[]} */ steps, /** @type {number} */ pos, /** @type {string} */ figureSymbol) {
  if (pos === IDLE || steps.length === 0) return figureSymbol;
  return steps[Math.min(pos, steps.length - 1)].symbol;
}

/**
 * The two markers in the shown listing: the line about to run and the line just run (or null).
 * @param {Step[]} steps @param {number} pos
 * @returns {{next: number | null, ran: number | null}}
 */
export function markers(steps, pos) {
  if (pos === IDLE) return { next: null, ran: null };
  const last = steps.at(-1);
  if (finished(steps, pos)) return { next: null, ran: last ? last.line : null };
  const step = steps[pos];
  if (!aboutToRun(step)) return { next: null, ran: step.line };
  return { next: step.line, ran: step.ran ?? null };
}

/**
 * The active calls at `pos`, outermost first, each with the line it is at (callers: the line of the call) and its
 * latest step (a caller's: the step at that line, with the caller's locals); none when not started or finished.
 * @param {Step[]} steps @param {number} pos @returns {Frame[]}
 */
export function framesAt(steps, pos) {
  const frames = [];
  for (let at = stepAt(steps, pos) ? pos : undefined; at !== undefined; at = steps[at].caller) {
    frames.push({ symbol: steps[at].symbol, line: steps[at].line, step: at });
  }
  return frames.reverse();
}

/** The active calls, innermost first, each with the line it is at (callers: the line of the call). */
export const callStack = (/** @type {Step[]} */ steps, /** @type {number} */ pos) => framesAt(steps, pos).reverse();

/**
 * The current call's locals, each marked as Rust marked it against the call's previous step.
 * @param {Trace} trace @param {Step} step
 * @returns {Local[]}
 */
export function localsOf(trace, step) {
  let changed = 0; // Rust gives one `was` per "~", in order
  return trace.scopes[step.scope].map((b, i) => {
    const at = step.values[i];
    const change = /** @type {Change} */ (step.changes[i]);
    const was = change === '~' ? step.was?.[changed++] : undefined;
    return {
      ...trace.bindings[b],
      value: at === null ? null : trace.values[at],
      moved: at === null,
      change,
      ...(was === undefined || was === null ? {} : { was: trace.values[was] }),
    };
  });
}

/**
 * Which recorded host state a position shows: its index in `trace.hosts`, or -1 when nothing ran. Before the first
 * step it is the first step's; once finished, the state before the call (the trace's `effect`) when there is one,
 * so what the whole call did stays visible.
 * @param {Trace} trace @param {number} pos
 */
export function hostViewAt(trace, pos) {
  const { steps } = trace;
  if (steps.length === 0) return -1;
  return finished(steps, pos) && trace.effect !== undefined ? trace.effect : steps[Math.min(Math.max(pos, 0), steps.length - 1)].host;
}

/**
 * A recorded host state, each entry marked against the previous step; with `idle` (before the first step) unmarked,
 * and without the entries that step removed.
 * @param {Trace} trace @param {number} view an index in `trace.hosts` (hostViewAt), -1 for none @param {boolean} idle
 * @returns {HostField[]}
 */
export function hostFields(trace, view, idle) {
  if (view < 0) return [];
  return trace.hosts[view].map(({ field, entries, changes, was }) => {
    let changed = 0; // one `was` per "~", in order
    return {
      field,
      entries: entries
        .map((at, i) => {
          const change = /** @type {Change} */ (idle ? '.' : changes[i]);
          const before = changes[i] === '~' ? was?.[changed++] : undefined;
          return { value: trace.values[at], change, ...(before === undefined || idle ? {} : { was: trace.values[before] }) };
        })
        .filter((_, i) => !idle || changes[i] !== '-'),
    };
  });
}

/**
 * The host state at this position, each entry marked against the previous step (hostViewAt, hostFields).
 * @param {Trace} trace @param {number} pos
 * @returns {HostField[]}
 */
export const hostAt = (trace, pos) => hostFields(trace, hostViewAt(trace, pos), pos === IDLE);

/** The value a return step returned. @param {Trace} trace @param {Step} step */
export const returned = (trace, step) => (step.value === undefined ? undefined : trace.values[step.value]);

/** How many lines the entry had printed by this position; all of them once finished. @param {Trace} trace @param {number} pos */
export function outputCount(trace, pos) {
  if (pos === IDLE) return 0;
  if (finished(trace.steps, pos)) return trace.output.length;
  return trace.steps[pos].outputLines ?? 0;
}

/** What the entry had printed by this position; the whole output once finished. @param {Trace} trace @param {number} pos */
export const outputAt = (trace, pos) => trace.output.slice(0, outputCount(trace, pos));

/**
 * @typedef {{kind: 'idle', total: number}
 *   | {kind: 'done', total: number}
 *   | {kind: 'error', total: number, truncated?: true, error?: ErrorInfo}
 *   | {kind: 'paused', event: Step['event'], symbol: string, line: number, step: number, total: number, error?: ErrorInfo}} Status
 */

/**
 * The status line's facts. A trace that ends in an error (or was cut off at the step limit) finishes with kind "error".
 * @param {Trace} trace @param {number} pos
 * @returns {Status}
 */
export function status(trace, pos) {
  const { steps, result } = trace;
  if (pos === IDLE) return { kind: 'idle', total: steps.length };
  if (finished(steps, pos)) {
    if (steps.at(-1)?.event === 'truncated') return { kind: 'error', truncated: true, total: steps.length };
    return result.ok ? { kind: 'done', total: steps.length } : { kind: 'error', error: result.error, total: steps.length };
  }
  const step = steps[pos];
  const { symbol, line } = step;
  return { kind: 'paused', event: step.event, symbol, line, step: pos + 1, total: steps.length, error: step.error };
}
