// temp: where the long run's trace time goes in Chromium (deleted after)
import { readFileSync } from 'node:fs';
import { startBrowser, allFiguresReady } from '../tests/e2e/helpers.mjs';
const env = await startBrowser();
const page = await (await env.browser.newContext()).newPage();
await page.goto(`${env.origin}/?lang=en`);
await allFiguresReady(page);
const text = readFileSync(process.argv[2] ?? '/tmp/long-run.json', 'utf8');
const r = await page.evaluate(async (text) => {
  const glue = await import('./pkg/todo_trace.js');
  const api = await import('./api.js');
  const med = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
  for (let i = 0; i < 30; i++) api.traceRun(text, 'en');
  const call = [], parse = [], whole = [], valid = [], vcall = [];
  for (let i = 0; i < 21; i++) {
    let t = performance.now();
    const json = glue.traceRunJson(text, 'en');
    call.push(performance.now() - t);
    t = performance.now();
    JSON.parse(json);
    parse.push(performance.now() - t);
    t = performance.now();
    api.traceRun(text, 'en');
    whole.push(performance.now() - t);
    t = performance.now();
    for (let k = 0; k < 200; k++) api.trace('validate', 'valid', 'en');
    valid.push((performance.now() - t) / 200);
    t = performance.now();
    for (let k = 0; k < 200; k++) glue.traceJson('validate', 'valid', 'en');
    vcall.push((performance.now() - t) / 200);
  }
  return { call: med(call), parse: med(parse), whole: med(whole), valid: med(valid), validCall: med(vcall), len: glue.traceRunJson(text, 'en').length };
}, text);
console.log(r);
await env.close();
