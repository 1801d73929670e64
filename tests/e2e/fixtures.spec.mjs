// Every fixture warehouse with an expectation (tests/fixtures/warehouses/scenarios.json, plus the
// lost-changelog crash and the healthy table): the page's verdict and finding codes are the CLI's,
// the expected codes are there and the excluded ones are not, and the timeline has a mark for each
// snapshot of each table (where it draws single marks).
import { test, expect } from '@playwright/test';
import { existsSync } from 'node:fs';
import { analyse, fixture, pageCodes, reportCodes, runCli, scenarios } from './helpers.mjs';

const cases = Object.entries(scenarios)
  .filter(([, s]) => s.zip && existsSync(fixture(s.zip)))
  .map(([name, s]) => ({ name, zip: s.zip, expect: s.expect ?? [], expectNot: s.expect_not ?? [] }));
cases.push(
  { name: 'java09_d_crash_between_append_and_compact', zip: 'java09_d_crash_between_append_and_compact.zip', expect: ['lost-changelog'], expectNot: [] },
  { name: 'java09_a_healthy_pk', zip: 'java09_a_healthy_pk.zip', expect: [], expectNot: ['lost-changelog'] },
);

for (const c of cases) {
  test(`fixture ${c.name}: verdict, findings and timeline marks`, async ({ page }) => {
    const report = JSON.parse(runCli(fixture(c.zip), 'json'));
    await page.goto('./');
    const verdict = await analyse(page, c.zip);
    await expect(verdict).toHaveAttribute('data-verdict', report.verdict);

    const codes = await pageCodes(page);
    expect(codes).toEqual(reportCodes(report));
    for (const code of c.expect) expect(codes, `expected ${code}`).toContain(code);
    for (const code of c.expectNot) expect(codes, `unexpected ${code}`).not.toContain(code);

    // Each finding with a snapshot or consumer carries it.
    for (const t of report.tables) {
      const article = page.locator(`article[data-table-path="${t.path}"][data-branch="${t.branch}"]`);
      await expect(article).toHaveCount(1);
      for (const f of t.findings) {
        let sel = `li.finding[data-finding-code="${f.code}"]`;
        if (f.snapshot !== undefined) sel += `[data-snapshot="${f.snapshot}"]`;
        if (f.consumer !== undefined) sel += `[data-consumer="${f.consumer}"]`;
        expect(await article.locator(sel).count(), sel).toBeGreaterThan(0);
      }
    }

    // The timeline of each table path: the main branch (shown first) has a mark per snapshot.
    const paths = [...new Set(report.tables.map((t) => t.path))];
    for (const path of paths) {
      const tables = report.tables.filter((t) => t.path === path);
      const shown = tables.find((t) => t.branch === 'main') ?? tables[0];
      if (!shown.snapshots.length) continue;
      const svg = page.locator(`[data-table-group="${path}"] svg[data-testid=timeline]`);
      await expect(svg).toHaveCount(1);
      if ((await svg.getAttribute('data-dense')) === 'true') {
        expect(await svg.locator('[data-snapshot-range]').count()).toBeGreaterThan(0);
        continue;
      }
      const ids = await svg.locator('[data-snapshot-id]').evaluateAll((els) =>
        els.map((e) => Number(e.getAttribute('data-snapshot-id'))).sort((a, b) => a - b),
      );
      expect(ids).toEqual(shown.snapshots.map((s) => s.id).sort((a, b) => a - b));
      for (const f of shown.findings.filter((f) => f.code === 'lost-changelog' && f.snapshot !== undefined)) {
        await expect(svg.locator(`[data-snapshot-id="${f.snapshot}"][data-finding-code=lost-changelog]`)).toHaveCount(1);
      }
    }
  });
}
