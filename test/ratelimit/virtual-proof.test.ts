// The virtual k6 round's end (virtual-proof.ts k6EndedS): k6 exits once the calls in flight end
// (scenarios/rate-limit.ts gracefulStop is the retry budget and 5 s), so the stage rests for its next
// round only from then; a round cut short stops at once. Before, the drivers on the virtual clock
// rested from the end of the arrivals, and a next round began inside the retry tail, its first
// requests spent by the last round's retries (20 per 1 s before a counter of 300 per 60 s, searched:
// 54-62 % of the rate given where the stage's own timing gives 74-86 %).

import { describe, expect, it } from 'vitest';
import type { Recommendation } from '../../src/ratelimit/types.js';
import { fromModel } from './virtual-limit.js';
import { k6EndedS, pacedPolicy, virtualK6Round, virtualProofRound } from './virtual-proof.js';
import { seeded } from './seeded.js';

const policy = (target_rps: number): Recommendation => pacedPolicy(target_rps, 8);

describe('a virtual k6 round ends when k6 would exit', () => {
  it('calls still waiting out a refusal when the arrivals end: k6 exits after their retries, within the retry budget', () => {
    // A fixed window of 20 per 10 s met at 4 req/s: its quota spent 5 s in, every later call waits
    // for the edge at 10 s, after the arrivals end at 8 s.
    const limiter = fromModel({ kind: 'fixed-window', limit: 20, window_s: 10, phase_s: 0, counts_refused: false });
    const rec = policy(4);
    const proof = virtualK6Round(limiter, rec, 8, 0, 8, seeded(1));
    expect(proof.cut_at_s).toBeUndefined();
    const endedS = k6EndedS(proof, 8);
    expect(endedS).toBeGreaterThanOrEqual(10);
    expect(endedS).toBeLessThanOrEqual(8 + rec.retry_budget_s);
  });

  it('a round with nothing left in flight, one cut short, and one not run as k6 runs it: the arrivals’ end', () => {
    const rec = policy(2);
    const open = fromModel({ kind: 'bucket', rate_rps: 50, burst: 50 });
    const held = virtualK6Round(open, rec, 4, 0, 10, seeded(1));
    expect(k6EndedS(held, 10)).toBeCloseTo(10, 0);
    const slow = fromModel({ kind: 'bucket', rate_rps: 1, burst: 1 });
    const cut = virtualK6Round(slow, policy(5), 10, 0, 60, seeded(1), { afterRefusalsS: 0, atOnceAfterS: 0 });
    expect(cut.cut_at_s).toBeDefined();
    expect(k6EndedS(cut, cut.cut_at_s!)).toBe(cut.cut_at_s);
    expect(k6EndedS(virtualProofRound(open, 2, 0, 10), 10)).toBe(10);
  });
});
