// The page, end to end: a real warehouse zip through the real file input, the worker, the core,
// the report, all served from a sub-path; and nothing may go to another origin.
import { test, expect } from '@playwright/test';
import { fileURLToPath } from 'node:url';
import { basePath } from './playwright.config.mjs';

const fixture = (name) =>
  fileURLToPath(new URL(`../fixtures/warehouses/${name}`, import.meta.url));

// Records every request of the page and its workers, and every console error.
function watch(page, context) {
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

// Marks on the window whether [data-testid=progress] was ever in the DOM.
async function watchProgress(page) {
  await page.evaluate(() => {
    window.__sawProgress = false;
    const check = () => {
      if (document.querySelector('[data-testid=progress]')) window.__sawProgress = true;
    };
    new MutationObserver(check).observe(document.body, { subtree: true, childList: true });
    check();
  });
}

function expectOnlyOwnStaticFiles(requests, baseURL) {
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
  await expect(verdict).toHaveAttribute('data-verdict', /^(pass|warn|fail)$/);
  expect(await page.evaluate(() => window.__sawProgress)).toBe(true);
  await expect(page.getByTestId('progress')).toHaveCount(0);

  const table = page.locator('[data-table-path$="db.db/lk_crash"]');
  await expect(table).toHaveCount(1);
  await expect(table).toContainText('db.db/lk_crash');
  await expect(table).toHaveAttribute('data-branch', 'main');
  for (let id = 1; id <= 11; id++) {
    await expect(table.locator(`[data-snapshot-row="${id}"]`)).toContainText(String(id));
  }

  // The worker was loaded on demand from the site itself, and its requests are seen here.
  const paths = requests.map(({ url }) => new URL(url).pathname);
  expect(paths).toContain(`${basePath}prv-worker_loader.js`);
  expect(paths.some((p) => p.endsWith('/prv-worker_bg.wasm'))).toBe(true);
  expectOnlyOwnStaticFiles(requests, baseURL);
  expect(errors).toEqual([]);
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
  }
  expectOnlyOwnStaticFiles(requests, baseURL);
});

test('a second file replaces the first analysis', async ({ page }) => {
  await page.goto('./');
  const input = page.getByTestId('artifact-input');
  await input.setInputFiles(fixture('java09_a_healthy_pk.zip'));
  await expect(page.getByTestId('verdict')).toBeVisible({ timeout: 60_000 });
  await input.setInputFiles(fixture('java09_d_crash_between_append_and_compact.zip'));
  await expect(page.locator('[data-table-path$="db.db/lk_crash"]')).toHaveCount(1, { timeout: 60_000 });
  await expect(page.getByTestId('verdict')).toHaveCount(1);
});
