// The page, end to end: a real warehouse zip through the real file input, the worker, the core,
// the report, all served from a sub-path; and nothing may go to another origin.
import { test, expect } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { basePath } from './playwright.config.mjs';
import {
  analyse, expectOnlyOwnStaticFiles, fixture, pageCodes, reportCodes, runCli, unzipFixture, watch,
} from './helpers.mjs';
import { withoutJspi } from './no-jspi.mjs';

// The analysis worker starts a reader worker of its own where the browser has JSPI
// (web/src/async_reads.js); these tests count analysis workers.
const isReader = (w) => w.url().endsWith('#prv-reader');

// Marks on the window whether [data-testid=progress] was ever in the DOM.
async function watchProgress(page) {
  await page.evaluate(() => {
    window.__sawProgress = false;
    window.__phases = new Set();
    const check = () => {
      if (document.querySelector('[data-testid=progress]')) window.__sawProgress = true;
      for (const li of document.querySelectorAll('[data-phase][data-state=current]')) {
        window.__phases.add(li.getAttribute('data-phase'));
      }
    };
    new MutationObserver(check).observe(document.body, { subtree: true, childList: true, attributes: true });
    check();
  });
}

test('analyses a warehouse zip chosen with the file input', async ({ page, context, baseURL }) => {
  const { requests, errors } = watch(page, context);
  await page.goto('./');
  const input = page.locator('input[type=file][data-testid=artifact-input]');
  await expect(input).toBeAttached();
  await expect(input).toHaveAttribute('accept', /\.zip/);
  await watchProgress(page);

  await input.setInputFiles(fixture('java09_d_crash_between_append_and_compact.zip'));

  const verdict = page.getByTestId('verdict');
  await expect(verdict).toBeVisible({ timeout: 60_000 });
  await expect(verdict).toHaveAttribute('data-verdict', 'fail');
  expect(await page.evaluate(() => window.__sawProgress)).toBe(true);
  await expect(page.getByTestId('progress')).toHaveCount(0);
  // The announcer (aria-live) says the outcome.
  await expect(page.getByTestId('announcer')).toContainText('FAIL');

  const table = page.locator('[data-table-path$="db.db/lk_crash"]');
  await expect(table).toHaveCount(1);
  await expect(table).toHaveAttribute('data-branch', 'main');
  const lost = table.locator('li.finding[data-finding-code=lost-changelog]');
  await expect(lost.first()).toBeVisible();
  await expect(lost.first()).toHaveAttribute('data-snapshot', /^\d+$/);
  // Row-level evidence of the lost changelog: a table of keys.
  await expect(lost.first().getByTestId('lost-rows')).toBeVisible();
  // The timeline has a mark per snapshot.
  const timeline = page.locator('[data-table-group$="db.db/lk_crash"] svg[data-testid=timeline]');
  await expect(timeline).toHaveCount(1);
  for (let id = 1; id <= 11; id++) {
    await expect(timeline.locator(`[data-snapshot-id="${id}"]`)).toHaveCount(1);
  }

  // The worker was loaded from the site itself, and its requests are seen here.
  const paths = requests.map(({ url }) => new URL(url).pathname);
  expect(paths).toContain(`${basePath}prv-worker.js`);
  expect(paths.some((p) => p.endsWith('/prv-worker_bg.wasm'))).toBe(true);
  // The example artifact is not fetched unless asked for.
  expect(paths.some((p) => p.endsWith('.zip'))).toBe(false);
  expectOnlyOwnStaticFiles(requests, baseURL);
  expect(errors).toEqual([]);
});

test('the page starts its worker when it loads, warms it, and the first analysis runs in it', async ({ page, context, baseURL }) => {
  const { requests, errors } = watch(page, context);
  const workers = [];
  page.on('worker', (w) => { if (!isReader(w)) workers.push(w); });
  await page.goto('./');
  // data-worker on <html>: starting -> warming -> warm, before any file is chosen.
  await expect(page.locator('html')).toHaveAttribute('data-worker', 'warm', { timeout: 30_000 });
  expect(workers.length).toBe(1);
  // The warm-up used the example bundled in the worker: nothing but the page's own static files
  // was fetched, and no zip.
  expect(requests.map(({ url }) => new URL(url).pathname).some((p) => p.endsWith('.zip'))).toBe(false);
  // The first analysis goes to that worker: no second worker, and its report is the CLI's.
  await page.getByTestId('artifact-input').setInputFiles(fixture('java09_b2_stale_consumer.zip'));
  const verdict = page.locator('[data-testid=verdict][data-verdict]');
  await expect(verdict).toBeVisible({ timeout: 60_000 });
  expect(workers.length).toBe(1);
  const cliReport = JSON.parse(runCli(fixture('java09_b2_stale_consumer.zip'), 'json'));
  await expect(verdict).toHaveAttribute('data-verdict', cliReport.verdict);
  expect(await pageCodes(page)).toEqual(reportCodes(cliReport));
  // A second file gets a worker of its own (the first is terminated with its analysis).
  await page.getByTestId('artifact-input').setInputFiles(fixture('java09_d_crash_between_append_and_compact.zip'));
  await expect(page.locator('[data-testid=verdict][data-verdict=fail]')).toBeVisible({ timeout: 60_000 });
  expect(workers.length).toBe(2);
  expectOnlyOwnStaticFiles(requests, baseURL);
  expect(errors).toEqual([]);
});

// Where the browser has JavaScript Promise Integration, the worker reads the Blob
// asynchronously: the ranges the core announces are read while it works (web/src/async_reads.js).
// Without JSPI it reads with FileReaderSync. The report is the CLI's either way.
for (const jspi of [true, false]) {
  test(`the worker reads ${jspi ? 'asynchronously with JSPI' : 'with FileReaderSync without JSPI'}, and the report is the CLI's`, async ({ page }) => {
    if (!jspi) {
      // Take JSPI away from the worker (no-jspi.mjs).
      await page.addInitScript(withoutJspi);
    }
    const workers = [];
    const readers = [];
    page.on('worker', (w) => (isReader(w) ? readers : workers).push(w));
    await page.goto('./');
    await expect(page.locator('html')).toHaveAttribute('data-worker', 'warm', { timeout: 30_000 });
    const name = 'java09_e_expire_changelog_tag_branch.zip';
    await page.getByTestId('artifact-input').setInputFiles(fixture(name));
    const verdict = page.locator('[data-testid=verdict][data-verdict]');
    await expect(verdict).toBeVisible({ timeout: 60_000 });
    const cliReport = JSON.parse(runCli(fixture(name), 'json'));
    await expect(verdict).toHaveAttribute('data-verdict', cliReport.verdict);
    expect(await pageCodes(page)).toEqual(reportCodes(cliReport));
    expect(workers.length).toBe(1);
    const stats = JSON.parse(await workers[0].evaluate(() => self.prvBlobStats()));
    expect(stats.reads).toBeGreaterThan(0);
    if (jspi) {
      // The reads ran in the analysis worker's reader worker.
      expect(readers.length).toBe(1);
      expect(stats.asyncReads).toBe(stats.reads);
      // The snapshot and manifest directories were announced before they were read.
      expect(stats.announcedBytes).toBeGreaterThan(0);
    } else {
      expect(readers.length).toBe(0);
      expect(stats.asyncReads).toBe(0);
      expect(stats.announcedBytes).toBe(0);
    }
    // A snapshot's detail is answered by the same worker after the analysis (through the
    // dispatcher with JSPI): open the first timeline mark.
    const mark = page.locator('svg[data-testid=timeline] [data-snapshot-id]').first();
    await mark.focus();
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('snapshot-detail')).toBeVisible({ timeout: 30_000 });
  });
}

test('a worker whose warm-up failed is not given the analysis: a fresh one is', async ({ page }) => {
  // Turn the page's warm-up command into one the worker answers with a failure.
  await page.addInitScript(() => {
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (message, ...rest) {
      if (message && message.kind === 'warm') message = { kind: 'analyse', zips: [] };
      return post.call(this, message, ...rest);
    };
  });
  const workers = [];
  page.on('worker', (w) => { if (!isReader(w)) workers.push(w); });
  await page.goto('./');
  await expect(page.locator('html')).toHaveAttribute('data-worker', 'failed', { timeout: 30_000 });
  await page.getByTestId('artifact-input').setInputFiles(fixture('java09_d_crash_between_append_and_compact.zip'));
  await expect(page.locator('[data-testid=verdict][data-verdict=fail]')).toBeVisible({ timeout: 60_000 });
  expect(workers.length).toBe(2);
});

test('a file chosen before the warm-up is over is analysed all the same', async ({ page }) => {
  await page.goto('./');
  // No wait for data-worker=warm: the request waits for the worker's warm-up (or its start).
  await page.getByTestId('artifact-input').setInputFiles(fixture('java09_d_crash_between_append_and_compact.zip'));
  await expect(page.locator('[data-testid=verdict][data-verdict=fail]')).toBeVisible({ timeout: 60_000 });
  await expect(page.locator('li.finding[data-finding-code=lost-changelog]').first()).toBeVisible();
});

test('the page states its privacy and its CSP allows only its own origin', async ({ page }) => {
  await page.goto('./');
  await expect(page.getByTestId('privacy')).toContainText('never leave your browser');
  const csp = await page.locator('meta[http-equiv=Content-Security-Policy]').getAttribute('content');
  const directives = Object.fromEntries(
    csp.split(';').map((d) => d.trim().split(/\s+/)).filter((d) => d[0]).map(([k, ...v]) => [k, v]),
  );
  expect(directives['default-src']).toEqual(["'self'"]);
  expect(directives['connect-src']).toEqual(["'self'"]);
  for (const [name, sources] of Object.entries(directives)) {
    for (const s of sources) {
      expect(s, `${name} allows ${s}`).not.toMatch(/^(https?:|\*|wss?:)/);
    }
  }
  // The policy is enforced: a fetch to another origin is refused by the browser itself.
  const refused = await page.evaluate(async () => {
    try {
      await fetch('http://127.0.0.2:9/x');
      return false;
    } catch {
      return true;
    }
  });
  expect(refused).toBe(true);
});

test('says clearly when the file is not a zip', async ({ page, context, baseURL }) => {
  const { requests } = watch(page, context);
  await page.goto('./');
  await page.getByTestId('artifact-input').setInputFiles({
    name: 'notes.zip',
    mimeType: 'application/zip',
    buffer: Buffer.from('this is a text file, not a zip archive\n'),
  });
  const outcome = page.locator('[data-testid=error], [data-testid=verdict]');
  await expect(outcome).toBeVisible({ timeout: 60_000 });
  if (await page.getByTestId('error').count()) {
    await expect(page.getByTestId('error')).toContainText('notes.zip');
  } else {
    await expect(page.getByTestId('verdict')).toHaveAttribute('data-verdict', 'fail');
    await expect(page.getByTestId('no-table')).toBeVisible();
  }
  expectOnlyOwnStaticFiles(requests, baseURL);
});

test('says what was found when the zip holds no table', async ({ page }) => {
  const dir = mkdtempSync(join(tmpdir(), 'prv-e2e-'));
  const zip = join(dir, 'logs-only.zip');
  execFileSync('python3', ['-c', `
import zipfile, sys
with zipfile.ZipFile(sys.argv[1], 'w') as z:
    z.writestr('job/logs/taskmanager.log', 'INFO nothing here\\n')
    z.writestr('job/README.txt', 'not a warehouse\\n')
`, zip]);
  await page.goto('./');
  await page.getByTestId('artifact-input').setInputFiles(zip);
  await expect(page.locator('[data-testid=verdict][data-verdict]')).toBeVisible({ timeout: 60_000 });
  const state = page.getByTestId('no-table');
  await expect(state).toBeVisible();
  await expect(state).toContainText('logs-only.zip');
  await expect(state).toContainText('2 files');
  // The artifact-level findings say what was found instead.
  const cliReport = JSON.parse(runCli(zip, 'json'));
  expect(await pageCodes(page)).toEqual(reportCodes(cliReport));
});

test('shows what was read and lists what was not in a partly unreadable artifact', async ({ page }) => {
  await page.goto('./');
  await analyse(page, 'java09_unreadable_manifest.zip');
  const state = page.getByTestId('partly-unreadable');
  await expect(state).toBeVisible();
  const report = JSON.parse(runCli(fixture('java09_unreadable_manifest.zip'), 'json'));
  const unreadable = report.tables.flatMap((t) =>
    t.findings.filter((f) => f.code === 'unreadable-file').flatMap((f) => f.files.map((p) => `${t.path}/${p}`)),
  );
  expect(unreadable.length).toBeGreaterThan(0);
  for (const p of unreadable) await expect(state).toContainText(p);
  // What was read is still shown: the tables and their timelines.
  await expect(page.locator('svg[data-testid=timeline]').first()).toBeVisible();
});

test('a second file replaces the first analysis', async ({ page }) => {
  await page.goto('./');
  const input = page.getByTestId('artifact-input');
  await input.setInputFiles(fixture('java09_a_healthy_pk.zip'));
  await expect(page.getByTestId('verdict')).toBeVisible({ timeout: 60_000 });
  await input.setInputFiles(fixture('java09_d_crash_between_append_and_compact.zip'));
  await expect(page.locator('[data-table-path$="db.db/lk_crash"]')).toHaveCount(1, { timeout: 60_000 });
  await expect(page.locator('[data-table-path$="db.db/orders"]')).toHaveCount(0);
  await expect(page.getByTestId('verdict')).toHaveCount(1);
});

test('the example artifact is one click away, fetched from the site itself', async ({ page, context, baseURL }) => {
  const { requests, errors } = watch(page, context);
  await page.goto('./');
  await page.getByTestId('example').click();
  const verdict = page.locator('[data-testid=verdict][data-verdict]');
  await expect(verdict).toHaveAttribute('data-verdict', 'fail', { timeout: 60_000 });
  await expect(page.locator('li.finding[data-finding-code=lost-changelog]').first()).toBeVisible();
  const paths = requests.map(({ url }) => new URL(url).pathname);
  expect(paths).toContain(`${basePath}java09_d_crash_between_append_and_compact.zip`);
  expectOnlyOwnStaticFiles(requests, baseURL);
  expect(errors).toEqual([]);
});

test('progress is shown by phase and Cancel returns to the start', async ({ page }) => {
  // Hold the page's request to the worker so the analysis is still running when Cancel is
  // pressed (the worker is started, it just never hears what to analyse).
  await page.addInitScript(() => {
    const post = Worker.prototype.postMessage;
    window.__hold = true;
    window.__held = [];
    Worker.prototype.postMessage = function (...args) {
      if (window.__hold) {
        window.__held.push([this, args]);
        return undefined;
      }
      return post.apply(this, args);
    };
    window.__release = () => {
      window.__hold = false;
      for (const [w, args] of window.__held) post.apply(w, args);
    };
  });
  await page.goto('./');
  await page.getByTestId('artifact-input').setInputFiles(fixture('java09_a_healthy_pk.zip'));
  const progress = page.getByTestId('progress');
  await expect(progress).toBeVisible();
  await expect(progress.locator('[data-phase]')).toHaveCount(4);
  await expect.poll(() => page.evaluate(() => window.__held.length)).toBeGreaterThan(0);
  await page.getByTestId('cancel').click();
  await expect(progress).toHaveCount(0);
  await expect(page.getByTestId('verdict')).toHaveCount(0);
  await expect(page.locator('.intro')).toBeVisible();
  // The cancelled worker was terminated: releasing its request brings nothing back.
  await page.evaluate(() => window.__release());
  await page.waitForTimeout(1500);
  await expect(page.getByTestId('verdict')).toHaveCount(0);
  // And a new analysis runs through every phase to the verdict.
  await watchProgress(page);
  await analyse(page, 'java09_a_healthy_pk.zip');
  expect(await page.evaluate(() => window.__sawProgress)).toBe(true);
});

test('a folder chosen with the folder picker is analysed like its zip', async ({ page }) => {
  const dir = unzipFixture('java09_d_crash_between_append_and_compact.zip');
  await page.goto('./');
  await page.getByTestId('folder-input').setInputFiles(dir);
  const verdict = page.locator('[data-testid=verdict][data-verdict]');
  await expect(verdict).toBeVisible({ timeout: 60_000 });
  const cliReport = JSON.parse(runCli(dir, 'json'));
  await expect(verdict).toHaveAttribute('data-verdict', cliReport.verdict);
  expect(await pageCodes(page)).toEqual(reportCodes(cliReport));
  await expect(page.locator('[data-table-path$="db.db/lk_crash"]')).toHaveCount(1);
});

test('a zip dropped on the drop zone is analysed', async ({ page }) => {
  const { readFileSync } = await import('node:fs');
  const name = 'java09_consumer_stale.zip';
  const bytes = [...readFileSync(fixture(name))];
  await page.goto('./');
  const zone = page.getByTestId('drop-zone');
  const dataTransfer = await page.evaluateHandle(({ bytes, name }) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(bytes)], name, { type: 'application/zip' }));
    return dt;
  }, { bytes, name });
  await zone.dispatchEvent('dragover', { dataTransfer });
  await expect(zone).toHaveClass(/dragging/);
  await zone.dispatchEvent('drop', { dataTransfer });
  const verdict = page.locator('[data-testid=verdict][data-verdict]');
  await expect(verdict).toBeVisible({ timeout: 60_000 });
  const cliReport = JSON.parse(runCli(fixture(name), 'json'));
  await expect(verdict).toHaveAttribute('data-verdict', cliReport.verdict);
  expect(await pageCodes(page)).toEqual(reportCodes(cliReport));
  await expect(zone).not.toHaveClass(/dragging/);
});
