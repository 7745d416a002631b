// The loop figure's four panes (conversation, plan, request, evidence): drawn from what the trace recorded, as text.
// @ts-check
//
// Rust decided every fact shown here: the history and plan at each step with their change marks, the host's
// decisions on the steps, each model call's request with the messages that differ from the stored history, and
// each final item's claim against the evidence. These functions look them up and lay them out.
import { el, hidden, jsonText } from './render.js';
import { IDLE, hostAt, hostFields } from './replay.js';

/** @typedef {import('./pkg/todo_trace.js').Trace} Trace */
/** @typedef {import('./pkg/todo_trace.js').HostEvent} HostEvent */
/** @typedef {import('./text-en.js').Words} Words */
/** @typedef {import('./replay.js').Change} Change */
/** @typedef {import('./pkg/todo_trace.js').Block} Block */
/** @typedef {import('./pkg/todo_trace.js').Message} Message */
/** @typedef {import('./pkg/todo_trace.js').Todo} Todo */

/** The host decisions a reader can pause on, in the order the checkboxes list them. @type {HostEvent[]} */
export const HOST_EVENTS = ['plan-written', 'plan-refused', 'ask', 'refused', 'reminder', 'call-limit', 'answered'];

/** A field's entries in a host state as hostAt or hostFields give it. @param {import('./replay.js').HostField[]} fields @param {string} name */
const field = (fields, name) => fields.find((f) => f.field === name)?.entries ?? [];

/** The steps that carry a host decision: the timeline's event marks. @param {Trace} trace */
export const eventSteps = (trace) => trace.steps.flatMap((step, i) => (step.decisions?.length ? [i] : []));

/** The words for a change mark, or nothing for "the same". @param {Change} change @param {Words} t */
function changeNote(change, t) {
  if (change === '+') return hidden(` (${t.change.new})`);
  if (change === '~') return hidden(` (${t.change.changed})`);
  return null;
}

// A long text folds to its first lines, so a run of a hundred calls with long tool outputs stays readable (and quick
// to draw); a toggle shows it whole.
/** A text with more lines than this, or more characters than FOLD_CHARS, is folded. */
const FOLD_LINES = 12;
const FOLD_CHARS = 1500;
/** What a folded text shows: its first lines, at most this many characters of them. */
const SHOWN_LINES = 8;
const SHOWN_CHARS = 800;

/** The texts a reader unfolded, per trace (by tool_use_id for a result, else the text), kept as the panes are redrawn. @type {WeakMap<Trace, Set<string>>} */
const unfoldedTexts = new WeakMap();

/** The start of `text` a fold shows, or null when it is short enough to show whole. @param {string} text */
function foldedStart(text) {
  let end = -1;
  for (let line = 0; line < FOLD_LINES; line++) {
    end = text.indexOf('\n', end + 1);
    if (end < 0 || end === text.length - 1) return text.length > FOLD_CHARS ? text.slice(0, SHOWN_CHARS) : null;
  }
  let cut = -1;
  for (let line = 0; line < SHOWN_LINES; line++) cut = text.indexOf('\n', cut + 1);
  return text.slice(0, Math.min(cut, SHOWN_CHARS));
}

/**
 * A text as a <pre>, folded when long: its start, what is folded, and a toggle. `key` names it in the trace's
 * unfolded texts. @param {string} text @param {string} key @param {Context} context
 */
function textNode(text, key, { trace, t }) {
  const start = foldedStart(text);
  if (start === null) return el('pre', { text });
  let unfolded = unfoldedTexts.get(trace);
  if (!unfolded) unfoldedTexts.set(trace, (unfolded = new Set()));
  const set = unfolded;
  const pre = el('pre', {});
  const note = el('p', { class: 'folded-note' });
  const toggle = el('button', { type: 'button', class: 'fold', 'data-action': 'fold' });
  const show = (/** @type {boolean} */ whole) => {
    pre.textContent = whole ? text : start;
    note.textContent = whole ? '' : t.run.folded(text.length - start.length);
    note.hidden = whole;
    toggle.textContent = whole ? t.run.less : t.run.more(text.length);
    toggle.setAttribute('aria-expanded', String(whole));
  };
  toggle.addEventListener('click', () => {
    const whole = !set.has(key);
    if (whole) set.add(key);
    else set.delete(key);
    show(whole);
  });
  show(set.has(key));
  return el('div', { class: 'foldable', 'data-folded-chars': String(text.length) }, pre, note, toggle);
}

/** What a message's node needs beyond the message: the tool names by call id, the trace (for its unfolded texts), the words. @typedef {{calls: Map<string, string>, trace: Trace, t: Words}} Context */

/** The tools whose results the world gave (a recording, in a replay), not the host: labelled as recorded. */
const RECORDED = new Set(['run_main', 'read_file']);

/** One block of a message. @param {Block} block @param {Message['role']} role @param {Context} context */
function blockNode(block, role, context) {
  const { calls, t } = context;
  if (block.type === 'text') {
    // Only the host puts a text block into a user message: the reminder.
    const reminder = role === 'user';
    return el('div', { class: reminder ? 'block reminder' : 'block text' }, reminder ? el('span', { class: 'tag', text: t.loop.reminder }) : null, textNode(block.text, block.text, context));
  }
  if (block.type === 'tool_use') {
    return el('div', { class: 'block call' }, el('span', { class: 'tag', text: t.loop.call(block.id) }), ' ', el('code', { text: `${block.name} ${JSON.stringify(block.input)}` }));
  }
  // An error result (the host's refusal, or a read or run that failed) is labelled as an error; any other result of a
  // read or a run is the world's answer, which a replay takes from the recording.
  const tool = calls.get(block.tool_use_id) ?? '';
  const recorded = !block.is_error && RECORDED.has(tool);
  const tag = block.is_error
    ? t.loop.errorResult(block.tool_use_id)
    : !recorded ? t.loop.result(block.tool_use_id) : tool === 'run_main' ? t.loop.recordedResult(block.tool_use_id) : t.run.recordedRead(block.tool_use_id);
  return el('div', { class: block.is_error ? 'block result error' : 'block result', 'data-error': block.is_error ? 'true' : null, 'data-recorded': recorded ? tool : null },
    el('span', { class: 'tag', text: tag }), textNode(block.content, block.tool_use_id, context));
}

/** A message as a conversation entry. @param {Message} message @param {Change} change @param {Context} context */
function messageNode(message, change, context) {
  const { t } = context;
  const who = message.role === 'user' ? t.loop.user : t.loop.assistant;
  const body = typeof message.content === 'string'
    ? [textNode(message.content, message.content, context)]
    : message.content.map((block) => blockNode(block, message.role, context));
  return el('li', { class: `message ${message.role}${change === '+' || change === '~' ? ' new' : ''}`, 'data-change': change },
    el('span', { class: 'who', text: who }), changeNote(change, t), body);
}

/** A box that scrolls a long list: focusable and named, so a keyboard can scroll it too. @param {string} label @param {Node} list */
const scroller = (label, list) => el('div', { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': label }, list);

/** The tool names by call id, over a history. @param {Message[]} messages */
function callNames(messages) {
  /** @type {Map<string, string>} */
  const names = new Map();
  for (const m of messages) if (typeof m.content !== 'string') for (const b of m.content) if (b.type === 'tool_use') names.set(b.id, b.name);
  return names;
}

// The conversation's entries as built, by message (a recorded value, the same object at every step that holds it) and
// change mark: a step redraws the pane with the entries it already has, so a run of a hundred calls does not build
// hundreds of entries again at each step. A reader's unfolded text stays unfolded with its entry.
/** @type {WeakMap<Message, Map<string, HTMLElement>>} */
const builtEntries = new WeakMap();

/** The conversation entry of `message` marked `change`, built once. @param {Message} message @param {Change} change @param {Context} context */
function entryNode(message, change, context) {
  let byChange = builtEntries.get(message);
  if (!byChange) builtEntries.set(message, (byChange = new Map()));
  let node = byChange.get(change);
  if (!node) byChange.set(change, (node = messageNode(message, change, context)));
  return node;
}

/**
 * The stored history in a recorded host state (replay.js's hostViewAt), as a conversation, entries new since the
 * previous step marked; `idle`: before the first step, `ended`: after the last.
 * @param {Trace} trace @param {number} view @param {boolean} idle @param {boolean} ended @param {Words} t
 */
export function conversationPane(trace, view, idle, ended, t) {
  const entries = field(hostFields(trace, view, idle), 'messages');
  if (entries.length === 0) return [el('p', { class: 'empty', text: t.loop.noHistory })];
  const messages = entries.map((e) => /** @type {Message} */ (e.value));
  const context = { calls: callNames(messages), trace, t };
  // After the end nothing is new (the state there is marked with what the whole run did: every message).
  return [scroller(t.panes.conversation, el('ol', { class: 'conversation' }, entries.map((e, i) => entryNode(messages[i], ended ? '.' : e.change, context))))];
}

/** The latest plan update at or before the step shown: its step and whether it was accepted. @param {Trace} trace @param {number} pos */
function lastUpdate(trace, pos) {
  const upTo = pos >= trace.steps.length ? trace.steps.length - 1 : pos;
  for (let i = upTo; i >= 0; i--) {
    const d = trace.steps[i].decisions ?? [];
    if (d.includes('plan-refused')) return { at: i, accepted: false };
    if (d.includes('plan-written')) return { at: i, accepted: true };
  }
  return null;
}

/** The marks of the latest step before `at` where the host's plan changed (Rust's marks against the step before). @param {Trace} trace @param {number} at */
function planChange(trace, at) {
  for (let i = at; i >= 0; i--) {
    const view = trace.hosts[trace.steps[i].host];
    const items = view.find((f) => f.field === 'items');
    if (items && /[^.]/.test(items.changes)) return items.changes;
  }
  return '';
}

const STATUS_MARK = /** @type {Record<string, string>} */ ({ pending: '☐', in_progress: '◐', completed: '☑' });

/** The host's plan at `pos` as a checklist, and what the last update did to it. @param {Trace} trace @param {number} pos @param {Words} t */
export function planPane(trace, pos, t) {
  const items = field(hostAt(trace, pos), 'items').map((e) => /** @type {Todo} */ (e.value));
  const update = pos === IDLE ? null : lastUpdate(trace, pos);
  const marks = update?.accepted ? planChange(trace, update.at) : '';
  const list = items.length === 0
    ? el('p', { class: 'empty', text: t.loop.noPlan })
    : el('ul', { class: 'checklist' }, items.map((item, i) => {
      const mark = /** @type {Change} */ (marks[i] ?? '.');
      return el('li', { 'data-item-status': item.status, 'data-change': mark, class: mark === '.' ? null : 'changed' },
        el('span', { class: 'box', 'aria-hidden': 'true', text: STATUS_MARK[item.status] ?? '?' }), ' ',
        el('span', { class: 'status-word', text: t.loop.status[/** @type {keyof Words['loop']['status']} */ (item.status)] ?? item.status }), ' ',
        el('span', { text: `${item.id}. ${item.content}` }),
        mark === '.' ? null : [' ', el('span', { class: 'tag', text: mark === '+' ? t.change.new : t.change.changed })]);
    }));
  const note = update === null
    ? t.loop.noUpdate
    : update.accepted ? t.loop.accepted(update.at + 1) : t.loop.refusedUpdate(update.at + 1);
  return [list, el('p', { class: update && !update.accepted ? 'update refused' : 'update', 'data-update': update ? (update.accepted ? 'accepted' : 'refused') : 'none', text: note })];
}

/**
 * The model call the request pane shows at `pos`: the one about to be made (paused from its `at` step until its
 * reply is stored at its `step`) or else the last one made; null before the first call is about to be made. Rust
 * recorded both steps of each request.
 * @param {Trace} trace @param {number} pos @returns {{index: number, made: boolean} | null}
 */
export function requestAt(trace, pos) {
  if (pos === IDLE) return null;
  const requests = trace.requests ?? [];
  const ended = pos >= trace.steps.length;
  let index = -1;
  requests.forEach((r, i) => {
    if (ended || r.at <= pos) index = i;
  });
  return index < 0 ? null : { index, made: ended || requests[index].step <= pos };
}

/** Whether the host's plan was empty when request `index` was prepared (its `at` step's host state). @param {Trace} trace @param {number} index */
function planEmptyAt(trace, index) {
  const request = /** @type {import('./pkg/todo_trace.js').ModelRequest[]} */ (trace.requests)[index];
  return field(hostFields(trace, trace.steps[request.at].host, false), 'items').length === 0;
}

/**
 * The request pane for the call `at` names (requestAt): which call, whether it is about to be made or was made, the
 * message that differs from the stored history (the first, carrying the plan) in full, the others (each the stored
 * one) folded, and the tools.
 * @param {Trace} trace @param {{index: number, made: boolean} | null} at @param {Words} t
 */
export function requestPane(trace, at, t) {
  const request = at && trace.requests?.[at.index];
  if (!at || !request) return [el('p', { class: 'empty', text: t.loop.noRequest })];
  const messages = request.messages.map((v) => /** @type {Message} */ (trace.values[v]));
  const context = { calls: callNames(messages), trace, t };
  const tools = /** @type {import('./pkg/todo_trace.js').ToolDefinition[]} */ (trace.values[request.tools]);
  const empty = planEmptyAt(trace, at.index);
  const nodes = messages.map((m, i) => {
    const node = messageNode(m, '.', context);
    if (request.differs.includes(i)) {
      node.classList.add('differs');
      node.setAttribute('data-differs', 'true');
      node.prepend(el('span', { class: 'tag differs-tag', text: t.loop.differs(empty) }));
    }
    return node;
  });
  const differing = nodes.filter((node) => node.dataset.differs);
  const same = nodes.filter((node) => !node.dataset.differs);
  return [
    el('p', { class: 'request-head', 'data-call': String(at.index + 1), 'data-made': String(at.made), text: t.loop.requestOf(at.index + 1, messages.length, at.made) }),
    el('ol', { class: 'conversation request' }, differing),
    ...(same.length ? [el('details', { class: 'same' }, el('summary', { text: t.loop.same(same.length) }), el('p', { class: 'note', text: t.loop.stored }), el('ol', { class: 'conversation request' }, same))] : []),
    el('details', { class: 'tools' }, el('summary', { text: t.loop.tools(tools.map((tool) => tool.name).join(', ')) }),
      tools.map((tool) => el('div', { class: 'tool' }, el('code', { class: 'name', text: tool.name }), el('p', { text: tool.description }), el('pre', { text: jsonText(tool.input_schema) })))),
  ];
}

/** The claims as they stood at `pos` (Rust's `claimsAlong`), or null before the run. @param {Trace} trace @param {number} pos */
export function claimsAt(trace, pos) {
  if (pos === IDLE) return null;
  const along = trace.claimsAlong ?? [];
  let found = null;
  for (const entry of along) if (pos >= trace.steps.length || entry.step <= pos) found = entry;
  return found;
}

/** Whether the loop's stop (the host's last decision, on the last step) is at or before `pos`. @param {Trace} trace @param {number} pos */
export function stopReached(trace, pos) {
  const last = trace.steps.length - 1;
  // A run that ended without an outcome (refused, failed, or left its recording) has stopped at its end too.
  if (!trace.result.ok) return pos >= last;
  const d = trace.steps[last]?.decisions ?? [];
  return (d.includes('answered') || d.includes('call-limit')) && pos >= last;
}

/**
 * The plan's claims against the evidence so far (`at`, claimsAt); once the loop has `stopped` (stopReached), why, and
 * its answer.
 * @param {Trace} trace @param {import('./pkg/todo_trace.js').ClaimsFrom | null} at @param {boolean} stopped @param {Words} t
 * @returns {Node[]}
 */
export function evidencePane(trace, at, stopped, t) {
  // A run file refused before it ran, or a run that ended with no outcome (a live model that failed, a replay that
  // left its recording): its coded error, as the module worded it.
  if (stopped && !trace.result.ok) {
    const error = trace.result.error;
    return [el('p', { class: 'stop failed', 'data-stop': 'error', 'data-code': error?.code ?? '', text: t.run.failed(error?.code ?? '', error?.message ?? '') })];
  }
  if (!at || at.claims.length === 0) return [el('p', { class: 'empty', text: t.loop.noClaims })];
  const outcome = stopped ? /** @type {import('./pkg/todo_trace.js').Outcome | undefined} */ (trace.result.value) : undefined;
  return [
    ...(outcome ? [el('p', { class: 'stop', 'data-stop': outcome.stop, 'data-calls': String(outcome.calls), text: t.loop.stopped(t.loop.stops[outcome.stop] ?? outcome.stop, outcome.calls) })] : []),
    ...(outcome?.answer ? [el('blockquote', { class: 'answer' }, el('span', { class: 'tag', text: t.loop.answer }), el('pre', { text: outcome.answer }))] : []),
    el('table', { class: 'evidence', 'data-from': String(at.step + 1) },
      el('thead', {}, el('tr', {}, [t.loop.item, t.loop.claim, t.loop.evidence].map((h) => el('th', { scope: 'col', text: h })))),
      el('tbody', {}, at.claims.map((c) => el('tr', { 'data-item': c.id, 'data-status': c.status, 'data-completed': String(c.completed), 'data-backed': String(c.backed), 'data-evidence': String(c.evidence !== undefined), 'data-gap': String(c.gap), class: c.gap ? 'gap' : null },
        el('th', { scope: 'row', text: `${c.id}. ${c.content}` }),
        el('td', { text: t.loop.status[/** @type {keyof Words['loop']['status']} */ (c.status)] ?? c.status }),
        el('td', {}, evidenceText(c, t), c.gap ? el('strong', { class: 'gap-tag', text: ` ${t.loop.gap}` }) : null))))),
  ];
}

/** What the history holds for one claim. @param {import('./pkg/todo_trace.js').PlanClaim} c @param {Words} t */
function evidenceText(c, t) {
  if (!c.evidence) return t.loop.unbacked(c.tool, c.path ?? '');
  return c.backed ? t.loop.backed(c.tool, c.path ?? '', c.evidence.toolUseId) : t.loop.notClaimed(c.tool, c.path ?? '', c.evidence.toolUseId);
}
