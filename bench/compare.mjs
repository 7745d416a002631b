// The loop figure's "What if…" (issue 29) in the benchmark: the time from the click that chooses a change until the comparison is shown, and the step latency in the compare view.
//
// Both are measured in the page, from the click event's own time stamp: a capturing listener notes it, a
// MutationObserver notes when the view changed (the pane shown, or a row marked as the current one), and the next
// frame's callback, after reading the layout, notes when it was laid out. Budgets: opening ≤ 100 ms after the click,
// step latency p95 ≤ 16 ms.

export const COMPARE_BUDGETS = { openMs: 100, stepP95Ms: 16 };

/** Installed in the page: times each click inside the loop figure until the compare view changed and was laid out. */
function probe() {
  const host = document.querySelector('todo-trace-figure[figure="loop"]');
  const root = host.shadowRoot;
  const samples = [];
  let pending = null;
  root.addEventListener('click', (event) => {
    pending = { at: event.timeStamp, target: event.target.dataset?.action ?? event.target.dataset?.change ?? '' };
  }, true);
  new MutationObserver(() => {
    if (!pending) return;
    const click = pending;
    pending = null;
    const marked = performance.now() - click.at;
    requestAnimationFrame(() => {
      root.querySelector('[data-pane="compare"]').getBoundingClientRect();
      samples.push({ what: click.target, marked, laidOut: performance.now() - click.at });
    });
  }).observe(root, { subtree: true, attributes: true, attributeFilter: ['hidden', 'aria-current'] });
  window.__compare = { samples };
}

function percentile(values, p) {
  const sorted = values.filter((v) => v !== null).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const stats = (list, key) => ({ p50: percentile(list.map((s) => s[key]), 50), p95: percentile(list.map((s) => s[key]), 95), max: percentile(list.map((s) => s[key]), 100) });

/**
 * Opens the lesson at `url` (the loop figure in `lang`), opens comparisons `opens` times (deny, a budget of 4, the
 * maintenance rule, in turn) and steps the compare view `steps` times. Returns the times, or `{problem}`.
 */
export async function compareLatency(browser, url, { lang = 'zh', opens = 21, steps = 300 } = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  try {
    await page.goto(`${url}?lang=${lang}`);
    await page.waitForFunction(() => document.querySelector('todo-trace-figure[figure="loop"]')?.shadowRoot?.querySelector('[data-status]'));
    const loop = page.locator('[data-figure="loop"]');
    await loop.scrollIntoViewIfNeeded();
    await page.evaluate(probe);
    const count = () => page.evaluate(() => window.__compare.samples.length);
    const wait = (n) => page.waitForFunction((n) => window.__compare.samples.length > n, n);
    const changes = ['deny', 'budget-4', 'maintenance-on'];
    for (let i = 0; i < opens; i++) {
      await loop.locator('[data-action="what-if"]').click();
      const change = changes[i % changes.length];
      const before = await count();
      if (change.startsWith('budget-')) {
        await loop.locator('select[data-control="budget"]').selectOption(change.slice(7));
        await loop.locator('[data-action="what-if-budget"]').click();
      } else {
        await loop.locator(`[data-change="${change}"]`).click();
      }
      await wait(before);
      if (i < opens - 1) {
        const closing = await count();
        await loop.locator('[data-action="compare-close"]').click();
        await wait(closing);
      }
    }
    const opened = (await page.evaluate(() => window.__compare.samples.splice(0))).filter((s) => s.what !== 'compare-close' && s.what !== 'what-if'); // the offer shown, or the view closed: not an opening
    // Stepping: both runs forward to the end and back, then one side alone, over and over.
    const moves = [...Array(8).fill('compare-next'), ...Array(8).fill('compare-back'), ...Array(5).fill('side-next'), ...Array(5).fill('side-back')];
    for (let i = 0; (await count()) < steps && i < steps * 3; i++) {
      const action = moves[i % moves.length];
      const target = action.startsWith('side') ? loop.locator(`[data-side="changed"] [data-action="${action}"]`) : loop.locator(`[data-action="${action}"]`);
      const before = await count();
      await target.click();
      // A click at the first or last row moves nothing: it is not a step, and not timed.
      await page.waitForFunction((n) => window.__compare.samples.length > n, before, { timeout: 200 }).catch(() => {});
    }
    const stepped = await page.evaluate(() => window.__compare.samples.splice(0));
    return { lang, opens: opened.length, open: { marked: stats(opened, 'marked'), laidOut: stats(opened, 'laidOut') }, steps: stepped.length, step: { marked: stats(stepped, 'marked'), laidOut: stats(stepped, 'laidOut') } };
  } catch (error) {
    return { problem: error.message.split('\n')[0] };
  } finally {
    await context.close();
  }
}

const ms = (v) => (v === null || v === undefined ? 'n/a' : `${v.toFixed(1)} ms`);

/** The budget rows of issue 29, in the shape of report.mjs's budgets. */
export function compareBudgets(c) {
  if (!c || c.problem) return [{ name: 'What if: opening a comparison', target: `≤ ${COMPARE_BUDGETS.openMs} ms`, measured: c?.problem ?? 'not measured', met: null }];
  return [
    { name: 'What if: opening a comparison, click → shown and laid out (p95)', target: `≤ ${COMPARE_BUDGETS.openMs} ms`, measured: `${ms(c.open.laidOut.p95)} over ${c.opens} opens (median ${ms(c.open.laidOut.p50)})`, met: c.open.laidOut.p95 <= COMPARE_BUDGETS.openMs },
    { name: 'What if: step latency p95 in the compare view, click → the row marked', target: `≤ ${COMPARE_BUDGETS.stepP95Ms} ms`, measured: `${ms(c.step.marked.p95)} over ${c.steps} steps (until laid out: ${ms(c.step.laidOut.p95)})`, met: c.step.marked.p95 <= COMPARE_BUDGETS.stepP95Ms },
  ];
}

/** A dated section of bench/report.md for these measurements. */
export function compareSection(c, date, load) {
  const rows = compareBudgets(c).map((b) => `| ${b.name} | ${b.target} | ${b.measured} | ${b.met === null ? 'not measured' : b.met ? 'met' : '**missed**'} |`);
  const detail = c && !c.problem
    ? [
      '',
      '| measure | p50 | p95 | max |',
      '| --- | --- | --- | --- |',
      `| opening: click → pane shown (in the click's task) | ${ms(c.open.marked.p50)} | ${ms(c.open.marked.p95)} | ${ms(c.open.marked.max)} |`,
      `| opening: click → laid out (next frame) | ${ms(c.open.laidOut.p50)} | ${ms(c.open.laidOut.p95)} | ${ms(c.open.laidOut.max)} |`,
      `| step: click → row marked | ${ms(c.step.marked.p50)} | ${ms(c.step.marked.p95)} | ${ms(c.step.marked.max)} |`,
      `| step: click → laid out (next frame) | ${ms(c.step.laidOut.p50)} | ${ms(c.step.laidOut.p95)} | ${ms(c.step.laidOut.max)} |`,
    ]
    : [];
  return [
    `## What if (issue 29), measured ${date}`,
    '',
    `The loop figure in headless Chromium at 1280×800, language ${c?.lang ?? 'zh'}; load average ${load}. Opening: the click on a change ` +
      '(deny, a budget of 4, the maintenance rule, in turn) until the compare view is shown, then laid out in the next frame; both runs are ' +
      'traced and compared in Rust inside that click. Stepping: the compare view\'s "Next call" and "Previous call", for both runs and for one ' +
      'alone (bench/compare.mjs). Times from the click event\'s time stamp.',
    '',
    '| budget | target | measured | verdict |',
    '| --- | --- | --- | --- |',
    ...rows,
    ...detail,
  ].join('\n');
}
