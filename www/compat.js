// TEMPORARY: the module's old trace format turned into the new one (issue 10's contract) until the Rust side lands.
// @ts-nocheck

const aboutToRun = (step) => step.event === 'call' || step.event === 'line';

// The previous step of the same call, or -1.
function previousInFrame(steps, pos) {
  const d = steps[pos].stack.length;
  for (let i = pos - 1; i >= 0; i--) {
    if (steps[i].stack.length > d) continue;
    return steps[i].stack.length === d && aboutToRun(steps[i]) ? i : -1;
  }
  return -1;
}

function keys(locals) {
  const seen = new Map();
  return locals.map((local) => {
    const n = seen.get(local.name) ?? 0;
    seen.set(local.name, n + 1);
    return `${local.name}#${n}`;
  });
}

function interner(list) {
  const index = new Map();
  return (value, key = JSON.stringify(value)) => {
    if (!index.has(key)) {
      index.set(key, list.length);
      list.push(value);
    }
    return index.get(key);
  };
}

function upgradeTrace(old) {
  const values = [];
  const bindings = [];
  const scopes = [];
  const hosts = [];
  const value = interner(values);
  const binding = interner(bindings);
  const scope = interner(scopes);
  const host = interner(hosts);
  const lineAt = [];
  const steps = old.steps.map((step, i) => {
    const depth = step.stack.length;
    lineAt[depth - 1] = step.line;
    const frames = step.stack.map((symbol, k) => ({ symbol, line: lineAt[k] }));
    const before = previousInFrame(old.steps, i);
    let changes = '.'.repeat(step.locals.length);
    if (before !== -1) {
      const earlier = new Map(keys(old.steps[before].locals).map((k, j) => [k, old.steps[before].locals[j]]));
      changes = keys(step.locals).map((k, j) => {
        const was = earlier.get(k);
        const now = step.locals[j];
        if (!was) return '+';
        if (now.moved && !was.moved) return '-';
        return was.moved !== now.moved || JSON.stringify(was.value) !== JSON.stringify(now.value) ? '~' : '.';
      }).join('');
    }
    const prev = i > 0 ? old.steps[i - 1].state : step.state;
    const view = Object.entries(step.state).map(([field, list]) => {
      const was = prev[field];
      const marks = list.map((entry, j) => (j >= was.length ? '+' : JSON.stringify(was[j]) === JSON.stringify(entry) ? '.' : '~'));
      const gone = was.slice(list.length);
      return { field, entries: [...list, ...gone].map((v) => value(v)), changes: marks.join('') + '-'.repeat(gone.length) };
    });
    const out = {
      event: step.event,
      frames,
      scope: scope(step.locals.map((l) => binding({ name: l.name, type: l.type }))),
      values: step.locals.map((l) => (l.moved ? null : value(l.value))),
      changes,
      host: host(view),
    };
    if (before !== -1) out.ran = old.steps[before].line;
    if (step.outputLines) out.outputLines = step.outputLines;
    if (step.event === 'return') out.value = value(step.value);
    if (step.event === 'error') out.error = step.error;
    return out;
  });
  return {
    figure: old.figure,
    scenario: old.scenario,
    ran: !(old.steps.length === 0 && !old.result.ok),
    data: old.input,
    values,
    bindings,
    scopes,
    hosts,
    steps,
    output: old.output,
    result: old.result,
  };
}

/** The module's API with the new contract's figures and traces. */
export function upgrade(api) {
  return {
    ...api,
    figures: () => api.figures().map((f) => ({ ...f, edits: f.id === 'prepare' ? 'plan' : 'items', host: f.id === 'prepare' ? ['items', 'messages'] : ['items'] })),
    trace: (...args) => upgradeTrace(api.trace(...args)),
    traceInput: (...args) => upgradeTrace(api.traceInput(...args)),
  };
}
