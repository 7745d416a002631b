// End-to-end: the loop figure's "What if…" in both languages, on a desktop and a phone: allow vs deny, nag vs drift, allow vs a budget of 4, a recorded run replayed with a changed budget, a deep link, and axe.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { act, axeProblems, DESKTOP, figure, openLesson, PHONE, search, startBrowser, switchLanguage, where } from './helpers.mjs';

let env;
before(async () => {
  env = await startBrowser();
});
after(() => env.close());

const NEVER_SAW = { en: 'The recorded model never saw this', zh: '录制的模型从未见过它' };

/** The compare view as data: the first difference, and per side its rows, the current one and the end. */
function compared(page) {
  return figure(page, 'loop').locator('[data-pane="compare"]').evaluate((pane) => {
    if (pane.hidden) return { hidden: true };
    const first = pane.querySelector('p.first');
    const side = (name) => {
      const root = pane.querySelector(`[data-side="${name}"]`);
      const rows = [...root.querySelectorAll('ol.calls > li[data-call]')];
      const end = root.querySelector('li[data-call="end"]');
      const box = root.getBoundingClientRect();
      return {
        calls: rows.filter((r) => r.dataset.call !== 'end').map((r) => r.dataset.call),
        current: root.querySelector('[aria-current="step"]')?.dataset.call,
        first: root.querySelector('li[data-first]')?.dataset.call,
        firstStep: Number(root.querySelector('li[data-first] .first-tag')?.dataset.step),
        differs: Object.fromEntries(rows.map((r) => [r.dataset.call, r.dataset.differs ?? ''])),
        reminders: rows.filter((r) => r.querySelector('.reminder-added')).map((r) => r.dataset.call),
        stop: end.dataset.stop,
        unseen: end.dataset.unseen,
        endText: end.textContent,
        plan: end.querySelector('.plan-line').dataset.plan,
        box: { top: box.top, left: box.left, bottom: box.bottom },
      };
    };
    return { hidden: pane.hidden, kind: first.dataset.firstKind, call: first.dataset.firstCall, text: first.textContent, base: side('base'), changed: side('changed') };
  });
}

/** Opens "What if…" and chooses a change (a budget through its select). */
async function whatIf(page, change) {
  const loop = figure(page, 'loop');
  await loop.locator('[data-action="what-if"]').click();
  if (change.startsWith('budget-')) {
    await loop.locator('select[data-control="budget"]').selectOption(change.slice('budget-'.length));
    await loop.locator('[data-action="what-if-budget"]').click();
  } else {
    await loop.locator(`[data-change="${change}"]`).click();
  }
  await loop.locator('[data-pane="compare"]:not([hidden])').waitFor();
}

/** The step (from 1, as the timeline counts) where the figure's debugger pauses on host decision `event`. */
async function stepOf(page, event) {
  const loop = figure(page, 'loop');
  await loop.locator(`input[data-break-on="${event}"]`).check();
  await act(page, 'loop', 'debug');
  const { step } = await where(page, 'loop');
  await loop.locator(`input[data-break-on="${event}"]`).uncheck();
  await act(page, 'loop', 'restart');
  return step;
}

for (const [lang, device, options] of [['en', 'desktop', DESKTOP], ['zh', 'phone', PHONE], ['zh', 'desktop', DESKTOP], ['en', 'phone', PHONE]]) {
  describe(`what if, ${lang}, ${device}`, () => {
    test('allow vs deny, nag vs drift, allow vs a budget of 4; the view steps in lockstep or one side alone; axe clean', async () => {
      const page = await openLesson(env, `?lang=${lang}`, { ...options, bypassCSP: true });
      const loop = figure(page, 'loop');
      await loop.scrollIntoViewIfNeeded();

      // allow vs deny: they part at the host's question of call 6, the step where the debugger pauses on "ask".
      const ask = await stepOf(page, 'ask');
      await whatIf(page, 'deny');
      let seen = await compared(page);
      assert.equal(seen.hidden, false);
      assert.deepEqual([seen.kind, seen.call], ['ask', '6'], seen.text);
      assert.deepEqual([seen.base.first, seen.changed.first], ['6', '6']);
      assert.equal(seen.base.firstStep, ask, 'the marked step is the one carrying the ask');
      assert.equal(seen.changed.firstStep, ask, 'deny asks at the same step');
      assert.deepEqual([seen.base.calls.length, seen.changed.calls.length], [8, 7]);
      for (const call of ['1', '2', '3', '4', '5']) assert.equal(seen.base.differs[call], '', `call ${call} is the same in both`);
      assert.match(seen.base.differs['6'], /decisions/);
      assert.deepEqual([seen.base.plan, seen.changed.plan], ['completed completed completed', 'completed completed pending']);
      assert.deepEqual([seen.base.stop, seen.changed.stop], ['answered', 'answered']);
      // Side by side on the desktop, one above the other on a phone.
      if (device === 'desktop') {
        assert.equal(seen.base.box.top, seen.changed.box.top);
        assert.ok(seen.changed.box.left > seen.base.box.left);
      } else {
        assert.ok(seen.changed.box.top >= seen.base.box.bottom, JSON.stringify([seen.base.box, seen.changed.box]));
      }
      // Opened from "not started": at the first difference; the link says so.
      assert.deepEqual([seen.base.current, seen.changed.current], ['6', '6']);
      await page.waitForFunction(() => new URLSearchParams(location.search).get('loop.vs') === 'deny' && new URLSearchParams(location.search).get('loop.vs.at') === '6');
      // Lockstep, then one side alone.
      await loop.locator('[data-action="compare-next"]').click();
      seen = await compared(page);
      assert.deepEqual([seen.base.current, seen.changed.current], ['7', '7']);
      await loop.locator('[data-side="changed"] [data-action="side-next"]').click();
      seen = await compared(page);
      assert.deepEqual([seen.base.current, seen.changed.current], ['7', 'end']);
      await loop.locator('[data-side="changed"] [data-action="side-next"]').click();
      assert.equal((await compared(page)).changed.current, 'end', 'the last row stays');
      await page.waitForFunction(() => new URLSearchParams(location.search).get('loop.vs.at') === '7,end');
      await loop.locator('[data-action="compare-first"]').click();
      seen = await compared(page);
      assert.deepEqual([seen.base.current, seen.changed.current], ['6', '6']);
      await loop.locator('[data-action="what-if"]').click();
      assert.deepEqual(await axeProblems(page), [], 'axe, with the comparison and the offer open');
      await loop.locator('[data-action="what-if"]').click();

      // nag vs drift: the same model; they part where the reminder is appended, after call 4's round.
      await loop.locator('select[data-control="scenario"]').selectOption('nag');
      assert.equal((await compared(page)).hidden, true, 'another scenario closes the comparison');
      await whatIf(page, 'reminder-off');
      seen = await compared(page);
      assert.deepEqual([seen.kind, seen.call], ['reminder', '4'], seen.text);
      assert.deepEqual([seen.base.reminders, seen.changed.reminders], [['4'], []]);
      assert.equal(seen.base.firstStep, await stepOf(page, 'reminder'), 'the marked step carries the reminder');
      assert.deepEqual([seen.base.plan, seen.changed.plan], ['completed completed completed', 'in_progress pending pending']);

      // allow vs a budget of 4: the same four calls, then one run stops at its call limit. The budget scenario is that
      // changed run: the debugger pauses on its call limit at the step the comparison marks.
      await loop.locator('select[data-control="scenario"]').selectOption('budget');
      const limit = await stepOf(page, 'call-limit');
      await loop.locator('select[data-control="scenario"]').selectOption('allow');
      await whatIf(page, 'budget-4');
      seen = await compared(page);
      assert.deepEqual([seen.kind, seen.call], ['call-limit', '5'], seen.text);
      assert.deepEqual([seen.base.first, seen.changed.first], ['5', 'end']);
      assert.deepEqual([seen.changed.calls.length, seen.changed.stop], [4, 'call_limit']);
      assert.equal(seen.changed.firstStep, limit, 'the marked step carries the call limit');
      assert.equal(seen.base.differs['5'], 'missing');
      await page.waitForFunction(() => new URLSearchParams(location.search).get('loop.vs') === 'budget-4');

      await loop.locator('[data-action="compare-close"]').click();
      assert.equal((await compared(page)).hidden, true);
      await page.waitForFunction(() => !new URLSearchParams(location.search).has('loop.vs'));
      assert.deepEqual(page.errors, []);
      await page.context().close();
    });

    test('a recorded run with a changed budget stops where the recorded model never saw the request', async () => {
      const page = await openLesson(env, `?lang=${lang}`, options);
      // A recording of a live model, made from the budget scenario's run file: its four replies are all it holds.
      // Until the page opens run files of its own, the test mounts the same compare view on it.
      await page.evaluate(async (lang) => {
        const api = await import('/api.js');
        const { createWhatIf } = await import('/compare.js');
        const t = (await import(`/text-${lang}.js`)).default;
        const runs = Object.fromEntries(['budget', 'allow'].map((id) => {
          const run = api.runFile(id, lang);
          run.model = { kind: 'live', name: 'recorded-model' };
          run.recorded = '2026-12-01T10:00:00Z';
          return [id, JSON.stringify(run)];
        }));
        const mount = document.createElement('section');
        mount.id = 'recorded';
        document.body.append(mount);
        globalThis.openRecorded = (id) => {
          const whatIf = createWhatIf({ api, lang, t, current: () => ({ base: { run: runs[id] }, settings: JSON.parse(runs[id]).settings, decision: null, row: -1 }), onMove: () => {} });
          mount.replaceChildren(whatIf.control, whatIf.pane);
        };
      }, lang);
      const pane = page.locator('#recorded [data-pane="compare"]');
      const choose = async (id, budget) => {
        await page.evaluate((id) => globalThis.openRecorded(id), id);
        await page.locator('#recorded [data-action="what-if"]').click();
        // A recording holds no answer of its own to leave out: both are offered (the choices are drawn after the click).
        await page.locator('#recorded select[data-control="budget"]').waitFor();
        assert.equal(await page.locator('#recorded [data-change="allow"], #recorded [data-change="deny"]').count(), 2);
        await page.locator('#recorded select[data-control="budget"]').selectOption(String(budget));
        await page.locator('#recorded [data-action="what-if-budget"]').click();
        await pane.locator('p.first').waitFor();
      };

      // A higher budget: the host makes a fifth call, which the recording cannot answer.
      await choose('budget', 5);
      const changedEnd = pane.locator('[data-side="changed"] li[data-call="end"]');
      assert.equal(await changedEnd.getAttribute('data-unseen'), 'true');
      assert.equal(await changedEnd.getAttribute('data-stop'), 'failed');
      assert.ok((await changedEnd.textContent()).includes(NEVER_SAW[lang]), await changedEnd.textContent());
      assert.ok((await changedEnd.textContent()).includes(lang === 'en' ? 'the recording holds 4 model calls' : '记录里只有 4 次模型调用'));
      assert.equal(await pane.locator('[data-side="base"] .never-saw').count(), 0, 'the run as recorded saw everything');
      assert.equal(await pane.locator('[data-side="changed"] li[data-call="5"] .no-reply').count(), 1, 'no reply is invented for call 5');
      assert.ok((await pane.locator('.note').textContent()).length > 0);

      // A lower budget: the host stops before it needs an unrecorded reply; the replay says where it left the recording.
      await choose('allow', 4);
      const lowerEnd = pane.locator('[data-side="changed"] li[data-call="end"]');
      assert.equal(await lowerEnd.getAttribute('data-stop'), 'call_limit');
      assert.equal(await lowerEnd.getAttribute('data-unseen'), 'false');
      assert.ok((await lowerEnd.locator('.diverged').textContent()).includes(lang === 'en' ? 'budget of 4 calls' : '4 次调用的预算'));
      assert.deepEqual(page.errors, []);
      await page.context().close();
    });
  });
}

describe('a deep link', () => {
  test('restores a comparison, also across a language switch; a change that is not one is named', async () => {
    const page = await openLesson(env, '?lang=en&loop=allow&loop.vs=deny&loop.vs.at=6,end', DESKTOP);
    let seen = await compared(page);
    assert.equal(seen.hidden, false);
    assert.deepEqual([seen.kind, seen.call, seen.base.current, seen.changed.current], ['ask', '6', '6', 'end']);
    await switchLanguage(page, 'zh');
    await figure(page, 'loop').locator('[data-pane="compare"]:not([hidden])').waitFor();
    seen = await compared(page);
    assert.deepEqual([seen.kind, seen.base.current, seen.changed.current], ['ask', '6', 'end']);
    assert.match(seen.text, /第一处不同/);
    assert.match(await search(page), /loop\.vs=deny/);
    await page.context().close();

    const bad = await openLesson(env, '?lang=en&loop.vs=budget-13', DESKTOP);
    assert.equal((await compared(bad)).hidden, true);
    assert.match(await figure(bad, 'loop').textContent(), /loop\.vs/);
    assert.deepEqual(bad.errors, []);
    await bad.context().close();
  });
});
