#!/usr/bin/env node
// Page benchmark: drives the built page (dist/) in Debian's Chromium with playwright-core and
// reports, per zip, the analysis time from the page's own performance marks and the peak memory
// of the renderer process (the page and its worker: JS heaps, wasm memory, Blob reads).
//
//   node bench/page.mjs [--runs 3] [--out bench/out/page.json] [--dist dist] a.zip b.zip ...
//
// The page contract used (design.md "CONTRACT: the page"): input[data-testid=artifact-input]
// takes the zip; [data-testid=verdict][data-verdict] appears when the analysis is done. Timing
// comes from performance.getEntriesByType('measure') on the page: the first measure whose name
// starts with "prv" and contains "analy" (e.g. "prv:analysis", from choosing the file to the
// verdict). If the page records no such measure, the harness's own marks are used: the time from
// the page's request to its analysis worker to the worker's "done" reply (the worker reads the
// Blob, runs the core and serializes the report), flagged as such; failing that, the time from
// setInputFiles to the verdict on the page's clock ("wall"). wallMs (input -> verdict shown,
// which includes rendering the report) is always recorded.
// Each run uses a fresh browser, so the renderer's peak RSS (VmHWM) belongs to that run alone.
import { spawn } from 'node:child_process';
import { readFileSync, existsSync, writeFileSync, readdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { resolve, basename } from 'node:path';
import { createRequire } from 'node:module';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(`${root}/package.json`);
const { chromium } = require('playwright-core');

const argv = process.argv.slice(2);
let runs = 3;
let out = null;
let timeoutMs = 600_000;
let distArg = process.env.PRV_BENCH_DIST ? resolve(process.env.PRV_BENCH_DIST) : null;
const zips = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--runs') runs = Number(argv[++i]);
  else if (argv[i] === '--out') out = argv[++i];
  else if (argv[i] === '--timeout') timeoutMs = Number(argv[++i]) * 1000;
  else if (argv[i] === '--dist') distArg = resolve(argv[++i]);
  else zips.push(resolve(argv[i]));
}

const dist = distArg ?? `${root}/dist`;
function fail(reason) {
  const result = { ready: false, reason, results: {} };
  if (out) writeFileSync(out, JSON.stringify(result, null, 2));
  console.log(JSON.stringify(result));
  process.exit(0);
}
if (!existsSync(`${dist}/index.html`)) fail('dist/index.html missing (run make dist)');

const port = 18000 + (process.pid % 1000);
const server = spawn(
  process.execPath,
  [`${root}/scripts/serve.mjs`, '--root', dist, '--host', '127.0.0.1', '--port', String(port), '--quiet'],
  { stdio: 'ignore' },
);
const base = `http://127.0.0.1:${port}/`;
for (let i = 0; i < 100; i++) {
  try {
    const r = await fetch(base);
    if (r.ok) break;
  } catch {
    /* not up yet */
  }
  await new Promise((r) => setTimeout(r, 100));
}

// The browser process started with `--user-data-dir=<dir>`.
function browserPid(dir) {
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
      if (cmd.includes(`--user-data-dir=${dir}`) && !cmd.some((a) => a.startsWith('--type='))) return Number(p);
    } catch {
      /* gone */
    }
  }
  return null;
}

// Peak RSS (VmHWM, KiB) of the renderer processes below `pid` (or their current RSS).
function rendererPeakKiB(pid, field = 'VmHWM') {
  let peak = 0;
  const kids = (p) => {
    try {
      return readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    } catch {
      return [];
    }
  };
  const stack = [String(pid)];
  while (stack.length) {
    const p = stack.pop();
    for (const k of kids(p)) stack.push(k);
    try {
      const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8');
      if (!cmd.includes('--type=renderer')) continue;
      const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      if (m) peak = Math.max(peak, Number(m[1]));
    } catch {
      /* gone */
    }
  }
  return peak;
}

async function runOnce(zip) {
  // A persistent context has a user-data-dir of our choosing: it finds the browser's processes.
  const dir = mkdtempSync(`${tmpdir()}/prv-page-bench-`);
  const browser = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.PRV_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
  // Harness marks (not the page's own): when the page posts its request to the analysis worker
  // and when each kind of reply arrives. request -> done is the worker's whole analysis (reading
  // the Blob, the core, serializing the report), without the page's rendering of the report.
  await browser.addInitScript(() => {
    const W = window.Worker;
    window.Worker = class extends W {
      constructor(...args) {
        super(...args);
        const seen = new Set();
        this.addEventListener('message', (e) => {
          const head = typeof e.data === 'string' ? e.data.slice(0, 64) : '';
          const kind = (/"type"\s*:\s*"(\w+)"/.exec(head) || [])[1] || 'other';
          if (kind === 'progress' || !seen.has(kind)) performance.mark(`prv-bench:worker:${kind}`);
          seen.add(kind);
        });
      }
      postMessage(...args) {
        performance.mark('prv-bench:request');
        return super.postMessage(...args);
      }
    };
  });
  try {
    const page = await browser.newPage();
    await page.goto(base);
    const input = page.locator('input[type=file][data-testid=artifact-input]');
    await input.waitFor({ state: 'attached', timeout: 60_000 });
    // let the worker start (the page may show the input before its worker is ready)
    await page.waitForTimeout(300);
    const pid = browserPid(dir);
    const baselineKiB = pid ? rendererPeakKiB(pid, 'VmRSS') : 0;
    // the renderer's RSS every 50 ms, to tell the analysis's peak (up to the worker's "done")
    // from the peak of rendering the report afterwards
    const rss = [];
    const sampler = setInterval(() => {
      if (pid) rss.push([Date.now(), rendererPeakKiB(pid, 'VmRSS')]);
    }, 50);
    const t0 = await page.evaluate(() => performance.now());
    await input.setInputFiles(zip);
    await page.locator('[data-testid=verdict][data-verdict]').waitFor({ timeout: timeoutMs });
    const t1 = await page.evaluate(() => performance.now());
    const verdict = await page.locator('[data-testid=verdict]').getAttribute('data-verdict');
    const measures = await page.evaluate(() =>
      performance.getEntriesByType('measure').map((m) => ({ name: m.name, duration: m.duration })),
    );
    const marks = await page.evaluate(() =>
      performance.getEntriesByType('mark').map((m) => ({ name: m.name, startTime: m.startTime })),
    );
    const heap = await page.evaluate(() => (performance.memory ? performance.memory.usedJSHeapSize : null));
    clearInterval(sampler);
    const peakKiB = pid ? rendererPeakKiB(pid) : 0;
    const origin = await page.evaluate(() => performance.timeOrigin);
    const own = measures.find((m) => m.name.startsWith('prv:') && /analy/i.test(m.name));
    const last = (name) => marks.filter((m) => m.name === name).map((m) => m.startTime).pop();
    const request = last('prv-bench:request');
    const done = last('prv-bench:worker:done');
    const workerMs = request !== undefined && done !== undefined && done > request ? done - request : null;
    const doneEpoch = done !== undefined ? origin + done : Infinity;
    const analysisPeakKiB = Math.max(0, ...rss.filter(([t]) => t <= doneEpoch).map(([, k]) => k));
    return {
      verdict,
      ms: own ? own.duration : workerMs ?? t1 - t0,
      source: own ? `measure ${own.name}` : workerMs !== null ? 'harness marks: request -> done' : 'wall',
      workerMs,
      wallMs: t1 - t0,
      measures,
      marks,
      pageJsHeapBytes: heap,
      rendererPeakBytes: peakKiB * 1024,
      rendererBaselineBytes: baselineKiB * 1024,
      analysisPeakBytes: analysisPeakKiB * 1024,
    };
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : null;
};

const results = {};
let hadMeasure = false;
try {
  for (const zip of zips) {
    const samples = [];
    for (let r = 0; r < runs; r++) {
      const s = await runOnce(zip);
      samples.push(s);
      hadMeasure ||= s.source !== 'wall';
      process.stderr.write(`  page ${basename(zip)} run ${r + 1}: ${s.ms.toFixed(0)} ms (${s.source}), renderer peak ${(s.rendererPeakBytes / 2 ** 20).toFixed(0)} MiB (${(s.rendererBaselineBytes / 2 ** 20).toFixed(0)} MiB before the file, ${(s.analysisPeakBytes / 2 ** 20).toFixed(0)} MiB until the worker is done), ${s.verdict}\n`);
    }
    results[basename(zip)] = {
      medianMs: median(samples.map((s) => s.ms)),
      wallMedianMs: median(samples.map((s) => s.wallMs)),
      source: samples[0]?.source,
      peakBytes: Math.max(...samples.map((s) => s.rendererPeakBytes)),
      baselineBytes: Math.min(...samples.map((s) => s.rendererBaselineBytes)),
      analysisPeakBytes: Math.max(...samples.map((s) => s.analysisPeakBytes)),
      verdict: samples[0]?.verdict,
      samples,
    };
  }
} catch (e) {
  server.kill();
  fail(`page run failed: ${e.message.split('\n')[0]}`);
}
server.kill();
const result = { ready: true, marks: hadMeasure, results };
if (out) writeFileSync(out, JSON.stringify(result, null, 2));
console.log(JSON.stringify({ ready: true, marks: hadMeasure, inputs: Object.keys(results) }));
