// @ts-check
// The JS API of the module: checks each argument, reads an author's value once (value.js), and parses what the module returns.
//
// The wasm exports (src/api/mod.rs) take only strings (a run file as UTF-8 bytes: runBytes) and return JSON
// text, so no JS value ever enters Rust: nothing a getter or a Proxy does can run, or throw, inside a Rust frame.
// Everything a trace holds is decided in Rust; this file only turns text into objects, and makes whole the long values
// the recorder stored by their parts.
//
// Two builds of one crate answer it: the whole module (pkg/, every figure) and the plan module (pkg-plan/, figures 1–3
// in about half the bytes), which a page fetches first so its first figures need not wait for the loop's code. Each
// call goes to the whole module once it is loaded, else to the plan module, which answers a loop call with an Error
// that says so.
import { MAX_INPUT_BYTES, readValue } from './value.js';

/** @typedef {import('./pkg/todo_trace.js').Trace} Trace */
/** @typedef {import('./pkg/todo_trace.js').Figure} Figure */
/** @typedef {import('./pkg/todo_trace.js').Scenario} Scenario */
/** @typedef {import('./pkg/todo_trace.js').Listing} Listing */
/** @typedef {import('./pkg/todo_trace.js').Lang} Lang */
/** @typedef {import('./pkg/todo_trace.js').RunFile} RunFile */
/** @typedef {import('./pkg/todo_trace.js').WhatIf} WhatIf */

/** @typedef {typeof import('./pkg/todo_trace.js')} Module */
/** @typedef {import('./pkg/todo_trace.js').InitInput | Promise<import('./pkg/todo_trace.js').InitInput>} ModuleSource */

/** @type {Module | null} */
let whole = null;
/** @type {Module | null} */
let plan = null;

/** The module a call goes to. @returns {Module} */
function wasm() {
  const loaded = whole ?? plan;
  if (!loaded) throw new Error('the module is not loaded: call init() first');
  return loaded;
}

/**
 * Loads the whole module: every figure. Resolves to the module's exports, as wasm-bindgen's init does.
 * @param {{module_or_path?: ModuleSource}} [options] where the wasm comes from; by default pkg/todo_trace_bg.wasm
 */
export default async function init(options) {
  const glue = await import('./pkg/todo_trace.js');
  const exports = await glue.default(options);
  whole = glue;
  return exports;
}

/**
 * Loads the plan module: figures 1–3 only. Calls about the loop figure throw until init() has loaded the whole one.
 * @param {{module_or_path?: ModuleSource}} [options] where the wasm comes from; by default pkg-plan/todo_trace_bg.wasm
 */
export async function initPlan(options) {
  const glue = /** @type {Module} */ (await import('./pkg-plan/todo_trace.js'));
  const exports = await glue.default(options);
  plan = glue;
  return exports;
}

/** Ids, symbols and languages are cut to this many UTF-16 units: none is nearly as long, and an error quotes only 40 characters. */
const MAX_NAME_UNITS = 256;

/**
 * The text of string argument `name`, at most MAX_NAME_UNITS long. Anything else is a TypeError that names the
 * value's type, never the value (which may be huge, or a Proxy whose traps run code).
 * @param {string} name @param {unknown} value @returns {string}
 */
function text(name, value) {
  return string(name, value).slice(0, MAX_NAME_UNITS);
}

/** `value` if it is a string, else the TypeError. @param {string} name @param {unknown} value @returns {string} */
function string(name, value) {
  if (typeof value === 'string') return value;
  throw new TypeError(`${name} must be a string, not ${kind(value)}`);
}

/** The type a TypeError names. Array.isArray runs no trap, but throws on a revoked Proxy: that one is an object. @param {unknown} value */
function kind(value) {
  if (value === null) return 'null';
  try {
    if (Array.isArray(value)) return 'array';
  } catch {
    // A revoked Proxy.
  }
  return typeof value;
}

/** The figures, in the lesson's order. @returns {Figure[]} */
export function figures() {
  return JSON.parse(wasm().figuresJson());
}

/** A figure's scenarios, labelled in `lang`; exactly one has `isDefault`. @param {unknown} figureId @param {unknown} lang @returns {Scenario[]} */
export function scenarios(figureId, lang) {
  return JSON.parse(wasm().scenariosJson(text('figureId', figureId), text('lang', lang)));
}

/** The listing of a lesson function or call entry, cut from the compiled source file. @param {unknown} symbol @returns {Listing} */
export function source(symbol) {
  return JSON.parse(wasm().sourceJson(text('symbol', symbol)));
}

/** Runs a figure's scenario and returns every step. @param {unknown} figureId @param {unknown} scenarioId @param {unknown} lang @returns {Trace} */
export function trace(figureId, scenarioId, lang) {
  return traceFrom(wasm().traceJson(text('figureId', figureId), text('scenarioId', scenarioId), text('lang', lang)));
}

/**
 * Runs a figure on the reader's own text (JSON or a Python literal). Text that does not parse, or is over a limit,
 * gives a trace that did not run (`ran: false`) whose result is the coded error; it never throws for that.
 * @param {unknown} figureId @param {unknown} input @param {unknown} lang @returns {Trace}
 */
export function traceInput(figureId, input, lang) {
  const figure = text('figureId', figureId);
  const language = text('lang', lang);
  const typed = string('text', input);
  // Each UTF-16 unit is at least one byte of UTF-8: a longer text is refused before it is copied into wasm memory.
  if (typed.length > MAX_INPUT_BYTES) return refused(figure, { kind: 'textTooLarge', units: typed.length }, language);
  return traceFrom(wasm().traceInputJson(figure, typed, language));
}

/**
 * Runs a figure on data given as a JS value, read once into plain data (value.js) and then traced as its JSON text.
 * A value over a limit or not JSON data gives a trace that did not run whose result is the coded error
 * (`input_too_large`, `too_deep`, `not_json`, with the path); it never throws for that.
 * @param {unknown} figureId @param {unknown} value @param {unknown} lang @returns {Trace}
 */
export function traceValue(figureId, value, lang) {
  const figure = text('figureId', figureId);
  const language = text('lang', lang);
  const read = readValue(value);
  if ('refused' in read) return refused(figure, read.refused, language);
  return traceFrom(wasm().traceValueJson(figure, JSON.stringify(read.data), language));
}

/** The largest run file read, in bytes (src/host/runs/file.rs `MAX_BYTES`). */
export const MAX_RUN_BYTES = 1 << 20;

/**
 * Replays a run file in the loop figure: its text, or its bytes as an opened `File` gives them (an ArrayBuffer). A file
 * over the limit, or not a run file, gives a trace that did not run whose result is the coded error (`run_too_large`,
 * `run_malformed`, ...); it never throws for that.
 * @param {unknown} run @param {unknown} lang @returns {Trace}
 */
export function traceRun(run, lang) {
  return traceFrom(wasm().traceRunJson(runBytes(run), text('lang', lang)));
}

/** `ArrayBuffer.prototype.byteLength`'s getter: it reads the buffer's own length, and throws for anything else. */
const byteLength = /** @type {(this: unknown) => number} */ (Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength')?.get);

/**
 * A run file as the UTF-8 bytes the module reads. An opened file's bytes are handed over as they are: reading a `File`
 * as text only to write it back as UTF-8 took 0.9 of the 15 ms from a long run's file to its trace (bench/tricks.md).
 * Text is written with `encodeInto`, four times faster than the glue's copy of a string. Past the limit only enough to
 * be refused is copied (each UTF-16 unit is at least one byte of UTF-8).
 * @param {unknown} run @returns {Uint8Array}
 */
function runBytes(run) {
  if (typeof run === 'string') {
    const head = run.slice(0, MAX_RUN_BYTES + 1);
    const bytes = new Uint8Array(head.length * 3);
    return bytes.subarray(0, new TextEncoder().encodeInto(head, bytes).written);
  }
  // Only a real buffer gets past the getter (a Proxy or a look-alike throws there, and no trap or getter of the value
  // runs); a detached one throws in the constructor.
  try {
    return new Uint8Array(/** @type {ArrayBuffer} */ (run), 0, Math.min(byteLength.call(run), MAX_RUN_BYTES + 1));
  } catch {
    throw new TypeError(`a run file must be a string or a readable ArrayBuffer, not ${kind(run)}`);
  }
}

/**
 * Replays a run file given as a JS value: a string is its text; anything else is read once into plain data (value.js,
 * up to MAX_RUN_BYTES) and replayed as its JSON text. A value over a limit or not JSON data gives a trace that did
 * not run whose result is the coded error (`run_too_large`, `too_deep`, `not_json`); it never throws for that.
 * @param {unknown} value @param {unknown} lang @returns {Trace}
 */
export function traceRunValue(value, lang) {
  const language = text('lang', lang);
  if (typeof value === 'string') return traceRun(value, language);
  const read = readValue(value, MAX_RUN_BYTES);
  if ('refused' in read) return refused('loop', read.refused, language);
  return traceRun(JSON.stringify(read.data), language);
}

/**
 * The trace of a run file of `bytes` bytes, over MAX_RUN_BYTES, refused without reading it (`run_too_large`).
 * @param {number} bytes @param {unknown} lang @returns {Trace}
 */
export function refusedRun(bytes, lang) {
  return refused('loop', { kind: 'tooLarge', bytes: Math.min(bytes, 2 ** 32 - 1) }, text('lang', lang));
}

/** The run file of a built-in loop scenario, as an object. @param {unknown} scenarioId @param {unknown} lang @returns {RunFile} */
export function runFile(scenarioId, lang) {
  return JSON.parse(wasm().runFileJson(text('scenarioId', scenarioId), text('lang', lang)));
}

/**
 * A built-in loop scenario with one thing the host controls changed (`allow`, `deny`, `maintenance-on`, `budget-4`,
 * `reminder-off`, ...): the stand-in runs again with the change, and Rust compares the two runs call by call.
 * @param {unknown} scenarioId @param {unknown} change @param {unknown} lang @returns {WhatIf}
 */
export function whatIf(scenarioId, change, lang) {
  return JSON.parse(wasm().whatIfJson(text('scenarioId', scenarioId), text('change', change), text('lang', lang)));
}

/**
 * A run file (its text, or its bytes: see traceRun) with one thing the host controls changed: the recording replayed
 * with the change, stopping at the first model call the recorded model never saw. A file that is not a run file throws.
 * @param {unknown} run @param {unknown} change @param {unknown} lang @returns {WhatIf}
 */
export function whatIfRun(run, change, lang) {
  return JSON.parse(wasm().whatIfRunJson(runBytes(run), text('change', change), text('lang', lang)));
}

/** @param {string} figure @param {import('./value.js').ValueError} refusal @param {string} lang */
function refused(figure, refusal, lang) {
  return traceFrom(wasm().traceRefusedJson(figure, JSON.stringify(refusal), lang));
}

/**
 * A trace from its JSON text. A long value the recorder stored by its parts (`parts` lists them, in increasing
 * order) holds, in place of each element or field, the index of an earlier value: each is made whole, in index
 * order, so later values share the objects (nothing on the page changes one); a grown list (`grown`) also gets the
 * entries it shares with an earlier one. Host fields and model requests written with `kept` (KeptField,
 * KeptRequest) get those entries back, and a result that refers to a stored value (`result.stored`, the loop's
 * outcome) gets that value.
 * @param {string} json @returns {Trace}
 */
function traceFrom(json) {
  const trace = JSON.parse(json);
  const values = trace.values;
  // A grown list (`grown`, in the order of `parts`) holds only its entries after the first `kept` of `base`'s.
  const grown = /** @type {import('./pkg/todo_trace.js').Grown[]} */ (trace.grown ?? []);
  let g = 0;
  for (const i of trace.parts ?? []) {
    const value = values[i];
    if (!Array.isArray(value)) {
      for (const key in value) value[key] = values[value[key]];
      continue;
    }
    for (let k = 0; k < value.length; k++) value[k] = values[value[k]];
    if (grown[g]?.value === i) {
      const { base, kept } = grown[g++];
      values[i] = values[base].slice(0, kept).concat(value);
    }
  }
  delete trace.parts;
  delete trace.grown;
  // Each host field's first `kept` entries are the same field's in the view before (a history is not listed again).
  // Such a field, and such a request below, is made anew without `kept`: deleting a property leaves V8 an object
  // in its slow form, which took twice the time (bench/tricks.md).
  const hosts = /** @type {import('./pkg/todo_trace.js').KeptField[][]} */ (trace.hosts);
  for (let v = 1; v < hosts.length; v++) {
    for (let k = 0; k < hosts[v].length; k++) {
      const { field, kept, entries, changes, was } = hosts[v][k];
      if (kept === undefined) continue;
      const whole = hosts[v - 1][k].entries.slice(0, kept).concat(entries);
      hosts[v][k] = was === undefined ? { field, entries: whole, changes } : { field, entries: whole, changes, was };
    }
  }
  // Each request's first `kept` history entries are the request before's, and its messages, when `changed` is
  // given, are its history with `changed[k]` at position `differs[k]`.
  const requests = /** @type {import('./pkg/todo_trace.js').KeptRequest[]} */ (trace.requests ?? []);
  for (let r = 0; r < requests.length; r++) {
    const { at, step, tools, kept, differs, changed } = requests[r];
    if (kept === undefined && changed === undefined) continue;
    const history = kept === undefined ? requests[r].history : requests[r - 1].history.slice(0, kept).concat(requests[r].history);
    let messages = requests[r].messages;
    if (changed !== undefined) {
      const made = history.slice();
      differs.forEach((position, k) => { made[position] = changed[k]; });
      messages = made;
    }
    requests[r] = messages === undefined ? { at, step, tools, history, differs } : { at, step, tools, messages, history, differs };
  }
  const { result } = trace;
  if (result.stored !== undefined) {
    result.value = values[result.stored];
    delete result.stored;
  }
  return trace;
}
