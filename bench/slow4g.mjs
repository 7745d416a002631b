// The load on Lighthouse's "Slow 4G" network, cold, against the physical floor (issue 25's rule for bytes).
//
// Three measures, each the median over cold loads (a new browser context each time, so an empty cache):
//   - every figure ready: the lesson page's four figures built, idle and showing their lines;
//   - the first figure interactive: the lesson page's first figure (validate) so;
//   - an embedded figure interactive: the first figure of dist/example.html (write), served from dist/.
// The floor of a page is what no page with its bytes can beat: its gzip bytes (as the server sent them) at
// 1.6 Mbps, plus three round trips of 150 ms. A floor page (bench/floor.html) that fetches the same URLs at once
// and uses none of them is loaded too, under the same network, as a check of what the emulated network gives.
//
// Alone: `node bench/slow4g.mjs` (after ./build.sh dist) prints the table. With BENCH_BASELINE=REV (a git revision)
// the www/, example/ and dist.mjs of REV are staged beside this tree's, with this build's modules, and measured in the
// same run, interleaved: before and after side by side.
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import { startServer } from '../serve.mjs';

const ROOT = new URL('..', import.meta.url).pathname;
const PROBE = `${ROOT}bench/probe.js`;

/** Lighthouse's "Slow 4G" (its mobile throttling): 150 ms round trip, 1.6 Mbps down, 750 kbps up. */
export const SLOW_4G = { offline: false, latency: 150, downloadThroughput: 1.6e6 / 8, uploadThroughput: 750e3 / 8 };
/** The round trips the floor allows: the connection, the document, and what the document asks for. */
export const FLOOR_ROUND_TRIPS = 3;

export const GOALS = { allVsFloor: 1.2, firstVsFloor: 1.0, embedMs: 1500 };

export const LAUNCH_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** The floor of a load that received `bytes`: the bytes at the emulated bandwidth, plus the round trips. */
export function floorMs(bytes) {
  return (bytes / SLOW_4G.downloadThroughput) * 1000 + FLOOR_ROUND_TRIPS * SLOW_4G.latency;
}

function median(values) {
  const real = values.filter((v) => v !== null && v !== undefined);
  if (real.length === 0) return null;
  const sorted = [...real].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * One cold load of `url` on Slow 4G. `ids` are the figures to wait for; returns when each was built (ms from
 * navigation start), when the bench page said it was ready (the floor page), and the bytes and files received.
 */
export async function slowLoad(browser, url, { ids = [], timeout = 60_000 } = {}) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.addInitScript({ path: PROBE });
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', SLOW_4G);
  /** Body bytes as sent (gzip where the server compressed), by request. */
  const files = [];
  const errors = [];
  page.on('response', (response) => {
    const { protocol, pathname, search } = new URL(response.url());
    if (protocol !== 'http:') return;
    files.push({ path: pathname + search, bytes: Number(response.headers()['content-length'] ?? 0), at: null, status: response.status() });
  });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  await page.goto(url, { waitUntil: 'commit' });
  const done = ids.length
    ? page.waitForFunction((wanted) => wanted.every((id) => id in window.__bench.builtAt), ids, { timeout, polling: 50 })
    : page.waitForFunction(() => window.__bench.readyAt !== null, null, { timeout, polling: 50 });
  const ok = await done.then(() => true, (error) => (errors.push(error.message.split('\n')[0]), false));
  const builtAt = await page.evaluate(() => window.__bench.builtAt);
  const readyAt = await page.evaluate(() => window.__bench.readyAt);
  const fcp = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null);
  // When each file had arrived, from navigation start (resource timing; the document is the navigation entry).
  const arrived = await page.evaluate(() =>
    [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')].map((e) => {
      const { pathname, search } = new URL(e.name);
      return [pathname + search, /** @type {PerformanceResourceTiming} */ (e).responseEnd];
    }),
  );
  for (const file of files) file.at = arrived.find(([path]) => path === file.path)?.[1] ?? null;
  await context.close();
  // What arrived before the page was ready counts; a favicon or a lazy file fetched later would too, had it come.
  const bytes = files.reduce((sum, f) => sum + f.bytes, 0);
  return { ok, builtAt, readyAt, fcp, bytes, requests: files.length, files, errors };
}

/** A throwaway copy of REV's www/, example/ and dist.mjs, with this build's modules and www/vendor, and its dist/ written. */
export function stageBaseline(rev) {
  const dir = mkdtempSync(`${os.tmpdir()}/todo-trace-baseline-`);
  execFileSync('sh', ['-c', `git archive ${JSON.stringify(rev)} www example dist.mjs | tar -x -C ${JSON.stringify(dir)}`], { cwd: ROOT });
  for (const pkg of ['pkg', 'pkg-plan']) cpSync(`${ROOT}www/${pkg}`, `${dir}/www/${pkg}`, { recursive: true });
  cpSync(`${ROOT}www/vendor`, `${dir}/www/vendor`, { recursive: true });
  symlinkSync(`${ROOT}node_modules`, `${dir}/node_modules`);
  execFileSync('node', ['dist.mjs'], { cwd: dir, stdio: 'inherit' });
  return dir;
}

/** A site for the bench: `www` (the lesson page) or `dist` (the embed), with the floor page beside it. */
function stage(from, to) {
  rmSync(to, { recursive: true, force: true });
  cpSync(from, to, { recursive: true });
  mkdirSync(`${to}/bench`, { recursive: true });
  cpSync(`${ROOT}bench/floor.html`, `${to}/bench/floor.html`);
}

/**
 * The Slow 4G measures for each variant (`{name: {www, dist}}`, folders), every load interleaved with the others.
 * Returns per variant: the lesson page's and the embed's loads, the floor pages' loads, and the medians.
 */
export async function slow4g(browser, variants, runs, log = () => {}) {
  const work = mkdtempSync(`${os.tmpdir()}/todo-trace-slow4g-`);
  const servers = [];
  const sites = {};
  for (const [name, { www, dist }] of Object.entries(variants)) {
    stage(www, `${work}/${name}-www`);
    stage(dist, `${work}/${name}-dist`);
    const pageServer = await startServer(`${work}/${name}-www`, 0);
    const embedServer = await startServer(`${work}/${name}-dist`, 0);
    servers.push(pageServer, embedServer);
    sites[name] = {
      page: `http://127.0.0.1:${pageServer.address().port}`,
      embed: `http://127.0.0.1:${embedServer.address().port}`,
    };
  }
  const PAGE_IDS = ['validate', 'write', 'prepare', 'loop'];
  const EMBED_IDS = ['write', 'validate'];
  const loads = Object.fromEntries(Object.keys(variants).map((name) => [name, { page: [], pageFloor: [], embed: [], embedFloor: [] }]));
  // A floor page fetches the URLs a load of the page fetched (its document included); learnt from one load first.
  const floorUrls = {};
  for (const [name, site] of Object.entries(sites)) {
    const first = await slowLoad(browser, `${site.page}/`, { ids: PAGE_IDS });
    const embed = await slowLoad(browser, `${site.embed}/example.html`, { ids: EMBED_IDS });
    const list = (load) => encodeURIComponent(JSON.stringify(load.files.filter((f) => f.status === 200).map((f) => f.path)));
    floorUrls[name] = { page: `${site.page}/bench/floor.html#${list(first)}`, embed: `${site.embed}/bench/floor.html#${list(embed)}` };
  }
  for (let run = 0; run < runs; run++) {
    const line = [];
    for (const [name, site] of Object.entries(sites)) {
      const l = loads[name];
      l.page.push(await slowLoad(browser, `${site.page}/`, { ids: PAGE_IDS }));
      l.pageFloor.push(await slowLoad(browser, floorUrls[name].page));
      l.embed.push(await slowLoad(browser, `${site.embed}/example.html`, { ids: EMBED_IDS }));
      l.embedFloor.push(await slowLoad(browser, floorUrls[name].embed));
      const p = l.page.at(-1);
      line.push(`${name}: first ${fmt(p.builtAt.validate)}, all ${fmt(Math.max(...PAGE_IDS.map((id) => p.builtAt[id] ?? NaN)))}, embed ${fmt(l.embed.at(-1).builtAt.write)} ms`);
    }
    log(`  slow 4G run ${run + 1}/${runs}: ${line.join('; ')}`);
  }
  for (const server of servers) server.close();
  rmSync(work, { recursive: true, force: true });

  const results = {};
  for (const [name, l] of Object.entries(loads)) {
    const all = l.page.map((p) => (PAGE_IDS.every((id) => id in p.builtAt) ? Math.max(...PAGE_IDS.map((id) => p.builtAt[id])) : null));
    const first = l.page.map((p) => p.builtAt.validate ?? null);
    const embedFirst = l.embed.map((p) => p.builtAt.write ?? null);
    const embedBoth = l.embed.map((p) => (EMBED_IDS.every((id) => id in p.builtAt) ? Math.max(...EMBED_IDS.map((id) => p.builtAt[id])) : null));
    const pageBytes = median(l.page.map((p) => p.bytes));
    const embedBytes = median(l.embed.map((p) => p.bytes));
    results[name] = {
      pageBytes,
      pageRequests: median(l.page.map((p) => p.requests)),
      pageFloorMs: floorMs(pageBytes),
      embedBytes,
      embedRequests: median(l.embed.map((p) => p.requests)),
      embedFloorMs: floorMs(embedBytes),
      all: { median: median(all), values: all },
      first: { median: median(first), values: first },
      fcp: { median: median(l.page.map((p) => p.fcp)), values: l.page.map((p) => p.fcp) },
      pageFloorLoad: { median: median(l.pageFloor.map((p) => p.readyAt)), values: l.pageFloor.map((p) => p.readyAt) },
      embedFirst: { median: median(embedFirst), values: embedFirst },
      embedBoth: { median: median(embedBoth), values: embedBoth },
      embedFloorLoad: { median: median(l.embedFloor.map((p) => p.readyAt)), values: l.embedFloor.map((p) => p.readyAt) },
      // Where the time went in the median load of the page: when each file had arrived.
      pageFiles: medianLoad(l.page, all).files.map((f) => ({ path: f.path, bytes: f.bytes, at: f.at })),
      embedFiles: medianLoad(l.embed, embedFirst).files.map((f) => ({ path: f.path, bytes: f.bytes, at: f.at })),
      errors: [...new Set([...l.page, ...l.embed].flatMap((p) => p.errors))],
    };
  }
  return results;
}

/** The load whose measure is the median (the lower middle one for an even count). */
function medianLoad(list, measures) {
  const order = measures.map((m, i) => [m ?? Infinity, i]).sort((a, b) => a[0] - b[0]);
  return list[order[(order.length - 1) >> 1][1]];
}

export function fmt(ms) {
  return ms === null || ms === undefined || Number.isNaN(ms) ? 'n/a' : ms.toFixed(0);
}

/** The measures of each variant as table rows: measure, the variant's median, the floor, the ratio, the goal, the verdict. */
export function slow4gRows(results) {
  const rows = [];
  for (const [name, r] of Object.entries(results)) {
    const allRatio = r.all.median / r.pageFloorMs;
    const firstRatio = r.first.median / r.pageFloorMs;
    rows.push(
      { variant: name, measure: 'every figure ready', ms: r.all.median, floor: r.pageFloorMs, ratio: allRatio, goal: `≤ ${GOALS.allVsFloor}× the floor`, met: r.all.median !== null && allRatio <= GOALS.allVsFloor },
      { variant: name, measure: 'the first figure interactive', ms: r.first.median, floor: r.pageFloorMs, ratio: firstRatio, goal: `≤ ${GOALS.firstVsFloor}× the floor`, met: r.first.median !== null && firstRatio <= GOALS.firstVsFloor },
      { variant: name, measure: 'an embedded figure interactive (dist/example.html)', ms: r.embedFirst.median, floor: r.embedFloorMs, ratio: r.embedFirst.median / r.embedFloorMs, goal: `≤ ${GOALS.embedMs} ms`, met: r.embedFirst.median !== null && r.embedFirst.median <= GOALS.embedMs },
    );
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (!existsSync(`${ROOT}dist/example.html`)) throw new Error('dist/ is missing: run ./build.sh dist first');
  const runs = Number(process.env.BENCH_RUNS ?? 7);
  const variants = { now: { www: `${ROOT}www`, dist: `${ROOT}dist` } };
  let baseline = null;
  if (process.env.BENCH_BASELINE) {
    baseline = stageBaseline(process.env.BENCH_BASELINE);
    variants[process.env.BENCH_BASELINE] = { www: `${baseline}/www`, dist: `${baseline}/dist` };
  }
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: LAUNCH_ARGS });
  console.log(`slow 4G: ${runs} cold loads of each, interleaved; load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const results = await slow4g(browser, variants, runs, console.log);
  await browser.close();
  if (baseline) rmSync(baseline, { recursive: true, force: true });
  for (const row of slow4gRows(results)) {
    console.log(`${row.variant.padEnd(7)} ${row.measure.padEnd(52)} ${fmt(row.ms).padStart(5)} ms  floor ${fmt(row.floor)} ms  ${row.ratio.toFixed(2)}x  (${row.goal}: ${row.met ? 'met' : 'MISSED'})`);
  }
  for (const [name, r] of Object.entries(results)) {
    console.log(`${name}: page ${r.pageBytes} B in ${r.pageRequests} requests, floor page measured ${fmt(r.pageFloorLoad.median)} ms; embed ${r.embedBytes} B in ${r.embedRequests} requests, floor page measured ${fmt(r.embedFloorLoad.median)} ms, both figures ${fmt(r.embedBoth.median)} ms; FCP ${fmt(r.fcp.median)} ms`);
    console.log(`  all: ${r.all.values.map(fmt).join(' ')}; first: ${r.first.values.map(fmt).join(' ')}; embed: ${r.embedFirst.values.map(fmt).join(' ')}`);
    if (r.errors.length) console.log(`  errors: ${r.errors.join(' | ')}`);
    if (process.env.BENCH_FILES) {
      for (const f of r.pageFiles) console.log(`    ${fmt(f.at).padStart(6)} ms ${String(f.bytes).padStart(7)} B ${f.path}`);
      for (const f of r.embedFiles) console.log(`    embed ${fmt(f.at).padStart(6)} ms ${String(f.bytes).padStart(7)} B ${f.path}`);
    }
  }
  console.log(`load average after ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
}
