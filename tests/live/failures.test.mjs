// practice --live when the Messages API fails: each failure a clear message on stderr, a non-zero exit, and never the key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KEY, defaultModel, liveRun, serving, standIn, withoutWorkspace } from './mock.mjs';

const error = (status, type, message) => () => ({ status, body: { type: 'error', error: { type, message } } });

/** A live run, in English unless told, that must fail; its stderr, checked for the key. */
async function failing(answers, { lang = 'en', says = [] } = {}) {
  const { run, requests } = await liveRun(['--decision', 'allow', '--lang', lang], answers);
  assert.notEqual(run.code, 0, `a failed run exits non-zero:\n${run.stdout}`);
  assert.ok(!run.stdout.includes(KEY) && !run.stderr.includes(KEY), 'the key is never printed');
  for (const words of says) assert.ok(run.stderr.includes(words), `stderr says ${JSON.stringify(words)}:\n${run.stderr}`);
  assert.ok(!/panicked|RUST_BACKTRACE/.test(run.stderr), run.stderr);
  return { run, requests };
}

test('401: the key was refused, in the run\'s language, asked once', async () => {
  const refused = error(401, 'authentication_error', 'invalid bearer token');
  const { requests } = await failing([refused], { says: ['401', 'ANTHROPIC_API_KEY', 'invalid bearer token'] });
  assert.equal(requests.length, 1, 'a 401 is not retried');
  await failing([refused], { lang: 'zh', says: ['拒绝了这个密钥', '401'] });
});

test('429 then 200: retried after the retry-after it was told, and the run ends as the stand-in\'s', async () => {
  const flags = ['--json', '--decision', 'allow', '--lang', 'en'];
  const stand = await standIn(flags);
  const limited = () => ({ status: 429, headers: { 'retry-after': '1' }, body: { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } } });
  const { run, requests } = await liveRun(flags, [limited, ...serving(stand.replies, await defaultModel())]);
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(withoutWorkspace(JSON.parse(run.stdout)), withoutWorkspace(stand.outcome));
  assert.equal(requests.length, stand.outcome.calls + 1, 'the one refused request was sent again');
  assert.deepEqual(requests[1].body, requests[0].body, 'the same request, again');
  // With a 1 ms retry base, only retry-after explains a wait of a second.
  const waited = requests[1].at - requests[0].at;
  assert.ok(waited >= 950, `waited ${waited} ms for retry-after: 1`);
});

test('500 four times: three retries, then a clear error', async () => {
  const broken = error(500, 'api_error', 'internal');
  const { requests } = await failing([broken, broken, broken, broken], { says: ['500', '4 times', '3 retries'] });
  assert.equal(requests.length, 4, 'one request and three retries, no more');
  const { requests: again } = await failing([broken, broken, broken, broken], { lang: 'zh', says: ['500', '放弃'] });
  assert.equal(again.length, 4);
});

test('529 four times: overloaded, given up after three retries', async () => {
  const busy = error(529, 'overloaded_error', 'Overloaded');
  const { requests } = await failing([busy, busy, busy, busy], { says: ['529', 'Overloaded'] });
  assert.equal(requests.length, 4);
});

test('a body that is not a Message is malformed, not a reply', async () => {
  await failing([() => ({ status: 200, body: '{"id": "msg_1", "type": "message", ' })], { says: ['malformed', 'not a Message'] });
  await failing([() => ({ status: 200, body: { type: 'message', role: 'assistant', content: 'hi', stop_reason: 'end_turn' } })], { says: ['malformed'] });
});

test('an unknown content block type is a clear malformed error naming it', async () => {
  const model = await defaultModel();
  const thinking = () => ({
    status: 200,
    body: {
      id: 'msg_1', type: 'message', role: 'assistant', model, stop_reason: 'end_turn', stop_sequence: null,
      content: [{ type: 'thinking', thinking: 'hm', signature: 'x' }, { type: 'text', text: 'ok', citations: null }],
      usage: { input_tokens: 1, output_tokens: 1 },
    },
  });
  await failing([thinking], { says: ['malformed', 'content block 1', '"thinking"'] });
  await failing([thinking], { lang: 'zh', says: ['格式不对', '"thinking"'] });
});

test('the transcript up to a failure is kept, and the error follows it', async () => {
  const model = await defaultModel();
  const stand = await standIn(['--json', '--decision', 'allow', '--lang', 'en']);
  const broken = error(500, 'api_error', 'internal');
  const { run } = await failing([...serving(stand.replies.slice(0, 2), model), broken, broken, broken, broken], { says: ['500'] });
  assert.ok(run.stdout.includes('Model (call 2): calls read_file'), run.stdout);
  assert.ok(!run.stdout.includes('Model (call 3)'), run.stdout);
});
