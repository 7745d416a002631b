// End-to-end: the loop figure walks every scenario of LOOP.md's table to its end, in both languages, on a phone and a desktop, and pauses on the host's decisions.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { act, axeProblems, figure, lineOf, openLesson, PHONE, search, startBrowser, where } from './helpers.mjs';

let env;
before(async () => {
  env = await startBrowser();
});
after(() => env.close());

// LOOP.md's table: stop, calls, plan updates accepted and refused, reads, runs, the final plan.
const TABLE = {
  allow: ['answered', 8, 4, 0, 2, 1, 'CCC'],
  deny: ['answered', 7, 3, 0, 2, 0, 'CCP'],
  maintenance: ['answered', 7, 3, 0, 2, 0, 'CCP'],
  budget: ['call_limit', 4, 2, 0, 2, 0, 'CIP'],
  skip: ['answered', 5, 2, 0, 1, 1, 'CPP'],
  claim: ['answered', 3, 2, 0, 0, 0, 'CCC'],
  rejected: ['answered', 9, 4, 1, 2, 1, 'CCC'],
  nag: ['answered', 6, 2, 0, 2, 1, 'CCC'],
};
const LETTER = { pending: 'P', in_progress: 'I', completed: 'C' };

/** What the loop figure's panes show at the end of a run, read from the DOM. */
function ending(page) {
  return figure(page, 'loop').evaluate((root) => {
    const stop = root.querySelector('[data-pane="evidence"] [data-stop]');
    const events = [...root.querySelectorAll('.ticks.events .tick')].flatMap((tick) => tick.dataset.event.split(' '));
    const calls = [...root.querySelectorAll('[data-pane="conversation"] .block.call code')].map((code) => code.textContent);
    return {
      stop: stop?.dataset.stop,
      calls: Number(stop?.dataset.calls),
      accepted: events.filter((e) => e === 'plan-written').length,
      refused: events.filter((e) => e === 'plan-refused').length,
      // A read that succeeded: a result that is not an error, answering a read_file call.
      reads: calls.filter((c) => c.startsWith('read_file')).length,
      errors: root.querySelectorAll('[data-pane="conversation"] [data-error="true"]').length,
      runs: root.querySelectorAll('[data-pane="conversation"] [data-recorded="run_main"]').length,
      plan: [...root.querySelectorAll('[data-pane="plan"] li[data-item-status]')].map((li) => li.dataset.itemStatus),
      claims: [...root.querySelectorAll('[data-pane="evidence"] tr[data-item]')].map((tr) => ({ ...tr.dataset })),
      replies: root.querySelectorAll('[data-pane="conversation"] li.assistant').length,
    };
  });
}

for (const [lang, device, options] of [['en', 'desktop', {}], ['zh', 'phone', PHONE], ['zh', 'desktop', {}], ['en', 'phone', PHONE]]) {
  // bypassCSP: axe arrives as an injected inline script (see axeProblems).
  describe(`the loop figure, ${lang}, ${device}`, () => {
    test('every scenario runs to its end as LOOP.md says, and the page is axe clean', async () => {
      const page = await openLesson(env, `?lang=${lang}`, { ...options, bypassCSP: true });
      const loop = figure(page, 'loop');
      await loop.scrollIntoViewIfNeeded();
      for (const [id, [stop, calls, accepted, refused, reads, runs, plan]] of Object.entries(TABLE)) {
        await loop.locator('select[data-control="scenario"]').selectOption(id);
        await act(page, 'loop', 'run');
        await figure(page, 'loop').locator('[data-status="done"]').waitFor();
        const seen = await ending(page);
        assert.deepEqual(
          [seen.stop, seen.calls, seen.accepted, seen.refused, seen.runs, seen.plan.map((s) => LETTER[s]).join('')],
          [stop, calls, accepted, refused, runs, plan],
          `${id}: ${JSON.stringify(seen)}`,
        );
        assert.equal(seen.replies, calls, `${id}: one assistant reply per model call`);
        // Reads asked for; in this workspace every read succeeds.
        assert.equal(seen.reads, reads, id);
        const gaps = seen.claims.filter((c) => c.gap === 'true').length;
        assert.equal(gaps, id === 'claim' ? 3 : 0, id);
        if (id === 'allow') assert.ok(seen.claims.every((c) => c.backed === 'true'), 'in allow every claim is backed');
        // skip: expected.txt never read; main.py ran, but item 3 is pending, so it backs no claim.
        if (id === 'skip') assert.deepEqual(seen.claims.map((c) => [c.backed, c.evidence]), [['true', 'true'], ['false', 'false'], ['false', 'true']], 'skip');
        if (id === 'deny' || id === 'maintenance') assert.equal(seen.errors, 1, `${id}: the refused run is an error result`);
      }
      assert.deepEqual(await axeProblems(page), []);
      assert.deepEqual(page.errors, []);
      await page.context().close();
    });
  });
}

describe('event breakpoints', () => {
  test('Continue stops at the next checked decision; the choice persists across scenarios and in the URL', async () => {
    const page = await openLesson(env, '?lang=en&loop=deny');
    const loop = figure(page, 'loop');
    await loop.locator('input[data-break-on="ask"]').check();
    await act(page, 'loop', 'debug');
    let now = await where(page, 'loop');
    assert.equal(now.status, 'paused');
    assert.equal(now.symbol, 'execute_with_plan', 'paused right after the host asked, inside execute_with_plan');
    await loop.locator('input[data-break-on="refused"]').check();
    await act(page, 'loop', 'continue');
    const refusedAt = await where(page, 'loop');
    assert.ok(refusedAt.step > now.step);
    await page.waitForFunction(() => new URLSearchParams(location.search).getAll('loop.on').sort().join() === 'ask,refused');

    // The plan pane tells a refused update from an accepted one.
    await loop.locator('select[data-control="scenario"]').selectOption('rejected');
    assert.ok(await loop.locator('input[data-break-on="ask"]').isChecked(), 'kept across a scenario switch');
    await loop.locator('input[data-break-on="ask"]').uncheck();
    await loop.locator('input[data-break-on="refused"]').uncheck();
    await loop.locator('input[data-break-on="plan-refused"]').check();
    await act(page, 'loop', 'debug');
    await figure(page, 'loop').locator('[data-pane="plan"] [data-update="refused"]').waitFor();
    const statuses = await loop.locator('[data-pane="plan"] li[data-item-status]').evaluateAll((lis) => lis.map((li) => li.dataset.itemStatus));
    assert.deepEqual(statuses, ['in_progress', 'pending', 'pending'], 'the plan is unchanged: I P P');

    // The request pane: only the first prepared message differs from the stored history.
    assert.equal(await loop.locator('[data-pane="request"] [data-differs]').count(), 1);
    const first = await loop.locator('[data-pane="request"] li').first().getAttribute('data-differs');
    assert.equal(first, 'true');

    // A reload opens with the same event breakpoints checked.
    const query = await search(page);
    const again = await openLesson(env, query);
    assert.ok(await figure(again, 'loop').locator('input[data-break-on="plan-refused"]').isChecked());
    assert.ok(!(await figure(again, 'loop').locator('input[data-break-on="ask"]').isChecked()));
    await again.context().close();

    // nag: exactly one reminder mark; budget: the last mark is the call limit.
    await loop.locator('select[data-control="scenario"]').selectOption('nag');
    const nagMarks = await loop.locator('.ticks.events .tick').evaluateAll((ticks) => ticks.map((t) => t.dataset.event));
    assert.equal(nagMarks.filter((e) => e.includes('reminder')).length, 1);
    await loop.locator('select[data-control="scenario"]').selectOption('budget');
    const budgetMarks = await loop.locator('.ticks.events .tick').evaluateAll((ticks) => ticks.map((t) => t.dataset.event));
    assert.equal(budgetMarks.at(-1), 'call-limit');
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });

  test('a link opens the loop figure at its end, with the claims beside the evidence', async () => {
    const page = await openLesson(env, '?lang=en&loop=skip&loop.step=end');
    assert.equal((await where(page, 'loop')).status, 'done');
    const seen = await ending(page);
    assert.deepEqual(seen.claims.map((c) => [c.item, c.completed, c.backed]), [['1', 'true', 'true'], ['2', 'false', 'false'], ['3', 'false', 'false']]);
    assert.equal(await figure(page, 'loop').locator('[data-pane="conversation"] li.new').count(), 0, 'nothing is new after the end');
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });

  test('Step into goes down into execute_with_plan and write_todos, Step out comes back', async () => {
    const page = await openLesson(env, '?lang=en');
    const loop = figure(page, 'loop');
    const line = await lineOf(page, 'loop', 'execute_with_plan(call, &mut state, tools)');
    await loop.locator(`.code-pane [data-line="${line}"] button`).click();
    await act(page, 'loop', 'debug');
    await act(page, 'loop', 'step-into');
    assert.equal((await where(page, 'loop')).symbol, 'execute_with_plan');
    await act(page, 'loop', 'step-out');
    assert.equal((await where(page, 'loop')).symbol, 'run_loop');
    await page.context().close();
  });
});
