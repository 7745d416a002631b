// Unit tests (in node) of a figure's state and its reducer (www/state.js), over real traces from the wasm module.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { IDLE, breakpointHits, breakpointKey, framesAt } from '../../www/replay.js';
import { editorText, keptOf, openState, placeOf, reduce, scenarioText, settingOf, showsRefusal, shownTrace } from '../../www/state.js';
import { loadModule } from './helpers.mjs';

let api;
before(async () => {
  api = await loadModule();
});

const PLAN = '[{"id": "a", "content": "Ship", "status": "in_progress"}, {"id": "b", "content": "Check", "status": "pending"}]';
const FRESH = { scenario: null, breakpoints: [], step: null };

// A figure opened as the page opens it: its setting, then the place a link names and what a language switch kept.
function open(id, link = FRESH, kept = undefined, lang = 'en') {
  const figure = api.figures().find((f) => f.id === id);
  const scenarios = api.scenarios(id, lang);
  const traceOf = (scenario) => api.trace(id, scenario, lang);
  const setting = settingOf(figure, scenarios, traceOf, api.source);
  return openState(setting, link, kept, traceOf, (text) => api.traceInput(id, text, lang));
}

const lineOf = (symbol, snippet) => {
  const found = api.source(symbol).lines.filter((line) => line.text.includes(snippet));
  assert.equal(found.length, 1, `"${snippet}" in ${symbol}`);
  return found[0].no;
};

const choose = (state, scenario) => reduce(state, { type: 'choose', scenario, trace: api.trace(state.setting.figure.id, scenario, 'en') });
const runOwn = (state, command = 'run') => reduce(state, { type: 'run-own', command, trace: api.traceInput(state.setting.figure.id, state.text, 'en') });

describe('opening a figure', () => {
  test('a fresh link opens the default scenario, not started, with the scenario data in the editor', () => {
    const { state, problems } = open('write');
    assert.deepEqual(problems, []);
    assert.equal(state.scenario, 'replace');
    assert.equal(state.pos, IDLE);
    assert.equal(state.breakpoints.size, 0);
    assert.deepEqual(JSON.parse(state.text).map((item) => item.status), ['completed', 'in_progress'], 'the submitted items');
    assert.deepEqual([...state.setting.listings.keys()].sort(), ['format_todos', 'validate_todos', 'write_todos']);
  });

  test('prepare edits the host plan, not the submitted items: the figure says so', () => {
    const { state } = open('prepare');
    assert.equal(state.setting.figure.edits, 'plan');
    assert.deepEqual(JSON.parse(state.text), state.scenarioTrace.data.state.items);
    assert.deepEqual(JSON.parse(editorText('items', { ...state.scenarioTrace.data, items: [] })), []);
  });

  test('a link opens its scenario, breakpoints and step; what does not fit is reported, not guessed', () => {
    const push = breakpointKey('validate_todos', lineOf('validate_todos', 'new_list.push('));
    const assign = breakpointKey('write_todos', lineOf('write_todos', 'state.items = replacement'));
    const signature = breakpointKey('write_todos', lineOf('write_todos', 'pub fn write_todos'));
    const padded = `write_todos.0${lineOf('write_todos', 'state.items = replacement')}`;
    const link = { scenario: 'claim', breakpoints: [push, assign, signature, padded, 'prepare_messages.1', 'nonsense'], step: 12 };
    const { state, problems } = open('write', link);
    assert.equal(state.scenario, 'claim');
    assert.deepEqual([...state.breakpoints].sort(), [push, assign].sort(), 'a callee’s line is accepted, as is the figure’s own');
    assert.deepEqual(problems.map((p) => p.value), [signature, padded, 'prepare_messages.1', 'nonsense']);
    assert.equal(state.pos, 11);
    assert.equal(placeOf(state).step, 12);

    const wrong = open('write', { scenario: 'nope', breakpoints: [], step: 9999 });
    assert.equal(wrong.state.scenario, 'replace');
    assert.equal(wrong.state.pos, IDLE);
    assert.deepEqual(wrong.problems, [{ name: 'write', value: 'nope' }, { name: 'write.step', value: '9999' }]);
    const end = open('write', { scenario: null, breakpoints: [], step: 'end' }).state;
    assert.equal(end.pos, end.scenarioTrace.steps.length);
    assert.equal(placeOf(end).step, 'end');
  });

  test('a step that is not a whole number from 0 to one past the last opens at the start, reported (issue 27)', () => {
    for (const step of [-1, 3.5, -Infinity, Infinity, NaN, -0.5, 2 ** 53]) {
      const { state, problems } = open('validate', { scenario: null, breakpoints: [], step });
      assert.equal(state.pos, IDLE, String(step));
      assert.deepEqual(problems, [{ name: 'validate.step', value: String(step) }]);
    }
    assert.equal(open('validate', { scenario: null, breakpoints: [], step: 0 }).state.pos, IDLE, 'step 0: not started, as the timeline has it');
  });

  test('a place read from the element\'s attributes names what does not fit as the attributes do', () => {
    const { problems } = open('write', { scenario: 'nope', breakpoints: ['write_todos.99999'], step: 3.5, attributes: true });
    assert.deepEqual(problems, [{ name: 'scenario', value: 'nope' }, { name: 'breakpoints', value: '99999' }, { name: 'step', value: '3.5' }]);
  });
});

describe('the reducer', () => {
  test('breakpoints sets exactly the keys given that fit, as a "Show me" does', () => {
    const { state } = open('write');
    const push = breakpointKey('validate_todos', lineOf('validate_todos', 'new_list.push('));
    const assign = breakpointKey('write_todos', lineOf('write_todos', 'state.items = replacement'));
    const signature = breakpointKey('write_todos', lineOf('write_todos', 'pub fn write_todos'));
    const withOne = reduce(state, { type: 'toggle', symbol: 'write_todos', line: lineOf('write_todos', 'state.items = replacement') });
    const set = reduce(withOne, { type: 'breakpoints', keys: [push, signature] });
    assert.deepEqual([...set.breakpoints], [push], 'the old one cleared, a line without a step refused');
    assert.equal(set.breakpoints.has(assign), false);
  });

  test('a caller chosen in the call stack is kept until the next move; the current call is no choice', () => {
    let { state } = open('write');
    state = reduce(state, { type: 'command', command: 'step-into' });
    state = reduce(state, { type: 'command', command: 'step-into' });
    const steps = shownTrace(state).steps;
    const frames = framesAt(steps, state.pos);
    assert.equal(frames.length, 2, 'inside validate_todos');
    const picked = reduce(state, { type: 'frame', index: 0 });
    assert.equal(picked.frame, 0);
    assert.equal(framesAt(steps, frames[0].step).length, 1, "the caller's own step");
    assert.equal(reduce(picked, { type: 'frame', index: 1 }).frame, null, 'the current call');
    assert.equal(reduce(picked, { type: 'command', command: 'step-into' }).frame, null, 'a move goes back to the current call');
    assert.equal(reduce(picked, { type: 'frame', index: 0 }), picked, 'the same choice is the same state');
  });

  test('commands move through replay.js, a move that goes nowhere keeps the very same state, seeking clamps', () => {
    const { state } = open('write');
    const first = reduce(state, { type: 'command', command: 'step-into' });
    assert.equal(first.pos, 0);
    const over = reduce(first, { type: 'command', command: 'step-over' });
    assert.equal(over.scenarioTrace.steps[over.pos].line, lineOf('write_todos', 'let rendered'), 'over the call to validate_todos');
    assert.equal(state.pos, IDLE, 'the old state is untouched');
    assert.equal(reduce(state, { type: 'command', command: 'step-back' }), state);
    assert.equal(reduce(state, { type: 'seek', pos: 10_000 }).pos, state.scenarioTrace.steps.length);
    assert.equal(reduce(state, { type: 'seek', pos: -5 }), state);
  });

  test('a breakpoint toggles only on a line that takes one, in a new set', () => {
    const { state } = open('validate');
    const line = lineOf('validate_todos', 'new_list.push(');
    const on = reduce(state, { type: 'toggle', symbol: 'validate_todos', line });
    assert.deepEqual([...on.breakpoints], [breakpointKey('validate_todos', line)]);
    assert.equal(state.breakpoints.size, 0, 'the old set is untouched');
    assert.equal(breakpointHits(on.scenarioTrace.steps, on.breakpoints).length, 2);
    assert.equal(reduce(on, { type: 'toggle', symbol: 'validate_todos', line }).breakpoints.size, 0);
    assert.equal(reduce(state, { type: 'toggle', symbol: 'validate_todos', line: lineOf('validate_todos', 'pub fn validate_todos') }), state);
    assert.equal(reduce(state, { type: 'toggle', symbol: 'write_todos', line }), state, 'not a listing of this figure');
    const debug = reduce(on, { type: 'command', command: 'debug' });
    assert.equal(debug.scenarioTrace.steps[debug.pos].line, line);
  });

  test('the editor follows the scenario until the reader edits it', () => {
    let { state } = open('write');
    state = choose(state, 'clear');
    assert.equal(state.text, '[]');
    assert.equal(state.pos, IDLE);
    state = reduce(state, { type: 'edit', text: PLAN });
    assert.equal(reduce(state, { type: 'edit', text: PLAN }), state, 'the same text is no change');
    state = choose(state, 'duplicate');
    assert.equal(state.text, PLAN);
    assert.equal(state.scenario, 'duplicate');
  });

  test('the reader’s run: shown at once, offered until reset, kept apart from the scenario', () => {
    let { state } = open('write');
    state = reduce(state, { type: 'toggle', symbol: 'write_todos', line: lineOf('write_todos', 'state.items = replacement') });
    state = reduce(state, { type: 'edit', text: PLAN });
    state = runOwn(state, 'debug');
    assert.equal(state.showingOwn, true);
    assert.equal(shownTrace(state).scenario, 'input');
    assert.equal(shownTrace(state).steps[state.pos].line, lineOf('write_todos', 'state.items = replacement'), 'Debug stops at the breakpoint');
    assert.equal(placeOf(state).step, null, 'the link holds no step of the reader’s run');
    assert.equal(placeOf(state).scenario, 'replace');

    state = choose(state, 'omit');
    assert.equal(state.showingOwn, false);
    assert.equal(shownTrace(state).scenario, 'omit');
    assert.equal(state.own?.text, PLAN, 'still offered');
    state = reduce(state, { type: 'choose-own' });
    assert.equal(shownTrace(state), state.own.trace);
    assert.equal(state.pos, IDLE);

    state = reduce(state, { type: 'reset-own' });
    assert.equal(state.own, null);
    assert.equal(state.showingOwn, false);
    assert.equal(state.text, scenarioText(state));
    assert.deepEqual(JSON.parse(state.text).map((item) => item.id), ['1'], 'omit’s data');
    assert.equal(reduce(state, { type: 'choose-own' }), state, 'nothing to go back to');
  });

  test('refused text: nothing ran, and the state says the editor must show why', () => {
    let { state } = open('prepare');
    state = reduce(state, { type: 'edit', text: '[{"id": "x", "content": "a", "status": "pending"}, {"id": " x", "content": "b", "status": "pending"}]' });
    state = runOwn(state);
    assert.equal(shownTrace(state).ran, false);
    assert.equal(shownTrace(state).result.error.code, 'duplicate_id');
    assert.equal(showsRefusal(state), true);
    assert.equal(state.pos, 0, 'run on no steps is at its end');
    state = reduce(state, { type: 'edit', text: PLAN });
    state = runOwn(state);
    assert.equal(showsRefusal(state), false);
    assert.equal(state.pos, shownTrace(state).steps.length);
  });
});

describe('written out and read back', () => {
  test('a language switch keeps the edited text, the run, its position and the setup part', () => {
    let { state } = open('write', FRESH, undefined, 'zh');
    state = reduce(state, { type: 'open', open: true });
    state = reduce(state, { type: 'edit', text: PLAN });
    state = runOwn(state);
    state = reduce(state, { type: 'command', command: 'step-back' });
    const kept = keptOf(state);
    assert.deepEqual(kept, { text: PLAN, own: PLAN, showingOwn: true, pos: state.pos, open: true });
    const back = open('write', placeOf(state), kept).state;
    assert.equal(back.text, PLAN);
    assert.equal(back.showingOwn, true);
    assert.equal(back.pos, state.pos);
    assert.equal(back.open, true);
    assert.deepEqual(shownTrace(back).output, api.traceInput('write', PLAN, 'en').output, 'run again in English');
  });

  test('an unchanged editor and a run of the scenario’s own text follow the language', () => {
    let { state } = open('prepare', FRESH, undefined, 'zh');
    state = runOwn(state);
    const kept = keptOf(state);
    assert.equal(kept.text, null);
    assert.equal(kept.own, true);
    const back = open('prepare', placeOf(state), kept).state;
    assert.match(back.text, /Read the source/);
    assert.match(back.own.text, /Read the source/);
    assert.ok(shownTrace(back).output.some((line) => line.includes('Read the source')));
  });

  test('the link round trip of a scenario position', () => {
    let { state } = open('write');
    state = choose(state, 'active');
    state = reduce(state, { type: 'toggle', symbol: 'write_todos', line: lineOf('write_todos', 'validate_todos(items)?') });
    state = reduce(state, { type: 'seek', pos: 6 });
    const place = placeOf(state);
    const back = open('write', { scenario: place.scenario, breakpoints: [...place.breakpoints], step: place.step }).state;
    assert.deepEqual([back.scenario, [...back.breakpoints], back.pos], [state.scenario, [...state.breakpoints], state.pos]);
  });
});

describe('event breakpoints (the loop figure)', () => {
  const HOST_EVENTS = ['plan-written', 'plan-refused', 'ask', 'refused', 'reminder', 'call-limit', 'answered'];
  const openLoop = (link = FRESH) => {
    const figure = api.figures().find((f) => f.id === 'loop');
    const scenarios = api.scenarios('loop', 'en');
    const traceOf = (scenario) => api.trace('loop', scenario, 'en');
    const setting = settingOf(figure, scenarios, traceOf, api.source, HOST_EVENTS);
    return openState(setting, link, undefined, traceOf, () => { throw new Error('the loop takes no input'); });
  };

  test('a checked decision is a breakpoint: Continue stops on the steps that carry it, and only those', () => {
    let { state } = openLoop({ scenario: 'deny', breakpoints: [], step: null });
    state = reduce(state, { type: 'toggle-event', event: 'ask' });
    assert.ok(state.breakpoints.has('on:ask'));
    const steps = shownTrace(state).steps;
    const hits = breakpointHits(steps, state.breakpoints);
    assert.deepEqual(hits, steps.flatMap((s, i) => (s.decisions?.includes('ask') ? [i] : [])));
    assert.equal(hits.length, 1, 'deny asks once');
    state = reduce(state, { type: 'command', command: 'debug' });
    assert.equal(state.pos, hits[0]);
    assert.equal(steps[state.pos].symbol, 'execute_with_plan');
    // An unknown event is no breakpoint; choosing another scenario keeps the checked ones.
    assert.equal(reduce(state, { type: 'toggle-event', event: 'nonsense' }), state);
    state = choose(state, 'budget');
    assert.ok(state.breakpoints.has('on:ask'));
    assert.deepEqual(breakpointHits(shownTrace(state).steps, state.breakpoints), [], 'budget never asks');
  });

  test('a link carries them: known ones are opened, unknown ones reported', () => {
    const { state, problems } = openLoop({ scenario: null, breakpoints: ['on:reminder', 'on:nope'], step: null });
    assert.deepEqual([...state.breakpoints], ['on:reminder']);
    assert.deepEqual(problems, [{ name: 'loop.on', value: 'nope' }]);
    assert.deepEqual([...placeOf(state).breakpoints], ['on:reminder']);
  });
});

test('link.js writes event breakpoints as FIGURE.on and reads them back', async () => {
  const { readLink, writeLink } = await import('../../www/link.js');
  const query = writeLink('en', [{ id: 'loop', scenario: 'deny', defaultScenario: 'allow', breakpoints: new Set(['on:ask', 'run_loop.46']), step: null }]);
  assert.equal(query, '?lang=en&loop=deny&loop.on=ask&loop.bp=run_loop.46');
  assert.deepEqual(readLink(query, ['loop']).figures.loop.breakpoints, ['run_loop.46', 'on:ask']);
});
