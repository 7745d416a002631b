// practice --live --record: a live run's file keeps each reply's stop_reason, holds no key and no address, replays to the same outcome; a failed run still writes its partial file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KEY, apiMessage, defaultModel, liveRun, practice, standIn } from './mock.mjs';

/** A folder for run files, removed after `use`. */
async function inFolder(use) {
  const dir = await mkdtemp(join(tmpdir(), 'todo-trace-live-runs-'));
  try {
    return await use(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The outcome fields a replay reports too. */
const core = ({ stop, calls, plan, history, warnings, answer }) => ({ stop, calls, plan, history, warnings, answer });

test('a live run\'s file: the model by name, each stop_reason as sent, nothing of the environment; its replay reaches the same outcome', () => inFolder(async (dir) => {
  const file = join(dir, 'live.json');
  const model = await defaultModel();
  const stand = await standIn(['--json', '--decision', 'allow', '--lang', 'en']);
  // The last reply stops on a stop sequence, which no stand-in says: only the API's word can put it in the file.
  const answers = stand.replies.map((content, index) => () => {
    const body = apiMessage(content, index, model);
    if (index === stand.replies.length - 1) Object.assign(body, { stop_reason: 'stop_sequence', stop_sequence: '###' });
    return { status: 200, body };
  });
  const { run, requests } = await liveRun(['--json', '--decision', 'allow', '--lang', 'en', '--model-name', 'claude-opus-5-5', '--record', file], answers);
  assert.equal(run.code, 0, run.stderr);
  const text = await readFile(file, 'utf8');
  assert.ok(!text.includes(KEY), 'no key in the run file');
  const port = new URL(`http://${requests[0].headers.host}`).port;
  assert.ok(!text.includes(`127.0.0.1:${port}`), 'no address from the environment in the run file');
  const recorded = JSON.parse(text);
  assert.deepEqual(recorded.model, { kind: 'live', name: 'claude-opus-5-5' });
  const reasons = recorded.calls.map((call) => call.reply.stop_reason);
  assert.deepEqual(reasons, [...Array(stand.replies.length - 1).fill('tool_use'), 'stop_sequence']);
  assert.deepEqual(recorded.calls.map((call) => call.reply.content), stand.replies);

  const replay = await practice(['--replay', file, '--json']);
  assert.equal(replay.code, 0, replay.stderr);
  assert.deepEqual(core(JSON.parse(replay.stdout)), core(JSON.parse(run.stdout)));
}));

test('a live run that fails still writes its partial run file, exits non-zero, and its replay fails the same way', () => inFolder(async (dir) => {
  const file = join(dir, 'failed.json');
  const model = await defaultModel();
  const stand = await standIn(['--json', '--decision', 'allow', '--lang', 'zh']);
  const served = stand.replies.slice(0, 3).map((content, index) => () => ({ status: 200, body: apiMessage(content, index, model) }));
  const refused = () => ({ status: 401, body: { type: 'error', error: { type: 'authentication_error', message: 'invalid bearer token' } } });
  const { run } = await liveRun(['--decision', 'allow', '--lang', 'zh', '--record', file], [...served, refused]);
  assert.notEqual(run.code, 0);
  assert.ok(run.stderr.includes('401'), run.stderr);
  const text = await readFile(file, 'utf8');
  assert.ok(!text.includes(KEY) && !run.stdout.includes(KEY) && !run.stderr.includes(KEY));
  const recorded = JSON.parse(text);
  assert.deepEqual(recorded.model, { kind: 'live', name: model });
  assert.equal(recorded.calls.length, 3, 'the three replies that came');
  assert.equal(recorded.end.type, 'failed');
  assert.equal(recorded.end.code, 'unauthorized');
  assert.ok(recorded.end.message.includes('401'), recorded.end.message);
  assert.ok(recorded.end.after.length > 0, 'the results the failed call would have sent');

  const replay = await practice(['--replay', file, '--lang', 'zh']);
  assert.notEqual(replay.code, 0);
  assert.ok(replay.stderr.includes('401') && !replay.stderr.includes('diverged'), replay.stderr);
}));
