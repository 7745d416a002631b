// End-to-end: the reader's experience of issue 13 in both languages: code that wraps instead of scrolling sideways, a
// debugger that stays in view, "things to try" that set themselves up, values as structures, and the smaller things.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { act, figure, hostState, lineOf, openLesson, PHONE, startBrowser, where } from './helpers.mjs';

let env;
before(async () => {
  env = await startBrowser();
});
after(() => env.close());

const LANGS = ['en', 'zh'];
const FIGURES = ['validate', 'write', 'prepare'];
const SIZES = [['desktop', {}], ['phone', PHONE]];

/** Every code row of the figure's code pane and call entry listing that is wider than its listing: should be none. */
function overflowingRows(page, id) {
  return figure(page, id).evaluate((root) => {
    const wide = [];
    for (const listing of root.querySelectorAll('.listing')) {
      const edge = listing.getBoundingClientRect().right;
      if (listing.scrollWidth > listing.clientWidth + 1) wide.push(`a listing scrolls sideways: ${listing.scrollWidth} > ${listing.clientWidth}`);
      for (const row of listing.querySelectorAll('.row')) {
        const code = row.querySelector('code');
        if (row.getBoundingClientRect().right > edge + 1 || code.scrollWidth > code.clientWidth + 1) wide.push(row.textContent.slice(0, 60));
      }
    }
    return wide;
  });
}

/** A node's box against the viewport: whether all of it is visible, and below the figure's sticky bar. */
const inView = (page, selector) =>
  page.evaluate((selector) => {
    const node = document.querySelector(selector);
    if (!node || node.getBoundingClientRect().height === 0) return false;
    const box = node.getBoundingClientRect();
    return box.top >= -1 && box.bottom <= innerHeight + 1;
  }, selector);

describe('code wraps instead of scrolling sideways', () => {
  for (const lang of LANGS) {
    for (const [size, options] of SIZES) {
      test(`${lang}, ${size}: no code row is wider than its pane, nor the page wider than the window`, async () => {
        const page = await openLesson(env, `?lang=${lang}`, options);
        for (const id of FIGURES) {
          await figure(page, id).locator('details.setup > summary').click();
          await figure(page, id).locator('.listing.plain .row').first().waitFor();
          assert.deepEqual(await overflowingRows(page, id), [], `${id}'s code`);
          // The callee listings too: each item's "Show me" lands in the listing it talks about.
          for (const button of await figure(page, id).locator('[data-action="show-me"]').all()) {
            await button.click();
            assert.deepEqual(await overflowingRows(page, id), [], `${id}'s code after a "Show me"`);
          }
        }
        const widths = await page.evaluate(() => [document.documentElement.scrollWidth, innerWidth]);
        assert.ok(widths[0] <= widths[1], `the page is ${widths[0]} px wide in a ${widths[1]} px window`);
        assert.deepEqual(page.errors, []);
      });
    }
  }

  test('at 320 px a long line wraps with a hanging indent, its number and marker on its first row', async () => {
    const page = await openLesson(env, '?lang=en', { viewport: { width: 320, height: 700 } });
    const prepare = figure(page, 'prepare');
    await prepare.locator('[data-action="show-me"]').first().click(); // pauses right after prepared[0].content = … ran
    const line = await lineOf(page, 'prepare', 'prepared[0].content =');
    const shape = await prepare.locator(`.code-pane [data-line="${line}"]`).evaluate((row) => {
      const code = row.querySelector('code');
      const range = document.createRange();
      range.selectNodeContents(code);
      const rects = [...range.getClientRects()].filter((r) => r.width > 0);
      const first = Math.min(...rects.map((r) => r.top));
      const text = code.textContent;
      // Where the line's text starts (after its own indentation), and where its continuation rows start.
      const startRange = document.createRange();
      const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
      let offset = text.length - text.trimStart().length;
      let node = walker.nextNode();
      while (node && offset >= node.textContent.length) {
        offset -= node.textContent.length;
        node = walker.nextNode();
      }
      startRange.setStart(node, offset);
      startRange.setEnd(node, offset + 1);
      const textStart = startRange.getBoundingClientRect().left;
      const continued = rects.filter((r) => r.top > first + 2);
      const number = row.querySelector('button.bp').getBoundingClientRect();
      const mark = row.querySelector('.mark').getBoundingClientRect();
      return {
        rows: new Set(rects.map((r) => Math.round(r.top))).size,
        continuationLeft: Math.min(...continued.map((r) => r.left)),
        textStart,
        numberTop: number.top - first,
        numberHeight: number.height,
        markTop: mark.top - first,
        codeHeight: code.getBoundingClientRect().height,
        ran: row.classList.contains('ran'),
      };
    });
    assert.ok(shape.rows >= 2, `the line is on ${shape.rows} rows`);
    assert.ok(shape.continuationLeft > shape.textStart, `continuation at ${shape.continuationLeft}, text from ${shape.textStart}`);
    assert.ok(Math.abs(shape.numberTop) < 3 && Math.abs(shape.markTop) < 3, 'number and marker on the first row');
    assert.ok(shape.numberHeight < shape.codeHeight / 1.5, 'the number stays one row tall');
    assert.ok(shape.ran, 'the line just run is marked, wrapped as it is');
    const widths = await page.evaluate(() => [document.documentElement.scrollWidth, innerWidth]);
    assert.ok(widths[0] <= widths[1], `the page is ${widths[0]} px wide in a ${widths[1]} px window`);
  });
});

describe('the debugger stays in view', () => {
  for (const [size, options] of SIZES) {
    test(`${size}: the controls and status stay in view while the code and panes scroll`, async () => {
      const page = await openLesson(env, '?lang=en', options);
      await act(page, 'write', 'step-into');
      // Scrolled down to the output pane, then to where the panes start: the controls and status stay in the window.
      for (const [selector, block] of [['[data-pane="output"]', 'end'], ['.panes', 'start']]) {
        await figure(page, 'write').locator(selector).evaluate((node, block) => node.scrollIntoView({ block }), block);
        await page.waitForFunction(() => {
          // The figure is inside its element's shadow root (embed.js).
          const root = document.querySelector('todo-trace-figure[figure="write"]').shadowRoot;
          const status = root.querySelector('[data-figure="write"] [data-status]').getBoundingClientRect();
          const controls = root.querySelector('[data-figure="write"] .controls').getBoundingClientRect();
          return status.top >= -1 && status.bottom <= innerHeight + 1 && controls.top >= -1;
        });
      }
      // Where the panes start, the bar is stuck at the top of the window, above them.
      const [bar, panes] = await figure(page, 'write').evaluate((root) => [root.querySelector('.bar').getBoundingClientRect(), root.querySelector('.panes').getBoundingClientRect()].map((box) => [box.top, box.bottom]));
      assert.ok(Math.abs(bar[0]) < 1, `the bar is at ${bar[0]}`);
      assert.ok(panes[0] >= bar[1] - 1, 'the bar does not cover the panes');
      await figure(page, 'write').locator('[data-action="step-into"]').click();
      assert.equal((await where(page, 'write')).step, 2);
    });
  }

  test('phone: the locals come right under the code, on the same screen', async () => {
    const page = await openLesson(env, '?lang=en', PHONE);
    await act(page, 'validate', 'debug');
    const gap = await figure(page, 'validate').evaluate((root) => {
      root.querySelector('.panes').scrollIntoView({ block: 'start' });
      const code = root.querySelector('.code-pane').getBoundingClientRect();
      const locals = root.querySelector('[data-pane="locals"]').getBoundingClientRect();
      return { gap: locals.top - code.bottom, localsTop: locals.top, height: innerHeight };
    });
    assert.ok(gap.gap >= 0 && gap.gap < 24, `the locals start ${gap.gap} px under the code`);
    assert.ok(gap.localsTop < gap.height - 80, `the locals start at ${gap.localsTop} px of ${gap.height}`);
  });

  for (const lang of LANGS) {
    for (const [size, options] of SIZES) {
      test(`${lang}, ${size}: after Run my input the refusal, or the status, is in the window`, async () => {
        const page = await openLesson(env, `?lang=${lang}`, options);
        for (const id of ['prepare', 'validate']) {
          const root = figure(page, id);
          await root.locator('details.setup > summary').click();
          // A valid run first, so a refusal after it collapses the panes above the editor.
          await root.locator('[data-action="run-input"]').click();
          await page.waitForFunction((id) => {
            const status = document.querySelector(`todo-trace-figure[figure="${id}"]`).shadowRoot.querySelector('[data-status]');
            const box = status.getBoundingClientRect();
            return status.dataset.status !== 'idle' && box.top >= -1 && box.bottom <= innerHeight + 1;
          }, id);
          await root.locator('textarea').fill('[{"id": "1", "content": "x", "status": "pending"},\n  oops]');
          await root.locator('[data-action="run-input"]').click();
          await page.waitForFunction((id) => {
            const root = document.querySelector(`todo-trace-figure[figure="${id}"]`).shadowRoot;
            const error = root.querySelector('.input-error');
            const bar = root.querySelector('.bar').getBoundingClientRect();
            const box = error.getBoundingClientRect();
            return !error.hidden && box.top >= bar.bottom - 1 && box.bottom <= innerHeight + 1;
          }, id);
          await root.locator('[data-action="reset-input"]').click();
        }
        assert.deepEqual(page.errors, []);
      });
    }
  }
});

// What each "Show me" must lead to, per figure and item: the claims its words make, checked on the page. The data of
// the items (scenario, breakpoints, commands) is the same in both languages; the words differ.
const local = (page, id, name) =>
  figure(page, id).locator('[data-pane="locals"] ul.locals > li').filter({ has: page.locator('code.name', { hasText: new RegExp(`^${name}$`) }) });
const output = (page, id) => figure(page, id).locator('[data-pane="output"]').innerText();
const items = (root) => root.locator(':scope .value > details.tree > .tree-items > li');

const CLAIMS = {
  validate: [
    async (page, now) => {
      assert.equal(now.line, await lineOf(page, 'validate', 'new_list.push('));
      assert.equal(await local(page, 'validate', 'new_list').locator('.value').innerText(), '[]');
      assert.equal(await local(page, 'validate', 'index').locator('.value').innerText(), '0');
      // One step on, the item just appended is marked as added.
      await act(page, 'validate', 'step-over');
      assert.equal(await local(page, 'validate', 'new_list').locator('[data-change="new"]').count(), 1, 'the item added is marked');
      await act(page, 'validate', 'step-back');
      await act(page, 'validate', 'continue');
      assert.equal((await where(page, 'validate')).line, now.line);
      assert.equal(await items(local(page, 'validate', 'new_list')).count(), 1, 'Continue: new_list holds the first item');
    },
    async (page, now) => {
      assert.equal(now.line, await lineOf(page, 'validate', 'TodoError::DuplicateId'));
      assert.equal(await figure(page, 'validate').locator('.ticks .tick').count(), 2, 'the append was reached once');
      assert.equal(await items(local(page, 'validate', 'new_list')).count(), 1, 'new_list holds only the first item');
      await act(page, 'validate', 'step-over');
      assert.match((await where(page, 'validate')).statusText, /duplicate_id/);
    },
    async (page, now) => {
      assert.equal(now.line, await lineOf(page, 'validate', 'if active > 1'));
      assert.equal(await local(page, 'validate', 'active').locator('.value').innerText(), '2');
      assert.equal(await items(local(page, 'validate', 'seen_ids')).count(), 2, 'seen_ids holds both ids');
    },
    async (page, now) => {
      assert.equal(now.line, await lineOf(page, 'validate', 'for (index, item)'));
      await act(page, 'validate', 'step-into');
      assert.equal((await where(page, 'validate')).line, await lineOf(page, 'validate', 'Ok(new_list)'), 'the loop body never runs');
    },
    async (page, now) => {
      assert.match(now.statusText, /duplicate_id/);
      assert.match(await figure(page, 'validate').locator('textarea').inputValue(), /" 1 "/);
      assert.equal(await figure(page, 'validate').locator('details.setup').getAttribute('open'), '');
    },
  ],
  write: [
    async (page, now) => {
      assert.equal(now.line, await lineOf(page, 'write', 'state.items = replacement'));
      assert.deepEqual((await hostState(page, 'write')).items.map((i) => i.status), ['completed', 'pending'], 'the old plan');
      assert.match(await local(page, 'write', 'replacement').innerText(), /in_progress/);
      await act(page, 'write', 'step-over');
      assert.deepEqual((await hostState(page, 'write')).items.map((i) => i.status), ['completed', 'in_progress'], 'the new plan');
      const changed = figure(page, 'write').locator('[data-pane="state"] [data-change="changed"]');
      assert.equal(await changed.count(), 1, 'only the status field of item 2 is marked');
      assert.match(await changed.innerText(), /"status": "in_progress"/);
      assert.equal(await local(page, 'write', 'replacement').getAttribute('class'), 'changed moved');
    },
    async (page, now) => {
      assert.deepEqual([now.symbol, now.line], ['write_todos', await lineOf(page, 'write', 'validate_todos(items)?')]);
      assert.equal(now.step, 1);
      await act(page, 'write', 'step-into');
      assert.equal((await where(page, 'write')).symbol, 'validate_todos');
      const frames = figure(page, 'write').locator('[data-pane="stack"] button');
      assert.equal(await frames.count(), 2);
      await frames.nth(1).click();
      assert.equal(await frames.nth(1).getAttribute('aria-pressed'), 'true');
      assert.equal(await figure(page, 'write').locator('[data-pane="locals"] .picked').count(), 1, "the caller's locals");
      assert.equal(await local(page, 'write', 'state').count(), 1);
      await act(page, 'write', 'step-out');
      const back = await where(page, 'write');
      assert.equal(back.symbol, 'write_todos');
      assert.equal(await local(page, 'write', 'replacement').count(), 1, 'replacement is bound');
    },
    async (page, now) => {
      assert.equal(now.symbol, 'write_todos');
      assert.match(now.statusText, /too_many_active/);
      assert.deepEqual((await hostState(page, 'write')).items.map((i) => i.status), ['completed', 'pending'], 'the old plan');
    },
    async (page, now) => {
      assert.equal(now.status, 'done');
      const removed = figure(page, 'write').locator('[data-pane="state"] li.removed');
      assert.equal(await removed.count(), 1, 'item 2 is marked removed');
      assert.equal(JSON.parse(await removed.getAttribute('data-json')).id, '2');
      assert.deepEqual((await hostState(page, 'write')).items.map((i) => i.id), ['1']);
    },
    async (page, now) => {
      assert.equal(now.status, 'done');
      assert.deepEqual((await hostState(page, 'write')).items.map((i) => i.status), ['completed', 'completed']);
      assert.match((await output(page, 'write')).trim().split('\n').at(-1), /none of its items|没有运行其中任何一项/);
    },
    async (page, now) => {
      assert.equal(now.status, 'done');
      const plan = (await hostState(page, 'write')).items;
      assert.deepEqual(plan.map((i) => [i.id, i.status]), [['a', 'completed'], ['b', 'in_progress'], ['c', 'pending']]);
      assert.equal(plan[0].content, plan[0].content.trim(), 'trimmed');
    },
  ],
  prepare: [
    async (page, now) => {
      assert.equal(now.ran, await lineOf(page, 'prepare', 'prepared[0].content ='));
      const prepared = local(page, 'prepare', 'prepared');
      const changed = prepared.locator('[data-change="changed"]');
      assert.equal(await changed.count(), 1, 'only the changed text is marked, not the whole list');
      assert.match(await changed.innerText(), /\[Current plan|【当前计划/);
      const host = await hostState(page, 'prepare');
      assert.doesNotMatch(JSON.stringify(host.messages[0]), /Current plan|当前计划/, 'the history is unchanged');
      assert.match(JSON.stringify(host.messages), /run_1/);
    },
    async (page, now) => {
      assert.equal(now.symbol, 'format_todos');
      assert.equal(await figure(page, 'prepare').locator('[data-pane="stack"] button').count(), 2);
    },
    async (page, now) => {
      assert.deepEqual([now.symbol, now.line], ['format_todos', await lineOf(page, 'prepare', '(empty plan)')]);
    },
    async (page, now) => {
      assert.equal(now.status, 'done');
      assert.match(await output(page, 'prepare'), /\[completed\]/);
      assert.match(JSON.stringify((await hostState(page, 'prepare')).messages), /declined|拒绝/);
    },
    async (page, now) => {
      assert.equal(now.status, 'done');
      assert.match(await output(page, 'prepare'), /a \[pending\] (write tests|写测试)/);
    },
  ],
};

describe('every "Show me" sets its item up', () => {
  for (const lang of LANGS) {
    test(`${lang}: each ends paused or done, with its claim true`, async () => {
      const page = await openLesson(env, `?lang=${lang}`);
      for (const id of FIGURES) {
        const bullets = figure(page, id).locator('.tries li');
        assert.equal(await bullets.count(), CLAIMS[id].length, `${id}: a claim per item`);
        for (let i = 0; i < CLAIMS[id].length; i++) {
          const bullet = bullets.nth(i);
          assert.equal(await bullet.locator('button[data-action="show-me"]').count(), 1);
          await bullet.locator('button[data-action="show-me"]').click();
          const now = await where(page, id);
          assert.ok(['paused', 'done'].includes(now.status), `${id} ${i + 1}: ${now.status}`);
          await CLAIMS[id][i](page, now);
        }
      }
      assert.deepEqual(page.errors, []);
    });
  }

  test('the items sit just above the controls, and their data are the same in both languages', async () => {
    const page = await openLesson(env, '?lang=en');
    for (const id of FIGURES) {
      const gap = await figure(page, id).evaluate((root) => root.querySelector('.bar').getBoundingClientRect().top - root.querySelector('.tries').getBoundingClientRect().bottom);
      assert.ok(gap >= 0 && gap < 150, `${id}: ${gap} px between the items and the controls`);
    }
    const [en, zh] = await Promise.all(['en', 'zh'].map((lang) => import(`../../www/text-${lang}.js`)));
    for (const id of FIGURES) {
      assert.deepEqual(
        en.default.figures[id].tries.map((item) => ({ ...item.show, input: undefined })),
        zh.default.figures[id].tries.map((item) => ({ ...item.show, input: undefined })),
        id,
      );
    }
  });
});

describe('smaller things', () => {
  for (const lang of LANGS) {
    test(`${lang}: a deep link opens at the figure it names`, async () => {
      const page = await openLesson(env, `?lang=${lang}&prepare=updated&prepare.step=3`);
      await page.waitForFunction(() => {
        const box = document.querySelector('todo-trace-figure[figure="prepare"]').shadowRoot.querySelector('[data-figure="prepare"]').getBoundingClientRect();
        return box.top >= -1 && box.top < innerHeight / 2;
      });
      assert.ok(await page.evaluate(() => scrollY > 0));
    });
  }

  test('figure 1 shows only what validate_todos is given; each setup part, what its call entry reads', async () => {
    const page = await openLesson(env, '?lang=en');
    assert.equal(await figure(page, 'validate').locator('[data-pane="state"]').count(), 0, 'no host state pane');
    assert.equal(await figure(page, 'write').locator('[data-pane="state"]').count(), 1);
    for (const [id, keys] of [['validate', ['items']], ['write', ['state', 'items']], ['prepare', ['state', 'messages']]]) {
      await figure(page, id).locator('details.setup > summary').click();
      const given = JSON.parse(await figure(page, id).locator('pre.input').innerText());
      assert.deepEqual(Object.keys(given), keys, id);
    }
  });

  test('a list the reader folds stays folded at the next step', async () => {
    const page = await openLesson(env, '?lang=en');
    await act(page, 'prepare', 'step-into');
    const messages = figure(page, 'prepare').locator('[data-pane="locals"] details[data-path="L:messages"]');
    assert.equal(await messages.getAttribute('open'), '', 'open at first');
    await messages.locator(':scope > summary').click();
    assert.equal(await messages.getAttribute('open'), null);
    await act(page, 'prepare', 'step-into');
    assert.equal((await where(page, 'prepare')).step, 2);
    assert.equal(await messages.getAttribute('open'), null, 'still folded after a step');
    await messages.locator(':scope > summary').click();
    await act(page, 'prepare', 'step-back');
    assert.equal(await messages.getAttribute('open'), '', 'unfolded again, and it stays so');
  });

  test('the timeline thumb never covers a breakpoint tick', async () => {
    const page = await openLesson(env, '?lang=en');
    await figure(page, 'validate').locator('[data-action="show-me"]').first().click();
    const boxes = await figure(page, 'validate').evaluate((root) => ({
      ticks: [...root.querySelectorAll('.tick')].map((t) => t.getBoundingClientRect().bottom),
      slider: root.querySelector('input[type="range"]').getBoundingClientRect().top,
    }));
    assert.equal(boxes.ticks.length, 2);
    for (const bottom of boxes.ticks) assert.ok(bottom <= boxes.slider + 0.5, `a tick ends at ${bottom}, the slider starts at ${boxes.slider}`);
  });
});
