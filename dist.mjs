// Writes dist/todo-trace/, the folder an author copies (issue 14), from www/ and the built module in www/pkg/.
// Usage: node dist.mjs  (./build.sh dist runs it after building, then prints the folder's size).
//
// esbuild bundles the element with every module it imports, minified. What the element imports later (the glue, each
// language's words, the highlighter) stays a file of its own at its place under www/ (outbase), so a page fetches only
// its language's words and the glue finds the wasm beside itself (import.meta.url), as in www/pkg/.
//
// The module's imports and exports are renamed to short names (wasm-opt), and the glue's references to them with
// them: wasm-bindgen names each import with a hash (`__wbg_isArray_bcf1376d0d732d08`), which gzip cannot shorten.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';

const PKG = 'www/pkg';
const OUT = 'dist/todo-trace';
/** The module name wasm-bindgen's glue gives the imports it provides. */
const GLUE_MODULE = './todo_trace_bg.js';

rmSync('dist', { recursive: true, force: true });
mkdirSync(`${OUT}/pkg`, { recursive: true });

// wasm-opt prints what it renamed as JSON: {imports: [[module, name, new name]], exports: [[name, new name]]}.
// With the names short, one more -Oz still saves 0.3 KB gzip (measured 2026-12-04).
const wasm = `${OUT}/pkg/todo_trace_bg.wasm`;
const printed = execFileSync(
  'node_modules/.bin/wasm-opt',
  [`${PKG}/todo_trace_bg.wasm`, '--minify-imports-and-exports-and-modules', '-Oz', '--strip-target-features', '-o', wasm],
  { encoding: 'utf8' },
);
/** @type {{imports: [string, string, string][], exports: [string, string][]}} */
let renamed;
try {
  renamed = JSON.parse(printed);
} catch {
  throw new Error(`wasm-opt did not print its renaming as JSON; it printed: ${printed.slice(0, 200)}`);
}
// The new module name is not printed; every import has the same one, which the module itself lists.
const modules = new Set(WebAssembly.Module.imports(new WebAssembly.Module(readFileSync(wasm))).map((i) => i.module));
if (modules.size !== 1) throw new Error(`expected the imports to share one module name, found ${[...modules]}`);
const [moduleName] = modules;

const glue = shortNames(readFileSync(`${PKG}/todo_trace.js`, 'utf8'), renamed, moduleName);

/** The glue with every name the module now has in place of the old one; throws if the glue is not as expected. */
function shortNames(text, { imports, exports }, moduleName) {
  for (const [from, name, to] of imports) {
    if (from !== GLUE_MODULE) throw new Error(`an import from ${from}, not from the glue`);
    // Each import is a method of the glue's import object, one per line.
    text = once(text, `\n        ${name}: function(`, `\n        ${JSON.stringify(to)}: function(`);
  }
  text = once(text, `${JSON.stringify(GLUE_MODULE)}: import0`, `${JSON.stringify(moduleName)}: import0`);
  const exported = new Map(exports);
  return text.replace(/\bwasm\.(\w+)/g, (_, name) => {
    const to = exported.get(name);
    if (to === undefined) throw new Error(`the glue uses wasm.${name}, which the module does not export`);
    return `wasm[${JSON.stringify(to)}]`;
  });
}

/** `text` with `find`, which must occur exactly once, replaced by `put`. */
function once(text, find, put) {
  const parts = text.split(find);
  if (parts.length !== 2) throw new Error(`expected ${JSON.stringify(find)} once in the glue, found it ${parts.length - 1} times`);
  return parts.join(put);
}

let glueLoaded = false;
await build({
  entryPoints: ['www/embed.js', 'www/code.js', 'www/text-zh.js', 'www/text-en.js', `${PKG}/todo_trace.js`, 'www/style.css'],
  bundle: true,
  splitting: true,
  minify: true,
  // The Chinese words as they are: escaped as \uXXXX, text-zh.js was 0.4 KB larger gzip.
  charset: 'utf8',
  format: 'esm',
  outbase: 'www',
  outdir: OUT,
  logLevel: 'warning',
  plugins: [
    {
      name: 'short-names',
      setup(b) {
        b.onLoad({ filter: /[\\/]www[\\/]pkg[\\/]todo_trace\.js$/ }, () => {
          glueLoaded = true;
          return { contents: glue, loader: 'js', resolveDir: resolve(PKG) };
        });
      },
    },
  ],
});
// Without the renamed glue, the renamed module would not load.
if (!glueLoaded) throw new Error(`esbuild did not load ${PKG}/todo_trace.js through the short-names plugin`);
copyFileSync('example/example.html', 'dist/example.html');
