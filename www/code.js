// Syntax highlighting of Rust listings with highlight.js, rebuilt per source line from text nodes and class names only.
import hljs from './vendor/highlight-core.min.js';
import rust from './vendor/highlight-rust.min.js';

hljs.registerLanguage('rust', rust);

// highlight.js answers with an HTML string. Rather than inserting it, we parse it in an inert
// document (nothing in it runs or loads) and copy out only text and highlight.js class names, so no
// markup that came with the source can reach the page.
function tokens(node, classes, out) {
  for (const child of node.childNodes) {
    if (child.nodeType === Node.TEXT_NODE) out.push({ text: child.data, classes });
    else if (child.nodeType === Node.ELEMENT_NODE) tokens(child, [...classes, ...child.classList], out);
  }
  return out;
}

/** Highlights a whole listing at once (so multi-line tokens stay right) and returns one array of nodes per line. */
export function highlightLines(lines) {
  const html = hljs.highlight(lines.join('\n'), { language: 'rust', ignoreIllegals: true }).value;
  // The HTML parser drops one newline right after <pre>, so the leading "\n" keeps the first line intact.
  const pre = new DOMParser().parseFromString(`<pre>\n${html}</pre>`, 'text/html').querySelector('pre');
  const rows = [[]];
  for (const { text, classes } of tokens(pre, [], [])) {
    text.split('\n').forEach((part, i) => {
      if (i > 0) rows.push([]);
      if (!part) return;
      const span = document.createElement('span');
      span.className = classes.join(' ');
      span.textContent = part;
      rows.at(-1).push(span);
    });
  }
  return rows;
}
