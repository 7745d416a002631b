// Syntax highlighting of Rust listings with speed-highlight's tokenizer: each token becomes a span holding text, never markup.
// @ts-check
import { tokenizeWith } from './vendor/shj-tokenize.js';
import rust from './vendor/shj-rs.js';
import todo from './vendor/shj-todo.js';

/** Highlights a whole listing at once (so multi-line tokens stay right) and returns one array of nodes per line. */
/** @param {string[]} lines @returns {Node[][]} */
export function highlightLines(lines) {
  /** @type {Node[][]} */
  const rows = [[]];
  const token = (/** @type {string} */ text, /** @type {string | undefined} */ type) => {
    text.split('\n').forEach((part, i) => {
      if (i > 0) rows.push([]);
      if (!part) return;
      const span = document.createElement('span');
      if (type) span.className = `tok-${type}`;
      span.textContent = part;
      rows[rows.length - 1].push(span);
    });
  };
  // Comments are tokenized again by the "todo" rules (TODO, FIXME); it is the only sub-language Rust uses.
  tokenizeWith(lines.join('\n'), rust, token, { languages: { todo } });
  return rows;
}
