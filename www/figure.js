// One figure: a step debugger over a lesson function's traces, drawn from a state (state.js) and redrawn only where it changed.
// @ts-check
import { createEditor } from './editor.js';
import { afterNextFrame, colourRows, el, hidden, jsonText, listingRows, localsPane, nextTask, outputPane, richText, stackPane, statePane } from './render.js';
import {
  IDLE, breakpointHits, breakpointKey, callStack, framesAt, eventKey, canRun, hostAt, localsOf, markers, outputAt, returned,
  shownSymbol, status, stepAt,
} from './replay.js';
import { defaultScenarioOf, editorText, keptOf, openState, placeOf, reduce, settingOf, showsRefusal, shownTrace } from './state.js';
import { HOST_EVENTS, conversationPane, eventSteps, evidencePane, planPane, requestAt, requestPane } from './loop.js';

/** @typedef {import('./pkg/todo_trace.js').Trace} Trace */
/** @typedef {import('./pkg/todo_trace.js').Figure} Figure */
/** @typedef {import('./pkg/todo_trace.js').Listing} Listing */
/** @typedef {import('./pkg/todo_trace.js').Lang} Lang */
/** @typedef {typeof import('./api.js')} Api */
/** @typedef {import('./text-en.js').Words} Words */
/** @typedef {import('./replay.js').Command} Command */
/** @typedef {import('./replay.js').Status} Status */
/** @typedef {import('./state.js').State} State */
/** @typedef {import('./state.js').Action} Action */
/** @typedef {import('./state.js').Place} Place */
/** @typedef {import('./state.js').Kept} Kept */

// The highlighter (code.js) loads beside the page instead of holding it up; see colourListings.
const highlighter = import('./code.js');

/** @type {Command[]} */
const COMMANDS = ['run', 'debug', 'continue', 'step-over', 'step-into', 'step-out', 'step-back', 'restart'];

/** The debugger keys (DevTools' and VS Code's, plus Shift+F8 for stepping back). @type {Partial<Record<Command, string>>} */
export const KEYS = { continue: 'F8', 'step-over': 'F10', 'step-into': 'F11', 'step-out': 'Shift+F11', 'step-back': 'Shift+F8' };

/** The gutter marks, told apart by shape: a filled arrow for the line about to run, a hollow one for the line just run, a dot for a breakpoint. */
const MARKS = { next: '▶', ran: '▷', bp: '●' };

const keyName = (/** @type {KeyboardEvent} */ event) => (event.shiftKey ? `Shift+${event.key}` : event.key);

/** A number per trace, so a pane's key can name the trace its value indices belong to. */
/** @type {WeakMap<Trace, number>} */
const traceIds = new WeakMap();
let traces = 0;
const traceId = (/** @type {Trace} */ trace) => {
  let id = traceIds.get(trace);
  if (id === undefined) traceIds.set(trace, (id = ++traces));
  return id;
};

/**
 * Builds a figure. `words` are its caption and "things to try" (text-zh.js, text-en.js), whose {scenario:…}
 * references `scenarioLabel` resolves. `link` is its place as read from the URL; whatever in it does not fit this
 * figure is ignored and reported through `problems`. `onMove` is called after every move, `onChange` after a
 * breakpoint, scenario or reader's-input change. `kept` is what `keep()` returned before the page was rebuilt in
 * another language, or undefined. `number` 0 leaves the caption unnumbered. `data`, an author's own data for the
 * figure (embed.js), is traced with traceValue and shown as a run of one's own. `traced` holds traces already made, by
 * scenario id (embed.js makes the default scenario's in a task before this one). Returns `{root, place(), keep()}`.
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
  // The listings the code pane can show are read up front, so a later failure inside the module cannot take the
  // code pane with it.
  // A figure whose traces carry the loop's data (requests, claims) shows the loop's panes and its event breakpoints.
  const defaultId = defaultScenarioOf(scenarios);
  const isLoop = traceOf(defaultId).claims !== undefined;
  const setting = settingOf(figure, scenarios, traceOf, api.source, isLoop ? HOST_EVENTS : []);
  const { listings } = setting;
  const lineAt = lineFinder([...listings.values()]);
  const resolve = (/** @type {string} */ kind, /** @type {string} */ arg) => (kind === 'scenario' ? scenarioLabel(arg) : String(lineAt(arg).no));

  // The reader's own text; traceInput throws only for a bug or a trap inside the module: shown like refused text,
  // so the page stays usable.
  const traceOwn = (/** @type {string | {value: unknown}} */ given) => {
    try {
      return typeof given === 'string' ? api.traceInput(figure.id, given, lang) : api.traceValue(figure.id, given.value, lang);
    } catch (error) {
      const failure = { code: 'exception', message: t.input.exception(error instanceof Error ? error.message : String(error)) };
      // The default scenario's data stands in for what the module would have shown.
      return { ...traceOf(setting.defaultScenario), scenario: 'input', ran: false, steps: [], output: [], result: { ok: false, error: failure } };
    }
  };

  const opened = openState(setting, link, kept, traceOf, traceOwn);
  problems.push(...opened.problems);
  let state = opened.state;
  if (data && !kept) {
    // The author's data opens as a run of one's own; the editor holds it (as the trace has it, or as given if refused).
    const trace = traceOwn(data);
    const text = trace.ran ? editorText(figure.edits, trace.data) : jsonOf(data.value);
    state = { ...state, text, own: { text, trace }, showingOwn: true, pos: IDLE };
  }

  /**
   * Applies actions in turn, redraws once, and tells the page: moves through `onMove`, anything else through `onChange`.
   * @param {Action[]} actions
   */
  function dispatch(...actions) {
    const before = state;
    for (const action of actions) state = reduce(state, action);
    if (state === before) return;
    render(before, actions.some((action) => action.type === 'run-own'));
    if (actions.every((action) => action.type === 'command' || action.type === 'seek' || action.type === 'frame')) onMove();
    else if (actions.some((action) => action.type !== 'edit' && action.type !== 'open' && action.type !== 'frame')) onChange();
  }

  // "Show me": each item's setup, resolved when the figure is built, so an item naming a line or scenario that is not
  // there fails loudly; pressing it is a list of the reducer's actions, as if the reader had done each.
  const showMe = words.tries.map(({ show }) => {
    if (!scenarios.some((s) => s.id === show.scenario)) throw new Error(`a "Show me" names an unknown scenario "${show.scenario}"`);
    const keys = show.breakpoints.map((snippet) => {
      const { symbol, no } = lineAt(snippet);
      return breakpointKey(symbol, no);
    });
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
    };
  });

  // --- The parts of the figure, built once; render() brings them to the current state.
  const captionId = `${figure.id}-caption`;
  const hintId = `${figure.id}-hint`;
  const select = el(
    'select',
    {
      'data-control': 'scenario',
      'aria-describedby': hintId,
      onchange: () => dispatch(select.value === 'input' ? { type: 'choose-own' } : { type: 'choose', scenario: select.value, trace: traceOf(select.value) }),
    },
    scenarios.map((s) => el('option', { value: s.id, text: s.label })),
  );
  // Offered while there is a run of the reader's own input to go back to.
  const ownOption = el('option', { value: 'input', text: t.input.option });
  const hint = el('p', { class: 'hint', id: hintId });

  const buttons = Object.fromEntries(
    COMMANDS.map((command) => {
      const [label, what] = t.controls[command];
      const key = KEYS[command];
      return [
        command,
        el('button', {
          type: 'button',
          'data-action': command,
          title: key ? `${what} (${key})` : what,
          'aria-keyshortcuts': key ?? null,
          text: label,
          onclick: () => dispatch({ type: 'command', command }),
        }),
      ];
    }),
  );

  const slider = el('input', { type: 'range', min: '0', step: '1', 'aria-label': t.timeline, oninput: () => dispatch({ type: 'seek', pos: Number(slider.value) - 1 }) });
  const where = el('output', { class: 'where', 'aria-hidden': 'true' });
  const ticks = el('div', { class: 'ticks', 'aria-hidden': 'true' });
  const eventTicks = el('div', { class: 'ticks events', 'aria-hidden': 'true' });
  // The loop figure's breakpoints on host decisions: one checkbox per decision.
  const eventBoxes = new Map(HOST_EVENTS.map((event) => [event, /** @type {HTMLInputElement} */ (el('input', {
    type: 'checkbox',
    'data-break-on': event,
    value: event,
    onchange: () => dispatch({ type: 'toggle-event', event }),
  }))]));
  const eventChooser = isLoop
    ? el('fieldset', { class: 'break-on' }, el('legend', { text: t.loop.breakOn }),
      [...eventBoxes].map(([event, box]) => el('label', {}, box, ` ${t.loop.events[event]}`)))
    : null;
  const statusLine = el('p', { class: 'status', role: 'status', 'data-status': 'idle' });
  // The controls, timeline and status: one compact bar that stays in view while the figure's code and panes scroll.
  const bar = el(
    'div',
    { class: 'bar' },
    el('div', { class: 'controls', role: 'group', 'aria-label': t.controlsLabel }, Object.values(buttons)),
    el('div', { class: 'timeline' }, el('div', { class: 'track' }, slider, ticks, eventTicks), where),
    statusLine,
  );

  const codeHeader = el('div', { class: 'code-header' });
  const codeBody = el('div', { class: 'listing', role: 'group', onkeydown: moveFocus, onclick: clickLine });
  // A function that cannot see the host (figure.host is empty) gets no host state pane.
  const paneNames = isLoop
    ? ['locals', 'stack', 'conversation', 'plan', 'request', 'evidence', 'output']
    : ['locals', 'stack', ...(figure.host.length > 0 ? ['state'] : []), 'output'];
  const panes = Object.fromEntries(paneNames.map((name) => [name, el('div', { class: 'pane-body' })]));
  // What the reader folds or unfolds in a value stays so at the next step (the panes are redrawn): a summary's click
  // comes before its toggle, so the part's new state is the opposite of its current one.
  /** @type {Map<string, boolean>} */
  const folds = new Map();
  for (const body of [panes.locals, panes.state]) {
    body?.addEventListener('click', (event) => {
      const details = /** @type {Element} */ (event.target).closest('summary')?.parentElement;
      if (details instanceof HTMLDetailsElement && details.dataset.path) folds.set(details.dataset.path, !details.open);
    });
  }

  const input = el('pre', { class: 'input' });
  const inputHeading = el('h3');
  const entry = api.source(figure.entry);
  const editor = createEditor({
    id: figure.id,
    t,
    label: words.inputLabel,
    onEdit: (text) => dispatch({ type: 'edit', text }),
    onRun: (command) => {
      dispatch({ type: 'run-own', command, trace: traceOwn(state.text) });
      // The panes above may have changed height: once laid out, bring the refusal, or else the status, into view. The
      // bar's height is read first: the status in it may have grown, and the ResizeObserver below tells only after this.
      const target = showsRefusal(state) ? editor.root.querySelector('.input-error') : statusLine;
      requestAnimationFrame(() => {
        root.style.setProperty('--bar-height', `${bar.offsetHeight}px`);
        target?.scrollIntoView({ block: 'nearest' });
      });
    },
    onReset: () => dispatch({ type: 'reset-own' }),
  });
  const entryListing = el('div', { class: 'listing plain', role: 'region', tabindex: '0', 'aria-label': t.setup.entry(entry.symbol, entry.file) });
  const setup = /** @type {HTMLDetailsElement} */ (el(
    'details',
    { class: 'setup', ontoggle: () => dispatch({ type: 'open', open: setup.open }) },
    el('summary', { text: t.setup.summary }),
    figure.edits === 'nothing' ? null : editor.root,
    inputHeading,
    input,
    el('h3', { text: t.setup.entry(entry.symbol, entry.file) }),
    entryListing,
  ));

  const root = el(
    'figure',
    // tabindex -1: a click anywhere in the figure focuses it, so its keys work without hunting for a control.
    { 'data-figure': figure.id, class: 'debugger', tabindex: '-1', 'aria-labelledby': captionId, onkeydown: onKey },
    el('figcaption', { id: captionId }, number ? [el('strong', { text: t.figure(number) }), ' '] : [], richText(words.caption, resolve)),
    // The things to try sit just above the controls they use.
    el('details', { class: 'tries', open: '' }, el('summary', { text: t.tries }), el('ul', {}, words.tries.map((item, i) =>
      el('li', {}, richText(item.text, resolve), ' ', el('button', {
        type: 'button', class: 'show-me', 'data-action': 'show-me', title: t.showMe[1], text: t.showMe[0], onclick: showMe[i],
      }))))),
    el('div', { class: 'scenario' }, el('label', {}, `${t.scenario} `, select), hint),
    eventChooser,
    bar,
    el(
      'div',
      { class: 'panes' },
      el('section', { class: 'code-pane', 'aria-label': t.codeLabel(figure.file, figure.symbol) }, codeHeader, codeBody,
        el('p', { class: 'legend' }, Object.entries(MARKS).map(([kind, mark]) => el('span', {}, el('span', { class: `legend-mark ${kind}`, 'aria-hidden': 'true', text: mark }), ` ${t.legend[/** @type {keyof MARKS} */ (kind)]}`)))),
      el(
        'div',
        { class: 'side' },
        Object.entries(panes).map(([name, body]) =>
          el('section', { 'data-pane': name }, el('h3', { text: t.panes[/** @type {keyof Words['panes']} */ (name)] }), body),
        ),
      ),
    ),
    setup,
  );
  // Content scrolled into view is kept clear of the sticky bar (style.css reads --bar-height).
  new ResizeObserver(() => root.style.setProperty('--bar-height', `${bar.offsetHeight}px`)).observe(bar);

  // --- Reading the reader's acts on the code pane.
  function clickLine(/** @type {Event} */ event) {
    const row = /** @type {Element} */ (event.target).closest('button.bp')?.closest('[data-line]');
    if (row) toggle(row);
  }

  function toggle(/** @type {Element} */ row) {
    dispatch({ type: 'toggle', symbol: shownSymbolOf(state), line: Number(/** @type {HTMLElement} */ (row).dataset.line) });
  }

  // Arrow keys move between line buttons (one tab stop for the whole listing).
  function moveFocus(/** @type {KeyboardEvent} */ event) {
    const row = /** @type {Element} */ (event.target).closest('[data-line]');
    if (!row) return;
    const rows = [...codeBody.querySelectorAll('[data-line]')];
    const at = rows.indexOf(row);
    const to = /** @type {Record<string, number>} */ ({ ArrowUp: at - 1, ArrowDown: at + 1, Home: 0, End: rows.length - 1 })[event.key];
    if (to === undefined || !rows[to]) return;
    event.preventDefault();
    focusRow(rows[to]);
  }

  function focusRow(/** @type {Element} */ row) {
    for (const button of codeBody.querySelectorAll('button.bp')) /** @type {HTMLButtonElement} */ (button).tabIndex = -1;
    const button = /** @type {HTMLButtonElement} */ (row.querySelector('button'));
    button.tabIndex = 0;
    button.focus();
  }

  function onKey(/** @type {KeyboardEvent} */ event) {
    if (event.ctrlKey || event.altKey || event.metaKey) return;
    const key = keyName(event);
    const command = COMMANDS.find((c) => KEYS[c] === key);
    const row = /** @type {Element} */ (event.target).closest('.code-pane [data-line]');
    if (command) {
      event.preventDefault();
      dispatch({ type: 'command', command });
    } else if (key === 'F9' && row) {
      event.preventDefault();
      toggle(row);
    }
  }

  // --- Drawing. A listing's rows are built when it is first shown and kept: stepping into a callee and back swaps them.
  /** @type {Map<string, Map<number, HTMLElement>>} */
  const rowsOf = new Map();
  /** @type {((lines: string[]) => Node[][]) | null} */
  let highlightLines = null; // the highlighter, once colourListings has run
  function rowsFor(/** @type {string} */ symbol) {
    let rows = rowsOf.get(symbol);
    if (!rows) {
      const listing = /** @type {Listing} */ (listings.get(symbol));
      const built = listingRows(listing, { idPrefix: `${figure.id}-${symbol}`, breakable: setting.breakable.get(symbol), t });
      if (highlightLines) colourRows(built, highlightLines);
      /** @type {HTMLButtonElement} */ (built[0].querySelector('button')).tabIndex = 0;
      rows = new Map(built.map((row) => [Number(row.dataset.line), row]));
      rowsOf.set(symbol, rows);
      for (const [line, row] of rows) showBreakpoint(row, state.breakpoints.has(breakpointKey(symbol, line)));
    }
    return rows;
  }

  function showBreakpoint(/** @type {HTMLElement} */ row, /** @type {boolean} */ on) {
    const button = /** @type {HTMLButtonElement} */ (row.querySelector('button'));
    if (button.getAttribute('aria-pressed') !== String(on)) button.setAttribute('aria-pressed', String(on));
  }

  /** @type {Map<HTMLElement, 'next' | 'ran'>} */
  let marked = new Map(); // the rows that carry a marker now
  function markRow(/** @type {HTMLElement} */ row, /** @type {'next' | 'ran' | null} */ kind) {
    row.classList.toggle('next', kind === 'next');
    row.classList.toggle('ran', kind === 'ran');
    if (kind === 'next') row.setAttribute('aria-current', 'step');
    else row.removeAttribute('aria-current');
    /** @type {Element} */ (row.querySelector('.mark')).replaceChildren(...(kind ? [el('span', { 'aria-hidden': 'true', text: MARKS[kind] }), hidden(t.legend[kind])] : []));
  }

  // Redraws a part only when its key (a short text naming what it is drawn from) has changed.
  /** @type {Map<Element, string>} */
  const drawn = new Map();
  function draw(/** @type {Element} */ node, /** @type {string} */ key, /** @type {() => Node[]} */ make) {
    if (drawn.get(node) === key) return;
    drawn.set(node, key);
    node.replaceChildren(...make());
  }

  function setText(/** @type {Node} */ node, /** @type {string} */ text) {
    if (node.textContent !== text) node.textContent = text;
  }

  function setAttribute(/** @type {Element} */ node, /** @type {string} */ name, /** @type {string} */ value) {
    if (node.getAttribute(name) !== value) node.setAttribute(name, value);
  }

  /** @type {string | null} */
  let shown = null; // the symbol whose listing is in the code pane

  /**
   * Brings the figure from `before` (null at first) to the current state, touching only the parts whose data changed.
   * @param {State | null} before @param {boolean} ranOwn whether the reader's text was just run
   */
  function render(before, ranOwn) {
    const trace = shownTrace(state);
    const traceChanged = !before || shownTrace(before) !== trace;

    // What changes only with the trace shown: the scenario switcher and hint, the setup part's data, the timeline's length.
    if (traceChanged || before?.own !== state.own) {
      if (state.own && !ownOption.isConnected) select.append(ownOption);
      if (!state.own) ownOption.remove();
      select.value = state.showingOwn ? 'input' : state.scenario;
      hint.textContent = state.showingOwn ? t.input.hint : /** @type {import('./pkg/todo_trace.js').Scenario} */ (scenarios.find((s) => s.id === state.scenario)).hint;
      inputHeading.textContent = state.showingOwn ? t.setup.ownInput : t.setup.input;
      // The data holds only what the call entry reads: validate_todos, which cannot see the host, is given the items alone.
      input.textContent = jsonText(trace.data);
      slider.max = String(trace.steps.length + 1);
      // While the figure shows the reader's run, the editor shows why their text was refused, if it was; after
      // the reader runs it, the caret goes to the place.
      const refusal = showsRefusal(state) ? trace.result.error : undefined;
      if (refusal) editor.showError(refusal, ranOwn);
      else editor.clearError();
    }
    // The text and the setup part's openness come from the page when the reader types or opens it (the toggle event
    // arrives a task later), so they are written only when the state's own value changed, never forced back.
    if (before?.text !== state.text && editor.textarea.value !== state.text) editor.textarea.value = state.text;
    if (before?.open !== state.open && setup.open !== state.open) setup.open = state.open;
    if (before && before.breakpoints !== state.breakpoints) {
      for (const [symbol, rows] of rowsOf) for (const [line, row] of rows) showBreakpoint(row, state.breakpoints.has(breakpointKey(symbol, line)));
    }
    if (!before || before.breakpoints !== state.breakpoints) {
      for (const [event, box] of eventBoxes) box.checked = state.breakpoints.has(eventKey(event));
    }
    if (!traceChanged && before?.pos === state.pos && before?.breakpoints === state.breakpoints && before?.frame === state.frame) return;
    showPosition(trace);
  }

  /** The status, the code pane's listing and marks, the timeline, the controls and the panes at the current position. @param {Trace} trace */
  function showPosition(trace) {
    const { steps } = trace;
    const { pos, breakpoints } = state;
    const step = stepAt(steps, pos);
    const id = traceId(trace);

    const s = status(trace, pos);
    setAttribute(statusLine, 'data-status', s.kind);
    setText(statusLine, statusText(s, t));

    const symbol = shownSymbolOf(state);
    const rows = rowsFor(symbol);
    if (shown !== symbol) {
      const listing = /** @type {Listing} */ (listings.get(symbol));
      // Inside a shadow root (embed.js) the document's active element is the host; the root's is the row.
      const hadFocus = codeBody.contains(/** @type {Document | ShadowRoot} */ (codeBody.getRootNode()).activeElement);
      codeHeader.replaceChildren(el('code', { text: listing.file }), ' · ', el('code', { class: 'symbol', text: symbol }));
      codeBody.setAttribute('aria-label', t.codeLabel(listing.file, symbol));
      codeBody.replaceChildren(...rows.values());
      shown = symbol;
      if (hadFocus) focusRow(/** @type {Element} */ (codeBody.querySelector('[data-line]')));
    }
    const { next, ran } = markers(steps, pos);
    /** @type {Map<HTMLElement | undefined, 'next' | 'ran'>} */
    const marks = new Map([[ran === null ? undefined : rows.get(ran), 'ran'], [next === null ? undefined : rows.get(next), 'next']]); // the line about to run wins
    marks.delete(undefined);
    for (const row of marked.keys()) if (!marks.has(row)) markRow(row, null);
    for (const [row, kind] of /** @type {Map<HTMLElement, 'next' | 'ran'>} */ (marks)) if (marked.get(row) !== kind) markRow(row, kind);
    marked = /** @type {Map<HTMLElement, 'next' | 'ran'>} */ (marks);
    const reveal = next ?? ran;
    revealSoon(reveal === null ? undefined : rows.get(reveal));

    slider.value = String(pos + 1);
    const place = positionText(pos, steps.length, t);
    setAttribute(slider, 'aria-valuetext', place);
    setText(where, place);
    const hits = breakpointHits(steps, breakpoints);
    draw(ticks, `${id}|${hits}`, () =>
      hits.map((i) => {
        const tick = el('span', { class: 'tick' });
        tick.style.setProperty('--at', String((i + 1) / (steps.length + 1)));
        return tick;
      }),
    );

    for (const command of COMMANDS) {
      setAttribute(buttons[command], 'aria-disabled', String(!canRun(command, steps, pos, breakpoints)));
    }
    if (isLoop) {
      draw(eventTicks, String(id), () =>
        eventSteps(trace).map((i) => {
          const tick = el('span', { class: 'tick event', 'data-event': (steps[i].decisions ?? []).join(' ') });
          tick.style.setProperty('--at', String((i + 1) / (steps.length + 1)));
          return tick;
        }),
      );
      const at = Math.min(Math.max(pos, 0), steps.length - 1);
      const still = pos === IDLE || pos >= steps.length;
      draw(panes.conversation, `${id}|${steps[at]?.host}|${still}`, () => conversationPane(trace, pos, t));
      draw(panes.plan, `${id}|${pos}`, () => planPane(trace, pos, t));
      draw(panes.request, `${id}|${pos === IDLE ? 'none' : requestAt(trace, pos)?.index}`, () => requestPane(trace, pos, t));
      draw(panes.evidence, `${id}|${pos >= steps.length}`, () => evidencePane(trace, pos, t));
    }

    // Each pane's key names the trace and the indices its step refers to: equal keys, equal panes.
    // A caller chosen in the call stack shows its locals as at its latest step (Rust gives that step's index).
    const picked = step && state.frame !== null ? framesAt(steps, pos)[state.frame] : null;
    if (picked) {
      const at = steps[picked.step];
      draw(panes.locals, `${id}|frame|${picked.step}`, () => [
        el('p', { class: 'picked', text: t.framePicked(picked.symbol, picked.line) }),
        ...localsPane(localsOf(trace, at).map((local) => ({ ...local, change: '.', was: undefined })), { event: 'line', value: undefined }, t, folds),
      ]);
    } else {
      const localsKey = step ? `${id}|${step.event}|${step.scope}|${step.values}|${step.changes}|${step.was}|${step.value}|${step.error?.code}` : 'none';
      draw(panes.locals, localsKey, () => localsPane(step && localsOf(trace, step), step && { event: step.event, value: returned(trace, step), error: step.error }, t, folds));
    }
    const frames = callStack(steps, pos);
    draw(panes.stack, `${JSON.stringify(frames)}|${state.frame}`, () =>
      stackPane(frames, t, state.frame === null ? 0 : frames.length - 1 - state.frame, (i) => dispatch({ type: 'frame', index: i === 0 ? null : frames.length - 1 - i })));
    // Refused text never ran: no state to show and nothing printed.
    const notRun = () => [el('p', { class: 'empty', text: t.input.notRun })];
    const still = pos === IDLE || pos >= steps.length;
    const hostKey = trace.ran ? `${id}|${steps[Math.min(Math.max(pos, 0), steps.length - 1)]?.host}|${still}|${pos >= steps.length}` : 'not run';
    if (panes.state) {
      draw(panes.state, hostKey, () =>
        trace.ran ? [...statePane(hostAt(trace, pos), t, folds), ...(pos >= steps.length ? [el('p', { class: 'note', text: t.hostEffect })] : [])] : notRun());
    }
    const lines = outputAt(trace, pos);
    draw(panes.output, trace.ran ? `${id}|${pos === IDLE ? 'idle' : lines.length}` : 'not run', () => (trace.ran ? outputPane(lines, t) : notRun()));
  }

  const shownSymbolOf = (/** @type {State} */ s) => shownSymbol(shownTrace(s).steps, s.pos, figure.symbol);

  // Keeps the marked line visible inside the code pane without scrolling the page. In the next frame: reading
  // where a row is right after a step's DOM writes would force a layout in the middle of the click.
  /** @type {HTMLElement | undefined} */
  let toReveal; // the row to bring into view in the next frame, if any
  function revealSoon(/** @type {HTMLElement | undefined} */ row) {
    if (row && !toReveal) requestAnimationFrame(revealNow);
    toReveal = row;
  }

  function revealNow() {
    const row = toReveal;
    toReveal = undefined;
    if (!row?.isConnected) return; // a callee's listing swapped out since, or the page rebuilt in another language
    const top = row.offsetTop - codeBody.offsetTop;
    if (top < codeBody.scrollTop || top + row.offsetHeight > codeBody.scrollTop + codeBody.clientHeight) {
      codeBody.scrollTop = top - codeBody.clientHeight / 3;
    }
  }

  // The page is first shown with plain code. After that frame the listings are highlighted and those not shown yet
  // (callees, the call entry) are built, coloured, so a listing is coloured by the time a reader steps into it or
  // opens it. One listing per task: together they made a task long enough to hold up a tap.
  async function colourListings() {
    const colour = (await highlighter).highlightLines;
    highlightLines = colour; // rowsFor colours what it builds from now on; those built before are coloured here
    for (const rows of [...rowsOf.values()]) {
      await nextTask();
      colourRows([...rows.values()], colour);
    }
    for (const symbol of listings.keys()) {
      if (rowsOf.has(symbol)) continue;
      await nextTask();
      rowsFor(symbol);
    }
    await nextTask();
    const rows = listingRows(entry, { t });
    colourRows(rows, colour);
    entryListing.append(...rows);
  }

  render(null, false);
  afterNextFrame(colourListings);
  return {
    root,
    place: () => placeOf(state),
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

/** @param {number} pos @param {number} total @param {Words} t */
function positionText(pos, total, t) {
  if (pos === IDLE) return t.position.idle(total);
  if (pos >= total) return t.position.end(total);
  return t.position.at(pos + 1, total);
}

/** @param {Status} s @param {Words} t */
function statusText(s, t) {
  if (s.kind === 'idle') return t.status.idle;
  if (s.kind === 'done') return t.status.done;
  if (s.kind === 'error') return s.truncated ? t.status.truncated : t.status.failed(/** @type {{error: import('./pkg/todo_trace.js').ErrorInfo}} */ (s));
  if (s.event === 'return') return t.status.return(s);
  if (s.event === 'error') return t.status.error(/** @type {typeof s & {error: import('./pkg/todo_trace.js').ErrorInfo}} */ (s));
  return t.status.line(s);
}
