// Loads Pyodide from local files, runs the Python lesson, and hands its tracers to the benchmark.
import { loadPyodide } from './pyodide/pyodide.mjs';

// Fetched while the interpreter starts, as a careful author would.
const lessonSource = fetch(new URL('./python/lesson.py', import.meta.url)).then((r) => r.text());
const pyodide = await loadPyodide({ indexURL: new URL('./pyodide/', import.meta.url).href });
const lesson = pyodide.globals.get('dict')();
pyodide.runPython(await lessonSource, { globals: lesson, filename: 'lesson.py' });

const traceJson = lesson.get('trace_json');
const traceCheapJson = lesson.get('trace_cheap_json');
// JSON text is the cheapest way to get a whole trace out of Python as plain JS objects.
window.benchFns = {
  // The peer of the lesson page: a trace like the module's (stack, events, output, values as data).
  trace: (figure, scenario, lang) => JSON.parse(traceJson(figure, scenario, lang)),
  // The cheapest trace Python can make: per line, repr() of the locals and json.dumps of the host state.
  cheap: (figure, scenario, lang) => JSON.parse(traceCheapJson(figure, scenario, lang)),
};
window.benchScenarios = () => lesson.get('scenario_ids')().toJs();

// Ready: Python can run the lesson. The benchmark's probe watches for this attribute on the bench pages.
document.documentElement.dataset.benchReady = '';
