// The lesson page: the prose and the four debuggers in one language, with every figure's place kept in the URL.
// @ts-check
import { loadWhole, provide } from './embed.js';
import { KEYS } from './figure.js';
import { LANGS, readLink, writeLink } from './link.js';
import { afterNextFrame, boundedNotice, el, richText } from './render.js';

/** @typedef {typeof import('./api.js')} Api */
/** @typedef {import('./lesson-en.js').LessonWords} Words */
/** @typedef {import('./state.js').Kept} Kept */

/** Moves are written to the URL at most this often (see saveLinkSoon). */
const LINK_GAP_MS = 300;
/** How many figures are built with the page; the rest are built just after (TodoTraceFigure's `lazy`). */
const EAGER_FIGURES = 3;

/**
 * Builds the whole page from the URL into #app; a language switch writes the URL and calls
 * `restart(kept)`, which builds the page again, passing in `kept` (per figure id) what the URL does not
 * hold: the reader's own input. Each figure is built in a task of its own after this returns (embed.js); the promise
 * settles once the first EAGER_FIGURES are built, and rejects if one of them could not be.
 * @param {Api} api @param {Words} t @param {Record<string, Kept> | undefined} kept undefined when the page is first opened
 * @param {(kept: Record<string, Kept>) => Promise<void>} restart
 * @returns {Promise<void>}
 */
export async function build(api, t, kept, restart) {
  const opening = kept === undefined;
  kept ??= {};
  const figures = api.figures();
  const link = readLink(location.search, figures.map((f) => f.id));
  const { lang } = link;
  document.documentElement.lang = lang;
  document.title = t.title;
  /** @type {Map<string, Map<string, string>>} */
  const labels = new Map(figures.map((f) => [f.id, new Map(api.scenarios(f.id, lang).map((s) => [s.id, s.label]))]));
  const scenarioLabel = (/** @type {string} */ ref) => {
    const [figureId, id] = ref.split('/');
    const label = labels.get(figureId)?.get(id);
    if (!label) throw new Error(`the lesson text names an unknown scenario "${ref}"`);
    return t.quote(label);
  };
  const resolveProse = (/** @type {string} */ kind, /** @type {string} */ arg) => {
    if (kind !== 'scenario') throw new Error(`a line reference "${arg}" outside a figure`);
    return scenarioLabel(arg);
  };

  provide(api, lang, t);
  // The loop figure's module, fetched now that the plan module is in (on the lesson page opening.js has asked for it
  // already: this fetch takes that response), and the loop figure is built after the first frame. A failure is the loop
  // figure's to show.
  loadWhole().catch(() => {});
  /** @type {import('./embed.js').TodoTraceFigure[]} */
  const controllers = [];
  let lastSaved = -Infinity;
  let leaving = false; // set by the language switch: from then on this page's pending writes are stale
  /** @type {() => void} */
  let leave = () => {};
  const left = new Promise((done) => {
    leave = () => done(undefined);
  });
  /** @type {string | null} the figure the reader last moved or changed: a link made now opens there */
  let lastUsed = link.at;
  // Writes every figure's place to the URL, if it changed.
  const saveLink = (toLang = lang) => {
    const query = writeLink(toLang, controllers.flatMap((c) => c.place() ?? []), lastUsed);
    if (query === location.search) return;
    history.replaceState(null, '', `${location.pathname}${query}`);
    lastSaved = performance.now();
  };
  // Moves come many a second (a held F10, a dragged timeline). Their place is written after the frame that shows
  // them, and at most every LINK_GAP_MS: replaceState can take milliseconds, and browsers refuse it when called
  // too often (Safari allows 100 calls in 30 s).
  let linkDue = false;
  const saveLinkSoon = () => {
    if (linkDue) return;
    linkDue = true;
    afterNextFrame(() => {
      linkDue = false;
      if (!leaving) saveLink();
    }, lastSaved + LINK_GAP_MS - performance.now());
  };

  const problems = [...link.problems];
  /** @type {Promise<unknown>[]} */
  const built = [];
  const blocks = t.prose.map(([kind, content]) => {
    if (kind === 'figure') {
      const figure = figures.find((f) => f.id === content);
      if (!figure) throw new Error(`the lesson text names an unknown figure "${content}"`);
      // The same element an author embeds (embed.js), given the URL's place; it is built when it joins the page.
      const node = /** @type {import('./embed.js').TodoTraceFigure} */ (document.createElement('todo-trace-figure'));
      node.setAttribute('figure', figure.id);
      node.setAttribute('lang', lang);
      node.number = controllers.length + 1;
      node.link = link.figures[figure.id];
      node.kept = kept[figure.id];
      node.problems = problems;
      node.addEventListener('todo-trace-move', () => {
        lastUsed = figure.id;
        saveLinkSoon();
      });
      node.addEventListener('todo-trace-change', () => {
        lastUsed = figure.id;
        saveLink();
      });
      // The figures after the first few (the agent loop, whose first trace is the longest) are built after the
      // page's first frame, or as soon as the reader scrolls near one, so they do not hold up the others.
      node.lazy = controllers.length >= EAGER_FIGURES;
      if (!node.lazy) {
        // A figure that could not be built fails the page at once, before the next figure's task can show a half-built lesson.
        built.push(new Promise((done, fail) => {
          node.addEventListener('todo-trace-built', () => (node.error === null ? done(undefined) : fail(node.error)), { once: true });
        }));
      }
      controllers.push(node);
      return node;
    }
    if (kind === 'keys') return keyList(t);
    if (kind === 'ol') return el('ol', {}, /** @type {string[]} */ (content).map((item) => el('li', {}, richText(item, resolveProse))));
    return el(/** @type {'p' | 'h1' | 'h2'} */ (kind), {}, richText(/** @type {string} */ (content), resolveProse));
  });

  const other = LANGS.find((l) => l !== lang);
  const switchLang = el('button', {
    type: 'button',
    'data-control': 'lang',
    lang: other,
    text: t.switchLabel,
    onclick: async () => {
      const keep = Object.fromEntries(controllers.map((c) => [c.getAttribute('figure'), c.keep()]));
      leaving = true;
      leave();
      saveLink(other);
      await restart(keep);
      /** @type {HTMLElement | null} */ (document.querySelector('[data-control="lang"]'))?.focus();
    },
  });
  const topbar = el('div', { class: 'topbar' }, switchLang);
  // The figures are built once they have joined the page, and report what of the link did not fit them then.
  document.getElementById('app')?.replaceChildren(topbar, el('article', {}, blocks));
  // A figure that could not be built fails the page, as any other part would: no lesson half-built.
  await Promise.race([Promise.all(built), left]);
  if (leaving) return; // the reader switched language first: that page is the one to finish
  if (problems.length) topbar.after(boundedNotice(problems, t.linkProblem, t.linkMore, { class: 'notice' }));
  // A link that names a figure's place opens at that figure (the one it was made in, else the first it names), once
  // laid out; a language switch keeps the reader where they are.
  const naming = controllers.filter((c) => {
    const place = link.figures[c.getAttribute('figure') ?? ''];
    return place && (place.scenario !== null || place.breakpoints.length > 0 || place.step !== null || Boolean(place.vs));
  });
  const named = naming.find((c) => c.getAttribute('figure') === link.at) ?? naming[0];
  if (opening && named) pinToTop(named);
}

/**
 * Scrolls a figure to the top of the window once laid out, and keeps it there while the page settles, until the figure
 * is built (the loop figure is built after the others) and drawn: what resizes meanwhile (a figure above drawn for the
 * first time, this one built) would move it. A reader who scrolls, taps, clicks or presses a key first ends it.
 * @param {import('./embed.js').TodoTraceFigure} figure
 */
function pinToTop(figure) {
  const article = /** @type {HTMLElement} */ (figure.parentElement);
  const pin = () => figure.scrollIntoView({ block: 'start' });
  const watch = new ResizeObserver(pin);
  let pinned = true;
  const stop = () => {
    if (!pinned) return;
    pinned = false;
    watch.disconnect();
    for (const type of READER_ACTS) removeEventListener(type, stop, true);
  };
  for (const type of READER_ACTS) addEventListener(type, stop, { capture: true, passive: true });
  requestAnimationFrame(() => {
    if (!pinned) return;
    pin();
    watch.observe(article);
    for (const node of article.children) watch.observe(node);
    const settle = () => requestAnimationFrame(() => {
      if (pinned) pin();
      stop();
    });
    if (figure.shadowRoot?.querySelector('[data-figure]')) settle();
    else figure.addEventListener('todo-trace-built', settle, { once: true });
  });
}

/** What a reader does that ends pinToTop: from then on, where the page is is theirs. */
const READER_ACTS = ['wheel', 'touchstart', 'pointerdown', 'keydown'];

/** @param {Words} t */
function keyList(t) {
  const rows = [
    .../** @type {[import('./replay.js').Command, string][]} */ (Object.entries(KEYS)).map(([command, key]) => [key, `${t.controls[command][0]}${t.colon}${t.controls[command][1]}`]),
    ...t.keysExtra,
  ];
  return el('ul', { class: 'keys' }, rows.map(([key, what]) => el('li', {}, el('kbd', { text: key }), ' ', what)));
}
