// Turns the benchmark's measurements into budget verdicts, bench/report.md and the README's Performance section.
import { readFileSync, writeFileSync } from 'node:fs';

export const BUDGETS = {
  gzipBytes: 100_000, // KB here means 1000 bytes
  readyVsFloor: 2,
  pyodideVsReady: 30,
  traceVsPyodide: 1 / 5,
  stepP95Ms: 16,
};

const README_BEGIN = '<!-- bench:begin (written by ./build.sh bench) -->';
const README_END = '<!-- bench:end -->';

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

function ratio(a, b) {
  return a === null || b === null || b === 0 ? null : a / b;
}

function verdict(met) {
  return met === null ? '**not measured**' : met ? 'met' : '**missed**';
}

/** Rust and Python trace times side by side, matched by figure and scenario. */
function tracePairs(traces) {
  return (traces?.rust ?? []).map((rust) => {
    const python = (traces?.python ?? []).find((p) => p.figure === rust.figure && p.scenario === rust.scenario) ?? null;
    return { figure: rust.figure, scenario: rust.scenario, rust, python, ratio: python ? rust.ms / python.ms : null };
  });
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
    {
      name: 'total transfer, gzip',
      target: '≤ 100 KB',
      measured: size(r.bytes.page.gzip),
      met: r.bytes.page.ready ? r.bytes.page.gzip <= BUDGETS.gzipBytes : null,
    },
    {
      name: 'ready, against the floor',
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
    ['figure', 'scenario', 'Rust steps', 'Rust trace()', 'Python steps', 'Pyodide trace', 'Rust ÷ Pyodide'],
    pairs.map((p) => [
      p.figure,
      p.scenario,
      p.rust.steps,
      ms(p.rust.ms),
      p.python?.steps ?? 'n/a',
      ms(p.python?.ms ?? null),
      `${times(p.ratio)}${p.ratio !== null && p.ratio > BUDGETS.traceVsPyodide ? ' **over**' : ''}`,
    ]),
  );
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

/** The full report (bench/report.md) and the shorter summary the README carries. */
export function renderReport(r) {
  const warnings = [
    ...r.offsite.map((url) => `- A request left this machine: \`${url}\``),
    ...r.errors.map((e) => `- Page error: ${e}`),
  ];
  const summary = [context(r), '', budgetTable(r), '', loadTable(r)].join('\n');
  const full = [
    '# Performance: the lesson page against the same lesson in Pyodide',
    '',
    context(r),
    '',
    '## Budgets',
    '',
    budgetTable(r),
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
      'event (a `for` line on each pass, each line of a multi-line call), hence its larger step counts.',
    '',
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

/** Replaces the README's Performance table (between the bench markers) with the latest summary. */
export function updateReadme(path, summary) {
  const text = readFileSync(path, 'utf8');
  const start = text.indexOf(README_BEGIN);
  const end = text.indexOf(README_END);
  if (start < 0 || end < start) {
    console.warn(`README.md has no ${README_BEGIN} ... ${README_END} markers; not updated`);
    return;
  }
  writeFileSync(path, `${text.slice(0, start + README_BEGIN.length)}\n${summary}\n${text.slice(end)}`);
}
