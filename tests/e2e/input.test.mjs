// End-to-end: the reader's own input ("try your own") in every figure, in Chinese and English: runs, refusals at their place, text-only rendering, reset, recovery.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { act, axeProblems, figure, allFiguresReady, hostState, lineOf, openLesson, paneText, search, startBrowser, switchLanguage, where } from './helpers.mjs';

let env;
before(async () => {
  env = await startBrowser();
});
after(() => env.close());

const FIGURES = ['validate', 'write', 'prepare'];

// A plan of the reader's own: JSON and Python quoting mixed, a comment, a trailing comma, white
// space that validation trims, characters beyond ASCII. PLAN is what the host must end up storing.
const PLAN_TEXT = `[
  {"id": " a ", "content": "  写测试 / write the test ", "status": "completed"},
  {'id': 'b', 'content': 'Fix the bug 🐛', 'status': 'in_progress'},  # Python style
  {"id": "c", "content": "Ship", "status": "pending"},
]`;
const PLAN = [
  { id: 'a', content: '写测试 / write the test', status: 'completed' },
  { id: 'b', content: 'Fix the bug 🐛', status: 'in_progress' },
  { id: 'c', content: 'Ship', status: 'pending' },
];
const PLAN_LINES = ['a [completed] 写测试 / write the test', 'b [in_progress] Fix the bug 🐛', 'c [pending] Ship'];

// The second id equals the first once trimmed.
const DUPLICATE_TEXT = '[{"id": "x", "content": "one", "status": "pending"}, {"id": " x", "content": "two", "status": "pending"}]';

// A bare name on line 3 at column 41, counted in code points: the emoji before it is one column
// but two UTF-16 units, so the caret's offset must come from the text, not from the column.
const BAD_TEXT = '[\n  {"id": "1", "content": "读取源码", "status": "completed"},\n  {"id": "😀", "content": "b", "status": pending}\n]';
const BAD_AT = BAD_TEXT.indexOf('pending}');

const MARKUP = '<img src=x onerror=alert(1)>';

// Per language: the scenario data the editors start from, and words the page must use.
const WORDS = {
  zh: { data: ['读取源码', '运行并核对'], done: /^完成/, paused: /^暂停/, notRun: /没有运行/, label: /清单|计划/, position: '第 3 行第 41 列', option: '你的输入' },
  en: { data: ['Read the source', 'Run and check'], done: /^Done/, paused: /^Paused/, notRun: /Not run/, label: /list|plan/, position: 'line 3, column 41', option: 'Your input' },
};
// The statuses of the default scenario's editable part: the submitted items, or for prepare the host plan.
const PREFILL_STATUSES = { validate: ['completed', 'in_progress'], write: ['completed', 'in_progress'], prepare: ['completed', 'pending'] };
const OLD_PLAN_STATUSES = ['completed', 'pending'];

// The editor of a figure; its setup part is opened first, since the editor lives inside it.
async function editor(page, id) {
  const setup = figure(page, id).locator('details.setup');
  if (!(await setup.evaluate((details) => details.open))) await setup.locator('summary').click();
  return figure(page, id).locator('textarea[data-control="input"]');
}

// Types `text` into a figure's editor and presses Run (or another editor button); returns where the figure is.
async function runOwn(page, id, text, action = 'run-input') {
  await (await editor(page, id)).fill(text);
  await figure(page, id).locator(`[data-action="${action}"]`).click();
  return where(page, id);
}

const errorBox = (page, id) => figure(page, id).locator('.input-error');
const scenarioOf = (page, id) => figure(page, id).locator('select[data-control="scenario"]').inputValue();

// What the editor next to a figure says, and how the textarea stands.
function editorState(page, id) {
  return figure(page, id).evaluate((root) => {
    const textarea = root.querySelector('textarea[data-control="input"]');
    const box = root.querySelector('.input-error');
    return {
      invalid: textarea.getAttribute('aria-invalid'),
      error: box.hidden ? null : box.textContent,
      caret: [textarea.selectionStart, textarea.selectionEnd],
      focused: root.getRootNode().activeElement === textarea,
    };
  });
}

// A refused text: the figure ends in the error, and the editor marks the text and shows the code. Returns the editor's state.
async function assertRefused(page, id, end, code) {
  assert.equal(end.status, 'error', end.statusText);
  assert.match(end.statusText, new RegExp(code));
  const state = await editorState(page, id);
  assert.equal(state.invalid, 'true');
  assert.match(state.error, new RegExp(code));
  return state;
}

// The scenario data in a figure's editor, parsed; checked against LESSON.md's base data.
async function assertScenarioText(page, id, lang) {
  const items = JSON.parse(await (await editor(page, id)).inputValue());
  assert.deepEqual(items.map((item) => item.id), ['1', '2']);
  assert.deepEqual(items.map((item) => item.content), WORDS[lang].data);
  assert.deepEqual(items.map((item) => item.status), PREFILL_STATUSES[id]);
}

for (const lang of ['zh', 'en']) {
  describe(`try your own input (${lang})`, () => {
    const words = WORDS[lang];
    let page;
    before(async () => {
      page = await openLesson(env, lang === 'en' ? '?lang=en' : '');
      // A content's markup that ran would show up here (alert) or as an element.
      page.dialogs = [];
      page.on('dialog', (dialog) => {
        page.dialogs.push(dialog.message());
        dialog.dismiss();
      });
    });

    for (const id of FIGURES) {
      test(`${id}: the editor starts with the scenario's input, labelled, with a note on the formats`, async () => {
        await assertScenarioText(page, id, lang);
        const label = figure(page, id).locator('.editor label');
        assert.match(await label.textContent(), words.label);
        assert.equal(await label.getAttribute('for'), await (await editor(page, id)).getAttribute('id'), 'the label names the textarea');
        assert.match(await figure(page, id).locator('.editor .note').textContent(), /JSON.*Python/);
        assert.equal((await where(page, id)).status, 'idle');
      });

      test(`${id}: a plan of the reader's own runs to done`, async () => {
        const end = await runOwn(page, id, PLAN_TEXT);
        assert.equal(end.status, 'done', end.statusText);
        assert.match(end.statusText, words.done);
        assert.ok(end.step > 10, 'the run has steps');
        const output = await paneText(page, id, 'output');
        for (const line of PLAN_LINES) assert.ok(output.includes(line), `output has ${line}:\n${output}`);
        if (id !== 'validate') assert.deepEqual((await hostState(page, id)).items, PLAN, 'the host holds exactly the plan, trimmed');
        // The figure says it shows the reader's input, and the link does not carry it.
        assert.equal(await scenarioOf(page, id), 'input');
        assert.equal(await figure(page, id).locator('option[value="input"]').textContent(), words.option);
        assert.doesNotMatch(await search(page), new RegExp(`${id}=input|${id}\\.step`));
        assert.deepEqual(await editorState(page, id).then((s) => [s.invalid, s.error]), [null, null]);
      });

      test(`${id}: a duplicate id ends in duplicate_id`, async () => {
        const end = await runOwn(page, id, DUPLICATE_TEXT);
        if (id === 'prepare') {
          // The host stores only a valid plan, so prepare refuses this text before running.
          await assertRefused(page, id, end, 'duplicate_id');
          assert.equal(await errorBox(page, id).locator('[data-action="go-to-error"]').count(), 0, 'no position to go to');
        } else {
          // Text that parses runs like a scenario and fails inside the function.
          assert.equal(end.status, 'error');
          assert.match(end.statusText, /duplicate_id/);
          assert.ok(end.step > 5, 'the run has steps');
          assert.deepEqual(await editorState(page, id).then((s) => [s.invalid, s.error]), [null, null]);
        }
        if (id === 'write') {
          assert.deepEqual((await hostState(page, id)).items.map((item) => item.status), OLD_PLAN_STATUSES, 'the old plan stays');
        }
      });

      test(`${id}: text that does not parse is a parse_error at its line and column, with the caret there`, async () => {
        const state = await assertRefused(page, id, await runOwn(page, id, BAD_TEXT), 'parse_error');
        assert.ok(state.error.includes(words.position), state.error);
        assert.deepEqual(state.caret, [BAD_AT, BAD_AT]);
        assert.ok(state.focused, 'the textarea has the focus');
        // validate_todos cannot see the host: its figure has no host state pane.
        for (const pane of id === 'validate' ? ['output'] : ['state', 'output']) assert.match(await paneText(page, id, pane), words.notRun, `${pane}: nothing ran`);

        // The position is also a button that puts the caret back.
        await (await editor(page, id)).evaluate((textarea) => textarea.setSelectionRange(0, 0));
        await errorBox(page, id).locator('[data-action="go-to-error"]').click();
        assert.deepEqual((await editorState(page, id)).caret, [BAD_AT, BAD_AT]);
      });

      test(`${id}: Python code is not run but refused, and so is text over 64 KiB`, async () => {
        const python = await assertRefused(page, id, await runOwn(page, id, "__import__('os')"), 'parse_error');
        assert.ok(python.error.includes('__import__'), 'the message names what was refused');
        await assertRefused(page, id, await runOwn(page, id, `[{"id": "1", "content": "${'x'.repeat(70_000)}", "status": "pending"}]`), 'input_too_large');
        assert.equal(await errorBox(page, id).locator('[data-action="go-to-error"]').count(), 0);
      });

      test(`${id}: a content with markup is shown as text, never as an element`, async () => {
        const end = await runOwn(page, id, `[{'id': 'x', 'content': '${MARKUP}', 'status': 'pending'}]`);
        assert.equal(end.status, 'done', end.statusText);
        const panes = ['output', ...(id === 'validate' ? [] : ['state'])];
        for (const pane of panes) assert.ok((await paneText(page, id, pane)).includes(MARKUP), pane);
        await act(page, id, 'step-back');
        assert.ok((await paneText(page, id, 'locals')).includes(MARKUP), 'locals');
        assert.equal(await page.locator('img, [onerror]').count(), 0);
        assert.deepEqual(page.dialogs, []);
      });

      test(`${id}: reset brings back the scenario's data and trace`, async () => {
        await runOwn(page, id, BAD_TEXT);
        await figure(page, id).locator('[data-action="reset-input"]').click();
        await assertScenarioText(page, id, lang);
        assert.deepEqual(await editorState(page, id).then((s) => [s.invalid, s.error]), [null, null]);
        assert.notEqual(await scenarioOf(page, id), 'input');
        assert.equal(await figure(page, id).locator('option[value="input"]').count(), 0);
        assert.equal((await where(page, id)).status, 'idle');
        await act(page, id, 'run');
        const end = await where(page, id);
        assert.equal(end.status, 'done', 'the default scenario runs as before');
        if (id === 'write') assert.deepEqual((await hostState(page, id)).items.map((item) => item.status), ['completed', 'in_progress']);
      });
    }

    test('Debug on the reader’s input stops at each breakpoint, and the debugger works on that trace', async () => {
      // Per figure: a line that the 3-item plan reaches, and how many times.
      const stops = { validate: ['new_list.push(', 3], write: ['state.items = replacement', 1], prepare: ['prepared[0].content =', 1] };
      for (const [id, [snippet, hits]] of Object.entries(stops)) {
        const line = await lineOf(page, id, snippet);
        const button = figure(page, id).locator(`.code-pane [data-line="${line}"] button`);
        await button.click();
        let now = await runOwn(page, id, PLAN_TEXT, 'debug-input');
        assert.deepEqual([now.status, now.line], ['paused', line], `${id}: ${now.statusText}`);
        assert.match(now.statusText, words.paused);
        assert.equal(await figure(page, id).locator('.ticks .tick').count(), hits, `${id}: ticks`);
        if (id === 'write') {
          assert.deepEqual((await hostState(page, id)).items.map((item) => item.status), OLD_PLAN_STATUSES, 'not assigned yet');
          await act(page, id, 'step-over');
          assert.deepEqual((await hostState(page, id)).items, PLAN, 'assigned one step later');
          await act(page, id, 'step-back');
        }
        for (let hit = 1; hit < hits; hit++) {
          await act(page, id, 'continue');
          now = await where(page, id);
          assert.deepEqual([now.status, now.line], ['paused', line], `${id}: hit ${hit + 1}`);
        }
        await act(page, id, 'continue');
        assert.equal((await where(page, id)).status, 'done', id);
        await button.click();
      }
    });

    test('after errors in one figure the others still work, and so does the figure itself', async () => {
      await runOwn(page, 'validate', BAD_TEXT);
      await runOwn(page, 'write', `[{"id": "1", "content": "${'x'.repeat(70_000)}", "status": "pending"}]`);
      await figure(page, 'prepare').locator('select[data-control="scenario"]').selectOption('updated');
      await act(page, 'prepare', 'run');
      assert.equal((await where(page, 'prepare')).status, 'done');
      await figure(page, 'validate').locator('select[data-control="scenario"]').selectOption('duplicate');
      await act(page, 'validate', 'run');
      assert.match((await where(page, 'validate')).statusText, /duplicate_id/);
      assert.equal((await runOwn(page, 'write', PLAN_TEXT)).status, 'done');
    });

    test('no console errors', () => {
      assert.deepEqual(page.errors, []);
    });
  });
}

describe('the reader’s text across scenario and language switches', () => {
  test('the editor follows the scenario until the reader edits it; the run stays offered until reset', async () => {
    const page = await openLesson(env, '?lang=en');
    const select = figure(page, 'write').locator('select[data-control="scenario"]');
    const textarea = await editor(page, 'write');
    await select.selectOption('duplicate');
    assert.deepEqual(JSON.parse(await textarea.inputValue()).map((item) => item.id), ['1', '1']);
    await select.selectOption('clear');
    assert.deepEqual(JSON.parse(await textarea.inputValue()), []);

    await runOwn(page, 'write', DUPLICATE_TEXT);
    assert.match(await search(page), /write=clear/, 'the link keeps the scenario the reader came from');
    await select.selectOption('omit');
    assert.equal(await textarea.inputValue(), DUPLICATE_TEXT, 'edited text is kept');
    assert.equal((await where(page, 'write')).status, 'idle');
    await act(page, 'write', 'run');
    assert.equal((await where(page, 'write')).status, 'done', 'the scenario runs');

    await select.selectOption('input');
    assert.match(await figure(page, 'write').locator('.hint').textContent(), /your input|you wrote/i);
    await act(page, 'write', 'run');
    assert.match((await where(page, 'write')).statusText, /duplicate_id/, 'back on the reader’s run');

    await figure(page, 'write').locator('[data-action="reset-input"]').click();
    assert.equal(await select.inputValue(), 'omit');
    assert.deepEqual(JSON.parse(await textarea.inputValue()).map((item) => item.id), ['1']);
    assert.deepEqual(page.errors, []);
  });

  test('switching the language keeps the reader’s text and run; an untouched editor follows the language', async () => {
    const page = await openLesson(env);
    await runOwn(page, 'write', PLAN_TEXT);
    await act(page, 'write', 'step-back');
    const before = await where(page, 'write');
    await runOwn(page, 'validate', BAD_TEXT);
    // Run on the scenario's text as it is: that run follows the language, like the untouched editor.
    await (await editor(page, 'prepare')).focus();
    await figure(page, 'prepare').locator('[data-action="run-input"]').click();
    assert.ok((await paneText(page, 'prepare', 'output')).includes('1 [completed] 读取源码'));
    await switchLanguage(page, 'en');

    assert.equal(await figure(page, 'write').locator('textarea[data-control="input"]').inputValue(), PLAN_TEXT);
    assert.equal(await scenarioOf(page, 'write'), 'input');
    const now = await where(page, 'write');
    assert.deepEqual([now.status, now.step, now.line], [before.status, before.step, before.line]);
    assert.match(now.statusText, /^Paused/);

    const refused = await editorState(page, 'validate');
    assert.equal(refused.invalid, 'true');
    assert.ok(refused.error.includes('line 3, column 41'), 'the error, now in English');
    assert.equal(await figure(page, 'validate').locator('textarea[data-control="input"]').inputValue(), BAD_TEXT);

    await assertScenarioText(page, 'prepare', 'en');
    assert.equal(await scenarioOf(page, 'prepare'), 'input');
    assert.ok((await paneText(page, 'prepare', 'output')).includes('1 [completed] Read the source'), 'the run is in English too');
    assert.equal(await search(page), '?lang=en');
    assert.deepEqual(page.errors, []);
  });
});

describe('recovery', () => {
  test('an exception thrown inside the module is shown as an error; the figure and the others recover', async () => {
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (error) => errors.push(error.message));
    // A stand-in for a trap inside wasm: traceInput throws on one text, as a panicking module would.
    let patched = false;
    await page.route('**/api.js', async (route) => {
      const response = await route.fetch();
      const original = await response.text();
      const head = 'export function traceInput(figureId, input, lang) {';
      const body = original.replace(head, `${head}\n    if (String(input).includes('TRAP')) throw new WebAssembly.RuntimeError('unreachable executed');`);
      patched = body !== original;
      await route.fulfill({ response, body });
    });
    await page.goto(`${env.origin}/?lang=en`);
    await allFiguresReady(page);
    assert.ok(patched, 'the JS API has a traceInput to patch');

    const end = await runOwn(page, 'write', '["TRAP"]');
    assert.equal(end.status, 'error');
    assert.match(end.statusText, /exception.*unreachable executed/);
    assert.match((await editorState(page, 'write')).error, /exception/);
    assert.equal(await page.locator('[data-figure]').count(), 4, 'no blank page');

    assert.equal((await runOwn(page, 'write', PLAN_TEXT)).status, 'done', 'the figure recovers');
    assert.deepEqual((await hostState(page, 'write')).items, PLAN);
    for (const id of ['validate', 'prepare']) {
      await act(page, id, 'run');
      assert.equal((await where(page, id)).status, 'done', id);
      assert.equal((await runOwn(page, id, PLAN_TEXT)).status, 'done', id);
    }
    assert.deepEqual(errors, []);
    await context.close();
  });
});

describe('look and access with the editor', () => {
  // Every editor open: one with a refused text, one after a run, one untouched.
  async function editorsBusy(page) {
    await runOwn(page, 'validate', BAD_TEXT);
    await runOwn(page, 'write', PLAN_TEXT);
    await editor(page, 'prepare');
  }

  for (const [lang, colorScheme] of [['zh', 'light'], ['zh', 'dark'], ['en', 'light'], ['en', 'dark']]) {
    test(`axe-core finds no serious or critical problem (${lang}, ${colorScheme})`, async () => {
      const page = await openLesson(env, lang === 'en' ? '?lang=en' : '', { colorScheme, bypassCSP: true });
      await editorsBusy(page);
      assert.deepEqual(await axeProblems(page), []);
      assert.deepEqual(page.errors, []);
    });
  }

  test('on a phone the editor and its error fit the screen', async () => {
    const page = await openLesson(env, '?lang=en', { viewport: { width: 390, height: 844 } });
    await editorsBusy(page);
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(scrollWidth <= 390, `page is ${scrollWidth}px wide`);
    const box = await (await editor(page, 'validate')).boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= 390, JSON.stringify(box));
    assert.deepEqual(page.errors, []);
  });

  test('on a phone the caret of a refused text is scrolled into view, across and down', async () => {
    const page = await openLesson(env, '?lang=en', { viewport: { width: 390, height: 844 } });
    const rows = Array.from({ length: 40 }, (_, i) => `  {"id": "${i}", "content": "item number ${i} 读取源码", "status": "pending"},`);
    // The refused line is far wider than the box in any font: the caret, at its end, must be scrolled to.
    const text = `[\n${rows.join('\n')}\n  {"id": "x", "content": "${'last '.repeat(60)}", "status": bad}\n]`;
    await runOwn(page, 'validate', text);
    // Where the caret is, measured by laying out the text before it in a copy of the textarea's font.
    const seen = await (await editor(page, 'validate')).evaluate((textarea) => {
      const before = textarea.value.slice(0, textarea.selectionStart);
      const lines = before.split('\n');
      const style = getComputedStyle(textarea);
      const mirror = document.createElement('span');
      mirror.style.cssText = `font: ${style.font}; white-space: pre; position: absolute;`;
      mirror.textContent = lines.at(-1);
      document.body.append(mirror);
      const x = mirror.getBoundingClientRect().width;
      mirror.remove();
      const y = (lines.length - 1) * parseFloat(style.lineHeight);
      return { x, y, left: textarea.scrollLeft, top: textarea.scrollTop, width: textarea.clientWidth, height: textarea.clientHeight, line: lines.length };
    });
    assert.equal(seen.line, 42);
    assert.ok(seen.left > 0 && seen.x >= seen.left && seen.x <= seen.left + seen.width, JSON.stringify(seen));
    assert.ok(seen.top > 0 && seen.y >= seen.top && seen.y <= seen.top + seen.height, JSON.stringify(seen));
    assert.deepEqual(page.errors, []);
  });
});
