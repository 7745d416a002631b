// The main thread's tasks while the lesson page loads, from a Chromium trace, on a phone-sized window at Lighthouse's
// 4x CPU slowdown: how long each is and what it spent its time on. Lighthouse's Total Blocking Time counts only the
// part of each task above 50 ms (simulated at 4x), so this names the tasks behind it, which Lighthouse's report does not.
//
// Usage: node bench/tasks.mjs [RUNS] [DIR] (serves DIR, by default www/; TASKS_CPU=1 for no slowdown, TASKS_SAVE=FILE
// keeps the last run's trace, TASKS_INVALIDATIONS=1 records what invalidated style and layout in it).
// Prints, per run, every task over 50 ms with its parts, its thread time and what posted it, and the medians of each
// run's longest task and of its time over 50 ms. A task's wall time holds the time the thread waited for the CPU too:
// on a busy machine, compare thread times.
import { chromium } from 'playwright-core';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { startServer } from '../serve.mjs';
import { LAUNCH_ARGS } from './slow4g.mjs';

const ROOT = new URL('..', import.meta.url).pathname;
/** Lighthouse 12's mobile screen (a Moto G Power) and its CPU slowdown. */
const SCREEN = { width: 412, height: 823 };
const CPU = Number(process.env.TASKS_CPU ?? 4);
const LONG_MS = 50;
const PAGE_IDS = ['validate', 'write', 'prepare', 'loop'];

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Trace event names folded into a few kinds of work, as DevTools' summary does. */
function kindOf(/** @type {string} */ name) {
  if (/^(Layout|UpdateLayoutTree|RecalculateStyles|ScheduleStyleRecalculation|InvalidateLayout|LayoutShift|IntersectionObserverController::computeIntersections)$/.test(name)) return name === 'UpdateLayoutTree' || name === 'RecalculateStyles' ? 'style' : 'layout';
  if (/^(Paint|PaintImage|PrePaint|Layerize|UpdateLayer|UpdateLayerTree|CompositeLayers|Commit|RasterTask)$/.test(name)) return 'paint';
  if (/^(FunctionCall|EvaluateScript|v8\.run|v8\.callFunction|TimerFire|FireAnimationFrame|EventDispatch|RunMicrotasks|V8\.Execute|v8\.evaluateModule|ParseHTML)$/.test(name)) return 'script';
  if (/^(v8\.compile|v8\.compileModule|V8\.CompileCode|v8\.parseOnBackground|wasm\.|v8\.wasm)/.test(name)) return 'compile';
  if (/^(MajorGC|MinorGC|V8\.GC|BlinkGC)/.test(name)) return 'gc';
  return null;
}

/** The renderer's main-thread tasks in `events`, each with its time by kind (the innermost known kind owns a span). */
function tasksOf(/** @type {any[]} */ events) {
  const main = events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  if (!main) throw new Error('no renderer main thread in the trace');
  const on = events.filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && typeof e.dur === 'number');
  const tasks = on.filter((e) => e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask').sort((a, b) => a.ts - b.ts);
  // Only the outermost tasks (a nested run loop has tasks inside a task).
  const outer = [];
  for (const task of tasks) if (!outer.length || task.ts >= outer.at(-1).ts + outer.at(-1).dur) outer.push(task);
  const inner = on.filter((e) => kindOf(e.name)).sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const origin = events.find((e) => e.name === 'navigationStart' && e.pid === main.pid)?.ts ?? outer[0]?.ts ?? 0;
  // Chromium names the code that posted each task (ThreadControllerImpl::RunTask's src_func): an autofill or a timer.
  const posted = on.filter((e) => e.name === 'ThreadControllerImpl::RunTask' && e.args?.src_func);
  return outer.map((task) => {
    const end = task.ts + task.dur;
    const by = posted.find((e) => e.ts >= task.ts && e.ts + e.dur <= end)?.args.src_func ?? null;
    const within = inner.filter((e) => e.ts >= task.ts && e.ts + e.dur <= end);
    // Self time by kind: each event's span minus its children's (a stack over the sorted events).
    const parts = {};
    const stack = [];
    const close = (upTo) => {
      while (stack.length && stack.at(-1).end <= upTo) {
        const done = stack.pop();
        parts[done.kind] = (parts[done.kind] ?? 0) + done.self;
      }
    };
    for (const e of within) {
      close(e.ts);
      if (stack.length) stack.at(-1).self -= e.dur;
      stack.push({ kind: kindOf(e.name), end: e.ts + e.dur, self: e.dur });
    }
    close(Infinity);
    const known = Object.values(parts).reduce((a, b) => a + b, 0);
    parts.other = task.dur - known;
    const ms = (us) => Math.round(us / 100) / 10;
    return {
      startMs: ms(task.ts - origin),
      by,
      ms: ms(task.dur),
      // The thread's own CPU time: under the slowdown and two other engineers' compiles, the wall time also holds
      // the time the thread was not running at all.
      cpuMs: ms(task.tdur ?? 0),
      parts: Object.fromEntries(Object.entries(parts).filter(([, us]) => us >= 500).sort((a, b) => b[1] - a[1]).map(([k, us]) => [k, ms(us)])),
    };
  });
}

/** One cold load of `url` in a phone-sized window at CPU× slowdown, traced until every figure is built and a second has passed. */
async function tracedLoad(browser, url) {
  const context = await browser.newContext({ viewport: SCREEN, deviceScaleFactor: 1.75, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  await page.addInitScript({ path: `${ROOT}bench/probe.js` });
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU });
  await browser.startTracing(page, { categories: [...(process.env.TASKS_INVALIDATIONS ? ['disabled-by-default-devtools.timeline.invalidationTracking'] : []), 'devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'blink.user_timing', 'loading', 'toplevel'] });
  await page.goto(url, { waitUntil: 'commit' });
  await page.waitForFunction((ids) => ids.every((id) => id in (window.__bench?.builtAt ?? {})), PAGE_IDS, { timeout: 120_000, polling: 100 });
  await page.waitForTimeout(1000 * CPU); // what follows the last build (its layout, the listings' colours) is in the trace
  const buffer = await browser.stopTracing();
  const builtAt = await page.evaluate(() => window.__bench.builtAt);
  await context.close();
  if (process.env.TASKS_SAVE) writeFileSync(process.env.TASKS_SAVE, buffer);
  const { traceEvents } = JSON.parse(buffer.toString());
  return { tasks: tasksOf(traceEvents), builtAt };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const runs = Number(process.argv[2] ?? 5);
  const server = await startServer(process.argv[3] ?? `${ROOT}www`, 0);
  const url = `http://127.0.0.1:${server.address().port}/`;
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: LAUNCH_ARGS });
  console.log(`tasks at ${CPU}x CPU, ${SCREEN.width}x${SCREEN.height}: ${runs} cold loads of ${url}; load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const longest = [];
  const blocking = [];
  const over = [];
  for (let run = 0; run < runs; run++) {
    const { tasks, builtAt } = await tracedLoad(browser, url);
    const long = tasks.filter((t) => t.ms > LONG_MS);
    longest.push(Math.max(...tasks.map((t) => t.ms)));
    blocking.push(long.reduce((sum, t) => sum + t.ms - LONG_MS, 0));
    over.push(long.length);
    console.log(`run ${run + 1}: built ${PAGE_IDS.map((id) => `${id} ${Math.round(builtAt[id])}`).join(', ')} ms; ${long.length} tasks over ${LONG_MS} ms`);
    for (const t of long) console.log(`  at ${t.startMs} ms: ${t.ms} ms (thread ${t.cpuMs} ms)  ${Object.entries(t.parts).map(([k, v]) => `${k} ${v}`).join(', ')}  [${t.by ?? '?'}]`);
  }
  await browser.close();
  server.close();
  console.log(`median over ${runs}: longest task ${median(longest).toFixed(1)} ms, tasks over ${LONG_MS} ms ${median(over)}, ` +
    `their time over ${LONG_MS} ms ${median(blocking).toFixed(1)} ms (the whole load, not only after the first paint as TBT)`);
  console.log(`load average after ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
}
