// A first proof round that lets nothing through is tried again after a rest, once (proof-loop.ts
// withShutRetry). HAProxy's two stick tables, http_req_rate over 1 s (30) and 60 s (600), both
// counting every request: a probe of 56 s fills the minute's table, and round 1 at 24 req/s is
// refused from its first call, every retry of k6's keeping the table full: no call got through.
// The loop had nothing to lower from and ended "not proven" (exit 1 for a conformant service).
// The whole stage on the virtual clock (stack-sizing.ts).

import { describe, expect, it } from 'vitest';
import type { LimiterSet } from '../../src/ratelimit/limiters/index.js';
import { HORIZON_S, sizeTimed } from './stack-sizing.js';

const TABLES: LimiterSet = [
  { kind: 'sliding-window', limit: 30, period_s: 1, counts_refused: true, counter: 'interpolated' },
  { kind: 'sliding-window', limit: 600, period_s: 60, counts_refused: true, counter: 'interpolated' },
];

describe("HAProxy's 1 s and 60 s tables counting every request, the minute filled by the probe", () => {
  it('the first round, shut throughout, runs again after half the horizon at rest; a policy within 75–100 % of 10 req/s is proven', async () => {
    const { outcome, rounds } = await sizeTimed(TABLES);
    const context = JSON.stringify({ rounds, proofs: outcome.rounds });
    // In the table as it ran, marked as proving nothing of its rate.
    expect(outcome.rounds[0], context).toMatchObject({ verdict: 'inconclusive', goodput_rps: 0, refusals_began_s: 0 });
    expect(rounds[1]!.rps, context).toBe(rounds[0]!.rps);
    expect(rounds[1]!.startS - (rounds[0]!.startS + rounds[0]!.ranS), context).toBeGreaterThanOrEqual(HORIZON_S / 2);
    const given = outcome.proven?.target_rps;
    expect(given, context).toBeGreaterThanOrEqual(7.5);
    expect(given, context).toBeLessThanOrEqual(10);
  });
});
