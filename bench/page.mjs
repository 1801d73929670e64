#!/usr/bin/env node
// Page benchmark: drives the built page (dist/) in Debian's Chromium with playwright-core and
// reports, per zip, the analysis time from the page's own performance marks and the peak memory
// of the renderer process (the page and its worker: JS heaps, wasm memory, Blob reads).
//
//   node bench/page.mjs [--runs 3] [--out bench/out/page.json] [--dist dist] a.zip b.zip ...
//
// The page contract used (design.md "CONTRACT: the page"): input[data-testid=artifact-input]
// takes the zip; [data-testid=verdict][data-verdict] appears when the analysis is done.
// Times per run (harness marks around the worker, set by an init script wrapping Worker):
//   ms         the analysis: the page's request to its worker -> the worker's "done" reply (the
//              worker reads the Blob, runs the core, renders the report as JSON and Markdown);
//              without starting the worker and without rendering. Falls back to the page's own
//              measure "prv:analysis", then to input -> verdict on the page's clock ("wall");
//   startupMs  file chosen -> the worker's "ready": creating the worker, fetching, compiling and
//              instantiating its wasm (the fixed cost of every analysis); for a page that starts
//              its worker when it loads (data-worker on <html>), page load -> ready, and the
//              harness waits for data-worker=warm (the warm-up, warmMs) before choosing the file;
//   ownMs      the page's own measure prv:analysis (file chosen -> verdict on screen);
//   wallMs     input -> verdict on screen, on the harness's clock;
//   worker     the worker's Blob reads (count, bytes, ms) and wasm memory size, from the
//              prvBlobStats() that web/src/blob.rs offers, and the split of ms into the analysis
//              (Blob opened -> last progress message) and the report (-> "done").
// --warm measures a second analysis of the same zip in the same page (after V8 has compiled
// and tiered up the worker's wasm); its memory figures include the first run.
// PRV_BENCH_CHROMIUM_ARGS adds Chromium flags (e.g. '--js-flags=--no-liftoff').
// --no-jspi takes JavaScript Promise Integration away from the analysis worker
// (tests/e2e/no-jspi.mjs, as the Playwright test of that path does): it then reads with
// FileReaderSync, without the reader worker, so the
// asynchronous reads can be measured against the synchronous ones side by side.
// Each run uses a fresh browser, so the renderer's peak RSS (VmHWM) belongs to that run alone.
import { readFileSync, existsSync, writeFileSync, readdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve, basename } from 'node:path';
import { root, serveDist, launchChromium, waitLikeAUser } from './harness.mjs';
import { withoutJspi } from '../tests/e2e/no-jspi.mjs';

const argv = process.argv.slice(2);
let runs = 3;
let out = null;
let timeoutMs = 600_000;
// --warm: analyse the zip once, then measure a second analysis of it in the same page (V8 has
// compiled the worker's wasm by then, possibly to optimized code; memory is not comparable)
let warm = false;
let noJspi = false;
let distArg = process.env.PRV_BENCH_DIST ? resolve(process.env.PRV_BENCH_DIST) : null;
const zips = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--runs') runs = Number(argv[++i]);
  else if (argv[i] === '--out') out = argv[++i];
  else if (argv[i] === '--timeout') timeoutMs = Number(argv[++i]) * 1000;
  else if (argv[i] === '--warm') warm = true;
  else if (argv[i] === '--no-jspi') noJspi = true;
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

const { base, server } = await serveDist(dist, 18000 + (process.pid % 1000));

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
  const browser = await launchChromium(dir);
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
          // replies are JSON strings, except the report: an object {type: "done", json}
          const head = typeof e.data === 'string' ? e.data.slice(0, 64) : '';
          const kind = typeof e.data === 'object' && e.data !== null && typeof e.data.type === 'string'
            ? e.data.type
            : (/"type"\s*:\s*"(\w+)"/.exec(head) || [])[1] || 'other';
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
  if (noJspi) await browser.addInitScript(withoutJspi);
  try {
    const page = await browser.newPage();
    await page.goto(base);
    const input = page.locator('input[type=file][data-testid=artifact-input]');
    await input.waitFor({ state: 'attached', timeout: 60_000 });
    // the warm-up, then a user's moment to pick a file (harness.mjs)
    const warmState = await waitLikeAUser(page);
    const preMarks = await page.evaluate(() =>
      performance.getEntriesByType('mark').map((m) => ({ name: m.name, startTime: m.startTime })),
    );
    const preMark = (name) => preMarks.find((m) => m.name === name)?.startTime;
    // page load -> the worker started in advance is ready; ready -> warmed
    const preReadyMs = warmState ? preMark('prv-bench:worker:ready') ?? null : null;
    const warmMs = warmState && preReadyMs !== null && preMark('prv-bench:worker:warmed') !== undefined
      ? preMark('prv-bench:worker:warmed') - preReadyMs
      : null;
    const pid = browserPid(dir);
    const baselineKiB = pid ? rendererPeakKiB(pid, 'VmRSS') : 0;
    // the renderer's RSS every 50 ms, to tell the analysis's peak (up to the worker's "done")
    // from the peak of rendering the report afterwards
    const rss = [];
    // and its private memory (RssAnon: heaps, wasm memory, compiled code; not the Chromium
    // binary's shared pages), which is what Chrome's task manager calls the tab's memory
    // footprint; sampled, since the kernel keeps no peak of it
    const anon = [];
    const sampleAnon = () => {
      if (pid) anon.push(rendererPeakKiB(pid, 'RssAnon'));
    };
    const sampler = setInterval(() => {
      if (pid) rss.push([Date.now(), rendererPeakKiB(pid, 'VmRSS')]);
      sampleAnon();
    }, 50);
    const doneAfter = (t) =>
      page.waitForFunction(
        (since) => performance.getEntriesByName('prv-bench:worker:done').some((m) => m.startTime > since),
        t,
        { timeout: timeoutMs, polling: 50 },
      );
    if (warm) {
      const w0 = await page.evaluate(() => performance.now());
      await input.setInputFiles(zip);
      await doneAfter(w0);
      await page.locator('[data-testid=verdict][data-verdict]').waitFor({ timeout: timeoutMs });
      await page.waitForTimeout(300);
      // a second change event needs the input emptied first
      await input.setInputFiles([]);
    }
    const t0 = await page.evaluate(() => performance.now());
    await input.setInputFiles(zip);
    await doneAfter(t0);
    await page.locator('[data-testid=verdict][data-verdict]').waitFor({ timeout: timeoutMs });
    const t1 = await page.evaluate(() => performance.now());
    const verdict = await page.locator('[data-testid=verdict]').getAttribute('data-verdict');
    const measures = await page.evaluate(() =>
      performance.getEntriesByType('measure').map((m) => ({ name: m.name, duration: m.duration })),
    );
    const marks = (await page.evaluate(() =>
      performance.getEntriesByType('mark').map((m) => ({ name: m.name, startTime: m.startTime })),
    )).filter((m) => m.startTime >= t0);
    const heap = await page.evaluate(() => (performance.memory ? performance.memory.usedJSHeapSize : null));
    // the worker's Blob reads and wasm memory (web/src/blob.rs offers them as prvBlobStats();
    // the page keeps its worker after the analysis, for snapshot details)
    let stats = null;
    for (const w of page.workers()) {
      const json = await w.evaluate(() => (globalThis.prvBlobStats ? globalThis.prvBlobStats() : null)).catch(() => null);
      if (json) stats = JSON.parse(json);
    }
    sampleAnon();
    clearInterval(sampler);
    const peakKiB = pid ? rendererPeakKiB(pid) : 0;
    const privatePeakKiB = Math.max(0, ...anon);
    const origin = await page.evaluate(() => performance.timeOrigin);
    // the page's own measure (prv:analysis: file chosen -> verdict on screen, so with starting
    // the worker and rendering); the last one (--warm makes two)
    const own = measures.filter((m) => m.name.startsWith('prv:') && /analy/i.test(m.name)).pop();
    const last = (name) => marks.filter((m) => m.name === name).map((m) => m.startTime).pop();
    const first = (name) => marks.find((m) => m.name === name)?.startTime;
    // the first request is the analysis (later ones may ask for snapshot details)
    const request = first('prv-bench:request');
    const done = first('prv-bench:worker:done');
    const progress = marks.filter((m) => m.name === 'prv-bench:worker:progress' && m.startTime < (done ?? Infinity));
    const workerMs = request !== undefined && done !== undefined && done > request ? done - request : null;
    const doneEpoch = done !== undefined ? origin + done : Infinity;
    const analysisPeakKiB = Math.max(0, ...rss.filter(([t]) => t <= doneEpoch).map(([, k]) => k));
    // input -> the worker says it is ready: starting the worker (fetching, compiling and
    // instantiating its wasm), not part of the analysis time; with a worker started in advance,
    // page load -> ready (before the file was chosen)
    const ready = first('prv-bench:worker:ready');
    const startupMs = ready !== undefined ? ready - t0 : preReadyMs;
    // the worker's phases: its request -> opening the file (prvBlobStats().openedAt); the
    // analysis, up to its last progress message (the end of the checks); then rendering the
    // report (JSON and Markdown), posting it and the page receiving it ("done")
    const lastProgress = progress.length ? progress[progress.length - 1].startTime : undefined;
    const worker = stats ? {
      reads: stats.reads,
      readBytes: stats.bytes,
      readMs: stats.readMs,
      asyncReads: stats.asyncReads ?? 0,
      announcedBytes: stats.announcedBytes ?? 0,
      wasmMemoryBytes: stats.wasmMemoryBytes,
      coreMs: lastProgress !== undefined ? origin + lastProgress - stats.openedAt : null,
      replyMs: lastProgress !== undefined && done !== undefined ? done - lastProgress : null,
    } : null;
    return {
      verdict,
      // the analysis without starting the worker and without rendering: request -> done
      ms: workerMs ?? (own ? own.duration : t1 - t0),
      source: workerMs !== null ? 'harness marks: request -> done' : own ? `measure ${own.name}` : 'wall',
      ownMs: own ? own.duration : null,
      workerMs,
      wallMs: t1 - t0,
      startupMs,
      startedInAdvance: warmState !== null,
      warmMs,
      worker,
      measures,
      marks,
      pageJsHeapBytes: heap,
      rendererPeakBytes: peakKiB * 1024,
      rendererBaselineBytes: baselineKiB * 1024,
      rendererPrivatePeakBytes: privatePeakKiB * 1024,
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
      const w = s.worker;
      const phases = w
        ? `; worker start ${s.startupMs?.toFixed(0)} ms${s.startedInAdvance ? ` (at page load; warm-up ${s.warmMs?.toFixed(0)} ms)` : ''}, analysis ${w.coreMs?.toFixed(0)} ms of which ${w.reads} Blob reads ${w.asyncReads ? `(${w.asyncReads} asynchronous, ${(w.announcedBytes / 2 ** 20).toFixed(1)} MiB announced) waited for ` : ''}${w.readMs.toFixed(0)} ms (${(w.readBytes / 2 ** 20).toFixed(1)} MiB), report out ${w.replyMs?.toFixed(0)} ms, wasm memory ${(w.wasmMemoryBytes / 2 ** 20).toFixed(0)} MiB`
        : '';
      process.stderr.write(`  page ${basename(zip)} run ${r + 1}: ${s.ms.toFixed(0)} ms (${s.source}), renderer peak ${(s.rendererPeakBytes / 2 ** 20).toFixed(0)} MiB (private ${(s.rendererPrivatePeakBytes / 2 ** 20).toFixed(0)} MiB; ${(s.rendererBaselineBytes / 2 ** 20).toFixed(0)} MiB before the file, ${(s.analysisPeakBytes / 2 ** 20).toFixed(0)} MiB until the worker is done), ${s.verdict}${phases}\n`);
    }
    results[basename(zip)] = {
      medianMs: median(samples.map((s) => s.ms)),
      wallMedianMs: median(samples.map((s) => s.wallMs)),
      ownMedianMs: median(samples.map((s) => s.ownMs).filter((x) => x !== null)),
      source: samples[0]?.source,
      peakBytes: Math.max(...samples.map((s) => s.rendererPeakBytes)),
      privatePeakBytes: Math.max(...samples.map((s) => s.rendererPrivatePeakBytes)),
      baselineBytes: Math.min(...samples.map((s) => s.rendererBaselineBytes)),
      analysisPeakBytes: Math.max(...samples.map((s) => s.analysisPeakBytes)),
      startupMedianMs: median(samples.map((s) => s.startupMs).filter((x) => x !== null)),
      startedInAdvance: samples.some((s) => s.startedInAdvance),
      warmMedianMs: median(samples.map((s) => s.warmMs).filter((x) => x !== null && x !== undefined)),
      coreMedianMs: median(samples.map((s) => s.worker?.coreMs).filter((x) => x !== undefined && x !== null)),
      readMedianMs: median(samples.map((s) => s.worker?.readMs).filter((x) => x !== undefined)),
      replyMedianMs: median(samples.map((s) => s.worker?.replyMs).filter((x) => x !== undefined && x !== null)),
      wasmMemoryBytes: Math.max(0, ...samples.map((s) => s.worker?.wasmMemoryBytes ?? 0)),
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
