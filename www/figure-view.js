// A figure's view: its parts laid out once (caption, notice, things to try, chooser, bar, code and side panes, setup), and render(state), which brings each piece to a state.
// @ts-check
import { COMMANDS, KEYS, createBar } from './bar.js';
import { createCodePane } from './code-pane.js';
import { createPanes } from './panes.js';
import { createPredict } from './predict.js';
import { createRunPart } from './run-file.js';
import { afterNextFrame, el, nextTask, problemNotice, richText } from './render.js';
import { createSetup } from './setup.js';
import { shownTrace } from './state.js';

/** @typedef {import('./pkg/todo_trace.js').Listing} Listing */
/** @typedef {import('./pkg/todo_trace.js').Scenario} Scenario */
/** @typedef {import('./text-en.js').Words} Words */
/** @typedef {import('./state.js').Setting} Setting */
/** @typedef {import('./state.js').State} State */
/** @typedef {import('./state.js').Action} Action */

// The highlighter (code.js) loads beside the page instead of holding it up; see the end of createView.
const highlighter = import('./code.js');

const keyName = (/** @type {KeyboardEvent} */ event) => (event.shiftKey ? `Shift+${event.key}` : event.key);

/**
 * Builds a figure's view. `number` 0 leaves the caption unnumbered; `resolve` turns the words' {line:…} and
 * {scenario:…} into text; `problems` are the values the figure could not use, listed in its notice; `showMe[i]` sets
 * up "things to try" item i. The reader's acts become actions through `dispatch`, except a scenario chosen
 * (`choose`), the editor's Run or Debug (`onRun`) and the loop figure's run file opened (`openRun`), which need a trace. Returns `{root, render(state),
 * focusQuestion(), focusRefusal(), reveal(pane), revealRun(refused)}`.
 * `whatIf`: the loop figure's "What if…" control and compare pane (compare.js), null elsewhere.
 * @param {{setting: Setting, isLoop: boolean, whatIf: {control: Node, pane: Node} | null, number: number, t: Words, words: Words['figures'][string], entry: Listing,
 *   resolve: (kind: string, arg: string) => string, problems: {name: string, value: string}[], showMe: (() => void)[],
 *   dispatch: (...actions: Action[]) => void, choose: (scenario: string) => void, onRun: (command: 'run' | 'debug') => void,
 *   openRun: (file: File) => void}} options
 */
export function createView({ setting, isLoop, whatIf, number, t, words, entry, resolve, problems, showMe, dispatch, choose, onRun, openRun }) {
  const { figure, scenarios } = setting;
  const captionId = `${figure.id}-caption`;
  const bar = createBar({ t, isLoop, dispatch });
  const code = createCodePane({ setting, t, dispatch });
  const side = createPanes({ figure, isLoop, t, dispatch });
  const setup = createSetup({ figure, scenarios, entry, label: words.inputLabel, t, dispatch, choose, onRun });
  const predict = createPredict({ id: figure.id, t, dispatch, shown: shownTrace });
  // The loop figure replays run files too: the reader's own, opened or dropped.
  const runs = isLoop ? createRunPart({ id: figure.id, t, onFile: openRun, dispatch }) : null;

  const panes = el('div', { class: 'panes' }, code.root, side.root);
  const root = el(
    'figure',
    // tabindex -1: a click anywhere in the figure focuses it, so its keys work without hunting for a control.
    { 'data-figure': figure.id, class: 'debugger', tabindex: '-1', 'aria-labelledby': captionId, onkeydown: onKey },
    el('figcaption', { id: captionId }, number ? [el('strong', { text: t.figure(number) }), ' '] : [], richText(words.caption, resolve)),
    problemNotice(problems, t),
    // The things to try sit just above the controls they use.
    el('details', { class: 'tries', open: '' }, el('summary', { text: t.tries }), el('ul', {}, words.tries.map((item, i) =>
      el('li', {}, richText(item.text, resolve), ' ', el('button', {
        type: 'button', class: 'show-me', 'data-action': 'show-me', title: t.showMe[1], text: t.showMe[0], onclick: showMe[i],
      }))))),
    // The loop figure's settings in two groups, what runs and where to pause, which sit side by side on a wide
    // screen (style.css): one under the other they were a fifth of the figure's height.
    isLoop
      ? el('div', { class: 'settings' }, el('div', { class: 'settings-run' }, setup.chooser, runs?.part), el('div', { class: 'settings-pause' }, bar.eventChooser, predict.toggle, whatIf?.control))
      : [setup.chooser, predict.toggle],
    bar.bar,
    // The question asked sits just under the controls that were pressed.
    predict.panel,
    panes,
    whatIf?.pane,
    setup.setup,
  );
  runs?.listen(root);
  // Content scrolled into view is kept clear of the sticky bar, and in one column of the code pane that sticks under it
  // (style.css reads --bar-height and --code-height).
  new ResizeObserver(() => root.style.setProperty('--bar-height', `${bar.bar.offsetHeight}px`)).observe(bar.bar);
  new ResizeObserver(() => root.style.setProperty('--code-height', `${code.root.offsetHeight}px`)).observe(code.root);

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
      code.toggle(row);
    }
  }

  // The order matters where one piece builds what a later one marks: the breakpoints before a listing's rows.
  const pieces = [...setup.pieces, ...(runs?.pieces ?? []), ...bar.pieces, ...predict.pieces, ...code.pieces, ...side.pieces];

  // The page is first shown with plain code. After that frame the listings are highlighted and those not shown yet
  // (callees, the call entry) are built, coloured, so a listing is coloured by the time a reader steps into it or
  // opens it. One listing per task: together they made a task long enough to hold up a tap.
  afterNextFrame(async () => {
    const { highlightLines } = await highlighter;
    await code.colour(highlightLines);
    await nextTask();
    setup.colour(highlightLines);
  });

  return {
    root,
    /** Brings every piece to `state`; each redraws only if what it reads of the state changed. @param {State} state */
    render(state) {
      for (const draw of pieces) draw(state);
    },
    /** The focus to the question Predict asks. */
    focusQuestion: predict.focusQuestion,
    /** The caret to the place of the refusal shown (after the reader's text was run and refused). */
    focusRefusal: setup.focusRefusal,
    /**
     * After a "Show me": once laid out, the side pane it names (or the code and first pane) scrolled to just under the
     * sticky bar, where the code pane, which sticks there too, shows the current line beside or above it.
     * @param {string} [pane]
     */
    reveal(pane) {
      requestAnimationFrame(() => {
        root.style.setProperty('--bar-height', `${bar.bar.offsetHeight}px`);
        root.style.setProperty('--code-height', `${code.root.offsetHeight}px`);
        const target = (pane && side.root.querySelector(`[data-pane="${pane}"]`)) || panes;
        const column = target.parentElement;
        if (column?.classList.contains('column') && column.scrollHeight > column.clientHeight) {
          // A pane in a column that scrolls on its own (the loop figure's, on a wide screen): the pane to the column's
          // top, and the panes to just under the bar. Scrolled into view itself, its margin for the bar applies in the
          // column too, and the page then hides the column's top under the bar.
          column.scrollTop += target.getBoundingClientRect().top - column.getBoundingClientRect().top;
          panes.scrollIntoView({ block: 'start' });
        } else target.scrollIntoView({ block: 'start' });
      });
    },
    /**
     * After the reader ran their text: once laid out, the refusal (if it was `refused`), or else the status, brought
     * into view. The bar's height is read first: the status in it may have grown, and the ResizeObserver tells only
     * after this.
     * @param {boolean} refused
     */
    revealRun(refused) {
      const target = refused ? setup.refusalBox : bar.statusLine;
      requestAnimationFrame(() => {
        root.style.setProperty('--bar-height', `${bar.bar.offsetHeight}px`);
        target.scrollIntoView({ block: 'nearest' });
      });
    },
  };
}
