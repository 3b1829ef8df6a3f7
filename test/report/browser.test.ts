// report.html as a person opens it: in a real headless Chromium (Debian's, driven by
// playwright-core), offline. It must render its tables and charts with no console error and
// without a single network request; and at a desktop and a phone width it must show the verdict
// and what failed on the first screen, never scroll sideways, draw no glyph as an empty box
// (tofu: Chromium without extra fonts has no emoji), and draw no p99 in the pass green.

import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { renderHtml } from '../../src/report/html.js';
import type { Report } from '../../src/report/model.js';
import {
  findTofu,
  overflowing,
  overlappingPhaseLabels,
  p99Colours,
  pageWidth,
  type TofuReport,
} from './page-probes.js';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
// On CI the browser is installed by .ci/run: its absence there is a failure, not a skip.
if (!available && process.env['CI'])
  throw new Error(`Chromium not found at ${CHROMIUM}; .ci/run installs Debian's chromium`);

describe.skipIf(!available)(`report.html in headless Chromium (${CHROMIUM})`, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      // As root in a sandbox-less container; and no background traffic from the browser itself.
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  afterAll(async () => browser?.close());

  // The committed fixtures, and a real run's report (long k6 thresholds, phases narrower than their names).
  const FIXTURE_FILES = {
    pass: 'report-pass.json',
    fail: 'report-fail.json',
    'real run': 'layout/report-real-run.json',
  } as const;
  async function openReport(fixture: keyof typeof FIXTURE_FILES, width: number) {
    const report = JSON.parse(readFileSync(join('test/fixtures', FIXTURE_FILES[fixture]), 'utf8')) as Report;
    const file = join(mkdtempSync(join(tmpdir(), 'ces-html-')), 'report.html');
    writeFileSync(file, renderHtml(report));
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    return page;
  }

  it.each(['report-fail.json', 'report-pass.json'])(
    '%s renders tables and charts, offline, without console errors',
    async (fixture) => {
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
      for (const box of await page
        .locator('svg.chart')
        .evaluateAll((svgs) => svgs.map((s) => s.getBoundingClientRect().width)))
        expect(box).toBeGreaterThan(50);
      expect(requests).toEqual([]);
      expect(errors).toEqual([]);
      await page.close();
    },
  );

  const VIEWPORTS = [
    { name: 'desktop', width: 1280, height: 800 },
    { name: 'phone', width: 375, height: 812 },
  ] as const;
  const pages = (['fail', 'pass'] as const).flatMap((fixture) =>
    VIEWPORTS.map((viewport) => ({ file: `report-${fixture}.html`, fixture, width: viewport.name, viewport })),
  );

  it.each(pages)(
    '$file at $width width: verdict and what failed on the first screen, no sideways scroll, no tofu, no green p99',
    async ({ fixture, viewport }) => {
      const report = JSON.parse(readFileSync(join('test/fixtures', `report-${fixture}.json`), 'utf8')) as Report;
      const file = join(mkdtempSync(join(tmpdir(), 'ces-html-')), 'report.html');
      writeFileSync(file, renderHtml(report));
      const page = await browser.newPage({ viewport: { width: viewport.width, height: viewport.height } });
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });

      // The page never scrolls sideways: wide tables scroll inside their own box.
      expect(await page.evaluate(pageWidth)).toBeLessThanOrEqual(viewport.width);
      const verdict = await page.locator('.verdict').boundingBox();
      expect(verdict).not.toBeNull();
      expect(verdict!.y + verdict!.height).toBeLessThanOrEqual(viewport.height);
      expect((await page.locator('.verdict').innerText()).trim()).toBe(fixture === 'pass' ? 'PASS' : 'FAIL');
      if (fixture === 'fail') {
        // What failed starts on the first screen, right under the verdict.
        const lead = await page.locator('#lead').boundingBox();
        expect(lead!.y).toBeLessThan(viewport.height);
        expect(lead!.y).toBeGreaterThan(verdict!.y);
      }
      // Every status mark is drawn (an inline SVG of its own size), not a character.
      for (const box of await page
        .locator('svg.icon')
        .evaluateAll((icons) => icons.map((i) => i.getBoundingClientRect().width)))
        expect(box).toBeGreaterThan(8);

      const tofu: TofuReport = await page.evaluate(findTofu);
      // The detector works here: an unassigned code point renders as the missing-glyph box, a letter does not.
      expect(tofu.probe).toEqual({ unassigned: true, letter: false });
      expect(tofu.chars.length).toBeGreaterThan(0);
      expect(tofu.missing).toEqual([]);

      // p99 is never drawn in the colour that means pass.
      const colours = await page.evaluate(p99Colours);
      expect(colours.p99.length).toBe(report.load?.scenarios.length);
      for (const fill of colours.p99) expect(fill).not.toBe(colours.pass);
      await page.close();
    },
  );

  it.each(['real run', 'pass'] as const)(
    '%s report at desktop width: the load table shows every threshold whole, with no sideways scroll in its box',
    async (fixture) => {
      const page = await openReport(fixture, 1280);
      expect(await page.evaluate(overflowing, '#load .wrap')).toEqual([]);
      expect(await page.evaluate(overflowing, 'table.load td, table.load th')).toEqual([]);
      await page.close();
    },
  );

  it.each(['real run', 'fail'] as const)(
    '%s report at phone width: each check is a stacked block, with no sideways scroll in the checks table',
    async (fixture) => {
      const page = await openReport(fixture, 375);
      expect(await page.evaluate(overflowing, '#checks .wrap')).toEqual([]);
      // Stacked: the result takes the block's whole width below the check's id, not a sixth of it beside.
      const wrap = (await page.locator('#checks .wrap').boundingBox())!;
      // Every row's boxes in one evaluate: a boundingBox per cell was two round trips to the browser a row.
      const rows = await page.locator('table.checks tbody tr').evaluateAll((trs) =>
        trs.map((tr) => {
          const box = (selector: string) => {
            const cell = tr.querySelector(selector);
            return cell ? cell.getBoundingClientRect() : undefined;
          };
          const [id, result] = [box('th'), box('.msg')];
          return id && result ? { idBottom: id.y + id.height, y: result.y, width: result.width } : undefined;
        }),
      );
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(row).toBeDefined();
        expect(row!.y).toBeGreaterThanOrEqual(row!.idBottom - 1);
        expect(row!.width).toBeGreaterThan(wrap.width * 0.8);
      }
      await page.close();
      // The desktop keeps its six-column table, header and all.
      const desktop = await openReport(fixture, 1280);
      expect(
        await desktop
          .locator('table.checks thead th')
          .evaluateAll((ths) => ths.filter((th) => th.getBoundingClientRect().width > 0).length),
      ).toBe(6);
      await desktop.close();
    },
  );

  it.each([
    { fixture: 'real run', width: 1280 },
    { fixture: 'real run', width: 375 },
    { fixture: 'pass', width: 1280 },
  ] as const)(
    '$fixture report at $width px: no two phase labels of the rate-limit chart overlap',
    async ({ fixture, width }) => {
      const page = await openReport(fixture, width);
      const labels = await page.evaluate(overlappingPhaseLabels);
      expect(labels.labels).toBeGreaterThan(2);
      expect(labels.overlaps).toEqual([]);
      await page.close();
    },
  );
});
