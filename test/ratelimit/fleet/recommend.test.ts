// Choosing the fleet's policy from simulated rows, and sizing a fleet end to end from an estimate.

import { describe, expect, it } from 'vitest';
import type { FleetRow } from '../../../src/report/model.js';
import { chooseFleetPolicy } from '../../../src/ratelimit/fleet/recommend.js';
import { sizeFleet } from '../../../src/ratelimit/fleet/size.js';
import { sharingOf } from '../../../src/ratelimit/fleet/sharing.js';
import { limiterOf } from '../../../src/ratelimit/fleet/limiter-of.js';
import { fleetSizes } from '../../../src/ratelimit/fleet/sweep.js';

const row = (policy: string, over: Partial<FleetRow> = {}): FleetRow => ({
  policy,
  instances: 8,
  goodput_rps: 40,
  rate_429: 0.3,
  p99_ms: 5_000,
  lost: 0,
  drained_s: 12,
  drain_lost: 0,
  ...over,
});

describe('chooseFleetPolicy', () => {
  it.each([
    [
      'the only one under 5 % refused wins, despite less goodput',
      [row('no-jitter'), row('client-bucket', { goodput_rps: 32, rate_429: 0 })],
      'client-bucket',
    ],
    [
      'among qualifying ones, the most goodput',
      [row('a', { rate_429: 0.01, goodput_rps: 30 }), row('b', { rate_429: 0.04, goodput_rps: 38 })],
      'b',
    ],
    [
      'goodputs within 2 %: the shorter p99',
      [
        row('a', { rate_429: 0, goodput_rps: 40, p99_ms: 900 }),
        row('b', { rate_429: 0, goodput_rps: 39.5, p99_ms: 300 }),
      ],
      'b',
    ],
    [
      'a policy that loses calls never qualifies',
      [row('a', { rate_429: 0, lost: 1, goodput_rps: 45 }), row('b', { rate_429: 0.02 })],
      'b',
    ],
    [
      'none qualifies: the fewest lost, then the fewest refused',
      [row('a', { lost: 5 }), row('b', { lost: 2, rate_429: 0.6 }), row('c', { lost: 2, rate_429: 0.4 })],
      'c',
    ],
  ])('%s', (_why, rows, expected) => {
    expect(chooseFleetPolicy(rows, 8)?.row.policy).toBe(expected);
  });

  it('says why each other policy lost, and chooses nothing without rows at N', () => {
    const choice = chooseFleetPolicy([row('no-jitter', { lost: 3 }), row('client-bucket', { rate_429: 0 })], 8)!;
    expect(choice.why.join('\n')).toMatch(/not no-jitter: lost 3 calls/);
    expect(chooseFleetPolicy([row('a')], 9)).toBeNull();
  });
});

describe('sizeFleet', () => {
  const estimate = {
    sustained_rps: 50,
    burst: 20,
    scope: 'per-client' as const,
    retry_after_header: 'absent' as const,
    latency_p95_ms: 4,
  };
  const recommendation = {
    target_rps: 40,
    backoff: { base_ms: 40, cap_ms: 1_000, jitter: 'full' as const, max_retries: 6 },
  };

  it('splits the recommended rate across N instances of one credential and simulates every policy at 1, 4, 16 … N', () => {
    const fleet = sizeFleet({ estimate, recommendation, instances: 20 })!;
    expect(fleet.sharing).toBe('shared');
    expect(fleet.assumption).toMatch(/one credential/);
    expect(fleet.recommendation?.per_instance_rps).toBe(2);
    expect(fleet.recommendation?.per_instance_burst).toBe(1);
    expect(new Set(fleet.rows.map((r) => r.instances))).toEqual(new Set([1, 4, 16, 20]));
    expect(fleet.rows).toHaveLength(4 * 5);
    // No limiter identified: the simulator's bucket is said to be its assumption, never a kind claimed.
    expect(fleet.limiter).toBe(
      'an assumed bucket of 50 req/s, burst 20 (no limiter was identified: the rate that held and what passed from idle)',
    );
    expect(sizeFleet({ estimate, recommendation, instances: 20 })).toEqual(fleet);
  });

  it('gives each instance the whole rate when the limit is per token', () => {
    const fleet = sizeFleet({ estimate: { ...estimate, scope: 'per-token' }, recommendation, instances: 4 })!;
    expect(fleet.sharing).toBe('per-instance');
    expect(fleet.recommendation?.per_instance_rps).toBe(40);
  });

  it('simulates a large per-token fleet as a sample of independent instances, its totals scaled to N', () => {
    const fleet = sizeFleet({ estimate: { ...estimate, scope: 'per-token' }, recommendation, instances: 1000 })!;
    const atN = fleet.rows.filter((r) => r.instances === 1000);
    // Each of the 1,000 has its own 50 req/s: the fleet gets close to 50,000 through, never more
    // than that plus each instance's burst of 20 over the surge.
    for (const r of atN.filter((x) => x.policy !== 'client-bucket')) {
      expect(r.goodput_rps, r.policy).toBeGreaterThan(0.95 * 50_000);
      expect(r.goodput_rps, r.policy).toBeLessThanOrEqual(1000 * (50 + 20 / fleet.duration_s) + 1);
    }
    expect(fleet.offered_rps).toBe(75_000);
  });

  it('sizes nothing without a measured rate', () => {
    expect(sizeFleet({ estimate: { ...estimate, sustained_rps: null }, recommendation, instances: 4 })).toBeNull();
  });
});

describe('the pieces', () => {
  it('prefers the identified limiter model, else a bucket of the measured rate and burst', () => {
    const window = { kind: 'fixed-window', limit: 10, window_s: 1, phase_s: 0, counts_refused: true } as const;
    expect(limiterOf({ sustained_rps: 9.8, burst: 10, limiter: window })).toBe(window);
    expect(limiterOf({ sustained_rps: 9.8, burst: 10.4 })).toEqual({ kind: 'bucket', rate_rps: 9.8, burst: 10 });
    expect(limiterOf({ sustained_rps: null, burst: 10, limiter: null })).toBeNull();
  });

  it("adds the pace of a service slower than its limit, as a bucket a second's line deep", () => {
    const bucket = { kind: 'bucket', rate_rps: 50, burst: 50 } as const;
    expect(limiterOf({ sustained_rps: 50, burst: 50, limiter: bucket, served_rps: 33.35 })).toEqual([
      bucket,
      { kind: 'bucket', rate_rps: 33.35, burst: 33 },
    ]);
    expect(limiterOf({ sustained_rps: 50, burst: 50, limiter: bucket })).toBe(bucket);
  });

  it('assumes a shared limiter unless the limit is per token', () => {
    expect((['shared', 'per-client', 'per-token', 'unknown'] as const).map((s) => sharingOf(s).sharing)).toEqual([
      'shared',
      'shared',
      'per-instance',
      'shared',
    ]);
  });

  it('fleet sizes go up by fours and end at N', () => {
    expect(fleetSizes(1)).toEqual([1]);
    expect(fleetSizes(16)).toEqual([1, 4, 16]);
    expect(fleetSizes(1000)).toEqual([1, 4, 16, 64, 256, 1000]);
  });
});
