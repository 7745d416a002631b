// Values as foldable structures: lists and objects as <details>, with the part that changed since the step before marked.
// @ts-check
//
// Rust says which local or host entry changed and gives its value at the step before (`was`); which item or field
// inside it changed is worked out here, by comparing the two values. Everything from data goes in as text.
import { el, hidden } from './render.js';

/** @typedef {import('./text-en.js').Words} Words */
/** @typedef {'new' | 'changed' | 'removed'} Kind */

/** The text marks, told apart by shape as in the panes: + new, ~ changed, − removed. */
const MARK = { new: '+', changed: '~', removed: '−' };

/** Deep equality of two JSON values. @param {unknown} a @param {unknown} b @returns {boolean} */
export function same(a, b) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && same(/** @type {any} */ (a)[k], /** @type {any} */ (b)[k]));
}

const isContainer = (/** @type {unknown} */ v) => typeof v === 'object' && v !== null;

/** About how many characters of JSON make a value large enough to start folded (a conversation of a few turns). */
export const LARGE = 1000;

/**
 * Whether a value's JSON text is longer than `budget` characters, roughly (keys, texts and numbers counted): it stops
 * counting once past, so a large value costs no more than a small one.
 * @param {unknown} value @param {number} budget
 */
function larger(value, budget) {
  let left = budget;
  /** @param {unknown} v */
  const count = (v) => {
    if (left < 0) return;
    if (!isContainer(v)) {
      left -= typeof v === 'string' ? v.length + 2 : String(v).length;
      return;
    }
    for (const [key, entry] of Object.entries(/** @type {object} */ (v))) {
      left -= key.length + 3;
      count(entry);
      if (left < 0) return;
    }
  };
  count(value);
  return left < 0;
}
const isFlat = (/** @type {unknown} */ v) => isContainer(v) && !Array.isArray(v) && Object.values(/** @type {object} */ (v)).every((x) => !isContainer(x));

/** A mark for a part of a value, read aloud by screen readers. @param {Kind} kind @param {Words} t */
const mark = (kind, t) => el('span', { class: 'tmark' }, el('span', { 'aria-hidden': 'true', text: MARK[kind] }), hidden(t.change[kind]));

/**
 * A value as nodes. With `compare`, it is compared with `was` (its value at the step before) and the items and
 * fields that differ are marked; lists and objects fold, open near the top and wherever something changed, unless
 * the reader folded or unfolded that part before: `folds` keeps their choice by `path` (the value's place, such as
 * "L:new_list/0"), so it survives the next step's redraw.
 * @param {unknown} value @param {Words} t
 * A list or object longer than `large` characters of JSON starts folded.
 * @param {{compare?: boolean, was?: unknown, depth?: number, path?: string, folds?: Map<string, boolean>, large?: number}} [options]
 * @returns {HTMLElement}
 */
export function valueTree(value, t, { compare = false, was, depth = 0, path = '', folds, large = LARGE } = {}) {
  if (!isContainer(value)) return el('code', { class: 'v', text: JSON.stringify(value) });
  const list = Array.isArray(value);
  const entries = list ? value.map((v, i) => [String(i), v]) : Object.entries(/** @type {object} */ (value));
  const before = compare && isContainer(was) && Array.isArray(was) === list ? /** @type {Record<string, unknown>} */ (was) : null;
  /** @type {{key: string, value: unknown, kind: Kind | null, was?: unknown}[]} */
  const parts = entries.map(([key, v]) => {
    if (!compare) return { key, value: v, kind: null };
    if (!before || !Object.hasOwn(before, key)) return { key, value: v, kind: /** @type {Kind} */ ('new') };
    return same(before[key], v) ? { key, value: v, kind: null } : { key, value: v, kind: /** @type {Kind} */ ('changed'), was: before[key] };
  });
  if (before) {
    for (const [key, v] of Object.entries(before)) {
      if (!Object.hasOwn(/** @type {object} */ (value), key)) parts.push({ key, value: v, kind: 'removed' });
    }
  }
  const part = (/** @type {(typeof parts)[number]} */ p) => {
    const inner = valueTree(p.value, t, { compare: p.kind === 'changed', was: p.was, depth: depth + 1, path: `${path}/${p.key}`, folds, large });
    // A changed list or object is marked inside it, where the change is; a changed text or number is marked itself.
    const kind = p.kind === 'changed' && isContainer(p.value) && isContainer(p.was) ? 'inside' : p.kind;
    return { kind, children: [p.kind && kind !== 'inside' ? mark(p.kind, t) : null, list ? el('span', { class: 'k', text: p.key }) : el('span', { class: 'k', text: `${JSON.stringify(p.key)}: ` }), inner] };
  };
  // An object of plain fields stays on one line (wrapping where it must), its changed fields marked.
  if (!list && isFlat(value) && parts.every((p) => !isContainer(p.value)) && !larger(value, large)) {
    const fields = parts.map((p, i) => {
      const { kind, children } = part(p);
      return el('span', { class: 'f', 'data-change': kind }, children, i < parts.length - 1 ? ', ' : null);
    });
    return el('span', { class: 'obj' }, '{', fields, '}');
  }
  if (parts.length === 0) return el('code', { class: 'v', text: list ? '[]' : '{}' });
  const changed = parts.some((p) => p.kind);
  const details = el(
    'details',
    { class: 'tree', 'data-path': path },
    el('summary', { text: list ? `[…] ${t.count(entries.length)}` : `{${entries.map(([k]) => k).join(', ')}}` }),
  );
  const items = () => el(list ? 'ol' : 'ul', { class: 'tree-items' }, parts.map((p) => {
    const { kind, children } = part(p);
    return el('li', { 'data-change': kind }, children);
  }));
  // A large value (a whole conversation, a request) stays folded until the reader unfolds it, changed or not: open, it
  // would make the pane screens long. Its binding's or entry's mark still says it changed, and the loop's own panes
  // show the conversation and the request.
  details.open = folds?.get(path) ?? (!larger(value, large) && (depth < 2 || changed));
  // A folded part is built when it is first opened: a long run's history, redrawn at every step, holds hundreds of
  // folded messages whose insides nobody has asked to see.
  if (details.open) details.append(items());
  else {
    details.addEventListener('toggle', () => {
      if (details.open && !details.querySelector(':scope > .tree-items')) details.append(items());
    });
  }
  return details;
}
