// Boot: start loading the page's words, the wasm module and the debuggers side by side, then build the lesson (page.js).
// @ts-check
//
// Only link.js is imported statically: a module runs once its whole static import graph has arrived, and the
// words' file is known only here (it depends on the URL), so its request starts as soon as this file arrives.
import { readLink } from './link.js';

/** Shown when not even the words of the page could be loaded. */
const FALLBACK = '页面无法建立。/ The page could not be built: ';

/** @typedef {import('./text-en.js').Words} Words */
/** @typedef {import('./state.js').Kept} Kept */

/** @type {Map<string, Promise<Words>>} */
const texts = new Map();
/** The words of one language (text-zh.js or text-en.js), fetched the first time it is shown. */
function loadText(/** @type {string} */ lang) {
  let words = texts.get(lang);
  if (!words) texts.set(lang, (words = import(`./text-${lang}.js`).then((module) => module.default)));
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
 * @param {typeof import('./pkg/todo_trace.js')} api @param {Record<string, Kept>} [kept]
 */
async function start(api, kept) {
  let t = null;
  try {
    t = await loadText(readLink(location.search, []).lang);
    const { build } = await page;
    build(api, t, kept, (keep) => start(api, keep));
  } catch (error) {
    showError(t ? t.pageFailed(messageOf(error)) : `${FALLBACK}${messageOf(error)}`);
  }
}

const lang = readLink(location.search, []).lang;
document.documentElement.lang = lang;
const words = loadText(lang);
const page = import('./page.js');
page.catch(() => {}); // reported by start()
words.then((/** @type {Words} */ t) => {
  document.title = t.title;
  const loading = document.querySelector('[data-loading]');
  if (loading) loading.textContent = t.loading;
}, () => {});
try {
  const api = await import('./pkg/todo_trace.js');
  await api.default();
  await start(api);
} catch (error) {
  const t = await words.catch(() => null);
  showError(t ? t.wasmFailed(messageOf(error)) : `${FALLBACK}${messageOf(error)}`);
}
