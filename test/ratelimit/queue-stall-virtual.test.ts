// A token bucket never delays, but on a busy machine a few of its answers come back late: the
// front or the client was descheduled while they were on their way (golang.org/x/time/rate's
// 20/s burst 40 behind a small Go front, three probes on 2 cores: "from idle 44 passed, of which
// the last 3 waited their turn … a queue, not a bucket", a false kind whose recommendation is a
// queue's). Late answers a stall makes are not a queue's: a queue holds every acceptance past its
// first few, the k-th one interval longer than the one before; a stall holds a few here and there,
// or a group together. So the bucket stays a bucket, and a real queue (limiters/queue.ts, nginx
// limit_req without nodelay) is still read as one, small ones too.

import { describe, expect, it } from 'vitest';
import type { QueueModel } from '../../src/ratelimit/limiters/index.js';
import { seeded } from './seeded.js';
import { relativeError } from './support.js';
import { discoverVirtual, fromModel, type Limiter } from './virtual-limit.js';

/**
 * A GCRA bucket (`rps`, `burst`, full at t = 0) whose bursts from idle have `late` of their
 * acceptances answered 20–40 ms late (seeded): ones drawn among the last `within` the bucket
 * admits before it runs dry, as a front descheduled now and then answers them.
 */
function stalledBucket(rps: number, burst: number, late: number, within: number, seed: number): Limiter {
  const random = seeded(seed);
  let chosen = new Set<number>();
  return heldBucket(rps, burst, (left, fromIdle) => {
    // From idle (the bucket full): this burst's late answers are drawn afresh.
    if (fromIdle) {
      chosen = new Set();
      while (chosen.size < late) chosen.add(Math.floor(random() * within));
    }
    return chosen.delete(Math.floor(left)) ? 20 + 20 * random() : 0;
  });
}

/**
 * A GCRA bucket (`rps`, `burst`, full at t = 0) whose answers are held `heldMs(left, fromIdle,
 * sinceIdleMs)`: `left`, the tokens left once the request is taken (under 1 for the last the bucket
 * admits before it runs dry); `fromIdle`, it found the bucket full; `sinceIdleMs`, how long ago a
 * request last did.
 */
function heldBucket(
  rps: number,
  burst: number,
  heldMs: (left: number, fromIdle: boolean, sinceIdleMs: number) => number,
): Limiter {
  const emissionMs = 1000 / rps;
  let theoretical = 0;
  let idleMs = 0;
  const decide: Limiter = (now) => {
    const next = Math.max(theoretical, now) + emissionMs;
    if (next - now > burst * emissionMs) return next - now - burst * emissionMs;
    const fromIdle = theoretical <= now;
    if (fromIdle) idleMs = now;
    theoretical = next;
    decide.queuedMs = heldMs(burst - (theoretical - now) / emissionMs, fromIdle, now - idleMs);
    return undefined;
  };
  return decide;
}

describe('late answers on a busy machine are no queue', () => {
  // Seeds the detector read as a queue before it asked for a queue's own signature (of 30 and 20
  // seeds each: "of which the last 2 waited their turn … one every 43 ms", "the last 4 … 54 ms").
  // Three late among the bucket's very last never fooled it: they leave together, not an interval apart.
  it.each([
    { late: 3, within: 20, seed: 16 },
    { late: 3, within: 20, seed: 26 },
    { late: 6, within: 40, seed: 2 },
    { late: 6, within: 40, seed: 18 },
    { late: 3, within: 3, seed: 1 },
  ])('a bucket 20/s burst 40 with $late answers among its last $within late (seed $seed)', async (c) => {
    const e = await discoverVirtual({ limiter: () => stalledBucket(20, 40, c.late, c.within, c.seed), status: 429 });
    const context = JSON.stringify({ ...e, timeline: undefined });
    expect(e.limiter?.kind, context).toBe('bucket');
  });

  // Two stalls, each holding a pair of the bucket's last acceptances (40 ms, then 90 ms): every one
  // past the first few waited, and half the gaps between answers are an interval, but each pair
  // left together: 65 ms over three gaps, not 150.
  it('a bucket 20/s burst 40 whose last four answers two stalls held in pairs', async () => {
    // Within a burst from idle only: the stream that follows keeps the bucket near dry throughout.
    const held = (left: number, _fromIdle: boolean, sinceIdleMs: number) =>
      sinceIdleMs > 400 ? 0 : left < 1.8 ? 90 : left < 3.6 ? 40 : 0;
    const e = await discoverVirtual({ limiter: () => heldBucket(20, 40, held), status: 429 });
    expect(e.limiter?.kind, JSON.stringify({ ...e, timeline: undefined })).toBe('bucket');
  });
});

describe('a small queue is still read', () => {
  it.each<QueueModel>([
    { kind: 'queue', rate_rps: 20, burst: 2, delay: 0 },
    { kind: 'queue', rate_rps: 20, burst: 3, delay: 0 },
  ])('nginx rate=$rate_rps r/s burst=$burst', async (truth) => {
    const e = await discoverVirtual({ limiter: () => fromModel(truth), status: 429 });
    const context = JSON.stringify({ ...e, timeline: undefined });
    expect(e.limiter?.kind, context).toBe('queue');
    const queue = e.limiter as QueueModel;
    expect(relativeError(queue.rate_rps, truth.rate_rps), context).toBeLessThanOrEqual(0.02);
    expect({ burst: queue.burst, delay: queue.delay }, context).toEqual({ burst: truth.burst, delay: truth.delay });
  });

  // One waiting place shows one late answer, which a stall makes too: the claim is the bucket it
  // behaves as from idle, two at once (docs/rate-limit-identification.md, Queues).
  it('nginx rate=20 r/s burst=1 is reported as a bucket of two', async () => {
    const truth: QueueModel = { kind: 'queue', rate_rps: 20, burst: 1, delay: 0 };
    const e = await discoverVirtual({ limiter: () => fromModel(truth), status: 429 });
    const context = JSON.stringify({ ...e, timeline: undefined });
    expect(e.limiter?.kind, context).toBe('bucket');
    expect(e.burst, context).toBe(2);
  });
});
