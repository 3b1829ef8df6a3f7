// A proof round waits for the limit to refill and runs long enough that a policy above the limit
// would have been refused: a 10 s proof of a per-minute limit could not fail.

import { describe, expect, it } from 'vitest';
import { proofTiming } from '../../src/ratelimit/proof-timing.js';
import { sustainedRate } from '../../src/ratelimit/limiters/index.js';

describe('proofTiming', () => {
  it.each([
    // refill, asked, cap → settle, proof
    { what: 'a bucket refilled in 0.4 s', refill: 0.4, asked: 10, cap: 60, settle: 1.1, proof: 10 },
    { what: 'no refill measured', refill: null, asked: 10, cap: 60, settle: 0.5, proof: 10 },
    { what: 'a 10 s window', refill: 10, asked: 10, cap: 60, settle: 15.5, proof: 12 },
    { what: 'a 20 s window: the short wait capped', refill: 20, asked: 10, cap: 60, settle: 30, proof: 24 },
    { what: 'a minute window: past the short cap', refill: 60, asked: 10, cap: 150, settle: 66.5, proof: 72 },
    { what: 'a minute window, the probe capped at 60 s', refill: 60, asked: 10, cap: 60, settle: 60, proof: 60 },
    { what: 'no proof asked for', refill: 60, asked: 0, cap: 150, settle: 66.5, proof: 0 },
    { what: 'a longer proof asked for', refill: 1, asked: 90, cap: 30, settle: 2, proof: 90 },
  ])('$what: waits $settle s, proves for $proof s', ({ refill, asked, cap, settle, proof }) => {
    expect(proofTiming(refill, asked, cap)).toEqual({ settleS: settle, proofS: proof });
  });

  it('a proof of a per-minute window at 30 % over the limit sends more than the window admits', () => {
    const window = { kind: 'fixed-window', limit: 600, window_s: 60, phase_s: 0, counts_refused: false } as const;
    const { proofS } = proofTiming(window.window_s, 10, 150);
    const tooFast = sustainedRate(window) * 1.3;
    // Wherever the proof starts, it covers at least proofS − window_s of one whole window, plus the rest.
    expect(tooFast * proofS).toBeGreaterThan(window.limit * (proofS / window.window_s));
    expect(tooFast * Math.min(proofS, window.window_s)).toBeGreaterThan(window.limit);
  });
});
