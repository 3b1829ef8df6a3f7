// The rate-limit chart: requests per second at the probe's own resolution, the probe's phases
// shaded, reference lines at the measured limit and the recommended rate.

import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/report/html.js';
import type { RateLimitResult } from '../../src/report/model.js';
import {
  perSecond,
  phaseBands,
  rateReferences,
  resolution,
} from '../../src/report/sections/rate-limit/html-timeline.js';
import { loadFixture } from './helpers.js';

const chartOf = (html: string): string => /<svg [^>]*id="chart-rate-limit"[\s\S]*?<\/svg>/.exec(html)?.[0] ?? '';

describe('rate-timeline', () => {
  const tenth = [
    { t: 0, offered: 12, accepted: 12, limited: 0, phase: 'drain' },
    { t: 0.1, offered: 12, accepted: 5, limited: 7, phase: 'drain' },
    { t: 0.2, offered: 0, accepted: 0, limited: 0, phase: 'wait' },
    { t: 0.3, offered: 20, accepted: 5, limited: 15, phase: 'burst' },
  ];

  it('turns the counts of 100 ms samples into requests per second', () => {
    expect(perSecond(tenth).map((p) => Math.round(p.offered))).toEqual([120, 120, 0, 200]);
    expect(perSecond(tenth).map((p) => Math.round(p.limited))).toEqual([0, 70, 0, 150]);
    expect(resolution(tenth)).toBe(0.1);
  });

  it('leaves one-second counts as they are', () => {
    const seconds = [0, 1, 2].map((t) => ({ t, offered: 40, accepted: 40, limited: 0 }));
    expect(perSecond(seconds).map((p) => p.offered)).toEqual([40, 40, 40]);
    expect(resolution(seconds)).toBe(1);
    expect(phaseBands(seconds)).toEqual([]);
  });

  it('makes one band per run of a phase, each to the end of its last sample', () => {
    const bands = phaseBands(tenth).map((b) => ({ ...b, to: Math.round(b.to * 10) / 10 }));
    expect(bands).toEqual([
      { label: 'drain', from: 0, to: 0.2 },
      { label: 'wait', from: 0.2, to: 0.3 },
      { label: 'burst', from: 0.3, to: 0.4 },
    ]);
  });

  it('draws the measured limit and the recommended rate, and nothing the probe did not find', () => {
    const r = loadFixture('pass').rate_limit as RateLimitResult;
    expect(rateReferences(r).map((x) => [x.label, x.value])).toEqual([
      ['measured limit 50.0/s', 50],
      ['recommended 40.0/s', 40],
    ]);
    expect(rateReferences({ ...r, sustained_rps: null, recommendation: null })).toEqual([]);
  });
});

describe('the rate-limit chart in report.html', () => {
  it('report-pass (100 ms samples with phases): every phase shaded and named, rates per second, both reference lines', () => {
    const report = loadFixture('pass');
    const svg = chartOf(renderHtml(report));
    const phases = [...svg.matchAll(/<g class="band band-\d" data-phase="([^"]+)">/g)].map((m) => m[1]);
    expect(phases).toEqual(['drain', 'sustained', 'wait', 'burst']);
    for (const phase of phases)
      expect(svg).toMatch(
        new RegExp(`data-phase="${phase}"><title>${phase}</title><rect [^>]*/><text [^>]*>${phase}</text>`),
      );
    expect([...svg.matchAll(/data-reference="([^"]+)" data-value="([^"]+)"/g)].map((m) => [m[1], m[2]])).toEqual([
      ['measured limit 50.0/s', '50'],
      ['recommended 40.0/s', '40'],
    ]);
    // Every 100 ms sample is a point; the burst's 25 requests in 100 ms are 250/s, so the axis reaches 300.
    const offered = /data-series="offered" data-points="(\d+)"/.exec(svg)?.[1];
    expect(Number(offered)).toBe(report.rate_limit?.timeline?.length);
    expect(report.rate_limit?.timeline?.length).toBe(100);
    expect(svg).toContain('text-anchor="end">300</text>');
    expect(svg).toContain('one every 0.1 s');
  });

  it('report-fail (1 s samples, no phases): no band, the same reference lines', () => {
    const svg = chartOf(renderHtml(loadFixture('fail')));
    expect(svg).not.toContain('class="band');
    expect(svg.match(/data-reference=/g)).toHaveLength(2);
  });
});
