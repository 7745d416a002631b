// Syntax highlighting of Rust listings with speed-highlight's tokenizer: each token becomes a span holding text, never markup.
import { tokenizeWith } from './vendor/shj-tokenize.js';
import rust from './vendor/shj-rs.js';
import todo from './vendor/shj-todo.js';

/** Highlights a whole listing at once (so multi-line tokens stay right) and returns one array of nodes per line. */
export function highlightLines(lines) {
  const rows = [[]];
  const token = (text, type) => {
    text.split('\n').forEach((part, i) => {
      if (i > 0) rows.push([]);
      if (!part) return;
      const span = document.createElement('span');
      if (type) span.className = `tok-${type}`;
      span.textContent = part;
      rows.at(-1).push(span);
    });
  };
  // Comments are tokenized again by the "todo" rules (TODO, FIXME); it is the only sub-language Rust uses.
  tokenizeWith(lines.join('\n'), rust, token, { languages: { todo } });
  return rows;
}
