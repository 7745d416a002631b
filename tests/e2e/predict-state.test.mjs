// Unit tests (in node) of Predict's moves (www/predict.js through www/state.js's reducer), over real traces from the wasm module.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { readLink, writeLink } from '../../www/link.js';
import { IDLE } from '../../www/replay.js';
import { keptOf, openState, placeOf, reduce, settingOf } from '../../www/state.js';
import { tally } from '../../www/predict.js';
import { loadModule } from './helpers.mjs';

let api;
before(async () => {
  api = await loadModule();
});

function open(id, link = { scenario: null, breakpoints: [], step: null }, kept = undefined, lang = 'en') {
  const figure = api.figures().find((f) => f.id === id);
  const traceOf = (scenario) => api.trace(id, scenario, lang);
  const setting = settingOf(figure, api.scenarios(id, lang), traceOf, api.source);
  return openState(setting, link, kept, traceOf, (text) => api.traceInput(id, text, lang)).state;
}

const run = (state, command) => reduce(state, { type: 'command', command });
const answer = (state, choice) => reduce(state, { type: 'answer', choice });
const on = (state) => reduce(state, { type: 'predict', on: true });

test('with Predict off nothing is asked; on, a run stops before each question until it is answered', () => {
  const off = run(open('loop'), 'run');
  assert.equal(off.pos, off.scenarioTrace.steps.length);
  assert.equal(off.asking, null);

  let state = run(on(open('loop')), 'run');
  const { questions, steps } = state.scenarioTrace;
  assert.ok(questions.length >= 5);
  for (const [i, q] of questions.entries()) {
    assert.equal(state.asking?.question, i, `question ${i} is asked`);
    assert.equal(state.pos, q.step - 1, 'paused on the step before the one that shows the answer');
    // Pressing a move again while asked stays at the question.
    assert.equal(run(state, 'step-into').pos, state.pos);
    assert.equal(run(state, 'step-into').asking?.question, i);
    state = answer(state, i % 2 === 0 ? q.answer : (q.answer + 1) % q.choices.length);
  }
  assert.equal(state.pos, steps.length, 'the last answer lets the run reach its end');
  assert.equal(state.asking, null);
  const score = tally(state.scenarioTrace, state.answers.get(state.scenarioTrace));
  assert.deepEqual(score, { right: Math.ceil(questions.length / 2), answered: questions.length });
});

test('stepping back does not ask again, and each question counts once', () => {
  let state = run(on(open('validate')), 'step-into');
  assert.equal(state.asking, null, 'the first step shows the arguments only');
  state = run(state, 'step-into');
  assert.equal(state.asking?.question, 0);
  assert.equal(state.pos, 0, 'figure 1 asks on the function’s first step, its arguments in view');
  // Stepping back drops the question unanswered; stepping on asks it again.
  state = run(state, 'restart');
  assert.equal(state.asking, null);
  state = run(state, 'step-into');
  state = run(state, 'step-into');
  assert.equal(state.asking?.question, 0);
  state = answer(state, state.scenarioTrace.questions[0].answer);
  assert.equal(state.pos, 1, 'the step the reader asked for');
  // An answer given once cannot be given again.
  assert.equal(answer(state, 0), state);
  state = run(run(state, 'restart'), 'run');
  assert.equal(state.asking, null);
  assert.equal(state.pos, state.scenarioTrace.steps.length);
  assert.deepEqual(tally(state.scenarioTrace, state.answers.get(state.scenarioTrace)), { right: 1, answered: 1 });
  // The timeline is a move too: dragged past a question not yet answered in another scenario, it stops there.
  const other = reduce(state, { type: 'choose', scenario: 'duplicate', trace: api.trace('validate', 'duplicate', 'en') });
  const sought = reduce(other, { type: 'seek', pos: 5 });
  assert.equal(sought.pos, 0);
  assert.equal(sought.asking?.question, 0);
});

test('the reader’s own input is asked about, and a refused one asks nothing', () => {
  let state = on(open('write'));
  state = reduce(state, { type: 'edit', text: '[{"id": "a", "content": "x", "status": "done"}]' });
  state = reduce(state, { type: 'run-own', command: 'run', trace: api.traceInput('write', state.text, 'en') });
  const q = state.own.trace.questions[0];
  assert.equal(state.asking?.question, 0);
  assert.equal(q.choices[q.answer].key, 'unknown_status');
  state = reduce(state, { type: 'edit', text: '[{' });
  state = reduce(state, { type: 'run-own', command: 'run', trace: api.traceInput('write', state.text, 'en') });
  assert.equal(state.asking, null);
  assert.equal(state.own.trace.questions, undefined);
});

test('the switch is kept in the link, and the answers across a language switch', () => {
  const state = on(open('prepare'));
  const place = placeOf(state);
  const query = writeLink('zh', [place]);
  assert.match(query, /prepare\.predict=1/);
  const link = readLink(query, ['prepare']);
  assert.deepEqual(link.problems, []);
  assert.equal(open('prepare', link.figures.prepare).predict, true);
  assert.equal(writeLink('zh', [placeOf(open('prepare'))]), '', 'off is the plain link');
  assert.deepEqual(readLink('?prepare.predict=yes', ['prepare']).problems, [{ name: 'prepare.predict', value: 'yes' }]);

  let asked = run(state, 'run');
  asked = answer(asked, 0);
  const kept = keptOf(asked);
  const rebuilt = open('prepare', link.figures.prepare, kept, 'zh');
  assert.equal(rebuilt.answers.get(rebuilt.scenarioTrace).get(0), 0);
  assert.equal(run(run(rebuilt, 'restart'), 'run').asking, null, 'not asked again in the other language');
  assert.equal(IDLE, -1);
});
