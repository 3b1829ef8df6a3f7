// The pure rules of identification (src/ratelimit/identify.ts), on hand-made figures: which shape a
// recovery says, and the window lengths a set of edge brackets allows. No server, no clock.

import { describe, expect, it } from 'vitest';
import { midpoint, nextEdge, shapeOf, smoothClumpMax, windowLength } from '../../src/ratelimit/identify.js';

describe('shapeOf', () => {
  const base = { drained: 50, lateMs: 100, beforeMs: 900 };

  it('a limit that comes back whole is a window that resets', () => {
    expect(shapeOf({ ...base, recoveryMs: 700, clump: 50, trickleMs: null }).shape).toBe('resetting-window');
  });

  it('a big clump a smooth window could have freed in the ping’s lateness is no reset', () => {
    // 1.5 × 50 × 400 / 900 ≈ 33: a clump of 30 is what HAProxy frees 400 ms into its next period.
    expect(smoothClumpMax({ drained: 50, lateMs: 400, beforeMs: 900 })).toBeCloseTo(33.3, 1);
    expect(shapeOf({ drained: 50, lateMs: 400, beforeMs: 900, recoveryMs: 1100, clump: 30, trickleMs: 25 }).shape).toBe('sliding-window');
  });

  it('kept out for most of a period, then one every period / limit: a smooth sliding window', () => {
    const { shape, evidence } = shapeOf({ ...base, recoveryMs: 750, clump: 1, trickleMs: 25 });
    expect(shape).toBe('sliding-window');
    expect(evidence).toMatch(/nothing passed for 750 ms, then one request every 25 ms/);
  });

  it('a first recovery about as long as the next ones: a bucket', () => {
    expect(shapeOf({ ...base, recoveryMs: 60, clump: 2, trickleMs: 45 }).shape).toBe('bucket');
    // Three and a half intervals is the line between them.
    expect(shapeOf({ ...base, recoveryMs: 3.4 * 40, clump: 1, trickleMs: 40 }).shape).toBe('bucket');
    expect(shapeOf({ ...base, recoveryMs: 3.6 * 40, clump: 1, trickleMs: 40 }).shape).toBe('sliding-window');
  });

  it('a tiny limit (under four) is read as a bucket: the two cannot be told apart, and size alike', () => {
    expect(shapeOf({ ...base, drained: 3, recoveryMs: 900, clump: 1, trickleMs: 100 }).shape).toBe('bucket');
  });
});

describe('fixed-window edges on a lattice', () => {
  it('narrows the window length from every pair of edge brackets', () => {
    // True edges at 1000, 2000, 3000 ms, each known to ±50 ms or so.
    const edges = [
      { lo: 950, hi: 1010 },
      { lo: 1990, hi: 2060 },
      { lo: 2980, hi: 3005 },
    ];
    const length = windowLength(edges);
    expect(length.lo).toBeCloseTo(985, 0);
    expect(length.hi).toBeCloseTo(1015, 1);
    expect(length.lo).toBeLessThanOrEqual(1000);
    expect(length.hi).toBeGreaterThanOrEqual(1000);
    // The next edge, from every bracket moved on by the lengths allowed.
    const next = nextEdge(edges, length);
    expect(next.lo).toBeLessThanOrEqual(4000);
    expect(next.hi).toBeGreaterThanOrEqual(4000);
    expect(next.hi - next.lo).toBeLessThan(80);
  });

  it('is empty when no lattice fits (edges that move with the client)', () => {
    const length = windowLength([
      { lo: 990, hi: 1000 },
      { lo: 2090, hi: 2100 },
      { lo: 3000, hi: 3010 },
    ]);
    expect(length.lo).toBeGreaterThan(length.hi);
  });

  it('midpoint: the estimate and its relative half-width', () => {
    expect(midpoint({ lo: 990, hi: 1010 })).toEqual({ value: 1000, precision: 0.01 });
  });
});
