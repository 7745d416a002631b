// <todo-trace-figure>: one of the lesson's figures with the whole debugger, for any page; what it needs loads relative to this file.
// @ts-check
//
// An author adds two lines to a page (README, "Embed a figure"):
//   <script type="module" src="/todo-trace/embed.js"></script>
//   <todo-trace-figure figure="write" lang="en" scenario="active" breakpoints="45 47" step="3"></todo-trace-figure>
// A <script type="application/json"> child, or the `data` property, gives data of the author's own (the submitted
// items, or the host's plan, as the figure's `edits` says); the figure traces it with traceValue and opens on it.
// The lesson page (page.js) builds its figures from this element too: it hands over the module and its words
// (`provide`), sets `number`, `link` (the URL's place), `kept` and `problems`, and listens to `todo-trace-move`
// and `todo-trace-change`; `place()` and `keep()` read the figure back.
import { createFigure } from './figure.js';
import { LANGS } from './link.js';
import { afterNextFrame } from './render.js';
import { breakpointKey } from './replay.js';

/** @typedef {typeof import('./pkg/todo_trace.js')} Api */
/** @typedef {import('./pkg/todo_trace.js').Lang} Lang */
/** @typedef {import('./text-en.js').Words} Words */
/** @typedef {import('./state.js').Place} Place */
/** @typedef {import('./state.js').Kept} Kept */

const STYLE = new URL('style.css', import.meta.url).href;

// The module and the words, loaded once per page whatever the number of figures; the values once they are there,
// so a figure whose module and words are loaded is built at once.
/** @type {Promise<Api> | null} */
let loadingApi = null;
/** @type {Api | null} */
let loadedApi = null;
/** @type {Map<string, Promise<Words>>} */
const loadingWords = new Map();
/** @type {Map<string, Words>} */
const loadedWords = new Map();

function loadApi() {
  loadingApi ??= import('./pkg/todo_trace.js').then(async (api) => {
    await api.default(); // the wasm is fetched beside the glue module, wherever this folder lives
    return (loadedApi = api);
  });
  return loadingApi;
}

function loadWords(/** @type {Lang} */ lang) {
  let words = loadingWords.get(lang);
  if (!words) {
    words = import(`./text-${lang}.js`).then((module) => {
      loadedWords.set(lang, module.default);
      return module.default;
    });
    loadingWords.set(lang, words);
  }
  return words;
}

/** For a page that has already loaded the module and its words (page.js): figures then use them. @param {Api} api @param {Lang} lang @param {Words} t */
export function provide(api, lang, t) {
  loadedApi = api;
  loadingApi ??= Promise.resolve(api);
  loadedWords.set(lang, t);
  if (!loadingWords.has(lang)) loadingWords.set(lang, Promise.resolve(t));
}

/** A place from the element's attributes: `scenario`, `breakpoints` (line numbers of the figure's function), `step` (from 1, or "end"). */
function placeOf(/** @type {HTMLElement} */ node, /** @type {string} */ symbol) {
  const step = node.getAttribute('step');
  return {
    scenario: node.getAttribute('scenario'),
    breakpoints: (node.getAttribute('breakpoints') ?? '').split(/[\s,]+/).filter(Boolean).map((line) => breakpointKey(symbol, Number(line))),
    step: step === null ? null : step === 'end' ? /** @type {const} */ ('end') : Number(step),
  };
}

export class TodoTraceFigure extends HTMLElement {
  static observedAttributes = ['figure', 'lang', 'scenario', 'breakpoints', 'step'];

  /** The figure's number in the page's caption ("Figure 2"); 0: none, as in an article that numbers its own. */
  number = 0;
  /** The place to open at; null: the attributes'. @type {Place | null} */
  link = null;
  /** What keep() gave before the page was rebuilt in another language. @type {Kept | undefined} */
  kept = undefined;
  /** Where the parts of the place that do not fit the figure are reported, as `{name, value}`. @type {{name: string, value: string}[]} */
  problems = [];
  /** Why the figure could not be built (it then shows the reason instead); null while all is well. @type {unknown} */
  error = null;
  /** Build after the page's next frame, or when scrolled near if that comes first, instead of on joining the page. */
  lazy = false;

  /** @type {{value: unknown} | undefined} */
  #data = undefined;
  /** @type {ReturnType<typeof createFigure> | null} */
  #controller = null;
  #builds = 0;
  /** @type {Promise<void>} */
  #styled;

  constructor() {
    super();
    const shadow = this.attachShadow({ mode: 'open' });
    const sheet = document.createElement('link');
    sheet.rel = 'stylesheet';
    sheet.href = STYLE;
    this.#styled = new Promise((done) => {
      sheet.addEventListener('load', () => done(), { once: true });
      sheet.addEventListener('error', () => done(), { once: true });
    });
    shadow.append(sheet);
  }

  /** The author's data for the figure; setting it rebuilds the figure on it. */
  get data() {
    return this.#data?.value;
  }

  set data(value) {
    this.#data = { value };
    if (this.isConnected) this.#build();
  }

  connectedCallback() {
    // `data` set by a script that ran before this module defined the element sits on the instance, hiding the setter.
    if (Object.hasOwn(this, 'data')) {
      const { data } = /** @type {{data: unknown}} */ (/** @type {unknown} */ (this));
      delete (/** @type {{data?: unknown}} */ (/** @type {unknown} */ (this))).data;
      this.#data = { value: data };
    }
    if (this.#controller) return;
    if (this.lazy) this.#buildSoon();
    else this.#build();
  }

  /** Builds once the page's next frame is drawn, or when the element comes within 600 px of the viewport. */
  #buildSoon() {
    let done = false;
    const now = () => {
      if (done || !this.isConnected) return;
      done = true;
      observer.disconnect();
      this.#build();
    };
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) now();
    }, { rootMargin: '600px' });
    observer.observe(this);
    afterNextFrame(now);
  }

  attributeChangedCallback(/** @type {string} */ _name, /** @type {string | null} */ before, /** @type {string | null} */ after) {
    if (before !== after && this.#controller) this.#build();
  }

  /** The figure's place, for a link (state.js's placeOf); null before it is built. */
  place() {
    return this.#controller?.place() ?? null;
  }

  /** What a rebuild in another language keeps (state.js's keptOf); undefined before it is built. */
  keep() {
    return this.#controller?.keep();
  }

  get lang() {
    const asked = this.getAttribute('lang');
    return LANGS.find((l) => l === asked) ?? LANGS[0];
  }

  /** Builds the figure now if the module and words are loaded (the lesson page), else once they are. */
  #build() {
    const build = ++this.#builds;
    const lang = this.lang;
    const words = loadedWords.get(lang);
    if (loadedApi && words) {
      this.#show(loadedApi, lang, words);
      return;
    }
    Promise.all([loadApi(), loadWords(lang), this.#styled]).then(
      ([api, t]) => {
        if (build === this.#builds) this.#show(api, lang, t);
      },
      (error) => {
        this.error = error;
        this.#fail(String(error instanceof Error ? error.message : error));
      },
    );
  }

  /** @param {Api} api @param {Lang} lang @param {Words} t */
  #show(api, lang, t) {
    try {
      const figures = api.figures();
      const id = this.getAttribute('figure');
      const figure = figures.find((f) => f.id === id);
      if (!figure) throw new Error(`figure="${id}": one of ${figures.map((f) => f.id).join(', ')}`);
      /** @type {Map<string, string>} */
      const labels = new Map(figures.flatMap((f) => api.scenarios(f.id, lang).map((s) => [`${f.id}/${s.id}`, s.label])));
      const scenarioLabel = (/** @type {string} */ ref) => {
        const label = labels.get(ref);
        if (!label) throw new Error(`the lesson text names an unknown scenario "${ref}"`);
        return t.quote(label);
      };
      const controller = createFigure({
        api, figure, lang, t,
        number: this.number,
        words: t.figures[figure.id],
        link: this.link ?? placeOf(this, figure.symbol),
        kept: this.kept,
        scenarioLabel,
        problems: this.problems,
        data: this.#data ?? this.#jsonChild(),
        onMove: () => this.dispatchEvent(new Event('todo-trace-move')),
        onChange: () => this.dispatchEvent(new Event('todo-trace-change')),
      });
      this.#controller = controller;
      this.error = null;
      /** @type {ShadowRoot} */ (this.shadowRoot).replaceChildren(/** @type {Node} */ (this.shadowRoot?.firstChild), controller.root);
    } catch (error) {
      this.error = error;
      this.#fail(t.pageFailed(error instanceof Error ? error.message : String(error)));
    }
  }

  /** The data of a `<script type="application/json">` child, if there is one; text that is not JSON is shown as a failure. */
  #jsonChild() {
    const script = this.querySelector(':scope > script[type="application/json"]');
    if (!script) return undefined;
    return { value: JSON.parse(script.textContent ?? '') };
  }

  #fail(/** @type {string} */ message) {
    const p = document.createElement('p');
    p.className = 'failure';
    p.setAttribute('role', 'alert');
    p.textContent = message;
    /** @type {ShadowRoot} */ (this.shadowRoot).replaceChildren(/** @type {Node} */ (this.shadowRoot?.firstChild), p);
  }
}

if (!customElements.get('todo-trace-figure')) customElements.define('todo-trace-figure', TodoTraceFigure);
