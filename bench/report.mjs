// Turns the benchmark's measurements into budget verdicts and bench/report.md.
import { runFileBudgets, runFileSection } from './run-file.mjs';
import { GOALS } from './slow4g.mjs';

export const BUDGETS = {
  readyVsFloor: 2,
  pyodideVsReady: 30,
  traceVsPyodide: 1 / 5,
  stepP95Ms: 16,
  // Issue 9: Lighthouse, mobile, every category.
  lighthouseScore: 100,
  // Issue 10: the trace.
  cheapOverRust: 5, // the cheapest Pyodide trace takes at least this many times as long as trace()
  perStepGrowth: 2, // per-step cost at 20 items x 150 characters, against validate/valid
  loopPerStep: 2, // issue 12: a loop scenario's cost per step, against validate/valid
  validJsonChars: 10_500, // JSON text of trace("validate", "valid", "en"): a fifth of 52.5 KB
  worstMs: 100,
  worstJsonChars: 5_000_000,
};

const CATEGORY_NAMES = { performance: 'performance', accessibility: 'accessibility', 'best-practices': 'best practices', seo: 'SEO' };
const METRIC_NAMES = {
  'first-contentful-paint': 'First Contentful Paint',
  'largest-contentful-paint': 'Largest Contentful Paint',
  'total-blocking-time': 'Total Blocking Time',
  'cumulative-layout-shift': 'Cumulative Layout Shift',
  'speed-index': 'Speed Index',
};
/** The case traceInput is timed on for the per-step budget (bench/run.mjs). */
const INPUT_CASE = 'input-20x150';

function size(bytes) {
  return bytes >= 1e6 ? `${(bytes / 1e6).toFixed(2)} MB` : `${(bytes / 1e3).toFixed(1)} KB`;
}

function ms(value) {
  if (value === null || value === undefined) return 'n/a';
  return value < 10 ? `${value.toFixed(2)} ms` : `${value.toFixed(0)} ms`;
}

function times(ratio) {
  if (ratio === null || !Number.isFinite(ratio)) return 'n/a';
  return ratio < 10 ? `${ratio.toFixed(2)}×` : `${ratio.toFixed(0)}×`;
}

function us(value) {
  return value === null || value === undefined ? 'n/a' : `${value.toFixed(value < 100 ? 1 : 0)} µs`;
}

function mib(bytes) {
  return bytes === null || bytes === undefined ? 'n/a' : `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

function ratio(a, b) {
  return a === null || b === null || b === 0 ? null : a / b;
}

function verdict(met) {
  return met === null ? '**not measured**' : met ? 'met' : '**missed**';
}

/** Rust and both Python trace times side by side, matched by figure and scenario. */
function tracePairs(traces) {
  const match = (list, rust) => (list ?? []).find((p) => p.figure === rust.figure && p.scenario === rust.scenario) ?? null;
  return (traces?.rust ?? [])
    .filter((rust) => rust.scenario !== INPUT_CASE && rust.figure !== 'loop')
    .map((rust) => {
      const python = match(traces?.python, rust);
      const cheap = match(traces?.cheap, rust);
      return {
        figure: rust.figure,
        scenario: rust.scenario,
        rust,
        python,
        cheap,
        ratio: python ? rust.ms / python.ms : null,
        speedup: cheap ? cheap.ms / rust.ms : null,
      };
    });
}

/** Trace time per step of validate/valid and of the 20 x 150-character plan; null where a trace has no step list. */
function perStep(traces) {
  const find = (scenario) => (traces?.rust ?? []).find((r) => r.figure === 'validate' && r.scenario === scenario);
  const valid = find('valid');
  const input = find(INPUT_CASE);
  const per = (r) => (r && r.steps ? r.ms / r.steps : null);
  return { valid, input, validUs: per(valid) === null ? null : per(valid) * 1000, inputUs: per(input) === null ? null : per(input) * 1000 };
}

/**
 * A trace's cost per step against `valid`'s: the median of the rounds' ratios, each of a batch of the one against
 * the other's batch of the same round, so that a slow spell of this shared machine falls on both; from the two
 * medians for a report that kept no rounds.
 */
export function perStepRatio(t, valid) {
  if (!t.rounds || t.rounds.length !== valid.rounds?.length) return t.ms / t.steps / (valid.ms / valid.steps);
  return median(t.rounds.map((ms, i) => ms / t.steps / (valid.rounds[i] / valid.steps)));
}

/** Issue 12: the costliest loop scenario per step, against validate/valid in the same rounds. */
function loopBudget(traces, validUs) {
  const valid = (traces?.rust ?? []).find((t) => t.figure === 'validate' && t.scenario === 'valid');
  const loops = (traces?.rust ?? []).filter((t) => t.figure === 'loop' && t.steps);
  const growths = valid ? loops.map((t) => ({ t, growth: perStepRatio(t, valid) })) : [];
  const worst = growths.reduce((w, g) => (w === null || g.growth > w.growth ? g : w), null);
  const worstUs = worst ? (worst.t.ms / worst.t.steps) * 1000 : null;
  const growth = worst?.growth ?? null;
  return {
    name: 'loop figure: trace cost per step against validate/valid (issue 12)',
    target: '≤ 2× in every scenario',
    measured: growth === null ? 'n/a' : `worst loop/${worst.t.scenario}: ${us(worstUs)} vs ${us(validUs)} per step: ${times(growth)} (median of the rounds' ratios)`,
    met: growth === null ? null : growth <= BUDGETS.loopPerStep,
  };
}

function median(values) {
  const sorted = values.filter((v) => v !== null && Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function chars(n) {
  return n === null || n === undefined ? 'n/a' : size(n);
}

/** Every budget of issue 5: what was measured and whether it was met (null: could not be measured). */
export function judge(r) {
  const pageReady = r.ready.page.median;
  const pairs = tracePairs(r.traces);
  const worst = pairs.reduce((w, p) => (p.ratio !== null && (w === null || p.ratio > w.ratio) ? p : w), null);
  const traceMet = pairs.length === 0 || pairs.some((p) => p.ratio === null) ? null : pairs.every((p) => p.ratio <= BUDGETS.traceVsPyodide);
  const markedP95 = r.steps?.samples ? r.steps.markedP95 : null;
  const settledP95 = r.steps?.samples ? r.steps.settledP95 : null;
  const readyVsFloor = ratio(pageReady, r.ready.floor.median);
  const pyodideVsReady = ratio(r.ready.pyodide.median, pageReady);
  return [
    ...slow4gBudgets(r.slow4g?.now),
    {
      name: 'ready, against the floor (unthrottled)',
      target: '≤ 2× the floor',
      measured: `${ms(pageReady)} vs ${ms(r.ready.floor.median)}: ${times(readyVsFloor)}`,
      met: readyVsFloor === null ? null : readyVsFloor <= BUDGETS.readyVsFloor,
    },
    {
      name: 'ready, against Pyodide',
      target: '≥ 30× sooner',
      measured: `${ms(pageReady)} vs ${ms(r.ready.pyodide.median)}: ${times(pyodideVsReady)} sooner`,
      met: pyodideVsReady === null ? null : pyodideVsReady >= BUDGETS.pyodideVsReady,
    },
    {
      name: 'trace time per scenario, against Pyodide',
      target: '≤ 1/5 (0.20×) in every scenario',
      measured: worst
        ? `worst ${worst.figure}/${worst.scenario}: ${ms(worst.rust.ms)} vs ${ms(worst.python.ms)} = ${times(worst.ratio)}; ` +
          `${pairs.filter((p) => p.ratio !== null && p.ratio <= BUDGETS.traceVsPyodide).length} of ${pairs.length} within`
        : 'n/a',
      met: traceMet,
    },
    {
      name: 'step latency p95: click → the mark moved',
      target: '≤ 16 ms',
      measured: markedP95 === null ? 'n/a' : `${ms(markedP95)} over ${r.steps.samples} steps`,
      met: markedP95 === null ? null : markedP95 <= BUDGETS.stepP95Ms,
    },
    {
      name: 'the same, until also laid out (stricter than issue 5 asks)',
      target: '≤ 16 ms',
      measured: settledP95 === null ? 'n/a' : `${ms(settledP95)} over ${r.steps.samples} steps`,
      met: settledP95 === null ? null : settledP95 <= BUDGETS.stepP95Ms,
    },
    ...lighthouseBudgets(r.lighthouse),
    ...traceBudgets(r),
  ];
}

/** Issue 25: the three load measures on Slow 4G, against the floor of the page's bytes. */
function slow4gBudgets(s) {
  if (!s) return [];
  const all = ratio(s.all.median, s.pageFloorMs);
  const first = ratio(s.first.median, s.pageFloorMs);
  return [
    {
      name: 'Slow 4G: every figure ready',
      target: `≤ ${GOALS.allVsFloor}× the floor`,
      measured: `${ms(s.all.median)} vs ${ms(s.pageFloorMs)}: ${times(all)}`,
      met: all === null ? null : all <= GOALS.allVsFloor,
    },
    {
      name: 'Slow 4G: the first figure interactive',
      target: `≤ ${GOALS.firstVsFloor}× the floor`,
      measured: `${ms(s.first.median)} vs ${ms(s.pageFloorMs)}: ${times(first)}`,
      met: first === null ? null : first <= GOALS.firstVsFloor,
    },
    {
      name: 'Slow 4G: an embedded figure interactive (dist/example.html)',
      target: `≤ ${GOALS.embedMs} ms`,
      measured: `${ms(s.embedFirst.median)} (its floor ${ms(s.embedFloorMs)}: ${times(ratio(s.embedFirst.median, s.embedFloorMs))})`,
      met: s.embedFirst.median === null ? null : s.embedFirst.median <= GOALS.embedMs,
    },
  ];
}

/** The Slow 4G table: each variant's medians beside its floor. */
export function slow4gTable(slow) {
  const rows = [];
  for (const [name, s] of Object.entries(slow ?? {})) {
    const label = name === 'now' ? 'this tree' : `baseline \`${name}\``;
    const values = (list) => list.values.map((v) => (v === null ? 'n/a' : Math.round(v))).join(', ');
    rows.push(
      [label, 'every figure ready', ms(s.all.median), ms(s.pageFloorMs), times(ratio(s.all.median, s.pageFloorMs)), values(s.all)],
      [label, 'the first figure interactive', ms(s.first.median), ms(s.pageFloorMs), times(ratio(s.first.median, s.pageFloorMs)), values(s.first)],
      [label, 'an embedded figure interactive', ms(s.embedFirst.median), ms(s.embedFloorMs), times(ratio(s.embedFirst.median, s.embedFloorMs)), values(s.embedFirst)],
      [label, 'both embedded figures interactive', ms(s.embedBoth.median), ms(s.embedFloorMs), times(ratio(s.embedBoth.median, s.embedFloorMs)), values(s.embedBoth)],
      [label, 'first contentful paint (lesson page)', ms(s.fcp.median), '', '', values(s.fcp)],
      [label, 'floor page, measured: the page\'s URLs fetched, nothing run', ms(s.pageFloorLoad.median), ms(s.pageFloorMs), times(ratio(s.pageFloorLoad.median, s.pageFloorMs)), values(s.pageFloorLoad)],
      [label, 'floor page, measured: the article\'s URLs', ms(s.embedFloorLoad.median), ms(s.embedFloorMs), times(ratio(s.embedFloorLoad.median, s.embedFloorMs)), values(s.embedFloorLoad)],
      [label, 'bytes (gzip as served) and requests: page; article', `${size(s.pageBytes)}, ${s.pageRequests}; ${size(s.embedBytes)}, ${s.embedRequests}`, '', '', ''],
    );
  }
  return table(['variant', 'measure (median of cold loads)', 'measured', 'floor', '÷ floor', 'each load'], rows);
}

/** Issue 9: every Lighthouse category at 100, as the median of the runs. */
function lighthouseBudgets(lh) {
  const runs = lh?.runs.filter((run) => run.scores).length ?? 0;
  return Object.entries(CATEGORY_NAMES).map(([id, name]) => {
    const score = lh?.scores[id] ?? null;
    return {
      name: `Lighthouse ${name} (mobile)`,
      target: '100',
      measured: score === null ? 'n/a' : `${score} (median of ${runs}: ${lh.runs.map((run) => run.scores?.[id] ?? '–').join(', ')})`,
      met: score === null ? null : score >= BUDGETS.lighthouseScore,
    };
  });
}

/** Issue 10: the trace's time, size and worst case. */
function traceBudgets(r) {
  const pairs = tracePairs(r.traces).filter((p) => p.speedup !== null);
  const speedups = pairs.map((p) => p.speedup);
  const slowest = pairs.reduce((w, p) => (w === null || p.speedup < w.speedup ? p : w), null);
  const within = pairs.filter((p) => p.speedup >= BUDGETS.cheapOverRust).length;
  const step = perStep(r.traces);
  const growth = ratio(step.inputUs, step.validUs);
  const worst = r.worst?.api ?? null;
  const worstSteps = r.worst?.page?.steps?.samples ? r.worst.page.steps : null;
  return [
    {
      name: 'trace time against the cheapest Pyodide trace (issue 10)',
      target: '≥ 5× faster in every scenario',
      measured: pairs.length
        ? `median ${times(median(speedups))} faster; slowest ${slowest.figure}/${slowest.scenario}: ${ms(slowest.rust.ms)} vs ${ms(slowest.cheap.ms)} = ${times(slowest.speedup)}; ${within} of ${pairs.length} within`
        : 'n/a',
      met: pairs.length ? within === pairs.length : null,
    },
    loopBudget(r.traces, step.validUs),
    {
      name: 'cost per step, 20 items of 150 characters against validate/valid',
      target: '≤ 2×',
      measured: growth === null ? 'n/a' : `${us(step.inputUs)} vs ${us(step.validUs)} per step: ${times(growth)}`,
      met: growth === null ? null : growth <= BUDGETS.perStepGrowth,
    },
    {
      name: 'JSON text of trace("validate", "valid", "en")',
      target: '≤ 10.5 KB',
      measured: r.validJsonChars === null || r.validJsonChars === undefined ? 'n/a' : `${chars(r.validJsonChars)} (${r.validJsonChars} characters)`,
      met: r.validJsonChars ? r.validJsonChars <= BUDGETS.validJsonChars : null,
    },
    {
      name: 'worst case (64 KiB input): trace time',
      target: '≤ 100 ms',
      measured: worst ? `${ms(worst.medianMs)} (median of ${worst.ms.length})` : 'n/a',
      met: worst ? worst.medianMs <= BUDGETS.worstMs : null,
    },
    {
      name: 'worst case: JSON text of the trace',
      target: '≤ 5 MB',
      measured: worst ? chars(worst.jsonChars) : 'n/a',
      met: worst ? worst.jsonChars <= BUDGETS.worstJsonChars : null,
    },
    {
      name: 'worst case: step latency p95, click → the mark moved',
      target: '≤ 16 ms',
      measured: worstSteps ? `${ms(worstSteps.markedP95)} over ${worstSteps.samples} steps (until laid out: ${ms(worstSteps.settledP95)})` : 'n/a',
      met: worstSteps ? worstSteps.markedP95 <= BUDGETS.stepP95Ms : null,
    },
    // Issue 26: a 100-call recorded run (bench/run-file.mjs).
    ...(r.runFile ? runFileBudgets(r.runFile) : []),
  ];
}

function table(head, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

function budgetTable(r) {
  return table(['budget', 'target', 'measured', 'verdict'], r.budgets.map((b) => [b.name, b.target, b.measured, verdict(b.met)]));
}

function withRange(s) {
  return s.median === null ? 'n/a' : `${ms(s.median)} (${ms(s.min)}–${ms(s.max)})`;
}

function loadTable(r) {
  const { page, floor, pyodide } = r.bytes;
  return table(
    ['median of cold loads (min–max)', 'lesson page (Rust → wasm)', 'floor: same bytes, no work', 'Pyodide + lesson.py', 'Pyodide ÷ page'],
    [
      ['transfer, gzip -9', size(page.gzip), size(floor.gzip), size(pyodide.gzip), times(ratio(pyodide.gzip, page.gzip))],
      ['transfer, raw', size(page.raw), size(floor.raw), size(pyodide.raw), times(ratio(pyodide.raw, page.raw))],
      ['requests', page.files.length, floor.files.length, pyodide.files.length, ''],
      ['ready', withRange(r.ready.page), withRange(r.ready.floor), withRange(r.ready.pyodide), times(ratio(r.ready.pyodide.median, r.ready.page.median))],
      ['first contentful paint', withRange(r.fcp.page), withRange(r.fcp.floor), withRange(r.fcp.pyodide), ''],
    ],
  );
}

function traceTable(r) {
  const pairs = tracePairs(r.traces);
  if (pairs.length === 0) return '_Not measured: the page never became ready or has no wasm module._';
  return table(
    ['figure', 'scenario', 'Rust steps', 'Rust trace()', 'its JSON', 'Python steps', 'Pyodide peer', 'Rust ÷ peer', 'Pyodide cheapest', 'cheapest ÷ Rust'],
    pairs.map((p) => [
      p.figure,
      p.scenario,
      p.rust.steps ?? 'n/a',
      ms(p.rust.ms),
      chars(p.rust.jsonChars),
      p.python?.steps ?? 'n/a',
      ms(p.python?.ms ?? null),
      `${times(p.ratio)}${p.ratio !== null && p.ratio > BUDGETS.traceVsPyodide ? ' **over**' : ''}`,
      ms(p.cheap?.ms ?? null),
      `${times(p.speedup)}${p.speedup !== null && p.speedup < BUDGETS.cheapOverRust ? ' **under**' : ''}`,
    ]),
  );
}

function perStepTable(r) {
  const step = perStep(r.traces);
  const row = (label, run, perUs) => [label, run?.steps ?? 'n/a', ms(run?.ms ?? null), us(perUs), chars(run?.jsonChars)];
  return table(
    ['trace', 'steps', 'time', 'per step', 'JSON'],
    [
      row('`trace("validate", "valid")`: 2 items', step.valid, step.validUs),
      row('`traceInput("validate", …)`: 20 items, 150-character contents, valid', step.input, step.inputUs),
    ],
  );
}

function worstTable(r) {
  const w = r.worst;
  if (!w || (!w.api && !w.page)) return `_Not measured${w?.problem ? `: ${w.problem}` : ''}._`;
  const a = w.api;
  const s = w.page?.steps;
  const rows = [];
  if (a) {
    rows.push(
      ['text', `${a.bytes} bytes of UTF-8; ${a.ok === null ? 'outcome unknown' : a.ok ? 'a valid plan' : '**refused or failed**'}; ${a.steps ?? 'n/a'} steps`],
      ['`traceInput` time', `${ms(a.medianMs)} median (${a.ms.map((v) => ms(v)).join(', ')})`],
      ['its JSON text', `${chars(a.jsonChars)} (${a.jsonChars} characters)`],
      ['wasm memory', `${mib(a.wasmBefore)} before, ${mib(a.wasmAfter)} after`],
    );
  }
  if (w.page) {
    rows.push(['Run my input, in the page', `${ms(w.page.handledMs)} in the click handler, ${ms(w.page.shownMs)} until the next frame; status \`${w.page.status}\``]);
  }
  if (s?.samples) {
    rows.push(['Step over, p50 / p95', `marked ${ms(s.markedP50)} / ${ms(s.markedP95)}; laid out ${ms(s.settledP50)} / ${ms(s.settledP95)} (${s.samples} steps)`]);
  }
  return [table(['worst case', 'measured'], rows), ...(w.problem ? ['', `Stopped early: ${w.problem}`] : [])].join('\n');
}

function lighthouseTable(lh) {
  if (!lh || lh.runs.every((run) => !run.scores)) return `_Not measured${lh?.runs[0]?.runtimeError ? `: ${lh.runs[0].runtimeError}` : ''}._`;
  const runs = lh.runs;
  const metric = (id, v) => (v === null || v === undefined ? 'n/a' : id === 'cumulative-layout-shift' ? v.toFixed(3) : ms(v));
  return table(
    ['Lighthouse, mobile', 'median', ...runs.map((_, i) => `run ${i + 1}`)],
    [
      ...Object.entries(CATEGORY_NAMES).map(([id, name]) => [`**${name}**`, `**${lh.scores[id] ?? 'n/a'}**`, ...runs.map((run) => run.scores?.[id] ?? 'n/a')]),
      ...Object.entries(METRIC_NAMES).map(([id, name]) => [name, metric(id, lh.metrics[id]), ...runs.map((run) => metric(id, run.metrics?.[id]))]),
    ],
  );
}

/** What Chromium itself reported in the unthrottled cold loads: the largest contentful paint's element, and the build task. */
function paintNotes(r) {
  const elements = r.lcp?.page?.elements ?? [];
  if (elements.length === 0) return [];
  const counts = new Map();
  for (const e of elements) counts.set(e, (counts.get(e) ?? 0) + 1);
  const named = [...counts].map(([e, n]) => `${e === null ? 'none' : `\`${e}\``} in ${n} of ${elements.length}`).join(', ');
  return [
    `- Unthrottled, in the ${elements.length} cold loads above (Chromium's own \`largest-contentful-paint\` entries): the element is ${named}, ` +
      `at ${ms(r.lcp.page.median)} (median). Building the page (\`build()\` of page.js until the first three figures are built, each in tasks of its own; timed by main.js) took ${ms(r.build?.median ?? null)} ` +
      `(${ms(r.build?.min ?? null)}–${ms(r.build?.max ?? null)}); Lighthouse multiplies main-thread time by 4, and every task over 50 ms after the first paint counts towards Total Blocking Time.`,
  ];
}

function lighthouseDetails(lh) {
  const done = lh?.runs.filter((run) => run.scores) ?? [];
  if (done.length === 0) return [];
  const lines = [];
  done.forEach((run, i) => {
    const lcp = run.lcpElement;
    const tasks = run.longTasks.map((t) => `${ms(t.durationMs)} at ${ms(t.startMs)} (${/^https?:/.test(t.url) ? `\`${t.url.replace(/^https?:\/\/[^/]+/, '')}\`` : t.url || 'no script'})`);
    lines.push(
      `- Run ${i + 1}: ${lcp ? `largest contentful paint element \`${lcp.selector}\` (${lcp.phases.map((p) => `${p.phase} ${ms(p.ms)}`).join(', ')}); ` : ''}` +
        `long tasks (simulated, start and length): ${tasks.length ? tasks.join('; ') : 'none'}` +
        `${run.failing.length ? `; audits losing points: ${run.failing.map((f) => `${f.category}/${f.id}${f.value ? ` (${f.value})` : ''}`).join(', ')}` : ''}` +
        `${run.flagged.length ? `; flagged: ${run.flagged.map((f) => `${f.id}${f.value ? ` (${f.value})` : ''}`).join(', ')}` : ''}.`,
    );
  });
  for (const run of lh.runs.filter((r) => !r.scores)) lines.push(`- A run failed: ${run.runtimeError}`);
  return lines;
}

function stepTable(r) {
  const s = r.steps;
  if (!s || s.samples === 0) return `_Not measured${s?.problem ? `: ${s.problem}` : ': the page never became ready'}._`;
  return [
    table(
      ['Step over, over ' + s.samples + ' steps', 'p50', 'p95'],
      [
        ['click → the mark moved (`aria-current="step"` on the new line, or gone at a return)', ms(s.markedP50), ms(s.markedP95)],
        ['click → marked, the task finished and laid out', ms(s.settledP50), ms(s.settledP95)],
      ],
    ),
    '',
    `${s.clicks} clicks; ${s.unmarked} of them moved no mark (the run ended, or one return followed another) and are not timed.` +
      `${s.problem ? ` Stopped early: ${s.problem}` : ''}`,
  ].join('\n');
}

function filesTable(load) {
  return table(
    ['file', 'type', 'raw', 'gzip -9'],
    [
      ...load.files.map((f) => [`\`${f.path}\``, f.type.split(';')[0], size(f.raw), size(f.gzip)]),
      ['**total**', '', `**${size(load.raw)}**`, `**${size(load.gzip)}**`],
    ],
  );
}

function context(r) {
  const m = r.machine;
  return [
    `Measured ${r.date.slice(0, 16).replace('T', ' ')} UTC by \`./build.sh bench\` (bench/run.mjs): ${r.runs} cold loads of each page ` +
      `(a new browser context each time, so an empty cache), interleaved; medians throughout.`,
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.os}; Node ${m.node}; Chromium ${m.chromium} headless; ` +
      `Pyodide ${m.pyodide}. Load average ${m.loadAverage.join(' ')} before, ${m.loadAverageAfter.join(' ')} after.`,
    `Page measured: www/ as of \`${r.commit.www}\`${r.commit.wwwDirty ? ' plus uncommitted changes' : ''}; tree \`${r.commit.head.slice(0, 12)}\`.`,
  ].join('\n');
}

/** The full report (bench/report.md) and a shorter summary for the terminal. */
export function renderReport(r) {
  const warnings = [
    ...r.offsite.map((url) => `- A request left this machine: \`${url}\``),
    ...r.errors.map((e) => `- Page error: ${e}`),
    ...(r.openingDrift ?? []).map((d) => `- ${d}`),
  ];
  const summary = [context(r), '', budgetTable(r), '', slow4gTable(r.slow4g), '', lighthouseTable(r.lighthouse), '', loadTable(r)].join('\n');
  const full = [
    '# Performance: the lesson page against the same lesson in Pyodide',
    '',
    context(r),
    '',
    '## Budgets',
    '',
    budgetTable(r),
    '',
    '## Slow 4G, cold, against the floor',
    '',
    slow4gTable(r.slow4g),
    '',
    'Lighthouse\'s "Slow 4G" network (150 ms round trip, 1.6 Mbps down, 750 kbps up) emulated with CDP ' +
      '`Network.emulateNetworkConditions`, in headless Chromium, a new browser context (an empty cache) for each load; ' +
      'the loads of every variant and page interleaved, round after round (bench/slow4g.mjs). The times run from navigation ' +
      'start until a figure is built, idle and shows its lines (its controls work from then on): every figure is the ' +
      "lesson page's four, the first is its first (validate); the embedded one is the first figure of dist/example.html " +
      '(write), served from dist/. The floor is the bytes the load received (gzip as the server sent them, every request ' +
      'until ready) at 1.6 Mbps, plus three round trips of 150 ms. The floor page (bench/floor.html) fetches the same URLs ' +
      'all at once under the same network and uses none of them: what the emulated network itself gives.',
    '',
    '## Lighthouse',
    '',
    lighthouseTable(r.lighthouse),
    '',
    `Lighthouse ${r.lighthouse?.version ?? ''} (npm \`lighthouse\`, bench/lighthouse.mjs) in its default mobile mode: ` +
      'a phone-sized screen, slow 4G and a 4× slower CPU, simulated from one unthrottled load (throttling method ' +
      `\`${r.lighthouse?.settings?.throttlingMethod ?? 'n/a'}\`), in Chromium (\`/usr/bin/chromium --headless=new\`) with an empty ` +
      'profile for each run, against the same local server as everything here. Scores vary from run to run (the simulation ' +
      "starts from this shared machine's real timings), so each score and metric is the median of the runs. " +
      'What lay behind each run:',
    '',
    ...lighthouseDetails(r.lighthouse),
    ...paintNotes(r),
    '',
    '## Load',
    '',
    loadTable(r),
    '',
    '"Ready" is the time from navigation until every figure is ready: all three `[data-figure]` show their lines ' +
      'and have `data-status="idle"`. The floor is a blank page (bench/floor.html) that fetches the same URLs ' +
      "as the lesson page, its document included, all at once, and uses none of them. Pyodide's ready is when " +
      'Python has run bench/python/lesson.py and can trace the lesson (before any rendering, which favours Pyodide). ' +
      `For scale: the floor itself is ${times(ratio(r.ready.pyodide.median, r.ready.floor.median))} sooner than Pyodide, ` +
      'so no page that fetches these files from this server can be more than that.',
    '',
    `## Trace time per scenario (language ${r.lang})`,
    '',
    traceTable(r),
    '',
    `Median over ${r.traceBatches} batches of calls, after 3 s of warm-up over all scenarios and 200 ms on each, with the lesson page and the Pyodide page ` +
      "open side by side, their batches alternating and going round all scenarios, so that the machine's noise " +
      'falls on both tracers and every scenario alike ' +
      "(a batch lasts at least 20 ms, because a page's clock is coarse). Rust: the page's own wasm `trace()`, " +
      'returning plain JS objects. Python: ' +
      '`trace_json()` under `sys.settrace` in Pyodide, then `JSON.parse`. Python records a step for every line ' +
      'event (a `for` line on each pass, each line of a multi-line call), hence its larger step counts. ' +
      "The peer records what the module's trace holds (stack, events, output, values as data); the cheapest " +
      '(`trace_cheap_json()`, issue 10) records per line only `repr()` of each local and `json.dumps` of the host ' +
      'state, then `JSON.parse` too. The bench reads no field of a trace but `steps.length`, so a new trace format is timed the same way; ' +
      '"its JSON" is `JSON.stringify` of what `trace()` returned.',
    '',
    '## The cost of a step as the data grows',
    '',
    perStepTable(r),
    '',
    "Timed with the scenarios above. Issue 10 asks that a step cost about the same whatever the data's size (within 2×); " +
      'a trace that copies every local at every step costs more per step as the items grow.',
    '',
    '## The worst case: 64 KiB of input',
    '',
    worstTable(r),
    '',
    'The heaviest text within the limits (issue 10): exactly 65,536 bytes, 20 valid items whose contents are padded ' +
      'on both sides with raw U+000B, white space that validation trims away, so the plan is valid and every step ' +
      "carries the padded input. Traced with `traceInput(\"validate\", text, lang)` in a freshly loaded page (each run alone); " +
      "the wasm memory is the module's linear memory, which never shrinks. Then, in another fresh page, the same " +
      "text is run from the validate figure's own editor (Run my input) and stepped through with Step over.",
    '',
    ...(r.runFile ? [runFileSection(r.runFile, r.date.slice(0, 16).replace('T', ' ') + ' UTC')] : []),
    '## Step latency',
    '',
    stepTable(r),
    '',
    'Timed inside the page from the click event\'s timestamp; Playwright clicks Step over through every scenario ' +
      'of every figure, round after round. The first row is the measure issue 5 sets the budget on. The second ' +
      "also waits for the rest of the click's task and forces style and layout, the work the next frame has to " +
      'do before the step can be seen; it is judged against the same 16 ms as a stricter check.',
    '',
    '## Files',
    '',
    '### Lesson page',
    '',
    filesTable(r.bytes.page),
    '',
    '### Pyodide',
    '',
    filesTable(r.bytes.pyodide),
    '',
    '## Noise',
    '',
    `The machine has ${r.machine.cores} cores shared with other work (see the load average), so single timings ` +
      'vary by tens of percent from run to run; the min–max ranges show how much. Ratios within one run are ' +
      'steadier than absolute numbers across runs. Bytes are exact.',
    ...(warnings.length ? ['', '## Warnings', '', ...warnings] : []),
    '',
  ].join('\n');
  return { full, summary };
}
