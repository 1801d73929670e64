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
import { root, serveDist, launchChromium, waitLikeAUser, profileWorkers, selfTimes } from './harness.mjs';

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

const dir = mkdtempSync(`${tmpdir()}/prv-profile-`);
const browser = await launchChromium(dir, [`--remote-debugging-port=${debugPort}`]);
let profiler = null;
try {
  const page = await browser.newPage();
  await page.goto(base);
  await waitLikeAUser(page);

  profiler = await profileWorkers(debugPort, interval);
  const t0 = await page.evaluate(() => performance.now());
  await page.locator('input[type=file][data-testid=artifact-input]').setInputFiles(zip);
  await page.locator('[data-testid=verdict][data-verdict]').waitFor({ timeout: 600_000 });
  const t1 = await page.evaluate(() => performance.now());
  console.log(`${zip.split('/').pop()}: file chosen -> verdict on screen ${(t1 - t0).toFixed(0)} ms (profiled)`);
  const profiles = await profiler.stop();
  profiler = null;
  for (const [n, { url, profile }] of profiles.entries()) {
    if (!profile) continue;
    if (out) writeFileSync(`${out}.${n}.cpuprofile`, JSON.stringify(profile));
    const { total, busy, functions } = selfTimes(profile);
    const role = url.endsWith('#prv-reader') ? 'reader worker' : 'analysis worker';
    console.log(`\n${role}: busy ${busy.toFixed(0)} of ${total.toFixed(0)} ms profiled`);
    for (const [name, ms] of functions.slice(0, top)) {
      console.log(`${ms.toFixed(1).padStart(9)} ms ${((100 * ms) / busy).toFixed(1).padStart(5)}%  ${name}`);
    }
  }
} finally {
  await profiler?.stop();
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
  server.kill();
}
