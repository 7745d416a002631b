// The official SDK (@anthropic-ai/sdk, pinned in package.json) as the judge of practice --live's wire format.
//
// Its types judge the bytes: every request body practice sent must type-check as the SDK's
// `MessageCreateParamsNonStreaming` and every mock reply as its `Message` (tsc --strict, on files
// written to target/live-wire/). Its client judges the rest: sent the same bodies against the same
// mock, it must use the same method, path, version header and authentication scheme, and parse
// the mock's replies without error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { KEY, apiMessage, defaultModel, liveRun, root, serving, standIn, startMock } from './mock.mjs';

const wire = join(root, 'target', 'live-wire');
const TYPES = "import type { Message, MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';\n";

/** Runs tsc --strict on these files (in target/live-wire); resolves to `{code, output}`. */
function tsc(files) {
  const args = ['--noEmit', '--strict', '--skipLibCheck', '--target', 'es2022', '--module', 'esnext', '--moduleResolution', 'bundler', ...files];
  return new Promise((resolve) => {
    execFile(join(root, 'node_modules', '.bin', 'tsc'), args, { cwd: wire, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      resolve({ code: error ? error.code ?? 1 : 0, output: stdout + stderr });
    });
  });
}

/** The live runs the judge looks at: allowed and declined, in both languages, with what was sent and what was served. */
async function runs(model) {
  const all = [];
  for (const [decision, lang] of [['allow', 'en'], ['deny', 'en'], ['allow', 'zh'], ['deny', 'zh']]) {
    const flags = ['--json', '--decision', decision, '--lang', lang];
    const stand = await standIn(flags);
    const replies = stand.replies.map((content, index) => apiMessage(content, index, model));
    const { run, requests } = await liveRun(flags, serving(stand.replies, model));
    assert.equal(run.code, 0, run.stderr);
    assert.equal(requests.length, replies.length);
    all.push({ name: `${decision}_${lang}`, replies, requests });
  }
  return all;
}

test('every request body and every mock reply type-checks as the SDK\'s, and a wrong one does not', async () => {
  const model = await defaultModel();
  const recorded = await runs(model);
  await rm(wire, { recursive: true, force: true });
  await mkdir(wire, { recursive: true });
  let good = TYPES;
  for (const { name, replies, requests } of recorded) {
    for (const [index, request] of requests.entries()) {
      good += `export const ${name}_request_${index + 1}: MessageCreateParamsNonStreaming = ${JSON.stringify(request.body, null, 2)};\n`;
      good += `export const ${name}_reply_${index + 1}: Message = ${JSON.stringify(replies[index], null, 2)};\n`;
    }
  }
  await writeFile(join(wire, 'wire.ts'), good);

  // Each wrong value on one line of its own, so tsc's error lines say which were refused.
  const body = recorded[0].requests.at(-1).body;
  const reply = recorded[0].replies[0];
  const { max_tokens: _, ...withoutMaxTokens } = body;
  const wrong = {
    'a body without max_tokens': ['MessageCreateParamsNonStreaming', withoutMaxTokens],
    'a body with an x_api_key field': ['MessageCreateParamsNonStreaming', { ...body, x_api_key: KEY }],
    'a tool_result without its tool_use_id': ['MessageCreateParamsNonStreaming', {
      ...body, messages: [body.messages[0], body.messages[1], { role: 'user', content: [{ type: 'tool_result', content: 'x', is_error: false }] }],
    }],
    'a message of role tool': ['MessageCreateParamsNonStreaming', { ...body, messages: [{ role: 'tool', content: 'x' }] }],
    'a reply without usage': ['Message', (({ usage: _u, ...rest }) => rest)(reply)],
    'a reply block of type tool_call': ['Message', { ...reply, content: [{ type: 'tool_call', id: 'x', name: 'run_main', input: {} }] }],
  };
  let bad = TYPES;
  const lines = {};
  for (const [index, [why, [type, value]]] of Object.entries(wrong).entries()) {
    lines[bad.split('\n').length] = why;
    bad += `export const wrong_${index}: ${type} = ${JSON.stringify(value)};\n`;
  }
  await writeFile(join(wire, 'bad.ts'), bad);

  const { output } = await tsc(['wire.ts', 'bad.ts']);
  const errors = output.split('\n').filter((line) => /error TS\d+/.test(line));
  assert.deepEqual(errors.filter((line) => line.startsWith('wire.ts')), [], 'practice\'s requests and the mock\'s replies are the SDK\'s types');
  const refused = new Set(errors.map((line) => /^bad\.ts\((\d+),/.exec(line)?.[1]).filter(Boolean).map(Number));
  for (const [line, why] of Object.entries(lines)) {
    assert.ok(refused.has(Number(line)), `tsc refuses ${why}:\n${output}`);
  }
  assert.equal(errors.length > 0 && errors.every((line) => line.startsWith('wire.ts') || line.startsWith('bad.ts')), true, output);
});

test('the SDK, sent the same bodies against the same mock, sends what practice sent and parses every reply', async () => {
  const model = await defaultModel();
  for (const { replies, requests } of await runs(model)) {
    const mock = await startMock(replies.map((reply) => () => ({ status: 200, body: reply })));
    try {
      const client = new Anthropic({ apiKey: KEY, baseURL: mock.url, maxRetries: 0 });
      for (const [index, request] of requests.entries()) {
        const parsed = await client.messages.create(request.body);
        assert.deepEqual(JSON.parse(JSON.stringify(parsed)), replies[index], 'the SDK parses the mock\'s reply as it was sent');
      }
    } finally {
      await mock.close();
    }
    assert.equal(mock.requests.length, requests.length);
    for (const [index, sdk] of mock.requests.entries()) {
      const ours = requests[index];
      const where = `request ${index + 1}`;
      assert.equal(ours.method, sdk.method, where);
      assert.equal(ours.path, sdk.path, where);
      assert.equal(ours.headers['anthropic-version'], sdk.headers['anthropic-version'], where);
      assert.equal(ours.headers.authorization, sdk.headers.authorization, `${where}: the same scheme and key`);
      assert.ok(sdk.headers.authorization.startsWith('Bearer '), where);
      assert.equal(ours.headers['x-api-key'], sdk.headers['x-api-key'], where);
      assert.equal(ours.headers['content-type'], sdk.headers['content-type'], where);
      assert.equal(ours.headers.accept, sdk.headers.accept, where);
      assert.deepEqual(sdk.body, ours.body, `${where}: the SDK sends the body as given`);
    }
  }
});
