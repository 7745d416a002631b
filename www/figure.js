// One figure: a step debugger over a lesson function's traces. Holds the traces and the state (state.js); the view (figure-view.js) draws each state.
// @ts-check
import { createWhatIf } from './compare.js';
import { createView } from './figure-view.js';
import { HOST_EVENTS, requestAt } from './loop.js';
import { paneNames } from './panes.js';
import { IDLE, breakpointKey, eventKey } from './replay.js';
import { defaultScenarioOf, editorText, keptOf, openState, placeOf, reduce, settingOf, shownTrace, showsRefusal } from './state.js';

export { KEYS } from './bar.js';

/** @typedef {import('./pkg/todo_trace.js').Trace} Trace */
/** @typedef {import('./pkg/todo_trace.js').Figure} Figure */
/** @typedef {import('./pkg/todo_trace.js').Listing} Listing */
/** @typedef {import('./pkg/todo_trace.js').Lang} Lang */
/** @typedef {typeof import('./api.js')} Api */
/** @typedef {import('./text-en.js').Words} Words */
/** @typedef {import('./state.js').State} State */
/** @typedef {import('./state.js').Action} Action */
/** @typedef {import('./state.js').Place} Place */
/** @typedef {import('./state.js').Kept} Kept */
/** @typedef {import('./state.js').RunOpened} RunOpened */
/** @typedef {import('./state.js').OwnText} OwnText */

/**
 * Builds a figure. `words` are its caption and "things to try" (text-zh.js, text-en.js), whose {scenario:…}
 * references `scenarioLabel` resolves. `link` is its place as read from the URL or the element's attributes; whatever
 * in it does not fit this figure is left out and added to `problems`, which the figure's notice lists (with those
 * the caller put there). `onMove` is called after every move, `onChange` after a breakpoint, scenario or reader's-input
 * change. `kept` is what `keep()` returned before the page was rebuilt in another language, or undefined. `number` 0
 * leaves the caption unnumbered. `data`, an author's own data for the figure (embed.js), is traced with traceValue
 * and shown as a run of one's own. `traced` holds traces already made, by scenario id (embed.js makes the default
 * scenario's in a task before this one). Returns `{root, place(), keep()}`.
 * @param {{api: Api, figure: Figure, number: number, lang: Lang, t: Words, words: Words['figures'][string],
 *   link: Place, kept: Kept | undefined, scenarioLabel: (ref: string) => string, data?: {value: unknown},
 *   problems: {name: string, value: string}[], onMove: () => void, onChange: () => void, traced?: Map<string, Trace>}} options
 */
export function createFigure({ api, figure, number, lang, t, words, link, kept, scenarioLabel, data, problems, onMove, onChange, traced }) {
  const scenarios = api.scenarios(figure.id, lang);
  // A scenario is traced when it is first shown, and kept: tracing every scenario up front made the page slow to load.
  /** @type {Map<string, Trace>} */
  const traces = new Map(traced);
  const traceOf = (/** @type {string} */ id) => {
    let trace = traces.get(id);
    if (!trace) traces.set(id, (trace = api.trace(figure.id, id, lang)));
    return trace;
  };
  // A figure whose traces carry the loop's data (requests, claims) shows the loop's panes and its event breakpoints.
  // The listings the code pane can show are read up front, so a later failure inside the module cannot take the
  // code pane with it.
  const isLoop = traceOf(defaultScenarioOf(scenarios)).claims !== undefined;
  const setting = settingOf(figure, scenarios, traceOf, api.source, isLoop ? HOST_EVENTS : []);
  const lineAt = lineFinder([...setting.listings.values()]);
  const resolve = (/** @type {string} */ kind, /** @type {string} */ arg) => (kind === 'scenario' ? scenarioLabel(arg) : String(lineAt(arg).no));

  // The reader's own text (in the loop figure, a run file's); traceInput throws only for a bug or a trap inside the
  // module: shown like refused text, so the page stays usable. A run file too large to read (`run.unread`) is refused
  // by its size alone.
  const traceOwn = (/** @type {OwnText | {value: unknown}} */ given, /** @type {RunOpened | undefined} */ run = undefined) => {
    // An author's data comes wrapped ({value}); text, or an opened file's bytes, as it is.
    const data = typeof given === 'object' && !(given instanceof ArrayBuffer) ? given : null;
    try {
      if (isLoop) {
        if (run?.unread !== undefined) return api.refusedRun(run.unread, lang);
        return data ? api.traceRunValue(data.value, lang) : api.traceRun(given, lang);
      }
      return data ? api.traceValue(figure.id, data.value, lang) : api.traceInput(figure.id, given, lang);
    } catch (error) {
      const failure = { code: 'exception', message: t.input.exception(error instanceof Error ? error.message : String(error)) };
      // The default scenario's data stands in for what the module would have shown.
      return { ...traceOf(setting.defaultScenario), scenario: 'input', ran: false, steps: [], output: [], result: { ok: false, error: failure } };
    }
  };

  const opened = openState(setting, link, kept, traceOf, traceOwn);
  problems.push(...opened.problems);
  let state = opened.state;
  if (data && !kept && isLoop) {
    // The author's run file (embed.js: the JSON child's text, or `.data`) opens as a run file the reader opened.
    const text = typeof data.value === 'string' ? data.value : jsonOf(data.value);
    state = reduce(state, { type: 'open-run', run: { name: t.run.given }, text, trace: traceOwn(data) });
  } else if (data && !kept) {
    // The author's data opens as a run of one's own; the editor holds it (as the trace has it, or as given if refused).
    const trace = traceOwn(data);
    const text = trace.ran ? editorText(figure.edits, trace.data) : jsonOf(data.value);
    state = { ...state, text, own: { text, trace }, showingOwn: true, pos: IDLE };
  }

  // The loop figure's "What if…" (compare.js): it starts from the run shown (a scenario, or a run file the reader
  // opened), at the call the figure is at.
  let building = true;
  const baseOf = (/** @type {State} */ s) =>
    s.showingOwn && s.own?.run ? { run: s.own.text } : { scenario: s.scenario };
  const whatIf = isLoop ? createWhatIf({
    api,
    lang,
    t,
    current: () => {
      const trace = shownTrace(state);
      const row = state.pos >= trace.steps.length ? Infinity : (requestAt(trace, state.pos)?.index ?? -1);
      return { base: baseOf(state), settings: trace.replay?.settings ?? null, decision: trace.data.agent?.decision ?? null, row };
    },
    onMove: () => {
      if (!building) onMove();
    },
  }) : null;
  if (whatIf && link.vs && !whatIf.open(link.vs, link.vsAt ?? null)) problems.push({ name: `${figure.id}.vs`, value: link.vs });

  /**
   * Applies actions in turn, redraws once, and tells the page: moves through `onMove`, anything else through `onChange`.
   * @param {Action[]} actions
   */
  function dispatch(...actions) {
    const before = state;
    for (const action of actions) state = reduce(state, action);
    if (state === before) return;
    // A figure in use is laid out whole from now on (style.css skips its panes while far until then), so what the reader
    // acted on can be read at once, on the screen or not (innerText, find, a pane scrolled to).
    view.root.toggleAttribute('data-used', true);
    view.render(state);
    whatIf?.follow(baseOf(state));
    // The reader's text just run and refused: the caret goes to the place.
    if (actions.some((action) => action.type === 'run-own') && showsRefusal(state)) view.focusRefusal();
    // A move held at a question (Predict): the focus goes to it.
    if (state.asking && state.asking !== before.asking) view.focusQuestion();
    if (actions.every((action) => ['command', 'seek', 'frame', 'answer'].includes(action.type))) onMove();
    else if (actions.some((action) => action.type !== 'edit' && action.type !== 'open' && action.type !== 'frame')) onChange();
  }

  // "Show me": each item's setup, resolved when the figure is built, so an item naming a line or scenario that is not
  // there fails loudly; pressing it is a list of the reducer's actions, as if the reader had done each.
  const showMe = words.tries.map(({ show }) => {
    if (!scenarios.some((s) => s.id === show.scenario)) throw new Error(`a "Show me" names an unknown scenario "${show.scenario}"`);
    const keys = show.breakpoints.map((snippet) => {
      if (snippet.startsWith('on:')) {
        if (!setting.events.has(snippet.slice(3))) throw new Error(`a "Show me" pauses on an unknown host decision "${snippet}"`);
        return eventKey(snippet.slice(3));
      }
      const { symbol, no } = lineAt(snippet);
      return breakpointKey(symbol, no);
    });
    if (show.pane !== undefined && !paneNames(figure, isLoop).includes(show.pane)) throw new Error(`a "Show me" names an unknown pane "${show.pane}"`);
    return () => {
      /** @type {Action[]} */
      const actions = [{ type: 'choose', scenario: show.scenario, trace: traceOf(show.scenario) }, { type: 'breakpoints', keys }];
      let go = show.go;
      if (show.input !== undefined) {
        const [first, ...rest] = go;
        if (first !== 'run' && first !== 'debug') throw new Error('a "Show me" with an input starts with run or debug');
        actions.push({ type: 'open', open: true }, { type: 'edit', text: show.input }, { type: 'run-own', command: first, trace: traceOwn(show.input) });
        go = rest;
      }
      actions.push(...go.map((command) => /** @type {Action} */ ({ type: 'command', command })));
      dispatch(...actions);
      // What the item promises, in view: the reader's run as the editor's Run shows it, or else the current line and
      // the pane the item is about.
      if (show.input !== undefined) view.revealRun(showsRefusal(state));
      else view.reveal(show.pane);
    };
  });

  // A run file the reader opened or dropped: one too large is refused by its size, unread; while a file is read, a
  // later one supersedes it.
  let opening = 0;
  async function openRun(/** @type {File} */ file) {
    const mine = ++opening;
    /** @type {RunOpened} */
    const run = file.size > api.MAX_RUN_BYTES ? { name: file.name, unread: file.size } : { name: file.name };
    // Its bytes, as the module reads them: not read as text only to be written back as UTF-8.
    /** @type {string | ArrayBuffer} */
    let text = '';
    if (run.unread === undefined) {
      try {
        text = await file.arrayBuffer();
      } catch {
        // A file that cannot be read (gone, or not allowed): refused like text that is no run file.
        text = '';
      }
    }
    if (mine !== opening) return;
    dispatch({ type: 'open-run', run, text, trace: traceOwn(text, run) });
  }

  const view = createView({
    setting,
    isLoop,
    whatIf,
    number,
    t,
    words,
    entry: api.source(figure.entry),
    resolve,
    problems,
    showMe,
    dispatch,
    choose: (scenario) => dispatch({ type: 'choose', scenario, trace: traceOf(scenario) }),
    openRun,
    onRun: (command) => {
      dispatch({ type: 'run-own', command, trace: traceOwn(state.text) });
      view.revealRun(showsRefusal(state));
    },
  });
  view.render(state);
  building = false;
  return {
    root: view.root,
    place: () => ({ ...placeOf(state), ...whatIf?.place() }),
    keep: () => keptOf(state),
  };
}

/**
 * {line:SNIPPET} names the one line, among the listings the figure's code pane can show, that contains SNIPPET; a
 * "Show me" names its breakpoints the same way.
 * @param {Listing[]} listings
 * @returns {(snippet: string) => {symbol: string, no: number}}
 */
function lineFinder(listings) {
  const lines = listings.flatMap((listing) => listing.lines.map((line) => ({ symbol: listing.symbol, no: line.no, text: line.text })));
  return (snippet) => {
    const found = lines.filter((line) => line.text.includes(snippet));
    if (found.length !== 1) throw new Error(`the lesson text's line reference "${snippet}" matches ${found.length} lines`);
    return found[0];
  };
}

/** JSON text of an author's value for the editor, or nothing when it has none (a cycle, a BigInt). */
function jsonOf(/** @type {unknown} */ value) {
  try {
    return JSON.stringify(value, null, 2) ?? '';
  } catch {
    return '';
  }
}
