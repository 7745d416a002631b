// Injected into every page the benchmark opens, before any page script: times readiness and steps from inside.
(() => {
  const bench = (window.__bench = { readyAt: null, steps: [] });
  // A figure's status (idle, paused, done, error): on its root or on an element inside it.
  const status = (figure) =>
    (figure.matches('[data-status]') ? figure : figure.querySelector('[data-status]'))?.dataset.status ?? null;
  bench.status = status;
  // The lesson's figures live in the shadow roots of <todo-trace-figure> elements (www/embed.js); other pages' in the document.
  const allFigures = () => [
    ...document.querySelectorAll('[data-figure]'),
    ...[...document.querySelectorAll('todo-trace-figure')].flatMap((host) => [...(host.shadowRoot?.querySelectorAll('[data-figure]') ?? [])]),
  ];
  bench.figure = (/** @type {string} */ id) => allFigures().find((figure) => figure.dataset.figure === id) ?? null;

  // The lesson page is ready when all three figures are idle and show their lines (the page's test
  // contract); the bench pages (floor, Pyodide) say so with data-bench-ready on <html>.
  const figuresReady = () => {
    const figures = allFigures();
    return (
      figures.length >= 3 &&
      figures.every(
        (figure) =>
          status(figure) === 'idle' &&
          figure.querySelector('[data-line]'),
      )
    );
  };
  const ready = () => document.documentElement?.hasAttribute('data-bench-ready') || figuresReady();
  const readyOptions = {
    subtree: true,
    childList: true,
    attributeFilter: ['data-status', 'data-figure', 'data-line', 'data-bench-ready'],
  };
  // Each figure is built in a task of its own, inside its element's shadow root, which the document's observer does
  // not see into: each root is observed as its element appears (the root exists from the element's constructor on).
  const watched = new WeakSet();
  const readyObserver = new MutationObserver(() => {
    for (const host of document.querySelectorAll('todo-trace-figure')) {
      if (host.shadowRoot && !watched.has(host.shadowRoot)) {
        watched.add(host.shadowRoot);
        readyObserver.observe(host.shadowRoot, readyOptions);
      }
    }
    if (ready()) {
      bench.readyAt = performance.now();
      readyObserver.disconnect();
    }
  });
  readyObserver.observe(document, readyOptions);

  // The Slow 4G measures (bench/slow4g.mjs): when each figure, by id, was first built, idle and showing its lines
  // (its controls work from then on). Mutation records are delivered as microtasks, so this is the end of the task
  // that built it.
  // Every shadow root is observed from its creation: an element already in the document when its module defines it
  // (an article's <todo-trace-figure>) is upgraded without any mutation the document's observer would see.
  bench.builtAt = {};
  const builtObserver = new MutationObserver(() => {
    for (const figure of allFigures()) {
      const id = figure.dataset.figure;
      if (id && !(id in bench.builtAt) && status(figure) === 'idle' && figure.querySelector('[data-line]')) {
        bench.builtAt[id] = performance.now();
      }
    }
  });
  builtObserver.observe(document, readyOptions);
  const attachShadow = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) {
    const root = attachShadow.call(this, init);
    builtObserver.observe(root, readyOptions);
    return root;
  };

  // The largest contentful paint as Chromium reports it, naming its element (Lighthouse 12.2.3's own audit of
  // the element fails with this Chromium).
  bench.lcp = null;
  new PerformanceObserver((list) => {
    const last = list.getEntries().at(-1);
    const node = last.element;
    const text = (node?.textContent ?? '').trim().slice(0, 16);
    bench.lcp = { ms: last.startTime, size: last.size, element: node ? `${node.localName}${text ? ` "${text}…"` : ''}` : null };
  }).observe({ type: 'largest-contentful-paint', buffered: true });

  // Step latency: from a Step over click until the figure's "about to run" mark has moved (to another
  // row, set again on the same row, or gone, at a step that returns), and until the page has finished
  // that task and laid out the result (what the next frame would have to do anyway).
  let pending = null;
  document.addEventListener(
    'click',
    (event) => {
      // The event's target outside the shadow root is the element; the path's first entry is the button.
      const target = event.composedPath()[0];
      const button = target instanceof Element && target.closest('[data-action="step-over"]');
      const figure = button && button.closest('[data-figure]');
      if (!figure) return;
      pending = { at: event.timeStamp, figure, before: figure.querySelector('[aria-current="step"]') };
      // The document's observer does not see into shadow roots: observe the figure's root too (again is harmless).
      const root = figure.getRootNode();
      if (root !== document) stepObserver.observe(root, stepOptions);
    },
    true,
  );
  const stepOptions = { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-current'] };
  const stepObserver = new MutationObserver((records) => {
    if (!pending) return;
    const now = pending.figure.querySelector('[aria-current="step"]');
    const setAgain = records.some((r) => r.attributeName === 'aria-current' && pending.figure.contains(r.target));
    if (now === pending.before && !setAgain) return;
    const { at } = pending;
    pending = null;
    const marked = performance.now() - at;
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      document.body.getBoundingClientRect();
      bench.steps.push({ line: now?.dataset.line ?? null, marked, settled: performance.now() - at });
    };
    channel.port2.postMessage(null);
  });
  stepObserver.observe(document, stepOptions);
})();
