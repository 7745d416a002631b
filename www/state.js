// The state of one debugger figure and the pure reducer that moves it; figure.js shows a state and turns the reader's acts into actions.
// @ts-check
//
// A state is a plain, never-mutated object: each action gives a new one, so the view can tell what changed by
// comparing fields, and a deep link or a language switch is a state written out and read back (openState).
import { answersFor, gate, sameAsking, withAnswer } from './predict.js';
import { IDLE, breakableLines, breakpointKey, commands, eventKey, framesAt, shownSymbol, tracedSymbols } from './replay.js';

/** @typedef {import('./pkg/todo_trace.js').Trace} Trace */
/** @typedef {import('./pkg/todo_trace.js').Given} Given */
/** @typedef {import('./pkg/todo_trace.js').Figure} Figure */
/** @typedef {import('./pkg/todo_trace.js').Scenario} Scenario */
/** @typedef {import('./pkg/todo_trace.js').Listing} Listing */
/** @typedef {import('./replay.js').Command} Command */

/**
 * What stays fixed while a figure lives: the figure, its scenarios, and the listings its code pane can show (its
 * function and those the default scenario steps into), each with the lines that take a breakpoint.
 * `events` are the host decisions its steps can carry (the loop figure's), each a possible event breakpoint.
 * @typedef {{figure: Figure, scenarios: Scenario[], defaultScenario: string, listings: Map<string, Listing>,
 *   breakable: Map<string, Set<number>>, events: ReadonlySet<string>}} Setting
 */

/** The id of the scenario a figure opens on (Rust marks one default per figure). @param {Scenario[]} scenarios */
export const defaultScenarioOf = (scenarios) => /** @type {Scenario} */ (scenarios.find((s) => s.isDefault)).id;

/**
 * A figure's setting. `traceOf(scenario)` gives a scenario's trace, `source` is the module's `source()`.
 * @param {Figure} figure @param {Scenario[]} scenarios
 * @param {(scenario: string) => Trace} traceOf @param {(symbol: string) => Listing} source
 * @param {readonly string[]} events the host decisions a trace of this figure can carry (none for a function figure)
 * @returns {Setting}
 */
export function settingOf(figure, scenarios, traceOf, source, events = []) {
  const defaultScenario = defaultScenarioOf(scenarios);
  const symbols = new Set([figure.symbol, ...tracedSymbols(traceOf(defaultScenario))]);
  const listings = new Map([...symbols].map((symbol) => [symbol, source(symbol)]));
  return { figure, scenarios, defaultScenario, listings, breakable: breakableLines([...listings.values()]), events: new Set(events) };
}

/**
 * @typedef {object} State
 * @property {Setting} setting
 * @property {string} scenario the scenario chosen; a link keeps it even while the reader's run is shown
 * @property {Trace} scenarioTrace that scenario's trace
 * @property {string} text the editor's text
 * @property {{text: OwnText, trace: Trace, run?: RunOpened} | null} own the reader's last run, offered until reset: in the
 *   loop figure, the run file opened (`run`), whose text (or bytes) is `text`
 * @property {boolean} showingOwn whether the debugger shows the reader's run instead of the scenario
 * @property {number} pos the position in the shown trace (replay.js)
 * @property {ReadonlySet<string>} breakpoints keys made by breakpointKey
 * @property {boolean} open whether the "setup and call entry" part is open
 * @property {number | null} frame the caller whose locals the reader chose in the call stack (an index into the
 *   step's frames, outermost first), or null for the current call; any move goes back to the current call
 * @property {boolean} predict whether moves stop to ask the trace's questions first (predict.js)
 * @property {import('./predict.js').Answers} answers the reader's answers, per trace
 * @property {import('./predict.js').Asking | null} asking the question the debugger is stopped at, unanswered
 * @property {{trace: Trace, question: number} | null} revealed the question answered last, whose answer is shown
 */

/**
 * A run file opened in the loop figure: its name, and for a file too large to be read, its size (`unread`, bytes).
 * @typedef {{name: string, unread?: number}} RunOpened
 */

/**
 * What the reader ran: the editor's text, or in the loop figure a run file's text or, opened from a file, its bytes.
 * @typedef {string | ArrayBuffer} OwnText
 */

/**
 * @typedef {{type: 'choose', scenario: string, trace: Trace}
 *   | {type: 'choose-own'}
 *   | {type: 'command', command: Command}
 *   | {type: 'seek', pos: number}
 *   | {type: 'toggle', symbol: string, line: number}
 *   | {type: 'toggle-event', event: string}
 *   | {type: 'breakpoints', keys: string[]}
 *   | {type: 'frame', index: number | null}
 *   | {type: 'edit', text: string}
 *   | {type: 'run-own', command: 'run' | 'debug', trace: Trace}
 *   | {type: 'open-run', run: RunOpened, text: OwnText, trace: Trace}
 *   | {type: 'reset-own'}
 *   | {type: 'open', open: boolean}
 *   | {type: 'predict', on: boolean}
 *   | {type: 'answer', choice: number}} Action
 */

/**
 * A figure's place as a link holds it (link.js reads it): the scenario (null: the default), breakpoint keys, and the
 * step, counted from 1 like the timeline ("end": finished, null: not started). `attributes`: the place was read from
 * the element's attributes (embed.js), not a link, so what does not fit is named as they name it.
 * `predict`: the Predict switch is on.
 * `vs` and `vsAt`: the loop figure's open comparison, its change and rows (compare.js), or null.
 * @typedef {{scenario: string | null, breakpoints: string[], step: number | 'end' | null, predict?: boolean, attributes?: true,
 *   vs?: string | null, vsAt?: string | null}} Place
 */

/**
 * What a language switch carries beyond the link: the editor's text when the reader changed it, their run (its
 * text, or true when it ran the scenario's text unchanged, which then follows the language like the editor),
 * and whether it is shown, where, and the setup part's openness; in the loop figure, the run file opened (`run`).
 * `answers`: the Predict answers given in the trace shown, as [question, choice] pairs.
 * @typedef {{text: string | null, own: OwnText | true | null, showingOwn: boolean, pos: number, open: boolean, answers?: [number, number][], run?: RunOpened}} Kept
 */

const spaced = (/** @type {object} */ item) => `{${Object.entries(item).map(([key, value]) => `${JSON.stringify(key)}: ${JSON.stringify(value)}`).join(', ')}}`;

/**
 * The editor's text for some data: the part the reader edits (the figure says which) as JSON, one item per
 * line, so an item is edited in one place.
 * @param {Figure['edits']} edits @param {Given} data what the figure's call entry was given, which holds that part
 */
export function editorText(edits, data) {
  if (edits === 'nothing') return ''; // the loop figure: the reader edits nothing
  const items = /** @type {object[]} */ (edits === 'plan' ? data.state?.items : data.items);
  return items.length === 0 ? '[]' : `[\n${items.map((item) => `  ${spaced(item)}`).join(',\n')}\n]`;
}

/** The trace the debugger shows. */
export const shownTrace = (/** @type {State} */ state) => (state.showingOwn && state.own ? state.own.trace : state.scenarioTrace);

/** The listing the code pane shows: the function of the current step, else the figure's own. */
export const shownSymbolOf = (/** @type {State} */ state) => shownSymbol(shownTrace(state).steps, state.pos, state.setting.figure.symbol);

/** The editor's text for the chosen scenario's data. */
export const scenarioText = (/** @type {State} */ state) => editorText(state.setting.figure.edits, state.scenarioTrace.data);

/** Whether the debugger shows the reader's text refused: nothing ran, and the editor says why. */
export const showsRefusal = (/** @type {State} */ state) => state.showingOwn && !shownTrace(state).ran;

const clamp = (/** @type {number} */ pos, /** @type {Trace} */ trace) => Math.max(IDLE, Math.min(pos, trace.steps.length));

/**
 * The state at another position of the same trace, held at a question first while Predict is on (predict.js); the
 * same state when that is where it is.
 * @param {State} state @param {number} pos
 */
function moved(state, pos) {
  const trace = shownTrace(state);
  const { pos: to, asking } = gate(state.predict, trace, answersFor(state.answers, trace), state.pos, clamp(pos, trace));
  if (to === state.pos && sameAsking(asking, state.asking)) return state;
  return { ...state, pos: to, frame: null, asking };
}

/**
 * The state after an action.
 * @param {State} state @param {Action} action
 * @returns {State}
 */
export function reduce(state, action) {
  switch (action.type) {
    case 'choose': {
      // The editor follows the scenario unless the reader has changed its text.
      const unedited = state.text === scenarioText(state);
      const next = { ...state, scenario: action.scenario, scenarioTrace: action.trace, showingOwn: false, pos: IDLE, frame: null };
      return unedited ? { ...next, text: scenarioText(next) } : next;
    }
    case 'choose-own':
      return state.own ? { ...state, showingOwn: true, pos: IDLE, frame: null } : state;
    case 'command': {
      const trace = shownTrace(state);
      return moved(state, commands[action.command](trace.steps, state.pos, state.breakpoints));
    }
    case 'seek':
      return moved(state, action.pos);
    case 'toggle': {
      if (!state.setting.breakable.get(action.symbol)?.has(action.line)) return state;
      const key = breakpointKey(action.symbol, action.line);
      const breakpoints = new Set(state.breakpoints);
      if (!breakpoints.delete(key)) breakpoints.add(key);
      return { ...state, breakpoints };
    }
    case 'toggle-event': {
      if (!state.setting.events.has(action.event)) return state;
      const key = eventKey(action.event);
      const breakpoints = new Set(state.breakpoints);
      if (!breakpoints.delete(key)) breakpoints.add(key);
      return { ...state, breakpoints };
    }
    case 'breakpoints': {
      // Exactly these, each on a line that takes one or a decision the figure's steps carry (a "Show me" sets the
      // breakpoints its item needs).
      const keys = action.keys.filter((key) => {
        if (key.startsWith('on:')) return state.setting.events.has(key.slice(3));
        const [symbol, line] = key.split('.');
        return state.setting.breakable.get(symbol)?.has(Number(line));
      });
      return { ...state, breakpoints: new Set(keys) };
    }
    case 'frame': {
      const frames = framesAt(shownTrace(state).steps, state.pos);
      // The current call is the last frame: choosing it is the same as choosing none.
      const index = action.index !== null && action.index < frames.length - 1 ? action.index : null;
      return index === state.frame ? state : { ...state, frame: index };
    }
    case 'edit':
      return action.text === state.text ? state : { ...state, text: action.text };
    case 'run-own': {
      const ran = { ...state, own: { text: state.text, trace: action.trace }, showingOwn: true, pos: IDLE, frame: null, asking: null };
      return moved(ran, commands[action.command](action.trace.steps, IDLE, state.breakpoints));
    }
    case 'open-run':
      // A run file opened: shown from its start, with the breakpoints as they were (the same debugger).
      return { ...state, own: { text: action.text, trace: action.trace, run: action.run }, showingOwn: true, pos: IDLE, frame: null, asking: null };
    case 'reset-own': {
      const next = { ...state, own: null, showingOwn: false, pos: IDLE, frame: null };
      return { ...next, text: scenarioText(next) };
    }
    case 'open':
      return action.open === state.open ? state : { ...state, open: action.open };
    case 'predict':
      // Switched on, a fresh round: every question is asked again.
      if (action.on === state.predict) return state;
      return { ...state, predict: action.on, asking: null, revealed: null, answers: action.on ? new Map() : state.answers };
    case 'answer': {
      const { asking } = state;
      const trace = shownTrace(state);
      if (!asking || asking.trace !== trace || !trace.questions?.[asking.question]?.choices[action.choice]) return state;
      // The move that the question held goes on, up to the next question not answered yet.
      const answers = withAnswer(state.answers, trace, asking.question, action.choice);
      const answered = { ...state, answers, asking: null, revealed: { trace, question: asking.question } };
      return moved(answered, asking.target);
    }
  }
}

/**
 * The state a figure opens in: at the place its link names, then with what a language switch kept. Whatever in
 * the link does not fit the figure is left out and reported as `{name, value}` (the link's parameter).
 * `traceOf(scenario)` and `traceOwn(text)` give the traces (the same call, the same trace).
 * @param {Setting} setting
 * @param {Place} link
 * @param {Kept | undefined} kept
 * @param {(scenario: string) => Trace} traceOf
 * @param {(text: OwnText, run?: RunOpened) => Trace} traceOwn
 * @returns {{state: State, problems: {name: string, value: string}[]}}
 */
export function openState(setting, link, kept, traceOf, traceOwn) {
  const { figure, scenarios } = setting;
  /** @type {{name: string, value: string}[]} */
  const problems = [];
  // Named as the link's parameters, or as the element's attributes (a breakpoint there is its line number).
  const names = link.attributes
    ? { scenario: 'scenario', bp: 'breakpoints', on: 'breakpoints', step: 'step' }
    : { scenario: figure.id, bp: `${figure.id}.bp`, on: `${figure.id}.on`, step: `${figure.id}.step` };
  let scenario = setting.defaultScenario;
  if (link.scenario !== null) {
    if (scenarios.some((s) => s.id === link.scenario)) scenario = link.scenario;
    else problems.push({ name: names.scenario, value: link.scenario });
  }
  /** @type {Set<string>} */
  const breakpoints = new Set();
  for (const key of link.breakpoints) {
    if (key.startsWith('on:')) {
      if (setting.events.has(key.slice(3))) breakpoints.add(key);
      else problems.push({ name: names.on, value: key.slice(3) });
      continue;
    }
    const [symbol, line] = key.split('.');
    // The key written back must be the one read: "validate_todos.045" is not line 45's.
    if (setting.breakable.get(symbol)?.has(Number(line)) && key === breakpointKey(symbol, Number(line))) breakpoints.add(key);
    else problems.push({ name: names.bp, value: link.attributes ? key.slice(symbol.length + 1) : key });
  }
  const scenarioTrace = traceOf(scenario);
  // A step counts from 1 (0: not started, as the timeline has it), up to one past the last step (finished).
  let pos = IDLE;
  const total = scenarioTrace.steps.length;
  if (link.step === 'end') pos = total;
  else if (Number.isInteger(link.step) && Number(link.step) >= 0 && Number(link.step) <= total + 1) pos = Number(link.step) - 1;
  else if (link.step !== null) problems.push({ name: names.step, value: String(link.step) });

  /** @type {State} */
  let state = {
    setting, scenario, scenarioTrace, text: '', own: null, showingOwn: false, pos, breakpoints, open: false, frame: null,
    predict: link.predict === true, answers: new Map(), asking: null, revealed: null,
  };
  state = { ...state, text: scenarioText(state) };
  if (kept) {
    if (kept.text !== null) state = { ...state, text: kept.text };
    if (kept.own !== null) {
      const text = kept.own === true ? scenarioText(state) : kept.own;
      const trace = traceOwn(text, kept.run);
      state = { ...state, own: kept.run ? { text, trace, run: kept.run } : { text, trace } };
      if (kept.showingOwn) state = { ...state, showingOwn: true, pos: clamp(kept.pos, trace) };
    }
    state = { ...state, open: kept.open };
    if (kept.answers?.length) state = { ...state, answers: new Map([[shownTrace(state), new Map(kept.answers)]]) };
  }
  return { state, problems };
}

/**
 * The figure's place for the link. The URL does not hold the reader's text, so while the figure shows it the link
 * keeps the scenario and no step.
 * @param {State} state
 */
export function placeOf(state) {
  const { pos, showingOwn, scenario, breakpoints, setting } = state;
  const total = shownTrace(state).steps.length;
  return {
    id: setting.figure.id,
    scenario,
    defaultScenario: setting.defaultScenario,
    breakpoints,
    step: pos === IDLE || showingOwn ? null : pos >= total ? /** @type {const} */ ('end') : pos + 1,
    predict: state.predict,
  };
}

/**
 * What a rebuild in another language keeps beyond the link.
 * @param {State} state
 * @returns {Kept}
 */
export function keptOf(state) {
  const original = scenarioText(state);
  const answered = answersFor(state.answers, shownTrace(state));
  return {
    text: state.text === original ? null : state.text,
    own: state.own === null ? null : state.own.text === original ? true : state.own.text,
    showingOwn: state.showingOwn,
    pos: state.pos,
    open: state.open,
    ...(answered.size > 0 ? { answers: [...answered] } : {}),
    ...(state.own?.run ? { run: state.own.run } : {}),
  };
}
