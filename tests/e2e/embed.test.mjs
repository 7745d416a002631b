// <todo-trace-figure> on someone else's page: dist/example.html served from dist/ on a port of its own, under a strict CSP.
import assert from 'node:assert/strict';
import { access } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { startServer } from '../../serve.mjs';
import { LAUNCH } from './helpers.mjs';

const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
// The CSP of issue 14, sent as a header: scripts from the site itself and wasm compilation, nothing inline.
const CSP = "script-src 'self' 'wasm-unsafe-eval'; object-src 'none'; base-uri 'none'";

describe('the figure element in dist/', () => {
  let server;
  let browser;
  let origin;
  before(async () => {
    await access(`${dist}example.html`).catch(() => {
      throw new Error('dist/ is missing: run ./build.sh dist first');
    });
    server = await startServer(dist, 0, { 'Content-Security-Policy': CSP });
    origin = `http://127.0.0.1:${server.address().port}`;
    browser = await chromium.launch(LAUNCH);
  });
  after(async () => {
    await browser?.close();
    await new Promise((done) => server.close(done));
  });

  /** Opens example.html (with `css` added as the host page's own style) and waits for both figures. */
  async function openExample(css) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.errors = [];
    page.requests = [];
    page.on('console', (message) => {
      if (message.type() === 'error') page.errors.push(message.text());
    });
    page.on('pageerror', (error) => page.errors.push(error.message));
    page.on('request', (request) => page.requests.push(request.url()));
    page.on('response', (response) => {
      if (response.status() >= 400) page.errors.push(`${response.status()} ${response.url()}`);
    });
    await page.goto(`${origin}/example.html`);
    if (css) await page.addStyleTag({ content: css });
    await page.locator('todo-trace-figure[figure="write"] [data-figure="write"] [data-status]').waitFor();
    await page.locator('todo-trace-figure[figure="validate"] [data-figure="validate"] [data-status]').waitFor();
    return page;
  }

  const host = (page, id) => page.locator(`todo-trace-figure[figure="${id}"]`);
  const status = (page, id) => host(page, id).locator('[data-status]').getAttribute('data-status');
  const step = async (page, id) => Number(await host(page, id).locator('input[type="range"]').inputValue());

  test('both figures become ready under the CSP, loading only files of dist/todo-trace/, the wasm once', async () => {
    const page = await openExample();
    assert.deepEqual(page.errors, []);
    for (const url of page.requests) assert.ok(url.startsWith(`${origin}/`), url);
    const wasm = page.requests.filter((url) => url.endsWith('.wasm'));
    assert.deepEqual(wasm, [`${origin}/todo-trace/pkg-plan/todo_trace_bg.wasm`], 'one module, the plan module, for both figures');
    // And one style sheet: fetched once by embed.js and adopted by both shadow roots, (the lesson page, whose CSP has style-src 'self', shows constructed sheets apply under it).
    assert.deepEqual(page.requests.filter((url) => url.endsWith('.css')), [`${origin}/todo-trace/style.css`], 'one style sheet for both figures');
    // Each figure lives in its own shadow root: the document itself holds no figure parts.
    assert.equal(await page.evaluate(() => document.querySelectorAll('[data-figure]').length), 0);
    // The author's attributes: the write figure opens on "replace" with a breakpoint on the line that replaces the plan
    // (example.html names it by number: when src/lesson/plan.rs moves, this fails until the example is updated).
    const write = host(page, 'write');
    assert.equal(await write.locator('select[data-control="scenario"]').inputValue(), 'replace');
    const line = await write.locator('.code-pane [data-line]').filter({ hasText: 'state.items = replacement' }).getAttribute('data-line');
    assert.equal(await write.getAttribute('breakpoints'), line);
    assert.deepEqual(await write.locator('.code-pane [data-line]:has(button[aria-pressed="true"])').evaluateAll((rows) => rows.map((r) => r.dataset.line)), [line]);
    // The article places the element as it likes: its own margins apply to the host.
    assert.equal(await write.evaluate((node) => getComputedStyle(node).marginLeft), '-64px');
    await page.close();
  });

  test('the figures debug independently, by buttons and by keys inside the shadow root', async () => {
    const page = await openExample();
    await host(page, 'write').locator('[data-action="debug"]').click();
    assert.equal(await status(page, 'write'), 'paused');
    const at = await host(page, 'write').locator('[aria-current="step"]').getAttribute('data-line');
    assert.equal(at, await host(page, 'write').getAttribute('breakpoints'), 'Debug stops at the breakpoint the attribute set');
    assert.equal(await status(page, 'validate'), 'idle', 'the other figure has not moved');
    assert.equal(await step(page, 'validate'), 0);

    // Keys reach the figure that has the focus, and only it.
    await host(page, 'validate').locator('[data-action="step-into"]').click();
    const before = await step(page, 'validate');
    await page.keyboard.press('F10');
    await page.keyboard.press('F10');
    assert.ok((await step(page, 'validate')) > before, 'F10 steps the focused figure');
    const writeAt = await step(page, 'write');
    await host(page, 'write').locator('[data-action="step-back"]').focus();
    await page.keyboard.press('Shift+F8');
    assert.equal(await step(page, 'write'), writeAt - 1, 'Shift+F8 steps the other one back');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('the JSON child is the figure data: traced and refused where the lesson refuses it', async () => {
    const page = await openExample();
    const validate = host(page, 'validate');
    assert.equal(await validate.locator('select[data-control="scenario"]').inputValue(), 'input');
    assert.match(await validate.locator('textarea[data-control="input"]').inputValue(), /Run the whole suite/);
    await validate.locator('[data-action="run"]').click();
    assert.equal(await status(page, 'validate'), 'error');
    assert.match(await validate.locator('[data-status]').textContent(), /multiple_in_progress|in progress|in_progress/);
    await page.close();
  });

  test('data set from JS is traced with traceValue, and bad data gives a coded error, not an exception', async () => {
    const page = await openExample();
    await page.evaluate(() => {
      const figure = document.querySelector('todo-trace-figure[figure="validate"]');
      figure.data = [{ id: 'a', content: 'from a property', status: 'pending' }];
    });
    const validate = host(page, 'validate');
    await validate.locator('[data-action="run"]').click();
    assert.equal(await status(page, 'validate'), 'done');
    assert.match(await validate.locator('pre.input').textContent(), /from a property/);
    assert.match(await validate.locator('[data-pane="output"]').innerText(), /ok|Ok|valid/i);
    await page.evaluate(() => {
      const figure = document.querySelector('todo-trace-figure[figure="validate"]');
      const cycle = [];
      cycle.push(cycle);
      figure.data = cycle;
    });
    // Inside the closed setup part, the editor says why; the status line says it too.
    assert.match(await validate.locator('.input-error').textContent(), /not_json.*cycle/);
    await validate.locator('[data-action="run"]').click();
    assert.equal(await status(page, 'validate'), 'error');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('data set by a script that runs before the element is defined is not lost', async () => {
    const page = await browser.newPage();
    // A page of the test's own on the same server: a classic script sets `data` before embed.js has loaded.
    await page.route('**/early.html', (route) => route.fulfill({
      contentType: 'text/html',
      headers: { 'Content-Security-Policy': CSP },
      body: '<!doctype html><html lang="en"><title>early</title><todo-trace-figure figure="write" lang="en"></todo-trace-figure>' +
        '<script src="early.js"></script><script type="module" src="todo-trace/embed.js"></script>',
    }));
    await page.route('**/early.js', (route) => route.fulfill({
      contentType: 'text/javascript',
      body: "document.querySelector('todo-trace-figure').data = [{id: 'e', content: 'set early', status: 'pending'}];",
    }));
    await page.goto(`${origin}/early.html`);
    const write = host(page, 'write');
    await write.locator('[data-status]').waitFor();
    assert.equal(await write.locator('select[data-control="scenario"]').inputValue(), 'input');
    assert.match(await write.locator('pre.input').textContent(), /set early/);
    await page.close();
  });

  test('the loop figure embeds too: its panes, its event breakpoints, a run to the end', async () => {
    const page = await browser.newPage();
    page.errors = [];
    page.on('pageerror', (error) => page.errors.push(error.message));
    await page.route('**/loop.html', (route) => route.fulfill({
      contentType: 'text/html',
      headers: { 'Content-Security-Policy': CSP },
      body: '<!doctype html><html lang="zh"><title>loop</title><p>前文</p><todo-trace-figure figure="loop" lang="zh" scenario="deny"></todo-trace-figure>' +
        '<script type="module" src="todo-trace/embed.js"></script>',
    }));
    await page.goto(`${origin}/loop.html`);
    const loop = host(page, 'loop');
    await loop.locator('[data-figure="loop"] [data-status="idle"]').waitFor();
    assert.equal(await loop.locator('select[data-control="scenario"]').inputValue(), 'deny');
    for (const pane of ['conversation', 'plan', 'request', 'evidence']) assert.equal(await loop.locator(`[data-pane="${pane}"]`).count(), 1, pane);
    assert.equal(await loop.locator('input[data-break-on]').count(), 7);
    await loop.locator('[data-action="run"]').click();
    await loop.locator('[data-status="done"]').waitFor();
    // deny: the user says no, so the run is refused an error result (LOOP.md's table).
    await loop.locator('[data-pane="conversation"]').getByText('未运行：用户拒绝了这次运行。').first().waitFor();
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('the host page CSS does not reach inside, and the figure CSS does not leak out', async () => {
    const page = await openExample('* { color: red !important; font: 40px serif !important; } p { color: red; }');
    const inside = await host(page, 'write').locator('[data-status]').evaluate((node) => {
      const style = getComputedStyle(node);
      const button = getComputedStyle(node.getRootNode().querySelector('[data-action="debug"]'));
      return { color: style.color, size: style.fontSize, family: style.fontFamily, buttonSize: button.fontSize };
    });
    assert.notEqual(inside.color, 'rgb(255, 0, 0)');
    assert.equal(inside.size, '16px');
    assert.doesNotMatch(inside.family, /^serif$/);
    assert.equal(inside.buttonSize, '16px');
    // And the figure styles stay in: the article's paragraphs keep the host's own look.
    const outside = await page.locator('article > p').first().evaluate((node) => getComputedStyle(node).fontSize);
    assert.equal(outside, '40px');
    await page.close();
  });
});
