// practice --live against a local mock of the Messages API: every request of an allowed and a declined run, checked.
//
// The mock serves the stand-in's own replies, so the live run must reach the stand-in's outcome;
// what is checked is everything practice put on the wire on the way there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KEY, apiMessage, defaultModel, liveRun, pageTools, serving, standIn, withoutWorkspace } from './mock.mjs';

/** The `tool_use` ids of an assistant message, and the `tool_result` ids of a user message, in order. */
const ids = (message, type) => (Array.isArray(message.content) ? message.content : [])
  .filter((block) => block.type === type)
  .map((block) => (type === 'tool_use' ? block.id : block.tool_use_id));

/** The plan as the host last rendered it: the newest accepted `todo_write` result among `messages`. */
function latestPlan(messages) {
  let plan;
  for (const [index, message] of messages.entries()) {
    if (!Array.isArray(message.content) || message.role !== 'user') continue;
    for (const block of message.content) {
      if (block.type !== 'tool_result' || block.is_error) continue;
      const call = messages[index - 1].content.find((use) => use.type === 'tool_use' && use.id === block.tool_use_id);
      if (call?.name === 'todo_write') plan = block.content;
    }
  }
  return plan;
}

for (const [decision, lang] of [['allow', 'en'], ['deny', 'en'], ['allow', 'zh'], ['deny', 'zh']]) {
  test(`--decision ${decision} --lang ${lang}: every request is what the SDK would send, and the outcome is the stand-in's`, async () => {
    const flags = ['--json', '--decision', decision, '--lang', lang];
    const stand = await standIn(flags);
    const model = await defaultModel();
    const tools = await pageTools(lang);
    const { run, requests } = await liveRun(flags, serving(stand.replies, model));
    assert.equal(run.code, 0, run.stderr);
    assert.ok(!run.stdout.includes(KEY) && !run.stderr.includes(KEY), 'the key is never printed');

    const outcome = JSON.parse(run.stdout);
    assert.deepEqual(withoutWorkspace(outcome), withoutWorkspace(stand.outcome));
    assert.equal(outcome.ran, decision === 'allow');
    assert.equal(requests.length, stand.outcome.calls, 'one request per model call');

    const question = stand.outcome.history[0].content;
    let header;
    let previous;
    for (const [index, request] of requests.entries()) {
      const where = `request ${index + 1}`;
      assert.equal(request.method, 'POST', where);
      assert.equal(request.path, '/v1/messages', where);
      assert.equal(request.headers['anthropic-version'], '2026-10-21', where);
      assert.equal(request.headers.authorization, `Bearer ${KEY}`, where);
      assert.equal(request.headers['x-api-key'], undefined, `${where}: the key travels only as Bearer`);
      assert.equal(request.headers['content-type'], 'application/json', where);
      assert.equal(request.headers.accept, 'application/json', where);

      const body = request.body;
      assert.ok(body, `${where}: a JSON body`);
      assert.deepEqual(Object.keys(body).sort(), ['max_tokens', 'messages', 'model', 'tools'], where);
      assert.equal(body.model, model, where);
      assert.ok(Number.isInteger(body.max_tokens) && body.max_tokens > 0, where);
      assert.deepEqual(body.tools, tools, `${where}: the tools the page shows`);

      const [first, ...stored] = body.messages;
      assert.equal(first.role, 'user', where);
      assert.equal(typeof first.content, 'string', where);
      assert.ok(first.content.startsWith(`${question}\n\n`), `${where}: the question, then the plan`);
      const [line, ...planLines] = first.content.slice(question.length + 2).split('\n');
      header ??= line;
      assert.equal(line, header, `${where}: the same plan header every time`);
      const plan = latestPlan(stored);
      if (plan === undefined) {
        assert.equal(planLines.length, 1, `${where}: the empty plan's one line`);
        assert.ok(!/\[(pending|in_progress|completed)\]/.test(planLines[0]), where);
      } else {
        assert.equal(planLines.join('\n'), plan, `${where}: the current plan in the first user message`);
      }

      // The stored history: question, then assistant and user in turn, each tool_result
      // answering the tool_use just before it, and nothing of it ever rewritten.
      assert.deepEqual(stored, outcome.history.slice(1, 1 + stored.length), `${where}: the stored history, unchanged`);
      assert.equal(stored.length, 2 * index, where);
      for (const [at, message] of stored.entries()) {
        assert.equal(message.role, at % 2 === 0 ? 'assistant' : 'user', `${where}, message ${at + 2}`);
        if (message.role !== 'user') continue;
        assert.deepEqual(ids(message, 'tool_result'), ids(stored[at - 1], 'tool_use'), `${where}: results pair with the uses before them`);
        for (const block of message.content.filter((b) => b.type === 'tool_result')) {
          assert.deepEqual(Object.keys(block).sort(), ['content', 'is_error', 'tool_use_id', 'type'], where);
          assert.equal(typeof block.content, 'string', where);
          assert.equal(typeof block.is_error, 'boolean', where);
        }
      }
      if (previous) {
        const before = previous.body.messages.slice(1);
        assert.deepEqual(stored.slice(0, before.length), before, `${where} extends request ${index}'s history`);
      }
      previous = request;
    }
    // The last reply closed the history, stored as it came (less the fields the loop does not keep).
    const last = outcome.history.at(-1);
    assert.equal(last.role, 'assistant');
    assert.deepEqual(last.content, stand.replies.at(-1));
  });
}

test('the transcript of a live run names the model, shows its text escaped and ends with the claims table', async () => {
  const model = await defaultModel();
  const stand = await standIn(['--json', '--decision', 'allow', '--lang', 'en']);
  const hostile = 'Done.\u001b[2J\u001b]0;pwned\u0007 \u009b31m';
  const replies = [...stand.replies.slice(0, -1), [{ type: 'text', text: hostile }]];
  const { run } = await liveRun(['--decision', 'allow', '--lang', 'en', '--model-name', 'claude-haiku-5-5'], serving(replies, model));
  assert.equal(run.code, 0, run.stderr);
  assert.ok(run.stdout.includes('Model: live, claude-haiku-5-5'), run.stdout);
  assert.ok(!/[\u001b\u0007\u009b]/.test(run.stdout), 'no raw escape reaches the terminal');
  assert.ok(run.stdout.includes('Done.\\x1b[2J\\x1b]0;pwned\\x07 \\u{9b}31m'), run.stdout);
  const table = run.stdout.slice(run.stdout.lastIndexOf('Claim against evidence:'));
  assert.equal(table.trim().split('\n').length, 5, table);
  assert.ok(!run.stdout.includes(KEY) && !run.stderr.includes(KEY));
  // The mock's reply carried the fields the SDK's Message has; the loop kept only its blocks.
  assert.ok(apiMessage(replies[0], 0, model).content[0].caller);
});
