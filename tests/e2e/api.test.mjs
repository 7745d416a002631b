// The JS API (www/pkg) called from node as any JS caller would, through the generated glue: arguments of the wrong
// type are refused with a clear Error, and text over the size limit is refused before it is copied into wasm.
import assert from 'node:assert/strict';
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
