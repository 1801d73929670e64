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
