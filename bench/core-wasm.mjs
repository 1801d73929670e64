#!/usr/bin/env node
// What the browser's wasm engine costs, apart from the page: the core alone (bench/core-wasm,
// the zip already in memory: no Blob reads, no worker protocol) timed in Debian's Chromium (a
// dedicated worker, warmed on the page's example as the page warms its worker) and in Node,
// next to the CLI as shipped and with --threads 1, interleaved in rounds.
//
//   node bench/core-wasm.mjs [--rounds 3] [--repeat 2] [--touch MiB] [--page DIST] [--threads N]
//                            [--arenas] [--no-build] a.zip ...
//
// As the page's worker, it reserves wasm memory in one step before the first analysis of the
// zip (web/src/blob.rs, reserve_memory). Each round starts a fresh browser and a fresh Node process per zip; each analyses the zip
// `--repeat` times in a row. "first" is the first analysis of the zip in that process (what
// the page's user waits for), "later" the median of the others (V8 has then optimized every
// function the analysis runs, and the wasm memory it needs is resident). --touch makes that
// much wasm memory resident before the first analysis (bench/core-wasm/src/lib.rs,
// touch_memory), to tell the cost of faulting in fresh memory from the rest.
// --page DIST also times the page built in DIST on each zip in each round (bench/page.mjs, one
// run: request -> done, the Blob reads and the report included), for the three side by side.
// --threads N also times a second build of the core with shared memory (+atomics, std rebuilt
// from source: Debian's toolchain, scripts/wasm-env.sh with PRV_WASM_FLAVOUR=debian) whose
// analysis runs the CLI's helper threads (ThreadedPrefetch) as N-1 pool workers sharing its
// memory, served cross-origin isolated (COOP/COEP), which shared memory requires: what the page
// would gain from the CLI's threads on a host that sends those headers. That build is also
// timed on one thread, for what shared memory and atomics cost by themselves. --arenas builds
// it with one allocator arena per thread (bench/core-wasm/src/arenas.rs) instead of std's wasm
// allocator, one dlmalloc behind one lock for all threads.
// The CLI is target/release/paimon-recovery-validator (PRV_BENCH_CLI overrides it).
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, resolve } from 'node:path';
import { root, serveDist, launchChromium } from './harness.mjs';

const argv = process.argv.slice(2);
let rounds = 3;
let repeat = 2;
let touch = 0;
let build = true;
let pageDist = null;
let threads = 0;
let arenas = false;
const zips = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--rounds') rounds = Number(argv[++i]);
  else if (argv[i] === '--repeat') repeat = Math.max(1, Number(argv[++i]));
  else if (argv[i] === '--touch') touch = Number(argv[++i]);
  else if (argv[i] === '--no-build') build = false;
  else if (argv[i] === '--page') pageDist = resolve(argv[++i]);
  else if (argv[i] === '--threads') threads = Number(argv[++i]);
  else if (argv[i] === '--arenas') arenas = true;
  else zips.push(resolve(argv[i]));
}
if (!zips.length) {
  console.error('usage: node bench/core-wasm.mjs [--rounds 3] [--repeat 2] [--touch MiB] [--page DIST] [--threads N] [--arenas] [--no-build] a.zip ...');
  process.exit(2);
}
const cli = process.env.PRV_BENCH_CLI ? resolve(process.env.PRV_BENCH_CLI) : `${root}/target/release/paimon-recovery-validator`;
const out = `${root}/bench/out/core-wasm`;
// where the build with shared memory goes (index.html's build=): with std's allocator, or arenas
const mtBuild = arenas ? 'mta' : 'mt';
const www = `${out}/www`;

// Build the wasm (the page's toolchain and release profile) and its two kinds of glue.
if (build) {
  const env = `${root}/scripts/wasm-env.sh`;
  console.error('building bench/core-wasm for wasm32 ...');
  execFileSync(env, ['cargo', 'build', '--release', '--target', 'wasm32-unknown-unknown', '--manifest-path', `${root}/bench/core-wasm/Cargo.toml`], { stdio: ['ignore', 'ignore', 'inherit'] });
  const targetDir = execFileSync(env, ['sh', '-c', 'printf %s "$CARGO_TARGET_DIR"']).toString();
  const wasm = `${targetDir}/wasm32-unknown-unknown/release/prv_core_wasm.wasm`;
  rmSync(out, { recursive: true, force: true });
  execFileSync(env, ['wasm-bindgen', '--target', 'no-modules', '--out-dir', www, wasm], { stdio: 'inherit' });
  execFileSync(env, ['wasm-bindgen', '--target', 'nodejs', '--out-dir', `${out}/node`, wasm], { stdio: 'inherit' });
  if (threads > 1) {
    console.error('building bench/core-wasm with shared memory (std from source) ...');
    const mtTarget = `${root}/target/wasm-mt`;
    const flags = [
      '-C target-feature=+atomics,+bulk-memory,+mutable-globals',
      // shared, imported memory (up to 4 GiB) and the symbols wasm-bindgen's thread setup needs
      ...['--shared-memory', '--import-memory', '--max-memory=4294967296', '--export=__wasm_init_tls',
        '--export=__tls_size', '--export=__tls_align', '--export=__tls_base'].map((a) => `-C link-arg=${a}`),
    ].join(' ');
    const features = arenas ? ['--features', 'arenas'] : [];
    execFileSync(env, ['cargo', 'build', '--release', '--target', 'wasm32-unknown-unknown', '--manifest-path', `${root}/bench/core-wasm/Cargo.toml`, ...features], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, PRV_WASM_FLAVOUR: 'debian', PRV_WASM_TARGET_DIR: mtTarget, RUSTFLAGS: flags },
    });
    execFileSync(env, ['wasm-bindgen', '--target', 'no-modules', '--out-dir', `${www}/${mtBuild}`,
      `${mtTarget}/wasm32-unknown-unknown/release/prv_core_wasm.wasm`], { stdio: 'inherit' });
  }
}
if (threads > 1 && !existsSync(`${www}/${mtBuild}/prv_core_wasm_bg.wasm`)) {
  console.error(`${www}/${mtBuild} has no build with shared memory: run without --no-build`);
  process.exit(2);
}
if (!existsSync(`${www}/prv_core_wasm_bg.wasm`)) {
  console.error(`${www} has no build: run without --no-build`);
  process.exit(2);
}
for (const f of ['index.html', 'worker.js', 'steps.js']) copyFileSync(`${root}/bench/core-wasm/www/${f}`, `${www}/${f}`);
if (threads > 1) {
  copyFileSync(`${root}/bench/core-wasm/www/worker-mt.js`, `${www}/${mtBuild}/worker.js`);
  copyFileSync(`${root}/bench/core-wasm/www/pool.js`, `${www}/${mtBuild}/pool.js`);
}
const link = (target, name) => {
  rmSync(`${www}/${name}`, { force: true });
  symlinkSync(target, `${www}/${name}`);
};
link(`${root}/tests/fixtures/warehouses/java09_d_crash_between_append_and_compact.zip`, 'example.zip');
zips.forEach((z, i) => link(z, `z${i}.zip`));

// Node: the steps of worker.js (steps.js), in a fresh process, the zips fetched from the same
// server.
const nodeScript = `${out}/node/run.cjs`;
writeFileSync(nodeScript, `
const { analyse_zip, reserve_memory, touch_memory } = require('./prv_core_wasm.js');
require('vm').runInThisContext(require('fs').readFileSync(${JSON.stringify(`${www}/steps.js`)}, 'utf8'));
const [base, zip, touchMiB, repeat] = process.argv.slice(2);
const core = { analyse: analyse_zip, reserve: reserve_memory, touch: touch_memory };
const settings = { zips: [zip], warmMs: 400, pauseMs: 1000, touchMiB: Number(touchMiB), repeat: Number(repeat) };
prvCoreSteps(core, settings, base).then((r) => console.log(JSON.stringify(r.runs.map((x) => x.ms))));
`);

// Cross-origin isolated: shared memory needs it; the single-threaded build runs the same either way.
const { base, server } = await serveDist(www, 18700 + (process.pid % 200), threads > 1 ? ['--cross-origin-isolated'] : []);
const rows = Object.fromEntries(zips.map((z) => [z, { cli: [], cli1: [], nodeFirst: [], nodeLater: [], chromeFirst: [], chromeLater: [], mt1First: [], mtFirst: [], mtLater: [], mtTaken: [], page: [] }]));
// The CLI's wall time, measured by hyperfine (-N: no shell; one run), as bench/run.py does: a
// process started from Node would add Node's own spawning cost to the CLI's time.
const hyperfineMs = (commands) => {
  const json = `${out}/hyperfine.json`;
  execFileSync('hyperfine', ['-N', '--runs', '1', '--style', 'none', '-i', '--export-json', json, ...commands], { stdio: 'ignore' });
  return JSON.parse(readFileSync(json, 'utf8')).results.map((r) => r.mean * 1000);
};
const quote = (s) => `'${s.replaceAll("'", "'\\''")}'`;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};
try {
  for (let r = 0; r < rounds; r++) {
    console.error(`round ${r + 1}/${rounds}`);
    for (const [i, z] of zips.entries()) {
      const row = rows[z];
      if (existsSync(cli)) {
        const [shipped, one] = hyperfineMs([
          `${quote(cli)} check --format json ${quote(z)}`,
          `${quote(cli)} check --threads 1 --format json ${quote(z)}`,
        ]);
        row.cli.push(shipped);
        row.cli1.push(one);
      }
      const node = spawnSync(process.execPath, [nodeScript, base, `z${i}.zip`, String(touch), String(repeat)]);
      const nodeRuns = JSON.parse(node.stdout.toString().trim().split('\n').pop());
      row.nodeFirst.push(nodeRuns[0]);
      row.nodeLater.push(...nodeRuns.slice(1));
      const chromium = async (query) => {
        const browser = await launchChromium(mkdtempSync(`${tmpdir()}/prv-core-wasm-`));
        try {
          const page = await browser.newPage();
          await page.goto(`${base}index.html?zip=z${i}.zip&touch=${touch}&repeat=${repeat}${query}`);
          const res = await page.waitForFunction(() => window.prvResult, null, { timeout: 300_000, polling: 100 }).then((h) => h.jsonValue());
          if (res.error) throw new Error(`${basename(z)} in Chromium: ${res.error}`);
          return res.runs;
        } finally {
          await browser.close();
        }
      };
      const runs = await chromium('');
      row.chromeFirst.push(runs[0].ms);
      row.chromeLater.push(...runs.slice(1).map((x) => x.ms));
      if (threads > 1) {
        // the same build on one thread: what shared memory and atomics cost by themselves
        row.mt1First.push((await chromium(`&threads=1&mt=1&build=${mtBuild}`))[0].ms);
        const mt = await chromium(`&threads=${threads}&build=${mtBuild}`);
        row.mtFirst.push(mt[0].ms);
        row.mtLater.push(...mt.slice(1).map((x) => x.ms));
        row.mtTaken.push(mt[0].takenFromHelpers);
      }
      if (pageDist) {
        const json = `${out}/page.json`;
        execFileSync(process.execPath, [`${root}/bench/page.mjs`, '--runs', '1', '--dist', pageDist, '--out', json, z], { stdio: 'ignore' });
        const res = JSON.parse(readFileSync(json, 'utf8'));
        const ms = Object.values(res.results ?? {})[0]?.medianMs;
        if (!res.ready || typeof ms !== 'number') throw new Error(`bench/page.mjs on ${basename(z)}: ${res.reason ?? 'no time'}`);
        row.page.push(ms);
      }
    }
  }
} finally {
  server.kill();
}

const ms = (x) => (Number.isNaN(x) ? '—' : `${Math.round(x)} ms`);
console.log(`the core alone, from memory, ${rounds} rounds (medians)${touch ? `, ${touch} MiB made resident first` : ''}`);
const mtCols = threads > 1 ? ` shared-memory build${arenas ? ' (arenas)' : ''}, 1 thread: first | ${threads} threads: first | later | first / CLI | files from helpers |` : '';
const pageCols = (pageDist ? ' page | page / CLI |' : '') + mtCols;
console.log(`| input | CLI | CLI 1 thread | wasm in Node: first | later | wasm in Chromium: first | later | Chromium first / CLI | Chromium first / CLI 1 thread |${pageCols}`);
console.log(`|---|---|---|---|---|---|---|---|---|${pageDist ? '---|---|' : ''}${threads > 1 ? '---|---|---|---|---|' : ''}`);
for (const z of zips) {
  const m = Object.fromEntries(Object.entries(rows[z]).map(([k, v]) => [k, median(v)]));
  console.log(`| ${basename(z, '.zip')} | ${ms(m.cli)} | ${ms(m.cli1)} | ${ms(m.nodeFirst)} | ${ms(m.nodeLater)} | ${ms(m.chromeFirst)} | ${ms(m.chromeLater)} | ${(m.chromeFirst / m.cli).toFixed(2)} | ${(m.chromeFirst / m.cli1).toFixed(2)} |${pageDist ? ` ${ms(m.page)} | ${(m.page / m.cli).toFixed(2)} |` : ''}${threads > 1 ? ` ${ms(m.mt1First)} | ${ms(m.mtFirst)} | ${ms(m.mtLater)} | ${(m.mtFirst / m.cli).toFixed(2)} | ${Math.round(m.mtTaken)} |` : ''}`);
}
writeFileSync(`${out}/results.json`, JSON.stringify({ rounds, repeat, touch, threads, arenas, rows }, null, 2));
