// End-to-end: breakpoints, the stepping commands, the markers and panes, and the keyboard, in real Chromium.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { act, drawn, figure, lineOf, localsOf, openLesson, paneText, search, startBrowser, where } from './helpers.mjs';

let env;
before(async () => {
  env = await startBrowser();
});
after(() => env.close());

// Forced: a line that takes no step has its button aria-disabled, and the test checks it refuses. A forced click does not
// wait for the button to be drawn, so drawn() does.
const toggle = async (page, id, line) => {
  const button = figure(page, id).locator(`.code-pane [data-line="${line}"] button`);
  await drawn(button);
  await button.click({ force: true });
};
const pressed = (page, id, line) => figure(page, id).locator(`.code-pane [data-line="${line}"] button`).getAttribute('aria-pressed');

describe('breakpoints', () => {
  test('a breakpoint pauses where set, shows on the timeline, and survives a scenario switch', async () => {
    const page = await openLesson(env, '?lang=en');
    const push = await lineOf(page, 'validate', 'new_list.push(');
    await toggle(page, 'validate', push);
    assert.equal(await pressed(page, 'validate', push), 'true');
    assert.equal(await figure(page, 'validate').locator('.ticks .tick').count(), 2, 'one tick per item reaching the line');

    await act(page, 'validate', 'debug');
    let now = await where(page, 'validate');
    assert.deepEqual([now.status, now.line], ['paused', push]);
    assert.match(now.statusText, new RegExp(`Paused at line ${push} in validate_todos`));
    assert.deepEqual((await localsOf(page, 'validate')).new_list, [], 'nothing appended yet');

    await act(page, 'validate', 'continue');
    now = await where(page, 'validate');
    assert.equal(now.line, push);
    assert.deepEqual((await localsOf(page, 'validate')).new_list.map((item) => item.id), ['1'], 'one item appended per pass');

    await figure(page, 'validate').locator('select[data-control="scenario"]').selectOption('duplicate');
    now = await where(page, 'validate');
    assert.equal(now.status, 'idle', 'switching resets the position');
    assert.equal(now.step, 0);
    assert.equal(await pressed(page, 'validate', push), 'true', 'switching keeps the breakpoint');
    assert.equal(await figure(page, 'validate').locator('.ticks .tick').count(), 1);
    assert.match(await search(page), new RegExp(`validate.bp=validate_todos.${push}`));

    await act(page, 'validate', 'debug');
    assert.equal((await where(page, 'validate')).line, push, 'the first item still reaches the append');
    await act(page, 'validate', 'continue');
    now = await where(page, 'validate');
    assert.equal(now.status, 'error', 'the second item never reaches it');
    assert.match(now.statusText, /duplicate_id/);

    await toggle(page, 'validate', push);
    assert.equal(await pressed(page, 'validate', push), 'false');
    assert.equal(await figure(page, 'validate').locator('.ticks .tick').count(), 0);
    assert.doesNotMatch(await search(page), /validate.bp/);
    assert.deepEqual(page.errors, []);
  });

  test('only lines that hold a step take a breakpoint', async () => {
    const page = await openLesson(env, '?lang=en');
    const signature = await lineOf(page, 'validate', 'pub fn validate_todos');
    await toggle(page, 'validate', signature);
    assert.equal(await pressed(page, 'validate', signature), 'false');
    const row = figure(page, 'validate').locator(`[data-line="${signature}"] button`);
    assert.equal(await row.getAttribute('aria-disabled'), 'true');
    const breakable = await figure(page, 'validate').locator('.code-pane [data-line] button:not([aria-disabled])').count();
    const all = await figure(page, 'validate').locator('.code-pane [data-line]').count();
    assert.ok(breakable > 20 && breakable < all, `${breakable} of ${all}`);
  });
});

describe('stepping', () => {
  test('step into, step out, step over and step back move as a debugger would (write/replace)', async () => {
    const page = await openLesson(env, '?lang=en');
    const w = (snippet) => lineOf(page, 'write', snippet);
    await act(page, 'write', 'step-into');
    let now = await where(page, 'write');
    const call = await w('validate_todos(items)?');
    assert.deepEqual([now.status, now.symbol, now.line, now.ran, now.step], ['paused', 'write_todos', call, null, 1]);
    assert.match(await paneText(page, 'write', 'output'), /Nothing printed yet/);

    await act(page, 'write', 'step-into');
    now = await where(page, 'write');
    assert.equal(now.symbol, 'validate_todos', 'the code pane switched to the callee');
    assert.equal(await figure(page, 'write').locator('[data-pane="stack"] li').count(), 2);
    assert.match(await paneText(page, 'write', 'stack'), new RegExp(`validate_todos:${now.line}\\s+write_todos:${call}`));

    await act(page, 'write', 'step-over');
    const inside = await where(page, 'write');
    assert.equal(inside.symbol, 'validate_todos');
    assert.equal(inside.ran, now.line, 'the line just run is marked');
    assert.ok(inside.line > now.line);

    await act(page, 'write', 'step-out');
    now = await where(page, 'write');
    const rendered = await w('let rendered');
    assert.deepEqual([now.symbol, now.line, now.ran], ['write_todos', rendered, call]);
    assert.equal(await figure(page, 'write').locator('[data-pane="stack"] li').count(), 1);
    assert.match(await paneText(page, 'write', 'locals'), /\+\s*new binding\s*replacement/, 'the new binding is marked');

    await act(page, 'write', 'step-over');
    now = await where(page, 'write');
    const assign = await w('state.items = replacement');
    assert.deepEqual([now.symbol, now.line, now.ran], ['write_todos', assign, rendered], 'format_todos ran without pausing');

    const before = now.step;
    await act(page, 'write', 'step-back');
    now = await where(page, 'write');
    assert.equal(now.step, before - 1);
    assert.equal(now.symbol, 'format_todos', 'one recorded step back is format_todos returning');
    assert.match(now.statusText, /format_todos has returned/);
    assert.match(await paneText(page, 'write', 'locals'), /⟵ returned/);

    await act(page, 'write', 'step-over');
    await act(page, 'write', 'step-over');
    now = await where(page, 'write');
    assert.equal(now.ran, assign);
    assert.match(await paneText(page, 'write', 'locals'), /replacement\s*Vec<Todo>\s*moved out/);
    const changed = await figure(page, 'write').locator('[data-pane="state"] li.changed').allTextContents();
    assert.equal(changed.length, 1);
    assert.match(changed[0], /"in_progress"/);

    await act(page, 'write', 'run');
    assert.equal((await where(page, 'write')).status, 'done');
    assert.match(await paneText(page, 'write', 'output'), /Written\. Current plan:/);
    assert.equal(await figure(page, 'write').locator('[data-action="step-into"]').getAttribute('aria-disabled'), 'true');
    await act(page, 'write', 'restart');
    now = await where(page, 'write');
    assert.deepEqual([now.status, now.step, now.line], ['idle', 0, null]);
    assert.deepEqual(page.errors, []);
  });

  test('at the assignment line the replacement holds the new plan and the host state the old one', async () => {
    const page = await openLesson(env, '?lang=en');
    const assign = await lineOf(page, 'write', 'state.items = replacement');
    await toggle(page, 'write', assign);
    await act(page, 'write', 'debug');
    assert.equal((await where(page, 'write')).line, assign);
    assert.equal(await figure(page, 'write').locator(`[data-line="${assign}"]`).getAttribute('aria-current'), 'step');
    assert.equal((await localsOf(page, 'write')).replacement[1].status, 'in_progress');
    const state = await figure(page, 'write').locator('[data-pane="state"] li .value').allTextContents();
    assert.match(state[1], /"pending"/);
    await act(page, 'write', 'step-over');
    const after = await figure(page, 'write').locator('[data-pane="state"] li .value').allTextContents();
    assert.match(after[1], /"in_progress"/);
  });

  test('the timeline goes to any step and says where it is', async () => {
    const page = await openLesson(env, '?lang=en');
    const slider = figure(page, 'prepare').locator('input[type="range"]');
    const max = Number(await slider.getAttribute('max'));
    await slider.fill(String(max));
    let now = await where(page, 'prepare');
    assert.equal(now.status, 'done');
    assert.match(await figure(page, 'prepare').locator('.where').textContent(), /finished \(\d+ steps\)/);
    await slider.fill('3');
    now = await where(page, 'prepare');
    assert.equal(now.status, 'paused');
    assert.equal(await figure(page, 'prepare').locator('.where').textContent(), `step 3 of ${max - 1}`);
    assert.equal(await slider.getAttribute('aria-valuetext'), `step 3 of ${max - 1}`);
  });
});

describe('keyboard', () => {
  test('F11, F10, Shift+F11, Shift+F8 and F8 drive the focused figure; F9 and arrows work on code lines', async () => {
    const page = await openLesson(env, '?lang=en');
    const select = figure(page, 'write').locator('select[data-control="scenario"]');
    await select.focus();
    await page.keyboard.press('F11');
    await page.keyboard.press('F11');
    assert.equal((await where(page, 'write')).symbol, 'validate_todos');
    assert.equal((await where(page, 'validate')).status, 'idle', 'other figures do not move');
    await page.keyboard.press('Shift+F11');
    let now = await where(page, 'write');
    assert.deepEqual([now.symbol, now.line], ['write_todos', await lineOf(page, 'write', 'let rendered')]);
    await page.keyboard.press('F10');
    now = await where(page, 'write');
    assert.equal(now.line, await lineOf(page, 'write', 'state.items = replacement'));
    const step = now.step;
    await page.keyboard.press('Shift+F8');
    assert.equal((await where(page, 'write')).step, step - 1);
    await page.keyboard.press('F10');
    assert.equal((await where(page, 'write')).step, step);

    // The code lines: one tab stop, arrows to move, F9 (or Enter) to toggle.
    const first = figure(page, 'write').locator('.code-pane [data-line] button[tabindex="0"]');
    await first.focus();
    await page.keyboard.press('ArrowDown');
    const focusedLine = () => page.evaluate(() => {
      let el = document.activeElement;
      while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
      return Number(el.closest('[data-line]')?.dataset.line);
    });
    let line = await focusedLine();
    while (line !== (await lineOf(page, 'write', 'Ok(rendered)'))) {
      await page.keyboard.press('ArrowDown');
      line = await focusedLine();
    }
    await page.keyboard.press('F9');
    assert.equal(await pressed(page, 'write', line), 'true');
    await page.keyboard.press('Home');
    await page.keyboard.press('End');
    assert.equal(await focusedLine(), await lineOf(page, 'write', 'Ok(rendered)') + 1, 'End goes to the closing brace');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    assert.equal(await pressed(page, 'write', line), 'false', 'Enter toggles it off again');
    await page.keyboard.press('F9');
    await page.keyboard.press('F8');
    now = await where(page, 'write');
    assert.deepEqual([now.status, now.line], ['paused', line], 'F8 continues to the breakpoint');
    await page.keyboard.press('F8');
    assert.equal((await where(page, 'write')).status, 'done');
    assert.deepEqual(page.errors, []);
  });

  test('after a click anywhere in a figure its keys work', async () => {
    const page = await openLesson(env, '?lang=en');
    await figure(page, 'prepare').locator('[data-pane="state"]').click();
    await page.keyboard.press('F11');
    assert.equal((await where(page, 'prepare')).status, 'paused');
    assert.equal((await where(page, 'write')).status, 'idle');
  });

  test('every control is reachable with Tab, shows its shortcut, and has a visible focus ring', async () => {
    const page = await openLesson(env, '?lang=en');
    const reached = new Set();
    await page.locator('[data-control="lang"]').focus();
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press('Tab');
      const info = await page.evaluate(() => {
        let el = document.activeElement;
        while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
        const style = getComputedStyle(el);
        return { action: el.dataset.action, figure: el.closest('[data-figure]')?.dataset.figure, outline: style.outlineStyle };
      });
      if (info.figure === 'validate' && info.action) {
        reached.add(info.action);
        assert.notEqual(info.outline, 'none', `${info.action} shows focus`);
      }
    }
    assert.deepEqual([...reached].sort(), ['continue', 'debug', 'restart', 'run', 'show-me', 'step-back', 'step-into', 'step-out', 'step-over']);
    const titles = await figure(page, 'validate').locator('[data-action]').evaluateAll((buttons) => Object.fromEntries(buttons.map((b) => [b.dataset.action, b.title])));
    assert.match(titles.continue, /\(F8\)$/);
    assert.match(titles['step-over'], /\(F10\)$/);
    assert.match(titles['step-into'], /\(F11\)$/);
    assert.match(titles['step-out'], /\(Shift\+F11\)$/);
    assert.match(titles['step-back'], /\(Shift\+F8\)$/);
    assert.match(await page.locator('ul.keys').innerText(), /Shift\+F8\s+Step back/);
  });

  test('the status line announces where execution paused', async () => {
    const page = await openLesson(env, '?lang=en');
    const status = figure(page, 'validate').locator('[data-status]');
    assert.equal(await status.getAttribute('role'), 'status');
    await act(page, 'validate', 'step-into');
    assert.match(await status.textContent(), /^Paused at line \d+ in validate_todos \(step 1 of \d+\)\.$/);
  });
});

describe('setup and call entry', () => {
  test('shows the scenario input as JSON and the entry function, and follows the scenario', async () => {
    const page = await openLesson(env, '?lang=en');
    const write = figure(page, 'write');
    await write.locator('details.setup summary').click();
    let input = JSON.parse(await write.locator('details.setup pre.input').textContent());
    assert.equal(input.items[1].status, 'in_progress');
    assert.equal(input.state.items[1].status, 'pending');
    assert.match(await write.locator('details.setup .listing').innerText(), /fn run_write\(data: Data, lang: Lang\)/);
    await write.locator('select[data-control="scenario"]').selectOption('omit');
    input = JSON.parse(await write.locator('details.setup pre.input').textContent());
    assert.deepEqual(input.items.map((item) => item.id), ['1']);
  });

  test('typing right after opening the setup part keeps it open (its toggle event comes a task later)', async () => {
    const page = await openLesson(env, '?lang=en');
    const open = await figure(page, 'write').evaluate(async (root) => {
      const details = root.querySelector('details.setup');
      details.querySelector('summary').click();
      const textarea = root.querySelector('textarea[data-control="input"]');
      textarea.value = '[]';
      textarea.dispatchEvent(new Event('input'));
      await new Promise((done) => setTimeout(done, 50));
      return details.open;
    });
    assert.equal(open, true);
    assert.deepEqual(page.errors, []);
  });
});
