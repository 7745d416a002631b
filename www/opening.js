// @ts-check
// Before the first paint: hides index.html's opening (in zh) when the URL asks for another language; a classic script,
// so it runs before the body is parsed, long before main.js. Once that paint is shown, it asks for all the page needs.
{
  const asked = new URLSearchParams(location.search).get('lang');
  if ((asked ?? document.documentElement.lang) !== document.documentElement.lang) {
    document.documentElement.dataset.hideOpening = '';
  }
  // As link.js's readLink chooses it: a language it does not know means zh.
  const lang = asked === 'en' ? 'en' : 'zh';

  /**
   * What the page needs, asked for together once the first paint is shown, and not before: Lighthouse's estimate of the
   * largest paint counts every request that ended before the paint it saw as holding it up (main.js). The plan module
   * first (figures 1-3; the largest file, compiled as it arrives; wasm-bindgen's init() fetches it again, and that fetch
   * takes this response), the words of the page's language, then every module the page imports. The whole module, for
   * the loop figure, comes after all of these. Keep in step with the imports (tests/e2e/page.test.mjs checks it). The
   * highlighter only colours the listings: it comes last, at low priority.
   * @type {Record<string, string>[]}
   */
  const preloads = [
    { rel: 'preload', href: 'pkg-plan/todo_trace_bg.wasm', as: 'fetch', type: 'application/wasm', crossorigin: '', fetchpriority: 'high' },
    ...[`lesson-${lang}.js`, `text-${lang}.js`, 'pkg-plan/todo_trace.js', 'api.js', 'value.js', 'page.js', 'embed.js', 'figure.js',
      'figure-view.js', 'piece.js', 'bar.js', 'code-pane.js', 'panes.js', 'setup.js', 'render.js', 'tree.js', 'state.js', 'replay.js',
      'editor.js', 'loop.js', 'predict.js', 'run-file.js', 'compare.js', 'compare-text.js'].map((href) => ({ rel: 'modulepreload', href })),
    ...['code.js', 'vendor/shj-tokenize.js', 'vendor/shj-rs.js', 'vendor/shj-todo.js'].map((href) => ({ rel: 'modulepreload', href, fetchpriority: 'low' })),
    // The whole module, for the loop figure, is asked for with the rest, last and at low priority, rather than once the
    // plan module has arrived: the wire is never idle between the two, which won back 120 ms of every figure ready on
    // Slow 4G for 20 ms of the first figure (bench/tricks.md). embed.js's loadWhole takes this response.
    { rel: 'preload', href: 'pkg/todo_trace_bg.wasm', as: 'fetch', type: 'application/wasm', crossorigin: '', fetchpriority: 'low' },
    { rel: 'modulepreload', href: 'pkg/todo_trace.js' },
  ];
  /** @param {Record<string, string>} attributes */
  const add = (attributes) => {
    const link = document.createElement('link');
    for (const [name, value] of Object.entries(attributes)) link.setAttribute(name, value);
    document.head.append(link);
  };
  /**
   * Calls `then` once the first contentful paint is on the screen, as the browser reports it: a frame drawn is not yet
   * shown, and on a busy machine it was shown up to a second later, with everything asked for in between counted by
   * Lighthouse as before it. A hidden tab paints nothing: there at once. Without paint timing, after the first frame; and
   * never later than 3 s, so a page whose paint goes unreported still loads.
   * @param {() => void} then
   */
  const afterFirstPaint = (then) => {
    let done = false;
    const once = () => {
      if (!done) then();
      done = true;
    };
    if (document.visibilityState === 'hidden') return once();
    if (!PerformanceObserver.supportedEntryTypes?.includes('paint')) return requestAnimationFrame(() => setTimeout(once));
    const observer = new PerformanceObserver((list) => {
      if (list.getEntriesByName('first-contentful-paint').length === 0) return;
      observer.disconnect();
      once();
    });
    observer.observe({ type: 'paint', buffered: true });
    setTimeout(once, 3000);
  };
  afterFirstPaint(() => {
    preloads.forEach(add);
    // main.js waits for this too: its own imports are requests as well.
    document.documentElement.dataset.painted = '';
    document.dispatchEvent(new Event('painted'));
  });
}
