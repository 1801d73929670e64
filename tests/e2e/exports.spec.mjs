// Exports: the JSON and Markdown downloads are the CLI's bytes for the same input (same clock:
// both use the artifact's capture time), Markdown copy puts the same text on the clipboard, the
// timeline downloads as SVG, and a permalink re-renders the report with no file and no worker.
import { test, expect } from '@playwright/test';
import { analyse, downloadText, expectOnlyOwnStaticFiles, fixture, runCli, watch } from './helpers.mjs';

const CRASH = 'java09_d_crash_between_append_and_compact.zip';

for (const zip of [CRASH, 'java09_multi_table_branch_consumer.zip', 'java09_consumer_stale.zip']) {
  test(`JSON and Markdown downloads equal the CLI's output: ${zip}`, async ({ page }) => {
    await page.goto('./');
    await analyse(page, zip);
    const json = await downloadText(page, 'export-json');
    expect(json.name).toBe(zip.replace(/\.zip$/, '.prv.json'));
    expect(json.text).toBe(runCli(fixture(zip), 'json'));
    const md = await downloadText(page, 'export-markdown');
    expect(md.name).toBe(zip.replace(/\.zip$/, '.prv.md'));
    expect(md.text).toBe(runCli(fixture(zip), 'markdown'));
  });
}

test('Copy Markdown puts the report on the clipboard', async ({ page, context, baseURL }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(baseURL).origin });
  await page.goto('./');
  await analyse(page, CRASH);
  await page.getByTestId('copy-markdown').click();
  await expect(page.getByTestId('export-notice')).toContainText('Markdown copied');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toBe(runCli(fixture(CRASH), 'markdown'));
  expect(copied.length).toBeLessThanOrEqual(65_536);
});

test('the timeline downloads as a standalone SVG', async ({ page }) => {
  await page.goto('./');
  await analyse(page, CRASH);
  const svg = await downloadText(page, 'export-svg');
  expect(svg.name).toMatch(/\.svg$/);
  expect(svg.text).toContain('<svg');
  expect(svg.text).toContain('xmlns="http://www.w3.org/2000/svg"');
  expect(svg.text).toContain('lk_crash');
});

test('a permalink re-renders the report offline, without the file', async ({ page, context, baseURL }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(baseURL).origin });
  await page.goto('./');
  await analyse(page, CRASH);
  const original = await downloadText(page, 'export-json');
  await page.getByTestId('permalink').click();
  await expect(page.getByTestId('export-notice')).toContainText('Link copied');
  const link = page.url();
  expect(link).toContain('#report=');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);

  const other = await context.newPage();
  const { requests, errors } = watch(other, context);
  await other.goto(link);
  const verdict = other.locator('[data-testid=verdict][data-verdict]');
  await expect(verdict).toHaveAttribute('data-verdict', 'fail');
  await expect(other.getByTestId('from-link')).toBeVisible();
  await expect(other.locator('li.finding[data-finding-code=lost-changelog]').first()).toBeVisible();
  await expect(other.locator('svg[data-testid=timeline] [data-snapshot-id="11"]')).toHaveCount(1);
  // The same report: the JSON download gives the same bytes.
  const again = await downloadText(other, 'export-json');
  expect(again.text).toBe(original.text);
  // No worker was started and no file fetched: only the page's own static files.
  const paths = requests.map(({ url }) => new URL(url).pathname);
  expect(paths.some((p) => p.includes('prv-worker'))).toBe(false);
  expect(paths.some((p) => p.endsWith('.zip'))).toBe(false);
  expectOnlyOwnStaticFiles(requests, baseURL);
  expect(errors).toEqual([]);
});

test('a damaged permalink says so', async ({ page }) => {
  await page.goto('./#report=AAAA');
  await expect(page.getByTestId('error')).toContainText('link');
});
