// A local stand-in for the Messages API, and `practice` run against it: what tests/live/ is built from.
//
// The mock answers from a queue the test fills, in the API's response format, and keeps every
// request it was sent. The replies it serves are the stand-in's own (taken from a `practice --json`
// run with the same flags), so no script is written twice, and the tool definitions to compare
// with are the page's own (the golden traces, which tests/web.rs holds byte-equal to the module).
import { createServer } from 'node:http';
import { spawn } from 'node:child_process';
import { readFile, mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../', import.meta.url));
const target = process.env.CARGO_TARGET_DIR ?? join(root, 'target');
export const PRACTICE = join(target, 'debug', 'practice');

/** A key that must never appear in anything practice prints or writes. */
export const KEY = 'sk-ant-test-0123456789-never-shown';

/**
 * Starts the mock on 127.0.0.1 at a free port. `answers` is a list of functions, one per request in
 * order, each returning `{status, headers?, body}` (`body` an object is sent as JSON, a string as it is).
 * A request beyond the list gets a 500 that fails the test's expectations loudly.
 */
export async function startMock(answers) {
  const requests = [];
  const queue = [...answers];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body;
      try { body = JSON.parse(raw); } catch { body = undefined; }
      requests.push({ method: req.method, path: req.url, headers: { ...req.headers }, raw, body, at: performance.now() });
      const answer = queue.shift()?.(requests.length - 1) ?? { status: 500, body: { type: 'error', error: { type: 'api_error', message: 'the mock has no answer left' } } };
      const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      res.writeHead(answer.status, { 'content-type': 'application/json', ...(answer.headers ?? {}) });
      res.end(text);
    });
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    close: () => new Promise((done) => server.close(done)),
  };
}

/** The API's `Message` around a reply's content blocks, with every field the pinned SDK's type requires. */
export function apiMessage(content, index, model) {
  return {
    id: `msg_mock_${index + 1}`,
    type: 'message',
    role: 'assistant',
    model,
    content: content.map((block) => block.type === 'text'
      ? { type: 'text', text: block.text, citations: null }
      : { ...block, caller: { type: 'direct' } }),
    stop_reason: content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: {
      input_tokens: 100 + index, output_tokens: 20, cache_creation_input_tokens: null, cache_read_input_tokens: null,
      cache_creation: null, inference_geo: null, output_tokens_details: null, server_tool_use: null,
      service_tier: 'standard', speed: null,
    },
  };
}

/** Answers that serve these replies in order, each as a 200 `Message`. */
export function serving(replies, model) {
  return replies.map((content, index) => () => ({ status: 200, body: apiMessage(content, index, model) }));
}

/** Runs practice with ARGS and ENV (no terminal, no key or base URL unless given); resolves to `{code, stdout, stderr}`. */
export function practice(args, env = {}) {
  const base = { ...process.env };
  delete base.ANTHROPIC_API_KEY;
  delete base.ANTHROPIC_BASE_URL;
  return new Promise((resolve, reject) => {
    const child = spawn(PRACTICE, args, { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}

/** The lesson's two files as practice writes them into a fresh folder (read back from one throwaway run). */
let lessonFiles;
async function files() {
  if (!lessonFiles) {
    const run = await practice(['--json', '--decision', 'deny', '--max-calls', '0']);
    const folder = JSON.parse(run.stdout).workspace;
    lessonFiles = await Promise.all(['main.py', 'expected.txt'].map(async (name) => [name, await readFile(join(folder, name), 'utf8')]));
    await rm(folder, { recursive: true, force: true });
  }
  return lessonFiles;
}

/** A fresh workspace with the lesson's two files; `change` may replace any of them. */
export async function workspace(change = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'todo-trace-live-'));
  for (const [name, text] of await files()) await writeFile(join(dir, name), change[name] ?? text);
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** The stand-in's run for these flags: its `--json` outcome and its replies (the assistant messages, in order). */
export async function standIn(flags) {
  const space = await workspace();
  try {
    const run = await practice(['--json', ...flags, '--workspace', space.dir]);
    if (run.code !== 0) throw new Error(`the stand-in's run failed: ${run.stderr}`);
    const outcome = JSON.parse(run.stdout);
    const replies = outcome.history.filter((message) => message.role === 'assistant').map((message) => message.content);
    return { outcome, replies };
  } finally {
    await space.remove();
  }
}

/** The tool definitions the page shows in its loop figure for `lang`. */
export async function pageTools(lang) {
  const trace = JSON.parse(await readFile(join(root, 'tests', 'golden', `loop-allow-${lang}.json`), 'utf8'));
  const tools = trace.values.filter((value) => value && typeof value === 'object' && 'input_schema' in value);
  if (tools.length !== 3) throw new Error(`expected the three tools in the golden trace, found ${tools.length}`);
  return tools;
}

/** The default model id, as `practice --help` documents it. */
export async function defaultModel() {
  const help = await practice(['--help', '--lang', 'en']);
  const found = /--model-name\s+the live model \(default ([^)\s]+)\)/.exec(help.stdout);
  if (!found) throw new Error(`no default model in the help:\n${help.stdout}`);
  return found[1];
}

/**
 * `practice --live FLAGS` in a fresh workspace against a mock answering with `answers`; the key,
 * the mock's address and a 1 ms retry base (so retries without `retry-after` do not sleep) are
 * in its environment. Resolves to `{run, requests}`.
 */
export async function liveRun(flags, answers, { env = {}, change = {} } = {}) {
  const space = await workspace(change);
  const mock = await startMock(answers);
  try {
    const run = await practice(['--live', ...flags, '--workspace', space.dir], {
      ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: mock.url, PRACTICE_RETRY_BASE_MS: '1', ...env,
    });
    return { run, requests: mock.requests };
  } finally {
    await mock.close();
    await space.remove();
  }
}

/** The outcome without the workspace's path, which differs from run to run. */
export function withoutWorkspace(outcome) {
  const { workspace: _, ...rest } = outcome;
  return rest;
}
