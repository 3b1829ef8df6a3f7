// Exponential backoff with full jitter: the window doubles from the base up to the cap, and the
// wait is the window scaled by the random draw, from 0 up to (not including) the window.

import { describe, expect, it } from 'vitest';
import { backoffWindowMs, fullJitterMs } from '../../src/toolkit/backoff.js';

describe('backoffWindowMs', () => {
  it.each([
    { base: 100, cap: 2_000, attempt: 0, want: 100 },
    { base: 100, cap: 2_000, attempt: 1, want: 200 },
    { base: 100, cap: 2_000, attempt: 4, want: 1_600 },
    { base: 100, cap: 2_000, attempt: 5, want: 2_000 },
    { base: 100, cap: 2_000, attempt: 60, want: 2_000 },
    { base: 250, cap: 250, attempt: 0, want: 250 },
  ])('base $base, cap $cap, attempt $attempt: $want ms', ({ base, cap, attempt, want }) => {
    expect(backoffWindowMs(base, cap, attempt)).toBe(want);
  });
});

describe('fullJitterMs', () => {
  it.each([
    { draw: 0, attempt: 3, want: 0 },
    { draw: 0.5, attempt: 0, want: 50 },
    { draw: 0.5, attempt: 3, want: 400 },
    { draw: 0.25, attempt: 10, want: 500 },
    { draw: 0.999, attempt: 1, want: 199.8 },
  ])('draw $draw, attempt $attempt (base 100, cap 2000): $want ms', ({ draw, attempt, want }) => {
    expect(fullJitterMs(100, 2_000, attempt, () => draw)).toBeCloseTo(want, 9);
  });

  it('draws once per wait', () => {
    let draws = 0;
    fullJitterMs(100, 2_000, 2, () => (draws++, 0.5));
    expect(draws).toBe(1);
  });
});
