// A small static file server for the lesson: 127.0.0.1 only, correct types (application/wasm), gzip where asked, no listings.
// Usage: node serve.mjs ROOT PORT  (PORT 0 picks a free port; the chosen URL is printed on stdout).
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { extname, join, normalize, resolve, sep } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
  '.py': 'text/plain; charset=utf-8',
  '.zip': 'application/zip',
  '.tar': 'application/x-tar',
};

/** Types sent gzipped to a client that accepts it: text, and the wasm module (mostly code, it shrinks to a third). */
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.wasm', '.svg', '.txt', '.ts', '.py']);
const gzipped = promisify(gzip);

/** Whether an Accept-Encoding header admits gzip (a q=0 entry refuses it). @param {string | undefined} header */
function acceptsGzip(header = '') {
  return header.split(',').some((part) => {
    const [coding, ...params] = part.trim().split(';').map((s) => s.trim());
    return (coding === 'gzip' || coding === '*') && !params.some((p) => /^q=0(\.0*)?$/.test(p));
  });
}

/** Gzipped files by path, kept while the file's size and mtime stay the same: each is compressed once, not per request. */
const cache = new Map();
async function gzipOf(/** @type {string} */ file, /** @type {Buffer} */ body) {
  const { size, mtimeMs } = await stat(file);
  const key = `${size}:${mtimeMs}`;
  const hit = cache.get(file);
  if (hit?.key === key) return hit.body;
  const zipped = await gzipped(body);
  cache.set(file, { key, body: zipped });
  return zipped;
}

/** Serves `root`; `headers` are added to every file's response (a test's Content-Security-Policy, say). */
export function startServer(root, port = 0, headers = {}) {
  const base = resolve(root);
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
      let file = normalize(join(base, path));
      if (file !== base && !file.startsWith(base + sep)) {
        res.writeHead(403).end('forbidden');
        return;
      }
      if (path.endsWith('/')) file = join(file, 'index.html');
      let body = await readFile(file);
      const compressible = COMPRESSIBLE.has(extname(file));
      const zip = compressible && acceptsGzip(req.headers['accept-encoding']);
      if (zip) body = await gzipOf(file, body);
      res.writeHead(200, {
        'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
        'Content-Length': body.length,
        'Cache-Control': 'no-cache',
        // A cache between must not give the gzipped body to a client that did not ask for it, nor the reverse.
        ...(compressible ? { Vary: 'Accept-Encoding' } : {}),
        ...(zip ? { 'Content-Encoding': 'gzip' } : {}),
        ...headers,
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found');
    }
  });
  return new Promise((done) => {
    server.listen(port, '127.0.0.1', () => done(server));
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [root = 'www', port = '8000'] = process.argv.slice(2);
  const server = await startServer(root, Number(port));
  console.log(`http://127.0.0.1:${server.address().port}/`);
}
