// An author's JS value (traceValue, www/value.js) with the real module in node: a value runs exactly as the same data
// typed as text, each property is read once, and a value over a limit or not JSON data gives a coded error with its
// path, never an exception. (The hostile getters and Proxies of issue 27 are in hostile.test.mjs.)
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { MAX_DEPTH, MAX_INPUT_BYTES, readValue } from '../../www/value.js';
import { loadModule } from './helpers.mjs';

let api;
before(async () => {
  api = await loadModule();
});

/** The coded error of a value refused on every figure that takes one; nothing may run. */
function assertRefused(value, code, message) {
  for (const figure of ['validate', 'write', 'prepare']) {
    const trace = api.traceValue(figure, value, 'en');
    assert.equal(trace.ran, false, figure);
    assert.equal(trace.result.ok, false, figure);
    assert.equal(trace.result.error.code, code, `${figure}: ${trace.result.error.message}`);
    assert.ok(trace.result.error.message.length > 0);
    if (message) assert.equal(trace.result.error.message, message, figure);
    assert.deepEqual(trace.steps, [], figure);
  }
}

/** Accepted by the check: whatever the lesson then says, the trace ran. */
function assertRan(value) {
  for (const figure of ['validate', 'write']) {
    const trace = api.traceValue(figure, value, 'en');
    assert.equal(trace.ran, true, `${figure}: ${JSON.stringify(trace.result.error)}`);
  }
}

test('a value runs exactly as the same data typed as text', () => {
  const texts = [
    '[{"id": "1", "content": "Read the file", "status": "completed"}, {"id": "2", "content": "Fix it", "status": "in_progress"}]',
    '[{"id": "1", "content": "x", "status": "done"}]',
    '{"not": "a list"}',
    '[{"id": "1", "content": "  spaced  ", "status": "pending", "extra": [1, 2.5, -0.125, null, true]}]',
    '[{"id": "1", "content": "读取文件 😀", "status": "pending"}]',
  ];
  for (const text of texts) {
    for (const figure of ['validate', 'write', 'prepare']) {
      assert.deepEqual(api.traceValue(figure, JSON.parse(text), 'en'), api.traceInput(figure, text, 'en'), `${figure} on ${text}`);
    }
  }
});

test('nesting is limited at thirty-two levels, and cycles are refused with their path', () => {
  assert.equal(MAX_DEPTH, 32);
  assertRan(JSON.parse('['.repeat(32) + ']'.repeat(32)));
  assertRefused(JSON.parse('['.repeat(33) + ']'.repeat(33)), 'too_deep');
  // Far deeper than the stack would allow a recursive conversion.
  let deep = [];
  for (let i = 0; i < 200_000; i++) deep = [deep];
  assertRefused(deep, 'too_deep');
  const a = [];
  a.push({ b: a });
  assertRefused(a, 'not_json', "At the value's [0].b: an object that contains itself (a cycle), which is not JSON data.");
  // The same object twice, side by side, is no cycle.
  const shared = { id: '1', content: 'x', status: 'pending' };
  assertRan([shared, { ...shared, id: '2', extra: [shared] }]);
});

test('size is limited at 64 KiB of JSON, counted in bytes of UTF-8 as serde_json writes it', () => {
  assert.equal(MAX_INPUT_BYTES, 65_536);
  // ["…"]: 4 bytes around the string; "é" is 2 bytes of UTF-8, "\n" 2 bytes as JSON, U+0001 6, an emoji 4.
  assertRan(['x'.repeat(65532)]);
  assertRefused(['x'.repeat(65533)], 'input_too_large');
  assertRan(['é'.repeat(32766)]);
  assertRefused(['é'.repeat(32767)], 'input_too_large');
  assertRefused(['\n'.repeat(32767)], 'input_too_large');
  assertRan(['\u0001'.repeat(10922)]);
  assertRefused(['\u0001'.repeat(10923)], 'input_too_large');
  assertRan(['😀'.repeat(16383)]);
  assertRefused(['😀'.repeat(16384)], 'input_too_large');
  assertRefused(['x'.repeat(10_000_000)], 'input_too_large');
  assertRefused(new Array(1_000_000).fill(0), 'input_too_large');
  assertRefused(Object.fromEntries(Array.from({ length: 100000 }, (_, i) => [String(i), 0])), 'input_too_large');
  // What the reader counted is what the module would have: the text sent is exactly as long.
  const at = { [' '.repeat(65526)]: 0 }; // {"…":0}: 6 bytes around the key
  assert.equal(JSON.stringify(readValue(at).data).length, 65_532);
});

test('numbers count as JSON.stringify writes them', () => {
  // [12345,"…"]: 5 digits; 1.5 is 3; -0 is written 0.
  assertRan([12345, 'x'.repeat(65526)]);
  assertRefused([12345, 'x'.repeat(65527)], 'input_too_large');
  assertRan([1.5, 'x'.repeat(65528)]);
  assertRefused([1.5, 'x'.repeat(65529)], 'input_too_large');
  assertRan([-0, 'x'.repeat(65530)]);
  assertRefused([-0, 'x'.repeat(65531)], 'input_too_large');
});

test('a refusal names the path, with keys that are not names as JSON strings', () => {
  const trace = api.traceValue('validate', [{ id: '1', 'two words': { '"q"': undefined } }], 'en');
  assert.equal(trace.result.error.message, `At the value's [0]["two words"]["\\"q\\""]: undefined (or a hole in an array), which is not JSON data.`);
  const zh = api.traceValue('validate', [{ id: () => 1 }], 'zh');
  assert.equal(zh.result.error.message, '值的 [0].id是一个函数，不是 JSON 数据。');
});

test('what JSON does not hold is refused as not_json, with what it is', () => {
  class Item {}
  const cases = [
    [[() => 1], '[0]', 'function'],
    [[{ id: Symbol('x') }], '[0].id', 'symbol'],
    [[10n], '[0]', 'bigInt'],
    [[undefined], '[0]', 'undefined'],
    // eslint-disable-next-line no-sparse-arrays
    [[1, , 2], '[1]', 'undefined'],
    [[NaN], '[0]', 'notFinite'],
    [[{ n: Infinity }], '[0].n', 'notFinite'],
    [[new Map()], '[0]', 'notPlain'],
    [[new Date(0)], '[0]', 'notPlain'],
    [[new Item()], '[0]', 'notPlain'],
    [JSON.parse('[{"__proto__": 1}]'), '[0].__proto__', 'protoKey'],
    [
      [
        {
          get id() {
            throw new Error('no');
          },
        },
      ],
      '[0].id',
      'unreadable',
    ],
    [undefined, '', 'undefined'],
  ];
  for (const [value, path, what] of cases) {
    assert.deepEqual(readValue(value), { refused: { kind: 'notData', path, what } }, `${path} ${what}`);
    assertRefused(value, 'not_json');
  }
  // An object without a prototype is plain data.
  assertRan([Object.assign(Object.create(null), { id: '1', content: 'x', status: 'pending' })]);
});

test('each property is read exactly once, and the copy is what is traced', () => {
  // Before, the value was checked by one walk and converted by another: a getter could answer the check with 'x' and
  // the conversion with anything. Now the one read is the copy, so a later answer can change nothing.
  const reads = new Map();
  const count = (key) => reads.set(key, (reads.get(key) ?? 0) + 1);
  let content = 0;
  const item = new Proxy(
    { id: '1', content: 'x', status: 'pending' },
    {
      ownKeys(target) {
        count('ownKeys');
        return Reflect.ownKeys(target);
      },
      get(target, key) {
        count(String(key));
        return key === 'content' ? (content++ ? 'y'.repeat(1 << 20) : 'first') : Reflect.get(target, key);
      },
    },
  );
  const trace = api.traceValue('validate', [item], 'en');
  assert.equal(trace.result.ok, true, JSON.stringify(trace.result.error));
  assert.deepEqual(trace.result.value, [{ id: '1', content: 'first', status: 'pending' }]);
  assert.deepEqual(Object.fromEntries(reads), { ownKeys: 1, id: 1, content: 1, status: 1 });
  // The copy is fresh plain data, not the author's objects.
  const source = [{ id: '1', tags: ['a'] }];
  const { data } = readValue(source);
  assert.deepEqual(JSON.stringify(data), JSON.stringify(source));
  assert.notEqual(data, source);
  assert.notEqual(data[0].tags, source[0].tags);
  source[0].tags.push('b');
  assert.deepEqual(data[0].tags, ['a']);
});

test('the host plan of prepare is validated and stored normalized', () => {
  const trace = api.traceValue('prepare', [{ id: ' 1 ', content: 'Read', status: 'pending' }], 'en');
  assert.equal(trace.ran, true);
  assert.deepEqual(trace.data.state.items, [{ id: '1', content: 'Read', status: 'pending' }]);
  const bad = api.traceValue('prepare', [{ id: '1', content: 'Read', status: 'done' }], 'en');
  assert.equal(bad.ran, false);
});

test('unknown figures and languages, and the loop, throw; the module still works', () => {
  assert.throws(() => api.traceValue('nope', null, 'en'), /unknown figure "nope"/);
  assert.throws(() => api.traceValue('write', null, 'fr'), /unknown language/);
  assert.throws(() => api.traceValue('loop', [], 'en'), /takes no input of the reader's own/);
  // A refused value on an unknown figure is still an unknown figure.
  assert.throws(() => api.traceValue('nope', [undefined], 'en'), /unknown figure "nope"/);
  const trace = api.traceValue('write', [{ id: '1', content: 'x', status: 'pending' }], 'en');
  assert.equal(trace.result.ok, true);
});

test('every number JS holds runs as that number, however the reader-text grammar would read its digits', () => {
  // The reader's grammar refuses digits it cannot read exactly; a JS value's number is already a float.
  for (const number of [2 ** 53, 0.1 + 0.2, 5e-324, -0, 1e21, Number.MAX_VALUE]) {
    const trace = api.traceValue('validate', [{ id: '1', content: 'x', status: 'pending', n: number }], 'en');
    assert.equal(trace.ran, true, `${number}: ${JSON.stringify(trace.result.error)}`);
    const given = trace.data.items[0].n;
    assert.equal(given, JSON.parse(JSON.stringify(number)), String(number));
  }
});

test('a lone surrogate, in a string or a key, is refused with its path, not as text the author never typed', () => {
  assertRefused([{ id: '\ud800', content: 'x', status: 'pending' }], 'not_json',
    "At the value's [0].id: a string with a lone UTF-16 surrogate, which is not JSON data.");
  assertRefused([{ ['k\udc00']: 1 }], 'not_json');
  // A pair is one character, and runs.
  assertRan([{ id: '😀', content: 'x', status: 'pending' }]);
});
