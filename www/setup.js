// What a figure runs on: the scenario chooser, and the setup part with the reader's editor, the input data and the call entry.
// @ts-check
import { createEditor } from './editor.js';
import { piece } from './piece.js';
import { colourRows, el, jsonText, listingRows } from './render.js';
import { showsRefusal, shownTrace } from './state.js';

/** @typedef {import('./pkg/todo_trace.js').Figure} Figure */
/** @typedef {import('./pkg/todo_trace.js').Scenario} Scenario */
/** @typedef {import('./pkg/todo_trace.js').Listing} Listing */
/** @typedef {import('./text-en.js').Words} Words */
/** @typedef {import('./state.js').Action} Action */
/** @typedef {import('./state.js').State} State */

/** The error the editor shows: why the reader's text was refused, while the figure shows that run; else null. */
const refusalOf = (/** @type {State} */ s) => (showsRefusal(s) ? shownTrace(s).result.error ?? null : null);

/**
 * Builds the scenario chooser and the setup part. `entry` is the call entry's listing, `label` what the editor's text
 * is; `onRun(command)` is the editor's Run or Debug. Returns the chooser, the setup part, their pieces,
 * `refusalBox`, `focusRefusal()` (the caret to the place of the refusal shown) and `colour(highlightLines)` for the call entry.
 * @param {{figure: Figure, scenarios: Scenario[], entry: Listing, label: string, t: Words,
 *   dispatch: (action: Action) => void, choose: (scenario: string) => void, onRun: (command: 'run' | 'debug') => void}} options
 */
export function createSetup({ figure, scenarios, entry, label, t, dispatch, choose, onRun }) {
  const hintId = `${figure.id}-hint`;
  const select = el(
    'select',
    { 'data-control': 'scenario', 'aria-describedby': hintId, onchange: () => (select.value === 'input' ? dispatch({ type: 'choose-own' }) : choose(select.value)) },
    scenarios.map((s) => el('option', { value: s.id, text: s.label })),
  );
  // Offered while there is a run of the reader's own input to go back to.
  const ownOption = el('option', { value: 'input', text: t.input.option });
  const hint = el('p', { class: 'hint', id: hintId });
  const chooser = el('div', { class: 'scenario' }, el('label', {}, `${t.scenario} `, select), hint);

  const input = el('pre', { class: 'input' });
  const inputHeading = el('h3');
  const editor = createEditor({
    id: figure.id,
    t,
    label,
    onEdit: (text) => dispatch({ type: 'edit', text }),
    onRun,
    onReset: () => dispatch({ type: 'reset-own' }),
  });
  const entryListing = el('div', { class: 'listing plain', role: 'region', tabindex: '0', 'aria-label': t.setup.entry(entry.symbol, entry.file) });
  const setup = el(
    'details',
    { class: 'setup', ontoggle: () => dispatch({ type: 'open', open: setup.open }) },
    el('summary', { text: t.setup.summary }),
    figure.edits === 'nothing' ? null : editor.root,
    inputHeading,
    input,
    el('h3', { text: t.setup.entry(entry.symbol, entry.file) }),
    entryListing,
  );

  const pieces = [
    // In the loop figure the reader's own is a run file: named in the chooser, so a scenario and the file can be
    // switched between until it is closed.
    piece((s) => [s.own?.run, s.own !== null, s.showingOwn, s.scenario], (run, hasOwn, showingOwn, scenario) => {
      if (hasOwn && !ownOption.isConnected) select.append(ownOption);
      if (!hasOwn) ownOption.remove();
      ownOption.textContent = run ? t.run.option(run.name) : t.input.option;
      select.value = showingOwn ? 'input' : scenario;
      hint.textContent = showingOwn ? (run ? t.run.hint : t.input.hint) : /** @type {Scenario} */ (scenarios.find((s) => s.id === scenario)).hint;
    }),
    // The data holds only what the call entry reads: validate_todos, which cannot see the host, is given the items alone.
    // A run file opened in the loop figure: its settings, which the host runs with (the rest is in the panes).
    piece((s) => [shownTrace(s), s.showingOwn, s.own?.run !== undefined], (trace, showingOwn, isRun) => {
      if (showingOwn && isRun) {
        inputHeading.textContent = t.run.settings;
        input.textContent = trace.replay ? jsonText(trace.replay.settings) : '';
        return;
      }
      inputHeading.textContent = showingOwn ? t.setup.ownInput : t.setup.input;
      input.textContent = jsonText(trace.data);
    }),
    piece((s) => [refusalOf(s)], (refusal) => {
      if (refusal) editor.showError(refusal);
      else editor.clearError();
    }),
    // The text and the part's openness come from the page when the reader types or opens it (the toggle event arrives a
    // task later), so they are written only when the state's own value changed, never forced back.
    piece((s) => [s.text], (text) => {
      if (editor.textarea.value !== text) editor.textarea.value = text;
    }),
    piece((s) => [s.open], (open) => {
      if (setup.open !== open) setup.open = open;
    }),
  ];

  return {
    chooser,
    setup,
    pieces,
    /** The box that shows why the reader's text was refused. */
    refusalBox: editor.errorBox,
    focusRefusal: () => editor.focusError(),
    /** Adds the call entry's rows, coloured. @param {(lines: string[]) => Node[][]} colour */
    colour(colour) {
      const rows = listingRows(entry, { t });
      colourRows(rows, colour);
      entryListing.append(...rows);
    },
  };
}
