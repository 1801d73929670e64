#!/usr/bin/env node
// CPU profiles of the core alone as wasm (bench/core-wasm) during one first analysis in Chromium,
// one per worker: the analysis worker and, with --threads N, its N-1 pool workers running the
// CLI's helper threads on shared memory. Where that build's time goes, next to the same build on
// one thread (--threads 1 --mt). Needs the builds bench/core-wasm.mjs makes (run it once with
// --threads first); the zip is served as z0.zip beside them.
//
//   node bench/profile-core-wasm.mjs [--threads 2] [--mt] [--top 25] [--interval 200] a.zip
//
// Sampling slows the analysis: compare functions within a profile. A thread blocked in
// Atomics.wait (a pool worker between jobs, the analysis waiting for a helper) shows as busy in
// the function that waits (std's Condvar::wait).
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { root, serveDist, launchChromium, profileWorkers, selfTimes } from './harness.mjs';

const argv = process.argv.slice(2);
let threads = 2;
let mt = false;
let top = 25;
let interval = 200;
let zip = null;
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--threads') threads = Number(argv[++i]);
  else if (argv[i] === '--mt') mt = true;
  else if (argv[i] === '--top') top = Number(argv[++i]);
  else if (argv[i] === '--interval') interval = Number(argv[++i]);
  else zip = resolve(argv[i]);
}
const www = `${root}/bench/out/core-wasm/www`;
if (!zip || !existsSync(`${www}/mt/worker.js`)) {
  console.error('usage: node bench/profile-core-wasm.mjs [--threads 2] [--mt] [--top 25] [--interval 200] a.zip');
  console.error(`(needs ${www}/mt: run node bench/core-wasm.mjs --threads 2 on any zip first)`);
  process.exit(2);
}
rmSync(`${www}/z0.zip`, { force: true });
symlinkSync(zip, `${www}/z0.zip`);

const debugPort = 20500 + (process.pid % 400);
const { base, server } = await serveDist(www, 19500 + (process.pid % 400), ['--cross-origin-isolated']);
const dir = mkdtempSync(`${tmpdir()}/prv-profile-core-`);
const browser = await launchChromium(dir, [`--remote-debugging-port=${debugPort}`]);
let profiler = null;
try {
  const page = await browser.newPage();
  // a long pause after the warm-up: the profilers start in it, once the pool workers exist
  await page.goto(`${base}index.html?zip=z0.zip&threads=${threads}${mt ? '&mt=1' : ''}&pause=4000&repeat=1`);
  await page.waitForTimeout(2500);
  profiler = await profileWorkers(debugPort, interval);
  const result = await page
    .waitForFunction(() => window.prvResult, null, { timeout: 300_000, polling: 100 })
    .then((h) => h.jsonValue());
  if (result.error) throw new Error(result.error);
  const run = result.runs[0];
  console.log(`${zip.split('/').pop()}, ${threads} thread(s)${mt || threads > 1 ? ', shared-memory build' : ''}: ${run.ms.toFixed(0)} ms (profiled)${run.takenFromHelpers !== undefined ? `, ${run.takenFromHelpers} files from helpers` : ''}`);
  const profiles = await profiler.stop();
  profiler = null;
  for (const { url, profile } of profiles) {
    if (!profile) continue;
    const { total, busy, functions } = selfTimes(profile);
    console.log(`\n${url.split('/').slice(-2).join('/')}: busy ${busy.toFixed(0)} of ${total.toFixed(0)} ms profiled`);
    for (const [name, ms] of functions.slice(0, top)) {
      console.log(`${ms.toFixed(1).padStart(9)} ms ${((100 * ms) / busy).toFixed(1).padStart(5)}%  ${name.slice(0, 120)}`);
    }
  }
} finally {
  await profiler?.stop();
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
  server.kill();
}
