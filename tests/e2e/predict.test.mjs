// End-to-end: "Predict, then reveal" asks, reveals and scores in all four figures, in both languages, on a desktop and a phone; the link keeps the switch.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { act, axeProblems, DESKTOP, figure, loadModule, openLesson, PHONE, search, startBrowser } from './helpers.mjs';

let env;
let api;
before(async () => {
  env = await startBrowser();
  api = await loadModule();
});
after(() => env.close());

// The scenario each figure is run in: one whose questions have a wrong turn to take (a refusal, a decline).
const RUNS = { validate: 'duplicate', write: 'active', prepare: 'pending', loop: 'deny' };
const SCORE = {
  en: (right, of) => `${right} of ${of} right`,
  zh: (right, of) => `${of} 题中答对 ${right} 题`,
};

/** Waits until the figure's run has ended: done, or ended in the function's error. */
const ended = (root) => root.locator('[data-status="done"], [data-status="error"]').waitFor();

/** Whether the node is on screen and nothing (the sticky bar) covers its middle. */
const uncovered = (locator) => locator.evaluate((node) => {
  const box = node.getBoundingClientRect();
  const [x, y] = [box.left + box.width / 2, box.top + box.height / 2];
  const inView = box.top >= 0 && box.bottom <= innerHeight && box.left >= 0 && box.right <= innerWidth;
  const top = /** @type {ShadowRoot} */ (node.getRootNode()).elementFromPoint(x, y);
  return inView && (top === node || node.contains(top));
});

/**
 * Runs a figure with Predict on and answers each question as it comes: right at even questions, wrong at odd ones,
 * checking on the way that the run waits at the step before each, that the focus is on the question, and that the
 * reveal names the right answer and says why. Returns how many were answered rightly.
 */
async function answerAll(page, id, lang, questions) {
  const root = figure(page, id);
  await act(page, id, 'restart');
  await act(page, id, 'run');
  let right = 0;
  for (const [i, q] of questions.entries()) {
    const group = root.locator(`[data-question="${i}"][data-state="asking"]`);
    await group.waitFor();
    // Held on the step before the one that shows the answer (the timeline counts steps from 1).
    assert.equal(Number(await root.locator('input[type="range"]').inputValue()), q.step, `${id} question ${i}`);
    assert.equal(await root.locator('p.status[data-status]').getAttribute('data-status'), q.step === 0 ? 'idle' : 'paused');
    assert.equal(await group.evaluate((node) => node.getRootNode().activeElement === node), true, `${id}: the focus is on question ${i}`);
    assert.equal(await group.locator('.prompt').innerText(), q.prompt);
    const keys = await group.locator('button[data-answer]').evaluateAll((buttons) => buttons.map((b) => b.dataset.answer));
    assert.deepEqual(keys, q.choices.map((c) => c.key));
    const pick = i % 2 === 0 ? q.answer : (q.answer + 1) % q.choices.length;
    if (pick === q.answer) right++;
    const button = group.locator(`button[data-answer="${q.choices[pick].key}"]`);
    await page.waitForFunction((node) => node.checkVisibility(), await button.elementHandle());
    assert.ok(await uncovered(button), `${id} question ${i}: the answer is in view and not under the bar`);
    await button.click();
    await root.locator(`[data-score][data-answered="${i + 1}"]`).waitFor();
    const reveal = root.locator('.reveal[role="status"]');
    assert.equal(await reveal.getAttribute('data-reveal'), pick === q.answer ? 'right' : 'wrong');
    const said = await reveal.innerText();
    assert.ok(said.includes(q.choices[q.answer].label) && said.includes(q.why), `${id}: ${said}`);
    assert.equal(await root.locator('[data-score]').innerText(), SCORE[lang](right, i + 1));
  }
  return right;
}

for (const [lang, device, options] of [['en', '1280×800', DESKTOP], ['zh', '390×844', PHONE], ['zh', '1280×800', DESKTOP], ['en', '390×844', PHONE]]) {
  describe(`Predict, ${lang}, ${device}`, () => {
    test('every figure asks before each decision or result, reveals, scores once, and keeps the switch in the link', async () => {
      const page = await openLesson(env, `?lang=${lang}`, { ...options, bypassCSP: true });
      for (const [id, scenario] of Object.entries(RUNS)) {
        const root = figure(page, id);
        const questions = api.trace(id, scenario, lang).questions;
        assert.ok(questions.length >= 1, `${id}/${scenario} asks something`);
        await root.locator('select[data-control="scenario"]').selectOption(scenario);
        const box = root.locator('input[data-control="predict"]');
        // Off by default: Run runs to the end without asking.
        await act(page, id, 'run');
        await ended(root);
        await box.check();
        await page.waitForFunction((id) => new URLSearchParams(location.search).get(`${id}.predict`) === '1', id);

        const right = await answerAll(page, id, lang, questions);
        await ended(root);
        // Back to the start and on to the end again: nothing is asked twice, and the tally does not change.
        await act(page, id, 'restart');
        await act(page, id, 'run');
        await ended(root);
        assert.equal(await root.locator('[data-question][data-state="asking"]').count(), 0);
        assert.equal(await root.locator('[data-score]').innerText(), SCORE[lang](right, questions.length));
        if (id === 'loop') assert.deepEqual(await axeProblems(page), [], 'a question answered and revealed is axe clean');
      }
      // The link keeps every switch; a reload opens with them on, and asks again from the start.
      const query = await search(page);
      for (const id of Object.keys(RUNS)) assert.match(query, new RegExp(`${id}\\.predict=1`));
      await page.reload();
      await figure(page, 'loop').locator('p.status[data-status]').waitFor();
      for (const id of Object.keys(RUNS)) assert.equal(await figure(page, id).locator('input[data-control="predict"]').isChecked(), true);
      assert.deepEqual(page.errors, []);
      await page.context().close();
    });
  });
}

test('by keyboard alone: F10 waits at the question, Tab and Enter answer it, and the result is announced', async () => {
  const page = await openLesson(env, '?lang=en&validate.predict=1&validate=active', { ...DESKTOP, bypassCSP: true });
  const root = figure(page, 'validate');
  assert.equal(await root.locator('input[data-control="predict"]').isChecked(), true, 'the link turned it on');
  const q = api.trace('validate', 'active', 'en').questions[0];
  await root.locator('[data-action="step-into"]').focus();
  await page.keyboard.press('F11');
  await page.keyboard.press('F10');
  const group = root.locator('[data-question="0"][data-state="asking"]');
  await group.waitFor();
  // Another step key while asked: still asked, nothing shown past it.
  await page.keyboard.press('F10');
  assert.equal(Number(await root.locator('input[type="range"]').inputValue()), q.step);
  assert.deepEqual(await axeProblems(page), [], 'the question asked is axe clean');
  // The answers are real buttons, reached with Tab from the question.
  const keys = q.choices.map((c) => c.key);
  for (let i = 0; i <= q.answer; i++) await page.keyboard.press('Tab');
  assert.equal(await root.evaluate((node) => node.getRootNode().activeElement?.dataset.answer), keys[q.answer]);
  await page.keyboard.press('Enter');
  const reveal = root.locator('.reveal[role="status"][data-reveal="right"]');
  await reveal.waitFor();
  assert.match(await reveal.innerText(), /^Right: /);
  // The focus stays on the answer given, now marked, so the figure's keys go on working.
  assert.equal(await root.evaluate((node) => node.getRootNode().activeElement?.hasAttribute('data-chosen')), true);
  assert.equal(await root.locator('button[data-right][aria-disabled="true"]').count(), 1);
  await page.keyboard.press('F8');
  await root.locator('[data-status="error"]').waitFor();
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('the reader’s own input is asked about too', async () => {
  const page = await openLesson(env, '?lang=zh&write.predict=1', DESKTOP);
  const root = figure(page, 'write');
  await root.locator('details.setup > summary').click();
  const input = '[{"id": "a", "content": "x", "status": "in_progress"}, {"id": "a", "content": "y", "status": "pending"}]';
  await root.locator('textarea').fill(input);
  await root.locator('[data-action="run-input"]').click();
  const group = root.locator('[data-question="0"][data-state="asking"]');
  await group.waitFor();
  const q = api.traceInput('write', input, 'zh').questions[0];
  assert.equal(q.choices[q.answer].key, 'duplicate_id');
  await group.locator('button[data-answer="duplicate_id"]').click();
  await root.locator('.reveal[data-reveal="right"]').waitFor();
  assert.equal(await root.locator('[data-score]').innerText(), '1 题中答对 1 题');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
