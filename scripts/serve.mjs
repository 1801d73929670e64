#!/usr/bin/env node
// A small static file server for dist/: `make serve` and the Playwright tests use it.
//
//   node scripts/serve.mjs [--root dist] [--host 127.0.0.1] [--port 8080] [--base /sub/path/]
//                          [--cross-origin-isolated] [--quiet]
//
// --base mounts the site under a sub-path (the page must work from any sub-path of any static
// host). Only GET and HEAD; only files inside --root; .wasm as application/wasm; no caching.
// --cross-origin-isolated sends COOP/COEP (same-origin, require-corp), which shared wasm memory
// needs (bench/core-wasm.mjs --threads; the page does not use it).
import { createServer } from 'node:http';
import { stat, readFile } from 'node:fs/promises';
import { resolve, join, extname, sep } from 'node:path';

const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, arg, i, all) => {
    if (arg.startsWith('--')) pairs.push([arg.slice(2), all[i + 1]]);
    return pairs;
  }, []),
);
const root = resolve(args.root ?? 'dist');
const host = args.host ?? '127.0.0.1';
const port = Number(args.port ?? 8080);
let base = args.base ?? '/';
if (!base.startsWith('/')) base = `/${base}`;
if (!base.endsWith('/')) base = `${base}/`;
const quiet = 'quiet' in args;
const isolation = 'cross-origin-isolated' in args
  ? { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' }
  : {};

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json',
};

const server = createServer(async (req, res) => {
  const send = (status, body, type = 'text/plain; charset=utf-8') => {
    res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...isolation });
    res.end(req.method === 'HEAD' ? undefined : body);
    if (!quiet) console.log(`${status} ${req.method} ${req.url}`);
  };
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'method not allowed\n');
  let path;
  try {
    path = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
  } catch {
    return send(400, 'bad request\n');
  }
  if (path === base.slice(0, -1)) {
    res.writeHead(301, { location: base });
    return res.end();
  }
  if (!path.startsWith(base)) return send(404, 'not found\n');
  let file = join(root, path.slice(base.length));
  if (file !== root && !file.startsWith(root + sep)) return send(403, 'forbidden\n');
  try {
    if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
    const body = await readFile(file);
    send(200, body, TYPES[extname(file)] ?? 'application/octet-stream');
  } catch {
    send(404, 'not found\n');
  }
});

server.listen(port, host, () => {
  const { port: actual } = server.address();
  console.log(`Serving ${root} at http://${host}:${actual}${base}`);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));
