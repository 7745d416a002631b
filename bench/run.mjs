// The benchmark (./build.sh bench): the lesson page against the same lesson in Pyodide, in headless Chromium.
// It prints and writes bench/report.md and bench/report.json and updates README.md; it never fails on a budget.
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { gzipSync } from 'node:zlib';
import { startServer } from '../serve.mjs';
import { judge, renderReport, updateReadme } from './report.mjs';

const ROOT = new URL('..', import.meta.url).pathname;
const SITE = `${ROOT}bench/site/`;
const PROBE = `${ROOT}bench/probe.js`;
const RUNS = count(process.env.BENCH_RUNS, 7);
const STEP_SAMPLES = count(process.env.BENCH_STEPS, 300);
const LANG = 'zh';
const TRACE_BATCHES = 31;

function count(text, fallback) {
  const n = Number(text);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/** A throwaway copy of www/ with the bench pages and Pyodide beside it, so one local server serves all. */
function stageSite() {
  rmSync(SITE, { recursive: true, force: true });
  cpSync(`${ROOT}www`, SITE, { recursive: true });
  for (const file of ['floor.html', 'pyodide.html', 'pyodide-page.mjs']) {
    cpSync(`${ROOT}bench/${file}`, `${SITE}bench/${file}`);
  }
  cpSync(`${ROOT}bench/python/lesson.py`, `${SITE}bench/python/lesson.py`);
  cpSync(`${ROOT}node_modules/pyodide`, `${SITE}bench/pyodide`, { recursive: true });
}

function git(...args) {
  return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
}

function median(values) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Nearest-rank percentile; null for no values. */
function percentile(values, p) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

function spread(values) {
  const real = values.filter((v) => v !== null);
  return { median: median(real), min: real.length ? Math.min(...real) : null, max: real.length ? Math.max(...real) : null, n: real.length, values };
}

/** A fresh context (so an empty cache) and page, with the probe installed before any script. */
async function open(browser, url, { bodies = false, timeout = 30_000 } = {}) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.addInitScript({ path: PROBE });
  const load = { page, context, requests: [], offsite: [], errors: [], responses: [] };
  page.on('request', (request) => {
    const { protocol, hostname } = new URL(request.url());
    if (protocol === 'data:' || protocol === 'blob:') return;
    load.requests.push(request.url());
    if (hostname !== '127.0.0.1') load.offsite.push(request.url());
  });
  page.on('pageerror', (error) => load.errors.push(error.message));
  page.on('console', (message) => message.type() === 'error' && load.errors.push(message.text()));
  if (bodies) {
    // Only on the loads that count bytes: reading bodies over CDP would slow the timed loads.
    page.on('response', (response) => load.responses.push(response.body().then((body) => ({ response, body }), () => null)));
  }
  await page.goto(url, { waitUntil: 'commit' });
  load.readyMs = await page
    .waitForFunction(() => window.__bench?.readyAt, null, { timeout })
    .then((handle) => handle.jsonValue(), () => null);
  load.fcpMs = await page.evaluate(
    () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null,
  );
  return load;
}

/** What one load transferred, per file: raw bytes and gzip -9 of the same body. */
async function bytesOf(browser, url, timeout) {
  const load = await open(browser, url, { bodies: true, timeout });
  const files = [];
  for (const entry of await Promise.all(load.responses)) {
    if (!entry) continue;
    const { response, body } = entry;
    const { pathname, search, origin } = new URL(response.url());
    if (origin === 'null') continue;
    files.push({
      path: pathname + search,
      status: response.status(),
      type: response.headers()['content-type'] ?? '',
      raw: body.length,
      gzip: gzipSync(body, { level: 9 }).length,
    });
  }
  await load.context.close();
  const total = (key) => files.reduce((sum, file) => sum + file[key], 0);
  return { files, raw: total('raw'), gzip: total('gzip'), offsite: load.offsite, errors: load.errors, ready: load.readyMs !== null };
}

/** Runs in a page: traces every scenario again and again for a while, so that the engine has compiled
 * the hot code with its optimizing tier (Pyodide's module is large and tiers up in the background). */
function warmAll({ lang, ms }) {
  const scenarios = window.benchScenarios();
  for (const start = performance.now(); performance.now() - start < ms; ) {
    for (const [figure, scenario] of scenarios) window.benchTrace(figure, scenario, lang);
  }
}

/** Runs in a page: warms one scenario's trace up, then finds a batch size that the coarse page clock
 * (about 0.1 ms) can time well. */
function warmUp({ figure, scenario, lang, warmMs, batchMs }) {
  const call = () => window.benchTrace(figure, scenario, lang);
  const steps = call().steps.length;
  for (const start = performance.now(); performance.now() - start < warmMs; ) call();
  let size = 1;
  for (;;) {
    const start = performance.now();
    for (let i = 0; i < size; i++) call();
    if (performance.now() - start >= batchMs) return { steps, size };
    size *= 2;
  }
}

/** Runs in a page: one timed batch; milliseconds per call. */
function timeBatch({ figure, scenario, lang, size }) {
  const start = performance.now();
  for (let i = 0; i < size; i++) window.benchTrace(figure, scenario, lang);
  return (performance.now() - start) / size;
}

/**
 * The median time of one trace() call per figure x scenario, in the Rust page and in Pyodide at once.
 * Batches alternate between the two pages and go round all scenarios, round after round, so that
 * noise from the rest of this shared machine falls on both tracers and on every scenario alike.
 */
async function traceTimes(pages) {
  const kinds = Object.keys(pages);
  const scenarios = await pages.rust.evaluate(() => window.benchScenarios());
  for (const kind of kinds) await pages[kind].evaluate(warmAll, { lang: LANG, ms: 3000 });
  const runs = [];
  for (const [figure, scenario] of scenarios) {
    const args = { figure, scenario, lang: LANG, warmMs: 200, batchMs: 20 };
    const run = { args, sizes: {}, perCall: {} };
    for (const kind of kinds) {
      run.sizes[kind] = await pages[kind].evaluate(warmUp, args);
      run.perCall[kind] = [];
    }
    runs.push(run);
  }
  for (let round = 0; round < TRACE_BATCHES; round++) {
    for (const { args, sizes, perCall } of runs) {
      for (const kind of kinds) {
        perCall[kind].push(await pages[kind].evaluate(timeBatch, { ...args, size: sizes[kind].size }));
      }
    }
  }
  const results = Object.fromEntries(kinds.map((kind) => [kind, []]));
  for (const { args, sizes, perCall } of runs) {
    for (const kind of kinds) {
      const { steps, size } = sizes[kind];
      results[kind].push({ figure: args.figure, scenario: args.scenario, steps, calls: size * TRACE_BATCHES, ms: median(perCall[kind]) });
    }
  }
  return results;
}

/** Makes the page's own wasm module (the instance the page loaded) callable by timeTracesInPage. */
async function exposeRustTracer(moduleUrl) {
  const m = await import(moduleUrl);
  // The page initialises the module before it is ready; a page that never got there is timed all the same.
  try {
    m.figures();
  } catch {
    await m.default();
  }
  window.benchTrace = m.trace;
  window.benchScenarios = () => m.figures().flatMap((f) => m.scenarios(f.id, 'zh').map((s) => [f.id, s.id]));
}

function statusOf(figure) {
  return figure.evaluate((root) => window.__bench.status(root));
}

/** Clicks Step over through every scenario of every figure, again and again, until enough steps were timed. */
async function stepLatency(load) {
  const { page } = load;
  const ids = await page.locator('[data-figure]').evaluateAll((roots) => roots.map((r) => r.dataset.figure));
  const result = { clicks: 0, unmarked: 0, problem: null };
  const taken = () => page.evaluate(() => window.__bench.steps.length);
  try {
    rounds: for (let round = 0; round < 20; round++) {
      for (const id of ids) {
        const figure = page.locator(`[data-figure="${id}"]`);
        const select = figure.locator('select[data-control="scenario"]');
        const scenarios = await select.locator('option').evaluateAll((options) => options.map((o) => o.value));
        for (const scenario of scenarios) {
          await select.selectOption(scenario, { timeout: 5000 });
          if (['done', 'error'].includes(await statusOf(figure))) await figure.locator('[data-action="restart"]').click({ timeout: 5000 });
          for (let click = 0; click < 500 && !['done', 'error'].includes(await statusOf(figure)); click++) {
            const before = await taken();
            await figure.locator('[data-action="step-over"]').click({ timeout: 5000 });
            result.clicks++;
            // A step with no mark to move (the run ended, or one return followed another) is counted, not timed.
            await page
              .waitForFunction(
                ({ id, n }) => {
                  const status = window.__bench.status(document.querySelector(`[data-figure="${id}"]`));
                  return window.__bench.steps.length > n || status === 'done' || status === 'error';
                },
                { id, n: before },
                { timeout: 2000 },
              )
              .catch(() => {});
            if ((await taken()) === before) result.unmarked++;
            if ((await taken()) >= STEP_SAMPLES) break rounds;
          }
        }
      }
    }
  } catch (error) {
    result.problem = error.message.split('\n')[0];
  }
  const steps = await page.evaluate(() => window.__bench.steps);
  const pick = (key) => steps.map((s) => s[key]);
  return {
    ...result,
    samples: steps.length,
    markedP50: percentile(pick('marked'), 50),
    markedP95: percentile(pick('marked'), 95),
    settledP50: percentile(pick('settled'), 50),
    settledP95: percentile(pick('settled'), 95),
  };
}

function machine(browserVersion) {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    chromium: browserVersion,
    pyodide: JSON.parse(readFileSync(`${ROOT}node_modules/pyodide/package.json`, 'utf8')).version,
    loadAverage: os.loadavg().map((l) => Number(l.toFixed(2))),
  };
}

/** Which page was measured: the tree, and the last commit that touched www/. */
function pageCommit() {
  return {
    head: git('rev-parse', 'HEAD'),
    www: git('log', '-1', '--format=%H %s', '--', 'www'),
    wwwDirty: git('status', '--porcelain', '--', 'www') !== '',
  };
}

async function main() {
  stageSite();
  const server = await startServer(SITE, 0);
  const base = `http://127.0.0.1:${server.address().port}`;
  const urls = { page: `${base}/`, pyodide: `${base}/bench/pyodide.html` };
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const started = new Date();
  const info = machine(browser.version());
  console.log(`bench: ${RUNS} cold loads each; ${base}; load average ${info.loadAverage.join(' ')}`);

  const bytes = { page: await bytesOf(browser, urls.page, 30_000) };
  // The floor fetches exactly the URLs the page fetched, the page's own document included.
  urls.floor = `${base}/bench/floor.html#${encodeURIComponent(JSON.stringify(bytes.page.files.map((f) => f.path)))}`;
  bytes.floor = await bytesOf(browser, urls.floor, 30_000);
  bytes.pyodide = await bytesOf(browser, urls.pyodide, 120_000);

  // Interleaved, so that a burst of noise on this shared machine hits all three alike.
  const loads = { page: [], floor: [], pyodide: [] };
  const offsite = new Set([...bytes.page.offsite, ...bytes.floor.offsite, ...bytes.pyodide.offsite]);
  const errors = new Set([...bytes.page.errors, ...bytes.pyodide.errors]);
  for (let run = 0; run < RUNS; run++) {
    for (const kind of ['page', 'floor', 'pyodide']) {
      const load = await open(browser, urls[kind], { timeout: kind === 'pyodide' ? 120_000 : 30_000 });
      loads[kind].push({ readyMs: load.readyMs, fcpMs: load.fcpMs, requests: load.requests.length });
      load.offsite.forEach((url) => offsite.add(url));
      if (kind !== 'floor') load.errors.forEach((e) => errors.add(`${kind}: ${e}`));
      await load.context.close();
    }
    console.log(`  run ${run + 1}/${RUNS}: ready page ${fmt(loads.page.at(-1).readyMs)} ms, floor ${fmt(loads.floor.at(-1).readyMs)} ms, pyodide ${fmt(loads.pyodide.at(-1).readyMs)} ms`);
  }

  // Trace times with both pages open, then step latency alone with the lesson page.
  const pageLoad = await open(browser, urls.page);
  const pyLoad = await open(browser, urls.pyodide, { timeout: 120_000 });
  const moduleFile = bytes.page.files.find((f) => /\/todo_trace\.js(\?|$)/.test(f.path));
  let traces = null;
  if (moduleFile && pyLoad.readyMs !== null) {
    await pageLoad.page.evaluate(exposeRustTracer, `${base}${moduleFile.path}`);
    traces = await traceTimes({ rust: pageLoad.page, python: pyLoad.page });
  }
  await pyLoad.context.close();
  console.log('  traced in both');
  const steps = pageLoad.readyMs === null ? null : await stepLatency(pageLoad);
  console.log(`  stepped ${steps?.samples ?? 0} times`);
  await pageLoad.context.close();

  await browser.close();
  server.close();
  rmSync(SITE, { recursive: true, force: true });

  const results = {
    date: started.toISOString(),
    runs: RUNS,
    traceBatches: TRACE_BATCHES,
    lang: LANG,
    machine: { ...info, loadAverageAfter: os.loadavg().map((l) => Number(l.toFixed(2))) },
    commit: pageCommit(),
    bytes,
    ready: Object.fromEntries(Object.entries(loads).map(([kind, list]) => [kind, spread(list.map((l) => l.readyMs))])),
    fcp: Object.fromEntries(Object.entries(loads).map(([kind, list]) => [kind, spread(list.map((l) => l.fcpMs))])),
    requests: Object.fromEntries(Object.entries(loads).map(([kind, list]) => [kind, list.map((l) => l.requests)])),
    traces,
    steps,
    offsite: [...offsite],
    errors: [...errors],
  };
  results.budgets = judge(results);
  mkdirSync(`${ROOT}bench`, { recursive: true });
  writeFileSync(`${ROOT}bench/report.json`, `${JSON.stringify(results, null, 2)}\n`);
  const report = renderReport(results);
  writeFileSync(`${ROOT}bench/report.md`, report.full);
  updateReadme(`${ROOT}README.md`, report.summary);
  console.log(`\n${report.summary}\nwrote bench/report.md, bench/report.json and the README's Performance table`);
}

function fmt(ms) {
  return ms === null ? 'n/a' : ms.toFixed(0);
}

await main();
