// What the page benchmarks share (bench/page.mjs times analyses, bench/profile-worker.mjs
// profiles them): serving the built page, starting Debian's Chromium, and waiting until the page
// has warmed its worker as a user would, before a file is chosen.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

export const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(`${root}/package.json`);
const { chromium } = require('playwright-core');

/**
 * Serves `dist` on 127.0.0.1:`port` (scripts/serve.mjs, with `extraArgs` such as
 * '--cross-origin-isolated') and waits until it answers.
 */
export async function serveDist(dist, port, extraArgs = []) {
  const server = spawn(
    process.execPath,
    [`${root}/scripts/serve.mjs`, '--root', dist, '--host', '127.0.0.1', '--port', String(port), '--quiet', ...extraArgs],
    { stdio: 'ignore' },
  );
  const base = `http://127.0.0.1:${port}/`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(base)).ok) break;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { base, server };
}

/**
 * Headless Chromium (PRV_CHROMIUM, default /usr/bin/chromium) with a user-data-dir of our
 * choosing (which finds the browser's processes), plus `extraArgs` and, for experiments,
 * PRV_BENCH_CHROMIUM_ARGS (e.g. '--js-flags=--no-liftoff').
 */
export function launchChromium(userDataDir, extraArgs = []) {
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.PRV_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--disable-dev-shm-usage',
      ...extraArgs,
      ...(process.env.PRV_BENCH_CHROMIUM_ARGS ?? '').split(' ').filter(Boolean),
    ],
  });
}

/**
 * Waits as a user picking a file would. The page starts its worker when it loads and warms it on
 * its bundled example (data-worker on <html>: starting, warming, warm); this waits for that, then
 * a moment more (PRV_BENCH_PICK_MS, default 1000 ms: a user needs longer than that to pick a
 * file, and V8 finishes compiling the functions the warm-up made hot meanwhile). A page without
 * it (older builds) gets 300 ms for its worker to start. Returns the worker's state (`warm` or
 * `failed`), or null for such a page.
 */
export async function waitLikeAUser(page) {
  const state = await page
    .waitForFunction(() => ['warm', 'failed'].includes(document.documentElement.dataset.worker), null, {
      timeout: 30_000,
      polling: 50,
    })
    .then(() => page.evaluate(() => document.documentElement.dataset.worker))
    .catch(() => null);
  await page.waitForTimeout(state ? Number(process.env.PRV_BENCH_PICK_MS ?? 1000) : 300);
  return state;
}

/**
 * Starts the V8 sampling profiler in every worker of the Chromium listening on `debugPort`
 * (`--remote-debugging-port`), over the DevTools protocol (Target.attachToTarget with flat
 * sessions; playwright-core's bundled WebSocket client). `interval` is the µs between samples.
 * Returns the workers (url) and `stop()`, which stops them, closes the connection and gives
 * each worker's profile.
 */
export async function profileWorkers(debugPort, interval = 200) {
  // playwright-core bundles a WebSocket client; Node 20 has none of its own.
  const { ws: WebSocket } = require(`${root}/node_modules/playwright-core/lib/utilsBundle.js`);
  const version = await (await fetch(`http://127.0.0.1:${debugPort}/json/version`)).json();
  const socket = new WebSocket(version.webSocketDebuggerUrl, { perMessageDeflate: false });
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
    workers.push({ url: t.url, sessionId });
  }
  return {
    workers: workers.map((w) => ({ url: w.url })),
    async stop() {
      const profiles = [];
      for (const w of workers) {
        const stopped = await send('Profiler.stop', {}, w.sessionId);
        profiles.push({ url: w.url, profile: stopped.result?.profile ?? null });
      }
      socket.close();
      return profiles;
    },
  };
}

/**
 * Self time per function of a V8 CPU profile, in ms, busiest first; `busy` leaves out idle time
 * (a wasm thread blocked in Atomics.wait is not idle: it shows as the function that waits).
 */
export function selfTimes(profile) {
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
