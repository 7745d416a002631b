// Lighthouse in its default mobile mode (simulated slow 4G, 4x CPU slowdown) on the served page: scores, metrics and what lies behind them.
// Usage alone: node bench/lighthouse.mjs [RUNS] (serves www/ itself; LIGHTHOUSE_BASELINE=REV runs REV's page too,
// interleaved); ./build.sh bench calls lighthouseRuns().
import lighthouse from 'lighthouse';
import * as chromeLauncher from 'chrome-launcher';
import { startServer } from '../serve.mjs';

export const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'];

/** The metrics the performance score is made of (Lighthouse 12's weights: 10, 25, 30, 25, 10 %). */
export const METRICS = [
  { id: 'first-contentful-paint', name: 'First Contentful Paint', unit: 'ms' },
  { id: 'largest-contentful-paint', name: 'Largest Contentful Paint', unit: 'ms' },
  { id: 'total-blocking-time', name: 'Total Blocking Time', unit: 'ms' },
  { id: 'cumulative-layout-shift', name: 'Cumulative Layout Shift', unit: '' },
  { id: 'speed-index', name: 'Speed Index', unit: 'ms' },
];

function median(values) {
  const sorted = values.filter((v) => v !== null && v !== undefined).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The LCP element's selector and text, as Lighthouse's "largest-contentful-paint-element" audit names it. */
function lcpElement(lhr) {
  const table = lhr.audits['largest-contentful-paint-element']?.details?.items?.[0];
  const node = table?.items?.[0]?.node;
  const phases = lhr.audits['largest-contentful-paint-element']?.details?.items?.[1]?.items ?? [];
  return node
    ? {
        selector: node.selector ?? null,
        snippet: node.snippet ?? null,
        text: node.nodeLabel ?? null,
        phases: phases.map((p) => ({ phase: p.phase, ms: Math.round(p.timing) })),
      }
    : null;
}

/**
 * The requests that had ended before the largest paint Lighthouse saw (unthrottled): its pessimistic estimate of the
 * simulated LCP takes every one of them as holding that paint up. With the observed FCP and LCP.
 */
function beforeLcp(lhr) {
  const observed = lhr.audits.metrics?.details?.items?.[0] ?? {};
  const requests = lhr.audits['network-requests']?.details?.items ?? [];
  const lcp = observed.observedLargestContentfulPaint ?? null;
  return {
    observedFcpMs: observed.observedFirstContentfulPaint ?? null,
    observedLcpMs: lcp,
    requests: lcp === null ? [] : requests.filter((r) => r.networkEndTime <= lcp).map((r) => new URL(r.url).pathname),
  };
}

/** The main-thread tasks over 50 ms (Lighthouse's "long-tasks" audit), as simulated with the 4x slowdown. */
function longTasks(lhr) {
  return (lhr.audits['long-tasks']?.details?.items ?? []).map((t) => ({
    url: t.url,
    startMs: Math.round(t.startTime),
    durationMs: Math.round(t.duration),
  }));
}

/** Every audit that costs points: scored below 1 and not merely informative. */
function failing(lhr) {
  const shown = [];
  for (const category of CATEGORIES) {
    for (const ref of lhr.categories[category]?.auditRefs ?? []) {
      const audit = lhr.audits[ref.id];
      if (ref.weight > 0 && audit.score !== null && audit.score < 1) {
        shown.push({ category, id: ref.id, title: audit.title, score: audit.score, value: audit.displayValue ?? '' });
      }
    }
  }
  return shown;
}

/** The opportunities and diagnostics Lighthouse flags in the performance category (they cost no points by themselves). */
function flagged(lhr) {
  return (lhr.categories.performance?.auditRefs ?? [])
    .filter((ref) => ref.weight === 0)
    .map((ref) => lhr.audits[ref.id])
    .filter((audit) => audit.score !== null && audit.score < 0.9 && audit.scoreDisplayMode !== 'informative' && audit.scoreDisplayMode !== 'notApplicable')
    .map((audit) => ({ id: audit.id, title: audit.title, value: audit.displayValue ?? '' }));
}

/** One Lighthouse run in a Chromium of its own (so an empty profile and cache); the compact result. */
async function runOnce(url) {
  const chrome = await chromeLauncher.launch({
    chromePath: '/usr/bin/chromium',
    chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu'],
    logLevel: 'silent',
  });
  try {
    const result = await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: CATEGORIES });
    const lhr = result.lhr;
    return {
      lighthouse: lhr.lighthouseVersion,
      userAgent: lhr.environment?.hostUserAgent ?? null,
      benchmarkIndex: lhr.environment?.benchmarkIndex ?? null,
      throttling: lhr.configSettings.throttling,
      formFactor: lhr.configSettings.formFactor,
      throttlingMethod: lhr.configSettings.throttlingMethod,
      runtimeError: lhr.runtimeError?.message ?? null,
      warnings: lhr.runWarnings ?? [],
      scores: Object.fromEntries(CATEGORIES.map((c) => [c, lhr.categories[c]?.score === null ? null : Math.round(lhr.categories[c].score * 100)])),
      metrics: Object.fromEntries(METRICS.map((m) => [m.id, lhr.audits[m.id]?.numericValue ?? null])),
      metricScores: Object.fromEntries(METRICS.map((m) => [m.id, lhr.audits[m.id]?.score ?? null])),
      lcpElement: lcpElement(lhr),
      beforeLcp: beforeLcp(lhr),
      longTasks: longTasks(lhr),
      failing: failing(lhr),
      flagged: flagged(lhr),
    };
  } finally {
    await chrome.kill();
  }
}

/** `runs` Lighthouse runs of `url`, one after another; each score and metric is the median over the runs. */
export async function lighthouseRuns(url, runs = 3, log = () => {}) {
  const all = [];
  for (let i = 0; i < runs; i++) {
    try {
      all.push(await runOnce(url));
      const last = all.at(-1);
      log(`  lighthouse ${i + 1}/${runs}: ${CATEGORIES.map((c) => last.scores[c]).join(', ')}; ` +
        `LCP ${Math.round(last.metrics['largest-contentful-paint'])} ms, TBT ${Math.round(last.metrics['total-blocking-time'])} ms`);
    } catch (error) {
      all.push({ runtimeError: error.message.split('\n')[0] });
      log(`  lighthouse ${i + 1}/${runs} failed: ${all.at(-1).runtimeError}`);
    }
  }
  const done = all.filter((r) => r.scores);
  return {
    runs: all,
    version: done[0]?.lighthouse ?? null,
    settings: done[0] ? { formFactor: done[0].formFactor, throttlingMethod: done[0].throttlingMethod, throttling: done[0].throttling } : null,
    scores: Object.fromEntries(CATEGORIES.map((c) => [c, median(done.map((r) => r.scores[c]))])),
    metrics: Object.fromEntries(METRICS.map((m) => [m.id, median(done.map((r) => r.metrics[m.id]))])),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const runs = Number(process.argv[2] ?? 3);
  const sites = { now: new URL('../www', import.meta.url).pathname };
  // LIGHTHOUSE_BASELINE=REV: REV's www/ too (staged as slow4g.mjs stages it, with this build's modules), one run of
  // each in turn, so that both meet the same load on the machine.
  const rev = process.env.LIGHTHOUSE_BASELINE;
  const { stageBaseline } = rev ? await import('./slow4g.mjs') : {};
  const baseline = rev ? stageBaseline(rev) : null;
  if (baseline) sites[rev] = `${baseline}/www`;
  const urls = {};
  const servers = [];
  for (const [name, dir] of Object.entries(sites)) {
    const server = await startServer(dir, 0);
    servers.push(server);
    urls[name] = `http://127.0.0.1:${server.address().port}/`;
  }
  const os = await import('node:os');
  const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');
  console.error(`lighthouse: ${runs} runs of ${Object.keys(sites).join(' and ')}, interleaved; load average ${load()}`);
  const all = Object.fromEntries(Object.keys(sites).map((name) => [name, []]));
  for (let i = 0; i < runs; i++) {
    for (const [name, url] of Object.entries(urls)) {
      const one = await lighthouseRuns(url, 1, (line) => console.error(`${name}:${line.replace('1/1', `${i + 1}/${runs}`)}`));
      all[name].push(...one.runs);
    }
  }
  for (const server of servers) server.close();
  if (baseline) (await import('node:fs')).rmSync(baseline, { recursive: true, force: true });
  console.error(`load average after ${load()}`);
  const result = {};
  for (const [name, list] of Object.entries(all)) {
    const done = list.filter((r) => r.scores);
    result[name] = {
      runs: list,
      version: done[0]?.lighthouse ?? null,
      settings: done[0] ? { formFactor: done[0].formFactor, throttlingMethod: done[0].throttlingMethod, throttling: done[0].throttling } : null,
      scores: Object.fromEntries(CATEGORIES.map((c) => [c, median(done.map((r) => r.scores[c]))])),
      metrics: Object.fromEntries(METRICS.map((m) => [m.id, median(done.map((r) => r.metrics[m.id]))])),
    };
    console.error(`${name}: median ${CATEGORIES.map((c) => `${c} ${result[name].scores[c]}`).join(', ')}; ` +
      METRICS.map((m) => `${m.id} ${Math.round(result[name].metrics[m.id] * (m.unit ? 1 : 1000)) / (m.unit ? 1 : 1000)}`).join(', '));
  }
  console.log(JSON.stringify(rev ? result : result.now, null, 2));
}
