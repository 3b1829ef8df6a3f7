// HAProxy's most common recipe: `http_req_rate(10s)` in a stick table, `track-sc0` on every request
// and `deny if { sc_http_req_rate(0) gt 100 }`, refused requests counted too (issue 35: "HAProxy's
// 10 s window with every request counted is sized like the rest"). At 300 per 10 s a quiet spell
// after the first clump times it (quiet-ramp.ts); at 100 the first edge is met late in its window
// (the window before held far more than the limit) and too little of it was left, so the probe
// ended "not identified" at 16.6 virtual s. Timed across the next edge instead (next-window-ramp.ts).

import { describe, expect, it } from 'vitest';
import { proofHolds } from '../../src/ratelimit/proof-loop.js';
import { proofConcurrency, recommend } from '../../src/ratelimit/recommend.js';
import { discoverVirtual, haproxyRate, openedEarlier } from './virtual-limit.js';
import { virtualK6Round } from './virtual-proof.js';
import { seeded } from './seeded.js';

/** Where the set-up requests opened its period before the drain: the probe starts anywhere in it. */
const LEADS_MS = [0, 300, 1000, 2500, 6000];

async function probed(limit: number, leadMs: number) {
  const limiter = openedEarlier(haproxyRate(limit, 10_000, true), leadMs);
  const estimate = await discoverVirtual({ limiter: () => limiter, status: 429 }, { maxDurationS: 60 });
  return {
    limiter,
    estimate,
    row: `${limit} per 10 s, ${leadMs} ms lead: ${JSON.stringify(estimate.limiter)}\n${estimate.notes.join('\n')}`,
  };
}

describe("HAProxy's 10 s window with every request counted, at limits a quiet spell cannot time", () => {
  it.each(LEADS_MS)(
    '100 per 10 s, its period opened %i ms before the drain: a counter of 100 per 10 s counting refused requests, its rate within 1 % and never 0.6 % fast, in three windows',
    async (leadMs) => {
      const { estimate, row } = await probed(100, leadMs);
      expect(estimate.limiter, row).toMatchObject({ kind: 'sliding-counter', limit: 100, counts_refused: true });
      expect(estimate.sustained_rps, row).toBeGreaterThanOrEqual(10 * 0.99);
      expect(estimate.sustained_rps, row).toBeLessThanOrEqual(10 * 1.006);
      expect(estimate.limiter_evidence.join('\n'), row).toMatch(/kept quiet past the next edge/);
      expect(estimate.duration_s, row).toBeLessThanOrEqual(30);
    },
  );

  // Two clumps in the window after the first edge, timed only to ±1.05 %: the next window times it.
  it.each([1000, 2500])(
    '200 per 10 s, its period opened %i ms before the drain: sized across the next edge when the quiet spell timed it too loosely',
    async (leadMs) => {
      const { estimate, row } = await probed(200, leadMs);
      expect(estimate.limiter, row).toMatchObject({ kind: 'sliding-counter', limit: 200, counts_refused: true });
      expect(Math.abs(estimate.sustained_rps! / 20 - 1), row).toBeLessThanOrEqual(0.01);
      expect(estimate.limiter_evidence.join('\n'), row).toMatch(/timed it only to/);
    },
  );

  // What the stage then does with it: a policy, and a round at it over the horizon that holds.
  it.each([0, 2500])(
    '100 per 10 s, %i ms lead: the policy is within 75–100 % of 10 req/s and a paced round holds it for 120 s',
    async (leadMs) => {
      const { limiter, estimate, row } = await probed(100, leadMs);
      const rec = recommend(estimate);
      expect(rec, row).not.toBeNull();
      expect(rec!.target_rps, row).toBeGreaterThanOrEqual(7.5);
      expect(rec!.target_rps, row).toBeLessThanOrEqual(10);
      const proof = virtualK6Round(
        limiter,
        rec!,
        proofConcurrency(rec!),
        estimate.duration_s + 2,
        120,
        seeded(leadMs + 1),
        undefined,
        0,
        true,
      );
      expect(proofHolds(proof), JSON.stringify(proof)).toMatchObject({ holds: true });
      expect(proof.rate_429, JSON.stringify(proof)).toBe(0);
    },
  );
});
