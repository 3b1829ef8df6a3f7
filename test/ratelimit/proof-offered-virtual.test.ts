// A proof round holds only if it offered its rate (proof-loop.ts PROOF_PROMISE, max_dropped). A
// fixed window of 200 per 10 s behind a bucket of 100 per second (20 req/s sustained) answers a
// client above its rate with a Retry-After up to the window's edge: k6's calls wait it out, each
// holding a VU, and the arrivals that find none free are dropped, not sent. The 429 share stays
// under the 1 % promise, so before, a round at 27 req/s "held" and the search gave 24 req/s for a
// limit of 20 (the whole stage on the virtual clock: unidentified-search-virtual's driver). Each
// round as k6 runs it (virtualK6Round), from a fresh limiter, over the 120 s horizon.

import { describe, expect, it } from 'vitest';
import { proofHolds } from '../../src/ratelimit/proof-loop.js';
import { proofConcurrency } from '../../src/ratelimit/recommend.js';
import type { Recommendation } from '../../src/ratelimit/types.js';
import { fromModel } from './virtual-limit.js';
import { pacedPolicy, virtualK6Round } from './virtual-proof.js';
import { seeded } from './seeded.js';

const stack = () =>
  fromModel([
    { kind: 'bucket', rate_rps: 100, burst: 100 },
    { kind: 'fixed-window', limit: 200, window_s: 10, phase_s: 3, counts_refused: false },
  ]);

/** The search's policy at 27 req/s in that run. */
const policy = (target_rps: number): Recommendation => pacedPolicy(target_rps);

describe('a round holds only when it offered its rate', () => {
  it('27 req/s against 200 per 10 s: under 1 % of 429s, but a quarter of its arrivals dropped while calls waited: fails', () => {
    const rec = policy(27);
    const proof = virtualK6Round(stack(), rec, proofConcurrency(rec), 10, 120, seeded(7));
    const context = JSON.stringify(proof);
    expect(proof.rate_429, context).toBeLessThanOrEqual(0.01);
    expect(proof.lost_requests, context).toBe(0);
    expect(proof.goodput_rps, context).toBeLessThan(21);
    expect(proofHolds(proof), context).toMatchObject({ holds: false });
    expect(proofHolds(proof).why, context).toMatch(
      /arrivals dropped while calls waited out refusals, so the rate was not offered/,
    );
  });

  it('18 req/s, under the limit: every arrival sent, no 429: holds', () => {
    const rec = policy(18);
    const proof = virtualK6Round(stack(), rec, proofConcurrency(rec), 10, 120, seeded(7));
    expect(proof.dropped_arrivals, JSON.stringify(proof)).toBeUndefined();
    expect(proofHolds(proof), JSON.stringify(proof)).toMatchObject({ holds: true });
  });
});
