// End-to-end: a shared link or a reload opens every figure exactly where it was; a link that makes no sense says so.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { act, figure, allFiguresReady, lineOf, openLesson, paneText, startBrowser, where } from './helpers.mjs';

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
  // A move reaches the URL just after the frame that shows it (page.js): wait for the last one.
  await page.waitForURL(/prepare\.step=end/);
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

test('a link to a step inside a callee, in a scenario not shown by default, opens exactly there', async () => {
  const page = await openLesson(env, '?lang=en');
  const write = figure(page, 'write');
  await write.locator('select[data-control="scenario"]').selectOption('claim');
  await act(page, 'write', 'step-into');
  await act(page, 'write', 'step-into');
  assert.equal((await where(page, 'write')).symbol, 'validate_todos');
  await write.locator(`.code-pane [data-line="${await lineOf(page, 'write', 'new_list.push(')}"] button`).click();
  await act(page, 'write', 'debug');
  await act(page, 'write', 'continue');
  await act(page, 'write', 'step-into');
  const panes = (p) => Promise.all(['locals', 'stack', 'state', 'output'].map((pane) => paneText(p, 'write', pane)));
  const before = { ...(await snapshot(page)), panes: await panes(page) };
  assert.equal(before.write.status, 'paused');
  assert.equal(before.write.symbol, 'validate_todos');
  await page.waitForURL(new RegExp(`write\\.step=${before.write.step}(&|$)`));

  const shared = await openLesson(env, new URL(page.url()).search);
  assert.deepEqual({ ...(await snapshot(shared)), panes: await panes(shared) }, before);
  assert.equal(await shared.locator('.notice').count(), 0, 'every part of the link was understood');
  assert.deepEqual([...page.errors, ...shared.errors], []);
});

test('after a burst of steps the URL holds the last one, written a few times rather than once a step', async () => {
  const context = await env.browser.newContext();
  const page = await context.newPage();
  await page.addInitScript(() => {
    window.replaceStates = 0;
    const replaceState = history.replaceState.bind(history);
    history.replaceState = (...args) => {
      window.replaceStates++;
      return replaceState(...args);
    };
  });
  await page.goto(`${env.origin}/?lang=en`);
  await page.locator('[data-figure="write"] [data-status="idle"]').waitFor();
  const clicks = 40;
  // One click per task, as a held key or a quick reader would give them.
  await page.evaluate(async (n) => {
    const host = [...document.querySelectorAll('todo-trace-figure')].find((f) => f.getAttribute('figure') === 'write');
    const button = host.shadowRoot.querySelector('[data-figure="write"] [data-action="step-into"]');
    for (let i = 0; i < n; i++) {
      button.click();
      await new Promise((done) => setTimeout(done));
    }
  }, clicks);
  assert.equal((await where(page, 'write')).step, clicks);
  await page.waitForURL(new RegExp(`write\\.step=${clicks}(&|$)`));
  const writes = await page.evaluate(() => window.replaceStates);
  assert.ok(writes < clicks / 4, `${writes} URL writes for ${clicks} steps`);
  await context.close();
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

// Opens the lesson at a query too long for serve.mjs: Node's HTTP server refuses a request over 16 KiB of headers,
// so the page's own document is served from here for it, and the rest of the page as usual.
async function openLongLink(query, options) {
  const page = await openLesson(env, '', options);
  const index = fileURLToPath(new URL('../../www/index.html', import.meta.url));
  await page.route((url) => url.pathname === '/', (route) => route.fulfill({ path: index }));
  await page.goto(`${env.origin}/${query}`);
  await allFiguresReady(page);
  return page;
}

test('a link with 10,000 bad values gives a short notice: each value once, five at most, then how many more', async () => {
  const values = Array.from({ length: 10_000 }, (_, i) => `validate.bp=nope.${i % 5_000}`);
  const page = await openLongLink(`?lang=en&${values.join('&')}`);
  const notice = page.locator('.notice');
  const lines = await notice.locator('p').allInnerTexts();
  assert.deepEqual(lines, [
    ...[0, 1, 2, 3, 4].map((i) => `The link’s validate.bp=nope.${i} was not understood and is ignored.`),
    'The link holds 4995 more values that were not understood; they are ignored too.',
  ]);
  const box = await notice.boundingBox();
  assert.ok(box.height < 300, `the notice is ${box.height}px tall`);
  assert.deepEqual(page.errors, []);
});

test('a long unbroken value is cut and wraps inside the notice, on a phone too', async () => {
  const long = 'x'.repeat(100_000);
  const page = await openLongLink(`?lang=zh&write.step=${long}`, { viewport: { width: 390, height: 844 } });
  const notice = page.locator('.notice');
  assert.equal(await notice.locator('bdi').textContent(), `${'x'.repeat(60)}…`);
  const { scrollWidth, clientWidth } = await notice.evaluate((node) => ({ scrollWidth: node.scrollWidth, clientWidth: node.clientWidth }));
  assert.ok(scrollWidth <= clientWidth, `the notice's content is ${scrollWidth}px wide in ${clientWidth}px`);
  const pageWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(pageWidth <= 390, `the page is ${pageWidth}px wide`);
  // A value of astral characters is cut between characters, never inside a surrogate pair.
  const emoji = await openLesson(env, `?lang=en&prepare=${encodeURIComponent('😀'.repeat(100))}`);
  assert.equal(await emoji.locator('.notice bdi').textContent(), `${'😀'.repeat(60)}…`);
  assert.deepEqual([...page.errors, ...emoji.errors], []);
});

test('a value holding U+202E cannot reverse the sentence around it', async () => {
  const value = 'abc\u202Edef';
  const page = await openLesson(env, `?lang=en&write=${encodeURIComponent(value)}`);
  const line = page.locator('.notice p');
  assert.equal(await line.locator('bdi').textContent(), value, 'the value is shown, isolated in a <bdi>');
  assert.equal(await line.textContent(), `The link’s write=${value} was not understood and is ignored.`);
  // Drawn left to right as written: the words after the value lie to the right of it, and the value's start is
  // at its left edge (only the part after U+202E is reversed, inside the isolate).
  const boxes = await line.evaluate((p) => {
    const box = (node, start, end) => {
      const range = document.createRange();
      range.setStart(node, start);
      range.setEnd(node, end);
      return range.getBoundingClientRect();
    };
    const bdi = p.querySelector('bdi');
    const after = bdi.nextSibling;
    return {
      bdi: bdi.getBoundingClientRect().toJSON(),
      abc: box(bdi.firstChild, 0, 3).toJSON(),
      after: box(after, 1, after.length).toJSON(),
    };
  });
  assert.ok(boxes.after.left >= boxes.bdi.right - 1, `the sentence goes on after the value: ${JSON.stringify(boxes)}`);
  assert.ok(Math.abs(boxes.abc.left - boxes.bdi.left) < 1, `the value starts at its left: ${JSON.stringify(boxes)}`);
  assert.deepEqual(page.errors, []);
});
