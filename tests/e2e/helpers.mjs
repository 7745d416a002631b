// Shared set-up for the end-to-end tests: the project's server on a free port, system Chromium, and a page that records console errors and every request.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../../serve.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));

// Never download a browser: the machine's Chromium, with nothing that phones home.
export const LAUNCH = {
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
};

/** The two sizes the issues name: a desktop at 1280×800, a phone at 390×844 (touch). For `openLesson`'s options. */
export const DESKTOP = { viewport: { width: 1280, height: 800 } };
export const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

/** Starts the server and the browser; `close()` stops both. */
export async function startBrowser() {
  const server = await startServer(`${root}www`, 0);
  const origin = `http://127.0.0.1:${server.address().port}`;
  const browser = await chromium.launch(LAUNCH);
  return {
    origin,
    browser,
    async close() {
      await browser.close();
      await new Promise((done) => server.close(done));
    },
  };
}

/**
 * Opens the lesson at `query` and waits until every figure is ready. The returned page carries
 * `errors` (console errors and uncaught exceptions), `requests` (every URL it asked for), `responses`
 * (`{url, status}` of every answer: a 404 is an answer, not a failed request) and `failed` (the URLs
 * of requests that got no answer at all). `network`: conditions to emulate (CDP's Network.emulateNetworkConditions).
 */
export async function openLesson(env, query = '', options = {}, network = null) {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  const page = await context.newPage();
  if (network) {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', network);
  }
  page.errors = [];
  page.requests = [];
  page.responses = [];
  page.failed = [];
  page.on('console', (message) => {
    if (message.type() === 'error') page.errors.push(message.text());
  });
  page.on('pageerror', (error) => page.errors.push(error.message));
  page.on('request', (request) => page.requests.push(request.url()));
  page.on('response', (response) => page.responses.push({ url: response.url(), status: response.status() }));
  page.on('requestfailed', (request) => page.failed.push(request.url()));
  await page.goto(`${env.origin}/${query}`);
  await allFiguresReady(page);
  return page;
}

/**
 * Waits until `count` figures show a status. Each figure lives in the shadow root of a <todo-trace-figure>
 * (embed.js): Playwright's CSS locators pierce open shadow roots, `document.querySelector` does not.
 */
/** Waits until every figure of the page shows a status; the later ones (the loop) are built just after the first frame. */
export const allFiguresReady = (page) =>
  page.waitForFunction(() => {
    const all = [...document.querySelectorAll('todo-trace-figure')];
    return all.length > 0 && all.every((f) => f.shadowRoot?.querySelector('[data-figure] [data-status]'));
  });

export const figuresReady = (page, count) =>
  page.waitForFunction((n) => [...document.querySelectorAll('todo-trace-figure')].filter((f) => f.shadowRoot?.querySelector('[data-figure] [data-status]')).length === n, count);

/**
 * Waits until `check()` (sync or async) returns a truthy value and returns it, trying again every
 * 50 ms; after `timeout` ms it throws with `what`. For state that lives in the test, not the page
 * (where `page.waitForFunction` and locators wait on their own).
 */
export async function until(check, what, timeout = 10_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

/**
 * Clicks the language switch and waits until the page is rebuilt in `lang`: the new words arrive by an
 * async import, so nothing on the page may be read before. page.js sets `html[lang]`, builds the page, and once
 * its first figures are built (each in a task of its own) gives the switch the focus back.
 */
export async function switchLanguage(page, lang) {
  await page.locator('[data-control="lang"]').click();
  await page.waitForFunction((lang) => document.documentElement.lang === lang && document.activeElement?.dataset.control === 'lang', lang);
}

/** The page's query string as the page itself has it (`page.url()` follows the page's history writes a moment later). */
export const search = (page) => page.evaluate(() => location.search);

/** The figure's root, for scoped locators. */
export const figure = (page, id) => page.locator(`[data-figure="${id}"]`);

/** Clicks one of a figure's debugger buttons. */
export const act = (page, id, action) => figure(page, id).locator(`[data-action="${action}"]`).click();

/** Where a figure is: status, the line about to run and the line just run (in the shown listing), the timeline's value. */
export function where(page, id) {
  return figure(page, id).evaluate((root) => ({
    status: root.querySelector('[data-status]').dataset.status,
    statusText: root.querySelector('[data-status]').textContent,
    line: Number(root.querySelector('[aria-current="step"]')?.dataset.line ?? NaN) || null,
    ran: Number(root.querySelector('.row.ran')?.dataset.line ?? NaN) || null,
    symbol: root.querySelector('.code-header .symbol').textContent,
    step: Number(root.querySelector('input[type="range"]').value),
  }));
}

/**
 * Brings what `locator` finds into view and waits until it is drawn. style.css lets the browser skip the lesson's
 * figures while they are far from the screen (content-visibility: auto); skipped content has no innerText and takes no
 * click until a frame has drawn it, which a forced click or a read right after a jump does not wait for.
 */
export async function drawn(locator) {
  await locator.scrollIntoViewIfNeeded();
  await locator.page().waitForFunction((node) => node.checkVisibility({ contentVisibilityAuto: true }), await locator.elementHandle());
}

/** The text of each entry of a pane, e.g. the host state's items, as laid out (innerText). */
export async function paneText(page, id, pane) {
  const body = figure(page, id).locator(`[data-pane="${pane}"]`);
  await drawn(body);
  return body.innerText();
}

/** The host state pane, read back as data (removed entries left out): `{items: [...], messages: [...]}`. */
export function hostState(page, id) {
  return figure(page, id).locator('[data-pane="state"] .field').evaluateAll((fields) =>
    Object.fromEntries(
      fields.map((field) => [
        field.querySelector('.key').textContent.replace('state.', ''),
        [...field.querySelectorAll('ol.entries > li:not(.removed)')].map((entry) => JSON.parse(entry.dataset.json)),
      ]),
    ),
  );
}

/** The locals pane read back as data: `{name: value}` (a binding moved away is left out). */
export function localsOf(page, id) {
  return figure(page, id).locator('[data-pane="locals"] ul.locals > li[data-json]').evaluateAll((items) =>
    Object.fromEntries(items.map((item) => [item.querySelector('.name').textContent, JSON.parse(item.dataset.json)])),
  );
}

/** The number of the one line of the shown listing whose text contains `snippet`. */
export async function lineOf(page, id, snippet) {
  const rows = figure(page, id).locator('.code-pane [data-line]').filter({ hasText: snippet });
  if ((await rows.count()) !== 1) throw new Error(`"${snippet}" is on ${await rows.count()} lines of ${id}`);
  return Number(await rows.getAttribute('data-line'));
}

/** The module loaded in node, for tests of the pure logic against real traces. */
export async function loadModule() {
  const api = await import(`${root}www/api.js`);
  await api.default({ module_or_path: await readFile(`${root}www/pkg/todo_trace_bg.wasm`) });
  return api;
}

/**
 * The serious and critical problems axe-core finds on the page, one line each. axe arrives as an
 * injected inline script, which the page's own CSP rightly refuses: open the page with `bypassCSP: true`.
 */
export async function axeProblems(page) {
  await page.addScriptTag({ path: `${root}node_modules/axe-core/axe.min.js` });
  const { violations } = await page.evaluate(() => window.axe.run(document));
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
}
