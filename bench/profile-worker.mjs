#!/usr/bin/env node
// CPU profile of the page's analysis worker during one analysis, in Debian's Chromium: where the
// page's time goes, by wasm function (names from the wasm name section).
//
//   node bench/profile-worker.mjs [--dist dist] [--out prefix] [--top 30] [--interval 200] a.zip
//
// It loads the built page (dist/), waits until the page has started and warmed its worker and a
// user's moment more (bench/harness.mjs, as bench/page.mjs does), attaches to every worker over the
// Chrome DevTools Protocol (Target.attachToTarget, flat sessions) and samples them with the V8
// profiler (Profiler.start, --interval µs between samples) while the page analyses the zip. It
// prints each worker's busy time and its functions by self time, and with --out writes each
// profile as <prefix>.<n>.cpuprofile (Chrome DevTools and speedscope open them).
//
// Sampling costs time (an analysis takes ~1.3-1.5x as long while profiled): compare functions
// within a profile, and time analyses with bench/page.mjs, not with this.
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { createRequire } from 'node:module';
import { root, serveDist, launchChromium, waitLikeAUser } from './harness.mjs';

const require = createRequire(`${root}/package.json`);
// playwright-core bundles a WebSocket client; Node 20 has none of its own.
const { ws: WebSocket } = require(`${root}/node_modules/playwright-core/lib/utilsBundle.js`);

const argv = process.argv.slice(2);
let dist = process.env.PRV_BENCH_DIST ? resolve(process.env.PRV_BENCH_DIST) : `${root}/dist`;
let out = null;
let top = 30;
let interval = 200;
let zip = null;
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--dist') dist = resolve(argv[++i]);
  else if (argv[i] === '--out') out = argv[++i];
  else if (argv[i] === '--top') top = Number(argv[++i]);
  else if (argv[i] === '--interval') interval = Number(argv[++i]);
  else zip = resolve(argv[i]);
}
if (!zip) {
  console.error('usage: node bench/profile-worker.mjs [--dist dist] [--out prefix] [--top 30] [--interval 200] a.zip');
  process.exit(2);
}
if (!existsSync(`${dist}/index.html`)) {
  console.error(`${dist}/index.html missing (run make dist)`);
  process.exit(2);
}

const debugPort = 20000 + (process.pid % 1000);
const { base, server } = await serveDist(dist, 19000 + (process.pid % 1000));

// Self time per function of a V8 CPU profile, busiest first (idle and the profiler left out).
function selfTimes(profile) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  let total = 0;
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const frame = nodes.get(id).callFrame;
    const name = frame.functionName || `(anonymous ${frame.url.split('/').pop()})`;
    total += dt;
    if (name === '(idle)') return;
    busy += dt;
    self.set(name, (self.get(name) ?? 0) + dt);
  });
  return { total, busy, functions: [...self.entries()].sort((a, b) => b[1] - a[1]) };
}

const dir = mkdtempSync(`${tmpdir()}/prv-profile-`);
const browser = await launchChromium(dir, [`--remote-debugging-port=${debugPort}`]);
let socket = null;
try {
  const page = await browser.newPage();
  await page.goto(base);
  await waitLikeAUser(page);

  const version = await (await fetch(`http://127.0.0.1:${debugPort}/json/version`)).json();
  socket = new WebSocket(version.webSocketDebuggerUrl, { perMessageDeflate: false });
  await new Promise((r, j) => {
    socket.on('open', r);
    socket.on('error', j);
  });
  let nextId = 0;
  const pending = new Map();
  socket.on('message', (raw) => {
    const m = JSON.parse(raw);
    if (m.id && pending.has(m.id)) {
      pending.get(m.id)(m);
      pending.delete(m.id);
    }
  });
  const send = (method, params = {}, sessionId) =>
    new Promise((r) => {
      const id = ++nextId;
      pending.set(id, r);
      socket.send(JSON.stringify({ id, method, params, sessionId }));
    });

  const { targetInfos } = (await send('Target.getTargets')).result;
  const workers = [];
  for (const t of targetInfos.filter((t) => t.type === 'worker')) {
    const { sessionId } = (await send('Target.attachToTarget', { targetId: t.targetId, flatten: true })).result;
    await send('Profiler.enable', {}, sessionId);
    await send('Profiler.setSamplingInterval', { interval }, sessionId);
    await send('Profiler.start', {}, sessionId);
    const role = t.url.endsWith('#prv-reader') ? 'reader worker' : 'analysis worker';
    workers.push({ role, sessionId });
  }
  const t0 = await page.evaluate(() => performance.now());
  await page.locator('input[type=file][data-testid=artifact-input]').setInputFiles(zip);
  await page.locator('[data-testid=verdict][data-verdict]').waitFor({ timeout: 600_000 });
  const t1 = await page.evaluate(() => performance.now());
  console.log(`${zip.split('/').pop()}: file chosen -> verdict on screen ${(t1 - t0).toFixed(0)} ms (profiled)`);
  for (const [n, w] of workers.entries()) {
    const stopped = await send('Profiler.stop', {}, w.sessionId);
    if (!stopped.result) continue;
    const { profile } = stopped.result;
    if (out) writeFileSync(`${out}.${n}.cpuprofile`, JSON.stringify(profile));
    const { total, busy, functions } = selfTimes(profile);
    console.log(`\n${w.role}: busy ${busy.toFixed(0)} of ${total.toFixed(0)} ms profiled`);
    for (const [name, ms] of functions.slice(0, top)) {
      console.log(`${ms.toFixed(1).padStart(9)} ms ${((100 * ms) / busy).toFixed(1).padStart(5)}%  ${name}`);
    }
  }
} finally {
  socket?.close();
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
  server.kill();
}
