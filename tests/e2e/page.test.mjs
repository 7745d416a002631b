// End-to-end: accessibility (axe-core, both themes and languages), phone layout, safety (CSP, text only, own origin), and a clear message when WebAssembly fails.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { get } from 'node:http';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { act, axeProblems, figure, lineOf, loadModule, openLesson, startBrowser, switchLanguage, until } from './helpers.mjs';
import { SLOW_4G } from '../../bench/slow4g.mjs';

let env;
before(async () => {
  env = await startBrowser();
});
after(() => env.close());

// Puts every figure somewhere interesting, so markers, changes, returns and the setup part are all on screen.
async function busyPage(page) {
  const assign = await lineOf(page, 'write', 'state.items = replacement');
  await figure(page, 'write').locator(`.code-pane [data-line="${assign}"] button`).click();
  await act(page, 'write', 'debug');
  await act(page, 'write', 'step-over');
  await act(page, 'validate', 'step-into');
  await act(page, 'validate', 'step-into');
  await act(page, 'validate', 'step-into');
  await figure(page, 'prepare').locator('select[data-control="scenario"]').selectOption('updated');
  await act(page, 'prepare', 'run');
  await figure(page, 'prepare').locator('details.setup summary').click();
}

describe('axe-core finds no serious or critical problem', () => {
  for (const colorScheme of ['light', 'dark']) {
    for (const lang of ['zh', 'en']) {
      test(`${lang}, ${colorScheme}`, async () => {
        const page = await openLesson(env, lang === 'en' ? '?lang=en' : '', { colorScheme, bypassCSP: true });
        await busyPage(page);
        assert.deepEqual(await axeProblems(page), []);
        assert.deepEqual(page.errors, []);
      });
    }
  }
});

describe('layout', () => {
  test('on a phone the panes stack under the code and nothing is wider than the screen', async () => {
    const page = await openLesson(env, '?lang=en', { viewport: { width: 390, height: 844 } });
    const code = await figure(page, 'write').locator('.code-pane').boundingBox();
    const locals = await figure(page, 'write').locator('[data-pane="locals"]').boundingBox();
    assert.ok(locals.y > code.y + code.height - 1, 'locals below the code');
    assert.ok(Math.abs(locals.x - code.x) < 2, 'same column');
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(scrollWidth <= 390, `page is ${scrollWidth}px wide`);
  });

  test('on a phone every tap target in the figures is 24 px or has room around it (WCAG 2.5.8, as Lighthouse checks)', async () => {
    // bypassCSP: axe and the style below arrive inline. The figures are all drawn (style.css skips those far from the
    // screen), and the loop figure is at its end, where its values show as trees.
    const page = await openLesson(env, '?lang=en&loop.step=end', { viewport: { width: 412, height: 823 }, isMobile: true, hasTouch: true, bypassCSP: true });
    await page.addStyleTag({ content: 'todo-trace-figure { content-visibility: visible !important; }' });
    const summaries = await page.locator('[data-figure] details.tree > summary').evaluateAll((nodes) => nodes.map((node) => node.getBoundingClientRect().height));
    assert.ok(summaries.length > 0, 'some value is shown as a tree');
    assert.ok(summaries.every((height) => height >= 24), `summary heights ${summaries}`);
    await page.addScriptTag({ path: fileURLToPath(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url)) });
    const { violations } = await page.evaluate(() => window.axe.run(document, { runOnly: ['target-size'] }));
    assert.deepEqual(violations.flatMap((v) => v.nodes.map((n) => n.target.join(' '))), []);
  });

  test('on a desktop the panes sit beside the code', async () => {
    const page = await openLesson(env, '?lang=en');
    const code = await figure(page, 'write').locator('.code-pane').boundingBox();
    const locals = await figure(page, 'write').locator('[data-pane="locals"]').boundingBox();
    assert.ok(locals.x > code.x + code.width - 1);
  });

  test('the two markers differ in shape, not only in colour', async () => {
    const page = await openLesson(env, '?lang=en');
    await act(page, 'write', 'step-into');
    await act(page, 'write', 'step-over');
    const marks = await figure(page, 'write').evaluate((root) => ({
      next: root.querySelector('.row.next .mark').textContent,
      ran: root.querySelector('.row.ran .mark').textContent,
    }));
    // The shape is shown, the words are for screen readers.
    assert.equal(marks.next, '▶line about to run');
    assert.equal(marks.ran, '▷line this function just ran');
  });
});

describe('fonts', () => {
  test('the Chinese page is drawn in a Chinese font, not in boxes', async () => {
    const page = await openLesson(env);
    // Chromium says which installed fonts drew a node's glyphs.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('DOM.enable');
    await cdp.send('CSS.enable');
    const { root } = await cdp.send('DOM.getDocument');
    const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector: 'h1' });
    const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
    assert.match(await page.locator('h1').textContent(), /[\u4e00-\u9fff]/);
    assert.ok(fonts.some((font) => /CJK/.test(font.familyName) && font.glyphCount > 0), JSON.stringify(fonts));
  });
});

describe('highlighting', () => {
  test('the listings are highlighted once shown, callees and call entries too, their text unchanged', async () => {
    const page = await openLesson(env, '?lang=en');
    // Highlighting follows the first frame (figure.js): wait for the keywords of the last figure's call entry.
    await figure(page, 'loop').locator('details.setup .listing .tok-kwd').first().waitFor({ state: 'attached' });
    const api = await loadModule();
    // The lesson's prose places the figures: the three functions, then the agent loop.
    const shownIds = await page.locator('[data-figure]').evaluateAll((roots) => roots.map((root) => root.dataset.figure));
    assert.deepEqual(shownIds, ['validate', 'write', 'prepare', 'loop']);
    for (const { id, symbol, entry } of api.figures().filter((f) => shownIds.includes(f.id))) {
      const lines = (listing) => listing.lines.map((line) => line.text);
      const shown = (selector) => figure(page, id).locator(`${selector} code`).evaluateAll((codes) => codes.map((code) => code.textContent));
      assert.deepEqual(await shown('.code-pane .row'), lines(api.source(symbol)), `${id}: the code pane`);
      assert.deepEqual(await shown('details.setup .row'), lines(api.source(entry)), `${id}: the call entry`);
      assert.ok(await figure(page, id).locator('.code-pane .row .tok-kwd').count() > 0, `${id}: keywords marked`);
    }
    // A callee's listing is highlighted before the reader steps into it.
    await act(page, 'write', 'step-into');
    await act(page, 'write', 'step-into');
    assert.equal(await figure(page, 'write').locator('.code-header .symbol').textContent(), 'validate_todos');
    assert.ok(await figure(page, 'write').locator('.code-pane .row .tok-kwd').count() > 0, 'the callee is highlighted');
    assert.deepEqual(page.errors, []);
  });
});

describe('safety', () => {
  test('the Content-Security-Policy allows no eval and no inline script', async () => {
    const html = await readFile(new URL('../../www/index.html', import.meta.url), 'utf8');
    const csp = html.match(/http-equiv="Content-Security-Policy" content="([^"]+)"/)[1];
    assert.match(csp, /script-src 'self' 'wasm-unsafe-eval'(;|$)/);
    assert.doesNotMatch(csp, /'unsafe-eval'|'unsafe-inline'/);
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
    assert.doesNotMatch(html, /\son[a-z]+=/, 'no inline handlers');
  });

  test('the page code never writes markup from strings', async () => {
    const dir = new URL('../../www/', import.meta.url);
    for (const name of (await readdir(dir)).filter((n) => n.endsWith('.js'))) {
      const source = await readFile(new URL(name, dir), 'utf8');
      assert.doesNotMatch(source, /innerHTML|outerHTML|insertAdjacentHTML|document\.write/, name);
    }
  });

  test('only the page’s own files are requested, and all of them exist', async () => {
    const page = await openLesson(env, '?lang=en');
    await busyPage(page);
    const outside = page.requests.filter((url) => new URL(url).origin !== env.origin);
    assert.deepEqual(outside, []);
    // Every request ends in an answer or a failure; wait for the last of them to arrive.
    await until(() => page.responses.length + page.failed.length === page.requests.length, 'every request has ended');
    assert.deepEqual(page.failed, []);
    // Every answer was the file itself (a fresh context has no cache, so no 304).
    const notOk = page.responses.filter(({ status }) => status !== 200);
    assert.deepEqual(notOk, []);
    assert.ok(page.responses.some(({ url }) => url.endsWith('.wasm')), 'the module was among them');
    // style.css once: the figures' shadow roots share a copy of the page's own sheet (embed.js), with no fetch of their own.
    await page.locator('[data-figure="loop"] [data-status]').waitFor();
    assert.deepEqual(page.requests.filter((url) => new URL(url).pathname === '/style.css'), [`${env.origin}/style.css`]);
    assert.deepEqual(page.errors, []);
  });

  test('every module of the page is preloaded, so none waits for the module that imports it', async () => {
    const page = await openLesson(env, '?lang=en');
    await page.locator('[data-figure="loop"] [data-status]').waitFor();
    const preloaded = await page.evaluate(() =>
      [...document.querySelectorAll('link[rel="modulepreload"], link[rel="preload"]')].map((link) => new URL(/** @type {HTMLLinkElement} */ (link).href).pathname),
    );
    // index.html names these itself, and main.js imports link.js before the first paint (opening.js preloads the rest
    // after it, the whole module for the loop figure last).
    const named = ['/main.js', '/opening.js', '/link.js'];
    const modules = page.requests.map((url) => new URL(url).pathname).filter((path) => path.endsWith('.js') || path.endsWith('.wasm'));
    assert.ok(modules.includes('/tree.js'), 'the check sees a module imported two levels down');
    assert.ok(modules.includes('/pkg/todo_trace_bg.wasm'), 'the check sees the whole module');
    assert.deepEqual(modules.filter((path) => !preloaded.includes(path) && !named.includes(path)), []);
  });

  test('only the first paint’s own files are asked for before that paint is shown', async () => {
    // Lighthouse's estimate of the largest paint counts every request that ended before the paint it saw as holding
    // it up: the module and the page's modules are asked for once the first paint is shown (opening.js, main.js).
    const page = await openLesson(env);
    const early = await page.evaluate(() => {
      const paint = performance.getEntriesByName('first-contentful-paint')[0].startTime;
      return [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')]
        .filter((entry) => entry.startTime < paint)
        .map((entry) => new URL(entry.name).pathname);
    });
    // main.js's own static import may come before it too, and the icon the browser asks for when it likes; nothing else.
    assert.deepEqual(early.filter((path) => !['/', '/style.css', '/opening.js', '/main.js', '/link.js', '/favicon.svg'].includes(path)), []);
  });

  test('the whole module is asked for after the plan module, so the first figures’ bytes come first', async () => {
    // On Lighthouse's Slow 4G, where the order shows.
    const page = await openLesson(env, '?lang=en', {}, SLOW_4G);
    const plan = page.requests.findIndex((url) => new URL(url).pathname === '/pkg-plan/todo_trace_bg.wasm');
    const whole = page.requests.findIndex((url) => new URL(url).pathname === '/pkg/todo_trace_bg.wasm');
    assert.ok(plan >= 0 && whole > plan, `the plan module was request ${plan}, the whole module ${whole}`);
  });

  test('the server sends text and the module gzipped to a client that asks, with their length, and as they are otherwise', async () => {
    const answer = (path, headers) =>
      new Promise((done, fail) => {
        get(`${env.origin}${path}`, { headers }, (res) => {
          const chunks = [];
          res.on('data', (chunk) => chunks.push(chunk));
          res.on('end', () => done({ headers: res.headers, body: Buffer.concat(chunks) }));
        }).on('error', fail);
      });
    for (const path of ['/figure.js', '/style.css', '/pkg/todo_trace_bg.wasm']) {
      const file = await readFile(new URL(`../../www${path}`, import.meta.url));
      const zipped = await answer(path, { 'accept-encoding': 'gzip, deflate, br' });
      assert.equal(zipped.headers['content-encoding'], 'gzip', path);
      assert.equal(zipped.headers.vary, 'Accept-Encoding');
      assert.equal(Number(zipped.headers['content-length']), zipped.body.length);
      assert.ok(zipped.body.length < file.length / 2, `${path}: ${zipped.body.length} of ${file.length} bytes`);
      assert.ok(gunzipSync(zipped.body).equals(file), path);
      for (const refused of [{}, { 'accept-encoding': 'br, gzip;q=0' }]) {
        const plain = await answer(path, refused);
        assert.equal(plain.headers['content-encoding'], undefined, path);
        assert.equal(Number(plain.headers['content-length']), file.length);
        assert.ok(plain.body.equals(file), path);
      }
    }
  });

  test('the check above sees a missing file: a 404 is an answer, not a failed request', async () => {
    const page = await openLesson(env, '?lang=en');
    await Promise.all([page.waitForResponse('**/no-such-file.js'), page.evaluate(() => fetch('/no-such-file.js'))]);
    assert.deepEqual(page.failed, []);
    assert.deepEqual(page.responses.filter(({ status }) => status !== 200).map(({ url, status }) => [new URL(url).pathname, status]), [['/no-such-file.js', 404]]);
  });
});

describe('loading', () => {
  test('if WebAssembly cannot load, the page says so instead of staying blank', async () => {
    const context = await env.browser.newContext();
    const page = await context.newPage();
    await page.route('**/*.wasm', (route) => route.abort());
    await page.goto(`${env.origin}/?lang=en`);
    const alert = page.locator('[role="alert"]');
    await alert.waitFor();
    assert.match(await alert.textContent(), /The WebAssembly module could not be loaded/);
    assert.equal(await page.locator('[data-loading]').count(), 0, 'the loading indicator is gone');
    await context.close();
  });

  test('a lesson text that names a line the source does not have is reported, not shown half-built', async () => {
    const context = await env.browser.newContext();
    const page = await context.newPage();
    await page.route('**/text-en.js', async (route) => {
      const response = await route.fetch();
      const body = (await response.text()).replaceAll('{line:new_list.push(}', '{line:no_such_line(}');
      await route.fulfill({ response, body });
    });
    await page.goto(`${env.origin}/?lang=en`);
    const alert = page.locator('[role="alert"]');
    await alert.waitFor();
    assert.match(await alert.textContent(), /^Something went wrong.*"no_such_line\(" matches 0 lines/);
    assert.equal(await page.locator('[data-figure]').count(), 0);
    await context.close();
  });

  test('only the words of the language shown are downloaded, the other on switching', async () => {
    const context = await env.browser.newContext();
    const page = await context.newPage();
    const fetched = [];
    page.on('request', (request) => fetched.push(new URL(request.url()).pathname));
    await page.goto(`${env.origin}/?lang=en`);
    await page.locator('[data-figure="prepare"] [data-status="idle"]').waitFor();
    assert.ok(fetched.includes('/text-en.js') && fetched.includes('/lesson-en.js'));
    assert.ok(!fetched.includes('/text-zh.js') && !fetched.includes('/lesson-zh.js'), 'the Chinese words are not fetched for an English page');
    await switchLanguage(page, 'zh');
    assert.ok(fetched.includes('/text-zh.js') && fetched.includes('/lesson-zh.js'));
    await context.close();
  });

  test('a loading indicator is there until the module is ready', async () => {
    const context = await env.browser.newContext();
    const page = await context.newPage();
    let release;
    const held = new Promise((done) => {
      release = done;
    });
    await page.route('**/*.wasm', async (route) => {
      await held;
      await route.continue();
    });
    // Not until the load event: the held module may hold that event too.
    await page.goto(`${env.origin}/`, { waitUntil: 'commit' });
    const loading = page.locator('[data-loading]');
    await loading.waitFor();
    assert.match(await loading.textContent(), /正在加载/);
    release();
    await page.locator('[data-figure="write"] [data-status="idle"]').waitFor();
    assert.equal(await loading.count(), 0);
    await context.close();
  });
});
