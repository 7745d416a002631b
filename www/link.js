// Deep links: the page's place (language; per figure its scenario, breakpoints and step) to and from the URL query.
// @ts-check
//
// Example: ?lang=en&write=active&write.bp=write_todos.169&write.step=12&write.predict=1 ("step" counts from 1 as the
// timeline does; "end" means finished); the loop figure's breakpoints on host decisions are `loop.on=ask`
// (kept beside the line breakpoints, as the keys `on:ask`). Only what differs from a fresh page is written, so a plain
// visit keeps a plain URL. The reader's own input is not written: it can be 64 KiB, too much for a
// link, so while a figure shows it the link keeps that figure's scenario and breakpoints but no step. A link that names
// several figures' places and was made in a later one than the first says so, `at=loop`: it opens at that figure.

/** @typedef {import('./pkg/todo_trace.js').Lang} Lang */

/** @type {Lang[]} */
export const LANGS = ['zh', 'en'];

/**
 * Parses a query string. Returns `{lang, figures: {id: {scenario, breakpoints, step}}, at, problems}`, where `at` is
 * the figure the link was made in (null when it does not say);
 * a value that cannot be understood is left out and listed in `problems` as `{name, value}`: a parameter that names
 * nothing here, a second value where one is read, a language or a step that is not one. Whether a scenario or
 * breakpoint fits its figure, the figure decides (state.js's openState).
 * @param {string} search @param {string[]} figureIds
 */
export function readLink(search, figureIds) {
  const params = new URLSearchParams(search);
  /** @type {{name: string, value: string}[]} */
  const problems = [];
  // Each parameter read here: those read once (a second value is dropped), and those that repeat.
  // `.vs` and `.vs.at`: the loop figure's "what if" comparison (compare.js), the change and the rows shown.
  const once = new Set(['lang', 'at', ...figureIds, ...figureIds.flatMap((id) => [`${id}.step`, `${id}.predict`, `${id}.vs`, `${id}.vs.at`])]);
  const many = new Set(figureIds.flatMap((id) => [`${id}.bp`, `${id}.on`]));
  /** @type {Set<string>} */
  const seen = new Set();
  for (const [name, value] of params) {
    if (many.has(name)) continue;
    if (!once.has(name) || seen.has(name)) problems.push({ name, value });
    seen.add(name);
  }
  const asked = params.get('lang') ?? LANGS[0];
  const lang = LANGS.find((l) => l === asked) ?? LANGS[0];
  if (lang !== asked) problems.push({ name: 'lang', value: asked });
  /** @type {Record<string, import('./state.js').Place>} */
  const figures = {};
  for (const id of figureIds) {
    let step = params.get(`${id}.step`);
    if (step !== null && step !== 'end' && !/^\d+$/.test(step)) {
      problems.push({ name: `${id}.step`, value: step });
      step = null;
    }
    // Predict is on with `.predict=1`; anything else there is not understood.
    const predict = params.get(`${id}.predict`);
    if (predict !== null && predict !== '1') problems.push({ name: `${id}.predict`, value: predict });
    figures[id] = {
      scenario: params.get(id),
      ...(predict === '1' ? { predict: true } : {}),
      breakpoints: [...params.getAll(`${id}.bp`), ...params.getAll(`${id}.on`).map((event) => `on:${event}`)],
      step: step === null || step === 'end' ? step : Number(step),
    };
    // Only where a link names one, so a place without a comparison reads as it always has.
    const vs = params.get(`${id}.vs`);
    if (vs !== null) figures[id] = { ...figures[id], vs, vsAt: params.get(`${id}.vs.at`) };
  }
  let at = params.get('at');
  if (at !== null && !figureIds.includes(at)) {
    problems.push({ name: 'at', value: at });
    at = null;
  }
  return { lang, figures, at, problems };
}

/**
 * Builds the query string for `lang` and each figure's place `{id, scenario, defaultScenario,
 * breakpoints, step, vs?, vsAt?}`, where step is null (not started), a 1-based step number, or "end", and vs the
 * change of an open comparison (compare.js). `at`, the figure the reader last moved, is written only where it is needed:
 * when the link names another figure's place before it.
 * @param {Lang} lang
 * @param {{id: string, scenario: string, defaultScenario: string, breakpoints: Iterable<string>, step: number | 'end' | null,
 *   predict?: boolean, vs?: string, vsAt?: string}[]} places
 * @param {string | null} [at]
 */
export function writeLink(lang, places, at = null) {
  const params = new URLSearchParams();
  if (lang !== LANGS[0]) params.set('lang', lang);
  const named = places.filter((place) => place.scenario !== place.defaultScenario || [...place.breakpoints].length > 0 || place.step !== null);
  if (at !== null && named.length > 1 && named[0].id !== at && named.some((place) => place.id === at)) params.set('at', at);
  for (const place of places) {
    if (place.scenario !== place.defaultScenario) params.set(place.id, place.scenario);
    for (const key of [...place.breakpoints].sort()) {
      if (key.startsWith('on:')) params.append(`${place.id}.on`, key.slice(3));
      else params.append(`${place.id}.bp`, key);
    }
    if (place.step !== null) params.set(`${place.id}.step`, String(place.step));
    if (place.predict) params.set(`${place.id}.predict`, '1');
    if (place.vs) params.set(`${place.id}.vs`, place.vs);
    if (place.vs && place.vsAt) params.set(`${place.id}.vs.at`, place.vsAt);
  }
  const query = params.toString();
  return query ? `?${query}` : '';
}
