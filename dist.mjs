// Writes dist/todo-trace/, the folder an author copies, from www/ and the built modules in www/pkg/ and www/pkg-plan/.
// Usage: node dist.mjs  (./build.sh dist runs it after building, then prints the folder's size).
//
// esbuild bundles the element with every module it imports, minified. What the element imports later (the JS API with
// value.js, each language's words, the highlighter) stays a file of its own at its place under www/ (outbase), so a page
// fetches only its language's words. The wasm-bindgen glue is not bundled: it is copied beside the wasm as wasm-bindgen
// wrote it, so that it finds the wasm beside itself (import.meta.url), as in www/pkg/.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';

const OUT = 'dist/todo-trace';

rmSync('dist', { recursive: true, force: true });
// The whole module and the plan module (figures 1–3), each in its folder.
for (const pkg of ['pkg', 'pkg-plan']) {
  mkdirSync(`${OUT}/${pkg}`, { recursive: true });
  copyFileSync(`www/${pkg}/todo_trace_bg.wasm`, `${OUT}/${pkg}/todo_trace_bg.wasm`);
  copyFileSync(`www/${pkg}/todo_trace.js`, `${OUT}/${pkg}/todo_trace.js`);
}

await build({
  entryPoints: ['www/embed.js', 'www/api.js', 'www/code.js', 'www/text-zh.js', 'www/text-en.js', 'www/style.css'],
  // api.js imports the glue by these paths, which is where it is copied.
  external: ['./pkg/todo_trace.js', './pkg-plan/todo_trace.js'],
  bundle: true,
  splitting: true,
  minify: true,
  // The Chinese words as they are, not as \uXXXX escapes.
  charset: 'utf8',
  format: 'esm',
  outbase: 'www',
  outdir: OUT,
  logLevel: 'warning',
});
copyFileSync('example/example.html', 'dist/example.html');
