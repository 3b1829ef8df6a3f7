// The fleet proof's decisions without k6 (src/ratelimit/fleet/prove-fleet.ts): which run proves the
// choice, the promise it is held to, and the fleets one k6 run cannot hold.

import { describe, expect, it } from 'vitest';
import type { FleetFigures } from '../../../src/ratelimit/fleet/figures.js';
import { MAX_PROOF_INSTANCES, fleetProofOf, fleetProofRun } from '../../../src/ratelimit/fleet/prove-fleet.js';
import { sizeFleet, type FleetSizingInput } from '../../../src/ratelimit/fleet/size.js';

const input = (instances: number): FleetSizingInput => ({
  estimate: {
    sustained_rps: 50,
    burst: 50,
    limiter: { kind: 'bucket', rate_rps: 50, burst: 50 },
    scope: 'per-client',
    retry_after_header: 'truthful',
    latency_p95_ms: 3,
  },
  recommendation: { target_rps: 40, backoff: { base_ms: 40, cap_ms: 1000, jitter: 'full', max_retries: 6 } },
  instances,
});
const figures = (over: Partial<FleetFigures>): FleetFigures => ({
  goodput_rps: 40,
  rate_429: 0,
  p99_ms: 20,
  sent: 200,
  refused: 0,
  succeeded: 200,
  lost: 0,
  throttled: 0,
  ...over,
});

describe('fleetProofRun', () => {
  it('runs the chosen policy at N instances with the simulated surge, for the proof duration', () => {
    const fleet = sizeFleet(input(4))!;
    const run = fleetProofRun(input(4), fleet, 5);
    expect(run).toMatchObject({
      instances: 4,
      offered_rps: fleet.offered_rps,
      backlog: 0,
      duration_s: 5,
      policy: { name: fleet.recommendation!.policy },
    });
  });

  it(`says why not beyond ${MAX_PROOF_INSTANCES} instances`, () => {
    const fleet = sizeFleet(input(MAX_PROOF_INSTANCES + 1))!;
    expect(fleetProofRun(input(MAX_PROOF_INSTANCES + 1), fleet, 5)).toBe(
      `a k6 fleet run holds at most ${MAX_PROOF_INSTANCES} instances here, not ${MAX_PROOF_INSTANCES + 1}`,
    );
  });
});

describe('fleetProofOf: no call lost and at most 5 % refused', () => {
  const run = fleetProofRun(input(4), sizeFleet(input(4))!, 5);
  if (typeof run === 'string') throw new Error(run);
  it.each([
    [figures({}), 'proven'],
    [figures({ rate_429: 0.05 }), 'proven'],
    [figures({ rate_429: 0.051 }), 'not proven'],
    [figures({ lost: 1 }), 'not proven'],
    [figures({ sent: 0, succeeded: 0 }), 'not proven'],
    [null, 'not proven'],
  ])('%j → %s', (f, verdict) => {
    expect(fleetProofOf(run, f).verdict).toBe(verdict);
  });
});
