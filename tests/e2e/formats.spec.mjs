// Row evidence read from every data file format in the page: warehouses written by Java Paimon
// 0.9 and the 1.0-line core with `file.format` / `changelog-file.format` = orc and avro (each with
// several compressions, tests/fixtures/writers/README.md), analysed in the browser. The page's
// JSON is the CLI's bytes, and each lost key's row table shows the values the CLI read from the
// ORC or Avro files: the wasm build reads those formats as the native one does.
import { test, expect } from '@playwright/test';
import { join } from 'node:path';
import { downloadText, root, runCli } from './helpers.mjs';

const WRITERS = join(root, 'tests/fixtures/writers');

// The values of a row-evidence cell (`{"id": 4, "v": "r4"}`) as strings.
const values = (row) => Object.values(row ?? {}).map(String);

for (const zip of ['j09_crash_orc.zip', 'j10_crash_orc.zip', 'j09_crash_avro.zip', 'j10_crash_avro.zip', 'j09_crash_zstd.zip']) {
  test(`row evidence from ${zip.replace(/^j\d+_crash_|\.zip$/g, '')} data files: ${zip}`, async ({ page }) => {
    const path = join(WRITERS, zip);
    const cliJson = runCli(path, 'json');
    const report = JSON.parse(cliJson);
    const lost = report.tables.flatMap((t) =>
      t.findings
        .filter((f) => f.code === 'lost-changelog' && f.rows?.keys?.length)
        .map((f) => ({ table: t, finding: f })),
    );
    // The fixture is what this test is about: lost keys, every value read (none unknown).
    expect(lost.length).toBeGreaterThan(0);
    for (const { finding } of lost) {
      for (const k of finding.rows.keys) {
        expect(k.batchState, JSON.stringify(k)).toBe('known');
        expect(k.deliveredState, JSON.stringify(k)).toBe('known');
      }
    }

    await page.goto('./');
    await page.getByTestId('artifact-input').setInputFiles(path);
    await expect(page.locator('[data-testid=verdict][data-verdict]')).toBeVisible({ timeout: 60_000 });
    expect((await downloadText(page, 'export-json')).text).toBe(cliJson);

    for (const { table, finding } of lost) {
      const article = page.locator(`article[data-table-path="${table.path}"][data-branch="${table.branch}"]`);
      const rows = article.locator(
        `li.finding[data-finding-code=lost-changelog][data-snapshot="${finding.snapshot}"] table[data-testid=lost-rows] tbody tr`,
      );
      await expect(rows).toHaveCount(finding.rows.keys.length);
      for (const [i, k] of finding.rows.keys.entries()) {
        const cells = rows.nth(i).locator('td');
        for (const l of k.lost) for (const v of values(l.row)) await expect(cells.nth(1)).toContainText(v);
        for (const d of k.delivered) for (const v of values(d.row)) await expect(cells.nth(2)).toContainText(v);
        for (const v of values(k.batch)) await expect(cells.nth(3)).toContainText(v);
      }
    }
  });
}
