// Comfort: a keyboard-only run-through with visible focus, dark mode (system and a remembered
// toggle), a 360 px wide screen, filters, and the links between findings and the timeline.
import { test, expect } from '@playwright/test';
import { analyse } from './helpers.mjs';

const CRASH = 'java09_d_crash_between_append_and_compact.zip';

// Presses Tab until `predicate(activeElement)` holds (at most `max` times); returns whether it did.
async function tabTo(page, selector, max = 60) {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return true;
  }
  return false;
}

async function focusIsVisible(page) {
  return page.evaluate(() => {
    const el = document.activeElement;
    const target = el.closest('label') ?? el;
    const style = getComputedStyle(target);
    const own = getComputedStyle(el);
    const visible = (s) => s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0;
    return visible(own) || visible(style) || own.boxShadow !== 'none';
  });
}

test('a keyboard-only run-through: example, verdict, exports, finding to timeline and back', async ({ page }) => {
  await page.goto('./');
  await expect(page.getByTestId('artifact-input')).toBeAttached();
  // The file input is reachable by keyboard (inside its label), with a visible focus.
  expect(await tabTo(page, 'input[data-testid=artifact-input]')).toBe(true);
  expect(await focusIsVisible(page)).toBe(true);
  expect(await tabTo(page, '[data-testid=example]')).toBe(true);
  expect(await focusIsVisible(page)).toBe(true);
  await page.keyboard.press('Enter');
  await expect(page.locator('[data-testid=verdict][data-verdict=fail]')).toBeVisible({ timeout: 60_000 });

  expect(await tabTo(page, '[data-testid=export-json]')).toBe(true);
  expect(await focusIsVisible(page)).toBe(true);
  const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
  expect(download.suggestedFilename()).toMatch(/\.prv\.json$/);

  // A filter chip toggles with the keyboard.
  expect(await tabTo(page, '[data-filter-code]')).toBe(true);
  const code = await page.evaluate(() => document.activeElement.getAttribute('data-filter-code'));
  await page.keyboard.press('Enter');
  await expect(page.locator(`li.finding[data-finding-code="${code}"]`)).toHaveCount(0);
  await page.keyboard.press('Enter');
  await expect.poll(() => page.locator(`li.finding[data-finding-code="${code}"]`).count()).toBeGreaterThan(0);

  // A lost-changelog finding's snapshot goes to the timeline, which focuses that snapshot.
  const finding = page.locator('li.finding[data-finding-code=lost-changelog]').first();
  const id = await finding.getAttribute('data-snapshot');
  const link = finding.locator(`[data-goto-snapshot="${id}"]`);
  await link.focus();
  await page.keyboard.press('Enter');
  const mark = page.locator(`svg[data-testid=timeline] [data-snapshot-id="${id}"]`);
  await expect(mark).toHaveClass(/tl-focus/);
  await expect(mark).toBeFocused();
  // Enter on the mark opens its detail (asked of the worker, which kept the analysis)…
  await page.keyboard.press('Enter');
  const detail = page.locator(`[data-testid=snapshot-detail][data-snapshot-id="${id}"]`);
  await expect(detail).toBeVisible();
  // …and lists the findings about it, which lead back to the finding.
  const back = page.getByTestId('snapshot-findings').locator('[data-goto-finding]').first();
  await expect(back).toBeVisible();
  await back.focus();
  await page.keyboard.press('Enter');
  await expect(page.locator('li.finding:focus')).toHaveAttribute('data-snapshot', id);
  // The same snapshot again: the timeline shows and focuses it again.
  await link.focus();
  await page.keyboard.press('Enter');
  await expect(mark).toBeFocused();
});

test('dark mode follows the system, and the toggle is remembered', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto('./');
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const luminance = (rgb) => {
    const [r, g, b] = rgb.match(/\d+/g).map(Number);
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
  };
  expect(luminance(await background())).toBeLessThan(0.3);
  await analyse(page, CRASH);
  await expect(page.locator('svg[data-testid=timeline]').first()).toBeVisible();
  // Switch to light: applied now, and still after a reload, before the app's wasm has even
  // arrived (held back here), so a reload never flashes the system's dark theme first.
  await page.getByTestId('theme-toggle').click();
  expect(luminance(await background())).toBeGreaterThan(0.7);
  const appWasm = /prv-app-[^/]*_bg\.wasm$/;
  let release;
  const held = new Promise((resolve) => (release = resolve));
  await page.route(appWasm, async (route) => {
    await held;
    await route.continue();
  });
  await page.reload({ waitUntil: 'domcontentloaded' });
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  expect(luminance(await background())).toBeGreaterThan(0.7);
  await expect(page.getByTestId('theme-toggle')).toHaveCount(0);
  release();
  await expect(page.getByTestId('theme-toggle')).toBeVisible();
  expect(luminance(await background())).toBeGreaterThan(0.7);
  // And back to dark on a light system.
  await page.emulateMedia({ colorScheme: 'light' });
  await page.getByTestId('theme-toggle').click();
  expect(luminance(await background())).toBeLessThan(0.3);
});

test('readable at 360 px: nothing overflows the page', async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto('./');
  await analyse(page, 'java09_multi_table_branch_consumer.zip');
  await expect(page.locator('svg[data-testid=timeline]').first()).toBeVisible();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  // The verdict and the buttons fit.
  for (const id of ['verdict', 'copy-markdown', 'export-json']) {
    const box = await page.getByTestId(id).boundingBox();
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(360);
  }
});

test('filters by severity and by code', async ({ page }) => {
  await page.goto('./');
  await analyse(page, 'java09_pending_changelog.zip');
  const all = await page.locator('li.finding').count();
  expect(all).toBeGreaterThan(1);
  await page.locator('[data-filter-code=risky-options]').click();
  await expect(page.locator('li.finding[data-finding-code=risky-options]')).toHaveCount(0);
  await expect(page.locator('li.finding[data-finding-code=changelog-not-produced]').first()).toBeVisible();
  await page.getByTestId('filter-reset').click();
  await expect(page.locator('li.finding')).toHaveCount(all);
  await page.locator('[data-filter-severity=warning]').click();
  await expect(page.locator('li.finding[data-severity=warning]')).toHaveCount(0);
  await expect(page.locator('[data-filter-severity=warning]')).toHaveAttribute('aria-pressed', 'false');
});

test('Spark checkpoint positions are visible on the page', async ({ page }) => {
  const { root, runCli } = await import('./helpers.mjs');
  const { join } = await import('node:path');
  const zip = join(root, 'tests/fixtures/spark/b_consumer_caught_up.zip');
  const report = JSON.parse(runCli(zip, 'json'));
  const cp = report.tables.flatMap((t) => t.sparkCheckpoints ?? [])[0];
  expect(cp).toBeTruthy();
  await page.goto('./');
  await page.getByTestId('artifact-input').setInputFiles(zip);
  await expect(page.locator('[data-testid=verdict][data-verdict]')).toBeVisible({ timeout: 60_000 });
  const row = page.locator(`[data-testid=spark-checkpoints] [data-spark-row="${cp.path}"]`);
  await expect(row).toBeVisible();
  if (cp.offset) await expect(row).toContainText(`snapshot ${cp.offset.snapshotId}`);
  if (cp.resumeSnapshot !== undefined && cp.resumeSnapshot !== null) {
    await expect(row).toHaveAttribute('data-resume-snapshot', String(cp.resumeSnapshot));
  }
  // And on the timeline, as a flag.
  await expect(page.locator(`svg[data-testid=timeline] [data-spark-checkpoint="${cp.path}"]`)).toHaveCount(1);
});
