import { describe, expect, it } from 'vitest';
import { barChart, coord, legend, lineChart, linear, niceScale } from '../../src/report/common/svg.js';

const NOT_A_NUMBER = /NaN|Infinity|undefined/;

describe('niceScale', () => {
  it.each([
    [44, [0, 20, 40, 60]],
    [100, [0, 25, 50, 75, 100]],
    [0.3, [0, 0.1, 0.2, 0.3]],
    [7, [0, 2, 4, 6, 8]],
  ])('rounds %s up to round ticks', (max, ticks) => {
    expect(niceScale(max).ticks).toEqual(ticks);
  });

  it.each([0, -5, Number.NaN, Number.POSITIVE_INFINITY])('turns a max of %s into a usable 0..1 axis', (max) => {
    const scale = niceScale(max);
    expect(scale.max).toBe(1);
    expect(scale.ticks.every(Number.isFinite)).toBe(true);
  });
});

describe('linear', () => {
  it('maps the domain onto the range', () => {
    const f = linear(0, 10, 100, 200);
    expect([f(0), f(5), f(10)]).toEqual([100, 150, 200]);
  });

  it('maps a zero-width domain (a single point) to the middle', () => {
    expect(linear(3, 3, 0, 100)(3)).toBe(50);
  });

  it('turns a non-finite value into the domain start rather than NaN', () => {
    expect(linear(0, 10, 0, 100)(Number.NaN)).toBe(0);
  });
});

describe('coord', () => {
  it('rounds to a tenth and never prints -0 or NaN', () => {
    expect(coord(12.345)).toBe('12.3');
    expect(coord(-0.01)).toBe('0');
    expect(coord(Number.NaN)).toBe('0');
  });
});

describe('lineChart', () => {
  const base = { id: 'c', title: 'T', description: 'D', xLabel: 'x', yLabel: 'y' };

  it('says "no data" for no series or only empty ones', () => {
    for (const series of [[], [{ name: 'a', points: [] }]]) {
      const svg = lineChart({ ...base, series }).value;
      expect(svg).toContain('no data');
      expect(svg).toContain('<title id="c-title">T</title>');
      expect(svg).not.toMatch(NOT_A_NUMBER);
    }
  });

  it('draws a lone point as a dot in the middle', () => {
    const svg = lineChart({ ...base, series: [{ name: 'a', points: [{ x: 5, y: 3 }] }] }).value;
    expect(svg).toMatch(/<polyline [^>]*points="340,\d+(\.\d)?"/);
    expect(svg).toContain('<circle class="dot c0" cx="340"');
    expect(svg).not.toMatch(NOT_A_NUMBER);
  });

  it('draws an all-zero series on the baseline without dividing by zero', () => {
    const svg = lineChart({ ...base, series: [{ name: 'a', points: [0, 1, 2].map((x) => ({ x, y: 0 })) }] }).value;
    expect(svg).toContain('points="56,196 340,196 624,196"');
    expect(svg).not.toMatch(NOT_A_NUMBER);
  });

  it('escapes series names and titles', () => {
    const svg = lineChart({ ...base, title: '<b>', series: [{ name: '"><script>', points: [{ x: 0, y: 1 }] }] }).value;
    expect(svg).not.toContain('<script>');
    expect(svg).not.toContain('<b>');
    expect(svg).toContain('data-series="&quot;&gt;&lt;script&gt;"');
  });
});

describe('barChart', () => {
  const base = { id: 'b', title: 'T', description: 'D', yLabel: 'ms', unit: ' ms', seriesNames: ['p50', 'p95'] };

  it('draws zero-height bars for all-zero values', () => {
    const svg = barChart({ ...base, groups: [{ label: 'g', values: [0, 0] }] }).value;
    expect(svg.match(/height="0"/g)).toHaveLength(2);
    expect(svg).not.toMatch(NOT_A_NUMBER);
  });

  it('says "no data" without groups', () => {
    expect(barChart({ ...base, groups: [] }).value).toContain('no data');
  });

  it('shortens a long group label but keeps it whole in the tooltip', () => {
    const label = 'a-very-long-scenario-name-that-does-not-fit-under-its-bars';
    const groups = Array.from({ length: 6 }, (_, i) => ({ label: `${label}-${i}`, values: [1, 2] }));
    const svg = barChart({ ...base, groups }).value;
    expect(svg).toContain(`<title>${label}-0</title>`);
    expect(svg).toMatch(/>a-very-long[^<]*…<\/text>/);
  });
});

it('legend gives each entry its colour slot', () => {
  expect(legend([{ name: 'x', tone: 5 }, { name: 'y' }]).value).toBe(
    '<ul class="legend"><li><span class="swatch c5" aria-hidden="true"></span>x</li><li><span class="swatch c1" aria-hidden="true"></span>y</li></ul>',
  );
});
