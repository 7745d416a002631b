// The "try your own input" editor in a figure's setup part: the reader's text, Run and Debug on it, a reset, and a refused text's error at its place.
// @ts-check
import { el } from './render.js';

/** @typedef {import('./pkg/todo_trace.js').ErrorInfo} ErrorInfo */
/** @typedef {import('./text-en.js').Words} Words */

/**
 * The textarea offset (UTF-16 units) of a 1-based line and column as the module counts them: only a
 * line feed ends a line and a column counts code points, so an emoji is one column but two units.
 * A place past the end of a line or of the text is clamped to that end.
 */
/** @param {string} text @param {number} line @param {number} column */
function offsetOf(text, line, column) {
  const lines = text.split('\n');
  const at = Math.min(Math.max(line, 1), lines.length) - 1;
  const before = lines.slice(0, at).reduce((sum, l) => sum + l.length + 1, 0);
  return before + [...lines[at]].slice(0, Math.max(column - 1, 0)).join('').length;
}

/**
 * Builds the editor. `label` says what the text is; `onEdit(text)` is called as the reader types, `onRun(command)`
 * with "run" or "debug", `onReset()` by the reset button. Returns `{root, textarea, errorBox, showError(error),
 * focusError(), clearError()}`.
 * @param {{id: string, t: Words, label: string, onEdit: (text: string) => void, onRun: (command: 'run' | 'debug') => void, onReset: () => void}} options
 */
export function createEditor({ id, t, label, onEdit, onRun, onReset }) {
  const w = t.input;
  const ids = { text: `${id}-input`, note: `${id}-input-note`, error: `${id}-input-error` };
  const textarea = el('textarea', {
    id: ids.text,
    'data-control': 'input',
    rows: '10', // where CSS field-sizing is not supported
    spellcheck: 'false',
    autocomplete: 'off',
    autocapitalize: 'off',
    'aria-describedby': `${ids.note} ${ids.error}`,
    oninput: () => onEdit(textarea.value),
    // Ctrl+Enter runs, as in many playgrounds; the figure ignores keys with Ctrl, so nothing else fires.
    onkeydown: (/** @type {KeyboardEvent} */ event) => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        onRun('run');
      }
    },
  });
  /** @param {string} action @param {[string, string]} words @param {() => void} onclick @param {string} [key] */
  const button = (action, [text, what], onclick, key) =>
    el('button', { type: 'button', 'data-action': action, title: key ? `${what} (${key})` : what, 'aria-keyshortcuts': key ?? null, text, onclick });
  /** @type {CanvasRenderingContext2D | null} */
  let measure = null; // a canvas context to measure text with, made on first use rather than at start-up
  const error = el('div', { class: 'input-error', id: ids.error });
  error.hidden = true;

  const root = el(
    'div',
    { class: 'editor' },
    el('label', { for: ids.text, text: label }),
    el('p', { class: 'note', id: ids.note, text: w.note }),
    textarea,
    el(
      'div',
      { class: 'editor-actions' },
      button('run-input', w.run, () => onRun('run'), 'Control+Enter'),
      button('debug-input', w.debug, () => onRun('debug')),
      button('reset-input', w.reset, onReset),
    ),
    error,
  );

  /** Puts the caret where the module says the problem starts. @param {number} line @param {number} column @param {boolean} focus */
  function goTo(line, column, focus) {
    const at = offsetOf(textarea.value, line, column);
    if (focus) textarea.focus();
    textarea.setSelectionRange(at, at);
    revealCaret(at);
  }

  // Browsers do not scroll a textarea to a caret placed by script, so measure the text before it and scroll there.
  function revealCaret(/** @type {number} */ at) {
    const style = getComputedStyle(textarea);
    const before = textarea.value.slice(0, at);
    const lineStart = before.lastIndexOf('\n') + 1;
    measure ??= /** @type {CanvasRenderingContext2D} */ (document.createElement('canvas').getContext('2d'));
    measure.font = style.font;
    const x = measure.measureText(before.slice(lineStart)).width;
    const y = (before.length - before.replaceAll('\n', '').length) * parseFloat(style.lineHeight);
    const width = textarea.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const height = textarea.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
    if (x < textarea.scrollLeft || x > textarea.scrollLeft + width) textarea.scrollLeft = Math.max(0, x - width / 2);
    if (y < textarea.scrollTop || y > textarea.scrollTop + height) textarea.scrollTop = Math.max(0, y - height / 2);
  }

  /** @type {{line: number, column: number} | null} */
  let place = null; // where the refusal shown starts, if it says

  return {
    root,
    textarea,
    /** The box that shows a refusal. */
    errorBox: error,
    /** Shows a refused text's `{code, message, line?, column?}`, the caret at its place. @param {ErrorInfo} refusal */
    showError({ code, message, line, column }) {
      place = line !== undefined && column !== undefined ? { line, column } : null;
      error.replaceChildren(
        el('p', {}, el('strong', { text: w.refused }), ' ', el('code', { class: 'code', text: code }), t.colon, el('span', { class: 'message', text: message })),
        ...(place ? [el('button', { type: 'button', 'data-action': 'go-to-error', text: w.goTo(place.line, place.column), onclick: () => place && goTo(place.line, place.column, true) })] : []),
      );
      error.hidden = false;
      textarea.setAttribute('aria-invalid', 'true');
      if (place) goTo(place.line, place.column, false);
    },
    /** Focuses the editor at the place of the refusal shown, if it has one (after the reader ran the text). */
    focusError() {
      if (place) goTo(place.line, place.column, true);
    },
    clearError() {
      place = null;
      error.hidden = true;
      error.replaceChildren();
      textarea.removeAttribute('aria-invalid');
    },
  };
}
