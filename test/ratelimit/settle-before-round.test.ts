// The wait before a proof round (src/ratelimit/proof-timing.ts settleBeforeRoundS): a fixed window
// on the clock is fresh from its next edge, not 1.1 windows after the probe; every other limiter
// waits proofTiming's settle, and so does a set with any such limit in it.

import { describe, expect, it } from 'vitest';
import { proofTiming, settleBeforeRoundS } from '../../src/ratelimit/proof-timing.js';
import type { LimiterModel } from '../../src/ratelimit/limiters/index.js';

const minute: LimiterModel = { kind: 'fixed-window', limit: 600, window_s: 60, phase_s: 0, counts_refused: false };
// The probe began at Unix 1000 s, 40 s into a minute: the edges fall at 20 s, 80 s, 140 s of its clock.
const CLOCK_START_S = 1000;

describe('the wait before a round', () => {
  const { settleS } = proofTiming(60, 120, 150, 60);

  it('a minute on the clock: until its next edge and half a second, not 1.1 windows', () => {
    expect(settleS).toBe(66.5);
    expect(settleBeforeRoundS([minute], settleS, 101, CLOCK_START_S)).toBeCloseTo(39.5, 6);
    expect(settleBeforeRoundS([minute], settleS, 139.9, CLOCK_START_S)).toBeCloseTo(0.6, 6);
    // Just past an edge: a whole window, and never more than the settle.
    expect(settleBeforeRoundS([minute], settleS, 80.1, CLOCK_START_S)).toBeCloseTo(60.4, 6);
  });

  it('a window opened at the first request, a sliding one, a bucket, or none: the settle', () => {
    const opened: LimiterModel = { ...minute, edges: 'first-request' };
    const counter: LimiterModel = { ...minute, kind: 'sliding-counter' };
    const bucket: LimiterModel = { kind: 'bucket', rate_rps: 10, burst: 600 };
    for (const m of [opened, counter, bucket])
      expect(settleBeforeRoundS([m], settleS, 101, CLOCK_START_S)).toBe(settleS);
    expect(settleBeforeRoundS([], settleS, 101, CLOCK_START_S)).toBe(settleS);
  });

  it('a set: every window on the clock waits for the latest of their edges; one bucket beside them keeps the settle', () => {
    const second: LimiterModel = { ...minute, limit: 30, window_s: 1 };
    expect(settleBeforeRoundS([second, minute], settleS, 101, CLOCK_START_S)).toBeCloseTo(39.5, 6);
    const bucket: LimiterModel = { kind: 'bucket', rate_rps: 30, burst: 30 };
    expect(settleBeforeRoundS([bucket, minute], settleS, 101, CLOCK_START_S)).toBe(settleS);
  });
});
