// Minimal page: load the module, show each figure's listing and its default trace.
import init, { figures, scenarios, source, trace } from './pkg/todo_trace.js';

const app = document.getElementById('app');
await init();
app.replaceChildren();
for (const figure of figures()) {
  const section = document.createElement('section');
  section.dataset.figure = figure.id;
  const title = document.createElement('h2');
  title.textContent = `${figure.symbol} (${figure.file})`;
  const code = document.createElement('pre');
  code.textContent = source(figure.symbol).lines.map((l) => `${String(l.no).padStart(4)}  ${l.text}`).join('\n');
  const scenario = scenarios(figure.id, 'zh').find((s) => s.isDefault);
  const result = trace(figure.id, scenario.id, 'zh');
  const out = document.createElement('pre');
  out.textContent = `${result.steps.length} steps\n${result.output.join('\n')}`;
  section.append(title, code, out);
  app.append(section);
}
