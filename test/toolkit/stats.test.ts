// The shared figures: nearest-rank percentiles, medians and rounding, on hand-made tables.

import { describe, expect, it } from 'vitest';
import { median, percentile, round } from '../../src/toolkit/stats.js';

describe('percentile (nearest rank)', () => {
  const five = [5, 1, 3, 2, 4];
  const hundred = Array.from({ length: 100 }, (_, i) => 100 - i);
  it.each([
    { values: five, p: 50, want: 3 },
    { values: five, p: 95, want: 5 },
    { values: five, p: 100, want: 5 },
    { values: five, p: 0, want: 1 },
    { values: five, p: 20, want: 1 },
    { values: five, p: 21, want: 2 },
    { values: hundred, p: 95, want: 95 },
    { values: hundred, p: 99, want: 99 },
    { values: [7], p: 50, want: 7 },
    { values: [], p: 95, want: null },
  ])('p$p of $values.length values is $want', ({ values, p, want }) => {
    expect(percentile(values, p)).toBe(want);
  });

  it('leaves the values as they were', () => {
    const values = [3, 1, 2];
    percentile(values, 50);
    expect(values).toEqual([3, 1, 2]);
  });
});

describe('round', () => {
  it.each([
    { n: 1.23456, digits: 2, want: 1.23 },
    { n: 1.235, digits: 1, want: 1.2 },
    { n: 2.5, digits: 0, want: 3 },
    { n: 0.00049, digits: 3, want: 0 },
    { n: 1234.5678, digits: 3, want: 1234.568 },
    { n: -1.26, digits: 1, want: -1.3 },
  ])('$n to $digits decimals is $want', ({ n, digits, want }) => {
    expect(round(n, digits)).toBe(want);
  });
});

describe('median', () => {
  it.each([
    { values: [3, 1, 2], want: 2 },
    { values: [4, 1, 3, 2], want: 2.5 },
    { values: [10, 1], want: 5.5 },
    { values: [7], want: 7 },
    { values: [5, 5, 1, 100], want: 5 },
  ])('of $values is $want', ({ values, want }) => {
    expect(median(values)).toBe(want);
  });

  it('is NaN for no values, and leaves the values as they were', () => {
    expect(median([])).toBeNaN();
    const values = [3, 1, 2];
    median(values);
    expect(values).toEqual([3, 1, 2]);
  });
});
