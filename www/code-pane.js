// A figure's code pane: the listing of the function being run, its gutter marks and breakpoints, and the keys that move along it.
// @ts-check
import { piece, setAttribute } from './piece.js';
import { colourRows, el, hidden, listingRows, nextTask } from './render.js';
import { breakpointKey, markers, shownSymbol } from './replay.js';
import { shownSymbolOf, shownTrace } from './state.js';

/** @typedef {import('./pkg/todo_trace.js').Figure} Figure */
/** @typedef {import('./pkg/todo_trace.js').Listing} Listing */
/** @typedef {import('./text-en.js').Words} Words */
/** @typedef {import('./state.js').Setting} Setting */
/** @typedef {import('./state.js').State} State */
/** @typedef {import('./state.js').Action} Action */

/** The gutter marks, told apart by shape: a filled arrow for the line about to run, a hollow one for the line just run, a dot for a breakpoint. */
const MARKS = { next: '▶', ran: '▷', bp: '●' };

/**
 * Builds the code pane of a figure. A listing's rows are built when it is first shown and kept: stepping into a
 * callee and back swaps them. Returns the pane, its pieces, `toggle(row)` (F9 on a row) and `colour(highlightLines)`,
 * which highlights the listings and builds those not shown yet.
 * @param {{setting: Setting, t: Words, dispatch: (action: Action) => void}} options
 */
export function createCodePane({ setting, t, dispatch }) {
  const { figure, listings } = setting;
  const header = el('div', { class: 'code-header' });
  const body = el('div', { class: 'listing', role: 'group', onkeydown: moveFocus, onclick: clickLine });
  const root = el('section', { class: 'code-pane', 'aria-label': t.codeLabel(figure.file, figure.symbol) }, header, body,
    el('p', { class: 'legend' }, Object.entries(MARKS).map(([kind, mark]) =>
      el('span', {}, el('span', { class: `legend-mark ${kind}`, 'aria-hidden': 'true', text: mark }), ` ${t.legend[/** @type {keyof MARKS} */ (kind)]}`))));

  /** @type {Map<string, Map<number, HTMLElement>>} */
  const rowsOf = new Map();
  /** @type {((lines: string[]) => Node[][]) | null} */
  let highlightLines = null; // the highlighter, once colour() has run
  /** @type {ReadonlySet<string>} */
  let breakpoints = new Set(); // the breakpoints the rows show
  /** @type {string | null} */
  let shown = null; // the symbol whose listing is in the pane

  function rowsFor(/** @type {string} */ symbol) {
    let rows = rowsOf.get(symbol);
    if (!rows) {
      const listing = /** @type {Listing} */ (listings.get(symbol));
      const built = listingRows(listing, { idPrefix: `${figure.id}-${symbol}`, breakable: setting.breakable.get(symbol), t });
      if (highlightLines) colourRows(built, highlightLines);
      /** @type {HTMLButtonElement} */ (built[0].querySelector('button')).tabIndex = 0;
      rows = new Map(built.map((row) => [Number(row.dataset.line), row]));
      rowsOf.set(symbol, rows);
      for (const [line, row] of rows) showBreakpoint(row, breakpoints.has(breakpointKey(symbol, line)));
    }
    return rows;
  }

  function showBreakpoint(/** @type {HTMLElement} */ row, /** @type {boolean} */ on) {
    setAttribute(/** @type {HTMLButtonElement} */ (row.querySelector('button')), 'aria-pressed', String(on));
  }

  /** @type {Map<HTMLElement, 'next' | 'ran'>} */
  let marked = new Map(); // the rows that carry a marker now
  function markRow(/** @type {HTMLElement} */ row, /** @type {'next' | 'ran' | null} */ kind) {
    row.classList.toggle('next', kind === 'next');
    row.classList.toggle('ran', kind === 'ran');
    if (kind === 'next') row.setAttribute('aria-current', 'step');
    else row.removeAttribute('aria-current');
    /** @type {Element} */ (row.querySelector('.mark')).replaceChildren(...(kind ? [el('span', { 'aria-hidden': 'true', text: MARKS[kind] }), hidden(t.legend[kind])] : []));
  }

  const pieces = [
    piece((s) => [s.breakpoints], (now) => {
      breakpoints = now;
      for (const [symbol, rows] of rowsOf) for (const [line, row] of rows) showBreakpoint(row, now.has(breakpointKey(symbol, line)));
    }),
    piece((s) => [shownSymbolOf(s)], (symbol) => {
      const listing = /** @type {Listing} */ (listings.get(symbol));
      // Inside a shadow root (embed.js) the document's active element is the host; the root's is the row.
      const hadFocus = body.contains(/** @type {Document | ShadowRoot} */ (body.getRootNode()).activeElement);
      header.replaceChildren(el('code', { text: listing.file }), ' · ', el('code', { class: 'symbol', text: symbol }));
      body.setAttribute('aria-label', t.codeLabel(listing.file, symbol));
      body.replaceChildren(...rowsFor(symbol).values());
      shown = symbol;
      if (hadFocus) focusRow(/** @type {Element} */ (body.querySelector('[data-line]')));
    }),
    piece((s) => [shownTrace(s), s.pos], (trace, pos) => {
      const rows = rowsFor(shownSymbol(trace.steps, pos, figure.symbol));
      const { next, ran } = markers(trace.steps, pos);
      /** @type {Map<HTMLElement | undefined, 'next' | 'ran'>} */
      const marks = new Map([[ran === null ? undefined : rows.get(ran), 'ran'], [next === null ? undefined : rows.get(next), 'next']]); // the line about to run wins
      marks.delete(undefined);
      for (const row of marked.keys()) if (!marks.has(row)) markRow(row, null);
      for (const [row, kind] of /** @type {Map<HTMLElement, 'next' | 'ran'>} */ (marks)) if (marked.get(row) !== kind) markRow(row, kind);
      marked = /** @type {Map<HTMLElement, 'next' | 'ran'>} */ (marks);
      const reveal = next ?? ran;
      revealSoon(reveal === null ? undefined : rows.get(reveal));
    }),
  ];

  // --- The reader's acts on the listing.
  function clickLine(/** @type {Event} */ event) {
    const row = /** @type {Element} */ (event.target).closest('button.bp')?.closest('[data-line]');
    if (row) toggle(row);
  }

  function toggle(/** @type {Element} */ row) {
    if (shown !== null) dispatch({ type: 'toggle', symbol: shown, line: Number(/** @type {HTMLElement} */ (row).dataset.line) });
  }

  // Arrow keys move between line buttons (one tab stop for the whole listing).
  function moveFocus(/** @type {KeyboardEvent} */ event) {
    const row = /** @type {Element} */ (event.target).closest('[data-line]');
    if (!row) return;
    const rows = [...body.querySelectorAll('[data-line]')];
    const at = rows.indexOf(row);
    const to = /** @type {Record<string, number>} */ ({ ArrowUp: at - 1, ArrowDown: at + 1, Home: 0, End: rows.length - 1 })[event.key];
    if (to === undefined || !rows[to]) return;
    event.preventDefault();
    focusRow(rows[to]);
  }

  function focusRow(/** @type {Element} */ row) {
    for (const button of body.querySelectorAll('button.bp')) /** @type {HTMLButtonElement} */ (button).tabIndex = -1;
    const button = /** @type {HTMLButtonElement} */ (row.querySelector('button'));
    button.tabIndex = 0;
    button.focus();
  }

  // Keeps the marked line visible inside the pane without scrolling the page. In the next frame: reading where a row
  // is right after a step's DOM writes would force a layout in the middle of the click.
  /** @type {HTMLElement | undefined} */
  let toReveal; // the row to bring into view in the next frame, if any
  function revealSoon(/** @type {HTMLElement | undefined} */ row) {
    if (row && !toReveal) requestAnimationFrame(revealNow);
    toReveal = row;
  }

  function revealNow() {
    const row = toReveal;
    toReveal = undefined;
    if (!row?.isConnected) return; // a callee's listing swapped out since, or the page rebuilt in another language
    const top = row.offsetTop - body.offsetTop;
    if (top < body.scrollTop || top + row.offsetHeight > body.scrollTop + body.clientHeight) {
      body.scrollTop = top - body.clientHeight / 3;
    }
  }

  /**
   * Highlights the listings built so far, then builds (coloured) those not shown yet, one per task: a callee's
   * listing is coloured by the time a reader steps into it.
   * @param {(lines: string[]) => Node[][]} colour
   */
  async function colour(colour) {
    highlightLines = colour; // rowsFor colours what it builds from now on; those built before are coloured here
    for (const rows of [...rowsOf.values()]) {
      await nextTask();
      colourRows([...rows.values()], colour);
    }
    for (const symbol of listings.keys()) {
      if (rowsOf.has(symbol)) continue;
      await nextTask();
      rowsFor(symbol);
    }
  }

  return { root, pieces, toggle, colour };
}
