// DOM building for the page and the debugger panes; every string from data goes in as text (textContent), never as markup.
// @ts-check
import { valueTree } from './tree.js';

/** @typedef {import('./pkg/todo_trace.js').Listing} Listing */
/** @typedef {import('./pkg/todo_trace.js').FrameAt} Frame */
/** @typedef {import('./pkg/todo_trace.js').ErrorInfo} ErrorInfo */
/** @typedef {import('./replay.js').Local} Local */
/** @typedef {import('./replay.js').HostField} HostField */
/** @typedef {import('./text-en.js').Words} Words */
/** @typedef {Node | string | null | undefined} Leaf */
/** @typedef {Leaf | (Leaf | Leaf[])[]} Child a node, a text, or nested lists of them; null and undefined are left out */

/**
 * Creates an element. `attrs`: "class", "text" (textContent), "on<event>" handlers, anything else is
 * set as an attribute (null or undefined leaves it out). Children are nodes or strings (as text), arrays flattened.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag @param {Record<string, unknown>} attrs @param {Child[]} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined) continue;
    if (name === 'class') node.className = String(value);
    else if (name === 'text') node.textContent = String(value);
    else if (name.startsWith('on')) node.addEventListener(name.slice(2), /** @type {EventListener} */ (value));
    else node.setAttribute(name, String(value));
  }
  node.append(.../** @type {(Node | string)[]} */ (children.flat(Infinity).filter((child) => child !== null && child !== undefined)));
  return node;
}

/** Calls `fn` once the next frame has been drawn (and `wait` ms more): for work that the reader need not wait for. */
export const afterNextFrame = (/** @type {() => void} */ fn, wait = 0) => requestAnimationFrame(() => setTimeout(fn, wait));

/**
 * Resolves in a task of its own, so that work split at its awaits never holds the main thread for long: a tap, a key
 * or a frame can come in between. scheduler.yield() where there is one (it resumes ahead of other queued tasks), else
 * a message to ourselves, which, unlike setTimeout(0), is not held back 4 ms once nested.
 * @returns {Promise<void>}
 */
export function nextTask() {
  const { scheduler } = /** @type {{scheduler?: {yield?: () => Promise<void>}}} */ (/** @type {unknown} */ (globalThis));
  if (scheduler?.yield) return scheduler.yield();
  return new Promise((done) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => done();
    channel.port2.postMessage(null);
  });
}

/** Text a reader cannot see but a screen reader says: how a mark that is only a shape or colour reads aloud. */
export const hidden = (/** @type {string} */ text) => el('span', { class: 'visually-hidden', text });

/**
 * Inline markup of the prose (see text-zh.js): `code`, {line:…} and {scenario:…}. `resolve(kind,
 * arg)` turns a reference into its text and throws if it names nothing, so a stale reference is an error.
 * @param {string} source @param {(kind: string, arg: string) => string} resolve
 * @returns {(Node | string)[]}
 */
export function richText(source, resolve) {
  return source.split(/(`[^`]+`|\{(?:line|scenario):[^}]+\})/).flatMap(/** @returns {(Node | string)[]} */ (part) => {
    if (!part) return [];
    if (part.startsWith('`')) return [el('code', { text: part.slice(1, -1) })];
    const ref = part.match(/^\{(line|scenario):([^}]+)\}$/);
    return [ref ? resolve(ref[1], ref[2]) : part];
  });
}

/**
 * A value as JSON text: whatever fits in a short line stays on one line; longer arrays and objects get one entry per line.
 * @param {unknown} value @param {string} indent
 * @returns {string}
 */
export function jsonText(value, indent = '') {
  const flat = JSON.stringify(value);
  if (flat.length <= 64 || value === null || typeof value !== 'object') return flat;
  const inner = `${indent}  `;
  const entries = Array.isArray(value)
    ? value.map((entry) => inner + jsonText(entry, inner))
    : Object.entries(value).map(([key, entry]) => `${inner}${JSON.stringify(key)}: ${jsonText(entry, inner)}`);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  return `${open}\n${entries.join(',\n')}\n${indent}${close}`;
}

/** @typedef {import('./replay.js').Change} Change */
/** @typedef {'new' | 'changed' | 'removed'} ChangeKind */

/** The text marks for changes, told apart by shape: + new, ~ changed, − removed. */
const CHANGE_MARK = { new: '+', changed: '~', removed: '−' };

/**
 * What a change character means in a pane. A binding just moved away has changed (the pane then says "moved
 * out" in place of its value); a host entry marked "-" was removed.
 * @type {Record<Change, ChangeKind | null>}
 */
const CHANGE_KIND = { '+': 'new', '~': 'changed', m: 'changed', '-': 'removed', '.': null };

/** @param {ChangeKind | null} change @param {Words} t */
function changeMark(change, t) {
  if (!change) return el('span', { class: 'change', 'aria-hidden': 'true' });
  return el('span', { class: 'change' }, el('span', { 'aria-hidden': 'true', text: CHANGE_MARK[change] }), hidden(t.change[change]));
}

/**
 * Rows of a listing, its code as plain text (colourRows highlights it). With `breakable` (a Set of lines)
 * each row gets a breakpoint button, as in the code pane; without it, a plain read-only listing.
 */
/**
 * @param {Listing} listing
 * @param {{idPrefix?: string, breakable?: Set<number>, t: Words}} options
 * @returns {HTMLElement[]}
 */
export function listingRows(listing, { idPrefix, breakable, t }) {
  return listing.lines.map(({ no, text }) => {
    if (!breakable) {
      return el('div', { class: 'row' }, el('span', { class: 'no', 'aria-hidden': 'true', text: no }), codeLine(text));
    }
    const takes = breakable.has(no);
    const codeId = `${idPrefix}-L${no}`;
    return el(
      'div',
      { class: takes ? 'row breakable' : 'row', 'data-line': no },
      el('button', {
        type: 'button',
        class: 'bp',
        tabindex: '-1',
        'aria-pressed': 'false',
        'aria-disabled': takes ? null : 'true',
        'aria-label': t.breakpoint(no),
        'aria-describedby': codeId,
        title: takes ? null : t.noStep,
        text: no,
      }),
      el('span', { class: 'mark' }),
      codeLine(text, codeId),
    );
  });
}

/** A listing line's code. Its leading spaces, as --indent, give its wrapped rows their hanging indent (style.css). @param {string} text @param {string} [id] */
function codeLine(text, id) {
  const code = el('code', { id, text });
  const indent = text.length - text.trimStart().length;
  if (indent) code.style.setProperty('--indent', `${indent}ch`);
  return code;
}

/** Highlights rows made by listingRows with `highlightLines` (code.js): each line's text becomes its tokens. */
/** @param {HTMLElement[]} rows @param {(lines: string[]) => Node[][]} highlightLines */
export function colourRows(rows, highlightLines) {
  const codes = rows.map((row) => /** @type {HTMLElement} */ (row.querySelector('code')));
  const tokens = highlightLines(codes.map((code) => code.textContent));
  codes.forEach((code, i) => code.replaceChildren(...tokens[i]));
}

/**
 * The locals pane: name, type and value of each binding; plus the returned value or error at a return step.
 * `locals` and `outcome` are null when no function is running.
 * @param {Local[] | null} locals
 * @param {{event: string, value: unknown, error?: ErrorInfo} | null} outcome
 * @param {Words} t @param {Map<string, boolean>} [folds] the reader's folds (tree.js)
 * @param {number} [large] the size from which a value starts folded (tree.js)
 */
export function localsPane(locals, outcome, t, folds, large) {
  if (!locals || !outcome) return [el('p', { class: 'empty', text: t.notRunning })];
  const items = locals.map((local) => {
    const change = CHANGE_KIND[local.change];
    return el(
      'li',
      // data-json: the value as data, for reading the pane back (the tree's text is not JSON).
      { class: [change ?? '', local.moved ? 'moved' : ''].join(' ').trim() || null, 'data-json': local.moved ? null : JSON.stringify(local.value) },
      changeMark(change, t),
      el('code', { class: 'name', text: local.name }),
      el('span', { class: 'type', text: local.type }),
      local.moved
        ? el('span', { class: 'value moved-note', text: t.moved })
        : el('div', { class: 'value' }, valueTree(local.value, t, { compare: local.change === '~' && 'was' in local, was: local.was, path: `L:${local.name}`, folds, large })),
    );
  });
  if (outcome.event === 'return') {
    items.push(el('li', { class: 'outcome' }, el('span', { class: 'name', text: `⟵ ${t.returned}` }), el('div', { class: 'value' }, valueTree(outcome.value, t, { path: 'R', folds, large }))));
  }
  if (outcome.event === 'error' && outcome.error) {
    items.push(el('li', { class: 'outcome failed' }, el('span', { class: 'name', text: `⟵ ${t.errored}` }), el('code', { class: 'value', text: `${outcome.error.code}: ${outcome.error.message}` })));
  }
  return [el('ul', { class: 'locals' }, items)];
}

/**
 * The call stack pane, innermost call first. Each call is a button: `pick(i)` shows that call's locals; `picked` is
 * the one shown.
 * @param {Frame[]} frames @param {Words} t @param {number} picked @param {(i: number) => void} pick
 */
export function stackPane(frames, t, picked, pick) {
  if (frames.length === 0) return [el('p', { class: 'empty', text: t.notRunning })];
  return [
    el(
      'ol',
      { class: 'stack' },
      frames.map((frame, i) =>
        el('li', { 'aria-current': i === 0 ? 'true' : null },
          el('button', { type: 'button', 'data-frame': i, 'aria-pressed': String(i === picked), onclick: () => pick(i) },
            el('code', { text: frame.symbol }), el('span', { class: 'at', text: `:${frame.line}` }))),
      ),
    ),
  ];
}

/**
 * The host state pane: each field's entries, with what changed since the previous step marked.
 * @param {HostField[]} view @param {Words} t @param {Map<string, boolean>} [folds] the reader's folds (tree.js)
 */
export function statePane(view, t, folds) {
  return view.map(({ field, entries }) =>
    el(
      'div',
      { class: 'field' },
      el('code', { class: 'key', text: `state.${field}` }),
      entries.length === 0
        ? el('p', { class: 'empty', text: '[]' })
        : el('ol', { class: 'entries', start: '0' }, entries.map((entry, i) => {
          const { value, change } = entry;
          const kind = CHANGE_KIND[change];
          // data-json: the entry as data, for reading the pane back (the tree's text is not JSON).
          return el('li', { class: kind, 'data-json': JSON.stringify(value) }, changeMark(kind, t),
            el('div', { class: 'value' }, valueTree(value, t, { compare: change === '~' && 'was' in entry, was: entry.was, path: `H:${field}/${i}`, folds })));
        })),
    ),
  );
}

/** The output pane: the lines printed so far. @param {string[]} lines @param {Words} t */
export function outputPane(lines, t) {
  if (lines.length === 0) return [el('p', { class: 'empty', text: t.noOutput })];
  return [el('pre', { class: 'output', text: lines.join('\n') })];
}

/** The values a figure's notice lists at most, each cut to NOTICE_CHARS characters. */
const NOTICE_VALUES = 5;
const NOTICE_CHARS = 60;

/**
 * A notice of the values (a figure's attributes', or the link's) that could not be used: one line each, worded by
 * `say`, and `more` for those left out. These are anyone's text, so the notice is bounded: each distinct value once,
 * at most NOTICE_VALUES of them, each cut short, and each in a <bdi> so that its characters (U+202E, a right-to-left
 * script) cannot reorder the sentence.
 * @param {{name: string, value: string | number}[]} problems
 * @param {(name: string, value: Node) => (Node | string)[]} say @param {(count: number) => string} more
 * @param {Record<string, string>} attributes
 */
export function boundedNotice(problems, say, more, attributes) {
  const distinct = [...new Map(problems.map((p) => [`${p.name}=${p.value}`, p])).values()];
  const lines = distinct.slice(0, NOTICE_VALUES).map(({ name, value }) => {
    const chars = [...String(value)];
    const shown = chars.length > NOTICE_CHARS ? `${chars.slice(0, NOTICE_CHARS).join('')}…` : chars.join('');
    return el('p', {}, say(name, el('bdi', { text: shown })));
  });
  const left = distinct.length - lines.length;
  return el('div', { role: 'status', ...attributes }, lines, left > 0 ? el('p', { text: more(left) }) : null);
}

/** A figure's notice of what it could not use, or null when there is nothing. @param {{name: string, value: string}[]} problems @param {Words} t */
export function problemNotice(problems, t) {
  if (problems.length === 0) return null;
  return boundedNotice(problems, t.problem, t.moreProblems, { class: 'problems', 'data-notice': '' });
}
