// A figure's bar: the debugger's controls, the timeline with its breakpoint and event ticks, the status line, and the loop figure's event breakpoints.
// @ts-check
import { piece, setAttribute } from './piece.js';
import { el } from './render.js';
import { IDLE, breakpointHits, canRun, eventKey, status } from './replay.js';
import { shownTrace } from './state.js';
import { HOST_EVENTS, eventSteps } from './loop.js';

/** @typedef {import('./pkg/todo_trace.js').Trace} Trace */
/** @typedef {import('./text-en.js').Words} Words */
/** @typedef {import('./replay.js').Command} Command */
/** @typedef {import('./replay.js').Status} Status */
/** @typedef {import('./state.js').Action} Action */

/** @type {Command[]} */
export const COMMANDS = ['run', 'debug', 'continue', 'step-over', 'step-into', 'step-out', 'step-back', 'restart'];

/** The debugger keys (DevTools' and VS Code's, plus Shift+F8 for stepping back). @type {Partial<Record<Command, string>>} */
export const KEYS = { continue: 'F8', 'step-over': 'F10', 'step-into': 'F11', 'step-out': 'Shift+F11', 'step-back': 'Shift+F8' };

/**
 * Builds the bar, and for the loop figure (`isLoop`) its event breakpoints' chooser. Returns the nodes and the pieces
 * that bring them to a state.
 * @param {{t: Words, isLoop: boolean, dispatch: (action: Action) => void}} options
 */
export function createBar({ t, isLoop, dispatch }) {
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
  const statusLine = el('p', { class: 'status', role: 'status', 'data-status': 'idle' });
  // The controls, timeline and status: one compact bar that stays in view while the figure's code and panes scroll.
  const bar = el(
    'div',
    { class: 'bar' },
    el('div', { class: 'controls', role: 'group', 'aria-label': t.controlsLabel }, Object.values(buttons)),
    el('div', { class: 'timeline' }, el('div', { class: 'track' }, slider, ticks, eventTicks), where),
    statusLine,
  );

  // The loop figure's breakpoints on host decisions: one checkbox per decision.
  const eventBoxes = new Map(HOST_EVENTS.map((event) => [event, el('input', {
    type: 'checkbox',
    'data-break-on': event,
    value: event,
    onchange: () => dispatch({ type: 'toggle-event', event }),
  })]));
  const eventChooser = isLoop
    ? el('fieldset', { class: 'break-on' }, el('legend', { text: t.loop.breakOn }),
      [...eventBoxes].map(([event, box]) => el('label', {}, box, ` ${t.loop.events[event]}`)))
    : null;

  /** A tick on the timeline at step `i` of `total`. @param {number} i @param {number} total @param {Record<string, string>} attrs */
  const tick = (i, total, attrs) => {
    const node = el('span', attrs);
    node.style.setProperty('--at', String((i + 1) / (total + 1)));
    return node;
  };

  const pieces = [
    piece((s) => [shownTrace(s), s.pos], (trace, pos) => {
      const s = status(trace, pos);
      setAttribute(statusLine, 'data-status', s.kind);
      statusLine.textContent = statusText(s, t);
    }),
    piece((s) => [shownTrace(s), s.pos], (trace, pos) => {
      slider.max = String(trace.steps.length + 1); // before the value, which the old maximum would cut short
      slider.value = String(pos + 1);
      const place = positionText(pos, trace.steps.length, t);
      slider.setAttribute('aria-valuetext', place);
      where.textContent = place;
    }),
    piece((s) => [shownTrace(s), s.breakpoints], (trace, breakpoints) => {
      ticks.replaceChildren(...breakpointHits(trace.steps, breakpoints).map((i) => tick(i, trace.steps.length, { class: 'tick' })));
    }),
    piece((s) => [shownTrace(s), s.pos, s.breakpoints], (trace, pos, breakpoints) => {
      for (const command of COMMANDS) setAttribute(buttons[command], 'aria-disabled', String(!canRun(command, trace.steps, pos, breakpoints)));
    }),
  ];
  if (isLoop) {
    pieces.push(
      piece((s) => [shownTrace(s)], (trace) => {
        eventTicks.replaceChildren(...eventSteps(trace).map((i) =>
          tick(i, trace.steps.length, { class: 'tick event', 'data-event': (trace.steps[i].decisions ?? []).join(' ') })));
      }),
      piece((s) => [s.breakpoints], (breakpoints) => {
        for (const [event, box] of eventBoxes) box.checked = breakpoints.has(eventKey(event));
      }),
    );
  }
  return { bar, statusLine, eventChooser, pieces };
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
