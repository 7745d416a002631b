// The benchmark (./build.sh bench): the lesson page against the same lesson in Pyodide, in headless Chromium.
// It prints and writes bench/report.md and bench/report.json; it never fails on a budget. First of all it measures the
// load on Slow 4G against the floor (bench/slow4g.mjs; BENCH_BASELINE=REV adds REV's page and embed, interleaved).
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { gzipSync } from 'node:zlib';
import { startServer } from '../serve.mjs';
import { compareLatency, compareSection } from './compare.mjs';
import { lighthouseRuns } from './lighthouse.mjs';
import { measureRunFile } from './run-file.mjs';
import { judge, perStepRatio, renderReport } from './report.mjs';
import { LAUNCH_ARGS, slow4g, stageBaseline } from './slow4g.mjs';

const ROOT = new URL('..', import.meta.url).pathname;
const SITE = `${ROOT}bench/site/`;
const PROBE = `${ROOT}bench/probe.js`;
const RUNS = count(process.env.BENCH_RUNS, 7);
const STEP_SAMPLES = count(process.env.BENCH_STEPS, 300);
const LANG = 'zh';
const TRACE_BATCHES = count(process.env.BENCH_TRACE_BATCHES, 31);
/** How many steps of the worst-case input are timed in the page. */
const WORST_STEPS = 60;
/** Lighthouse runs; each score and metric reported is their median. */
const LIGHTHOUSE_RUNS = count(process.env.BENCH_LIGHTHOUSE_RUNS, 3);

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
  load.lcp = await page.evaluate(() => window.__bench.lcp);
  load.buildMs = await page.evaluate(() => performance.getEntriesByName('todo-trace:build')[0]?.duration ?? null);
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

/** Runs in a page: calls every case again and again for a while, so that the engine has compiled the hot
 * code with its optimizing tier (Pyodide's module is large and tiers up in the background). */
function warmAll({ cases, ms }) {
  for (const start = performance.now(); performance.now() - start < ms; ) {
    for (const { fn, args } of cases) window.benchFns[fn](...args);
  }
}

/** Runs in a page: warms one case up, then finds a batch size that the coarse page clock (about 0.1 ms)
 * can time well. Also returns the result's size as JSON text and its step count: `steps.length` is the
 * one field of a trace the bench reads, and only if it is a list, so a new trace format still gets timed. */
function warmUp({ fn, args, warmMs, batchMs }) {
  const call = () => window.benchFns[fn](...args);
  const result = call();
  const steps = Array.isArray(result?.steps) ? result.steps.length : null;
  const jsonChars = JSON.stringify(result).length;
  for (const start = performance.now(); performance.now() - start < warmMs; ) call();
  let size = 1;
  for (;;) {
    const start = performance.now();
    for (let i = 0; i < size; i++) call();
    if (performance.now() - start >= batchMs) return { steps, jsonChars, size };
    size *= 2;
  }
}

/** Runs in a page: one timed batch; milliseconds per call. */
function timeBatch({ fn, args, size }) {
  const start = performance.now();
  for (let i = 0; i < size; i++) window.benchFns[fn](...args);
  return (performance.now() - start) / size;
}

/**
 * The median time of one call per case, for every tracer at once. `tracers` maps a name to
 * `{page, cases: [{id, fn, args}]}`. Batches go round every case of every tracer, round after round, the
 * tracers' batches for one scenario next to each other, so that noise from the rest of this shared
 * machine falls on every tracer and every scenario alike.
 */
async function traceTimes(tracers) {
  for (const { page, cases } of Object.values(tracers)) await page.evaluate(warmAll, { cases, ms: 3000 });
  const runs = [];
  for (const [tracer, { page, cases }] of Object.entries(tracers)) {
    for (const c of cases) {
      const sized = await page.evaluate(warmUp, { fn: c.fn, args: c.args, warmMs: 200, batchMs: 20 });
      runs.push({ tracer, page, case: c, ...sized, perCall: [] });
    }
  }
  const order = [...new Set(runs.map((r) => r.case.id))];
  runs.sort((a, b) => order.indexOf(a.case.id) - order.indexOf(b.case.id));
  for (let round = 0; round < TRACE_BATCHES; round++) {
    for (const run of runs) {
      run.perCall.push(await run.page.evaluate(timeBatch, { fn: run.case.fn, args: run.case.args, size: run.size }));
    }
  }
  const results = Object.fromEntries(Object.keys(tracers).map((tracer) => [tracer, []]));
  for (const run of runs) {
    const [figure, scenario] = run.case.id.split('/');
    results[run.tracer].push({
      figure,
      scenario,
      steps: run.steps,
      jsonChars: run.jsonChars,
      calls: run.size * TRACE_BATCHES,
      ms: median(run.perCall),
      // Each round's time per call, in round order (four digits): a ratio between two cases is read round by round.
      rounds: run.perCall.map((ms) => Number(ms.toPrecision(4))),
    });
  }
  return results;
}

/** A plan the reader could write for the validate figure: `count` items whose contents are `chars` characters, one in progress. */
function plan(count, chars) {
  const words = 'Read the source, run the tests and check every result against the plan. ';
  const items = Array.from({ length: count }, (_, i) => ({
    id: `task-${i + 1}`,
    content: `${i + 1} ${words.repeat(Math.ceil(chars / words.length))}`.slice(0, chars),
    status: i === 0 ? 'in_progress' : 'pending',
  }));
  return JSON.stringify(items, null, 1);
}

/**
 * The heaviest text within the limits (issue 10): exactly 65,536 bytes of UTF-8, 20 valid items whose
 * contents are padded on both sides with raw U+000B (vertical tab), white space that trimming removes.
 */
function worstText() {
  const LIMIT = 64 * 1024;
  const pad = '\u000b';
  const items = (pads) =>
    `[${pads.map((n, i) => `{"id": "${i + 1}", "content": "${pad.repeat(Math.ceil(n / 2))}Task ${i + 1}${pad.repeat(Math.floor(n / 2))}", "status": "pending"}`).join(',\n')}]`;
  const bare = Buffer.byteLength(items(Array(20).fill(0)));
  const room = LIMIT - bare;
  const text = items(Array.from({ length: 20 }, (_, i) => Math.floor(room / 20) + (i < room % 20 ? 1 : 0)));
  if (Buffer.byteLength(text) !== LIMIT) throw new Error(`the worst-case text is ${Buffer.byteLength(text)} bytes, not ${LIMIT}`);
  return text;
}

/** Makes the page's own wasm module (the instance the page loaded) callable by the bench's page functions. */
async function exposeRustTracer(moduleUrl) {
  const m = await import(moduleUrl);
  // init() returns the module's exports, and the same ones again once it has run (as the page has run it).
  const wasm = await m.default();
  window.benchFns = { trace: m.trace, traceInput: m.traceInput };
  window.benchScenarios = () => m.figures().flatMap((f) => m.scenarios(f.id, 'zh').map((s) => [f.id, s.id]));
  window.benchWasmBytes = () => wasm.memory.buffer.byteLength;
}

/** The loop figure's scenarios (LOOP.md's table), traced for issue 12's cost per step. */
const LOOP_SCENARIOS = ['allow', 'deny', 'maintenance', 'budget', 'skip', 'claim', 'rejected', 'nag'];

/** Runs in a page: the worst-case text traced `times` times, each timed alone, and what it leaves behind. */
async function timeWorst({ text, lang, times }) {
  const bytes = new TextEncoder().encode(text).length;
  const wasmBefore = window.benchWasmBytes();
  const ms = [];
  let result = null;
  for (let i = 0; i < times; i++) {
    result = null; // let the last run's trace go before the next
    const start = performance.now();
    result = window.benchFns.traceInput('validate', text, lang);
    ms.push(performance.now() - start);
    await new Promise((done) => setTimeout(done, 50));
  }
  return {
    bytes,
    ms,
    steps: Array.isArray(result?.steps) ? result.steps.length : null,
    ok: result?.result?.ok ?? null,
    jsonChars: JSON.stringify(result).length,
    wasmBefore,
    wasmAfter: window.benchWasmBytes(),
  };
}

/** Runs in a page: puts `text` in the validate figure's editor and clicks its Run button; the time the click took, and until the next frame. */
async function runWorstInPage(text) {
  const figure = window.__bench.figure('validate');
  figure.querySelector('textarea').value = text;
  const start = performance.now();
  figure.querySelector('[data-action="run-input"]').click();
  const handled = performance.now() - start;
  await new Promise((done) => requestAnimationFrame(() => setTimeout(done)));
  return { handledMs: handled, shownMs: performance.now() - start, status: window.__bench.status(figure) };
}

/**
 * Issue 10's worst case: the 64 KiB text traced in a fresh page (time, JSON size, wasm memory), then run from
 * the validate figure's editor in another fresh page, and stepped through with Step over.
 */
async function worstCase(browser, url, moduleUrl) {
  const text = worstText();
  const out = { bytes: Buffer.byteLength(text), api: null, page: null, problem: null };
  try {
    const load = await open(browser, url);
    await load.page.evaluate(exposeRustTracer, moduleUrl);
    out.api = await load.page.evaluate(timeWorst, { text, lang: LANG, times: 3 });
    out.api.medianMs = median(out.api.ms);
    await load.context.close();

    const ui = await open(browser, url);
    out.page = await ui.page.evaluate(runWorstInPage, text);
    const figure = ui.page.locator('[data-figure="validate"]');
    await figure.locator('[data-action="restart"]').click({ timeout: 10_000 });
    await ui.page.evaluate(() => (window.__bench.steps = []));
    const tally = { clicks: 0, unmarked: 0, problem: null };
    await stepThrough(ui.page, 'validate', tally, (n) => n >= WORST_STEPS);
    out.page.steps = await stepStats(ui.page, tally);
    await ui.context.close();
  } catch (error) {
    out.problem = error.message.split('\n')[0];
  }
  return out;
}

function statusOf(figure) {
  return figure.evaluate((root) => window.__bench.status(root));
}

/**
 * Clicks Step over in one figure until its run is done, or until `enough(steps timed so far)`; adds to
 * `tally` the clicks and those that moved no mark. Returns whether `enough` stopped it.
 */
async function stepThrough(page, id, tally, enough) {
  const figure = page.locator(`[data-figure="${id}"]`);
  const taken = () => page.evaluate(() => window.__bench.steps.length);
  for (let click = 0; click < 500 && !['done', 'error'].includes(await statusOf(figure)); click++) {
    const before = await taken();
    await figure.locator('[data-action="step-over"]').click({ timeout: 5000 });
    tally.clicks++;
    // A step with no mark to move (the run ended, or one return followed another) is counted, not timed.
    await page
      .waitForFunction(
        ({ id, n }) => {
          const status = window.__bench.status(window.__bench.figure(id));
          return window.__bench.steps.length > n || status === 'done' || status === 'error';
        },
        { id, n: before },
        { timeout: 2000 },
      )
      .catch(() => {});
    const after = await taken();
    if (after === before) tally.unmarked++;
    if (enough(after)) return true;
  }
  return false;
}

/** The step latencies the probe has timed so far in `page`. */
async function stepStats(page, tally) {
  const steps = await page.evaluate(() => window.__bench.steps);
  const pick = (key) => steps.map((s) => s[key]);
  return {
    ...tally,
    samples: steps.length,
    markedP50: percentile(pick('marked'), 50),
    markedP95: percentile(pick('marked'), 95),
    settledP50: percentile(pick('settled'), 50),
    settledP95: percentile(pick('settled'), 95),
  };
}

/** Clicks Step over through every scenario of every figure, again and again, until enough steps were timed. */
async function stepLatency(load) {
  const { page } = load;
  const ids = await page.locator('[data-figure]').evaluateAll((roots) => roots.map((r) => r.dataset.figure));
  const tally = { clicks: 0, unmarked: 0, problem: null };
  const enough = (n) => n >= STEP_SAMPLES;
  try {
    rounds: for (let round = 0; round < 20; round++) {
      for (const id of ids) {
        const figure = page.locator(`[data-figure="${id}"]`);
        const select = figure.locator('select[data-control="scenario"]');
        const scenarios = await select.locator('option').evaluateAll((options) => options.map((o) => o.value));
        for (const scenario of scenarios) {
          await select.selectOption(scenario, { timeout: 5000 });
          if (['done', 'error'].includes(await statusOf(figure))) await figure.locator('[data-action="restart"]').click({ timeout: 5000 });
          if (await stepThrough(page, id, tally, enough)) break rounds;
        }
      }
    }
  } catch (error) {
    tally.problem = error.message.split('\n')[0];
  }
  return stepStats(page, tally);
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

/**
 * index.html shows the opening of lesson-zh.js's prose as static HTML until page.js builds the page; a word
 * changed in one but not the other would show the reader one text and then another. Lists the blocks that differ.
 */
async function openingDrift() {
  const html = readFileSync(`${ROOT}www/index.html`, 'utf8');
  const { default: zh } = await import(`${ROOT}www/lesson-zh.js`);
  const shown = [...html.matchAll(/<(h1|h2|p) data-opening>(.*?)<\/\1>/gs)].map(([, kind, text]) => [kind, text.replace(/<code>(.*?)<\/code>/g, '`$1`')]);
  if (shown.length === 0) return ['index.html has no [data-opening] blocks'];
  return shown
    .map((block, i) => (JSON.stringify(block) === JSON.stringify(zh.prose[i]) ? null : `index.html's opening block ${i + 1} (${block[0]}) differs from lesson-zh.js's prose[${i}]`))
    .filter(Boolean);
}

/** Which page was measured: the tree, and the last commit that touched www/. */
function pageCommit() {
  return {
    head: git('rev-parse', 'HEAD'),
    www: git('log', '-1', '--format=%H %s', '--', 'www'),
    wwwDirty: git('status', '--porcelain', '--', 'www') !== '',
  };
}

/**
 * `BENCH_ONLY=traces node bench/run.mjs`: only the trace times (issues 10 and 12), the lesson page and the Pyodide
 * page side by side exactly as in the full run, printed as a table; no report is written. Minutes less than a full
 * run, for checking a change to the tracer.
 */
async function tracesOnly(browser, base, urls) {
  const pageLoad = await open(browser, urls.page);
  const pyLoad = await open(browser, urls.pyodide, { timeout: 120_000 });
  const moduleUrl = await pageLoad.page.evaluate(() => new URL('api.js', document.baseURI).href);
  await pageLoad.page.evaluate(exposeRustTracer, moduleUrl);
  const traces = await traceTimes(traceCases(await pyLoad.page.evaluate(() => window.benchScenarios()), pageLoad.page, pyLoad.page));
  await pageLoad.context.close();
  await pyLoad.context.close();
  const cheap = new Map(traces.cheap.map((t) => [`${t.figure}/${t.scenario}`, t]));
  const valid = traces.rust.find((t) => t.figure === 'validate' && t.scenario === 'valid');
  const perStepUs = (t) => (t.ms / t.steps) * 1000;
  const rows = traces.rust.map((t) => {
    const id = `${t.figure}/${t.scenario}`;
    const peer = cheap.get(id);
    const versus = peer ? `cheapest ${peer.ms.toFixed(3)} ms = ${(peer.ms / t.ms).toFixed(2)}x` : `${perStepRatio(t, valid).toFixed(2)}x validate/valid per step`;
    return `${id.padEnd(24)} ${String(t.steps).padStart(4)} steps ${t.ms.toFixed(4)} ms ${perStepUs(t).toFixed(2).padStart(6)} us/step  ${versus}`;
  });
  const speedups = traces.rust.filter((t) => cheap.has(`${t.figure}/${t.scenario}`)).map((t) => cheap.get(`${t.figure}/${t.scenario}`).ms / t.ms);
  const loops = traces.rust.filter((t) => t.figure === 'loop').map((t) => perStepRatio(t, valid));
  console.log(rows.join('\n'));
  console.log(`issue 10: worst ${Math.min(...speedups).toFixed(2)}x, median ${median(speedups).toFixed(2)}x, ${speedups.filter((s) => s >= 5).length} of ${speedups.length} at least 5x`);
  console.log(`issue 12: worst ${Math.max(...loops).toFixed(2)}x validate/valid per step, ${loops.filter((l) => l <= 2).length} of ${loops.length} within 2x`);
  console.log(`load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
}

/** What `traceTimes` times: every scenario both tracers have, the 20 x 150 plan and the loop (Rust only). */
function traceCases(scenarios, page, pyPage) {
  const cases = (fn) => scenarios.map(([figure, scenario]) => ({ id: `${figure}/${scenario}`, fn, args: [figure, scenario, LANG] }));
  return {
    rust: {
      page,
      cases: [
        ...cases('trace'),
        { id: 'validate/input-20x150', fn: 'traceInput', args: ['validate', plan(20, 150), LANG] },
        // The loop figure (issue 12): Rust only, Pyodide has no loop to compare with.
        ...LOOP_SCENARIOS.map((scenario) => ({ id: `loop/${scenario}`, fn: 'trace', args: ['loop', scenario, LANG] })),
      ],
    },
    python: { page: pyPage, cases: cases('trace') },
    cheap: { page: pyPage, cases: cases('cheap') },
  };
}

async function main() {
  stageSite();
  const server = await startServer(SITE, 0);
  const base = `http://127.0.0.1:${server.address().port}`;
  const urls = { page: `${base}/`, pyodide: `${base}/bench/pyodide.html` };
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: LAUNCH_ARGS });
  if (process.env.BENCH_ONLY === 'compare') {
    // Issue 29 alone: its dated section is added to the end of bench/report.md.
    const load = os.loadavg().map((l) => l.toFixed(2)).join(' ');
    const compare = await compareLatency(browser, urls.page);
    const section = compareSection(compare, new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC', load);
    writeFileSync(`${ROOT}bench/report.md`, `${readFileSync(`${ROOT}bench/report.md`, 'utf8').trimEnd()}\n\n${section}\n`);
    console.log(section);
    await browser.close();
    server.close();
    rmSync(SITE, { recursive: true, force: true });
    return;
  }
  if (process.env.BENCH_ONLY === 'traces') {
    console.log(`bench: trace times only; load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    await tracesOnly(browser, base, urls);
    await browser.close();
    server.close();
    rmSync(SITE, { recursive: true, force: true });
    return;
  }
  const started = new Date();
  const info = machine(browser.version());
  console.log(`bench: ${RUNS} cold loads each; ${base}; load average ${info.loadAverage.join(' ')}`);

  // Issue 25 first: the page and the embed on Slow 4G, against the floor (and a baseline's, if asked).
  const variants = { now: { www: `${ROOT}www`, dist: `${ROOT}dist` } };
  const baseline = process.env.BENCH_BASELINE ? stageBaseline(process.env.BENCH_BASELINE) : null;
  if (baseline) variants[process.env.BENCH_BASELINE] = { www: `${baseline}/www`, dist: `${baseline}/dist` };
  const slow = await slow4g(browser, variants, RUNS, console.log);
  if (baseline) rmSync(baseline, { recursive: true, force: true });

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
      loads[kind].push({ readyMs: load.readyMs, fcpMs: load.fcpMs, lcp: load.lcp, buildMs: load.buildMs, requests: load.requests.length });
      load.offsite.forEach((url) => offsite.add(url));
      if (kind !== 'floor') load.errors.forEach((e) => errors.add(`${kind}: ${e}`));
      await load.context.close();
    }
    console.log(`  run ${run + 1}/${RUNS}: ready page ${fmt(loads.page.at(-1).readyMs)} ms, floor ${fmt(loads.floor.at(-1).readyMs)} ms, pyodide ${fmt(loads.pyodide.at(-1).readyMs)} ms`);
  }

  // Trace times with both pages open, then step latency alone with the lesson page.
  const pageLoad = await open(browser, urls.page);
  const pyLoad = await open(browser, urls.pyodide, { timeout: 120_000 });
  const moduleFile = bytes.page.files.find((f) => /\/api\.js(\?|$)/.test(f.path));
  const moduleUrl = moduleFile ? `${base}${moduleFile.path}` : null;
  let traces = null;
  let validJsonChars = null;
  if (moduleUrl && pyLoad.readyMs !== null) {
    await pageLoad.page.evaluate(exposeRustTracer, moduleUrl);
    // The scenarios both tracers have: the Python lesson has the three function figures, not the loop.
    const scenarios = await pyLoad.page.evaluate(() => window.benchScenarios());
    traces = await traceTimes(traceCases(scenarios, pageLoad.page, pyLoad.page));
    validJsonChars = await pageLoad.page.evaluate(() => JSON.stringify(window.benchFns.trace('validate', 'valid', 'en')).length);
  }
  await pyLoad.context.close();
  console.log('  traced in both');
  const steps = pageLoad.readyMs === null ? null : await stepLatency(pageLoad);
  console.log(`  stepped ${steps?.samples ?? 0} times`);
  await pageLoad.context.close();
  const worst = moduleUrl ? await worstCase(browser, urls.page, moduleUrl) : null;
  const compare = await compareLatency(browser, urls.page);
  console.log(`  what if: ${compare.problem ?? `opened ${compare.opens} times, stepped ${compare.steps} times`}`);
  console.log(`  worst case: ${worst?.api ? `${fmt(worst.api.medianMs)} ms, ${worst.api.jsonChars} characters of JSON` : worst?.problem ?? 'not measured'}`);
  const runFile = await measureRunFile(browser, urls.page);
  console.log(`  100-call run: ${runFile.problem ?? `${fmt(runFile.traceMs)} ms to trace, step p95 ${runFile.steps.markedP95.toFixed(1)} ms`}`);
  await browser.close();

  // Lighthouse last, with its own Chromium and nothing else of the bench running.
  const lighthouse = await lighthouseRuns(urls.page, LIGHTHOUSE_RUNS, console.log);
  server.close();
  rmSync(SITE, { recursive: true, force: true });

  const results = {
    date: started.toISOString(),
    runs: RUNS,
    traceBatches: TRACE_BATCHES,
    lang: LANG,
    slow4g: slow,
    machine: { ...info, loadAverageAfter: os.loadavg().map((l) => Number(l.toFixed(2))) },
    commit: pageCommit(),
    bytes,
    ready: Object.fromEntries(Object.entries(loads).map(([kind, list]) => [kind, spread(list.map((l) => l.readyMs))])),
    fcp: Object.fromEntries(Object.entries(loads).map(([kind, list]) => [kind, spread(list.map((l) => l.fcpMs))])),
    requests: Object.fromEntries(Object.entries(loads).map(([kind, list]) => [kind, list.map((l) => l.requests)])),
    lcp: { page: { ...spread(loads.page.map((l) => l.lcp?.ms ?? null)), elements: loads.page.map((l) => l.lcp?.element ?? null) } },
    build: spread(loads.page.map((l) => l.buildMs)),
    traces,
    validJsonChars,
    steps,
    worst,
    runFile,
    compare,
    lighthouse,
    offsite: [...offsite],
    errors: [...errors],
    openingDrift: await openingDrift(),
  };
  results.budgets = judge(results);
  mkdirSync(`${ROOT}bench`, { recursive: true });
  writeFileSync(`${ROOT}bench/report.json`, `${JSON.stringify(results, null, 2)}\n`);
  const report = renderReport(results);
  const compareText = compareSection(compare, started.toISOString().slice(0, 16).replace('T', ' ') + ' UTC', info.loadAverage.join(' '));
  writeFileSync(`${ROOT}bench/report.md`, `${report.full.trimEnd()}\n\n${compareText}\n`);
  console.log(`\n${report.summary}\nwrote bench/report.md and bench/report.json`);
}

function fmt(ms) {
  return ms === null ? 'n/a' : ms.toFixed(0);
}

await main();
