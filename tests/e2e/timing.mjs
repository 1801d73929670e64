#!/usr/bin/env node
// Time from upload to verdict in headless Chromium (playwright-core + Debian's Chromium), the
// median of N runs per zip, on the built page (dist/, `make dist` first):
//   node tests/e2e/timing.mjs [--runs 3] <zip>...
// Each run: a fresh page; the clock starts when the file is handed to the input and stops when
// [data-testid=verdict][data-verdict] is in the DOM. The page's own measure `prv:analysis`
// (from the request to the verdict on screen) is printed too, and split at the arrival of the
// worker's report (a wrapper of Worker marks it): worker = request -> report message,
// page = report message -> verdict on screen (parsing the report, rendering).
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const args = process.argv.slice(2);
let runs = 3;
const zips = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--runs') runs = Number(args[++i]);
  else zips.push(resolve(args[i]));
}
const port = 8798;
const server = spawn('node', ['scripts/serve.mjs', '--root', 'dist', '--port', String(port), '--base', '/prv/', '--quiet'], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
});
await new Promise((r) => server.stdout.once('data', r));
const browser = await chromium.launch({
  executablePath: process.env.PRV_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
const context = await browser.newContext();
await context.addInitScript(() => {
  const W = window.Worker;
  window.Worker = class extends W {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (e) => {
        if (typeof e.data === 'string' && e.data.startsWith('{"type":"done"')) performance.mark('timing:done');
      });
    }
  };
});
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
try {
  for (const zip of zips) {
    const wall = [];
    const own = [];
    const worker = [];
    let snapshots = 0;
    let verdict = '';
    for (let i = 0; i < runs; i++) {
      const page = await context.newPage();
      await page.goto(`http://127.0.0.1:${port}/prv/`);
      const t0 = Date.now();
      await page.getByTestId('artifact-input').setInputFiles(zip);
      await page.locator('[data-testid=verdict][data-verdict]').waitFor({ timeout: 600_000 });
      wall.push(Date.now() - t0);
      verdict = await page.getByTestId('verdict').getAttribute('data-verdict');
      own.push(await page.evaluate(() => performance.getEntriesByName('prv:analysis').pop()?.duration ?? NaN));
      worker.push(await page.evaluate(() => {
        const start = performance.getEntriesByName('prv:analysis-start').pop();
        const done = performance.getEntriesByName('timing:done').pop();
        return start && done ? done.startTime - start.startTime : NaN;
      }));
      snapshots = await page.evaluate(() => {
        const t = document.querySelector('[data-testid=verdict] .summary');
        return t ? t.textContent : '';
      });
      await page.close();
    }
    console.log(JSON.stringify({
      zip: zip.replace(`${root}/`, ''),
      bytes: statSync(zip).size,
      verdict,
      summary: snapshots,
      runs,
      wall_ms: wall,
      median_wall_ms: median(wall),
      page_measure_ms: own.map(Math.round),
      median_page_measure_ms: Math.round(median(own)),
      worker_ms: worker.map(Math.round),
      median_worker_ms: Math.round(median(worker)),
    }));
  }
} finally {
  await browser.close();
  server.kill();
}
