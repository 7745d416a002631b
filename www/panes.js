// A figure's side panes (locals, call stack, host state, output; the loop's conversation, plan, request and evidence), each a piece drawn from the state.
// @ts-check
import { conversationPane, evidencePane, planPane, requestIndexAt, requestPane } from './loop.js';
import { piece } from './piece.js';
import { el, localsPane, outputPane, stackPane, statePane } from './render.js';
import { IDLE, callStack, framesAt, hostFields, hostViewAt, localsOf, outputCount, returned, stepAt } from './replay.js';
import { shownTrace } from './state.js';

/** @typedef {import('./pkg/todo_trace.js').Figure} Figure */
/** @typedef {import('./pkg/todo_trace.js').Trace} Trace */
/** @typedef {import('./text-en.js').Words} Words */
/** @typedef {import('./state.js').State} State */
/** @typedef {import('./state.js').Action} Action */

/** The recorded host state a position shows, and whether it is before the first step or after the last (replay.js's hostViewAt). */
const hostSlices = (/** @type {State} */ s) => {
  const trace = shownTrace(s);
  return /** @type {[Trace, number, boolean, boolean]} */ ([trace, hostViewAt(trace, s.pos), s.pos === IDLE, s.pos >= trace.steps.length]);
};

/**
 * Builds the side panes: the loop figure's (`isLoop`), or a function's (a function that cannot see the host,
 * `figure.host` empty, gets no host state pane). Returns the column and its pieces.
 * @param {{figure: Figure, isLoop: boolean, t: Words, dispatch: (action: Action) => void}} options
 */
export function createPanes({ figure, isLoop, t, dispatch }) {
  const names = isLoop
    ? ['locals', 'stack', 'conversation', 'plan', 'request', 'evidence', 'output']
    : ['locals', 'stack', ...(figure.host.length > 0 ? ['state'] : []), 'output'];
  const panes = Object.fromEntries(names.map((name) => [name, el('div', { class: 'pane-body' })]));
  const root = el('div', { class: 'side' }, Object.entries(panes).map(([name, body]) =>
    el('section', { 'data-pane': name }, el('h3', { text: t.panes[/** @type {keyof Words['panes']} */ (name)] }), body)));

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
  // Refused text never ran: no state to show and nothing printed.
  const notRun = () => [el('p', { class: 'empty', text: t.input.notRun })];

  const pieces = [
    // A caller chosen in the call stack shows its locals as at its latest step (Rust gives that step's index).
    piece((s) => [shownTrace(s), s.pos, s.frame], (trace, pos, frame) => {
      const step = stepAt(trace.steps, pos);
      const picked = step && frame !== null ? framesAt(trace.steps, pos)[frame] : null;
      if (picked) {
        panes.locals.replaceChildren(
          el('p', { class: 'picked', text: t.framePicked(picked.symbol, picked.line) }),
          ...localsPane(localsOf(trace, trace.steps[picked.step]).map((local) => ({ ...local, change: '.', was: undefined })), { event: 'line', value: undefined }, t, folds),
        );
      } else {
        panes.locals.replaceChildren(...localsPane(step && localsOf(trace, step), step && { event: step.event, value: returned(trace, step), error: step.error }, t, folds));
      }
    }),
    piece((s) => [shownTrace(s), s.pos, s.frame], (trace, pos, frame) => {
      const frames = callStack(trace.steps, pos);
      panes.stack.replaceChildren(...stackPane(frames, t, frame === null ? 0 : frames.length - 1 - frame,
        (i) => dispatch({ type: 'frame', index: i === 0 ? null : frames.length - 1 - i })));
    }),
    piece((s) => [shownTrace(s), outputCount(shownTrace(s), s.pos)], (trace, count) => {
      panes.output.replaceChildren(...(trace.ran ? outputPane(trace.output.slice(0, count), t) : notRun()));
    }),
  ];
  if (panes.state) {
    pieces.push(piece(hostSlices, (trace, view, idle, ended) => {
      panes.state.replaceChildren(...(trace.ran
        ? [...statePane(hostFields(trace, view, idle), t, folds), ...(ended ? [el('p', { class: 'note', text: t.hostEffect })] : [])]
        : notRun()));
    }));
  }
  if (isLoop) {
    pieces.push(
      piece(hostSlices, (trace, view, idle, ended) => panes.conversation.replaceChildren(...conversationPane(trace, view, idle, ended, t))),
      piece((s) => [shownTrace(s), s.pos], (trace, pos) => panes.plan.replaceChildren(...planPane(trace, pos, t))),
      piece((s) => [shownTrace(s), requestIndexAt(shownTrace(s), s.pos)], (trace, index) => panes.request.replaceChildren(...requestPane(trace, index, t))),
      piece((s) => [shownTrace(s), s.pos >= shownTrace(s).steps.length], (trace, ended) => panes.evidence.replaceChildren(...evidencePane(trace, ended, t))),
    );
  }
  return { root, pieces };
}
