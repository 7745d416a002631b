// Boot: load the wasm module, build the lesson in the chosen language, and keep every figure's place in the URL.
import { createFigure, KEYS } from './figure.js';
import { LANGS, readLink, writeLink } from './link.js';
import { el, richText } from './render.js';

const app = document.getElementById('app');

/** Shown when not even the words of the page could be loaded. */
const FALLBACK = '页面无法建立。/ The page could not be built: ';

const texts = new Map();
/** The words of one language (text-zh.js or text-en.js), fetched the first time it is shown. */
function loadText(lang) {
  if (!texts.has(lang)) texts.set(lang, import(`./text-${lang}.js`).then((module) => module.default));
  return texts.get(lang);
}

function setLanguage(lang, t) {
  document.documentElement.lang = lang;
  document.title = t.title;
}

function showError(message) {
  app.replaceChildren(el('p', { class: 'failure', role: 'alert', text: message }));
}

/**
 * Builds the whole page from the URL; the language switch rebuilds it the same way, passing in
 * `kept` (per figure id) what the URL does not hold: the reader's own input.
 */
function build(api, t, kept = {}) {
  const figures = api.figures();
  const link = readLink(location.search, figures.map((f) => f.id));
  const { lang } = link;
  setLanguage(lang, t);

  const labels = new Map(figures.map((f) => [f.id, new Map(api.scenarios(f.id, lang).map((s) => [s.id, s.label]))]));
  const scenarioLabel = (ref) => {
    const [figureId, id] = ref.split('/');
    const label = labels.get(figureId)?.get(id);
    if (!label) throw new Error(`the lesson text names an unknown scenario "${ref}"`);
    return t.quote(label);
  };
  const resolveProse = (kind, arg) => {
    if (kind !== 'scenario') throw new Error(`a line reference "${arg}" outside a figure`);
    return scenarioLabel(arg);
  };

  const controllers = [];
  const saveLink = (toLang = lang) => {
    const query = writeLink(toLang, controllers.map((c) => c.place()));
    history.replaceState(null, '', `${location.pathname}${query}`);
  };

  const problems = [...link.problems];
  const blocks = t.prose.map(([kind, content]) => {
    if (kind === 'figure') {
      const figure = figures.find((f) => f.id === content);
      const controller = createFigure({
        api, figure, lang, t,
        number: controllers.length + 1,
        words: t.figures[figure.id],
        link: link.figures[figure.id],
        kept: kept[figure.id],
        scenarioLabel,
        problems,
        onChange: () => saveLink(),
      });
      controllers.push(controller);
      return controller.root;
    }
    if (kind === 'keys') return keyList(t);
    if (kind === 'ol') return el('ol', {}, content.map((item) => el('li', {}, richText(item, resolveProse))));
    return el(kind, {}, richText(content, resolveProse));
  });

  const other = LANGS.find((l) => l !== lang);
  const switchLang = el('button', {
    type: 'button',
    'data-control': 'lang',
    lang: other,
    text: t.switchLabel,
    onclick: async () => {
      const keep = Object.fromEntries(controllers.map((c) => [c.place().id, c.keep()]));
      saveLink(other);
      await start(api, keep);
      document.querySelector('[data-control="lang"]')?.focus();
    },
  });
  const notice = problems.length
    ? [el('div', { class: 'notice', role: 'status' }, problems.map((p) => el('p', { text: t.linkProblem(p.name, p.value) })))]
    : [];
  app.replaceChildren(el('div', { class: 'topbar' }, switchLang), ...notice, el('article', {}, blocks));
  for (const controller of controllers) controller.reveal();
}

function keyList(t) {
  const rows = [
    ...Object.entries(KEYS).map(([command, key]) => [key, `${t.controls[command][0]}${t.colon}${t.controls[command][1]}`]),
    ...t.keysExtra,
  ];
  return el('ul', { class: 'keys' }, rows.map(([key, what]) => el('li', {}, el('kbd', { text: key }), ' ', what)));
}

/** Builds the page in the language the URL names. */
async function start(api, kept) {
  let t = null;
  try {
    t = await loadText(readLink(location.search, []).lang);
    build(api, t, kept);
  } catch (error) {
    showError(t ? t.pageFailed(error.message) : `${FALLBACK}${error.message}`);
  }
}

// The words and the module load side by side.
const lang = readLink(location.search, []).lang;
document.documentElement.lang = lang;
const words = loadText(lang);
words.then((t) => {
  setLanguage(lang, t);
  const loading = document.querySelector('[data-loading]');
  if (loading) loading.textContent = t.loading;
}, () => {});
try {
  const api = await import('./pkg/todo_trace.js');
  await api.default();
  await start(api);
} catch (error) {
  const t = await words.catch(() => null);
  showError(t ? t.wasmFailed(error.message) : `${FALLBACK}${error.message}`);
}
