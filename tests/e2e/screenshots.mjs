#!/usr/bin/env node
// Takes the README's screenshots (docs/screenshot-light.png, docs/screenshot-dark.png) of the
// built page (dist/, run `make dist` first) with playwright-core and Debian's Chromium:
//   node tests/e2e/screenshots.mjs
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const port = 8799;
const server = spawn('node', ['scripts/serve.mjs', '--root', 'dist', '--port', String(port), '--base', '/prv/', '--quiet'], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
});
await new Promise((resolve) => server.stdout.once('data', resolve));
const browser = await chromium.launch({
  executablePath: process.env.PRV_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
try {
  mkdirSync(`${root}/docs`, { recursive: true });
  for (const scheme of ['light', 'dark']) {
    const page = await browser.newPage({ viewport: { width: 1200, height: 1500 }, colorScheme: scheme, deviceScaleFactor: 1 });
    await page.goto(`http://127.0.0.1:${port}/prv/`);
    await page.getByTestId('artifact-input').setInputFiles(
      `${root}/tests/fixtures/warehouses/java09_d_crash_between_append_and_compact.zip`,
    );
    await page.locator('[data-testid=verdict][data-verdict]').waitFor({ timeout: 60_000 });
    await page.locator('svg[data-testid=timeline]').first().waitFor();
    await page.waitForTimeout(300);
    await page.screenshot({ path: `${root}/docs/screenshot-${scheme}.png` });
    await page.close();
    console.log(`docs/screenshot-${scheme}.png`);
  }
} finally {
  await browser.close();
  server.kill();
}
