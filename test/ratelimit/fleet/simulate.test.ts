// The fleet simulator: deterministic for a seed, never beyond what the limiter admits, and the
// differences between policies that the sizing relies on (adaptive throttling and a client-side
// bucket refuse less than retries without jitter; Retry-After honoured costs fewer refusals).

import { describe, expect, it } from 'vitest';
import type { LimiterModel } from '../../../src/ratelimit/limiters/index.js';
import { burstSize, describeLimiter, sustainedRate } from '../../../src/ratelimit/limiters/index.js';
import { FLEET_POLICY_NAMES, type FleetPolicy, type FleetPolicyName } from '../../../src/ratelimit/fleet/policy.js';
import { simulate, type SimulationSetup } from '../../../src/ratelimit/fleet/simulate.js';

const BUCKET: LimiterModel = { kind: 'bucket', rate_rps: 40, burst: 10 };
const LIMITERS: LimiterModel[] = [
  BUCKET,
  { kind: 'fixed-window', limit: 40, window_s: 1, phase_s: 0.3, counts_refused: false },
  { kind: 'sliding-window', limit: 80, period_s: 2, counts_refused: true },
  // go-chi/httprate's sliding-window counter, and Envoy's bucket refilled in batches.
  { kind: 'sliding-counter', limit: 40, window_s: 1, phase_s: 0.3, counts_refused: false },
  { kind: 'bucket', rate_rps: 40, burst: 20, fill_interval_s: 0.25 },
];

const policy = (name: FleetPolicyName, instances: number, extra: Partial<FleetPolicy> = {}): FleetPolicy => ({
  name,
  base_ms: 50,
  cap_ms: 2_000,
  max_retries: 6,
  honour_retry_after: false,
  ...(name === 'client-bucket' ? { rate_rps: 32 / instances, burst: Math.max(1, Math.floor(8 / instances)) } : {}),
  ...extra,
});

const surge = (
  limiter: LimiterModel,
  instances: number,
  p: FleetPolicy,
  over: Partial<SimulationSetup> = {},
): SimulationSetup => ({
  limiter,
  sharing: 'shared',
  instances,
  policy: p,
  offered_rps: sustainedRate(limiter) * 1.5,
  backlog: 0,
  duration_s: 20,
  latency_ms: 4,
  seed: 7,
  until: 'end',
  ...over,
});

describe('simulate', () => {
  it('gives the same figures for the same seed, and other figures for another', () => {
    const setup = surge(BUCKET, 16, policy('full-jitter', 16));
    expect(simulate(setup)).toEqual(simulate(setup));
    expect(simulate({ ...setup, seed: 8 })).not.toEqual(simulate(setup));
  });

  it.each(LIMITERS.map((l) => [describeLimiter(l), l] as const))(
    'never gets more through a %s than it admits, whatever the policy or fleet size',
    (_kind, limiter) => {
      for (const instances of [1, 4, 16, 1000]) {
        for (const name of FLEET_POLICY_NAMES) {
          const setup = surge(limiter, instances, policy(name, instances));
          const r = simulate(setup);
          // The long-run rate, plus what the limiter holds at the start (a burst, or a first window).
          const ceiling = sustainedRate(limiter) + burstSize(limiter) / setup.duration_s;
          expect({ instances, name, goodput: r.goodput_rps }).toEqual({ instances, name, goodput: expect.any(Number) });
          expect(r.goodput_rps, `${name} × ${instances}`).toBeLessThanOrEqual(ceiling + 1e-9);
          // Everything sent was answered one way or the other; nothing is counted twice.
          expect(r.refused).toBeLessThanOrEqual(r.sent);
          expect(r.succeeded).toBeLessThanOrEqual(r.sent - r.refused);
          expect(r.truncated).toBe(false);
        }
      }
    },
  );

  it('uses the limit: with work to spare, the fleet gets at least 95 % of the limit through', () => {
    for (const instances of [1, 16, 1000]) {
      const r = simulate(surge(BUCKET, instances, policy('full-jitter', instances)));
      expect(r.goodput_rps, `${instances} instances`).toBeGreaterThanOrEqual(0.95 * 40);
    }
  });

  it('adaptive throttling refuses a smaller share than retries without jitter, for a fleet', () => {
    for (const instances of [16, 1000]) {
      const plain = simulate(surge(BUCKET, instances, policy('no-jitter', instances)));
      const adaptive = simulate(surge(BUCKET, instances, policy('adaptive', instances)));
      expect(adaptive.throttled, `${instances} instances`).toBeGreaterThan(0);
      expect(adaptive.rate_429, `${instances} instances`).toBeLessThan(plain.rate_429 * 0.9);
    }
  });

  it('a client-side bucket at a share of 80 % of the limit is (almost) never refused', () => {
    for (const instances of [1, 4, 16]) {
      const r = simulate(surge(BUCKET, instances, policy('client-bucket', instances)));
      expect(r.rate_429, `${instances} instances`).toBeLessThan(0.01);
      expect(r.goodput_rps).toBeGreaterThan(0.95 * 32);
      expect(r.goodput_rps).toBeLessThanOrEqual(32 + 8 / 20 + 0.5);
    }
  });

  it('a per-token limit gives each instance its own limiter: the fleet gets N times through', () => {
    const setup = surge(BUCKET, 4, policy('full-jitter', 4), { sharing: 'per-instance', offered_rps: 4 * 60 });
    expect(simulate(setup).goodput_rps).toBeGreaterThan(4 * 38);
    expect(simulate({ ...setup, sharing: 'shared' }).goodput_rps).toBeLessThan(41);
  });

  it('honouring Retry-After costs fewer refusals against a window that names its reset', () => {
    const fixed = LIMITERS[1]!;
    const ignoring = simulate(surge(fixed, 16, policy('full-jitter', 16)));
    const honouring = simulate(surge(fixed, 16, policy('full-jitter', 16, { honour_retry_after: true })));
    expect(honouring.rate_429).toBeLessThan(ignoring.rate_429);
  });

  it('drains a backlog: every queued call succeeds or is given up, and the time is reported', () => {
    for (const name of FLEET_POLICY_NAMES) {
      const r = simulate({
        ...surge(BUCKET, 16, policy(name, 16)),
        offered_rps: 0,
        backlog: 400,
        until: 'drained',
        max_s: 600,
      });
      expect(r.succeeded + r.lost, name).toBe(400);
      expect(r.drained_s, name).not.toBeNull();
      // 400 calls at 40 req/s (10 held from the start) take at least 9.75 s.
      expect(r.drained_s!, name).toBeGreaterThanOrEqual(r.lost > 0 ? 0 : 9.7);
    }
  });

  it('simulates 1,000 instances, every policy, through the event budget (no truncation)', () => {
    for (const name of FLEET_POLICY_NAMES) {
      const r = simulate(surge(BUCKET, 1000, policy(name, 1000), { duration_s: 30 }));
      expect(r.truncated).toBe(false);
      // The slowest candidate, the client bucket, works at 32 req/s; 30 s of it is 960 calls.
      expect(r.succeeded, name).toBeGreaterThan(0.9 * 32 * 30);
    }
  });
});
