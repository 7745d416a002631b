// A figure's side panes (locals, call stack, host state, output; the loop's conversation, plan, request and evidence), each a piece drawn from the state.
// @ts-check
import { claimsAt, conversationPane, evidencePane, planPane, requestAt, requestPane, stopReached } from './loop.js';
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

/** The side panes a figure has, in order. @param {Figure} figure @param {boolean} isLoop */
export const paneNames = (figure, isLoop) => (isLoop
  ? ['locals', 'stack', 'conversation', 'plan', 'request', 'evidence', 'output']
  : ['locals', 'stack', ...(figure.host.length > 0 ? ['state'] : []), 'output']);

/**
 * Builds the side panes: the loop figure's (`isLoop`), or a function's (a function that cannot see the host,
 * `figure.host` empty, gets no host state pane). Returns the column and its pieces.
 * @param {{figure: Figure, isLoop: boolean, t: Words, dispatch: (action: Action) => void}} options
 */
export function createPanes({ figure, isLoop, t, dispatch }) {
  const names = paneNames(figure, isLoop);
  const panes = Object.fromEntries(names.map((name) => [name, el('div', { class: 'pane-body' })]));
  const sections = Object.entries(panes).map(([name, body]) =>
    el('section', { 'data-pane': name }, el('h3', { text: t.panes[/** @type {keyof Words['panes']} */ (name)] }), body));
  // The loop's seven panes in two columns: the debugger's (locals, call stack, output) and the loop's own
  // (conversation, plan, request, evidence). On a wide screen each column is a box of its own that scrolls, as tall as
  // the code pane beside it (style.css), so the figure stays within two screens; in one column the boxes give way and
  // the panes follow each other in their usual order.
  const byName = Object.fromEntries(names.map((name, i) => [name, sections[i]]));
  const root = isLoop
    ? el('div', { class: 'side loop' },
      el('div', { class: 'column debug' }, byName.locals, byName.stack, byName.output),
      el('div', { class: 'column run' }, byName.conversation, byName.plan, byName.request, byName.evidence))
    : el('div', { class: 'side' }, sections);

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
  // The loop's locals hold what its own panes show (the plan, the conversation, the request, the tool calls): there
  // any list or object longer than about a line of its column starts folded, to its summary line, and the reader
  // unfolds what they want to see (kept across steps, above). Open, they made the locals two screens long.
  const large = isLoop ? 48 : undefined;
  // Refused text never ran: no state to show and nothing printed.
  const notRun = () => [el('p', { class: 'empty', text: t.input.notRun })];

  // The conversation follows the run: after a redraw, its box scrolls (never the page) to the newest message. In the
  // next frame, so that reading the layout does not force one in the middle of a step.
  /** @type {Set<HTMLElement>} */
  const toFollow = new Set();
  const followSoon = (/** @type {HTMLElement} */ body) => {
    if (toFollow.size === 0) requestAnimationFrame(follow);
    toFollow.add(body);
  };
  function follow() {
    for (const body of toFollow) {
      const box = body.querySelector('.scroll');
      const newest = box?.querySelector('li.new') ?? box?.querySelector('ol > li:last-child');
      if (box instanceof HTMLElement && newest instanceof HTMLElement) {
        // The newest message at the top of the box, or the box's end when it is the last and fits (the box is the
        // messages' offset parent, style.css).
        box.scrollTop = newest.offsetTop - 8;
      }
    }
    toFollow.clear();
  }

  const pieces = [
    // A caller chosen in the call stack shows its locals as at its latest step (Rust gives that step's index).
    piece((s) => [shownTrace(s), s.pos, s.frame], (trace, pos, frame) => {
      const step = stepAt(trace.steps, pos);
      const picked = step && frame !== null ? framesAt(trace.steps, pos)[frame] : null;
      if (picked) {
        panes.locals.replaceChildren(
          el('p', { class: 'picked', text: t.framePicked(picked.symbol, picked.line) }),
          ...localsPane(localsOf(trace, trace.steps[picked.step]).map((local) => ({ ...local, change: '.', was: undefined })), { event: 'line', value: undefined }, t, folds, large),
        );
      } else {
        panes.locals.replaceChildren(...localsPane(step && localsOf(trace, step), step && { event: step.event, value: returned(trace, step), error: step.error }, t, folds, large));
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
      piece(hostSlices, (trace, view, idle, ended) => {
        panes.conversation.replaceChildren(...conversationPane(trace, view, idle, ended, t));
        followSoon(panes.conversation);
      }),
      piece((s) => [shownTrace(s), s.pos], (trace, pos) => panes.plan.replaceChildren(...planPane(trace, pos, t))),
      // Redrawn when the call shown or its state (about to be made, made) changes: a request is the longest value.
      piece((s) => {
        const at = requestAt(shownTrace(s), s.pos);
        return [shownTrace(s), at?.index, at?.made];
      }, (trace, index, made) => panes.request.replaceChildren(...requestPane(trace, index === undefined ? null : { index, made: Boolean(made) }, t))),
      piece((s) => [shownTrace(s), claimsAt(shownTrace(s), s.pos), stopReached(shownTrace(s), s.pos)],
        (trace, at, stopped) => panes.evidence.replaceChildren(...evidencePane(trace, at, stopped, t))),
    );
  }
  return { root, pieces };
}
