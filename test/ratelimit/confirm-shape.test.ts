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
