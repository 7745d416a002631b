// <todo-trace-figure> given hostile attributes, changed while off the page, and given values it cannot use: always a working figure, and a notice that lists what it left out.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { act, figure, openLesson, startBrowser, where } from './helpers.mjs';

let env;
before(async () => {
  env = await startBrowser();
});
after(() => env.close());

/**
 * A page of the test's own beside the lesson's files, with embed.js and nothing else; `body` is its body. The
 * lesson's CSP, so the element is checked under it.
 */
async function openPage(body) {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.errors = [];
  page.on('console', (message) => {
    if (message.type() === 'error') page.errors.push(message.text());
  });
  page.on('pageerror', (error) => page.errors.push(error.message));
  await page.route('**/element.html', (route) => route.fulfill({
    contentType: 'text/html',
    headers: { 'Content-Security-Policy': "script-src 'self' 'wasm-unsafe-eval'; object-src 'none'; base-uri 'none'" },
    body: `<!doctype html><html lang="en"><title>element</title><body>${body}<script type="module" src="embed.js"></script></body></html>`,
  }));
  await page.goto(`${env.origin}/element.html`);
  return page;
}

/** Waits until the `i`th element has been built: a working figure (a status line) or a failure; returns which. */
function built(page, i = 0) {
  return page.waitForFunction((i) => {
    const root = document.querySelectorAll('todo-trace-figure')[i]?.shadowRoot;
    if (root?.querySelector('.failure')) return 'failure';
    return root?.querySelector('[data-figure] [data-status]') ? 'figure' : false;
  }, i).then((handle) => handle.jsonValue());
}

/** The `i`th element's state as an author's script sees it: its problems, its error, its notice's lines. */
function element(page, i = 0) {
  return page.evaluate((i) => {
    const node = document.querySelectorAll('todo-trace-figure')[i];
    const notice = node.shadowRoot.querySelector('[data-figure] .problems');
    return {
      problems: node.problems.map(({ name, value }) => ({ name, value })),
      error: node.error === null ? null : String(node.error),
      notice: notice ? [...notice.querySelectorAll('p')].map((p) => p.textContent) : [],
    };
  }, i);
}

const host = (page, i = 0) => page.locator('todo-trace-figure').nth(i);

describe('any attribute value gives a working figure and a notice', () => {
  const STEPS = ['-1', '3.5', '-Infinity', 'Infinity', 'NaN', 'abc', '1e3', '', ' 2', '0x10', '9999', '-0'];

  test('a step that is not one of the figure\'s: the figure opens at the start and says so', async () => {
    const page = await openPage(STEPS.map((step) => `<todo-trace-figure figure="validate" lang="en" step="${step}"></todo-trace-figure>`).join(''));
    for (const [i, step] of STEPS.entries()) {
      assert.equal(await built(page, i), 'figure', `step="${step}"`);
      const seen = await element(page, i);
      assert.equal(seen.error, null, `step="${step}"`);
      assert.deepEqual(seen.problems, [{ name: 'step', value: step }], `step="${step}"`);
      assert.deepEqual(seen.notice, [`step=${step} was not understood and is ignored.`]);
      assert.equal(await host(page, i).locator('[data-status]').getAttribute('data-status'), 'idle');
    }
    // And each works: it steps, and runs to the end.
    const last = host(page, STEPS.length - 1);
    await last.locator('[data-action="step-into"]').click();
    assert.equal(await last.locator('[data-status]').getAttribute('data-status'), 'paused');
    await last.locator('[data-action="run"]').click();
    assert.equal(await last.locator('[data-status]').getAttribute('data-status'), 'done');
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });

  test('every attribute at once, hostile: each value left out is listed, as text', async () => {
    const evil = '<img src=x onerror="window.ran=1">';
    const page = await openPage(
      `<todo-trace-figure figure="write" lang="fr" scenario='${evil}' breakpoints="abc 99999 -3 1.5" step="-Infinity"></todo-trace-figure>`,
    );
    assert.equal(await built(page), 'figure');
    const seen = await element(page);
    const expected = [
      { name: 'lang', value: 'fr' },
      { name: 'breakpoints', value: 'abc' },
      { name: 'breakpoints', value: '-3' },
      { name: 'breakpoints', value: '1.5' },
      { name: 'step', value: '-Infinity' },
      { name: 'scenario', value: evil },
      { name: 'breakpoints', value: '99999' },
    ];
    assert.deepEqual(seen.problems, expected);
    assert.equal(seen.error, null);
    // The notice lists five at most (here in Chinese, the language the figure fell back to), then how many more.
    assert.deepEqual(seen.notice, [
      ...expected.slice(0, 5).map(({ name, value }) => `${name}=${value} 无法识别，已忽略。`),
      '另有 2 个值无法识别，也已忽略。',
    ]);
    assert.equal(await page.evaluate(() => document.querySelector('todo-trace-figure').shadowRoot.querySelectorAll('img').length), 0);
    assert.equal(await page.evaluate(() => window.ran), undefined);
    await host(page).locator('[data-action="run"]').click();
    assert.equal(await host(page).locator('[data-status]').getAttribute('data-status'), 'done');
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });

  test('an attribute changed to a bad value on a built figure: rebuilt, with the notice; changed back, without', async () => {
    const page = await openPage('<todo-trace-figure figure="validate" lang="en" step="2"></todo-trace-figure>');
    assert.equal(await built(page), 'figure');
    assert.equal(Number(await host(page).locator('input[type="range"]').inputValue()), 2);
    await page.evaluate(() => document.querySelector('todo-trace-figure').setAttribute('step', '3.5'));
    await host(page).locator('.problems').waitFor();
    assert.deepEqual((await element(page)).problems, [{ name: 'step', value: '3.5' }]);
    assert.equal(Number(await host(page).locator('input[type="range"]').inputValue()), 0);
    await page.evaluate(() => document.querySelector('todo-trace-figure').setAttribute('step', 'end'));
    await host(page).locator('[data-status="done"]').waitFor();
    assert.deepEqual(await element(page), { problems: [], error: null, notice: [] });
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
});

describe('changes made while the element is off the page apply when it is back', () => {
  const ITEMS = [{ id: 'd', content: 'set while detached', status: 'pending' }];

  test('data, scenario and step set while detached', async () => {
    const page = await openPage('<div id="here"><todo-trace-figure figure="write" lang="en"></todo-trace-figure></div>');
    assert.equal(await built(page), 'figure');
    await page.evaluate((items) => {
      const node = document.querySelector('todo-trace-figure');
      node.remove();
      node.data = items;
      window.detached = node;
    }, ITEMS);
    await page.evaluate(() => document.getElementById('here').append(window.detached));
    await host(page).locator('pre.input', { hasText: 'set while detached' }).waitFor({ state: 'attached' });
    assert.equal(await host(page).locator('select[data-control="scenario"]').inputValue(), 'input');

    // Again, with other data and the attributes too: all of it applies.
    await page.evaluate(() => {
      const node = window.detached;
      node.remove();
      node.setAttribute('scenario', 'active');
      node.setAttribute('breakpoints', 'x');
      node.data = [{ id: 'e', content: 'set again while detached', status: 'completed' }];
    });
    await page.evaluate(() => document.getElementById('here').append(window.detached));
    await host(page).locator('pre.input', { hasText: 'set again while detached' }).waitFor({ state: 'attached' });
    assert.deepEqual((await element(page)).problems, [{ name: 'breakpoints', value: 'x' }]);
    // The scenario the attribute names is the figure's scenario (the link's), while it shows the data.
    assert.equal(await page.evaluate(() => window.detached.place().scenario), 'active');
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });

  test('attributes changed while detached, before and after the first build', async () => {
    const page = await openPage('<div id="here"></div>');
    // Never on the page before: made, changed, then added.
    await page.evaluate(() => {
      const node = document.createElement('todo-trace-figure');
      node.setAttribute('figure', 'validate');
      node.setAttribute('lang', 'en');
      document.getElementById('here').append(node);
      node.remove(); // taken off before its build's turn
      node.setAttribute('scenario', 'duplicate');
      window.node = node;
    });
    await page.evaluate(() => document.getElementById('here').append(window.node));
    assert.equal(await built(page), 'figure');
    assert.equal(await host(page).locator('select[data-control="scenario"]').inputValue(), 'duplicate');

    // Built, taken off, its attributes changed, and back: the new attributes, in a new language. Figures are built
    // one after another, so once a figure added after the change is built, any build the change started has had its
    // turn while the element was off the page.
    await page.evaluate(() => {
      window.node.remove();
      window.node.setAttribute('lang', 'zh');
      window.node.setAttribute('scenario', 'unknown');
      window.node.setAttribute('step', 'end');
      const witness = document.createElement('todo-trace-figure');
      witness.setAttribute('figure', 'write');
      witness.setAttribute('lang', 'en');
      document.body.append(witness);
    });
    await built(page, 0);
    assert.equal(await page.evaluate(() => document.querySelector('todo-trace-figure').getAttribute('figure')), 'write', 'the witness');
    await page.evaluate(() => document.getElementById('here').append(window.node));
    await page.waitForFunction(() => window.node.shadowRoot.querySelector('select[data-control="scenario"]')?.value === 'unknown');
    // At the end of "unknown", which validation refuses.
    assert.equal(await host(page).locator('[data-status]').getAttribute('data-status'), 'error');
    assert.equal(await host(page).locator('[data-action="run"]').textContent(), '运行');
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });

  test('taken off and put back with nothing changed, the figure stays where the reader left it', async () => {
    const page = await openPage('<div id="here"><todo-trace-figure figure="validate" lang="en"></todo-trace-figure></div><div id="there"></div>');
    assert.equal(await built(page), 'figure');
    await host(page).locator('[data-action="step-into"]').click();
    await host(page).locator('[data-action="step-into"]').click();
    const figureNode = await page.evaluate(() => {
      const node = document.querySelector('todo-trace-figure');
      window.shown = node.shadowRoot.querySelector('[data-figure]');
      document.getElementById('there').append(node);
      return node.shadowRoot.querySelector('[data-figure]') === window.shown;
    });
    assert.ok(figureNode);
    assert.equal(Number(await host(page).locator('input[type="range"]').inputValue()), 2);
    assert.equal(await page.evaluate(() => document.querySelector('todo-trace-figure').shadowRoot.querySelector('[data-figure]') === window.shown), true);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
});

describe('every problem is shown', () => {
  test('the lesson page: every value of the link that is left out is listed, the loop figure\'s too', async () => {
    const query = '?lang=en&loop=nope&loop.on=nope&loop.bp=run_loop.1e3&validate.step=abc&write=active&write=replace&colour=blue';
    const page = await openLesson(env, query);
    // The loop figure is built after the others, once the page has shown: its own notice says what it left out.
    const loop = figure(page, 'loop');
    await loop.locator('.problems').waitFor();
    const loopNotice = await loop.locator('.problems p').allTextContents();
    assert.deepEqual(loopNotice, [
      'loop=nope was not understood and is ignored.',
      'loop.bp=run_loop.1e3 was not understood and is ignored.',
      'loop.on=nope was not understood and is ignored.',
    ]);
    // Every problem any figure lists (the page shares one list) is in a notice: the page's, or its figure's.
    const { problems, shown } = await page.evaluate(() => {
      const nodes = [...document.querySelectorAll('todo-trace-figure')];
      const notices = [document.querySelector('.notice'), ...nodes.map((n) => n.shadowRoot.querySelector('.problems'))];
      return {
        problems: nodes[0].problems.map(({ name, value }) => `${name}=${value}`),
        shown: notices.flatMap((n) => (n ? [...n.querySelectorAll('p')].map((p) => p.textContent) : [])),
      };
    });
    for (const problem of ['loop=nope', 'loop.on=nope', 'loop.bp=run_loop.1e3', 'validate.step=abc', 'write=replace', 'colour=blue']) {
      assert.ok(problems.includes(problem), `el.problems lists ${problem}: ${problems}`);
    }
    for (const problem of problems) assert.ok(shown.some((line) => line.includes(`${problem} `)), `${problem} is shown: ${shown}`);
    // What was understood still applies: the first value of write, the loop's default scenario.
    assert.equal(await figure(page, 'write').locator('select[data-control="scenario"]').inputValue(), 'active');
    assert.equal((await where(page, 'loop')).status, 'idle');
    await act(page, 'loop', 'run');
    assert.equal((await where(page, 'loop')).status, 'done');
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });

  test('an element: lang, scenario and breakpoints it cannot use are in its notice as in el.problems', async () => {
    const page = await openPage('<todo-trace-figure figure="prepare" lang="xx" scenario="nope" breakpoints="1 x"></todo-trace-figure>');
    assert.equal(await built(page), 'figure');
    const seen = await element(page);
    assert.deepEqual(seen.problems, [
      { name: 'lang', value: 'xx' },
      { name: 'breakpoints', value: 'x' },
      { name: 'scenario', value: 'nope' },
      { name: 'breakpoints', value: '1' },
    ]);
    assert.deepEqual(seen.notice, seen.problems.map(({ name, value }) => `${name}=${value} 无法识别，已忽略。`));
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
});
