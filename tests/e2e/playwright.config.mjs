// Playwright drives Debian's Chromium (/usr/bin/chromium; Playwright's own browser downloads are
// not used) against dist/ served from a SUB-PATH, as a static host would serve it.
import { defineConfig } from '@playwright/test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const port = Number(process.env.PRV_E2E_PORT ?? 8765);
export const basePath = '/some/sub/path/';

export default defineConfig({
  testDir: '.',
  testMatch: /.*\.spec\.mjs$/,
  outputDir: `${root}/test-results`,
  timeout: 90_000,
  expect: { timeout: 30_000 },
  workers: 1,
  forbidOnly: !!process.env.CI,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${port}${basePath}`,
    browserName: 'chromium',
    headless: true,
    launchOptions: {
      executablePath: process.env.PRV_CHROMIUM ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-quic',
      ],
    },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
  webServer: {
    command: `node scripts/serve.mjs --root dist --host 127.0.0.1 --port ${port} --base ${basePath} --quiet`,
    cwd: root,
    url: `http://127.0.0.1:${port}${basePath}`,
    reuseExistingServer: false,
    timeout: 30_000,
  },
});
