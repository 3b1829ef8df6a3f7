// report.html as a person opens it: in a real headless Chromium (Debian's, driven by
// playwright-core), offline. It must render its tables and charts with no console error and
// without a single network request.

import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { renderHtml } from '../../src/report/html.js';
import type { Report } from '../../src/report/model.js';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
// On CI the browser is installed by .ci/run: its absence there is a failure, not a skip.
if (!available && process.env['CI']) throw new Error(`Chromium not found at ${CHROMIUM}; .ci/run installs Debian's chromium`);

describe.skipIf(!available)(`report.html in headless Chromium (${CHROMIUM})`, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      // As root in a sandbox-less container; and no background traffic from the browser itself.
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });
  afterAll(async () => browser?.close());

  it.each(['report-fail.json', 'report-pass.json'])('%s renders tables and charts, offline, without console errors', async (fixture) => {
    const report = JSON.parse(readFileSync(join('test/fixtures', fixture), 'utf8')) as Report;
    const file = join(mkdtempSync(join(tmpdir(), 'ces-html-')), 'report.html');
    writeFileSync(file, renderHtml(report));
    const page = await browser.newPage();
    const requests: string[] = [];
    const errors: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith('file:')) requests.push(r.url());
    });
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });

    const rows = await page.locator('table tbody tr').count();
    expect(rows).toBeGreaterThanOrEqual(report.checks.length);
    for (const c of report.checks) expect(await page.getByText(c.id, { exact: true }).count()).toBeGreaterThan(0);
    if (report.load) expect(await page.locator('svg').count()).toBeGreaterThanOrEqual(2);
    // Every chart has a size once laid out: it really rendered, it is not an empty element.
    for (const box of await page.locator('svg.chart').evaluateAll((svgs) => svgs.map((s) => s.getBoundingClientRect().width))) expect(box).toBeGreaterThan(50);
    expect(requests).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
