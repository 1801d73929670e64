// Shared helpers of the Playwright tests: fixture paths, the CLI (for "same bytes" checks),
// request and console watching.
import { expect } from '@playwright/test';
import { spawnSync, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { basePath } from './playwright.config.mjs';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const fixtureDir = join(root, 'tests/fixtures/warehouses');
export const fixture = (name) => join(fixtureDir, name);
export const scenarios = JSON.parse(readFileSync(join(fixtureDir, 'scenarios.json'), 'utf8'));

let cliPath = process.env.PRV_CLI ?? null;

// The CLI built from the same sources as the page: `make test-e2e` builds it first and passes it
// as PRV_CLI; run alone, the tests build it here (debug build).
export function cli() {
  if (cliPath) return cliPath;
  execFileSync('cargo', ['build', '--quiet', '--bin', 'paimon-recovery-validator'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    timeout: 30 * 60_000,
  });
  cliPath = join(root, 'target/debug/paimon-recovery-validator');
  if (!existsSync(cliPath)) throw new Error(`no CLI at ${cliPath}`);
  return cliPath;
}

// Runs `check <name> --format <format>` from the directory holding `path`, so the report names
// the input by its file name, as the page does. Returns stdout as a string.
export function runCli(path, format, extra = []) {
  const r = spawnSync(cli(), ['check', basename(path), '--format', format, ...extra], {
    cwd: dirname(path),
    encoding: 'utf8',
    maxBuffer: 512 << 20,
  });
  // 0 and 1 are verdicts; 2 with a report is an input that could not be read at all.
  if (r.status === null || r.status > 2 || !r.stdout) {
    throw new Error(`CLI failed (${r.status}) on ${path}: ${r.stderr}`);
  }
  return r.stdout;
}

// Unzips a fixture into a fresh temporary directory (as a folder the user would pick).
export function unzipFixture(name) {
  const dir = mkdtempSync(join(tmpdir(), 'prv-e2e-'));
  const target = join(dir, basename(name, '.zip'));
  execFileSync('python3', ['-m', 'zipfile', '-e', fixture(name), target]);
  return target;
}

// Records every request of the page and its workers, and every console error.
export function watch(page, context) {
  const requests = [];
  const errors = [];
  const seen = new Set();
  const record = (request) => {
    const key = `${request.method()} ${request.url()}`;
    if (!seen.has(key)) {
      seen.add(key);
      requests.push({ method: request.method(), url: request.url() });
    }
  };
  page.on('request', record);
  context.on('request', record);
  page.on('console', (msg) => msg.type() === 'error' && errors.push(msg.text()));
  page.on('pageerror', (err) => errors.push(String(err)));
  return { requests, errors };
}

export function expectOnlyOwnStaticFiles(requests, baseURL) {
  const origin = new URL(baseURL).origin;
  for (const { method, url } of requests) {
    const u = new URL(url);
    if (u.protocol === 'data:' || u.protocol === 'blob:') continue;
    expect(u.origin, `request to another origin: ${method} ${url}`).toBe(origin);
    expect(method, `non-GET request: ${method} ${url}`).toBe('GET');
    expect(u.pathname.startsWith(basePath), `request outside the site: ${url}`).toBe(true);
    expect(u.search, `request carrying data: ${url}`).toBe('');
  }
}

// Uploads a fixture through the real file input and waits for the verdict.
export async function analyse(page, name) {
  await page.getByTestId('artifact-input').setInputFiles(fixture(name));
  const verdict = page.locator('[data-testid=verdict][data-verdict]');
  await expect(verdict).toBeVisible({ timeout: 60_000 });
  return verdict;
}

// The codes of the findings on the page (the list items, not the timeline's marks).
export async function pageCodes(page) {
  return page.locator('li.finding[data-finding-code]').evaluateAll((els) =>
    [...new Set(els.map((e) => e.getAttribute('data-finding-code')))].sort(),
  );
}

// Every finding code of a JSON report.
export function reportCodes(report) {
  const codes = new Set(report.findings.map((f) => f.code));
  for (const t of report.tables) for (const f of t.findings) codes.add(f.code);
  return [...codes].sort();
}

export async function downloadText(page, testId) {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId(testId).click(),
  ]);
  const path = await download.path();
  return { name: download.suggestedFilename(), text: readFileSync(path, 'utf8') };
}
