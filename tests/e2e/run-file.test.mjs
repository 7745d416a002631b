// End-to-end: run files in the loop figure. A file opened through "Open a run…" or dropped replays in the same debugger, in both languages on a desktop and a phone; refused and diverged files say why, in the page's language; the figure element takes a run file as its JSON child or as .data.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { act, drawn, figure, loadModule, openLesson, search, startBrowser, where } from './helpers.mjs';

// Recorded by `practice`, as tests/fixtures/README.md says; the first test checks it still replays as recorded.
const FIXTURE = await readFile(new URL('../fixtures/run-allow-en.json', import.meta.url), 'utf8');
const RUN = JSON.parse(FIXTURE);

let env;
before(async () => {
  env = await startBrowser();
});
after(() => env.close());

const SIZES = [
  ['desktop', { viewport: { width: 1280, height: 800 } }],
  ['phone', { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }],
];
const CJK = /[\u4e00-\u9fff]/;

/** Opens `text` (or bytes, a Buffer) as the file `name` through the figure's file input. */
async function open(page, name, text) {
  const input = figure(page, 'loop').locator('input[type="file"][data-control="open-run"]');
  await input.setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(text) });
}

/** What the run part shows, read from the DOM: each part's text, or null while it is hidden. */
function runPart(page) {
  return figure(page, 'loop').locator('.run-file').evaluate((part) => {
    const shown = (selector) => {
      const node = part.querySelector(selector);
      return node && !node.hidden ? node.textContent : null;
    };
    return {
      origin: shown('[data-origin]'),
      source: part.querySelector('[data-origin]').dataset.origin,
      refused: shown('.run-refused'),
      code: part.querySelector('.run-refused').dataset.code,
      diverged: shown('.run-diverged'),
      divergedAt: part.querySelector('.run-diverged').dataset.diverged,
      close: shown('[data-action="close-run"]'),
    };
  });
}

/** The module's own trace of `text` (or bytes, a Buffer, as an opened file's) in the page, as the figure must show it. */
const traceIn = (page, text, lang) =>
  page.evaluate(async ([text, lang]) => {
    const run = typeof text === 'string' ? text : new Uint8Array(text).buffer;
    const trace = (await import('./api.js')).traceRun(run, lang);
    return { steps: trace.steps.length, result: trace.result, replay: trace.replay };
  }, [typeof text === 'string' ? text : [...text], lang]);

test('the committed fixture still replays as it was recorded, in both languages', async () => {
  const api = await loadModule();
  for (const lang of ['en', 'zh']) {
    const trace = api.traceRun(FIXTURE, lang);
    assert.equal(trace.ran, true, lang);
    assert.equal(trace.result.ok, true, lang);
    assert.equal(trace.replay.diverged, undefined, `${lang}: ${JSON.stringify(trace.replay.diverged)}`);
    assert.equal(trace.result.value.stop, 'answered');
    assert.equal(trace.replay.calls, RUN.calls.length);
    assert.ok(trace.replay.origin.includes(RUN.recorded), trace.replay.origin);
  }
});

for (const lang of ['en', 'zh']) {
  for (const [device, options] of SIZES) {
    describe(`run files, ${lang}, ${device}`, () => {
      test('a run file opened replays in the same debugger: origin, steps, event breakpoints, recorded outputs, outcome; the link does not hold it', async () => {
        const page = await openLesson(env, `?lang=${lang}`, options);
        const loop = figure(page, 'loop');
        await drawn(loop.locator('.run-file'));
        // The control has a visible label in the page's language.
        const label = await loop.locator('label.open-run').innerText();
        assert.match(label, lang === 'zh' ? /打开一份运行记录/ : /Open a run/);
        const builtIn = await runPart(page);
        assert.match(builtIn.origin, lang === 'zh' ? /替身: standard/ : /stand-in: standard/, 'the scenario shows where its run came from');
        assert.equal(builtIn.close, null);

        await open(page, 'run-allow-en.json', FIXTURE);
        const select = loop.locator('select[data-control="scenario"]');
        await page.waitForFunction(() => true);
        await loop.locator('[data-action="close-run"]:not([hidden])').waitFor();
        assert.equal(await select.inputValue(), 'input');
        assert.match(await select.locator('option[value="input"]').textContent(), /run-allow-en\.json/);
        const expected = await traceIn(page, FIXTURE, lang);
        const shown = await runPart(page);
        assert.equal(shown.source, 'stand_in');
        assert.ok(shown.origin.includes(expected.replay.origin), `${shown.origin} / ${expected.replay.origin}`);
        assert.ok(shown.origin.includes(RUN.recorded));
        assert.equal(shown.refused, null);
        assert.equal(shown.diverged, null);
        assert.equal(Number(await loop.locator('input[type="range"]').getAttribute('max')), expected.steps + 1, 'every step of the replay');

        // An event breakpoint pauses the replay right after the host asked the user.
        await loop.locator('input[data-break-on="ask"]').check();
        await act(page, 'loop', 'debug');
        const paused = await where(page, 'loop');
        assert.equal(paused.status, 'paused');
        assert.equal(paused.symbol, 'execute_with_plan');
        // The link keeps the scenario and no step: the file is not in it.
        const query = await search(page);
        assert.doesNotMatch(query, /loop\.step|input|run-allow/, query);

        await act(page, 'loop', 'run');
        await loop.locator('[data-status="done"]').waitFor();
        const end = await loop.evaluate((root) => ({
          stop: root.querySelector('[data-pane="evidence"] [data-stop]')?.dataset.stop,
          calls: Number(root.querySelector('[data-pane="evidence"] [data-stop]')?.dataset.calls),
          backed: [...root.querySelectorAll('[data-pane="evidence"] tr[data-item]')].map((tr) => tr.dataset.backed),
          runs: root.querySelectorAll('[data-pane="conversation"] [data-recorded="run_main"]').length,
          reads: root.querySelectorAll('[data-pane="conversation"] [data-recorded="read_file"]').length,
          tags: [...root.querySelectorAll('[data-pane="conversation"] [data-recorded] .tag')].map((tag) => tag.textContent),
        }));
        assert.deepEqual([end.stop, end.calls, end.backed], ['answered', RUN.calls.length, ['true', 'true', 'true']]);
        assert.deepEqual([end.runs, end.reads], [1, 2], 'the run and both reads are labelled as recorded');
        for (const tag of end.tags) assert.match(tag, lang === 'zh' ? /录制/ : /recorded/);

        // Back to the scenarios: the default scenario, whose run has no recording date.
        await loop.locator('[data-action="close-run"]').click();
        assert.equal(await select.inputValue(), 'allow');
        assert.equal(await select.locator('option[value="input"]').count(), 0);
        const back = await runPart(page);
        assert.equal(back.close, null);
        assert.doesNotMatch(back.origin, /recorded|录制/);
        assert.deepEqual(page.errors, []);
        await page.context().close();
      });

      test('refused files show their coded error in the page’s language; a too-large file is never read; a diverged run says where', async () => {
        const page = await openLesson(env, `?lang=${lang}`, options);
        // Counts every read of a file's bytes, so the test sees a file over the limit refused unread.
        await page.evaluate(() => {
          window.__reads = 0;
          for (const name of ['text', 'arrayBuffer', 'stream', 'bytes']) {
            const original = Blob.prototype[name];
            if (!original) continue;
            Blob.prototype[name] = function (...args) {
              window.__reads++;
              return original.apply(this, args);
            };
          }
        });
        const loop = figure(page, 'loop');
        await drawn(loop.locator('.run-file'));
        const unpaired = structuredClone(RUN);
        unpaired.calls[1].sent = [];
        // A byte that is not UTF-8 inside the question.
        const latin1 = Buffer.from(JSON.stringify(RUN));
        latin1[latin1.indexOf('"question":"') + 12] = 0xe9;
        const cases = [
          ['latin1.json', latin1, 'run_malformed'],
          ['big.json', `{"version": 1, "pad": "${'x'.repeat(1 << 20)}"}`, 'run_too_large'],
          ['broken.json', '{"version": 1, "calls": [', 'run_malformed'],
          ['later.json', JSON.stringify({ ...RUN, version: 2 }), 'run_unknown_version'],
          ['unpaired.json', JSON.stringify(unpaired), 'run_unpaired_tool_use'],
        ];
        for (const [name, text, code] of cases) {
          const reads = await page.evaluate(() => window.__reads);
          await open(page, name, text);
          await loop.locator(`.run-refused[data-code="${code}"]:not([hidden])`).waitFor();
          const shown = await runPart(page);
          const expected = (await traceIn(page, text, lang)).result.error;
          assert.equal(expected.code, code);
          if (name === 'latin1.json') assert.match(expected.message, /not UTF-8 text \(at byte \d+\)/);
          assert.ok(shown.refused.includes(expected.message), `${name}: ${shown.refused}`);
          assert.ok(shown.refused.includes(code));
          assert.equal(CJK.test(expected.message), lang === 'zh', `${name}: worded in ${lang}: ${expected.message}`);
          assert.equal(shown.origin, null, 'a refused file has no origin');
          if (code === 'run_too_large') assert.equal(await page.evaluate(() => window.__reads), reads, 'the large file was not read');
          // Run shows the refusal at the end too, not an empty outcome.
          await act(page, 'loop', 'run');
          await loop.locator(`[data-pane="evidence"] [data-stop="error"][data-code="${code}"]`).waitFor();
        }

        // A run edited to a budget of 4 calls: the host stops early, and the figure says where the replay left the recording.
        const edited = JSON.stringify({ ...RUN, settings: { ...RUN.settings, max_calls: 4 } });
        await open(page, 'budget-4.json', edited);
        await loop.locator('.run-diverged:not([hidden])').waitFor();
        const expected = await traceIn(page, edited, lang);
        const shown = await runPart(page);
        assert.equal(shown.divergedAt, String(expected.replay.diverged.call));
        assert.equal(expected.replay.diverged.call, 5);
        assert.ok(shown.diverged.includes(expected.replay.diverged.message), shown.diverged);
        assert.equal(CJK.test(expected.replay.diverged.message), lang === 'zh', expected.replay.diverged.message);
        assert.equal(shown.refused, null);
        await act(page, 'loop', 'run');
        assert.equal(await loop.locator('[data-pane="evidence"] [data-stop]').getAttribute('data-stop'), 'call_limit');
        assert.deepEqual(page.errors, []);
        await page.context().close();
      });
    });
  }
}

describe('a dropped file, and the figure element', () => {
  test('a run file dropped onto the figure replays it', async () => {
    const page = await openLesson(env, '?lang=en');
    const loop = figure(page, 'loop');
    const taken = await loop.evaluate((root, text) => {
      const data = new DataTransfer();
      data.items.add(new File([text], 'dropped.json', { type: 'application/json' }));
      const over = root.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
      const dropped = root.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
      // dispatchEvent is false when the figure took the event (preventDefault): the browser does not open the file.
      return { over: !over, dropped: !dropped };
    }, FIXTURE);
    assert.deepEqual(taken, { over: true, dropped: true });
    await loop.locator('[data-action="close-run"]:not([hidden])').waitFor();
    assert.match(await loop.locator('select[data-control="scenario"] option[value="input"]').textContent(), /dropped\.json/);
    assert.ok((await runPart(page)).origin.includes(RUN.recorded));
    await act(page, 'loop', 'run');
    assert.equal(await loop.locator('[data-pane="evidence"] [data-stop]').getAttribute('data-stop'), 'answered');
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });

  test('<todo-trace-figure figure="loop"> replays a run file given as its JSON child or as .data, and shows the coded error for anything else', async () => {
    const page = await openLesson(env, '?lang=zh');
    /** Adds a loop figure element; `child` is the JSON child's text, `data` a value set as .data before it joins the page. */
    const add = (id, { child, data, hasData }) =>
      page.evaluate(([id, child, data, hasData]) => {
        const element = document.createElement('todo-trace-figure');
        element.id = id;
        element.setAttribute('figure', 'loop');
        element.setAttribute('lang', 'zh');
        if (child !== null) {
          const script = document.createElement('script');
          script.type = 'application/json';
          script.textContent = child;
          element.append(script);
        }
        if (hasData) element.data = data === '__huge__' ? { version: 1, pad: 'x'.repeat(1 << 20) } : data;
        document.body.append(element);
      }, [id, child ?? null, data ?? null, Boolean(hasData)]);
    const part = (id) => page.locator(`#${id} [data-figure="loop"] .run-file`);
    const ready = (id) => page.locator(`#${id} [data-figure="loop"] [data-status]`).waitFor();

    await add('child', { child: FIXTURE });
    await add('data', { data: RUN, hasData: true });
    await add('bad-child', { child: '{"version": 1, ' });
    await add('bad-data', { data: { ...RUN, version: 3 }, hasData: true });
    await add('huge-data', { data: '__huge__', hasData: true });
    await add('not-run', { data: 42, hasData: true });
    for (const id of ['child', 'data', 'bad-child', 'bad-data', 'huge-data', 'not-run']) await ready(id);

    for (const id of ['child', 'data']) {
      assert.equal(await page.locator(`#${id} select[data-control="scenario"]`).inputValue(), 'input', id);
      const origin = await part(id).locator('[data-origin]').textContent();
      assert.ok(origin.includes(RUN.recorded) && origin.includes('替身'), `${id}: ${origin}`);
      await page.locator(`#${id} [data-action="run"]`).click();
      assert.equal(await page.locator(`#${id} [data-pane="evidence"] [data-stop]`).getAttribute('data-stop'), 'answered', id);
      assert.equal(await page.locator(`#${id} [data-pane="evidence"] [data-stop]`).getAttribute('data-calls'), String(RUN.calls.length), id);
    }
    for (const [id, code] of [['bad-child', 'run_malformed'], ['bad-data', 'run_unknown_version'], ['huge-data', 'run_too_large'], ['not-run', 'run_malformed']]) {
      const refused = part(id).locator('.run-refused');
      assert.equal(await refused.getAttribute('data-code'), code, id);
      assert.equal(await refused.isHidden(), false, id);
      assert.match(await refused.textContent(), CJK, `${id}: in the element's language`);
      assert.equal(await page.locator(`#${id} select[data-control="scenario"]`).inputValue(), 'input', `${id}: not an empty scenario`);
    }
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
});

test('What if… starts from an opened run file: a larger budget stops where the recorded model never saw the request', async () => {
  const page = await openLesson(env, '?lang=en', { viewport: { width: 1280, height: 800 } });
  const loop = figure(page, 'loop');
  // A recorded run that hit a budget of 4 calls. Were "What if" to start from the scenario shown instead (allow, by
  // the stand-in), a budget of 5 would go on with the stand-in; from the recording it has no fifth reply to give.
  const run = await page.evaluate(async () => (await import('./api.js')).runFile('budget', 'en'));
  const recorded = JSON.stringify({ ...run, model: { kind: 'live', name: 'claude-test' }, recorded: '2026-12-05T02:00:00Z' });
  await open(page, 'budget.json', recorded);
  await loop.locator('.run-file [data-origin]:not([hidden])').waitFor();
  await loop.locator('[data-action="what-if"]').click();
  await loop.locator('select[data-control="budget"]').selectOption('5');
  await loop.locator('[data-action="what-if-budget"]').click();
  const pane = loop.locator('[data-pane="compare"]:not([hidden])');
  await pane.waitFor();
  assert.match(await pane.textContent(), /The recorded model never saw this/);
  assert.equal(await pane.locator('[data-side="base"] ol.calls > li[data-call]:not([data-call="end"])').count(), 4);
  await page.close();
});
