// The loop figure's "What if…": the offer of what the host controls, and the compare view of the two runs, call by call.
// @ts-check
//
// Rust ran both runs and compared them (src/host/what_if.rs, compare.rs): each run's calls with their requests,
// replies, decisions, results, plans and warnings, what differs call by call, and where the runs first part. This file
// lays that out as text and moves the two positions; it decides no fact about the runs.
import WORDS from './compare-text.js';
import { el, hidden } from './render.js';

/** @typedef {import('./pkg/todo_trace.js').WhatIf} WhatIf */
/** @typedef {import('./pkg/todo_trace.js').Side} Side */
/** @typedef {import('./pkg/todo_trace.js').CallSummary} CallSummary */
/** @typedef {import('./pkg/todo_trace.js').RunEnd} RunEnd */
/** @typedef {import('./pkg/todo_trace.js').Lang} Lang */
/** @typedef {import('./pkg/todo_trace.js').RunSettings} RunSettings */
/** @typedef {import('./pkg/todo_trace.js').Decision} Decision */
/** @typedef {import('./text-en.js').Words} Words */
/** @typedef {typeof WORDS.en} CompareWords */
/** @typedef {typeof import('./api.js')} Api */

/**
 * What a "what if" starts from: a built-in scenario (the stand-in runs again) or a run file's text (its recording is
 * replayed), with its settings and, when known, the user's answer; `row` is the call the figure is at (-1: not started).
 * @typedef {{base: {scenario: string} | {run: string | ArrayBuffer}, settings: RunSettings | null, decision: Decision | null, row: number}} Current
 */

/** The budgets offered: 1 to the scenarios' own 12 (src/host/what_if.rs MAX_BUDGET). */
const BUDGETS = Array.from({ length: 12 }, (_, i) => i + 1);

/** A row as the link writes it: the call's number, or "end". @param {number} row @param {number} calls */
const rowName = (row, calls) => (row >= calls ? 'end' : String(row + 1));

/** A link's row back: null when it names none of this run's rows. @param {string} text @param {number} calls */
function rowOf(text, calls) {
  if (text === 'end') return calls;
  if (!/^[1-9]\d*$/.test(text)) return null;
  const n = Number(text);
  return n <= calls ? n - 1 : null;
}

/** The first line of a long text, cut short. @param {string} text */
function line(text) {
  const first = text.split('\n', 1)[0];
  return first.length > 80 || first.length < text.trimEnd().length ? `${first.slice(0, 80)}…` : first;
}

/**
 * Builds the "What if…" control and the compare view. `current()` says where the figure is; `onMove` is called after
 * the comparison opened, closed or moved, so the page writes the link. Returns the control, the pane,
 * `open(id, at)` (false when the change or the place cannot be used), `close()`, and `place()` for the link.
 * @param {{api: Api, lang: Lang, t: Words, current: () => Current, onMove: () => void}} options
 */
export function createWhatIf({ api, lang, t, current, onMove }) {
  const w = WORDS[lang];
  /** @type {{whatIf: WhatIf, rows: HTMLElement[][], pos: number[], outputs: HTMLOutputElement[], base: Current['base']} | null} */
  let shown = null;

  // The offer: each thing the host controls, with its other values.
  const menu = el('div', { class: 'what-if-menu', id: 'what-if-menu', hidden: '' });
  const budget = /** @type {HTMLSelectElement} */ (el('select', { 'data-control': 'budget', 'aria-label': w.budget },
    BUDGETS.map((n) => el('option', { value: String(n), text: String(n) }))));
  const toggle = el('button', {
    type: 'button', 'data-action': 'what-if', 'aria-expanded': 'false', 'aria-controls': 'what-if-menu', title: w.whatIfTitle, text: w.whatIf,
    onclick: () => (menu.hidden ? offer() : hideMenu()),
  });
  const control = el('div', { class: 'what-if', onkeydown: (/** @type {KeyboardEvent} */ e) => { if (e.key === 'Escape' && !menu.hidden) hideMenu(); } }, toggle, menu);
  const choice = (/** @type {string} */ id, /** @type {string} */ label) =>
    el('button', { type: 'button', 'data-change': id, text: label, onclick: () => choose(id) });

  function offer() {
    const now = current();
    const s = now.settings;
    const onOff = (/** @type {boolean} */ on) => (on ? w.on : w.off);
    // A built-in scenario knows its answer: only the other one is offered. A recording may hold none, or several.
    const answers = /** @type {Decision[]} */ (['allow', 'deny']).filter((d) => d !== now.decision);
    const group = (/** @type {string} */ label, /** @type {string | null} */ value, /** @type {Node[]} */ ...choices) =>
      el('div', { class: 'what-if-group', role: 'group', 'aria-label': label }, el('span', { class: 'what-if-label', text: label }),
        value === null ? null : el('span', { class: 'now', text: ` (${w.now(value)}) ` }), choices);
    budget.value = String(s ? Math.min(Math.max(s.max_calls, 1), 12) : 12);
    menu.replaceChildren(
      el('p', { text: w.offer }),
      group(w.answer, now.decision && w.decision[now.decision], ...answers.map((d) => choice(d, w.decision[d]))),
      group(w.maintenance, s && onOff(s.maintenance), ...(s ? [s.maintenance ? choice('maintenance-off', w.off) : choice('maintenance-on', w.on)]
        : [choice('maintenance-on', w.on), choice('maintenance-off', w.off)])),
      group(w.budget, s && String(s.max_calls), budget, el('button', { type: 'button', 'data-action': 'what-if-budget', text: w.compareBudget, onclick: () => choose(`budget-${budget.value}`) })),
      group(w.reminder, s && onOff(s.reminder), ...(s ? [s.reminder ? choice('reminder-off', w.off) : choice('reminder-on', w.on)]
        : [choice('reminder-on', w.on), choice('reminder-off', w.off)])),
    );
    menu.hidden = false;
    toggle.setAttribute('aria-expanded', 'true');
    /** @type {HTMLElement | null} */ (menu.querySelector('button'))?.focus();
  }

  function hideMenu() {
    menu.hidden = true;
    toggle.setAttribute('aria-expanded', 'false');
  }

  /** The reader chose a change: the comparison opens at the call the figure is at (or, not started, the first difference). */
  function choose(/** @type {string} */ id) {
    hideMenu();
    if (open(id, null)) {
      heading.focus();
      pane.scrollIntoView({ block: 'nearest' });
    }
  }

  const heading = el('h3', { tabindex: '-1' });
  const body = el('div', { class: 'compare-body' });
  const pane = el('section', { 'data-pane': 'compare', class: 'compare', hidden: '', 'aria-labelledby': 'compare-heading' }, heading, body);
  heading.id = 'compare-heading';

  /** Whether two bases are the same run: the same scenario, or the same run file (its text, or the very bytes opened). */
  const sameBase = (/** @type {Current['base']} */ a, /** @type {Current['base']} */ b) =>
    'scenario' in a ? 'scenario' in b && a.scenario === b.scenario : 'run' in b && a.run === b.run;

  /**
   * Opens the comparison of the figure's run with change `id`, at `at` (a link's rows, "6" or "6,end"; null: where the
   * figure is). False when the change is not one, or `at` names no row.
   * @param {string} id @param {string | null} at
   */
  function open(id, at) {
    const now = current();
    /** @type {WhatIf} */
    let whatIf;
    try {
      whatIf = 'scenario' in now.base ? api.whatIf(now.base.scenario, id, lang) : api.whatIfRun(now.base.run, id, lang);
    } catch {
      return false;
    }
    const [a, b] = whatIf.comparison.sides;
    const firstRow = whatIf.comparison.first ? whatIf.comparison.first.call - 1 : 0;
    /** @type {number[]} */
    let pos;
    if (at !== null) {
      const parts = at.split(',');
      const rows = [rowOf(parts[0], a.calls.length), rowOf(parts[1] ?? parts[0], b.calls.length)];
      if (parts.length > 2 || rows[0] === null || rows[1] === null) return false;
      pos = /** @type {number[]} */ (rows);
    } else {
      const row = now.row >= 0 ? now.row : firstRow;
      pos = [Math.min(row, a.calls.length), Math.min(row, b.calls.length)];
    }
    heading.textContent = w.heading(w.change(whatIf.change));
    const built = build(whatIf);
    shown = { whatIf, ...built, pos, base: now.base };
    pane.hidden = false;
    show();
    onMove();
    return true;
  }

  function close() {
    if (!shown) return;
    shown = null;
    pane.hidden = true;
    body.replaceChildren();
    onMove();
  }

  /** Moves a side (0, 1) or both (null) by `by` rows; a side at its first or last row stays. @param {number | null} side @param {number} by */
  function move(side, by) {
    if (!shown) return;
    const { pos, rows } = shown;
    for (const i of side === null ? [0, 1] : [side]) pos[i] = Math.max(0, Math.min(pos[i] + by, rows[i].length - 1));
    show();
    onMove();
  }

  function goFirst() {
    if (!shown?.whatIf.comparison.first) return;
    const row = shown.whatIf.comparison.first.call - 1;
    shown.pos = shown.rows.map((rows) => Math.min(row, rows.length - 1));
    show();
    onMove();
  }

  /** Marks each side's current row; only the rows that change are touched. */
  function show() {
    if (!shown) return;
    const { rows, pos, outputs } = shown;
    rows.forEach((sideRows, i) => {
      const calls = sideRows.length - 1;
      for (const [r, row] of sideRows.entries()) {
        const current = r === pos[i];
        if ((row.getAttribute('aria-current') === 'step') !== current) {
          if (current) row.setAttribute('aria-current', 'step');
          else row.removeAttribute('aria-current');
        }
      }
      outputs[i].textContent = w.at(pos[i], calls);
    });
  }

  /** The compare view's content for `whatIf`: the first difference, the controls, and the two sides. @param {WhatIf} whatIf */
  function build(whatIf) {
    const { sides, first } = whatIf.comparison;
    const labels = [w.asRun, w.withChange];
    const longest = Math.max(...sides.map((side) => side.calls.length));
    const answerOf = (/** @type {import('./pkg/todo_trace.js').Mark | undefined} */ mark) => (mark?.answer ? w.decision[mark.answer] : '');
    const summary = first
      ? w.first(first.call, (w.kinds[first.kind] ?? w.kinds.end)(answerOf(first.at[0]), answerOf(first.at[1])))
      : w.same;
    /** @type {HTMLOutputElement[]} */
    const outputs = [];
    /** @type {HTMLElement[][]} */
    const rows = [];
    const columns = sides.map((side, i) => {
      const output = /** @type {HTMLOutputElement} */ (el('output', { class: 'where' }));
      outputs.push(output);
      const sideRows = [...side.calls.map((call) => callRow(call, i, first)), endRow(side.end, first, i, side.calls.length)];
      rows.push(sideRows);
      // Aligned by model call: a call only the other run made leaves a gap here, so both ends meet on one line.
      const gaps = Array.from({ length: longest - side.calls.length }, (_, k) =>
        el('li', { class: 'no-call', 'aria-hidden': 'true', text: w.noCall(side.calls.length + k + 1) }));
      const run = whatIf.runs[i];
      const name = labels[i];
      return el('section', { class: 'run-side', 'data-side': i === 0 ? 'base' : 'changed', 'aria-label': name },
        el('h4', { text: name }),
        el('p', { class: 'origin', text: run ? `${run.origin}; ${w.settings(run.settings)}` : '' }),
        el('div', { class: 'side-controls', role: 'group', 'aria-label': name },
          el('button', { type: 'button', 'data-action': 'side-back', text: w.back, onclick: () => move(i, -1) }),
          el('button', { type: 'button', 'data-action': 'side-next', text: w.next, onclick: () => move(i, 1) }),
          output),
        el('ol', { class: 'calls' }, sideRows.slice(0, -1), gaps, sideRows.at(-1)));
    });
    const grid = el('div', { class: 'sides' }, columns);
    // The rows of the two columns' shared grid (style.css): the heading, the origin, the controls, then one per call and the end.
    grid.style.setProperty('--calls', String(longest + 1));
    grid.style.setProperty('--rows', String(longest + 4));
    body.replaceChildren(
      el('p', { class: 'first', 'data-first-kind': first?.kind ?? 'none', 'data-first-call': first ? String(first.call) : null, text: summary }),
      el('p', { class: 'note', text: whatIf.continues === 'stand_in' ? w.standIn : w.replay }),
      el('div', { class: 'compare-controls', role: 'group', 'aria-label': w.both },
        el('span', { class: 'what-if-label', text: `${w.both}:` }),
        el('button', { type: 'button', 'data-action': 'compare-back', text: w.back, onclick: () => move(null, -1) }),
        el('button', { type: 'button', 'data-action': 'compare-next', text: w.next, onclick: () => move(null, 1) }),
        first ? el('button', { type: 'button', 'data-action': 'compare-first', text: w.goFirst, onclick: goFirst }) : null,
        el('button', { type: 'button', 'data-action': 'compare-close', text: w.close, onclick: close })),
      grid,
    );
    return { rows, outputs };
  }

  /** The differences of a row, as a tag and words. @param {string[]} differs */
  const differNote = (differs) => (differs.length === 0 ? null
    : el('p', { class: 'differs-note' }, el('span', { class: 'tag', 'aria-hidden': 'true', text: w.differs }),
      hidden(w.differsIn(differs.map((a) => w.aspects[a] ?? a).join(', '))),
      el('span', { 'aria-hidden': 'true', text: ` ${differs.map((a) => w.aspects[a] ?? a).join(', ')}` })));

  /** The first-difference mark on a side's row. @param {{call: number, at: {step: number}[]} | undefined} first @param {number} side */
  const firstNote = (first, side) => (first
    ? el('p', { class: 'first-tag', 'data-step': String(first.at[side].step + 1) }, el('strong', { text: w.firstMark }), ` (${w.stepAt(first.at[side].step + 1)})`)
    : null);

  /** One model call of a side. @param {CallSummary} call @param {number} side @param {WhatIf['comparison']['first']} first */
  function callRow(call, side, first) {
    const isFirst = first?.call === call.call;
    const differs = /** @type {string[]} */ (call.differs);
    const reply = call.reply
      ? el('ul', { class: 'reply' }, call.reply.map((block) => el('li', {
        text: block.type === 'tool_use' ? `${block.name} ${JSON.stringify(block.input)}` : block.type === 'text' ? w.answerText(line(block.text)) : '',
      })))
      : el('p', { class: 'no-reply', text: w.noReply });
    return el('li', {
      class: `call-row${differs.length ? ' differs' : ''}${isFirst ? ' first' : ''}`,
      'data-call': String(call.call), 'data-differs': differs.join(' ') || null, 'data-first': isFirst ? 'true' : null,
    },
    el('h5', { text: w.call(call.call) }),
    isFirst ? firstNote(first ?? undefined, side) : null,
    differNote(differs),
    el('p', { class: 'request', text: w.request(call.request.length) }),
    el('div', { class: 'reply-line' }, el('span', { class: 'what-if-label', text: w.reply }), reply),
    call.tools.length ? el('ul', { class: 'tools-run' }, call.tools.map((tool) => el('li', { 'data-tool': tool.name, 'data-error': tool.is_error ? 'true' : null },
      el('code', { text: tool.name }),
      tool.decisions.length ? ` ${w.decided} ${tool.decisions.map((d) => t.loop.events[d.event]).join(', ')}` : '',
      tool.result === undefined ? '' : ` — ${tool.is_error ? w.errorResult : w.result} ${line(tool.result)}`))) : null,
    call.reminder !== undefined ? el('p', { class: 'reminder-added', text: w.reminderAdded }) : null,
    planLine(call.plan),
    call.warnings.length ? el('p', { class: 'warnings', text: `${w.warnings} ${call.warnings.map((x) => `${x.code}: ${x.message}`).join('; ')}` }) : null);
  }

  /** A plan as one line of items and their statuses. @param {import('./pkg/todo_trace.js').Todo[]} plan */
  function planLine(plan) {
    const status = (/** @type {string} */ s) => t.loop.status[/** @type {keyof Words['loop']['status']} */ (s)] ?? s;
    return el('p', { class: 'plan-line', 'data-plan': plan.map((item) => item.status).join(' ') },
      el('span', { class: 'what-if-label', text: w.plan }), ' ',
      plan.length ? plan.map((item) => `${item.id}. ${status(item.status)}`).join(' · ') : w.noPlan);
  }

  /**
   * A side's end: the stop and the answer, the claims against the evidence, where a replay left its recording.
   * @param {RunEnd} end @param {WhatIf['comparison']['first']} first @param {number} side @param {number} calls the side's calls
   */
  function endRow(end, first, side, calls) {
    const differs = /** @type {string[]} */ (end.differs);
    // The end is where a run parts from the other when it made no call there.
    const isFirst = first !== undefined && (first.kind === 'end' || first.call > calls);
    return el('li', {
      class: `end-row${differs.length ? ' differs' : ''}${isFirst ? ' first' : ''}`, 'data-call': 'end', 'data-differs': differs.join(' ') || null,
      'data-stop': end.stop ?? 'failed', 'data-unseen': String(end.unseen), 'data-first': isFirst ? 'true' : null,
    },
    el('h5', { text: w.end }),
    isFirst ? firstNote(first ?? undefined, side) : null,
    differNote(differs),
    end.stop ? el('p', { class: 'stop', text: w.stop(end.stop, end.calls) }) : el('p', { class: 'stop', text: w.failed(end.error?.message ?? '') }),
    end.unseen ? el('p', { class: 'never-saw', role: 'note', text: w.neverSaw }) : null,
    end.diverged && !end.unseen ? el('p', { class: 'diverged', text: w.diverged(end.diverged.message) }) : null,
    el('div', { class: 'answer-line' }, el('span', { class: 'what-if-label', text: w.answerLabel }), ' ', end.answer ? el('q', { text: line(end.answer) }) : w.noAnswer),
    planLine(end.plan),
    end.claims.length ? el('div', { class: 'claims-line' }, el('span', { class: 'what-if-label', text: w.claims }),
      el('ul', {}, end.claims.map((c) => el('li', { 'data-item': c.id, 'data-gap': String(c.gap), class: c.gap ? 'gap' : null,
        text: `${c.id}. ${c.content}: ${c.gap ? w.claimGap : c.completed ? w.claimBacked : w.claimOpen}` })))) : null);
  }

  return {
    control,
    pane,
    open,
    close,
    /** Whether the comparison shown started from the run the figure now shows; if not, it is closed. @param {Current['base']} base */
    follow(base) {
      if (shown && !sameBase(shown.base, base)) close();
    },
    /** The comparison's place for the link: the change and the rows, or null when none is open. */
    place() {
      if (!shown) return null;
      const [a, b] = shown.whatIf.comparison.sides;
      const names = [rowName(shown.pos[0], a.calls.length), rowName(shown.pos[1], b.calls.length)];
      return { vs: shown.whatIf.id, vsAt: names[0] === names[1] ? names[0] : names.join(',') };
    },
  };
}
