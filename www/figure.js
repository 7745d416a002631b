// One figure: a step debugger over a lesson function's recorded traces (code pane, controls, timeline, panes, setup part with the reader's own input).
import { createEditor, editorText } from './editor.js';
import { afterNextFrame, colourRows, el, hidden, jsonText, listingRows, localsPane, outputPane, richText, stackPane, statePane } from './render.js';
import {
  IDLE, breakableLines, breakpointHits, breakpointKey, callStack, canRun, commands,
  localsView, markers, outputAt, shownSymbol, stateView, status, tracedSymbols,
} from './replay.js';

// The highlighter (code.js) loads beside the page instead of holding it up; see colourListings.
const highlighter = import('./code.js');

const COMMANDS = ['run', 'debug', 'continue', 'step-over', 'step-into', 'step-out', 'step-back', 'restart'];

/** The debugger keys (DevTools' and VS Code's, plus Shift+F8 for stepping back). */
export const KEYS = { continue: 'F8', 'step-over': 'F10', 'step-into': 'F11', 'step-out': 'Shift+F11', 'step-back': 'Shift+F8' };

/** The gutter marks, told apart by shape: a filled arrow for the line about to run, a hollow one for the line just run, a dot for a breakpoint. */
const MARKS = { next: '▶', ran: '▷', bp: '●' };

const keyName = (event) => (event.shiftKey ? `Shift+${event.key}` : event.key);

/**
 * Builds a figure. `words` are its caption and "things to try" (text-zh.js, text-en.js), whose {scenario:…}
 * references `scenarioLabel` resolves. `link` is its place as read from the URL ({scenario, breakpoints, step}); whatever
 * in it does not fit this figure is ignored and reported through `problems`. `onMove` is called after
 * every move, `onChange` after a breakpoint, scenario or reader's-input change. `kept` is what `keep()` returned before the page
 * was rebuilt in another language (the reader's text and run), or undefined.
 * Returns `{root, place(), keep()}`.
 */
export function createFigure({ api, figure, number, lang, t, words, link, kept, scenarioLabel, problems, onMove, onChange }) {
  const scenarios = api.scenarios(figure.id, lang);
  const defaultScenario = scenarios.find((s) => s.isDefault).id;
  // A scenario is traced when it is first shown, and kept: tracing every scenario up front made the page slow to load.
  const traces = new Map();
  const traceOf = (id) => {
    if (!traces.has(id)) traces.set(id, api.trace(figure.id, id, lang));
    return traces.get(id);
  };
  // Each listing with the lines that accept a breakpoint, read once. Those the default scenario steps through are read
  // up front, so a later failure inside the module cannot take the code pane with it.
  const codes = new Map();
  const codeOf = (symbol) => {
    if (!codes.has(symbol)) {
      const listing = api.source(symbol);
      codes.set(symbol, { listing, breakable: breakableLines([listing]).get(symbol) });
    }
    return codes.get(symbol);
  };
  for (const symbol of tracedSymbols([traceOf(defaultScenario)])) codeOf(symbol);
  const resolve = referenceResolver([...codes.values()].map((code) => code.listing), scenarioLabel);
  // Whether some scenario steps through `symbol`, tracing only as many as it takes to tell.
  const stepsThrough = (symbol) => codes.has(symbol) || scenarios.some((s) => tracedSymbols([traceOf(s.id)]).has(symbol));

  // Settle the place the link asks for.
  let scenario = defaultScenario;
  if (link.scenario !== null) {
    if (scenarios.some((s) => s.id === link.scenario)) scenario = link.scenario;
    else problems.push({ name: figure.id, value: link.scenario });
  }
  const breakpoints = new Set();
  for (const key of link.breakpoints) {
    const [symbol, line] = key.split('.');
    if (stepsThrough(symbol) && codeOf(symbol).breakable.has(Number(line)) && key === breakpointKey(symbol, Number(line))) breakpoints.add(key);
    else problems.push({ name: `${figure.id}.bp`, value: key });
  }
  let trace = traceOf(scenario);
  let pos = IDLE;
  // The reader's own input: their last run ({text, trace}) or null, and whether the figure shows it instead of the scenario.
  let own = null;
  let showingOwn = false;
  let shown = null; // the symbol whose listing is in the code pane
  if (link.step === 'end') pos = trace.steps.length;
  else if (link.step !== null && link.step <= trace.steps.length + 1) pos = link.step - 1;
  else if (link.step !== null) problems.push({ name: `${figure.id}.step`, value: link.step });

  // --- The parts of the figure, built once; update() brings them to the current position.
  const captionId = `${figure.id}-caption`;
  const hintId = `${figure.id}-hint`;
  const select = el(
    'select',
    { 'data-control': 'scenario', 'aria-describedby': hintId, onchange: () => switchScenario(select.value) },
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
          onclick: () => perform(command),
        }),
      ];
    }),
  );

  const slider = el('input', { type: 'range', min: '0', step: '1', 'aria-label': t.timeline, oninput: () => moveTo(Number(slider.value) - 1) });
  const where = el('output', { class: 'where', 'aria-hidden': 'true' });
  const ticks = el('div', { class: 'ticks', 'aria-hidden': 'true' });
  const statusLine = el('p', { class: 'status', role: 'status', 'data-status': 'idle' });

  const codeHeader = el('div', { class: 'code-header' });
  const codeBody = el('div', { class: 'listing', role: 'group', onkeydown: moveFocus, onclick: clickLine });
  const panes = Object.fromEntries(['locals', 'stack', 'state', 'output'].map((name) => [name, el('div', { class: 'pane-body' })]));

  const input = el('pre', { class: 'input' });
  const inputHeading = el('h3');
  const entry = api.source(figure.entry);
  const editor = createEditor({ id: figure.id, t, label: words.inputLabel, onRun: runInput, onReset: resetInput });
  const scenarioText = () => editorText(figure.id, traceOf(scenario).input);
  editor.textarea.value = scenarioText();
  const entryListing = el('div', { class: 'listing plain', role: 'region', tabindex: '0', 'aria-label': t.setup.entry(entry.symbol, entry.file) });
  const setup = el(
    'details',
    { class: 'setup' },
    el('summary', { text: t.setup.summary }),
    editor.root,
    inputHeading,
    input,
    el('h3', { text: t.setup.entry(entry.symbol, entry.file) }),
    entryListing,
  );

  const root = el(
    'figure',
    // tabindex -1: a click anywhere in the figure focuses it, so its keys work without hunting for a control.
    { 'data-figure': figure.id, class: 'debugger', tabindex: '-1', 'aria-labelledby': captionId, onkeydown: onKey },
    el('figcaption', { id: captionId }, el('strong', { text: t.figure(number) }), ' ', richText(words.caption, resolve)),
    el('div', { class: 'scenario' }, el('label', {}, `${t.scenario} `, select), hint),
    el('div', { class: 'controls', role: 'group', 'aria-label': t.controlsLabel }, Object.values(buttons)),
    el('div', { class: 'timeline' }, el('div', { class: 'track' }, slider, ticks), where),
    statusLine,
    el(
      'div',
      { class: 'panes' },
      el('section', { class: 'code-pane', 'aria-label': t.codeLabel(figure.file, figure.symbol) }, codeHeader, codeBody,
        el('p', { class: 'legend' }, Object.entries(MARKS).map(([kind, mark]) => el('span', {}, el('span', { class: `legend-mark ${kind}`, 'aria-hidden': 'true', text: mark }), ` ${t.legend[kind]}`)))),
      el(
        'div',
        { class: 'side' },
        Object.entries(panes).map(([name, body]) =>
          el('section', { 'data-pane': name }, el('h3', { text: t.panes[name] }), body),
        ),
      ),
    ),
    setup,
    el('div', { class: 'tries' }, el('h3', { text: t.tries }), el('ul', {}, words.tries.map((item) => el('li', {}, richText(item, resolve))))),
  );

  // A listing's rows are built when it is first shown and kept: stepping into a callee and back swaps them.
  const rowsOf = new Map();
  let highlightLines = null; // the highlighter, once colourListings has run
  function listingFor(symbol) {
    const { listing, breakable } = codeOf(symbol);
    if (!rowsOf.has(symbol)) {
      const rows = listingRows(listing, { idPrefix: `${figure.id}-${symbol}`, breakable, t });
      if (highlightLines) colourRows(rows, highlightLines);
      rows[0].querySelector('button').tabIndex = 0;
      rowsOf.set(symbol, new Map(rows.map((row) => [Number(row.dataset.line), row])));
      for (const [line, row] of rowsOf.get(symbol)) if (breakpoints.has(breakpointKey(symbol, line))) showBreakpoint(row, true);
    }
    return { listing, rows: rowsOf.get(symbol) };
  }

  // --- Moving.
  function moveTo(newPos, notify = onMove) {
    pos = Math.max(IDLE, Math.min(newPos, trace.steps.length));
    update();
    notify();
  }

  function perform(command) {
    moveTo(commands[command](trace.steps, pos, breakpoints));
  }

  // "input" goes back to the reader's last run. The editor follows the scenario unless the reader has changed its text.
  function switchScenario(id) {
    if (id !== 'input') {
      const unedited = editor.textarea.value === scenarioText();
      scenario = id;
      if (unedited) editor.textarea.value = scenarioText();
    }
    restartOn(id === 'input');
  }

  // Puts the figure at the start of a trace: the reader's last run, or the scenario's.
  function restartOn(ownRun) {
    showingOwn = ownRun;
    trace = ownRun ? own.trace : traceOf(scenario);
    pos = IDLE;
    markEditor(false);
    showTrace();
    update();
    onChange();
  }

  // --- The reader's own input.
  function traceOwn(text) {
    try {
      return api.traceInput(figure.id, text, lang);
    } catch (error) {
      // traceInput only throws for a bug or a trap inside the module: shown like refused text, so the page stays usable.
      const failure = { code: 'exception', message: t.input.exception(error.message) };
      return { figure: figure.id, scenario: 'input', input: null, steps: [], output: [], result: { ok: false, error: failure } };
    }
  }

  // Run and Debug on the editor's text: the debugger then works on that trace as on a scenario's.
  function runInput(command) {
    own = { text: editor.textarea.value, trace: traceOwn(editor.textarea.value) };
    showingOwn = true;
    trace = own.trace;
    showTrace();
    moveTo(commands[command](trace.steps, IDLE, breakpoints), onChange);
    markEditor(true);
    // The debugger sits above the editor: bring it into view, unless the text was refused and the error is here.
    if (!refused(trace)) statusLine.scrollIntoView({ block: 'nearest' });
  }

  function resetInput() {
    own = null;
    editor.textarea.value = scenarioText();
    restartOn(false);
  }

  // While the figure shows the reader's run, the editor shows why their text was refused, if it was.
  function markEditor(focus) {
    if (showingOwn && refused(trace)) editor.showError(trace.result.error, focus);
    else editor.clearError();
  }

  function toggleBreakpoint(row) {
    const line = Number(row.dataset.line);
    if (!codeOf(shown).breakable.has(line)) return;
    const key = breakpointKey(shown, line);
    if (breakpoints.has(key)) breakpoints.delete(key);
    else breakpoints.add(key);
    showBreakpoint(row, breakpoints.has(key));
    update();
    onChange();
  }

  function clickLine(event) {
    const button = event.target.closest('button.bp');
    if (button) toggleBreakpoint(button.closest('[data-line]'));
  }

  // Arrow keys move between line buttons (one tab stop for the whole listing).
  function moveFocus(event) {
    const row = event.target.closest('[data-line]');
    if (!row) return;
    const rows = [...codeBody.querySelectorAll('[data-line]')];
    const at = rows.indexOf(row);
    const to = { ArrowUp: at - 1, ArrowDown: at + 1, Home: 0, End: rows.length - 1 }[event.key];
    if (to === undefined || !rows[to]) return;
    event.preventDefault();
    focusRow(rows[to]);
  }

  function focusRow(row) {
    for (const button of codeBody.querySelectorAll('button.bp')) button.tabIndex = -1;
    const button = row.querySelector('button');
    button.tabIndex = 0;
    button.focus();
  }

  function onKey(event) {
    if (event.ctrlKey || event.altKey || event.metaKey) return;
    const key = keyName(event);
    const command = COMMANDS.find((c) => KEYS[c] === key);
    if (command) {
      event.preventDefault();
      perform(command);
    } else if (key === 'F9' && event.target.closest('.code-pane [data-line]')) {
      event.preventDefault();
      toggleBreakpoint(event.target.closest('[data-line]'));
    }
  }

  // --- Showing the current position. A move rewrites only what it changes: the marked rows, the status, and the
  // panes whose content differs (bench/report.md times a step).

  // What changes only with the trace shown: the scenario switcher and hint, the setup part's input, the timeline's length.
  function showTrace() {
    if (own && !ownOption.isConnected) select.append(ownOption);
    if (!own) ownOption.remove();
    select.value = showingOwn ? 'input' : scenario;
    hint.textContent = showingOwn ? t.input.hint : scenarios.find((s) => s.id === scenario).hint;
    inputHeading.textContent = showingOwn ? t.setup.ownInput : t.setup.input;
    input.textContent = jsonText(trace.input);
    slider.max = String(trace.steps.length + 1);
  }

  function showBreakpoint(row, on) {
    row.querySelector('button').setAttribute('aria-pressed', String(on));
  }

  let marked = new Map(); // row -> "next" or "ran": the rows that carry a marker now
  function markRow(row, kind) {
    row.classList.toggle('next', kind === 'next');
    row.classList.toggle('ran', kind === 'ran');
    if (kind === 'next') row.setAttribute('aria-current', 'step');
    else row.removeAttribute('aria-current');
    row.querySelector('.mark').replaceChildren(...(kind ? [el('span', { 'aria-hidden': 'true', text: MARKS[kind] }), hidden(t.legend[kind])] : []));
  }

  // Redraws a part only when the data it is drawn from has changed.
  const drawn = new Map(); // node -> that data as JSON
  function draw(node, data, render) {
    const key = JSON.stringify(data);
    if (drawn.get(node) === key) return;
    drawn.set(node, key);
    node.replaceChildren(...render(data));
  }

  function setText(node, text) {
    if (node.textContent !== text) node.textContent = text;
  }

  function setAttribute(node, name, value) {
    if (node.getAttribute(name) !== value) node.setAttribute(name, value);
  }

  function update() {
    const { steps } = trace;
    const step = pos >= 0 && pos < steps.length ? steps[pos] : null;

    const s = status(trace, pos);
    setAttribute(statusLine, 'data-status', s.kind);
    setText(statusLine, statusText(s, t));

    const symbol = shownSymbol(steps, pos, figure.symbol);
    const { listing, rows } = listingFor(symbol);
    if (shown !== symbol) {
      const hadFocus = codeBody.contains(document.activeElement);
      codeHeader.replaceChildren(el('code', { text: listing.file }), ' · ', el('code', { class: 'symbol', text: symbol }));
      codeBody.setAttribute('aria-label', t.codeLabel(listing.file, symbol));
      codeBody.replaceChildren(...rows.values());
      shown = symbol;
      if (hadFocus) focusRow(codeBody.querySelector('[data-line]'));
    }
    const { next, ran } = markers(steps, pos);
    const marks = new Map([[rows.get(ran), 'ran'], [rows.get(next), 'next']]); // the line about to run wins
    marks.delete(undefined);
    for (const row of marked.keys()) if (!marks.has(row)) markRow(row, null);
    for (const [row, kind] of marks) if (marked.get(row) !== kind) markRow(row, kind);
    marked = marks;
    revealSoon(rows.get(next ?? ran));

    slider.value = String(pos + 1);
    const place = positionText(pos, steps.length, t);
    setAttribute(slider, 'aria-valuetext', place);
    setText(where, place);
    const hits = breakpointHits(steps, breakpoints);
    draw(ticks, [hits, steps.length], () =>
      hits.map((i) => {
        const tick = el('span', { class: 'tick' });
        tick.style.setProperty('--at', String((i + 1) / (steps.length + 1)));
        return tick;
      }),
    );

    for (const command of COMMANDS) {
      setAttribute(buttons[command], 'aria-disabled', String(!canRun(command, steps, pos, breakpoints)));
    }

    draw(panes.locals, [localsView(steps, pos), step && [step.event, step.value, step.error]], ([view]) => localsPane(view, step, t));
    draw(panes.stack, callStack(steps, pos), (frames) => stackPane(frames, t));
    // Refused text never ran: no state to show and nothing printed.
    const notRun = () => [el('p', { class: 'empty', text: t.input.notRun })];
    draw(panes.state, steps.length > 0 && stateView(steps, pos), (view) => (view ? statePane(view, t) : notRun()));
    draw(panes.output, steps.length > 0 && outputAt(trace, pos), (lines) => (lines ? outputPane(lines, t) : notRun()));
  }

  // Keeps the marked line visible inside the code pane without scrolling the page. In the next frame: reading
  // where a row is right after a step's DOM writes would force a layout in the middle of the click.
  let toReveal = null; // the row to bring into view in the next frame, if any
  function revealSoon(row) {
    if (row && !toReveal) requestAnimationFrame(revealNow);
    toReveal = row;
  }

  function revealNow() {
    const row = toReveal;
    toReveal = null;
    if (!row?.isConnected) return; // a callee's listing swapped out since, or the page rebuilt in another language
    const top = row.offsetTop - codeBody.offsetTop;
    if (top < codeBody.scrollTop || top + row.offsetHeight > codeBody.scrollTop + codeBody.clientHeight) {
      codeBody.scrollTop = top - codeBody.clientHeight / 3;
    }
  }

  // After a language switch: the reader's text, and their run traced again in the new language.
  if (kept) {
    if (kept.text !== null) editor.textarea.value = kept.text;
    if (kept.own !== null) {
      const text = kept.own === true ? scenarioText() : kept.own;
      own = { text, trace: traceOwn(text) };
      if (kept.showingOwn) {
        showingOwn = true;
        trace = own.trace;
        pos = Math.min(kept.pos, trace.steps.length);
      }
    }
    setup.open = kept.open;
  }

  // The page is first shown with plain code. After that frame the listings not shown yet (callees, the call entry) are
  // built, and all are highlighted, so a listing is coloured by the time a reader steps into it or opens it.
  async function colourListings() {
    for (const symbol of codes.keys()) listingFor(symbol);
    entryListing.append(...listingRows(entry, { t }));
    ({ highlightLines } = await highlighter);
    for (const rows of rowsOf.values()) colourRows([...rows.values()], highlightLines);
    colourRows([...entryListing.children], highlightLines);
  }

  markEditor(false);
  showTrace();
  update();
  afterNextFrame(colourListings);
  return {
    root,
    // The URL does not hold the reader's text, so while the figure shows it the link keeps the scenario and no step.
    place: () => ({
      id: figure.id,
      scenario,
      defaultScenario,
      breakpoints,
      step: pos === IDLE || showingOwn ? null : pos >= trace.steps.length ? 'end' : pos + 1,
    }),
    // What a rebuild in another language needs to keep: the reader's text (if changed) and their run
    // (true if it ran the scenario's text unchanged, which then follows the language like the editor).
    keep: () => ({
      text: editor.textarea.value === scenarioText() ? null : editor.textarea.value,
      own: own === null ? null : own.text === scenarioText() ? true : own.text,
      showingOwn,
      pos,
      open: setup.open,
    }),
  };
}

// {line:SNIPPET} names the one line, among the listings the figure's default scenario steps through, that contains SNIPPET.
function referenceResolver(listings, scenarioLabel) {
  const lines = listings.flatMap((listing) => listing.lines);
  return (kind, arg) => {
    if (kind === 'scenario') return scenarioLabel(arg);
    const found = lines.filter((line) => line.text.includes(arg));
    if (found.length !== 1) throw new Error(`the lesson text's line reference "${arg}" matches ${found.length} lines`);
    return String(found[0].no);
  };
}

// Refused text runs nothing: its trace has no steps and an error.
const refused = (trace) => trace.steps.length === 0 && !trace.result.ok;

function positionText(pos, total, t) {
  if (pos === IDLE) return t.position.idle(total);
  if (pos >= total) return t.position.end(total);
  return t.position.at(pos + 1, total);
}

function statusText(s, t) {
  if (s.kind === 'idle') return t.status.idle;
  if (s.kind === 'done') return t.status.done;
  if (s.kind === 'error') return s.truncated ? t.status.truncated : t.status.failed(s);
  if (s.event === 'return') return t.status.return(s);
  if (s.event === 'error') return t.status.error(s);
  return t.status.line(s);
}
