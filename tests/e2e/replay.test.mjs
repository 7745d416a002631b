// Unit tests (in node) of the debugger's pure stepping rules and of the deep-link format, over real traces from the wasm module.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { readLink, writeLink } from '../../www/link.js';
import {
  IDLE, breakableLines, breakpointHits, breakpointKey, callStack, canRun, framesAt, commands,
  hostAt, localsOf, markers, outputAt, shownSymbol, status, tracedSymbols,
} from '../../www/replay.js';
import { loadModule } from './helpers.mjs';

let api;
before(async () => {
  api = await loadModule();
});

// Line numbers come from the listing, found by their text, so the tests follow the source file.
function lineOf(symbol, snippet) {
  const found = api.source(symbol).lines.filter((line) => line.text.includes(snippet));
  assert.equal(found.length, 1, `"${snippet}" in ${symbol}`);
  return found[0].no;
}

const at = (steps, pos) => ({ symbol: steps[pos].symbol, line: steps[pos].line, event: steps[pos].event });
const localsAt = (trace, pos) => localsOf(trace, trace.steps[pos]);
const none = new Set();

describe('stepping over write/replace', () => {
  let trace;
  let steps;
  before(() => {
    trace = api.trace('write', 'replace', 'en');
    steps = trace.steps;
  });

  test('stepping from "not started" pauses at the first line', () => {
    for (const command of ['step-into', 'step-over', 'step-out']) {
      assert.deepEqual(at(steps, commands[command](steps, IDLE, none)), {
        symbol: 'write_todos', line: lineOf('write_todos', 'validate_todos(items)?'), event: 'call',
      });
    }
  });

  test('step into enters validate_todos; step out comes back to the next line of write_todos', () => {
    const inside = commands['step-into'](steps, 0, none);
    assert.equal(steps[inside].symbol, 'validate_todos');
    assert.deepEqual(framesAt(steps, inside).map((f) => f.symbol), ['write_todos', 'validate_todos']);
    const back = commands['step-out'](steps, inside + 3, none);
    assert.deepEqual(at(steps, back), { symbol: 'write_todos', line: lineOf('write_todos', 'let rendered'), event: 'line' });
  });

  test('step over runs a whole call without pausing inside it', () => {
    const next = commands['step-over'](steps, 0, none);
    assert.deepEqual(at(steps, next), { symbol: 'write_todos', line: lineOf('write_todos', 'let rendered'), event: 'line' });
    const after = commands['step-over'](steps, next, none);
    assert.equal(steps[after].line, lineOf('write_todos', 'state.items = replacement'));
  });

  test('step over and step out still stop at a breakpoint inside the call', () => {
    const push = new Set([breakpointKey('validate_todos', lineOf('validate_todos', 'new_list.push('))]);
    const over = commands['step-over'](steps, 0, push);
    assert.deepEqual(at(steps, over), { symbol: 'validate_todos', line: lineOf('validate_todos', 'new_list.push('), event: 'line' });
    const out = commands['step-out'](steps, over, push);
    assert.equal(steps[out].symbol, 'validate_todos', 'the second item reaches the push line too');
    assert.ok(out > over);
    assert.equal(steps[commands['step-out'](steps, out, push)].symbol, 'write_todos');
  });

  test('continue goes from breakpoint to breakpoint, then to the end', () => {
    const push = new Set([breakpointKey('validate_todos', lineOf('validate_todos', 'new_list.push('))]);
    const hits = breakpointHits(steps, push);
    assert.equal(hits.length, 2, 'one hit per submitted item');
    assert.equal(commands.debug(steps, 40, push), hits[0]);
    assert.equal(commands.continue(steps, IDLE, push), hits[0]);
    assert.equal(commands.continue(steps, hits[0], push), hits[1]);
    assert.equal(commands.continue(steps, hits[1], push), steps.length);
    assert.equal(commands.debug(steps, IDLE, none), steps.length, 'with no breakpoint Debug runs to the end');
  });

  test('a breakpoint fires where its line is about to run, not where a function returns from it', () => {
    const okLine = lineOf('validate_todos', 'Ok(new_list)');
    const bp = new Set([breakpointKey('validate_todos', okLine)]);
    const hits = breakpointHits(steps, bp);
    assert.equal(hits.length, 1);
    assert.equal(steps[hits[0]].event, 'line');
    assert.equal(steps[hits[0] + 1].event, 'return');
    assert.equal(steps[hits[0] + 1].line, okLine);
  });

  test('step back goes one recorded step back; run, restart and the ends', () => {
    assert.equal(commands['step-back'](steps, 10, none), 9);
    assert.equal(commands['step-back'](steps, steps.length, none), steps.length - 1);
    assert.equal(commands['step-back'](steps, 0, none), 0);
    assert.equal(commands.run(steps, 3, none), steps.length);
    assert.equal(commands.restart(steps, 3, none), IDLE);
    assert.equal(canRun('step-into', steps, steps.length, none), false);
    assert.equal(canRun('continue', steps, steps.length, none), false);
    assert.equal(canRun('step-back', steps, IDLE, none), false);
    assert.equal(canRun('restart', steps, IDLE, none), false);
    assert.equal(canRun('step-into', steps, IDLE, none), true);
  });

  test('at the assignment line the replacement is new and the host state is old; one step later both agree', () => {
    const assign = steps.findIndex((s) => s.line === lineOf('write_todos', 'state.items = replacement') && s.event === 'line');
    const replacement = localsAt(trace, assign).find((l) => l.name === 'replacement');
    assert.equal(replacement.value[1].status, 'in_progress');
    assert.equal(replacement.change, '.', 'bound two lines before');
    assert.equal(localsAt(trace, assign).find((l) => l.name === 'rendered').change, '+', 'bound by the line just run');
    assert.equal(hostAt(trace, assign)[0].entries[1].value.status, 'pending');
    assert.deepEqual(markers(steps, assign), { next: lineOf('write_todos', 'state.items'), ran: lineOf('write_todos', 'let rendered') });

    const after = assign + 1;
    const items = hostAt(trace, after)[0].entries;
    assert.equal(items[1].value.status, 'in_progress');
    assert.equal(items[1].change, '~');
    assert.equal(items[0].change, '.', 'item 1 did not change');
    const moved = localsAt(trace, after).find((l) => l.name === 'replacement');
    assert.equal(moved.moved, true);
    assert.equal(moved.value, null);
    assert.equal(moved.change, 'm');
    assert.deepEqual(localsAt(trace, after).map((l) => [l.name, l.change]), [['state', '~'], ['items', '.'], ['lang', '.'], ['replacement', 'm'], ['rendered', '.']]);
  });

  test('markers and call stack inside a callee', () => {
    const inside = steps.findIndex((s) => s.symbol === 'validate_todos' && s.line === lineOf('validate_todos', 'let mut seen_ids'));
    assert.equal(shownSymbol(steps, inside, 'write_todos'), 'validate_todos');
    assert.deepEqual(markers(steps, inside), { next: lineOf('validate_todos', 'let mut seen_ids'), ran: lineOf('validate_todos', 'let mut new_list') });
    const call = steps.findIndex((s) => s.symbol === 'write_todos');
    assert.deepEqual(callStack(steps, inside), [
      { symbol: 'validate_todos', line: lineOf('validate_todos', 'let mut seen_ids'), step: inside },
      // The caller's latest step, whose locals a click on it shows, is the one at its line of the call.
      { symbol: 'write_todos', line: lineOf('write_todos', 'validate_todos(items)?'), step: call },
    ]);
    const first = steps.findIndex((s) => s.symbol === 'validate_todos');
    assert.equal(markers(steps, first).ran, null, 'a call has run no line of its own yet');
    assert.ok(localsAt(trace, first).length > 0);
    assert.equal(localsAt(trace, first).every((l) => l.change === '.'), true, 'arguments are not changes');
    const grown = localsAt(trace, inside).find((l) => l.name === 'new_list');
    assert.equal(grown.change, '+');
    assert.deepEqual(callStack(steps, IDLE), []);
    assert.deepEqual(callStack(steps, steps.length), []);
  });

  test('after the return the caller marks its call line as just run', () => {
    const back = steps.findIndex((s) => s.symbol === 'write_todos' && s.line === lineOf('write_todos', 'let rendered'));
    assert.equal(steps[back - 1].event, 'return');
    assert.deepEqual(markers(steps, back), { next: lineOf('write_todos', 'let rendered'), ran: lineOf('write_todos', 'validate_todos(items)?') });
    assert.deepEqual(markers(steps, back - 1), { next: null, ran: lineOf('validate_todos', 'Ok(new_list)') });
  });

  test('output appears only once the entry has printed, after the last step', () => {
    assert.deepEqual(outputAt(trace, IDLE), []);
    assert.deepEqual(outputAt(trace, trace.steps.length - 1), []);
    assert.deepEqual(outputAt(trace, trace.steps.length), trace.output);
    assert.match(trace.output.at(-1), /ran none of its items/);
  });
});

describe('failures and endings', () => {
  test('write/active: the error comes out of validation, the assignment never runs, the old plan stays', () => {
    const trace = api.trace('write', 'active', 'en');
    const assign = lineOf('write_todos', 'state.items = replacement');
    assert.equal(trace.steps.some((s) => s.symbol === 'write_todos' && s.line === assign), false);
    assert.deepEqual(status(trace, trace.steps.length), { kind: 'error', error: trace.result.error, total: trace.steps.length });
    assert.equal(trace.result.error.code, 'too_many_active');
    const last = hostAt(trace, trace.steps.length)[0].entries.map((e) => e.value.status);
    assert.deepEqual(last, ['completed', 'pending']);
    const errorStep = trace.steps.findIndex((s) => s.event === 'error');
    assert.equal(trace.steps[errorStep].symbol, 'validate_todos');
    assert.equal(status(trace, errorStep).kind, 'paused', 'an error inside is a pause until the run ends');
  });

  test('write/omit: item 2 is marked removed when the assignment runs, and still once the run ends', () => {
    const trace = api.trace('write', 'omit', 'en');
    const after = trace.steps.findIndex((_, pos) => hostAt(trace, pos)[0].entries.some((e) => e.change === '-'));
    const entries = hostAt(trace, after)[0].entries;
    assert.deepEqual(entries.map((e) => [e.value.id, e.change]), [['1', '.'], ['2', '-']]);
    assert.equal(trace.steps[after - 1].line, lineOf('write_todos', 'state.items = replacement'));
    // Once the run ends, the host is marked against the state before the call: item 2 stays visible, as removed.
    assert.deepEqual(hostAt(trace, trace.steps.length)[0].entries.map((e) => [e.value.id, e.change]), [['1', '.'], ['2', '-']]);
    assert.deepEqual(hostAt(trace, IDLE)[0].entries.map((e) => [e.value.id, e.change]), [['1', '.'], ['2', '.']]);
  });

  test('status of a finished successful run, and of not started', () => {
    const trace = api.trace('validate', 'valid', 'zh');
    assert.equal(status(trace, trace.steps.length).kind, 'done');
    assert.equal(status(trace, IDLE).kind, 'idle');
    const s = status(trace, 3);
    assert.equal(s.kind, 'paused');
    assert.equal(s.step, 4);
    assert.equal(s.line, trace.steps[3].line);
  });

  test('breakable lines: every traced statement, never the signature or a struct field', () => {
    const symbols = tracedSymbols(api.trace('write', 'replace', 'en'));
    assert.deepEqual([...symbols].sort(), ['format_todos', 'validate_todos', 'write_todos']);
    const lines = breakableLines([...symbols].map((symbol) => api.source(symbol))).get('validate_todos');
    assert.ok(lines.has(lineOf('validate_todos', 'new_list.push(')));
    assert.ok(lines.has(lineOf('validate_todos', 'return Err(TodoError::NotAList)')), 'reached by no scenario, still a statement');
    assert.ok(!lines.has(lineOf('validate_todos', 'pub fn validate_todos')));
    assert.ok(!lines.has(lineOf('validate_todos', 'content: content.to_string()')));
  });
});

describe('deep links', () => {
  test('a written link reads back to the same place', () => {
    const places = [
      { id: 'validate', scenario: 'valid', defaultScenario: 'valid', breakpoints: new Set(), step: null },
      { id: 'write', scenario: 'active', defaultScenario: 'replace', breakpoints: new Set(['write_todos.169', 'validate_todos.155']), step: 12 },
      { id: 'prepare', scenario: 'pending', defaultScenario: 'pending', breakpoints: new Set(), step: 'end' },
    ];
    const query = writeLink('en', places);
    assert.equal(query, '?lang=en&write=active&write.bp=validate_todos.155&write.bp=write_todos.169&write.step=12&prepare.step=end');
    const back = readLink(query, ['validate', 'write', 'prepare']);
    assert.deepEqual(back, {
      lang: 'en',
      at: null,
      problems: [],
      figures: {
        validate: { scenario: null, breakpoints: [], step: null },
        write: { scenario: 'active', breakpoints: ['validate_todos.155', 'write_todos.169'], step: 12 },
        prepare: { scenario: null, breakpoints: [], step: 'end' },
      },
    });
  });

  test('a link made in a later figure than the first it names says so, and reads back', () => {
    const places = [
      { id: 'validate', scenario: 'valid', defaultScenario: 'valid', breakpoints: new Set(), step: 3 },
      { id: 'write', scenario: 'replace', defaultScenario: 'replace', breakpoints: new Set(), step: null },
      { id: 'loop', scenario: 'allow', defaultScenario: 'allow', breakpoints: new Set(), step: 5 },
    ];
    const query = writeLink('en', places, 'loop');
    assert.equal(query, '?lang=en&at=loop&validate.step=3&loop.step=5');
    assert.equal(readLink(query, ['validate', 'write', 'loop']).at, 'loop');
    // Not needed: the first figure named, or the only one, or one that names no place.
    assert.equal(writeLink('en', places, 'validate'), '?lang=en&validate.step=3&loop.step=5');
    assert.equal(writeLink('en', places, 'write'), '?lang=en&validate.step=3&loop.step=5');
    assert.equal(writeLink('en', places.slice(2), 'loop'), '?lang=en&loop.step=5');
    // A figure the page does not have is reported, and the link opens as if it did not say.
    const odd = readLink('?at=nowhere&loop.step=5', ['loop']);
    assert.deepEqual([odd.at, odd.problems], [null, [{ name: 'at', value: 'nowhere' }]]);
  });

  test('a fresh page has a plain URL', () => {
    const place = { id: 'validate', scenario: 'valid', defaultScenario: 'valid', breakpoints: new Set(), step: null };
    assert.equal(writeLink('zh', [place]), '');
  });

  test('values that make no sense are reported, not guessed', () => {
    const { lang, problems, figures } = readLink('?lang=fr&write.step=abc', ['write']);
    assert.equal(lang, 'zh');
    assert.deepEqual(problems, [{ name: 'lang', value: 'fr' }, { name: 'write.step', value: 'abc' }]);
    assert.equal(figures.write.step, null);
  });

  test('a parameter that names nothing, or a second value where one is read, is reported too', () => {
    const { problems, figures } = readLink('?write=active&write=replace&colour=blue&write.step=2&write.step=3&lang=en&lang=zh&write.bp=a&write.bp=b', ['write']);
    assert.deepEqual(problems, [
      { name: 'write', value: 'replace' },
      { name: 'colour', value: 'blue' },
      { name: 'write.step', value: '3' },
      { name: 'lang', value: 'zh' },
    ]);
    assert.deepEqual(figures.write, { scenario: 'active', breakpoints: ['a', 'b'], step: 2 });
  });
});
