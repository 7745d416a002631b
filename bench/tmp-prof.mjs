// temp: a CPU profile of the long run's trace in Chromium (deleted after)
import { readFileSync } from 'node:fs';
import { startBrowser, allFiguresReady } from '../tests/e2e/helpers.mjs';
const env = await startBrowser();
const context = await env.browser.newContext();
const page = await context.newPage();
await page.goto(`${env.origin}/?lang=en`);
await allFiguresReady(page);
const text = readFileSync('/tmp/long-run.json', 'utf8');
await page.evaluate(async (text) => { window.__t = text; const api = await import('./api.js'); for (let i = 0; i < 20; i++) api.traceRun(text, 'en'); }, text);
const cdp = await context.newCDPSession(page);
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 50 });
await cdp.send('Profiler.start');
await page.evaluate(async () => { const api = await import('./api.js'); for (let i = 0; i < 40; i++) api.traceRun(window.__t, 'en'); });
const { profile } = await cdp.send('Profiler.stop');
const self = new Map();
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const counts = new Map();
for (const s of profile.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
let total = 0;
for (const [id, c] of counts) { const n = byId.get(id); const name = n.callFrame.functionName || `(${n.callFrame.url.split('/').pop()})`; self.set(name, (self.get(name) ?? 0) + c); total += c; }
const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[2] ?? 40));
for (const [name, c] of top) console.log((100 * c / total).toFixed(1).padStart(5), name.slice(0, 150));
await env.close();
