// The JS API (www/api.js) called from node as any JS caller would, with the real module: every trace is its golden file
// made whole, arguments of the wrong type are refused with a clear Error, and text over the size limit is refused
// before it is copied into wasm.
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { before, test } from 'node:test';
import { loadModule } from './helpers.mjs';

let api;
let wasm;
before(async () => {
  api = await loadModule();
  // Once initialized, the glue's init returns the module's exports, its memory among them.
  wasm = await api.default();
});

const NOT_STRINGS = [
  [1, 'number'],
  [true, 'boolean'],
  [{}, 'object'],
  [null, 'null'],
  [undefined, 'undefined'],
  [['validate'], 'array'],
  [{ length: 2 ** 31 }, 'object'],
  [{ length: 10 << 20 }, 'object'],
  [Symbol('x'), 'symbol'],
  [10n, 'bigint'],
  [() => 'validate', 'function'],
  [new String('validate'), 'object'],
];

test('every export refuses an argument that is not a string, naming the parameter and what it got', () => {
  for (const [bad, kind] of NOT_STRINGS) {
    const calls = [
      ['figureId', () => api.trace(bad, 'replace', 'en')],
      ['scenarioId', () => api.trace('write', bad, 'en')],
      ['lang', () => api.trace('write', 'replace', bad)],
      ['figureId', () => api.scenarios(bad, 'en')],
      ['lang', () => api.scenarios('write', bad)],
      ['symbol', () => api.source(bad)],
      ['figureId', () => api.traceInput(bad, '[]', 'en')],
      ['text', () => api.traceInput('write', bad, 'en')],
      ['lang', () => api.traceInput('write', '[]', bad)],
      ['figureId', () => api.traceValue(bad, [], 'en')],
      ['lang', () => api.traceValue('write', [], bad)],
    ];
    for (const [name, call] of calls) {
      assert.throws(call, (error) => error instanceof Error && error.message === `${name} must be a string, not ${kind}`, `${name}: ${kind}`);
    }
  }
  assert.equal(api.trace('write', 'replace', 'en').result.ok, true, 'the module still works');
});

test('text over 64 KiB is refused by its length before it is copied, however long', () => {
  const huge = '中'.repeat(50_000_000); // 150 MB of UTF-8
  const before = wasm.memory.buffer.byteLength;
  const trace = api.traceInput('validate', huge, 'en');
  const grown = wasm.memory.buffer.byteLength - before;
  assert.ok(grown <= 1 << 20, `wasm memory grew by ${grown} bytes`);
  assert.equal(trace.result.error.code, 'input_too_large');
  assert.match(trace.result.error.message, /at least 50000000 bytes/);
  assert.deepEqual(trace.steps, []);
});

test('an unknown id is quoted by its first 40 characters only', () => {
  const long = 'x'.repeat(1 << 20);
  assert.throws(() => api.trace(long, 'valid', 'en'), { message: `unknown figure "${'x'.repeat(40)}…": expected one of validate, write, prepare, loop` });
  assert.throws(() => api.source(`a\u202Eb`), { message: 'unknown symbol "a<U+202E>b": no such lesson function or entry' });
});

/**
 * The golden text as JS should get it: each value listed in `parts` (a list or an object of earlier values' indices)
 * made whole, in order, a list listed in `grown` after the first `kept` entries of its `base`, and both left out; each host field's first `kept` entries taken from the view before, and
 * `kept` left out; each request's history likewise from the request before, and its messages, where `changed` is
 * given, its history with those entries at `differs`; a result's `stored` value put in `value`. Written apart from api.js's traceFrom, so the test checks
 * it rather than repeats it.
 */
function whole(golden) {
  const trace = JSON.parse(golden);
  const { parts = [], grown = [], ...rest } = trace;
  const values = rest.values;
  for (const at of parts) {
    const value = values[at];
    assert.equal(typeof value, 'object', `value ${at} is listed in parts`);
    const from = grown.find((list) => list.value === at);
    values[at] = Array.isArray(value)
      ? [...(from ? values[from.base].slice(0, from.kept) : []), ...value.map((index) => values[index])]
      : Object.fromEntries(Object.entries(value).map(([key, index]) => [key, values[index]]));
  }
  rest.hosts = rest.hosts.reduce((views, view) => {
    const before = views.at(-1);
    views.push(view.map(({ kept = 0, ...field }, k) => ({ ...field, entries: [...(kept ? before[k].entries.slice(0, kept) : []), ...field.entries] })));
    return views;
  }, []);
  if (rest.requests) {
    rest.requests = rest.requests.reduce((requests, { kept = 0, changed, ...request }) => {
      const history = [...(kept ? requests.at(-1).history.slice(0, kept) : []), ...request.history];
      const messages = changed ? history.map((entry, at) => (request.differs.includes(at) ? changed[request.differs.indexOf(at)] : entry)) : request.messages;
      requests.push({ ...request, history, messages });
      return requests;
    }, []);
  }
  const { stored, ...result } = rest.result;
  rest.result = stored === undefined ? result : { ...result, value: values[stored] };
  return rest;
}

const isPlain = (value) => value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;

test('every trace crosses to JS as plain objects equal to its golden file made whole', async () => {
  const dir = new URL('../golden/', import.meta.url);
  const files = (await readdir(dir)).filter((file) => file.endsWith('.json'));
  assert.equal(files.length, 48);
  let stored = 0;
  let kept = 0;
  let changed = 0;
  let grew = 0;
  let refers = 0;
  for (const file of files) {
    const golden = await readFile(new URL(file, dir), 'utf8');
    const { figure, scenario } = JSON.parse(golden);
    const lang = file.slice(-7, -5);
    const trace = api.trace(figure, scenario, lang);
    assert.ok(isPlain(trace), file);
    assert.equal(trace.ran, true, file);
    assert.ok(trace.steps.length > 0 && isPlain(trace.steps[0]) && typeof trace.steps[0].symbol === 'string', file);
    assert.equal('parts' in trace || 'grown' in trace, false, `${file}: parts or grown reached JS`);
    assert.equal(JSON.stringify(trace.hosts).includes('"kept"'), false, `${file}: kept reached JS`);
    assert.equal(/"(kept|changed)"/.test(JSON.stringify(trace.requests ?? [])), false, `${file}: kept or changed reached JS`);
    assert.equal('stored' in trace.result, false, `${file}: result.stored reached JS`);
    if ((JSON.parse(golden).parts ?? []).length > 0) stored++;
    if ((JSON.parse(golden).grown ?? []).length > 0) grew++;
    if (golden.includes('"kept":')) kept++;
    if (golden.includes('"changed":')) changed++;
    if (JSON.parse(golden).result.stored !== undefined) refers++;
    assert.deepEqual(trace, whole(golden), file);
  }
  assert.ok(stored > 0, 'some golden trace stores a value by its parts');
  assert.ok(kept > 0, 'some golden trace keeps host entries from the view before');
  assert.ok(grew > 0, 'some golden trace writes a list by what it adds to an earlier one');
  assert.equal(changed, 18, 'every loop trace writes its requests\' messages by what differs');
  assert.equal(refers, 18, 'every loop trace refers to its stored outcome');
});

test('the plan module traces figures 1-3 as the whole module does, and refuses every loop call, saying where it is', async () => {
  // A second instance of api.js, with only the plan module loaded (the first has the whole one, which it would use).
  const plan = await import(`${new URL('../../www/api.js', import.meta.url)}?plan`);
  await plan.initPlan({ module_or_path: await readFile(new URL('../../www/pkg-plan/todo_trace_bg.wasm', import.meta.url)) });
  assert.deepEqual(plan.figures(), api.figures());
  let traced = 0;
  for (const figure of api.figures().filter((f) => f.id !== 'loop')) {
    for (const lang of ['zh', 'en']) {
      for (const { id } of plan.scenarios(figure.id, lang)) {
        assert.deepEqual(plan.trace(figure.id, id, lang), api.trace(figure.id, id, lang), `${figure.id}/${id}/${lang}`);
        traced++;
      }
      assert.deepEqual(plan.traceInput(figure.id, '[1]', lang), api.traceInput(figure.id, '[1]', lang));
    }
  }
  assert.ok(traced >= 20, `${traced} traces`);
  const run = JSON.stringify(api.runFile('allow', 'en'));
  const notHere = /^Error: the loop figure is not in this module \(www\/pkg-plan, figures 1–3\): load the whole module/;
  assert.throws(() => plan.trace('loop', 'allow', 'en'), notHere);
  assert.throws(() => plan.traceRun(run, 'en'), notHere);
  assert.throws(() => plan.runFile('allow', 'en'), notHere);
  assert.throws(() => plan.whatIf('allow', 'deny', 'en'), notHere);
  assert.throws(() => plan.whatIfRun(run, 'deny', 'en'), notHere);
});

test('a long trace of mostly ASCII with Chinese lines crosses intact', () => {
  const items = Array.from({ length: 20 }, (_, i) => ({ id: String(i + 1), content: i % 5 ? 'x'.repeat(150) : `读取文件 ${'中'.repeat(100)} 😀`, status: 'pending' }));
  const trace = api.traceInput('validate', JSON.stringify(items), 'zh');
  assert.equal(trace.result.ok, true, JSON.stringify(trace.result.error));
  assert.deepEqual(trace.result.value, items);
  assert.deepEqual(api.traceValue('validate', items, 'zh'), trace);
});

test('figures, scenarios and sources are plain data', () => {
  const figures = api.figures();
  assert.deepEqual(figures.map((figure) => figure.id), ['validate', 'write', 'prepare', 'loop']);
  for (const figure of figures) {
    assert.ok(isPlain(figure));
    for (const lang of ['zh', 'en']) {
      assert.equal(api.scenarios(figure.id, lang).filter((scenario) => scenario.isDefault).length, 1, figure.id);
    }
    for (const symbol of [figure.symbol, figure.entry]) {
      const listing = api.source(symbol);
      assert.equal(listing.file.slice(0, 4), 'src/');
      assert.ok(listing.lines[0].text.includes(`fn ${symbol}(`), listing.lines[0].text);
    }
  }
});

test('refusing arguments of the wrong type copies nothing into wasm memory', () => {
  api.traceInput('validate', '[]', 'en');
  const before = wasm.memory.buffer.byteLength;
  for (let i = 0; i < 1_000; i++) {
    for (const [bad] of NOT_STRINGS) {
      assert.throws(() => api.traceInput('validate', bad, 'en'), TypeError);
      assert.throws(() => api.trace(bad, bad, bad), TypeError);
      assert.throws(() => api.source(bad), TypeError);
    }
  }
  // A fake `{length: 10 << 20}` once leaked 10 MiB a call: a thousand of them would be 10 GiB.
  const grown = wasm.memory.buffer.byteLength - before;
  assert.ok(grown <= 1 << 20, `wasm memory grew by ${grown} bytes`);
});

test('an id of 10 M characters is cut before it is copied into wasm memory', () => {
  const huge = 'x'.repeat(10_000_000);
  const before = wasm.memory.buffer.byteLength;
  assert.throws(() => api.trace(huge, 'valid', 'en'), { message: `unknown figure "${'x'.repeat(40)}…": expected one of validate, write, prepare, loop` });
  assert.throws(() => api.source(huge), /^Error: unknown symbol/);
  assert.throws(() => api.traceValue(huge, [], 'en'), /^Error: unknown figure/);
  const grown = wasm.memory.buffer.byteLength - before;
  assert.ok(grown <= 1 << 20, `wasm memory grew by ${grown} bytes`);
  assert.equal(api.trace('write', 'replace', 'en').result.ok, true, 'the module still works');
});

test('text of 10 M characters is refused on every figure, quickly, without growing wasm memory', () => {
  const huge = '中'.repeat(10_000_000); // 30 MB of UTF-8
  const before = wasm.memory.buffer.byteLength;
  for (const figure of ['validate', 'write', 'prepare']) {
    const trace = api.traceInput(figure, huge, 'zh');
    assert.equal(trace.ran, false);
    assert.equal(trace.result.error.code, 'input_too_large');
    assert.deepEqual(trace.steps, []);
    assert.ok(trace.result.error.message.includes('10000000'), trace.result.error.message);
  }
  const grown = wasm.memory.buffer.byteLength - before;
  assert.ok(grown <= 1 << 20, `wasm memory grew by ${grown} bytes`);
  // One unit over the limit is refused by its length; at the limit, by the module's exact count of bytes.
  assert.equal(api.traceInput('validate', ' '.repeat(65_537), 'en').result.error.code, 'input_too_large');
  const wide = `["${'é'.repeat(40_000)}"]`;
  assert.equal(wide.length, 40_004);
  assert.equal(api.traceInput('validate', wide, 'en').result.error.code, 'input_too_large');
  assert.equal(api.traceInput('validate', `["${'x'.repeat(65_532)}"]`, 'en').ran, true);
});
