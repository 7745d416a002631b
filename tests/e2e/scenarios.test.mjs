// End-to-end: every figure and scenario runs to the end state LESSON.md describes, in English and in Chinese.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { act, figure, hostState, lineOf, openLesson, paneText, search, startBrowser, switchLanguage, where } from './helpers.mjs';

let env;
before(async () => {
  env = await startBrowser();
});
after(() => env.close());

// What each run must end with, from LESSON.md's scenario table and teaching points. `state` gets
// the host state pane read back as data: {items: [...], messages: [...]}.
const statuses = (state) => state.items.map((item) => item.status);
const OLD_PLAN = (state) => assert.deepEqual(statuses(state), ['completed', 'pending']);
const QUESTION = 'Read the files; run after approval and check.';
const EXPECTED = {
  validate: {
    valid: { status: 'done', output: ['Valid. The new list:', '1 [completed] Read the source', '2 [in_progress] Run and check'] },
    duplicate: { status: 'error', code: 'duplicate_id', output: ['Item 2'] },
    active: { status: 'error', code: 'too_many_active', output: ['Item 2'] },
    unknown: { status: 'error', code: 'unknown_status', output: ['"done"'] },
    clear: { status: 'done', output: ['Valid. The new list:', '(empty plan)'] },
  },
  write: {
    replace: { status: 'done', state: (state) => assert.deepEqual(statuses(state), ['completed', 'in_progress']) },
    duplicate: { status: 'error', code: 'duplicate_id', state: OLD_PLAN, output: ['The plan is unchanged.'] },
    active: { status: 'error', code: 'too_many_active', state: OLD_PLAN, output: ['The plan is unchanged.'] },
    unknown: { status: 'error', code: 'unknown_status', state: OLD_PLAN, output: ['The plan is unchanged.'] },
    clear: { status: 'done', state: (state) => assert.deepEqual(state.items, []), output: ['Written. Current plan:', '(empty plan)'] },
    claim: {
      status: 'done',
      state: (state) => assert.deepEqual(statuses(state), ['completed', 'completed']),
      output: ['2 [completed] Run and check', 'Writing the plan ran none of its items'],
    },
    omit: { status: 'done', state: (state) => assert.deepEqual(state.items.map((item) => item.id), ['1']) },
  },
  prepare: {
    pending: {
      status: 'done',
      output: [QUESTION, '[Current plan, provided by the host', '2 [pending] Run and check'],
      // The stored history is untouched: the question as it was, the tool ids as they were.
      state: (state) => {
        assert.equal(state.messages[0].content, QUESTION);
        assert.equal(state.messages[1].content[0].id, 'run_1');
        assert.equal(state.messages[2].content[0].tool_use_id, 'run_1');
      },
    },
    updated: {
      status: 'done',
      output: ['2 [completed] Run and check'],
      state: (state) => {
        assert.equal(state.items[1].status, 'completed');
        assert.equal(state.messages[2].content[0].content, 'Not run: the user declined.');
      },
    },
    empty: { status: 'done', output: ['(empty plan)'], state: (state) => assert.deepEqual(state.items, []) },
  },
};

describe('every figure and scenario, run to the end (English)', () => {
  let page;
  before(async () => {
    page = await openLesson(env, '?lang=en');
  });

  for (const [figureId, scenarios] of Object.entries(EXPECTED)) {
    test(`${figureId}: the switcher offers exactly the lesson's scenarios`, async () => {
      const ids = await figure(page, figureId).locator('select[data-control="scenario"] option').evaluateAll((options) => options.map((o) => o.value));
      assert.deepEqual(ids.sort(), Object.keys(scenarios).sort());
    });

    for (const [scenario, expected] of Object.entries(scenarios)) {
      test(`${figureId}/${scenario}`, async () => {
        await figure(page, figureId).locator('select[data-control="scenario"]').selectOption(scenario);
        assert.equal((await where(page, figureId)).status, 'idle');
        const hint = await figure(page, figureId).locator('.hint').textContent();
        assert.ok(hint.length > 10, 'the scenario hint is shown');
        await act(page, figureId, 'run');
        const end = await where(page, figureId);
        assert.equal(end.status, expected.status, end.statusText);
        if (expected.code) assert.match(end.statusText, new RegExp(expected.code));
        assert.equal(end.line, null, 'nothing is about to run once finished');
        const output = await paneText(page, figureId, 'output');
        for (const text of expected.output ?? []) assert.ok(output.includes(text), `output has ${text}:\n${output}`);
        expected.state?.(await hostState(page, figureId));
      });
    }
  }

  test('write/active: stepping through, the assignment line never becomes current', async () => {
    await figure(page, 'write').locator('select[data-control="scenario"]').selectOption('active');
    const assign = await lineOf(page, 'write', 'state.items = replacement');
    const seen = [];
    for (let i = 0; i < 200; i++) {
      await act(page, 'write', 'step-into');
      const now = await where(page, 'write');
      if (now.status !== 'paused') break;
      seen.push(`${now.symbol}:${now.line}`);
    }
    assert.ok(seen.includes(`validate_todos:${await lineOfIn('validate_todos', 'if active > 1')}`), seen.join(' '));
    assert.ok(!seen.includes(`write_todos:${assign}`));
    assert.equal((await where(page, 'write')).status, 'error');
    OLD_PLAN(await hostState(page, 'write'));
  });

  // A line of a listing that is not on screen now: read it from the module itself.
  function lineOfIn(symbol, snippet) {
    return page.evaluate(async ([symbol, snippet]) => {
      const api = await import('./api.js');
      return api.source(symbol).lines.find((l) => l.text.includes(snippet)).no;
    }, [symbol, snippet]);
  }

  test('no console errors, and nothing requested outside the page', () => {
    assert.deepEqual(page.errors, []);
    const outside = page.requests.filter((url) => new URL(url).origin !== env.origin);
    assert.deepEqual(outside, []);
    assert.ok(page.requests.some((url) => url.endsWith('.wasm')));
  });
});

describe('Chinese (the default)', () => {
  test('the page, its data and its messages are in Chinese', async () => {
    const page = await openLesson(env);
    assert.equal(await page.getAttribute('html', 'lang'), 'zh');
    assert.match(await page.locator('h1').textContent(), /计划/);
    await figure(page, 'prepare').locator('select[data-control="scenario"]').selectOption('empty');
    await act(page, 'prepare', 'run');
    assert.ok((await paneText(page, 'prepare', 'output')).includes('（清单为空）'));
    await act(page, 'write', 'run');
    assert.ok((await paneText(page, 'write', 'state')).includes('运行并核对'));
    assert.match((await where(page, 'write')).statusText, /完成/);
    const options = await figure(page, 'write').locator('option').allTextContents();
    assert.ok(options.includes('靠后的一项失败'));
    assert.deepEqual(page.errors, []);
  });

  test('the switch changes the language in place and keeps the figures where they were', async () => {
    const page = await openLesson(env);
    const write = figure(page, 'write');
    await write.locator('select[data-control="scenario"]').selectOption('omit');
    const line = await lineOf(page, 'write', 'state.items = replacement');
    await write.locator(`[data-line="${line}"] button`).click();
    await act(page, 'write', 'debug');
    await switchLanguage(page, 'en');
    assert.match(await search(page), /lang=en/);
    assert.match(await page.locator('h1').textContent(), /plan/);
    assert.equal(await figure(page, 'write').locator('select[data-control="scenario"]').inputValue(), 'omit');
    const now = await where(page, 'write');
    assert.deepEqual([now.status, now.line], ['paused', line]);
    assert.match(now.statusText, /Paused at line/);
    assert.equal(await figure(page, 'write').locator(`[data-line="${line}"] button`).getAttribute('aria-pressed'), 'true');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.control), 'lang', 'the focus stays on the switch');
    await switchLanguage(page, 'zh');
    assert.doesNotMatch(await search(page), /lang=/);
    assert.deepEqual(page.errors, []);
  });
});
