// The loop figure's budgets (issue 12), measured alone: bytes it adds (gzip -9), its trace cost per step against
// validate/valid's in the same headless Chromium, and the step latency in the figure (click to the mark moved).
// Usage: node bench/loop.mjs [BASE_WWW]  (BASE_WWW: a www/ without the loop figure, for the byte difference)
import { readFileSync, existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { allFiguresReady, startBrowser } from '../tests/e2e/helpers.mjs';

const root = new URL('../www/', import.meta.url).pathname;
const base = process.argv[2];
// What a Chinese reader fetches that the loop figure touches (text-en.js is fetched only in English).
const FILES = ['loop.js', 'figure.js', 'page.js', 'state.js', 'replay.js', 'link.js', 'main.js', 'text-zh.js', 'lesson-zh.js', 'style.css', 'pkg/todo_trace_bg.wasm', 'pkg/todo_trace.js'];
const gz = (dir, file) => (existsSync(`${dir}/${file}`) ? gzipSync(readFileSync(`${dir}/${file}`), { level: 9 }).length : 0);
if (base) {
  let added = 0;
  for (const file of FILES) {
    const d = gz(root, file) - gz(base, file);
    added += d;
    console.log(`${file}: ${d >= 0 ? '+' : ''}${d} B gzip`);
  }
  console.log(`added by the loop figure: ${(added / 1000).toFixed(1)} KB gzip (budget 15 KB)`);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)];
const env = await startBrowser();
const page = await (await env.browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
await page.goto(`${env.origin}/?lang=en`);
await allFiguresReady(page);
const cost = await page.evaluate(async () => {
  const api = await import('./api.js');
  const perStep = (figure, scenario) => {
    const times = [];
    let steps = 0;
    // Batches of at least 20 ms: the page's clock ticks every 0.1 ms, coarser than one validate trace
    // (batches of 20 traces, under 1 ms, made its cost jump by a tenth from run to run).
    const t = performance.now();
    let each = 0;
    while (performance.now() - t < 20) each++, api.trace(figure, scenario, 'en');
    for (let i = 0; i < 31; i++) {
      const t0 = performance.now();
      for (let k = 0; k < each; k++) steps = api.trace(figure, scenario, 'en').steps.length;
      times.push((performance.now() - t0) / each);
    }
    times.sort((a, b) => a - b);
    return { ms: times[15], steps, us: (times[15] * 1000) / steps };
  };
  const loops = ['allow', 'deny', 'maintenance', 'budget', 'skip', 'claim', 'rejected', 'nag'];
  // Every case is warmed up for 3 s first, as bench/run.mjs does: timed cold, validate/valid ran partly on the
  // engine's baseline tiers (wasm's Liftoff, unoptimized glue) while the loop scenarios after it ran on optimized
  // code, which made its cost per step look higher and the loop's ratio lower (1.2-1.8x).
  for (const start = performance.now(); performance.now() - start < 3000; ) {
    api.trace('validate', 'valid', 'en');
    for (const id of loops) api.trace('loop', id, 'en');
  }
  const out = { 'validate/valid': perStep('validate', 'valid') };
  for (const id of loops) out[`loop/${id}`] = perStep('loop', id);
  return out;
});
const baseUs = cost['validate/valid'].us;
for (const [id, c] of Object.entries(cost)) console.log(`${id}: ${c.ms.toFixed(2)} ms for ${c.steps} steps = ${c.us.toFixed(1)} µs/step (${(c.us / baseUs).toFixed(2)}x validate/valid)`);

// Step latency: Step into through the whole allow run, timed from the click to the moved mark (render is synchronous).
const latencies = await page.evaluate(() => {
  // Each figure draws into the shadow root of its <todo-trace-figure>.
  const loop = /** @type {Element} */ ([...document.querySelectorAll('todo-trace-figure')].map((f) => f.shadowRoot?.querySelector('[data-figure="loop"]')).find(Boolean));
  const button = loop.querySelector('[data-action="step-into"]');
  const times = [];
  for (let i = 0; i < 300; i++) {
    const before = loop.querySelector('[aria-current="step"]');
    const t0 = performance.now();
    button.click();
    const after = loop.querySelector('[aria-current="step"]');
    times.push(performance.now() - t0);
    if (after === before && loop.querySelector('[data-status]').dataset.status === 'done') break;
  }
  return times;
});
console.log(`loop figure step latency over ${latencies.length} steps: median ${median(latencies).toFixed(2)} ms, p95 ${p95(latencies).toFixed(2)} ms (budget 16 ms)`);
await env.close();
