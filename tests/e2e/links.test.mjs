// End-to-end: a shared link or a reload opens every figure exactly where it was; a link that makes no sense says so.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { act, figure, lineOf, openLesson, startBrowser, where } from './helpers.mjs';

let env;
before(async () => {
  env = await startBrowser();
});
after(() => env.close());

// Everything a reader can set in a figure, read back from the page.
async function snapshot(page) {
  const out = {};
  for (const id of ['validate', 'write', 'prepare']) {
    out[id] = {
      ...(await where(page, id)),
      scenario: await figure(page, id).locator('select[data-control="scenario"]').inputValue(),
      breakpoints: await figure(page, id).locator('.code-pane [data-line] button[aria-pressed="true"]').evaluateAll((buttons) => buttons.map((b) => b.closest('[data-line]').dataset.line)),
    };
  }
  return out;
}

test('a link opens each figure at its scenario, breakpoints and step, and a reload restores it', async () => {
  const page = await openLesson(env, '?lang=en');
  const validate = figure(page, 'validate');
  await validate.locator('select[data-control="scenario"]').selectOption('active');
  await validate.locator(`.code-pane [data-line="${await lineOf(page, 'validate', 'if active > 1')}"] button`).click();
  await act(page, 'validate', 'debug');
  await act(page, 'validate', 'continue');
  await act(page, 'validate', 'step-into');

  const write = figure(page, 'write');
  await write.locator(`.code-pane [data-line="${await lineOf(page, 'write', 'state.items = replacement')}"] button`).click();
  await act(page, 'write', 'step-into');
  await act(page, 'write', 'step-into');
  assert.equal((await where(page, 'write')).symbol, 'validate_todos', 'paused inside the callee');

  await figure(page, 'prepare').locator('select[data-control="scenario"]').selectOption('updated');
  await act(page, 'prepare', 'run');

  const before = await snapshot(page);
  assert.equal(before.validate.status, 'paused');
  assert.equal(before.prepare.status, 'done');
  const link = page.url();
  assert.match(link, /validate=active/);
  assert.match(link, /prepare\.step=end/);

  const shared = await env.browser.newPage();
  const errors = [];
  shared.on('pageerror', (error) => errors.push(error.message));
  await shared.goto(link);
  await shared.waitForSelector('[data-figure="prepare"] [data-status]');
  assert.deepEqual(await snapshot(shared), before);
  assert.equal(await shared.getAttribute('html', 'lang'), 'en');

  await page.reload();
  await page.waitForSelector('[data-figure="prepare"] [data-status]');
  assert.deepEqual(await snapshot(page), before);
  assert.deepEqual([...page.errors, ...errors], []);
});

test('a link with values that do not fit says so and opens the page anyway', async () => {
  const page = await openLesson(env, '?lang=en&write=nope&write.bp=write_todos.1&validate.step=9999&prepare.step=x');
  const notice = await page.locator('.notice').innerText();
  assert.match(notice, /write=nope/);
  assert.match(notice, /write\.bp=write_todos\.1/);
  assert.match(notice, /validate\.step=9999/);
  assert.match(notice, /prepare\.step=x/);
  assert.equal(await figure(page, 'write').locator('select[data-control="scenario"]').inputValue(), 'replace');
  for (const id of ['validate', 'write', 'prepare']) assert.equal((await where(page, id)).status, 'idle');
  assert.deepEqual(page.errors, []);
});
