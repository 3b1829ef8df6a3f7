// The drain that confirms a bucket verdict, when waiting for a full refill would take too long: a
// short wait, then a drain, still tells a bucket (a few refills) from a window that reset meanwhile
// (its whole limit). On a virtual clock, with a limit that behaves as a slow bucket through the first
// shape phase (as a drain straddling a fixed window's edge looks on a busy machine) and as a fixed
// window after.

import { describe, expect, it } from 'vitest';
import { discoverVirtual, fixedWindow, gcra, type Limiter } from './virtual-limit.js';

/** A bucket of `rate`/s and 100 at once until `untilMs`, then a fixed window of 50 a second. */
const slowBucketThenWindow = (rate: number, untilMs: number): Limiter => {
  const bucket = gcra(rate, 100);
  const window = fixedWindow(50);
  return (now) => (now < untilMs ? bucket(now) : window(now));
};

const probeOf = (limiter: () => Limiter) =>
  discoverVirtual({ limiter, status: 429, announces: 'retry-after' }, { maxDurationS: 120 });

describe('a bucket verdict with no time to confirm it from idle', () => {
  it('is overturned when a short wait lets a whole window through', async () => {
    // 2.6/s: a full refill of 100 takes 38 s, three of them over a quarter of the 120 s cap.
    const estimate = await probeOf(() => slowBucketThenWindow(2.6, 3_000));
    const evidence = estimate.limiter_evidence.join(' | ');
    expect(estimate.limiter?.kind, evidence).not.toBe('bucket');
    expect(evidence).toMatch(/a first drain, not from idle, had looked like a bucket/);
    expect(evidence).toMatch(/where a bucket refilling one every \d+ ms lets through at most \d+/);
  });

  it('stands, and says it was not confirmed from idle, when the short wait lets only a few through', async () => {
    const estimate = await probeOf(() => gcra(2.6, 100));
    const evidence = estimate.limiter_evidence.join(' | ');
    expect(estimate.limiter?.kind, evidence).toBe('bucket');
    expect(evidence).toMatch(/no more than a bucket refills \(not confirmed from idle: no time for it\)/);
    expect(Math.abs(estimate.sustained_rps! - 2.6) / 2.6).toBeLessThan(0.02);
  });
});

// Across a network the trickle's pings go a round trip apart and all pass: they time the network,
// not a refill, so a short wait's count bounds no bucket. Before, the emulator's 50/s bucket behind
// toxiproxy (CI land33r) was said to refill "one every 188 ms", so "lets through at most 17" where
// 71 passed: a bound the evidence never had.
describe('a bucket across a network, its refills untimed', () => {
  it.each([1, 2, 3])('claims no bound from a round-trip trickle (jitter seed %i)', async (seed) => {
    const estimate = await discoverVirtual(
      { limiter: () => gcra(50, 50), status: 429, network: { oneWayMs: 95, jitterMs: 10, seed } },
      { maxDurationS: 60 },
    );
    const evidence = estimate.limiter_evidence.join(' | ');
    expect(evidence).not.toMatch(/lets through at most|no more than a bucket refills/);
    expect(evidence).toMatch(/no bound on a bucket's refills: the trickle's pings, none refused, timed round trips/);
    expect(estimate.limiter?.kind, evidence).toBe('bucket');
    expect(Math.abs(estimate.sustained_rps! - 50) / 50, evidence).toBeLessThan(0.02);
  });
});
