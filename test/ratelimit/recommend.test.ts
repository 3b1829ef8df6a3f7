// The recommendation is a pure function of the estimate: its figures, its bounds, and — simulated
// against token buckets like the ones measured — that clients following it lose no request.

import { describe, expect, it } from 'vitest';
import {
  CAP_MAX_MS,
  LOSS_TARGET,
  RETRY_BOUNDS,
  horizonMs,
  jitterWindowMs,
  lossBound,
  recommend,
  targetRate,
  type RecommendInput,
} from '../../src/ratelimit/recommend.js';
import type { Recommendation } from '../../src/ratelimit/types.js';
import { seeded } from './seeded.js';

// What the probe measured on the emulator (50/s, burst 50, Retry-After whole seconds) and behind
// nginx (10 r/s, burst 5, no Retry-After).
const EMULATOR: RecommendInput = {
  sustained_rps: 50,
  burst: 50,
  recovery_s: 0.04,
  refill_s: 1,
  retry_after_header: 'truthful',
  retry_after_max_s: 1,
  latency_p95_ms: 24,
};
const NGINX: RecommendInput = {
  sustained_rps: 9.98,
  burst: 6,
  recovery_s: 0.13,
  refill_s: 0.6,
  retry_after_header: 'absent',
  retry_after_max_s: null,
  latency_p95_ms: 12,
};

describe('targetRate', () => {
  it.each([
    [50, 40],
    [123.4, 98],
    [12.4, 9.9],
    [7.3, 5.8],
    [0.5, 0.4],
    [0.01, 0.01],
  ])('%s req/s measured → %s req/s recommended (20 % headroom, rounded down)', (measured, target) => {
    expect(targetRate(measured)).toBe(target);
  });
});

describe('recommend', () => {
  it('sizes the emulator-like limit', () => {
    const r = recommend(EMULATOR)!;
    expect(r.target_rps).toBe(40);
    // 40/s × 24 ms ≈ 1 in flight.
    expect(r.max_concurrency).toBe(1);
    expect(r.backoff).toEqual({ base_ms: 80, cap_ms: 1_000, jitter: 'full', max_retries: r.backoff.max_retries });
    expect(lossBound(r.backoff, r.backoff.max_retries, 40)).toBeLessThanOrEqual(LOSS_TARGET);
    // The waits add up to at least twice Retry-After and the refill.
    expect(horizonMs(r.backoff, r.backoff.max_retries)).toBeGreaterThanOrEqual(2_000);
    // A follower waiting out Retry-After (1 s, plus up to half again) each time fits the budget.
    expect(r.retry_budget_s).toBeGreaterThanOrEqual(r.backoff.max_retries * 1.5);
    expect(r.why).toHaveLength(5);
  });

  it('sizes the nginx-like limit without Retry-After from the recovery and the refill alone', () => {
    const r = recommend(NGINX)!;
    expect(r.target_rps).toBe(7.9);
    expect(r.backoff.base_ms).toBe(260);
    expect(r.backoff.cap_ms).toBeGreaterThanOrEqual(4 * r.backoff.base_ms);
    expect(lossBound(r.backoff, r.backoff.max_retries, 130)).toBeLessThanOrEqual(LOSS_TARGET);
    expect(r.retry_budget_s * 1000).toBeGreaterThanOrEqual(horizonMs(r.backoff, r.backoff.max_retries));
  });

  it('keeps concurrency within the burst, however slow the service', () => {
    const r = recommend({ ...NGINX, latency_p95_ms: 2_000 })!;
    // 7.9/s × 2 s = 16 in flight by Little's law, but only 6 pass together.
    expect(r.max_concurrency).toBe(6);
    expect(recommend({ ...NGINX, latency_p95_ms: 300 })!.max_concurrency).toBe(3);
  });

  it('does not lean on a Retry-After that lied', () => {
    const honest = recommend({ ...EMULATOR, retry_after_max_s: 30 })!;
    const liar = recommend({ ...EMULATOR, retry_after_header: 'untruthful', retry_after_max_s: 30 })!;
    expect(honest.backoff.cap_ms).toBe(30_000);
    expect(liar.backoff.cap_ms).toBe(1_000);
  });

  it('recommends nothing without a sustained rate', () => {
    expect(recommend({ ...EMULATOR, sustained_rps: null })).toBeNull();
    expect(recommend({ ...EMULATOR, sustained_rps: 0 })).toBeNull();
  });

  it.each([0.2, 1, 3, 10, 40, 150, 1_000])('stays within its bounds at %s req/s', (rps) => {
    for (const burst of [1, 5, 50, 500]) {
      const r = recommend({
        sustained_rps: rps,
        burst,
        recovery_s: 1 / rps,
        refill_s: burst / rps,
        retry_after_header: 'absent',
        retry_after_max_s: null,
        latency_p95_ms: 50,
      })!;
      expect(r.target_rps).toBeLessThan(rps);
      expect(r.max_concurrency).toBeGreaterThanOrEqual(1);
      expect(r.max_concurrency).toBeLessThanOrEqual(burst);
      expect(r.backoff.cap_ms).toBeGreaterThanOrEqual(Math.min(CAP_MAX_MS, 4 * r.backoff.base_ms));
      expect(r.backoff.cap_ms).toBeLessThanOrEqual(CAP_MAX_MS);
      expect(r.backoff.max_retries).toBeGreaterThanOrEqual(RETRY_BOUNDS.min);
      expect(r.backoff.max_retries).toBeLessThanOrEqual(RETRY_BOUNDS.max);
      const reachedBound = lossBound(r.backoff, r.backoff.max_retries, 1000 / rps) <= LOSS_TARGET;
      expect(reachedBound || r.backoff.max_retries === RETRY_BOUNDS.max).toBe(true);
    }
  });
});

// A bucket of 10 per second before a silent window of 100 per 60 s, the set identified from the
// proof rounds (6 Dec): the recovery measured is the bucket's (0.1 s), and the policy's backoff
// (400–1600 ms, 7 retries) gave up within 7 s on a refusal the minute's quota holds until its edge.
describe('a set of limits: the backoff outlasts its longest window, not only the recovery of the first limit met', () => {
  const bucket = { kind: 'bucket', rate_rps: 9.96, burst: 10 } as const;
  const minute = { kind: 'fixed-window', limit: 100, window_s: 60, phase_s: 6.9, counts_refused: false } as const;
  const standing: RecommendInput = {
    sustained_rps: 1.67,
    burst: null,
    recovery_s: 0.096,
    refill_s: null,
    retry_after_header: 'absent',
    retry_after_max_s: null,
    latency_p95_ms: 3,
    limiter: minute,
    limiters: [bucket, minute],
  };

  it("caps the waits at the window, and retries until they add up to two of it; a single limit's recovery still decides alone", () => {
    const r = recommend(standing)!;
    expect(r.backoff.cap_ms).toBe(60_000);
    expect(horizonMs(r.backoff, r.backoff.max_retries)).toBeGreaterThanOrEqual(120_000);
    expect(r.why.join('\n')).toMatch(/the set's longest window \(60000 ms\)/);
    const alone = recommend({ ...standing, limiter: bucket, limiters: undefined, sustained_rps: 9.96 })!;
    expect(alone.backoff.cap_ms).toBeLessThan(2_000);
    expect(alone.why.join('\n')).not.toMatch(/longest window/);
  });
});

describe('lossBound', () => {
  /** The recommendation for a fixed window of `limit` per `windowS` without Retry-After: refused, a client may wait it whole. */
  const silentWindow = (limit: number, windowS: number) =>
    recommend({
      sustained_rps: Math.round((limit / windowS) * 100) / 100,
      burst: limit,
      recovery_s: windowS,
      refill_s: windowS,
      retry_after_header: 'absent',
      retry_after_max_s: null,
      latency_p95_ms: 4,
    })!;
  // Every retry of a lone client lands before the recovery exactly when the sum of its waits does.
  const allEarly = (
    b: { base_ms: number; cap_ms: number },
    retries: number,
    recoveryMs: number,
    random: () => number,
  ) => {
    let sent = 0;
    for (let i = 0; i < retries; i++) sent += random() * jitterWindowMs(b, i);
    return sent < recoveryMs;
  };

  it.each([
    [{ base_ms: 80, cap_ms: 1_000 }, 40],
    [{ base_ms: 260, cap_ms: 1_100 }, 130],
    [{ base_ms: 1_000, cap_ms: 4_000 }, 2_000],
    [{ base_ms: 10_000, cap_ms: 60_000 }, 60_000],
    [{ base_ms: 10_000, cap_ms: 60_000 }, 30_000],
  ])(
    'bounds from above the share of lone clients whose every retry lands early (%o, recovery %s ms)',
    (b, recoveryMs) => {
      const random = seeded(7);
      const trials = 200_000;
      for (const retries of [1, 2, 3, 4, 6]) {
        let early = 0;
        for (let t = 0; t < trials; t++) if (allEarly(b, retries, recoveryMs, random)) early++;
        const share = early / trials;
        // Three standard errors of the share seen, and one in a trial count, above the bound at most.
        const noise = 3 * Math.sqrt((share * (1 - share)) / trials) + 1 / trials;
        expect(share, `${retries} retries`).toBeLessThanOrEqual(lossBound(b, retries, recoveryMs) + noise);
      }
    },
  );

  it('gives a minute-long recovery a bound the retries can meet, where each wait alone could be early', () => {
    // A fixed window of 100 per 60 s: refused, a client may wait the whole minute; the cap is a minute too.
    const r = silentWindow(100, 60);
    expect(r.backoff.cap_ms).toBe(CAP_MAX_MS);
    const loss = lossBound(r.backoff, r.backoff.max_retries, 60_000);
    expect(loss).toBeLessThanOrEqual(LOSS_TARGET);
    expect(r.why.find((w) => w.includes('chance of losing'))).toMatch(
      new RegExp(
        `^${r.backoff.max_retries} retries: chance of losing a request alone ≤ ${loss.toExponential(1).replace('+', '\\+')}, up to`,
      ),
    );
  });

  it('says so when even the most retries leave the chance above the target', () => {
    // A recovery of ten minutes outlasts every wait the one-minute cap allows.
    const r = silentWindow(300, 600);
    expect(r.backoff.max_retries).toBe(RETRY_BOUNDS.max);
    expect(r.why.find((w) => w.includes('chance of losing'))).toMatch(
      /chance of losing a request alone ≤ 1\.0e\+0, above the 1e-4 aimed for: no more than 10 retries are given/,
    );
  });
});

/**
 * Followers of a policy against a token bucket, in simulated time: `clients` clients together
 * offer the target rate (each at its own phase), every refused request is retried after a full-
 * jitter wait (or Retry-After when the bucket sends one), and a request is lost when its retries
 * run out. The bucket starts drained, as a probe or another client may leave it.
 */
function simulate(
  policy: Recommendation,
  bucket: { rps: number; burst: number; retryAfter: boolean },
  clients: number,
  seconds: number,
  seed: number,
) {
  const random = seeded(seed);
  let tokens = 0;
  let last = 0;
  const take = (t: number): { ok: boolean; retryAfterMs?: number } => {
    tokens = Math.min(bucket.burst, tokens + ((t - last) / 1000) * bucket.rps);
    last = t;
    if (tokens >= 1) {
      tokens -= 1;
      return { ok: true };
    }
    return {
      ok: false,
      ...(bucket.retryAfter ? { retryAfterMs: Math.max(1, Math.ceil((1 - tokens) / bucket.rps)) * 1000 } : {}),
    };
  };
  // Pending attempts, kept sorted by time; each is [time, attempt number].
  const queue: Array<[number, number]> = [];
  const interval = (1000 * clients) / policy.target_rps;
  for (let c = 0; c < clients; c++)
    for (let t = random() * interval; t < seconds * 1000; t += interval) queue.push([t, 0]);
  queue.sort((a, b) => a[0] - b[0]);
  let lost = 0;
  let refused = 0;
  let done = 0;
  // Bounded: every request is retried at most max_retries times.
  while (queue.length > 0) {
    const [t, attempt] = queue.shift()!;
    const answer = take(t);
    if (answer.ok) {
      done++;
      continue;
    }
    refused++;
    if (attempt >= policy.backoff.max_retries) {
      lost++;
      continue;
    }
    const wait = answer.retryAfterMs ?? random() * jitterWindowMs(policy.backoff, attempt);
    const at = t + wait;
    let i = queue.findIndex(([q]) => q > at);
    if (i === -1) i = queue.length;
    queue.splice(i, 0, [at, attempt + 1]);
  }
  return { lost, refused, done };
}

describe('a client that follows the recommendation', () => {
  it.each([
    ['the emulator-like bucket with Retry-After', EMULATOR, { rps: 50, burst: 50, retryAfter: true }],
    ['an nginx-like bucket without Retry-After', NGINX, { rps: 10, burst: 5, retryAfter: false }],
    [
      'a slow bucket',
      { ...NGINX, sustained_rps: 2, burst: 2, recovery_s: 0.5, refill_s: 1 },
      { rps: 2, burst: 2, retryAfter: false },
    ],
  ] as const)('loses no request on %s, starting drained, alone or as 4 clients', (_label, estimate, bucket) => {
    const policy = recommend(estimate)!;
    for (const clients of [1, 4]) {
      for (const seed of [1, 2, 3]) {
        const { lost, done } = simulate(policy, bucket, clients, 30, seed);
        expect(lost, `${clients} clients, seed ${seed}`).toBe(0);
        expect(done).toBeGreaterThan(0);
      }
    }
  });

  it('where a hasty policy (5–10 ms, one retry) does lose requests: the simulation can tell', () => {
    const hasty: Recommendation = {
      ...recommend(NGINX)!,
      backoff: { base_ms: 5, cap_ms: 10, jitter: 'full', max_retries: 1 },
    };
    const { lost } = simulate(hasty, { rps: 10, burst: 5, retryAfter: false }, 4, 30, 1);
    expect(lost).toBeGreaterThan(0);
  });
});
