// "Since the last run" in each format, from a report compared with stored runs of the committed
// fixture: report.md leads with it, report.html draws a chart per figure with its band and a strip
// of past verdicts (and opens offline in Chromium), junit.xml has a testcase per change.

import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { XMLParser } from 'fast-xml-parser';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { remember } from '../../src/history/remember.js';
import { toRecord } from '../../src/history/record.js';
import { DEFAULT_REGRESSION_POLICY } from '../../src/report/sections/since/model.js';
import { axisOf, tickLabel, trendChart } from '../../src/report/sections/since/html.js';
import { renderHtml, renderJson, renderJunit, renderMarkdown } from '../../src/report/index.js';
import type { Report } from '../../src/report/model.js';

const fixture = JSON.parse(readFileSync('test/fixtures/report-pass.json', 'utf8')) as Report;
const run = (i: number, p95: number): Report => {
  const r = structuredClone(fixture);
  r.started_at = `2026-11-0${i}T00:00:00Z`;
  r.load!.scenarios[0]!.latency_ms.p95 = p95;
  return r;
};
const stored = [1, 2, 3, 4, 5].map((i) => toRecord(run(i, 20 + i)));
const compared = (p95: number, policy = DEFAULT_REGRESSION_POLICY) => remember(run(6, p95), stored, policy).report;

describe('Since the last run', () => {
  it('report.md: right under the title; "no history yet" on a first run; a table of the changes', () => {
    const first = renderMarkdown(remember(fixture, [], DEFAULT_REGRESSION_POLICY).report);
    expect(first.split('\n\n').slice(1, 3)).toEqual([
      '### Since the last run',
      'No history yet: this is the first stored run of this target, so there is nothing to compare.',
    ]);
    const md = renderMarkdown(compared(90));
    expect(md).toMatch(
      /^## .*\n\n### Since the last run\n\n1 regression and 0 changes for the better, judged against 5 stored runs/,
    );
    expect(md).toContain(
      `| ⚠️ warn | latency | k6 ${fixture.load!.scenarios[0]!.scenario}: p95\\_ms 90 ms (×3.9), above the band`,
    );
    expect(renderMarkdown(fixture)).not.toContain('Since the last run');
  });

  it('report.json carries since_last_run and trends', () => {
    const json = JSON.parse(renderJson(compared(90)));
    expect(json.since_last_run).toMatchObject({ history: 'compared', runs_compared: 5, outcome: 'warn' });
    expect(json.since_last_run.changes[0]).toMatchObject({
      kind: 'latency',
      name: 'p95_ms',
      before: 23,
      after: 90,
      action: 'warn',
    });
    expect(json.trends.verdicts).toHaveLength(6);
  });

  it('report.html: a chart per figure with its band, the flagged one marked, and a strip of verdicts; nothing external', () => {
    const report = compared(90);
    const page = renderHtml(report);
    expect(page).toContain('<section id="since"');
    expect(page.match(/<svg class="trend"/g)).toHaveLength(report.trends!.series.length);
    expect(page.match(/<rect class="band"/g)?.length).toBe(report.trends!.series.filter((s) => s.band).length);
    expect(page.match(/class="now out"/g)).toHaveLength(1);
    expect(page.match(/<div class="strip"[^>]*>(.*?)<\/div>/)![1]!.match(/<span/g)).toHaveLength(6);
    expect(page).not.toMatch(/(?:src|href)="https?:/);
    expect(renderHtml(fixture)).not.toContain('id="since"');
  });

  it('report.html marks each change with inline SVG, never an emoji a bare font draws as a box; a check that recovers is a "check status" change for the better', () => {
    const failedBefore = structuredClone(fixture);
    failedBefore.started_at = '2026-11-05T00:00:00Z';
    failedBefore.checks[0]!.status = 'fail';
    const page = renderHtml(
      remember(run(6, 90), [...stored.slice(0, 4), toRecord(failedBefore)], DEFAULT_REGRESSION_POLICY).report,
    );
    const rows = page.slice(page.indexOf('<section id="since"')).match(/<tbody>(.*?)<\/tbody>/s)![1]!;
    expect(rows).not.toMatch(/[\u{1F300}-\u{1FAFF}\u2600-\u27BF]/u);
    expect(rows).toMatch(/<span class="status st-warn"><svg class="icon"[^]*?<\/svg> warn<\/span><\/td><td>latency/);
    expect(rows).toMatch(
      /<span class="status st-pass"><svg class="icon"[^]*?<\/svg> better<\/span><\/td><td>check status<\/td><td>[^<]*fail → pass/,
    );
  });

  it('a band that bounds one side only is shaded from its judged edge to the far end, with no median', () => {
    // The check's burst count judged for a fall only, against runs offered faster (history/comparable.ts).
    const series = {
      kind: 'rate_limit' as const,
      subject: 'ratelimit.limit-enforced',
      name: 'accepted_before_limit',
      unit: '',
      values: [67, 67, 68, 67, 183],
      band: { median: 67, low: 63, high: 71, runs: 4 },
    };
    const both = String(trendChart(series, 0, false));
    const fall = String(trendChart({ ...series, side: 'down' }, 0, false));
    const rise = String(trendChart({ ...series, side: 'up' }, 0, false));
    expect(both).toContain('<line class="median"');
    expect(both).toContain('<title>noise band 63–71 (4 runs)</title>');
    expect(fall).not.toContain('<line class="median"');
    expect(fall).toContain('<title>bound from below: under 63 is a change (4 runs); a rise is not compared</title>');
    expect(rise).toContain('<title>bound from above: over 71 is a change (4 runs); a fall is not compared</title>');
    // Shaded up to the top of the plot (y 6) from below, down to its foot (y 66) from above.
    expect(fall).toMatch(/<rect class="band" x="30" width="204" y="6" /);
    expect(rise).toMatch(/<rect class="band" x="30" width="204" y="[\d.]+" height="[\d.]+"/);
    const [y, height] = rise
      .match(/<rect class="band" x="30" width="204" y="([\d.]+)" height="([\d.]+)"/)!
      .slice(1)
      .map(Number);
    expect(y! + height!).toBeCloseTo(66, 5);
  });

  it('trend chart ticks fit beside the plot: a lifetime of 86,400 s reads 100k, not a clipped "0000"', () => {
    expect([0, 0.005, 50, 9500, 50_000, 100_000].map(tickLabel)).toEqual(['0', '0.005', '50', '9500', '50k', '100k']);
  });

  it('a trend that goes below 0 (a clock skew of -1 s) gets an axis below 0, not points drawn under the plot', () => {
    for (const [low, top] of [
      [-1, 1.5],
      [-0.3, 0.2],
      [-40, 3],
      [-2, 0],
    ] as const) {
      const axis = axisOf(low, top);
      expect(axis.min).toBeLessThanOrEqual(low);
      expect(axis.max).toBeGreaterThanOrEqual(top);
      expect(axis.ticks).toContain(0);
      expect(axis.ticks.length).toBeLessThanOrEqual(5);
    }
    expect(axisOf(0, 86_400)).toEqual({ min: 0, max: 100_000, ticks: [0, 50_000, 100_000] });
  });

  it('junit.xml: a since-last-run suite, a failure only where the policy fails', () => {
    const parse = (xml: string) =>
      new XMLParser({ ignoreAttributes: false }).parse(xml).testsuites.testsuite as Array<Record<string, unknown>>;
    const suite = (xml: string) => parse(xml).find((s) => s['@_name'] === 'since-last-run')!;
    expect(suite(renderJunit(compared(90)))['@_failures']).toBe('0');
    const failing = suite(renderJunit(compared(90, { ...DEFAULT_REGRESSION_POLICY, latency: 'fail' })));
    expect(failing['@_failures']).toBe('1');
    expect(failing['@_tests']).toBe('2');
  });

  it('a figure not compared is said in every format, and the headline claims nothing about it', () => {
    const report = compared(23);
    const text =
      "ratelimit.limit-enforced: accepted_before_limit 182 not compared: its burst was offered at 69/s, and 0 of the last 5 runs within ×1.2 of that (3 needed; the stored runs' 200/s)";
    report.since_last_run!.not_compared = [
      { subject: 'ratelimit.limit-enforced', name: 'accepted_before_limit', text },
    ];
    const md = renderMarkdown(report);
    expect(md).toMatch(
      /### Since the last run\n\nNothing changed in what was compared, judged against 5 stored runs .*; 1 figure not compared\./,
    );
    expect(md).toContain(`- not compared: ratelimit.limit-enforced: accepted\\_before\\_limit 182 not compared`);
    expect(renderHtml(report)).toContain(
      '<p class="muted">not compared: ratelimit.limit-enforced: accepted_before_limit 182',
    );
    expect(renderJunit(report)).toContain(`not compared: ratelimit.limit-enforced: accepted_before_limit 182`);
  });

  const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
  it.runIf(existsSync(CHROMIUM))(
    'report.html with trends opens offline in Chromium without console errors',
    async () => {
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
      });
      try {
        const file = join(mkdtempSync(join(tmpdir(), 'ces-since-')), 'report.html');
        writeFileSync(file, renderHtml(compared(90)));
        const page = await browser.newPage();
        const problems: string[] = [];
        page.on('request', (r) => void (r.url().startsWith('file:') || problems.push(r.url())));
        page.on('console', (m) => void (m.type() === 'error' && problems.push(m.text())));
        await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
        const widths = await page
          .locator('svg.trend')
          .evaluateAll((svgs) => svgs.map((s) => s.getBoundingClientRect().width));
        expect(widths.length).toBeGreaterThan(3);
        for (const w of widths) expect(w).toBeGreaterThan(100);
        expect(problems).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});
