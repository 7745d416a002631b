// <todo-trace-figure>: one of the lesson's figures with the whole debugger, for any page; what it needs loads relative to this file.
// @ts-check
//
// An author adds two lines to a page (README, "Embed a figure"):
//   <script type="module" src="/todo-trace/embed.js"></script>
//   <todo-trace-figure figure="write" lang="en" scenario="active" breakpoints="45 47" step="3"></todo-trace-figure>
// A <script type="application/json"> child, or the `data` property, gives data of the author's own (the submitted
// items, or the host's plan, as the figure's `edits` says); the figure traces it with traceValue and opens on it.
// The lesson page (page.js) builds its figures from this element too: it hands over the module and its words
// (`provide`), sets `number`, `link` (the URL's place), `kept` and `problems`, and listens to `todo-trace-move`,
// `todo-trace-change` and `todo-trace-built`; `place()` and `keep()` read the figure back.
// Each figure is built in a task of its own, after the element joins the page (queueBuild), and all share one style sheet.
import { createFigure } from './figure.js';
import { LANGS } from './link.js';
import { afterNextFrame, nextTask } from './render.js';
import { breakpointKey } from './replay.js';
import { defaultScenarioOf } from './state.js';

/** @typedef {typeof import('./api.js')} Api */
/** @typedef {import('./pkg/todo_trace.js').Lang} Lang */
/** @typedef {import('./text-en.js').Words} Words */
/** @typedef {import('./state.js').Place} Place */
/** @typedef {import('./state.js').Kept} Kept */
/** @typedef {import('./pkg/todo_trace.js').Trace} Trace */

const STYLE = new URL('style.css', import.meta.url).href;

// The figures' style sheet, made once per page and adopted by every figure's shadow root: one fetch of style.css,
// not one per figure (a <link> in each shadow root fetched it again for each root created before the first arrived).
/** @type {CSSStyleSheet | null} */
let loadedSheet = null;
/** @type {Promise<CSSStyleSheet | null> | null} */
let loadingSheet = null;

/** A constructed sheet of `css`; its relative URLs resolve beside this file, as a <link> to STYLE's would. */
function sheetOf(/** @type {string} */ css) {
  const sheet = new CSSStyleSheet({ baseURL: STYLE });
  sheet.replaceSync(css);
  return sheet;
}

/**
 * The sheet at once if the page has loaded style.css itself (the lesson page links it for its first paint): its rules
 * are copied, with no second fetch. Null on another page, where loadSheet() fetches it.
 */
function pageSheet() {
  if (loadedSheet) return loadedSheet;
  for (const sheet of document.styleSheets) {
    if (sheet.href !== STYLE) continue;
    try {
      loadedSheet = sheetOf(Array.from(sheet.cssRules, (rule) => rule.cssText).join('\n'));
      loadingSheet = Promise.resolve(loadedSheet);
    } catch {
      // Rules that cannot be read (not expected from our own origin): fetch the file instead.
    }
    return loadedSheet;
  }
  return null;
}

// The copy of the page's sheet is made in a task of its own as soon as this module has run (on the lesson page, while
// the module is still on its way), rather than in the task that builds the page's figures: copying and parsing
// style.css took 40 ms of that task at 4x CPU.
setTimeout(pageSheet);

/** Fetches style.css once for all figures; null if it cannot be had (the figures then work unstyled, as before). */
function loadSheet() {
  loadingSheet ??= fetch(STYLE)
    .then((response) => {
      if (!response.ok) throw new Error(`${response.status} ${STYLE}`);
      return response.text();
    })
    .then((css) => (loadedSheet = sheetOf(css)), () => null);
  return loadingSheet;
}

/** One part of a build; it may return the next part, which then runs in the next task, before other builds. @typedef {() => (Part | void)} Part */

// Figures waiting to be built, oldest first; see queueBuild.
/** @type {Part[]} */
const waiting = [];
let building = false;

/**
 * Runs `build` in tasks of its own, after the builds queued before it. A figure's build (its first trace, then its
 * DOM) is the page's longest piece of work: one task per part instead of all figures in one keeps each task short, so
 * a tap or a frame never waits long behind it.
 */
async function queueBuild(/** @type {Part} */ build) {
  waiting.push(build);
  if (building) return;
  building = true;
  while (waiting.length > 0) {
    await nextTask();
    const next = /** @type {Part} */ (waiting.shift())();
    if (next) waiting.unshift(next);
  }
  building = false;
}

// The modules and the words, loaded once per page whatever the number of figures.
/** @type {Promise<Api> | null} the plan module: figures 1–3 */
let loadingPlan = null;
/** @type {Promise<Api> | null} the whole module: every figure */
let loadingWhole = null;
/** @type {Map<string, Promise<Words>>} */
const loadingWords = new Map();

/**
 * The API with a module that has figure `id`. Figures 1–3 take the plan module, about half the bytes of the whole one,
 * unless the whole one is already on its way; the loop figure takes the whole module.
 * @param {string | null} id @returns {Promise<Api>}
 */
function loadApi(id) {
  if (id === 'loop') return loadWhole();
  return (loadingPlan ?? loadingWhole) ?? (loadingPlan = loadModule('plan'));
}

/**
 * The API with the whole module, fetched once the plan module (if one is coming) has arrived, so that the bytes the
 * first figures need come first and the rest after (bench/tricks.md).
 * @returns {Promise<Api>}
 */
export function loadWhole() {
  loadingWhole ??= Promise.resolve(loadingPlan?.catch(() => {})).then(() => loadModule('whole'));
  return loadingWhole;
}

/** @param {'plan' | 'whole'} which @returns {Promise<Api>} */
async function loadModule(which) {
  // The wasm (the largest file) is fetched at once, beside this module wherever the folder lives, rather than after
  // the JS API and the glue have arrived, which would add their round trips to the wait (bench/report.md).
  const folder = which === 'plan' ? 'pkg-plan' : 'pkg';
  const wasm = fetch(new URL(`./${folder}/todo_trace_bg.wasm`, import.meta.url));
  const api = await import('./api.js');
  await (which === 'plan' ? api.initPlan : api.default)({ module_or_path: wasm });
  return api;
}

// Each language's words, by a plain import() of each file, so a bundler (./build.sh dist) can follow both.
const TEXTS = { zh: () => import('./text-zh.js'), en: () => import('./text-en.js') };

function loadWords(/** @type {Lang} */ lang) {
  let words = loadingWords.get(lang);
  if (!words) {
    words = TEXTS[lang]().then((module) => module.default);
    loadingWords.set(lang, words);
  }
  return words;
}

/** For a page that has already loaded the plan module and its words (page.js): figures then use them. @param {Api} api @param {Lang} lang @param {Words} t */
export function provide(api, lang, t) {
  loadingPlan ??= Promise.resolve(api);
  if (!loadingWords.has(lang)) loadingWords.set(lang, Promise.resolve(t));
}

/**
 * A place from the element's attributes: `scenario`, `breakpoints` (line numbers of the figure's function), `step`
 * (from 1, or "end"). A breakpoint or step that is not a whole number is left out and listed in `problems`; whether
 * the rest fits the figure, openState decides.
 * @param {HTMLElement} node @param {string} symbol
 * @returns {{place: Place, problems: {name: string, value: string}[]}}
 */
function placeOf(node, symbol) {
  /** @type {{name: string, value: string}[]} */
  const problems = [];
  const lines = (node.getAttribute('breakpoints') ?? '').split(/[\s,]+/).filter(Boolean).filter((line) => {
    if (/^\d+$/.test(line)) return true;
    problems.push({ name: 'breakpoints', value: line });
    return false;
  });
  let step = node.getAttribute('step');
  if (step !== null && step !== 'end' && !/^\d+$/.test(step)) {
    problems.push({ name: 'step', value: step });
    step = null;
  }
  return {
    place: {
      scenario: node.getAttribute('scenario'),
      breakpoints: lines.map((line) => breakpointKey(symbol, Number(line))),
      step: step === null || step === 'end' ? step : Number(step),
      attributes: true,
    },
    problems,
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
  /** Counts the changes (`data`, an attribute) the figure must be built again for; see #shown. */
  #changes = 0;
  /** The #changes that the figure shown (or its failure) was built with; -1 before the first build. */
  #shown = -1;
  /** Whether a build has been asked for (a lazy figure waits for its first). */
  #started = false;
  /** What this element added to `problems` at its last build: taken out again by the next. @type {{name: string, value: string}[]} */
  #reported = [];
  /** Settles once the shadow root has its style sheet, or has none to wait for. @type {Promise<unknown>} */
  #styled;

  constructor() {
    super();
    const shadow = this.attachShadow({ mode: 'open' });
    const sheet = pageSheet();
    if (sheet) shadow.adoptedStyleSheets = [sheet];
    // Elsewhere the figure is built once its style is there, so it is never drawn unstyled first.
    this.#styled = sheet ? Promise.resolve() : loadSheet().then((loaded) => {
      if (loaded) shadow.adoptedStyleSheets = [loaded];
    });
  }

  /** The author's data for the figure; setting it rebuilds the figure on it. */
  get data() {
    return this.#data?.value;
  }

  set data(value) {
    this.#data = { value };
    this.#changed();
  }

  connectedCallback() {
    // `data` set by a script that ran before this module defined the element sits on the instance, hiding the setter.
    if (Object.hasOwn(this, 'data')) {
      const { data } = /** @type {{data: unknown}} */ (/** @type {unknown} */ (this));
      delete (/** @type {{data?: unknown}} */ (/** @type {unknown} */ (this))).data;
      this.#data = { value: data };
      this.#changes++;
    }
    // Back on a page as it was shown, the figure stays as the reader left it; anything changed while it was off the
    // page (or a build it left before its turn) is built now.
    if (this.#shown === this.#changes) return;
    if (this.lazy && !this.#started) this.#buildSoon();
    else this.#build();
  }

  /** `data` or an attribute changed: on a page the figure is built again (in its turn); off one, when it joins one. */
  #changed() {
    this.#changes++;
    if (this.isConnected && this.#started) this.#build();
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
    if (before !== after) this.#changed();
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

  /**
   * Builds the figure in a task of its own (queueBuild), as soon as the module and words are loaded (at once on the
   * lesson page). A later build (an attribute or `data` changed) supersedes one still waiting; a figure taken off the
   * page before its turn is built when it joins one again.
   */
  #build() {
    this.#started = true;
    const build = ++this.#builds;
    const changes = this.#changes;
    const lang = this.lang;
    const current = () => build === this.#builds && this.isConnected;
    const show = (/** @type {Api} */ api, /** @type {Words} */ t) =>
      queueBuild(() => {
        if (!current()) return;
        const traced = this.#firstTrace(api, lang);
        return () => {
          if (!current()) return;
          this.#shown = changes;
          this.#show(api, lang, t, traced);
        };
      });
    Promise.all([loadApi(this.getAttribute('figure')), loadWords(lang), this.#styled]).then(
      ([api, t]) => show(api, t),
      (error) => {
        if (!current()) return;
        this.#shown = changes;
        this.error = error;
        this.#fail(String(error instanceof Error ? error.message : error));
      },
    );
  }

  /**
   * The default scenario's trace, made a task ahead of the rest of the build (the loop's runs a whole agent loop); if
   * it cannot be made, the build that follows meets the same failure and shows it.
   * @param {Api} api @param {Lang} lang @returns {Map<string, Trace>}
   */
  #firstTrace(api, lang) {
    try {
      const id = this.getAttribute('figure') ?? '';
      const scenario = defaultScenarioOf(api.scenarios(id, lang));
      return new Map([[scenario, api.trace(id, scenario, lang)]]);
    } catch {
      return new Map();
    }
  }

  /** @param {Api} api @param {Lang} lang @param {Words} t @param {Map<string, Trace>} traced */
  #show(api, lang, t, traced) {
    // What of the attributes (or the link) the figure cannot use: shown in its notice and listed in `problems`.
    /** @type {{name: string, value: string}[]} */
    const problems = [];
    const asked = this.getAttribute('lang');
    if (asked !== null && asked !== lang) problems.push({ name: 'lang', value: asked });
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
      let link = this.link;
      if (!link) {
        const read = placeOf(this, figure.symbol);
        link = read.place;
        problems.push(...read.problems);
      }
      const controller = createFigure({
        api, figure, lang, t,
        number: this.number,
        words: t.figures[figure.id],
        link,
        kept: this.kept,
        scenarioLabel,
        problems,
        data: this.#data ?? this.#jsonChild(),
        onMove: () => this.dispatchEvent(new Event('todo-trace-move')),
        onChange: () => this.dispatchEvent(new Event('todo-trace-change')),
        traced,
      });
      this.#controller = controller;
      this.#report(problems);
      this.error = null;
      /** @type {ShadowRoot} */ (this.shadowRoot).replaceChildren(controller.root);
      this.dispatchEvent(new Event('todo-trace-built'));
    } catch (error) {
      this.#report(problems);
      this.error = error;
      this.#fail(t.pageFailed(error instanceof Error ? error.message : String(error)));
    }
  }

  /** Lists `problems` in `this.problems` (which the lesson page shares between its figures) in place of the last build's. @param {{name: string, value: string}[]} problems */
  #report(problems) {
    for (const problem of this.#reported) {
      const at = this.problems.indexOf(problem);
      if (at >= 0) this.problems.splice(at, 1);
    }
    this.problems.push(...problems);
    this.#reported = problems;
  }

  /**
   * The data of a `<script type="application/json">` child, if there is one; text that is not JSON is shown as a
   * failure. The loop figure's child is a run file, given as its text: the module refuses text that is not a run file
   * with a coded error, shown in the figure.
   */
  #jsonChild() {
    const script = this.querySelector(':scope > script[type="application/json"]');
    if (!script) return undefined;
    if (this.getAttribute('figure') === 'loop') return { value: script.textContent ?? '' };
    return { value: JSON.parse(script.textContent ?? '') };
  }

  #fail(/** @type {string} */ message) {
    const p = document.createElement('p');
    p.className = 'failure';
    p.setAttribute('role', 'alert');
    p.textContent = message;
    /** @type {ShadowRoot} */ (this.shadowRoot).replaceChildren(p);
    // The page learns of the failure (`error` says why) as it learns of a figure built.
    this.dispatchEvent(new Event('todo-trace-built'));
  }
}

if (!customElements.get('todo-trace-figure')) customElements.define('todo-trace-figure', TodoTraceFigure);
