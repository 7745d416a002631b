// Boot: once the first paint is shown, load the page's words, the wasm module and the debuggers side by side, then
// build the lesson (page.js).
// @ts-check
//
// index.html shows the lesson's opening, so the first paint needs only the HTML, style.css and opening.js. Everything
// else is asked for after it: Lighthouse's estimate of the largest paint counts every request that ended before the
// paint it saw as holding that paint up, so the 122 KB module preloaded with the document cost the estimate most of a
// second on its Slow 4G. opening.js preloads all of it at once when that paint is shown (rather than one import level
// at a time, or after this module's own import of link.js has arrived). Only link.js is imported statically.
import { readLink } from './link.js';

/**
 * Resolves once opening.js has seen the first paint shown and asked for the rest (`data-painted` on the root, then the
 * `painted` event): at once if it already has, and after 3 s at the latest, so the page still loads if opening.js never
 * says so.
 * @returns {Promise<void>}
 */
function afterFirstPaint() {
  if ('painted' in document.documentElement.dataset) return Promise.resolve();
  return new Promise((done) => {
    document.addEventListener('painted', () => done(), { once: true });
    setTimeout(done, 3000);
  });
}

/** Shown when not even the words of the page could be loaded. */
const FALLBACK = '页面无法建立。/ The page could not be built: ';

/** @typedef {import('./lesson-en.js').LessonWords} Words */
/** @typedef {import('./state.js').Kept} Kept */

/** @type {Map<string, Promise<Words>>} */
const texts = new Map();
/** The words of one language (lesson-zh.js with text-zh.js, or the en pair), fetched the first time it is shown. */
function loadText(/** @type {string} */ lang) {
  let words = texts.get(lang);
  if (!words) texts.set(lang, (words = import(`./lesson-${lang}.js`).then((module) => module.default)));
  return words;
}

const messageOf = (/** @type {unknown} */ error) => (error instanceof Error ? error.message : String(error));

function showError(/** @type {string} */ message) {
  const p = document.createElement('p');
  p.className = 'failure';
  p.setAttribute('role', 'alert');
  p.textContent = message;
  document.getElementById('app')?.replaceChildren(p);
}

/**
 * Builds the page in the language the URL names; `kept` is what a language switch carries over.
 * @param {typeof import('./api.js')} api @param {Record<string, Kept>} [kept]
 */
async function start(api, kept) {
  let t = null;
  try {
    t = await loadText(readLink(location.search, []).lang);
    const { build } = await page;
    // Timed for the bench: from the page's build until its first figures are built, each in a task of its own.
    const begun = performance.now();
    await build(api, t, kept, (keep) => start(api, keep));
    performance.measure('todo-trace:build', { start: begun });
  } catch (error) {
    showError(t ? t.pageFailed(messageOf(error)) : `${FALLBACK}${messageOf(error)}`);
  }
}

const lang = readLink(location.search, []).lang;
// opening.js hid index.html's opening (in zh) for any other lang=; page.js shows that language's. An unknown one means zh.
if (lang === document.documentElement.lang) delete document.documentElement.dataset.hideOpening;
document.documentElement.lang = lang;

// This module's imports wait for the first paint too; opening.js has asked for all of them by then.
await afterFirstPaint();
const words = loadText(lang);
const page = import('./page.js');
page.catch(() => {}); // reported by start()
words.then((/** @type {Words} */ t) => {
  document.title = t.title;
  const loading = document.querySelector('[data-loading]');
  if (loading) loading.textContent = t.loading;
}, () => {});
try {
  const api = await import('./api.js');
  // The plan module, for figures 1–3; page.js fetches the whole module, for the loop figure, once this is in.
  await api.initPlan();
  // The build in a task of its own, not in the one that finished instantiating the module, nor in the one that ran the
  // page's modules (embed.js copies the page's style sheet in a task it queues then, before this one).
  await page.catch(() => {}); // a failure is start()'s to report
  await new Promise((done) => setTimeout(done));
  await start(api);
} catch (error) {
  const t = await words.catch(() => null);
  showError(t ? t.wasmFailed(messageOf(error)) : `${FALLBACK}${messageOf(error)}`);
}
